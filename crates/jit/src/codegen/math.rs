//! Float functions in compiled code: GLSL.std.450's transcendental functions
//! (`tessera_spirv::math`, instantiated here on `F32X4` vectors, so compiled code gives the
//! interpreter's bits), and the short formulas `alu` defines for `InverseSqrt`, `Fract`,
//! `FSign`, `Round`, `Radians`, `Degrees`, `FMod`, `Step`, `FMix` and `SmoothStep`, on f32 and
//! f64 vectors. binary16 runs in f32 and rounds once (`half.rs`), its square root and roundings
//! too; uniform operands are splat, and lane 0 of the result kept.

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use tessera_spirv::alu::{self, FBin, FUn, Tern, width_bytes};
use tessera_spirv::math::{self, Function, Lanes};

use super::Gen;
use super::float::float_ty;
use super::values::{JVal, lane_flags};

/// `tessera_spirv::math`'s lane operations on `F32X4` / `I32X4` vectors.
struct VectorLanes<'g, 'a> {
    code: &'g mut Gen<'a>,
}

impl Lanes for VectorLanes<'_, '_> {
    type F = Value;
    type I = Value;
    fn fconst(&mut self, v: f32) -> Value {
        let bits = self.code.const_vec(4, 0, |_| u64::from(v.to_bits()));
        self.float_of_bits(bits)
    }
    fn iconst(&mut self, v: i32) -> Value {
        self.code.const_vec(4, 0, |_| u64::from(v as u32))
    }
    fn add(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fsub(a, b)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fmul(a, b)
    }
    fn div(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fdiv(a, b)
    }
    fn sqrt(&mut self, a: Value) -> Value {
        self.code.b.ins().sqrt(a)
    }
    fn nearest(&mut self, a: Value) -> Value {
        self.code.b.ins().nearest(a)
    }
    fn lt(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fcmp(FloatCC::LessThan, a, b)
    }
    fn eq(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().fcmp(FloatCC::Equal, a, b)
    }
    fn is_nan(&mut self, a: Value) -> Value {
        self.code.b.ins().fcmp(FloatCC::Unordered, a, a)
    }
    fn select(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let mask = self.float_of_bits(mask);
        self.code.b.ins().bitselect(mask, a, b)
    }
    fn to_bits(&mut self, a: Value) -> Value {
        self.code.b.ins().bitcast(I32X4, lane_flags(), a)
    }
    fn float_of_bits(&mut self, a: Value) -> Value {
        self.code.b.ins().bitcast(F32X4, lane_flags(), a)
    }
    fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().iadd(a, b)
    }
    fn isub(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().isub(a, b)
    }
    fn and(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().band(a, b)
    }
    fn or(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().bor(a, b)
    }
    fn xor(&mut self, a: Value, b: Value) -> Value {
        self.code.b.ins().bxor(a, b)
    }
    fn shl(&mut self, a: Value, bits: u8) -> Value {
        self.code.b.ins().ishl_imm_u(a, i64::from(bits))
    }
    fn sar(&mut self, a: Value, bits: u8) -> Value {
        self.code.b.ins().sshr_imm_u(a, i64::from(bits))
    }
    fn to_int(&mut self, a: Value) -> Value {
        self.code.b.ins().fcvt_to_sint_sat(I32X4, a)
    }
    fn to_float(&mut self, a: Value) -> Value {
        self.code.b.ins().fcvt_from_sint(F32X4, a)
    }
}

/// The float ops of this file.
#[derive(Clone, Copy)]
enum Formula {
    Unary(FUn),
    Binary(FBin),
    Ternary(Tern),
}

