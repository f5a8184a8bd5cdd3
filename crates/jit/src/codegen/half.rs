//! IEEE binary16 floats in compiled code: arithmetic runs in f32 on vectors, with exact
//! conversions in integer SIMD code, computing bit for bit what `tessera_spirv::alu` computes
//! (f32 arithmetic on the widened operands, then one round-to-nearest-even back, with the `half`
//! crate's NaN encoding). (bfloat16 and float8 have no arithmetic in SPIR-V.)
//!
//! binary16 → f32 is exact (exponent and mantissa shifted into place and scaled by 2¹¹² with
//! one f32 multiplication, which renormalises subnormals; compiled code runs with the default
//! MXCSR, without denormals-are-zero); f32 → binary16 rounds to nearest even with the classic bias trick (normal
//! results) and an f32 addition of a power of two (subnormal results), exact under the default
//! rounding mode. NaNs keep their upper mantissa bits and get the quiet bit, infinities and
//! overflow give infinity. One f32 operation between the conversions rounds at most once more, which
//! for +, −, ×, ÷ of 11-bit operands in a 24-bit format is exact double rounding (24 ≥ 2·11+2).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};

use super::Gen;
use super::values::lane_flags;

impl Gen<'_> {
    fn splat32(&mut self, v: u32) -> Value {
        self.const_vec(4, 0, |_| u64::from(v))
    }

    /// `I32X4` lanes holding binary16 bits (zero-extended) → `F32X4`.
    pub(crate) fn half_to_f32(&mut self, h: Value) -> Value {
        let low15 = self.splat32(0x7fff);
        let em = self.b.ins().band(h, low15);
        let o = self.b.ins().ishl_imm_u(em, 13);
        // Exponent and mantissa in place: as an f32, 2⁻¹¹² times the value for zero, normals
        // and subnormals (then an f32 subnormal), so one exact multiplication by 2¹¹² (the
        // workers run without denormals-are-zero).
        let of = self.b.ins().bitcast(F32X4, lane_flags(), o);
        let scale = self.splat32((127 + 112) << 23);
        let scale = self.b.ins().bitcast(F32X4, lane_flags(), scale);
        let finite = self.b.ins().fmul(of, scale);
        let finite = self.b.ins().bitcast(I32X4, lane_flags(), finite);
        // Infinity and NaN (exponent all ones): the f32 exponent all ones, the mantissa kept.
        let top = self.splat32(0x7c00);
        let is_special = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, em, top);
        let ones = self.splat32(0x7f80_0000);
        let special = self.b.ins().bor(o, ones);
        let r = self.b.ins().bitselect(is_special, special, finite);
        let sign_bit = self.splat32(0x8000);
        let sign = self.b.ins().band(h, sign_bit);
        let sign = self.b.ins().ishl_imm_u(sign, 16);
        let r = self.b.ins().bor(r, sign);
        self.b.ins().bitcast(F32X4, lane_flags(), r)
    }

    /// `F32X4` → `I32X4` lanes holding binary16 bits (zero-extended), rounded to nearest
    /// even.
    pub(crate) fn f32_to_half(&mut self, f: Value) -> Value {
        let x = self.b.ins().bitcast(I32X4, lane_flags(), f);
        let abs_mask = self.splat32(0x7fff_ffff);
        let abs = self.b.ins().band(x, abs_mask);
        let infinity = self.splat32(0x7f80_0000);
        // |x| as bits is below 2^31: signed compares are unsigned ones here.
        let is_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, abs, infinity);
        let sign_mask = self.splat32(0x8000_0000);
        let sign = self.b.ins().band(x, sign_mask);
        let sign = self.b.ins().ushr_imm_u(sign, 16);
        // Normal results: rebias the exponent, add the rounding bias (half an ulp minus one,
        // plus one when the kept mantissa is odd), keep the top bits. Overflow carries into
        // the infinity pattern.
        let odd = self.b.ins().ushr_imm_u(abs, 13);
        let one = self.splat32(1);
        let odd = self.b.ins().band(odd, one);
        let bias = self.splat32(((15i32 - 127) << 23) as u32 + 0xfff);
        let n = self.b.ins().iadd(abs, bias);
        let n = self.b.ins().iadd(n, odd);
        let normal = self.b.ins().ushr_imm_u(n, 13);
        // Subnormal results and zero: align the mantissa with an FPU addition.
        let magic = self.splat32(((127 - 15) + (23 - 10) + 1) << 23);
        let af = self.b.ins().bitcast(F32X4, lane_flags(), abs);
        let mf = self.b.ins().bitcast(F32X4, lane_flags(), magic);
        let s = self.b.ins().fadd(af, mf);
        let s = self.b.ins().bitcast(I32X4, lane_flags(), s);
        let small = self.b.ins().isub(s, magic);
        let min_normal = self.splat32(113 << 23);
        let is_small = self.b.ins().icmp(IntCC::SignedLessThan, abs, min_normal);
        let r = self.b.ins().bitselect(is_small, small, normal);
        // At or beyond 2^16: infinity (also what rounding gives between 65520 and 2^16).
        let big = self.splat32((127 + 16) << 23);
        let is_big = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, abs, big);
        let inf = self.splat32(0x7c00);
        let r = self.b.ins().bitselect(is_big, inf, r);
        // NaN: quiet, the upper 10 mantissa bits kept.
        let man_mask = self.splat32(0x007f_ffff);
        let man = self.b.ins().band(x, man_mask);
        let man = self.b.ins().ushr_imm_u(man, 13);
        let quiet = self.splat32(0x7e00);
        let nan = self.b.ins().bor(man, quiet);
        let r = self.b.ins().bitselect(is_nan, nan, r);
        self.b.ins().bor(r, sign)
    }

    /// Applies `f` (f32 vector code) to `I16X8` vectors of binary16 floats, four lanes at a time,
    /// giving an `I16X8` of the rounded results.
    pub(crate) fn half_vectors(
        &mut self,
        operands: &[Value],
        f: &mut dyn FnMut(&mut Self, &[Value]) -> Value,
    ) -> Value {
        let mut part = |g: &mut Self, high: bool| {
            let args: Vec<Value> = operands
                .iter()
                .map(|&v| {
                    let w = if high {
                        g.b.ins().uwiden_high(v)
                    } else {
                        g.b.ins().uwiden_low(v)
                    };
                    g.half_to_f32(w)
                })
                .collect();
            let r = f(g, &args);
            g.f32_to_half(r)
        };
        let lo = part(self, false);
        let hi = part(self, true);
        self.b.ins().unarrow(lo, hi)
    }
}
