//! `OpExtInst`: `GLSL.std.450`, and `NonSemantic.*` sets, whose instructions are dropped.
//! Component-wise instructions map to an [`AluKind`] for `Lowerer::alu`; the rest are expanded
//! expanded into IR sequences: geometry, determinant and inverse by cofactors (`geometry`);
//! frexp, modf, ldexp and the pack/unpack family (`packing`). The extended set import is checked
//! by `caps`.

mod geometry;
mod packing;

use super::arith::AluKind;
use super::{Id, LowerResult, Lowerer, Val, err, idref, lit};
use crate::SpirvError;
use crate::alu::{self, Conv, FBin, FUn, IBin, ICmp, IUn, Tern};
use crate::ir::{Op, Reg};
use rspirv::dr::Instruction;
use std::collections::HashMap;

/// GLSL.std.450 instruction numbers used below.
mod glsl {
    pub const ROUND: u32 = 1;
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const FSIGN: u32 = 6;
    pub const SSIGN: u32 = 7;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const RADIANS: u32 = 11;
    pub const DEGREES: u32 = 12;
    pub const SIN: u32 = 13;
    pub const ATANH: u32 = 24;
    pub const ATAN2: u32 = 25;
    pub const POW: u32 = 26;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INV_SQRT: u32 = 32;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FCLAMP: u32 = 43;
    pub const UCLAMP: u32 = 44;
    pub const SCLAMP: u32 = 45;
    pub const FMIX: u32 = 46;
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const DETERMINANT: u32 = 33;
    pub const MATRIX_INVERSE: u32 = 34;
    pub const MODF: u32 = 35;
    pub const MODF_STRUCT: u32 = 36;
    pub const FREXP: u32 = 51;
    pub const FREXP_STRUCT: u32 = 52;
    pub const LDEXP: u32 = 53;
    pub const PACK_SNORM4X8: u32 = 54;
    pub const PACK_UNORM4X8: u32 = 55;
    pub const PACK_SNORM2X16: u32 = 56;
    pub const PACK_UNORM2X16: u32 = 57;
    pub const PACK_HALF2X16: u32 = 58;
    pub const PACK_DOUBLE2X32: u32 = 59;
    pub const UNPACK_SNORM2X16: u32 = 60;
    pub const UNPACK_UNORM2X16: u32 = 61;
    pub const UNPACK_HALF2X16: u32 = 62;
    pub const UNPACK_SNORM4X8: u32 = 63;
    pub const UNPACK_UNORM4X8: u32 = 64;
    pub const UNPACK_DOUBLE2X32: u32 = 65;
    pub const FACE_FORWARD: u32 = 70;
    pub const REFLECT: u32 = 71;
    pub const REFRACT: u32 = 72;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_SMSB: u32 = 74;
    pub const FIND_UMSB: u32 = 75;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
    pub const NCLAMP: u32 = 81;
}

