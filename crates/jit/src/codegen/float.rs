//! Float arithmetic in compiled code: add, sub, mul, div, min, max (f32, f64, binary16 in f32),
//! the unary ops with a one-instruction lowering, and compares, each computing exactly what
//! `tessera_spirv::alu` computes per lane (`math.rs` has the functions and formulas).

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use tessera_spirv::alu::{self, FBin, FCmp, FUn, width_bytes};

use super::Gen;
use super::values::{JVal, lane_flags, scalar_ty, vec_ty};

/// The float type of a float width code, if the JIT computes in it.
/// The float type of a float width code, if the JIT computes in it.
pub(super) fn float_ty(width: u8) -> Option<Type> {
    match width {
        32 => Some(F32),
        64 => Some(F64),
        _ => None,
    }
}

/// The binary16 width code, computed in f32 (`half.rs`).
pub(super) fn is_half(width: u8) -> bool {
    width == 16
}

pub(super) fn float_vec(width: u8) -> Type {
    if width == 32 { F32X4 } else { F64X2 }
}

impl Gen<'_> {
    // ------------------------------------------------------------------ floats

    pub(super) fn bits_to_float(&mut self, x: Value, fty: Type) -> Value {
        self.b
            .ins()
            .bitcast(fty, cranelift_codegen::ir::MemFlagsData::new(), x)
    }

    pub(super) fn float_to_bits(&mut self, x: Value, ity: Type) -> Value {
        self.b
            .ins()
            .bitcast(ity, cranelift_codegen::ir::MemFlagsData::new(), x)
    }

    pub(super) fn vec_to_float(&mut self, x: Value, width: u8) -> Value {
        self.b.ins().bitcast(float_vec(width), lane_flags(), x)
    }

    pub(super) fn vec_from_float(&mut self, x: Value, width: u8) -> Value {
        let bytes = width_bytes(width);
        self.b.ins().bitcast(vec_ty(bytes), lane_flags(), x)
    }

    pub(super) fn fbin(
        &mut self,
        op: FBin,
        width: u8,
        dst: u32,
        lhs: u32,
        rhs: u32,
    ) -> JitResult<bool> {
        if !matches!(
            op,
            FBin::Add | FBin::Sub | FBin::Mul | FBin::Div | FBin::Min | FBin::Max
        ) {
            return self.fbin_formula(op, width, dst, [lhs, rhs]);
        }
        if is_half(width) {
            return self.fbin_half(op, width, dst, lhs, rhs);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let ity = scalar_ty(bytes);
        let (a, b) = (self.get(lhs), self.get(rhs));
        let r = match (&a, &b) {
            (JVal::Const(x), JVal::Const(y)) => JVal::Const(alu::fbin(op, width, *x, *y)),
            _ if a.is_scalar() && b.is_scalar() => {
                let (x, y) = self.scalar_pair(&a, &b, bytes)?;
                let (x, y) = (self.bits_to_float(x, fty), self.bits_to_float(y, fty));
                let z = self.fop(op, x, y);
                JVal::Uniform(self.float_to_bits(z, ity))
            }
            _ => {
                let xs = self.vectors(&a, bytes);
                let ys = self.vectors(&b, bytes);
                let out = xs
                    .iter()
                    .zip(&ys)
                    .map(|(&x, &y)| {
                        let (x, y) = (self.vec_to_float(x, width), self.vec_to_float(y, width));
                        let z = self.fop(op, x, y);
                        self.vec_from_float(z, width)
                    })
                    .collect();
                JVal::Varying(out)
            }
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `fbin` on binary16: in f32 on vectors (`half.rs`); uniform operands are splat and
    /// lane 0 of the result kept.
    pub(super) fn fbin_half(
        &mut self,
        op: FBin,
        width: u8,
        dst: u32,
        lhs: u32,
        rhs: u32,
    ) -> JitResult<bool> {
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fbin(op, width, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let xs = self.vectors(&a, 2);
        let ys = self.vectors(&b, 2);
        let mut out: Vec<Value> = Vec::with_capacity(xs.len());
        for (k, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            if scalar && k > 0 {
                break;
            }
            let v = if matches!(op, FBin::Min | FBin::Max) {
                self.half_min_max(op == FBin::Max, x, y)
            } else {
                self.half_vectors(&[x, y], &mut |g, v| g.fop(op, v[0], v[1]))
            };
            out.push(v);
        }
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(out[0], 0))
        } else {
            JVal::Varying(out)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `alu::fbin`'s Min or Max of binary16 lanes (`I16X8`) on their bits: `y` when it is the
    /// smaller (larger) one or `x` is NaN, else `x` (so ±0 compare equal, and a NaN `y` is
    /// taken only for a NaN `x`); a NaN result gets the quiet bit, as the widening and
    /// narrowing the other operations go through give it.
    pub(super) fn half_min_max(&mut self, max: bool, x: Value, y: Value) -> Value {
        let splat = |g: &mut Self, v: u16| g.const_vec(2, 0, |_| u64::from(v));
        let magnitude = splat(self, 0x7fff);
        let inf = splat(self, 0x7c00);
        let (ax, ay) = (
            self.b.ins().band(x, magnitude),
            self.b.ins().band(y, magnitude),
        );
        let x_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, ax, inf);
        let y_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, ay, inf);
        // Sign-magnitude to two's-complement order: negative values have their magnitude bits
        // flipped.
        let key = |g: &mut Self, v: Value| {
            let sign = g.b.ins().sshr_imm_s(v, 15);
            let flip = g.b.ins().band(sign, magnitude);
            g.b.ins().bxor(v, flip)
        };
        let (kx, ky) = (key(self, x), key(self, y));
        let cc = if max {
            IntCC::SignedGreaterThan
        } else {
            IntCC::SignedLessThan
        };
        let better = self.b.ins().icmp(cc, ky, kx);
        let either = self.b.ins().bor(ax, ay);
        let zero = splat(self, 0);
        let not_both_zero = self.b.ins().icmp(IntCC::NotEqual, either, zero);
        let any_nan = self.b.ins().bor(x_nan, y_nan);
        let ordered = self.b.ins().bnot(any_nan);
        let better = self.b.ins().band(better, not_both_zero);
        let better = self.b.ins().band(better, ordered);
        let take_y = self.b.ins().bor(better, x_nan);
        let r = self.b.ins().bitselect(take_y, y, x);
        let both_nan = self.b.ins().band(x_nan, y_nan);
        let quiet = splat(self, 0x0200);
        let quiet = self.b.ins().band(both_nan, quiet);
        self.b.ins().bor(r, quiet)
    }

    /// `x op y` on float scalars or vectors, as `alu::fbin` defines it.
    pub(super) fn fop(&mut self, op: FBin, x: Value, y: Value) -> Value {
        match op {
            FBin::Add => self.b.ins().fadd(x, y),
            FBin::Sub => self.b.ins().fsub(x, y),
            FBin::Mul => self.b.ins().fmul(x, y),
            FBin::Div => self.b.ins().fdiv(x, y),
            // y if (y < x or x is NaN) else x, and the same with > for Max.
            _ => {
                let cc = if op == FBin::Min {
                    FloatCC::LessThan
                } else {
                    FloatCC::GreaterThan
                };
                let better = self.b.ins().fcmp(cc, y, x);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                let pick = self.b.ins().bor(better, nan);
                let ty = self.b.func.dfg.value_type(x);
                if ty.is_vector() {
                    let pick = self.b.ins().bitcast(ty, lane_flags(), pick);
                    self.b.ins().bitselect(pick, y, x)
                } else {
                    self.b.ins().select(pick, y, x)
                }
            }
        }
    }

    pub(super) fn fun(&mut self, op: FUn, width: u8, dst: u32, src: u32) -> JitResult<bool> {
        if is_half(width) && matches!(op, FUn::Neg | FUn::Abs) {
            // Sign-bit operations on the bits, as `alu::fun` does.
            let a = self.get(src);
            let r = match (&a, op) {
                (JVal::Const(x), _) => JVal::Const(alu::fun(op, width, *x)),
                _ if a.is_scalar() => {
                    let x = self.scalar(&a, 2).ok_or(JitError::NotUniform("scalar"))?;
                    JVal::Uniform(if op == FUn::Neg {
                        self.b.ins().bxor_imm_s(x, 0x8000)
                    } else {
                        self.b.ins().band_imm_s(x, 0x7fff)
                    })
                }
                _ => {
                    let xs = self.vectors(&a, 2);
                    let k = if op == FUn::Neg { 0x8000 } else { 0x7fff };
                    let mask = self.const_vec(2, 0, |_| k);
                    JVal::Varying(
                        xs.iter()
                            .map(|&x| {
                                if op == FUn::Neg {
                                    self.b.ins().bxor(x, mask)
                                } else {
                                    self.b.ins().band(x, mask)
                                }
                            })
                            .collect(),
                    )
                }
            };
            self.set(dst, r)?;
            return Ok(true);
        }
        if !matches!(
            op,
            FUn::Neg | FUn::Abs | FUn::Sqrt | FUn::Floor | FUn::Ceil | FUn::Trunc | FUn::RoundEven
        ) || is_half(width)
        {
            return self.fun_formula(op, width, dst, src);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let ity = scalar_ty(bytes);
        let a = self.get(src);
        let r = match &a {
            JVal::Const(x) => JVal::Const(alu::fun(op, width, *x)),
            _ if a.is_scalar() => {
                let x = self
                    .scalar(&a, bytes)
                    .ok_or(JitError::NotUniform("scalar"))?;
                let x = self.bits_to_float(x, fty);
                let z = self.funop(op, x);
                JVal::Uniform(self.float_to_bits(z, ity))
            }
            _ => {
                let xs = self.vectors(&a, bytes);
                let out = xs
                    .iter()
                    .map(|&x| {
                        let x = self.vec_to_float(x, width);
                        let z = self.funop(op, x);
                        self.vec_from_float(z, width)
                    })
                    .collect();
                JVal::Varying(out)
            }
        };
        self.set(dst, r)?;
        Ok(true)
    }

    pub(super) fn funop(&mut self, op: FUn, x: Value) -> Value {
        match op {
            FUn::Neg => self.b.ins().fneg(x),
            FUn::Abs => self.b.ins().fabs(x),
            FUn::Sqrt => self.b.ins().sqrt(x),
            FUn::Floor => self.b.ins().floor(x),
            FUn::Ceil => self.b.ins().ceil(x),
            FUn::Trunc => self.b.ins().trunc(x),
            _ => self.b.ins().nearest(x),
        }
    }

    pub(super) fn fcmp(
        &mut self,
        op: FCmp,
        width: u8,
        dst: u32,
        lhs: u32,
        rhs: u32,
    ) -> JitResult<bool> {
        if is_half(width) {
            return self.fcmp_half(op, dst, lhs, rhs);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fcmp(op, width, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let cmp = |g: &mut Self, x: Value, y: Value| g.fcmp_values(op, x, y);
        let r = if scalar {
            let (x, y) = self.scalar_pair(&a, &b, bytes)?;
            let (x, y) = (self.bits_to_float(x, fty), self.bits_to_float(y, fty));
            JVal::Uniform(cmp(self, x, y))
        } else {
            let xs = self.vectors(&a, bytes);
            let ys = self.vectors(&b, bytes);
            let masks: Vec<Value> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| {
                    let (x, y) = (self.vec_to_float(x, width), self.vec_to_float(y, width));
                    let m = cmp(self, x, y);
                    if self.b.func.dfg.value_type(m) == vec_ty(bytes) {
                        m
                    } else {
                        self.b.ins().bitcast(vec_ty(bytes), lane_flags(), m)
                    }
                })
                .collect();
            JVal::Varying(vec![self.bools_from_masks(&masks, bytes)])
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `fcmp` on binary16: both operands widened to f32 (exactly), compared there, the two
    /// `I32X4` masks of each `I16X8` narrowed back; uniform operands are splat and lane 0's
    /// bool kept.
    pub(super) fn fcmp_half(&mut self, op: FCmp, dst: u32, lhs: u32, rhs: u32) -> JitResult<bool> {
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fcmp(op, 16, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let xs = self.vectors(&a, 2);
        let ys = self.vectors(&b, 2);
        let mut masks = Vec::with_capacity(2);
        for (&x, &y) in xs.iter().zip(&ys) {
            let mut parts = [x; 2];
            for (k, high) in [false, true].into_iter().enumerate() {
                let widen = |g: &mut Self, v: Value| {
                    let w = if high {
                        g.b.ins().uwiden_high(v)
                    } else {
                        g.b.ins().uwiden_low(v)
                    };
                    g.half_to_f32(w)
                };
                let (fx, fy) = (widen(self, x), widen(self, y));
                let m = self.fcmp_values(op, fx, fy);
                parts[k] = if self.b.func.dfg.value_type(m) == I32X4 {
                    m
                } else {
                    self.b.ins().bitcast(I32X4, lane_flags(), m)
                };
            }
            masks.push(self.b.ins().snarrow(parts[0], parts[1]));
        }
        let bools = self.bools_from_masks(&masks, 2);
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(bools, 0))
        } else {
            JVal::Varying(vec![bools])
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// One float predicate on two float values (scalars or vectors: a bool or a lane mask),
    /// as a disjunction/conjunction of ones x86 has for vectors too.
    pub(super) fn fcmp_values(&mut self, op: FCmp, x: Value, y: Value) -> Value {
        let cmp = |g: &mut Self, x: Value, y: Value| -> Value {
            let c = |g: &mut Self, cc: FloatCC, p: Value, q: Value| g.b.ins().fcmp(cc, p, q);
            match op {
                FCmp::OEq => c(g, FloatCC::Equal, x, y),
                FCmp::ONe => {
                    let o = c(g, FloatCC::Ordered, x, y);
                    let ne = c(g, FloatCC::NotEqual, x, y);
                    g.b.ins().band(o, ne)
                }
                FCmp::OLt => c(g, FloatCC::LessThan, x, y),
                FCmp::OLe => c(g, FloatCC::LessThanOrEqual, x, y),
                FCmp::OGt => c(g, FloatCC::LessThan, y, x),
                FCmp::OGe => c(g, FloatCC::LessThanOrEqual, y, x),
                FCmp::UEq => {
                    let u = c(g, FloatCC::Unordered, x, y);
                    let eq = c(g, FloatCC::Equal, x, y);
                    g.b.ins().bor(u, eq)
                }
                FCmp::UNe => c(g, FloatCC::NotEqual, x, y),
                FCmp::ULt => {
                    let ge = c(g, FloatCC::LessThanOrEqual, y, x);
                    g.bool_not(ge)
                }
                FCmp::ULe => {
                    let gt = c(g, FloatCC::LessThan, y, x);
                    g.bool_not(gt)
                }
                FCmp::UGt => {
                    let le = c(g, FloatCC::LessThanOrEqual, x, y);
                    g.bool_not(le)
                }
                FCmp::UGe => {
                    let lt = c(g, FloatCC::LessThan, x, y);
                    g.bool_not(lt)
                }
                FCmp::IsNan => c(g, FloatCC::Unordered, x, x),
                FCmp::IsInf => {
                    let ax = g.b.ins().fabs(x);
                    let ty = g.b.func.dfg.value_type(x);
                    let inf = if ty.lane_type() == F32 {
                        let i = g.b.ins().f32const(f32::INFINITY);
                        if ty.is_vector() {
                            g.b.ins().splat(ty, i)
                        } else {
                            i
                        }
                    } else {
                        let i = g.b.ins().f64const(f64::INFINITY);
                        if ty.is_vector() {
                            g.b.ins().splat(ty, i)
                        } else {
                            i
                        }
                    };
                    c(g, FloatCC::Equal, ax, inf)
                }
            }
        };
        cmp(self, x, y)
    }

    /// Logical not of a comparison result (a scalar `I8` 0/1 or a vector mask).
    pub(super) fn bool_not(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        if ty.is_vector() {
            self.b.ins().bnot(x)
        } else {
            self.b.ins().bxor_imm_s(x, 1)
        }
    }
}
