//! Ternary arithmetic (`Op::Tern`): clamps and fused multiply-adds (f16, f32, f64), with
//! `alu::tern`'s results bit for bit (binary16 clamps in f32, 64-bit integer clamps by compare
//! and select); mix and smoothstep are in `math.rs`.

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::Value;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use tessera_spirv::alu::{self, FBin, Tern, width_bytes};

use super::Gen;
use super::float::float_ty;
use super::values::{JVal, scalar_ty};

/// Whether the CPU fuses multiply-adds in hardware (else Cranelift could not lower a vector
/// `fma`, and the interpreter's `mul_add` runs it).
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cfg!(target_arch = "aarch64")
    }
}

impl Gen<'_> {
    /// `FClamp` / `NClamp` on binary16: the f32 clamp on the widened lanes, rounded back
    /// (exactly: the result is one of the operands); uniform operands are splat and lane 0
    /// kept.
    fn clamp_half(&mut self, dst: u32, srcs: [u32; 3]) -> JitResult<bool> {
        let values = srcs.map(|r| self.get(r));
        if let [JVal::Const(a), JVal::Const(b), JVal::Const(c)] = &values {
            self.set(dst, JVal::Const(alu::tern(Tern::FClamp, 16, *a, *b, *c)))?;
            return Ok(true);
        }
        let scalar = values.iter().all(JVal::is_scalar);
        let [xs, ls, hs] = values.map(|v| self.vectors(&v, 2));
        let mut out = Vec::with_capacity(2);
        for k in 0..xs.len() {
            out.push(self.half_vectors(&[xs[k], ls[k], hs[k]], &mut |g, v| {
                let m = g.fop(FBin::Max, v[0], v[1]);
                g.fop(FBin::Min, m, v[2])
            }));
        }
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(out[0], 0))
        } else {
            JVal::Varying(out)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// Clamps (`Tern::FClamp`, `NClamp` on f32 and f64; `UClamp`, `SClamp` on 8-, 16- and
    /// 32-bit integers): `min(max(x, lo), hi)` as `alu::tern` computes it; `Fma` on f32 and f64
    /// and binary16 (`fma`). Other ternary ops go to the interpreter.
    pub(super) fn tern(
        &mut self,
        op: Tern,
        width: u8,
        dst: u32,
        srcs: [u32; 3],
    ) -> JitResult<bool> {
        if op == Tern::Fma {
            return self.fma(width, dst, srcs);
        }
        if matches!(op, Tern::FMix | Tern::SmoothStep) {
            return self.tern_formula(op, width, dst, srcs);
        }
        if matches!(op, Tern::FClamp | Tern::NClamp) && width == 16 {
            return self.clamp_half(dst, srcs);
        }
        let float = matches!(op, Tern::FClamp | Tern::NClamp) && matches!(width, 32 | 64);
        let int = matches!(op, Tern::UClamp | Tern::SClamp) && matches!(width, 8 | 16 | 32 | 64);
        if !(float || int) {
            return Ok(false);
        }
        let bytes = width_bytes(width);
        let fty = if width == 64 { F64 } else { F32 };
        let [x, lo, hi] = srcs.map(|r| self.get(r));
        if let (JVal::Const(a), JVal::Const(b), JVal::Const(c)) = (&x, &lo, &hi) {
            self.set(dst, JVal::Const(alu::tern(op, width, *a, *b, *c)))?;
            return Ok(true);
        }
        let scalar = x.is_scalar() && lo.is_scalar() && hi.is_scalar();
        let parts: Vec<(Value, Value, Value)> = if scalar {
            let s =
                |g: &mut Self, v: &JVal| g.scalar(v, bytes).ok_or(JitError::NotUniform("scalar"));
            vec![(s(self, &x)?, s(self, &lo)?, s(self, &hi)?)]
        } else {
            let (xs, ls, hs) = (
                self.vectors(&x, bytes),
                self.vectors(&lo, bytes),
                self.vectors(&hi, bytes),
            );
            xs.into_iter()
                .zip(ls)
                .zip(hs)
                .map(|((a, b), c)| (a, b, c))
                .collect()
        };
        let mut out = Vec::with_capacity(parts.len());
        for (a, l, h) in parts {
            let r = if float {
                let (a, l, h) = if scalar {
                    (
                        self.bits_to_float(a, fty),
                        self.bits_to_float(l, fty),
                        self.bits_to_float(h, fty),
                    )
                } else {
                    (
                        self.vec_to_float(a, width),
                        self.vec_to_float(l, width),
                        self.vec_to_float(h, width),
                    )
                };
                let m = self.fop(FBin::Max, a, l);
                let r = self.fop(FBin::Min, m, h);
                if scalar {
                    self.float_to_bits(r, scalar_ty(bytes))
                } else {
                    self.vec_from_float(r, width)
                }
            } else if width == 64 && !scalar {
                // No 64-bit lane min/max before AVX-512: compare and select.
                let (gt, lt) = if op == Tern::UClamp {
                    (IntCC::UnsignedGreaterThan, IntCC::UnsignedLessThan)
                } else {
                    (IntCC::SignedGreaterThan, IntCC::SignedLessThan)
                };
                let above = self.b.ins().icmp(gt, a, l);
                let m = self.b.ins().bitselect(above, a, l);
                let below = self.b.ins().icmp(lt, m, h);
                self.b.ins().bitselect(below, m, h)
            } else if op == Tern::UClamp {
                let m = self.b.ins().umax(a, l);
                self.b.ins().umin(m, h)
            } else {
                let m = self.b.ins().smax(a, l);
                self.b.ins().smin(m, h)
            };
            out.push(r);
        }
        let r = if scalar {
            JVal::Uniform(out[0])
        } else {
            JVal::Varying(out)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `Fma` (GLSL.std.450 `Fma`) on f32 or f64: one fused multiply-add, rounded once, as
    /// `alu::tern`'s `mul_add`.
    fn fma(&mut self, width: u8, dst: u32, srcs: [u32; 3]) -> JitResult<bool> {
        if width == 16 && has_fma() {
            return self.fma_half(dst, srcs);
        }
        let Some(fty) = float_ty(width).filter(|_| matches!(width, 32 | 64) && has_fma()) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let [x, y, z] = srcs.map(|r| self.get(r));
        if let (JVal::Const(a), JVal::Const(b), JVal::Const(c)) = (&x, &y, &z) {
            self.set(dst, JVal::Const(alu::tern(Tern::Fma, width, *a, *b, *c)))?;
            return Ok(true);
        }
        if x.is_scalar() && y.is_scalar() && z.is_scalar() {
            let mut f = |v: &JVal| -> JitResult<Value> {
                let bits = self.scalar(v, bytes).ok_or(JitError::NotUniform("fma"))?;
                Ok(self.bits_to_float(bits, fty))
            };
            let (a, b, c) = (f(&x)?, f(&y)?, f(&z)?);
            let r = self.b.ins().fma(a, b, c);
            let r = self.float_to_bits(r, scalar_ty(bytes));
            self.set(dst, JVal::Uniform(r))?;
            return Ok(true);
        }
        let (xs, ys, zs) = (
            self.vectors(&x, bytes),
            self.vectors(&y, bytes),
            self.vectors(&z, bytes),
        );
        let mut out = Vec::with_capacity(xs.len());
        for ((a, b), c) in xs.into_iter().zip(ys).zip(zs) {
            let (a, b, c) = (
                self.vec_to_float(a, width),
                self.vec_to_float(b, width),
                self.vec_to_float(c, width),
            );
            let r = self.b.ins().fma(a, b, c);
            out.push(self.vec_from_float(r, width));
        }
        self.set(dst, JVal::Varying(out))?;
        Ok(true)
    }

    /// `Fma` on binary16: widened to f32, one fused multiply-add, rounded back (`half.rs`), as
    /// `alu::tern`; uniform operands are splat and lane 0 of the result kept.
    fn fma_half(&mut self, dst: u32, srcs: [u32; 3]) -> JitResult<bool> {
        let [x, y, z] = srcs.map(|r| self.get(r));
        if let (JVal::Const(a), JVal::Const(b), JVal::Const(c)) = (&x, &y, &z) {
            self.set(dst, JVal::Const(alu::tern(Tern::Fma, 16, *a, *b, *c)))?;
            return Ok(true);
        }
        let scalar = x.is_scalar() && y.is_scalar() && z.is_scalar();
        let (xs, ys, zs) = (
            self.vectors(&x, 2),
            self.vectors(&y, 2),
            self.vectors(&z, 2),
        );
        let mut out = Vec::with_capacity(xs.len());
        for ((a, b), c) in xs.into_iter().zip(ys).zip(zs) {
            out.push(self.half_vectors(&[a, b, c], &mut |g, v| g.b.ins().fma(v[0], v[1], v[2])));
            if scalar {
                break;
            }
        }
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(out[0], 0))
        } else {
            JVal::Varying(out)
        };
        self.set(dst, r)?;
        Ok(true)
    }
}