impl<'m> Lowerer<'m> {
    pub(super) fn ext_inst(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        use AluKind as K;
        let o = &inst.operands;
        let set_id = idref(o.first())?;
        if self.ignored_sets.contains(&set_id) {
            return Ok(());
        }
        if Some(set_id) != self.glsl {
            return err(format!(
                "{}: unknown extended instruction set %{set_id}",
                self.at
            ));
        }
        let n = lit(o.get(1))?;
        let args = &o[2..];
        let fu = |op| K::FU(op);
        let kind = match n {
            glsl::ROUND => fu(FUn::Round),
            glsl::ROUND_EVEN => fu(FUn::RoundEven),
            glsl::TRUNC => fu(FUn::Trunc),
            glsl::FABS => fu(FUn::Abs),
            glsl::SABS => K::IU(IUn::SAbs),
            glsl::FSIGN => fu(FUn::Sign),
            glsl::SSIGN => K::IU(IUn::SSign),
            glsl::FLOOR => fu(FUn::Floor),
            glsl::CEIL => fu(FUn::Ceil),
            glsl::FRACT => fu(FUn::Fract),
            glsl::RADIANS => fu(FUn::Radians),
            glsl::DEGREES => fu(FUn::Degrees),
            glsl::SIN..=glsl::ATANH => fu([
                FUn::Sin,
                FUn::Cos,
                FUn::Tan,
                FUn::Asin,
                FUn::Acos,
                FUn::Atan,
                FUn::Sinh,
                FUn::Cosh,
                FUn::Tanh,
                FUn::Asinh,
                FUn::Acosh,
                FUn::Atanh,
            ][(n - glsl::SIN) as usize]),
            glsl::ATAN2 => K::F(FBin::Atan2),
            glsl::POW => K::F(FBin::Pow),
            glsl::EXP => fu(FUn::Exp),
            glsl::LOG => fu(FUn::Log),
            glsl::EXP2 => fu(FUn::Exp2),
            glsl::LOG2 => fu(FUn::Log2),
            glsl::SQRT => fu(FUn::Sqrt),
            glsl::INV_SQRT => fu(FUn::InvSqrt),
            glsl::FMIN | glsl::NMIN => K::F(FBin::Min),
            glsl::FMAX | glsl::NMAX => K::F(FBin::Max),
            glsl::UMIN => K::I(IBin::UMin),
            glsl::SMIN => K::I(IBin::SMin),
            glsl::UMAX => K::I(IBin::UMax),
            glsl::SMAX => K::I(IBin::SMax),
            glsl::FCLAMP => K::T(Tern::FClamp),
            glsl::NCLAMP => K::T(Tern::NClamp),
            glsl::UCLAMP => K::T(Tern::UClamp),
            glsl::SCLAMP => K::T(Tern::SClamp),
            glsl::FMIX => K::T(Tern::FMix),
            glsl::STEP => K::F(FBin::Step),
            glsl::SMOOTH_STEP => K::T(Tern::SmoothStep),
            glsl::FMA => K::T(Tern::Fma),
            glsl::FIND_ILSB => K::IU(IUn::FindILsb),
            glsl::FIND_SMSB => K::IU(IUn::FindSMsb),
            glsl::FIND_UMSB => K::IU(IUn::FindUMsb),
            glsl::LENGTH | glsl::DISTANCE | glsl::NORMALIZE | glsl::CROSS => {
                return self.glsl_vector_geometry(inst, vals, n, args);
            }
            glsl::FACE_FORWARD => return self.glsl_face_forward(inst, vals, args),
            glsl::REFLECT => return self.glsl_reflect(inst, vals, args),
            glsl::REFRACT => return self.glsl_refract(inst, vals, args),
            glsl::DETERMINANT => return self.glsl_determinant(inst, vals, args),
            glsl::FREXP | glsl::FREXP_STRUCT => return self.glsl_frexp(inst, vals, n, args),
            glsl::MODF | glsl::MODF_STRUCT => return self.glsl_modf(inst, vals, n, args),
            glsl::LDEXP => return self.glsl_ldexp(inst, vals, args),
            glsl::PACK_SNORM4X8..=glsl::PACK_UNORM2X16 => {
                return self.glsl_pack_norm(inst, vals, n, args);
            }
            glsl::UNPACK_SNORM2X16
            | glsl::UNPACK_UNORM2X16
            | glsl::UNPACK_SNORM4X8
            | glsl::UNPACK_UNORM4X8 => return self.glsl_unpack_norm(inst, vals, n, args),
            glsl::PACK_DOUBLE2X32 => return self.glsl_pack_double(inst, vals, args),
            glsl::UNPACK_DOUBLE2X32 => return self.glsl_unpack_double(inst, vals, args),
            glsl::MATRIX_INVERSE => return self.glsl_matrix_inverse(inst, vals, args),
            glsl::PACK_HALF2X16 => return self.glsl_pack_half(inst, vals, args),
            glsl::UNPACK_HALF2X16 => return self.glsl_unpack_half(inst, vals, args),
            _ => {
                return err(format!(
                    "{}: unsupported GLSL.std.450 instruction {n}",
                    self.at
                ));
            }
        };
        self.alu(inst, vals, args, kind)
    }

