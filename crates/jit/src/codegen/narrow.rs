//! Float conversions to narrower formats that `half.rs` does not cover: binary32 or binary16 →
//! float8 (E4M3, E5M2; rounded to nearest even, or saturated to the largest normal value as
//! `SaturatedToLargestFloat8NormalConversionEXT` asks), and binary32 → binary16 rounded toward
//! zero (`FPRoundingMode` RTZ; Vulkan allows only RTE and RTZ, and the lowering refuses RTP and
//! RTN). Each computes `alu::conv`'s bits: integer SIMD on the f32 bits, with the FPU for the
//! subnormal results (an addition of a power of two rounds to the subnormal quantum; a product
//! by a power of two scales exactly).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::alu::{self, Conv};

use super::Gen;
use super::values::{JVal, lane_flags};

/// A narrow float format, as bit fields.
#[derive(Clone, Copy)]
struct Format {
    mantissa_bits: i32,
    bias: i32,
    /// Total bits (the sign's position + 1).
    bits: i32,
    /// The pattern a too-large magnitude rounds to (infinity, or E4M3's NaN).
    overflow: u32,
    /// The largest finite magnitude's pattern.
    max_finite: u32,
    /// The f32 bits of the largest finite magnitude.
    max_value: f32,
}

const HALF: Format = Format {
    mantissa_bits: 10,
    bias: 15,
    bits: 16,
    overflow: 0x7c00,
    max_finite: 0x7bff,
    max_value: 65504.0,
};

const E5M2: Format = Format {
    mantissa_bits: 2,
    bias: 15,
    bits: 8,
    overflow: 0x7c,
    max_finite: 0x7b,
    max_value: 57344.0,
};

const E4M3: Format = Format {
    mantissa_bits: 3,
    bias: 7,
    bits: 8,
    overflow: 0x7f,
    max_finite: 0x7e,
    max_value: 448.0,
};

/// How a lane rounds.
#[derive(Clone, Copy, PartialEq)]
enum Rounding {
    Nearest,
    TowardZero,
}