impl Gen<'_> {
    /// A unary float op this file compiles (`ops.rs` has the plain ones): `Ok(false)` for
    /// the others.
    pub(super) fn fun_formula(
        &mut self,
        op: FUn,
        width: u8,
        dst: u32,
        src: u32,
    ) -> JitResult<bool> {
        // GLSL.std.450 has the transcendental functions, `Radians` and `Degrees` on 16- and
        // 32-bit floats only.
        let narrow_only =
            alu::function_of(op).is_some() || matches!(op, FUn::Radians | FUn::Degrees);
        let any_width = matches!(op, FUn::InvSqrt | FUn::Fract | FUn::Sign | FUn::Round)
            || width == 16
                && matches!(
                    op,
                    FUn::Sqrt | FUn::Floor | FUn::Ceil | FUn::Trunc | FUn::RoundEven
                );
        if !(any_width || narrow_only && width != 64) {
            return Ok(false);
        }
        self.formula(Formula::Unary(op), width, dst, &[src])
    }

    /// `Pow`, `Atan2`, `FMod` and `Step`: `Ok(false)` for other binary ops.
    pub(super) fn fbin_formula(
        &mut self,
        op: FBin,
        width: u8,
        dst: u32,
        srcs: [u32; 2],
    ) -> JitResult<bool> {
        let supported = match op {
            FBin::Pow | FBin::Atan2 => width != 64,
            FBin::Mod | FBin::Step => true,
            _ => false,
        };
        if !supported {
            return Ok(false);
        }
        self.formula(Formula::Binary(op), width, dst, &srcs)
    }

    /// `FMix` and `SmoothStep`.
    pub(super) fn tern_formula(
        &mut self,
        op: Tern,
        width: u8,
        dst: u32,
        srcs: [u32; 3],
    ) -> JitResult<bool> {
        if !matches!(op, Tern::FMix | Tern::SmoothStep) {
            return Ok(false);
        }
        self.formula(Formula::Ternary(op), width, dst, &srcs)
    }

    fn formula(&mut self, formula: Formula, width: u8, dst: u32, srcs: &[u32]) -> JitResult<bool> {
        if !matches!(width, 16 | 32 | 64) {
            return Ok(false);
        }
        let values: Vec<JVal> = srcs.iter().map(|&r| self.get(r)).collect();
        if values.iter().all(|v| matches!(v, JVal::Const(_))) {
            let c: Vec<u64> = values
                .iter()
                .map(|v| match v {
                    JVal::Const(c) => *c,
                    _ => 0,
                })
                .collect();
            let r = match formula {
                Formula::Unary(op) => alu::fun(op, width, c[0]),
                Formula::Binary(op) => alu::fbin(op, width, c[0], c[1]),
                Formula::Ternary(op) => alu::tern(op, width, c[0], c[1], c[2]),
            };
            self.set(dst, JVal::Const(r))?;
            return Ok(true);
        }
        let scalar = values.iter().all(JVal::is_scalar);
        let bytes = width_bytes(width);
        let columns: Vec<Vec<Value>> = values.iter().map(|v| self.vectors(v, bytes)).collect();
        let mut out = Vec::with_capacity(bytes);
        for k in 0..columns[0].len() {
            if scalar && k > 0 {
                break;
            }
            let operands: Vec<Value> = columns.iter().map(|c| c[k]).collect();
            let v = if width == 16 {
                self.half_vectors(&operands, &mut |g, v| g.float_formula(formula, F32, v))
            } else {
                let fty = float_ty(width).unwrap_or(F32);
                let floats: Vec<Value> = operands
                    .iter()
                    .map(|&x| self.vec_to_float(x, width))
                    .collect();
                let r = self.float_formula(formula, fty, &floats);
                self.vec_from_float(r, width)
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

    /// `formula` on float vectors of `fty` lanes (`F32` or `F64`).
    fn float_formula(&mut self, formula: Formula, fty: Type, v: &[Value]) -> Value {
        let vty = if fty == F64 { F64X2 } else { F32X4 };
        let splat = |g: &mut Self, c: f64| -> Value {
            let s = if fty == F64 {
                g.b.ins().f64const(c)
            } else {
                g.b.ins().f32const(c as f32)
            };
            g.b.ins().splat(vty, s)
        };
        let function = match formula {
            Formula::Unary(op) => alu::function_of(op),
            Formula::Binary(FBin::Pow) => Some(Function::Pow),
            Formula::Binary(FBin::Atan2) => Some(Function::Atan2),
            _ => None,
        };
        if let Some(function) = function {
            let y = v.get(1).copied().unwrap_or(v[0]);
            let mut lanes = VectorLanes { code: self };
            return math::apply(&mut lanes, function, v[0], y);
        }
        match formula {
            Formula::Unary(op) => {
                let x = v[0];
                match op {
                    FUn::InvSqrt => {
                        let one = splat(self, 1.0);
                        let root = self.b.ins().sqrt(x);
                        self.b.ins().fdiv(one, root)
                    }
                    FUn::Fract => {
                        let f = self.b.ins().floor(x);
                        self.b.ins().fsub(x, f)
                    }
                    FUn::Sign => {
                        let (zero, one, minus) =
                            (splat(self, 0.0), splat(self, 1.0), splat(self, -1.0));
                        // × 1 quiets a NaN as the other arithmetic ops do (±0 stays).
                        let x = self.b.ins().fmul(x, one);
                        let neg = self.float_mask(FloatCC::LessThan, x, zero, vty);
                        let r = self.b.ins().bitselect(neg, minus, x);
                        let pos = self.float_mask(FloatCC::GreaterThan, x, zero, vty);
                        self.b.ins().bitselect(pos, one, r)
                    }
                    FUn::Round => {
                        // trunc(x) + sign(x) where |x − trunc(x)| ≥ ½ (half away from zero).
                        let t = self.b.ins().trunc(x);
                        let d = self.b.ins().fsub(x, t);
                        let d = self.b.ins().fabs(d);
                        let half = splat(self, 0.5);
                        let up = self.float_mask(FloatCC::GreaterThanOrEqual, d, half, vty);
                        // ±1 with x's sign (x64 has no vector copysign).
                        let ity = if fty == F64 { I64X2 } else { I32X4 };
                        let minus_zero = splat(self, -0.0);
                        let one = splat(self, 1.0);
                        let sign = self.b.ins().band(x, minus_zero);
                        let sign = self.b.ins().bitcast(ity, lane_flags(), sign);
                        let one = self.b.ins().bitcast(ity, lane_flags(), one);
                        let step = self.b.ins().bor(one, sign);
                        let step = self.b.ins().bitcast(vty, lane_flags(), step);
                        let stepped = self.b.ins().fadd(t, step);
                        self.b.ins().bitselect(up, stepped, t)
                    }
                    FUn::Radians => {
                        let k = splat(self, f64::from(alu::RADIANS_PER_DEGREE));
                        self.b.ins().fmul(x, k)
                    }
                    FUn::Degrees => {
                        let k = splat(self, f64::from(alu::DEGREES_PER_RADIAN));
                        self.b.ins().fmul(x, k)
                    }
                    // Square root and the roundings of binary16 (in f32, then rounded once:
                    // exact, and for the square root 24 ≥ 2·11 + 2 bits make the double
                    // rounding innocuous).
                    _ => self.funop(op, x),
                }
            }
            Formula::Binary(op) => {
                let (x, y) = (v[0], v[1]);
                if op == FBin::Mod {
                    let q = self.b.ins().fdiv(x, y);
                    let q = self.b.ins().floor(q);
                    let p = self.b.ins().fmul(y, q);
                    self.b.ins().fsub(x, p)
                } else {
                    // Step(edge, x): 0 where x < edge, else 1.
                    let (zero, one) = (splat(self, 0.0), splat(self, 1.0));
                    let below = self.float_mask(FloatCC::LessThan, y, x, vty);
                    self.b.ins().bitselect(below, zero, one)
                }
            }
            Formula::Ternary(op) => {
                let (x, y, a) = (v[0], v[1], v[2]);
                let one = splat(self, 1.0);
                if op == Tern::FMix {
                    let w = self.b.ins().fsub(one, a);
                    let p = self.b.ins().fmul(x, w);
                    let q = self.b.ins().fmul(y, a);
                    let mut r = self.b.ins().fadd(p, q);
                    // The first NaN operand, quieted.
                    let ity = if fty == F64 { I64X2 } else { I32X4 };
                    let quiet_bit = if fty == F64 { 1u64 << 51 } else { 1 << 22 };
                    let bytes = if fty == F64 { 8 } else { 4 };
                    let quiet_bit = self.const_vec(bytes, 0, |_| quiet_bit);
                    for v in [a, y, x] {
                        let nan = self.float_mask(FloatCC::Unordered, v, v, vty);
                        let bits = self.b.ins().bitcast(ity, lane_flags(), v);
                        let bits = self.b.ins().bor(bits, quiet_bit);
                        let quiet = self.b.ins().bitcast(vty, lane_flags(), bits);
                        r = self.b.ins().bitselect(nan, quiet, r);
                    }
                    r
                } else {
                    // t = clamp((a − x)/(y − x), 0, 1); t·t·(3 − 2t).
                    let num = self.b.ins().fsub(a, x);
                    let den = self.b.ins().fsub(y, x);
                    let t = self.b.ins().fdiv(num, den);
                    let zero = splat(self, 0.0);
                    let below = self.float_mask(FloatCC::LessThan, t, zero, vty);
                    let t = self.b.ins().bitselect(below, zero, t);
                    let above = self.float_mask(FloatCC::GreaterThan, t, one, vty);
                    let t = self.b.ins().bitselect(above, one, t);
                    let (two, three) = (splat(self, 2.0), splat(self, 3.0));
                    let tt = self.b.ins().fmul(t, t);
                    let t2 = self.b.ins().fmul(two, t);
                    let s = self.b.ins().fsub(three, t2);
                    self.b.ins().fmul(tt, s)
                }
            }
        }
    }

    /// A float comparison as a lane mask of the operands' vector type.
    fn float_mask(&mut self, cc: FloatCC, a: Value, b: Value, vty: Type) -> Value {
        let m = self.b.ins().fcmp(cc, a, b);
        self.b.ins().bitcast(vty, lane_flags(), m)
    }
}
