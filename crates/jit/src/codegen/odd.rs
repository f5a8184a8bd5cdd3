//! Conversions into the narrow floats (binary16, bfloat16, float8) from what f32 does not hold
//! exactly: f64 and 32- or 64-bit integers. The value is first rounded to f32 *to odd* (toward
//! zero, then the last bit set when anything was dropped), then converted from f32 as usual
//! (`conv`, `narrow`): with f32's 24 bits at least two more than the target's, the second
//! rounding gives what one rounding of the exact value would (to nearest even, or saturated),
//! which is what `alu::conv` computes in f64. Lane by lane: these conversions are rare.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::alu::{self, Conv, width_bytes};

use super::Gen;
use super::values::{JVal, scalar_ty};

impl Gen<'_> {
    /// `a` (`from`: an f64 for `FToF`, else an integer converted as `op` says) as the bits of
    /// an f32 rounded to odd, or `None` for another source.
    pub(super) fn f32_rounded_to_odd(&mut self, op: Conv, from: u8, a: &JVal) -> Option<JVal> {
        let valid = match op {
            Conv::FToF | Conv::FToFSat => from == 64,
            Conv::SToF | Conv::UToF => matches!(from, 32 | 64),
            _ => false,
        };
        if !valid {
            return None;
        }
        let fb = width_bytes(from);
        let signed = op == Conv::SToF;
        let one = |g: &mut Self, x: Value| -> Value {
            let x = g.fit(x, scalar_ty(fb));
            match (op, from) {
                (Conv::FToF | Conv::FToFSat, _) => {
                    let f = g.bits_to_float(x, F64);
                    g.f64_to_f32_odd(f)
                }
                // Exact in f64.
                (_, 32) => {
                    let f = g.fcvt_from_int(signed, F64, x);
                    g.f64_to_f32_odd(f)
                }
                _ => g.i64_to_f32_odd(signed, x),
            }
        };
        if let Some(x) = self.scalar(a, fb) {
            return Some(JVal::Uniform(one(self, x)));
        }
        self.scalarise(&[(a.clone(), fb)], 4, |g, l| Some(one(g, l[0])))
    }

    /// An f64 as f32 bits rounded to odd; NaNs and infinities as `fdemote` gives them.
    fn f64_to_f32_odd(&mut self, x: Value) -> Value {
        let r = self.b.ins().fdemote(F32, x);
        let back = self.b.ins().fpromote(F64, r);
        // False for a NaN, which keeps `fdemote`'s result.
        let inexact = self.b.ins().fcmp(FloatCC::OrderedNotEqual, back, x);
        let bits = self.float_to_bits(r, I32);
        // Rounded away from zero: one step back toward it (the sign bit stays).
        let (abs_back, abs_x) = (self.b.ins().fabs(back), self.b.ins().fabs(x));
        let away = self.b.ins().fcmp(FloatCC::GreaterThan, abs_back, abs_x);
        let down = self.b.ins().iadd_imm_s(bits, -1);
        let toward_zero = self.b.ins().select(away, down, bits);
        let odd = self.b.ins().bor_imm_u(toward_zero, 1);
        self.b.ins().select(inexact, odd, bits)
    }

    /// A 64-bit integer as f32 bits rounded to odd: the magnitude's top 24 bits, the last
    /// one or-ed with whether any bit below was set, scaled by a power of two (exactly).
    fn i64_to_f32_odd(&mut self, signed: bool, x: Value) -> Value {
        let negative = if signed {
            self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0)
        } else {
            self.b.ins().iconst(I8, 0)
        };
        // (|i64::MIN| = 2^63 as an unsigned value.)
        let negated = self.b.ins().ineg(x);
        let magnitude = self.b.ins().select(negative, negated, x);
        let zeros = self.b.ins().clz(magnitude);
        // Bits below the top 24: 40 - leading zeros, at least 0.
        let forty = self.b.ins().iconst(I64, 40);
        let shift = self.b.ins().isub(forty, zeros);
        let zero = self.b.ins().iconst(I64, 0);
        let shift = self.b.ins().smax(shift, zero);
        let kept = self.b.ins().ushr(magnitude, shift);
        // Whether the dropped bits are not all zero (nothing dropped when the shift is 0).
        let sixty_four = self.b.ins().iconst(I64, 64);
        let up = self.b.ins().isub(sixty_four, shift);
        let dropped = self.b.ins().ishl(magnitude, up);
        let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, dropped, 0);
        let shifted = self.b.ins().icmp_imm_s(IntCC::NotEqual, shift, 0);
        let sticky = self.b.ins().band(any, shifted);
        let sticky = self.b.ins().uextend(I64, sticky);
        let kept = self.b.ins().bor(kept, sticky);
        // Below 2^24: exact in f32; times 2^shift (at most 2^40): exact.
        let f = self.b.ins().fcvt_from_uint(F32, kept);
        let exponent = self.b.ins().iadd_imm_s(shift, 127);
        let exponent = self.b.ins().ishl_imm_u(exponent, 23);
        let exponent = self.b.ins().ireduce(I32, exponent);
        let scale = self.bits_to_float(exponent, F32);
        let f = self.b.ins().fmul(f, scale);
        let bits = self.float_to_bits(f, I32);
        let sign = self.b.ins().uextend(I32, negative);
        let sign = self.b.ins().ishl_imm_u(sign, 31);
        self.b.ins().bor(bits, sign)
    }

    /// `FToFSat` and `FToFDirected`: from f32 or binary16 (`narrow`), from the other narrow
    /// floats through f32 (exact), from f64 through f32 rounded to odd (saturation is
    /// monotonic) or toward zero (truncations compose); a directed rounding of a conversion
    /// that is exact anyway is the plain one.
    pub(super) fn directed_conv(&mut self, op: Conv, from: u8, to: u8, a: &JVal) -> Option<JVal> {
        if from == to {
            return Some(a.clone());
        }
        let exact = match (from, to) {
            (_, 64) => true,
            (64, _) => false,
            (_, 32) => true,
            (alu::W_E4M3 | alu::W_E5M2, 16 | alu::W_BF16) => true,
            _ => false,
        };
        if exact && matches!(op, Conv::FToFDirected(_)) {
            return self.float_conv(Conv::FToF, from, to, a);
        }
        match (op, from) {
            (_, 16 | 32) => self.narrow_float_conv(op, from, to, a),
            (Conv::FToFSat, 64) => {
                let odd = self.f32_rounded_to_odd(op, from, a)?;
                self.narrow_float_conv(op, 32, to, &odd)
            }
            (Conv::FToFDirected(1), 64) => {
                let truncated = self.f64_to_f32_toward_zero(a)?;
                if to == 32 {
                    Some(truncated)
                } else {
                    self.narrow_float_conv(op, 32, to, &truncated)
                }
            }
            (_, alu::W_BF16 | alu::W_E4M3 | alu::W_E5M2) => {
                let wide = self.float_conv(Conv::FToF, from, 32, a)?;
                self.narrow_float_conv(op, 32, to, &wide)
            }
            _ => None,
        }
    }

    /// An f64 (`a`'s bits) as f32 bits rounded toward zero, lane by lane.
    fn f64_to_f32_toward_zero(&mut self, a: &JVal) -> Option<JVal> {
        let one = |g: &mut Self, x: Value| -> Value {
            let x = g.fit(x, I64);
            let x = g.bits_to_float(x, F64);
            let r = g.b.ins().fdemote(F32, x);
            let back = g.b.ins().fpromote(F64, r);
            let bits = g.float_to_bits(r, I32);
            let (abs_back, abs_x) = (g.b.ins().fabs(back), g.b.ins().fabs(x));
            // Rounded away from zero (an infinity from a finite value too): one step back.
            let away = g.b.ins().fcmp(FloatCC::GreaterThan, abs_back, abs_x);
            let down = g.b.ins().iadd_imm_s(bits, -1);
            g.b.ins().select(away, down, bits)
        };
        if let Some(x) = self.scalar(a, 8) {
            return Some(JVal::Uniform(one(self, x)));
        }
        self.scalarise(&[(a.clone(), 8)], 4, |g, l| Some(one(g, l[0])))
    }
}