    /// `frexp` of one float register of width `w`: the significand (magnitude in [0.5, 1), sign
    /// of `x`) and the exponent as an integer of width `ew`. Zero gives (x, 0); infinities and
    /// NaNs give (x, 0); denormals are scaled into the normal range first.
    fn frexp(&mut self, w: u8, ew: u8, x: Reg) -> LowerResult<(Reg, Reg)> {
        let (mant_bits, exp_bits) = match w {
            16 => (10u32, 5u32),
            32 => (23, 8),
            _ => (52, 11),
        };
        let bias = (1u64 << (exp_bits - 1)) - 1;
        let emask = (1u64 << exp_bits) - 1;
        let scale_k = u64::from(mant_bits) + 2;
        let i = |l: &mut Self, op: IBin, a: Reg, b: Reg| -> LowerResult<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::IBin {
                op,
                width: w,
                dst: d,
                lhs: a,
                rhs: b,
            });
            Ok(d)
        };
        let c = |l: &mut Self, op: ICmp, a: Reg, b: Reg| -> LowerResult<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::ICmp {
                op,
                width: w,
                dst: d,
                lhs: a,
                rhs: b,
            });
            Ok(d)
        };
        let sel = |l: &mut Self, cond: Reg, a: Reg, b: Reg| -> LowerResult<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::Select {
                dst: d,
                cond,
                if_true: a,
                if_false: b,
            });
            Ok(d)
        };
        let (k_mant, k_emask, k_zero) = (
            self.imm(u64::from(mant_bits))?,
            self.imm(emask)?,
            self.imm(0)?,
        );
        let field = |l: &mut Self, v: Reg| -> LowerResult<Reg> {
            let sh = i(l, IBin::ShrL, v, k_mant)?;
            i(l, IBin::And, sh, k_emask)
        };
        // Scale denormals by 2^k so that their exponent field is non-zero.
        let e0 = field(self, x)?;
        let is_sub = c(self, ICmp::Eq, e0, k_zero)?;
        let two_k = self.imm(match w {
            16 => u64::from(half::f16::from_f32((scale_k as f32).exp2()).to_bits()),
            32 => u64::from((scale_k as f32).exp2().to_bits()),
            _ => (scale_k as f64).exp2().to_bits(),
        })?;
        let scaled = self.alloc(1)?;
        self.emit(Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: scaled,
            lhs: x,
            rhs: two_k,
        });
        let xn = sel(self, is_sub, scaled, x)?;
        let adj = {
            let k = self.imm(scale_k)?;
            sel(self, is_sub, k, k_zero)?
        };
        let e = field(self, xn)?;
        // exponent = e - (bias - 1) - adj, computed at width `w` then converted to `ew`.
        let bias_m1 = self.imm(bias - 1)?;
        let e1 = i(self, IBin::Sub, e, bias_m1)?;
        let e2 = i(self, IBin::Sub, e1, adj)?;
        // significand: clear the exponent field, set it to bias - 1.
        let placed = self.imm(emask << mant_bits)?;
        let keep = self.alloc(1)?;
        self.emit(Op::IUn {
            op: IUn::Not,
            width: w,
            dst: keep,
            src: placed,
        });
        let cleared = i(self, IBin::And, xn, keep)?;
        let half_exp = self.imm((bias - 1) << mant_bits)?;
        let m = i(self, IBin::Or, cleared, half_exp)?;
        // Zero (magnitude bits all 0) and inf/NaN (exponent field all ones) give (x, 0).
        let sign_off = self.imm(if w == 64 {
            u64::MAX >> 1
        } else {
            (1u64 << (w - 1)) - 1
        })?;
        let mag = i(self, IBin::And, x, sign_off)?;
        let is_zero = c(self, ICmp::Eq, mag, k_zero)?;
        let is_special = c(self, ICmp::Eq, e0, k_emask)?;
        let passthrough = self.alloc(1)?;
        self.emit(Op::IBin {
            op: IBin::Or,
            width: 1,
            dst: passthrough,
            lhs: is_zero,
            rhs: is_special,
        });
        let m_out = sel(self, passthrough, x, m)?;
        let e_out = sel(self, passthrough, k_zero, e2)?;
        let e_conv = self.alloc(1)?;
        self.emit(Op::Conv {
            op: Conv::SToS,
            from: w,
            to: ew,
            dst: e_conv,
            src: e_out,
        });
        Ok((m_out, e_conv))
    }

    /// Determinant of the `n`×`n` column-major matrix `m`, expanded along the first column.
    fn determinant(&mut self, w: u8, m: &[Reg], n: usize) -> LowerResult<Reg> {
        let at = |c: usize, r: usize| m[c * n + r];
        let fbin = |l: &mut Self, op: FBin, a: Reg, b: Reg| -> LowerResult<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::FBin {
                op,
                width: w,
                dst: d,
                lhs: a,
                rhs: b,
            });
            Ok(d)
        };
        if n == 1 {
            return Ok(m[0]);
        }
        if n == 2 {
            let ad = fbin(self, FBin::Mul, at(0, 0), at(1, 1))?;
            let cb = fbin(self, FBin::Mul, at(1, 0), at(0, 1))?;
            return fbin(self, FBin::Sub, ad, cb);
        }
        let mut acc: Option<Reg> = None;
        for r in 0..n {
            // Minor without column 0 and row r, column-major.
            let minor: Vec<Reg> = (1..n)
                .flat_map(|c| (0..n).filter(move |rr| *rr != r).map(move |rr| (c, rr)))
                .map(|(c, rr)| at(c, rr))
                .collect();
            let sub = self.determinant(w, &minor, n - 1)?;
            let term = fbin(self, FBin::Mul, at(0, r), sub)?;
            acc = Some(match acc {
                None => term,
                Some(a) => fbin(
                    self,
                    if r % 2 == 0 { FBin::Add } else { FBin::Sub },
                    a,
                    term,
                )?,
            });
        }
        acc.ok_or_else(|| SpirvError::new("empty matrix"))
    }

    /// `mag[i]` with the sign bit of `sgn[i]` (floats of width code `w`): GLSL.std.450 gives
    /// Modf's fraction the sign of its operand, also when the fraction is zero.
    fn copysign_all(&mut self, w: u8, mag: &[Reg], sgn: &[Reg]) -> LowerResult<Vec<Reg>> {
        let bits: u8 = match w {
            alu::W_BF16 => 16,
            alu::W_E4M3 | alu::W_E5M2 => 8,
            w => w,
        };
        let sign = self.imm(1u64 << (bits - 1))?;
        let rest = self.imm((1u64 << (bits - 1)) - 1)?;
        let n = mag.len();
        let m = self.map_n(&[mag.to_vec(), vec![rest]], n, |_, d, a| Op::IBin {
            op: IBin::And,
            width: bits,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let s = self.map_n(&[sgn.to_vec(), vec![sign]], n, |_, d, a| Op::IBin {
            op: IBin::And,
            width: bits,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        self.map_n(&[m, s], n, |_, d, a| Op::IBin {
            op: IBin::Or,
            width: bits,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })
    }

    /// A register holding the float constant `v` in width code `w`.
    fn fconst(&mut self, w: u8, v: f64) -> LowerResult<Reg> {
        self.imm(alu::f_put(w, v))
    }

    /// Inverse of the `n`×`n` column-major matrix `m`: `inv[c][r] = (-1)^(r+c) ·
    /// minor(row c, column r) / det(m)`.
    fn inverse(&mut self, w: u8, m: &[Reg], n: usize) -> LowerResult<Vec<Reg>> {
        let det = self.determinant(w, m, n)?;
        let mut out = Vec::with_capacity(n * n);
        for c in 0..n {
            for r in 0..n {
                // Minor without row c and column r, column-major.
                let minor: Vec<Reg> = (0..n)
                    .filter(|&cc| cc != r)
                    .flat_map(|cc| (0..n).filter(|&rr| rr != c).map(move |rr| m[cc * n + rr]))
                    .collect();
                let cof = self.determinant(w, &minor, n - 1)?;
                let signed = if (r + c) % 2 == 1 {
                    let d = self.alloc(1)?;
                    self.emit(Op::FUn {
                        op: FUn::Neg,
                        width: w,
                        dst: d,
                        src: cof,
                    });
                    d
                } else {
                    cof
                };
                let d = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Div,
                    width: w,
                    dst: d,
                    lhs: signed,
                    rhs: det,
                });
                out.push(d);
            }
        }
        Ok(out)
    }

    /// `Pack{S,U}norm`: f32 components → `bits`-wide fields of one u32.
    fn pack_norm(&mut self, x: &[Reg], bits: u8, signed: bool) -> LowerResult<Reg> {
        let scale = ((1u32 << (bits - if signed { 1 } else { 0 })) - 1) as f32;
        let lo_c = self.imm(u64::from((if signed { -1.0f32 } else { 0.0 }).to_bits()))?;
        let hi_c = self.imm(u64::from(1.0f32.to_bits()))?;
        let sc = self.imm(u64::from(scale.to_bits()))?;
        let mut acc: Option<Reg> = None;
        for (i, &c) in x.iter().enumerate() {
            let [a, b, t, rnd, q, z] = [0; 6].map(|_| self.alloc(1));
            let [a, b, t, rnd, q, z] = [a?, b?, t?, rnd?, q?, z?];
            self.emit(Op::FBin {
                op: FBin::Max,
                width: 32,
                dst: a,
                lhs: c,
                rhs: lo_c,
            });
            self.emit(Op::FBin {
                op: FBin::Min,
                width: 32,
                dst: b,
                lhs: a,
                rhs: hi_c,
            });
            self.emit(Op::FBin {
                op: FBin::Mul,
                width: 32,
                dst: t,
                lhs: b,
                rhs: sc,
            });
            self.emit(Op::FUn {
                op: FUn::RoundEven,
                width: 32,
                dst: rnd,
                src: t,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::FToS } else { Conv::FToU },
                from: 32,
                to: bits,
                dst: q,
                src: rnd,
            });
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: bits,
                to: 32,
                dst: z,
                src: q,
            });
            let field = if i == 0 {
                z
            } else {
                let sh = self.imm(u64::from(bits) * i as u64)?;
                let d = self.alloc(1)?;
                self.emit(Op::IBin {
                    op: IBin::Shl,
                    width: 32,
                    dst: d,
                    lhs: z,
                    rhs: sh,
                });
                d
            };
            acc = Some(match acc {
                None => field,
                Some(prev) => {
                    let d = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Or,
                        width: 32,
                        dst: d,
                        lhs: prev,
                        rhs: field,
                    });
                    d
                }
            });
        }
        acc.ok_or_else(|| SpirvError::new("empty pack"))
    }

    /// `Unpack{S,U}norm`: the `bits`-wide fields of `x` (field 0 lowest) as f32 components.
    fn unpack_norm(&mut self, x: Reg, bits: u8, signed: bool) -> LowerResult<Vec<Reg>> {
        let scale = ((1u32 << (bits - if signed { 1 } else { 0 })) - 1) as f32;
        let sc = self.imm(u64::from(scale.to_bits()))?;
        let lo_c = self.imm(u64::from((-1.0f32).to_bits()))?;
        let mut out = Vec::new();
        for i in 0..32 / u32::from(bits) {
            let sh = self.imm(u64::from(u32::from(bits) * i))?;
            let [shifted, field, wide, f, q] = [0; 5].map(|_| self.alloc(1));
            let [shifted, field, wide, f, q] = [shifted?, field?, wide?, f?, q?];
            self.emit(Op::IBin {
                op: IBin::ShrL,
                width: 32,
                dst: shifted,
                lhs: x,
                rhs: sh,
            });
            // The field is the low `bits` bits.
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: 32,
                to: bits,
                dst: field,
                src: shifted,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::SToS } else { Conv::UToU },
                from: bits,
                to: 32,
                dst: wide,
                src: field,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::SToF } else { Conv::UToF },
                from: 32,
                to: 32,
                dst: f,
                src: wide,
            });
            self.emit(Op::FBin {
                op: FBin::Div,
                width: 32,
                dst: q,
                lhs: f,
                rhs: sc,
            });
            if signed {
                // -128 / 127 (or -32768 / 32767) clamps to -1.
                let d = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Max,
                    width: 32,
                    dst: d,
                    lhs: q,
                    rhs: lo_c,
                });
                out.push(d);
            } else {
                out.push(q);
            }
        }
        Ok(out)
    }
}
