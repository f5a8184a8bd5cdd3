//! Conversions in compiled code: integer resizes, float ↔ integer, float ↔ float (binary16,
//! bfloat16, float8 decoding; `narrow.rs` has float8 encoding and directed roundings, `odd.rs`
//! the roundings from f64 and wide integers into the narrow floats), each computing exactly what
//! `tessera_spirv::alu::conv` computes per lane. Every pair of scalar types converts natively;
//! the narrow floats without a path of their own go through f32.

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use tessera_spirv::alu::{self, Conv, width_bytes};

use super::Gen;
use super::float::float_ty;
use super::values::{JVal, lane_flags, scalar_ty, vec_ty};
use crate::classes::{LANES, wrap};
use crate::ctx::field;

/// The f32 bits of every float8 code, E4M3 then E5M2, as `alu::conv` converts them; built once,
/// never freed. Compiled code finds them through `Ctx::fp8_tables` (an address in the code
/// itself would be wrong in the next process that loads a kept kernel).
pub(crate) fn fp8_tables() -> &'static [[u32; 256]; 2] {
    static TABLES: std::sync::OnceLock<[[u32; 256]; 2]> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let table =
            |w: u8| std::array::from_fn(|code| alu::conv(Conv::FToF, w, 32, code as u64) as u32);
        [table(alu::W_E4M3), table(alu::W_E5M2)]
    })
}

/// What a widening of an affine value does about lanes that wrap at the source width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrap {
    /// They cannot: an invocation id (`analysis::invocation_ids`).
    Never,
    /// Checked: a hand-back when the result is not affine over the lanes that count.
    Check,
    /// A check pass made the check already (`masked`): the same result, no hand-back.
    Trust,
}