impl Gen<'_> {
    fn splat_i32(&mut self, v: u32) -> Value {
        self.const_vec(4, 0, |_| u64::from(v))
    }

    /// The conversions of this file; `None` for others.
    pub(super) fn narrow_float_conv(
        &mut self,
        op: Conv,
        from: u8,
        to: u8,
        a: &JVal,
    ) -> Option<JVal> {
        if !matches!(from, 16 | 32) {
            return None;
        }
        let (format, rounding, saturate) = match (op, to) {
            (Conv::FToF, alu::W_E4M3) => (E4M3, Rounding::Nearest, false),
            (Conv::FToF, alu::W_E5M2) => (E5M2, Rounding::Nearest, false),
            (Conv::FToFSat, alu::W_E4M3) => (E4M3, Rounding::Nearest, true),
            (Conv::FToFSat, alu::W_E5M2) => (E5M2, Rounding::Nearest, true),
            (Conv::FToFDirected(1), 16) if from == 32 => (HALF, Rounding::TowardZero, false),
            _ => return None,
        };
        let scalar = a.is_scalar();
        // The operand as f32 bits, four I32X4.
        let lanes: Vec<Value> = if from == 32 {
            self.vectors(a, 4)
        } else {
            let mut out = Vec::with_capacity(4);
            for x in self.vectors(a, 2) {
                for high in [false, true] {
                    let w = if high {
                        self.b.ins().uwiden_high(x)
                    } else {
                        self.b.ins().uwiden_low(x)
                    };
                    let f = self.half_to_f32(w);
                    out.push(self.b.ins().bitcast(I32X4, lane_flags(), f));
                }
            }
            out
        };
        let codes: Vec<Value> = lanes
            .into_iter()
            .map(|x| self.f32_bits_to_narrow(x, format, rounding, saturate))
            .collect();
        let halves: Vec<Value> = codes
            .chunks(2)
            .map(|pair| self.b.ins().unarrow(pair[0], pair[1]))
            .collect();
        let out = if format.bits == 16 {
            halves
        } else {
            vec![self.b.ins().unarrow(halves[0], halves[1])]
        };
        Some(if scalar {
            JVal::Uniform(self.b.ins().extractlane(out[0], 0))
        } else {
            JVal::Varying(out)
        })
    }

    /// `I32X4` lanes of f32 bits → `I32X4` lanes holding `format`'s bits.
    fn f32_bits_to_narrow(
        &mut self,
        x: Value,
        format: Format,
        rounding: Rounding,
        saturate: bool,
    ) -> Value {
        let shift = 23 - format.mantissa_bits;
        let emin = 1 - format.bias;
        let magnitude = self.splat_i32(0x7fff_ffff);
        let mut abs = self.b.ins().band(x, magnitude);
        let infinity = self.splat_i32(0x7f80_0000);
        // |x| as bits is below 2³¹: signed compares are unsigned ones here.
        let is_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, abs, infinity);
        let is_inf = self.b.ins().icmp(IntCC::Equal, abs, infinity);
        if saturate {
            let max = self.splat_i32(format.max_value.to_bits());
            let beyond = self.b.ins().icmp(IntCC::SignedGreaterThan, abs, max);
            let clamped = self.b.ins().bitselect(beyond, max, abs);
            abs = self.b.ins().bitselect(is_nan, abs, clamped);
        }
        let rebias = self.splat_i32(((format.bias - 127) << 23) as u32);
        let rebased = self.b.ins().iadd(abs, rebias);
        let min_normal = self.splat_i32(((127 + emin) << 23) as u32);
        let is_small = self.b.ins().icmp(IntCC::SignedLessThan, abs, min_normal);
        let abs_f = self.b.ins().bitcast(F32X4, lane_flags(), abs);
        let nearest = {
            // Normal results: add half an ulp minus one, plus one when the kept mantissa is
            // odd; subnormal results: an addition of 2^(emin − mantissa bits + 23) rounds to
            // the quantum.
            let odd = self.b.ins().ushr_imm_u(abs, i64::from(shift));
            let one = self.splat_i32(1);
            let odd = self.b.ins().band(odd, one);
            let half_ulp = self.splat_i32((1 << (shift - 1)) - 1);
            let n = self.b.ins().iadd(rebased, half_ulp);
            let n = self.b.ins().iadd(n, odd);
            let normal = self.b.ins().ushr_imm_u(n, i64::from(shift));
            let magic = self.splat_i32(((127 + emin - format.mantissa_bits + 23) << 23) as u32);
            let magic_f = self.b.ins().bitcast(F32X4, lane_flags(), magic);
            let s = self.b.ins().fadd(abs_f, magic_f);
            let s = self.b.ins().bitcast(I32X4, lane_flags(), s);
            let small = self.b.ins().isub(s, magic);
            let r = self.b.ins().bitselect(is_small, small, normal);
            let overflow = self.splat_i32(format.overflow);
            self.b.ins().umin(r, overflow)
        };
        let code = match rounding {
            Rounding::Nearest => nearest,
            Rounding::TowardZero => {
                // Normal results: the mantissa truncated; subnormal results: the magnitude in
                // quanta (exact), truncated; finite magnitudes stop at the largest finite one.
                let normal = self.b.ins().ushr_imm_u(rebased, i64::from(shift));
                let scale = self
                    .b
                    .ins()
                    .f32const(2f32.powi(format.mantissa_bits - emin));
                let scale = self.b.ins().splat(F32X4, scale);
                let t = self.b.ins().fmul(abs_f, scale);
                let t = self.b.ins().trunc(t);
                let small = self.b.ins().fcvt_to_sint_sat(I32X4, t);
                let r = self.b.ins().bitselect(is_small, small, normal);
                let limit = self.splat_i32(format.max_finite);
                let r = self.b.ins().umin(r, limit);
                let overflow = self.splat_i32(format.overflow);
                self.b.ins().bitselect(is_inf, overflow, r)
            }
        };
        // NaN: binary16 keeps the upper mantissa bits and sets the quiet bit; float8 has one
        // NaN pattern per sign.
        let nan = if format.bits == 16 {
            let man_mask = self.splat_i32(0x007f_ffff);
            let man = self.b.ins().band(x, man_mask);
            let man = self.b.ins().ushr_imm_u(man, 13);
            let quiet = self.splat_i32(0x7e00);
            self.b.ins().bor(man, quiet)
        } else if format.overflow == 0x7f {
            self.splat_i32(0x7f)
        } else {
            self.splat_i32(0x7e)
        };
        let code = self.b.ins().bitselect(is_nan, nan, code);
        let sign_mask = self.splat_i32(0x8000_0000);
        let sign = self.b.ins().band(x, sign_mask);
        let sign = self.b.ins().ushr_imm_u(sign, i64::from(32 - format.bits));
        self.b.ins().bor(code, sign)
    }
}