impl Gen<'_> {
    // ------------------------------------------------------------------ conversions, selects

    pub(super) fn conv(
        &mut self,
        op: Conv,
        from: u8,
        to: u8,
        dst: u32,
        src: u32,
    ) -> JitResult<bool> {
        let (fb, tb) = (width_bytes(from), width_bytes(to));
        let a = self.get(src);
        if let JVal::Const(x) = a {
            self.set(dst, JVal::Const(alu::conv(op, from, to, x)))?;
            return Ok(true);
        }
        let int_bits_ok = |w: u8| w == 8 || w == 16 || w == 32 || w == 64;
        let r = match op {
            Conv::UToU | Conv::SToS if int_bits_ok(from) && int_bits_ok(to) => {
                let signed = op == Conv::SToS;
                match &a {
                    JVal::Uniform(x) => Some(JVal::Uniform(self.int_resize(*x, fb, tb, signed))),
                    JVal::Affine(x, s) => {
                        let rule = if self.ids[src as usize] {
                            Wrap::Never
                        } else if self.prechecked.contains(&self.at) {
                            Wrap::Trust
                        } else {
                            Wrap::Check
                        };
                        self.affine_resize(*x, *s, fb, tb, signed, rule)
                    }
                    _ => {
                        let xs = self.vectors(&a, fb);
                        let out = self.vec_resize(&xs, fb, tb, signed);
                        if (fb, tb) == (4, 1) {
                            self.note_packed_byte(&xs, &out);
                        }
                        Some(JVal::Varying(out))
                    }
                }
            }
            Conv::FToFSat | Conv::FToFDirected(_) => self.directed_conv(op, from, to, &a),
            Conv::FToS | Conv::FToU | Conv::SToF | Conv::UToF | Conv::FToF => {
                self.float_conv(op, from, to, &a)
            }
            _ => None,
        };
        match r {
            Some(r) => {
                self.set(dst, r)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub(super) fn int_resize(&mut self, x: Value, fb: usize, tb: usize, signed: bool) -> Value {
        let ty = scalar_ty(tb);
        let x = self.fit(x, scalar_ty(fb));
        if tb < fb {
            self.b.ins().ireduce(ty, x)
        } else if tb > fb && signed {
            self.b.ins().sextend(ty, x)
        } else if tb > fb {
            self.b.ins().uextend(ty, x)
        } else {
            x
        }
    }

    /// An affine value resized. Widening is affine only when no lane wraps at the source width:
    /// checked here, with a hand-back when one does (`Wrap::Check`). Under a divergent branch's
    /// mask only the active lanes count: the lanes that do not wrap are a prefix of the chunk
    /// and the others wrap once, so when the active lanes all lie on one side, the result is
    /// affine with the base of that side.
    pub(super) fn affine_resize(
        &mut self,
        x: Value,
        s: u64,
        fb: usize,
        tb: usize,
        signed: bool,
        wrap_rule: Wrap,
    ) -> Option<JVal> {
        let fbits = (fb * 8) as u32;
        let tbits = (tb * 8) as u32;
        if tb <= fb {
            let base = self.int_resize(x, fb, tb, signed);
            let t = wrap(s, tbits);
            return Some(if t == 0 {
                JVal::Uniform(base)
            } else {
                JVal::Affine(base, t)
            });
        }
        // Lanes base + i·s for i < 16 at fbits: no wrap iff the last lane, computed exactly
        // in 64 bits (fbits <= 32 here), stays in the source range. The stride is taken as
        // signed for unsigned values too: `n - i` (stride 2^fbits - 1) counts down without
        // wrapping while its last lane stays at or above zero.
        if fbits > 32 {
            return None;
        }
        let stride = alu::sext(s, fbits as u8);
        let span = stride.checked_mul((LANES - 1) as i64)?;
        let out = |g: &mut Self, base: Value| {
            let base = g.int_resize(base, 8, tb, signed);
            Some(JVal::Affine(base, wrap(stride as u64, tbits)))
        };
        if wrap_rule == Wrap::Never {
            let base = self.int_resize(x, fb, tb, signed);
            return Some(JVal::Affine(base, wrap(stride as u64, tbits)));
        }
        let x = self.fit(x, scalar_ty(fb));
        let x64 = if signed {
            self.b.ins().sextend(I64, x)
        } else {
            self.b.ins().uextend(I64, x)
        };
        let (lo, hi) = if signed {
            (-(1i64 << (fbits - 1)), (1i64 << (fbits - 1)) - 1)
        } else {
            (0, (1i64 << fbits) - 1)
        };
        let lanes = self.mask.as_ref().map(|m| m.lanes);
        let Some(lanes) = lanes.filter(|_| stride.unsigned_abs() < 1 << 28) else {
            if wrap_rule == Wrap::Check {
                let last = self.b.ins().iadd_imm_s(x64, span);
                let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, last, lo);
                let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, last, hi);
                let wraps = self.b.ins().bor(below, above);
                self.hand_back_if(wraps);
            }
            return out(self, x64);
        };
        // Lanes [0, p) stay in range (lane 0 is in it), the rest wrap once (|stride| < 2^28).
        let p = if stride > 0 {
            // ceil((hi + 1 - base) / stride)
            let top = self.b.ins().iconst(I64, hi + stride);
            let room = self.b.ins().isub(top, x64);
            self.b.ins().udiv_imm_u(room, stride)
        } else {
            // floor((base - lo) / -stride) + 1
            let room = self.b.ins().iadd_imm_s(x64, -lo);
            let q = self.b.ins().udiv_imm_u(room, -stride);
            self.b.ins().iadd_imm_s(q, 1)
        };
        let max = self.b.ins().iconst(I64, LANES as i64);
        let p = self.b.ins().umin(p, max);
        let p = self.b.ins().ireduce(I32, p);
        let one = self.b.ins().iconst(I32, 1);
        let bit = self.b.ins().ishl(one, p);
        let prefix = self.b.ins().iadd_imm_s(bit, -1);
        // The active lanes as 16 bits (0/1 lanes to 0/-1, then their sign bits).
        let zero = self.b.ins().iconst(I8, 0);
        let zeros = self.b.ins().splat(I8X16, zero);
        let signs = self.b.ins().isub(zeros, lanes);
        let active = self.b.ins().vhigh_bits(I32, signs);
        let outside = self.b.ins().band_not(active, prefix);
        let inside = self.b.ins().band(active, prefix);
        let in_prefix = self.b.ins().icmp_imm_s(IntCC::Equal, outside, 0);
        if wrap_rule == Wrap::Check {
            let in_suffix = self.b.ins().icmp_imm_s(IntCC::Equal, inside, 0);
            let one_side = self.b.ins().bor(in_prefix, in_suffix);
            let both = self.b.ins().bxor_imm_s(one_side, 1);
            self.hand_back_if(both);
        }
        let period = 1i64 << fbits;
        let past = self
            .b
            .ins()
            .iadd_imm_s(x64, if stride > 0 { -period } else { period });
        let base = self.b.ins().select(in_prefix, x64, past);
        out(self, base)
    }

    /// Vectors of `fb`-byte lanes resized to `tb`-byte lanes (truncating or extending).
    pub(super) fn vec_resize(
        &mut self,
        xs: &[Value],
        fb: usize,
        tb: usize,
        signed: bool,
    ) -> Vec<Value> {
        let mut cur = xs.to_vec();
        let mut b = fb;
        while b < tb {
            cur = cur
                .iter()
                .flat_map(|&v| {
                    if signed {
                        [self.b.ins().swiden_low(v), self.b.ins().swiden_high(v)]
                    } else {
                        [self.b.ins().uwiden_low(v), self.b.ins().uwiden_high(v)]
                    }
                })
                .collect();
            b *= 2;
        }
        while b > tb {
            let half = b / 2;
            cur = cur
                .chunks(2)
                .map(|p| self.truncate_pair(p[0], p[1], b, half))
                .collect();
            b = half;
        }
        cur
    }

    /// Two vectors of `b`-byte lanes truncated to one of `half`-byte lanes.
    pub(super) fn truncate_pair(&mut self, x: Value, y: Value, b: usize, half: usize) -> Value {
        if b == 8 {
            // Keep the low 4 bytes of each 8-byte lane.
            let x8 = self.b.ins().bitcast(I8X16, lane_flags(), x);
            let y8 = self.b.ins().bitcast(I8X16, lane_flags(), y);
            let mask: Vec<u8> = [0u8, 8, 16, 24]
                .iter()
                .flat_map(|&s| (0..4).map(move |k| s + k))
                .collect();
            let s = self.shuffle(x8, y8, &mask);
            return self.b.ins().bitcast(I32X4, lane_flags(), s);
        }
        let low = (1u64 << (half * 8)) - 1;
        let m = self.iconst(scalar_ty(b), low);
        let mv = self.b.ins().splat(vec_ty(b), m);
        let (x, y) = (self.b.ins().band(x, mv), self.b.ins().band(y, mv));
        self.b.ins().unarrow(x, y)
    }

    /// `x` (float) to integer type `ty`, saturating (NaN gives 0), signed or not.
    pub(super) fn fcvt_to_int(&mut self, signed: bool, ty: Type, x: Value) -> Value {
        if signed {
            self.b.ins().fcvt_to_sint_sat(ty, x)
        } else {
            self.b.ins().fcvt_to_uint_sat(ty, x)
        }
    }

    /// Integer `x`, signed or not, to float type `ty`.
    pub(super) fn fcvt_from_int(&mut self, signed: bool, ty: Type, x: Value) -> Value {
        if signed {
            self.b.ins().fcvt_from_sint(ty, x)
        } else {
            self.b.ins().fcvt_from_uint(ty, x)
        }
    }

    /// float8 (`W_E4M3` or `W_E5M2`) to f32 bits: a lookup in a table of all 256 codes, made
    /// with `alu::conv` itself (so the same bits, NaNs included), one load per lane.
    pub(super) fn fp8_to_f32(&mut self, from: u8, a: &JVal) -> Option<JVal> {
        let tables = self.ctx_load(I64, field!(fp8_tables));
        let base = self
            .b
            .ins()
            .iadd_imm_s(tables, if from == alu::W_E5M2 { 1024 } else { 0 });
        let flags = MemFlagsData::trusted().with_readonly();
        let lookup = |g: &mut Self, code: Value| -> Value {
            let index = g.b.ins().uextend(I64, code);
            let offset = g.b.ins().ishl_imm_u(index, 2);
            let at = g.b.ins().iadd(base, offset);
            g.b.ins().load(I32, flags, at, 0)
        };
        if let Some(code) = self.scalar(a, 1) {
            return Some(JVal::Uniform(lookup(self, code)));
        }
        self.scalarise(&[(a.clone(), 1)], 4, |g, l| Some(lookup(g, l[0])))
    }

    /// A constant of `ty`'s lanes (`I32` or `I32X4`).
    pub(super) fn i32_const(&mut self, ty: Type, v: i64) -> Value {
        let c = self.b.ins().iconst(I32, v);
        if ty.is_vector() {
            self.b.ins().splat(ty, c)
        } else {
            c
        }
    }

    /// `cond ? x : y` for `I32` (`cond` an `I8`) or `I32X4` (`cond` a lane mask).
    pub(super) fn select_lanes(&mut self, cond: Value, x: Value, y: Value) -> Value {
        if self.b.func.dfg.value_type(x).is_vector() {
            self.b.ins().bitselect(cond, x, y)
        } else {
            self.b.ins().select(cond, x, y)
        }
    }

    /// bfloat16 bits (zero-extended in `I32` lanes) to f32 bits: the same bits shifted up, a NaN
    /// quieted (as the interpreter's widening through f64 does).
    pub(super) fn bf16_to_f32_bits(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let bits = self.b.ins().ishl_imm_u(x, 16);
        let mask = self.i32_const(ty, 0x7fff_ffff);
        let magnitude = self.b.ins().band(bits, mask);
        let inf = self.i32_const(ty, 0x7f80_0000);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, magnitude, inf);
        let quiet_bit = self.i32_const(ty, 0x0040_0000);
        let quiet = self.b.ins().bor(bits, quiet_bit);
        self.select_lanes(nan, quiet, bits)
    }

    /// f32 bits (`I32` lanes) to bfloat16 bits (zero-extended), rounded to nearest even, a NaN
    /// kept with its upper mantissa and the quiet bit: `half::bf16::from_f32`, as `alu`.
    pub(super) fn f32_bits_to_bf16(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let vector = ty.is_vector();
        let mask = self.i32_const(ty, 0x7fff_ffff);
        let magnitude = self.b.ins().band(x, mask);
        let inf = self.i32_const(ty, 0x7f80_0000);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, magnitude, inf);
        let high = self.b.ins().ushr_imm_u(x, 16);
        let quiet_bit = self.i32_const(ty, 0x40);
        let nan_bits = self.b.ins().bor(high, quiet_bit);
        // Round up when the first dropped bit is set and the rest or the kept lsb is.
        let zero = self.i32_const(ty, 0);
        let half_bit = self.i32_const(ty, 0x8000);
        let first = self.b.ins().band(x, half_bit);
        let first = self.b.ins().icmp(IntCC::NotEqual, first, zero);
        let sticky_mask = self.i32_const(ty, 3 * 0x8000 - 1);
        let sticky = self.b.ins().band(x, sticky_mask);
        let sticky = self.b.ins().icmp(IntCC::NotEqual, sticky, zero);
        let up = self.b.ins().band(first, sticky);
        let rounded = if vector {
            // Lane masks are all ones (-1) where true.
            self.b.ins().isub(high, up)
        } else {
            let up = self.b.ins().uextend(I32, up);
            self.b.ins().iadd(high, up)
        };
        self.select_lanes(nan, nan_bits, rounded)
    }

    /// A float to an 8- or 16-bit integer as `alu::conv`: saturated to the target's range, NaN
    /// to 0. Through a saturating conversion to 32 bits, a clamp and a narrowing (exact once
    /// clamped); f32 lanes four to a vector, f64 lane by lane.
    pub(super) fn float_to_narrow(
        &mut self,
        signed: bool,
        from: u8,
        to: u8,
        a: &JVal,
    ) -> Option<JVal> {
        let fty = float_ty(from)?;
        let (lo, hi) = if signed {
            (-(1i64 << (to - 1)), (1i64 << (to - 1)) - 1)
        } else {
            (0, (1i64 << to) - 1)
        };
        let tb = width_bytes(to);
        let clamp32 = |g: &mut Self, x: Value, ty: Type| -> Value {
            let vector = ty.is_vector();
            let k = |g: &mut Self, v: i64| {
                let c = g.b.ins().iconst(I32, v);
                if vector { g.b.ins().splat(ty, c) } else { c }
            };
            let (l, h) = (k(g, lo), k(g, hi));
            if signed {
                let m = g.b.ins().smax(x, l);
                g.b.ins().smin(m, h)
            } else {
                g.b.ins().umin(x, h)
            }
        };
        if a.is_scalar() || from != 32 {
            let fb = width_bytes(from);
            let one = |g: &mut Self, bits: Value| -> Value {
                let f = g.bits_to_float(bits, fty);
                let i = g.fcvt_to_int(signed, I32, f);
                let i = clamp32(g, i, I32);
                g.b.ins().ireduce(scalar_ty(tb), i)
            };
            if let Some(x) = self.scalar(a, fb) {
                return Some(JVal::Uniform(one(self, x)));
            }
            return self.scalarise(&[(a.clone(), fb)], tb, |g, l| Some(one(g, l[0])));
        }
        // f32 vectors: four I32X4 of clamped values, narrowed to the target's vectors.
        let xs = self.vectors(a, 4);
        let ints: Vec<Value> = xs
            .iter()
            .map(|&x| {
                let f = self.vec_to_float(x, 32);
                let i = self.fcvt_to_int(signed, I32X4, f);
                clamp32(self, i, I32X4)
            })
            .collect();
        // Saturating narrows are exact on clamped values; `unarrow` reads its input as signed,
        // which the clamped unsigned values (below 2^16) are.
        let halves: Vec<Value> = ints
            .chunks(2)
            .map(|p| {
                if signed {
                    self.b.ins().snarrow(p[0], p[1])
                } else {
                    self.b.ins().unarrow(p[0], p[1])
                }
            })
            .collect();
        if to == 16 {
            return Some(JVal::Varying(halves));
        }
        let bytes = if signed {
            self.b.ins().snarrow(halves[0], halves[1])
        } else {
            self.b.ins().unarrow(halves[0], halves[1])
        };
        Some(JVal::Varying(vec![bytes]))
    }

    /// Float conversions the JIT computes (f32/f64 with 32/64-bit integers).
    pub(super) fn float_conv(&mut self, op: Conv, from: u8, to: u8, a: &JVal) -> Option<JVal> {
        // The narrow floats (binary16, bfloat16, float8) without a path of their own go
        // through f32. They widen to it exactly, as do 8- and 16-bit integers, so the one
        // conversion from f32 rounds or saturates once, as `alu::conv` does; f64 and wider
        // integers come to f32 rounded to odd (`odd`), which the second rounding undoes.
        let narrow = |w: u8| matches!(w, 16 | alu::W_BF16 | alu::W_E4M3 | alu::W_E5M2);
        match op {
            Conv::FToF | Conv::FToS | Conv::FToU
                if narrow(from) && (op, to) != (Conv::FToF, 32) =>
            {
                let wide = self.float_conv(Conv::FToF, from, 32, a)?;
                return self.float_conv(op, 32, to, &wide);
            }
            Conv::SToF | Conv::UToF if narrow(to) && matches!(from, 8 | 16) => {
                let wide = self.float_conv(op, from, 32, a)?;
                return self.float_conv(Conv::FToF, 32, to, &wide);
            }
            Conv::FToF | Conv::SToF | Conv::UToF
                if narrow(to) && (op, from) != (Conv::FToF, 32) =>
            {
                let odd = self.f32_rounded_to_odd(op, from, a)?;
                return self.float_conv(Conv::FToF, 32, to, &odd);
            }
            _ => {}
        }
        let (fb, tb) = (width_bytes(from), width_bytes(to));
        let scalar = a.is_scalar();
        match op {
            Conv::FToS | Conv::FToU if matches!(to, 8 | 16) => {
                self.float_to_narrow(op == Conv::FToS, from, to, a)
            }
            Conv::FToS | Conv::FToU => {
                let fty = float_ty(from)?;
                if !matches!(to, 32 | 64) {
                    return None;
                }
                let ity = scalar_ty(tb);
                let signed = op == Conv::FToS;
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let x = self.bits_to_float(x, fty);
                    let r = self.fcvt_to_int(signed, ity, x);
                    Some(JVal::Uniform(r))
                } else if from == 32 && to == 32 {
                    let xs = self.vectors(a, 4);
                    let out = xs
                        .iter()
                        .map(|&x| {
                            let f = self.vec_to_float(x, 32);
                            self.fcvt_to_int(signed, I32X4, f)
                        })
                        .collect();
                    Some(JVal::Varying(out))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let f = g.bits_to_float(l[0], fty);
                        Some(g.fcvt_to_int(signed, ity, f))
                    })
                }
            }
            Conv::SToF | Conv::UToF if matches!(from, 8 | 16) => {
                // 8- and 16-bit integers are exact in f32 and f64: widened to 32 bits by their
                // signedness, they convert as signed 32-bit values.
                float_ty(to)?;
                let signed = op == Conv::SToF;
                let wide = match a {
                    JVal::Uniform(x) => JVal::Uniform(self.int_resize(*x, fb, 4, signed)),
                    _ => {
                        let xs = self.vectors(a, fb);
                        JVal::Varying(self.vec_resize(&xs, fb, 4, signed))
                    }
                };
                self.float_conv(Conv::SToF, 32, to, &wide)
            }
            Conv::SToF | Conv::UToF => {
                let fty = float_ty(to)?;
                if !matches!(from, 32 | 64) {
                    return None;
                }
                let ity = scalar_ty(tb);
                let signed = op == Conv::SToF;
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let f = self.fcvt_from_int(signed, fty, x);
                    Some(JVal::Uniform(self.float_to_bits(f, ity)))
                } else if from == 32 && to == 32 {
                    let xs = self.vectors(a, 4);
                    let out = xs
                        .iter()
                        .map(|&x| {
                            let f = self.fcvt_from_int(signed, F32X4, x);
                            self.vec_from_float(f, 32)
                        })
                        .collect();
                    Some(JVal::Varying(out))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let f = g.fcvt_from_int(signed, fty, l[0]);
                        Some(g.float_to_bits(f, ity))
                    })
                }
            }
            Conv::FToF if matches!((from, to), (16, 32) | (32, 16)) && scalar => {
                // A uniform value: the vector conversion below on a splat, lane 0.
                let x = self.scalar(a, fb)?;
                if from == 16 {
                    let v = self.b.ins().splat(I16X8, x);
                    let w = self.b.ins().uwiden_low(v);
                    let f = self.half_to_f32(w);
                    let bits = self.b.ins().bitcast(I32X4, lane_flags(), f);
                    Some(JVal::Uniform(self.b.ins().extractlane(bits, 0)))
                } else {
                    let v = self.b.ins().splat(I32X4, x);
                    let f = self.b.ins().bitcast(F32X4, lane_flags(), v);
                    let h = self.f32_to_half(f);
                    let lane = self.b.ins().extractlane(h, 0);
                    Some(JVal::Uniform(self.b.ins().ireduce(I16, lane)))
                }
            }
            Conv::FToF if (from, to) == (16, 32) && !scalar => {
                // binary16 → f32 exactly, eight lanes (one I16X8) into two I32X4 at a time.
                let xs = self.vectors(a, 2);
                let mut out = Vec::with_capacity(4);
                for &x in &xs {
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
                Some(JVal::Varying(out))
            }
            Conv::FToF if (from, to) == (32, 16) && !scalar => {
                // f32 → binary16, rounded to nearest even, two I32X4 into one I16X8.
                let xs = self.vectors(a, 4);
                let mut out = Vec::with_capacity(2);
                for pair in xs.chunks(2) {
                    let lo = self.b.ins().bitcast(F32X4, lane_flags(), pair[0]);
                    let hi = self.b.ins().bitcast(F32X4, lane_flags(), pair[1]);
                    let (lo, hi) = (self.f32_to_half(lo), self.f32_to_half(hi));
                    out.push(self.b.ins().unarrow(lo, hi));
                }
                Some(JVal::Varying(out))
            }
            Conv::FToF if matches!(to, alu::W_E4M3 | alu::W_E5M2) => {
                self.narrow_float_conv(op, from, to, a)
            }
            Conv::FToF if matches!(from, alu::W_E4M3 | alu::W_E5M2) && to == 32 => {
                self.fp8_to_f32(from, a)
            }
            Conv::FToF if (from, to) == (alu::W_BF16, 32) => {
                if let Some(x) = self.scalar(a, 2) {
                    let x = self.b.ins().uextend(I32, x);
                    return Some(JVal::Uniform(self.bf16_to_f32_bits(x)));
                }
                let xs = self.vectors(a, 2);
                let mut out = Vec::with_capacity(4);
                for &x in &xs {
                    for high in [false, true] {
                        let w = if high {
                            self.b.ins().uwiden_high(x)
                        } else {
                            self.b.ins().uwiden_low(x)
                        };
                        out.push(self.bf16_to_f32_bits(w));
                    }
                }
                Some(JVal::Varying(out))
            }
            Conv::FToF if (from, to) == (32, alu::W_BF16) => {
                if let Some(x) = self.scalar(a, 4) {
                    let r = self.f32_bits_to_bf16(x);
                    return Some(JVal::Uniform(self.b.ins().ireduce(I16, r)));
                }
                let xs = self.vectors(a, 4);
                let mut out = Vec::with_capacity(2);
                for pair in xs.chunks(2) {
                    let (lo, hi) = (
                        self.f32_bits_to_bf16(pair[0]),
                        self.f32_bits_to_bf16(pair[1]),
                    );
                    // Every lane is below 2^16: the saturating narrow is exact.
                    out.push(self.b.ins().unarrow(lo, hi));
                }
                Some(JVal::Varying(out))
            }
            _ => {
                // FToF between f32 and f64.
                let (ft, tt) = (float_ty(from)?, float_ty(to)?);
                if ft == tt {
                    return Some(a.clone());
                }
                let ity = scalar_ty(tb);
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let x = self.bits_to_float(x, ft);
                    let r = if tt == F64 {
                        self.b.ins().fpromote(F64, x)
                    } else {
                        self.b.ins().fdemote(F32, x)
                    };
                    Some(JVal::Uniform(self.float_to_bits(r, ity)))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let x = g.bits_to_float(l[0], ft);
                        let r = if tt == F64 {
                            g.b.ins().fpromote(F64, x)
                        } else {
                            g.b.ins().fdemote(F32, x)
                        };
                        Some(g.float_to_bits(r, ity))
                    })
                }
            }
        }
    }
}
