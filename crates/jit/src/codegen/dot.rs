//! Integer dot products (`Op::IDot`: `OpSDot`, `OpUDot`, `OpSUDot` and their `AccSat` forms).
//! Without an accumulator and with a 32-bit result: the low 32 bits of the exact sum of
//! products, which wrapping 32-bit arithmetic on the sign- or zero-extended components gives
//! (arithmetic modulo 2³² keeps the low bits exact); 8-bit components, four at a time, as the
//! lanes' packed 32-bit words (the words they were loaded or split from when `quads` recorded
//! them, else packed with shuffles) and `pmaddwd`s of their even and odd bytes; other components
//! of 8 and 16 bits widen four lanes to a vector. The saturating forms of 8-bit components with a 32-bit result: exact 32-bit sums
//! and a saturating accumulation, in vectors. Other saturating forms and result widths: lane by
//! lane in 128-bit integers, where the sum of products of components up to 32 bits and the
//! accumulator is exact, then clamped to the result's range as `alu::idot` does. (64-bit
//! components stay with the interpreter: their products need more than 128 bits to sum.)

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use tessera_spirv::ir::Reg;

use super::Gen;
use super::values::{JVal, lane_flags, scalar_ty};

impl Gen<'_> {
    /// `Op::IDot` when the module docs' conditions hold; `Ok(false)` otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn idot(
        &mut self,
        in_width: u8,
        out_width: u8,
        [lhs_signed, rhs_signed, sat_signed]: [bool; 3],
        dst: Reg,
        lhs: &[Reg],
        rhs: &[Reg],
        acc: Option<Reg>,
    ) -> JitResult<bool> {
        let in_bytes = usize::from(in_width / 8);
        // 64-bit components: the wrapping forms (the low bits of an `I128` sum); a saturating
        // one would need the exact sum of 128-bit products.
        let wide_ok = in_width == 64 && acc.is_none();
        if !(matches!(in_width, 8 | 16 | 32) || wide_ok)
            || !matches!(out_width, 8 | 16 | 32 | 64)
            || lhs.len() != rhs.len()
            || lhs.is_empty()
            || lhs.iter().chain(rhs).any(|&r| self.bytes(r) != in_bytes)
        {
            return Ok(false);
        }
        // The saturating 8-bit forms with a 32-bit result (what IREE emits for int8 matmuls):
        // the dot product is exact in 32 bits, the accumulation saturates in vectors.
        let narrow_sum =
            in_width == 8 && lhs.len() <= 1 << 14 && (sat_signed || !(lhs_signed || rhs_signed));
        if let (Some(acc), 32, true) = (acc, out_width, narrow_sum) {
            // (Uniform operands take the exact path below, once per chunk.)
            let uniform = lhs
                .iter()
                .chain(rhs)
                .chain([&acc])
                .all(|&r| self.get(r).is_scalar());
            if self.bytes(acc) == 4 && !uniform {
                return self
                    .idot_saturating(lhs_signed, rhs_signed, sat_signed, dst, lhs, rhs, acc);
            }
        }
        if acc.is_some() || out_width != 32 {
            let signs = [lhs_signed, rhs_signed, sat_signed];
            return self.idot_exact(in_width, out_width, signs, dst, lhs, rhs, acc);
        }
        let (xs, ys): (Vec<JVal>, Vec<JVal>) = (
            lhs.iter().map(|&r| self.get(r)).collect(),
            rhs.iter().map(|&r| self.get(r)).collect(),
        );
        if xs.iter().chain(&ys).all(JVal::is_scalar) {
            let mut sum = self.b.ins().iconst(I32, 0);
            for (x, y) in xs.iter().zip(&ys) {
                let (Some(x), Some(y)) = (self.scalar(x, in_bytes), self.scalar(y, in_bytes))
                else {
                    return Ok(false);
                };
                let x = self.widen32(x, lhs_signed);
                let y = self.widen32(y, rhs_signed);
                let p = self.b.ins().imul(x, y);
                sum = self.b.ins().iadd(sum, p);
            }
            self.set(dst, JVal::Uniform(sum))?;
            return Ok(true);
        }
        let sums = self.wrapping_sums(&xs, &ys, in_bytes, [lhs_signed, rhs_signed])?;
        self.set(dst, JVal::Varying(sums))?;
        Ok(true)
    }

    /// An 8-bit `AccSat` dot product with a 32-bit accumulator, in `I32X4` vectors: the sum of
    /// products is exact in 32 bits (at most 2¹⁴ products of magnitude below 2¹⁶), the
    /// accumulation wraps, and lanes that overflowed take the saturated value: for a signed
    /// result, where the accumulator and the sum have one sign and the total the other
    /// (`i32::MAX` or `i32::MIN` by the accumulator's sign); for an unsigned one (unsigned
    /// operands, a non-negative sum), where the total wrapped below the accumulator.
    #[allow(clippy::too_many_arguments)]
    fn idot_saturating(
        &mut self,
        lhs_signed: bool,
        rhs_signed: bool,
        sat_signed: bool,
        dst: Reg,
        lhs: &[Reg],
        rhs: &[Reg],
        acc: Reg,
    ) -> JitResult<bool> {
        let xs: Vec<JVal> = lhs.iter().map(|&r| self.get(r)).collect();
        let ys: Vec<JVal> = rhs.iter().map(|&r| self.get(r)).collect();
        let sums = self.wrapping_sums(&xs, &ys, 1, [lhs_signed, rhs_signed])?;
        let a = self.get(acc);
        let accs = self.vectors(&a, 4);
        let out = sums
            .iter()
            .zip(&accs)
            .map(|(&d, &c)| {
                let total = self.b.ins().iadd(c, d);
                if sat_signed {
                    let p = self.b.ins().bxor(c, total);
                    let q = self.b.ins().bxor(d, total);
                    let both = self.b.ins().band(p, q);
                    let overflow = self.b.ins().sshr_imm_u(both, 31);
                    let sign = self.b.ins().sshr_imm_u(c, 31);
                    let max = self.const_vec(4, 0, |_| 0x7fff_ffff);
                    let saturated = self.b.ins().bxor(sign, max);
                    self.b.ins().bitselect(overflow, saturated, total)
                } else {
                    let wrapped = self.b.ins().icmp(IntCC::UnsignedLessThan, total, c);
                    self.b.ins().bor(total, wrapped)
                }
            })
            .collect();
        self.set(dst, JVal::Varying(out))?;
        Ok(true)
    }

    /// `Op::IDot` lane by lane in `I128` (see the module docs).
    #[allow(clippy::too_many_arguments)]
    fn idot_exact(
        &mut self,
        in_width: u8,
        out_width: u8,
        [lhs_signed, rhs_signed, sat_signed]: [bool; 3],
        dst: Reg,
        lhs: &[Reg],
        rhs: &[Reg],
        acc: Option<Reg>,
    ) -> JitResult<bool> {
        let (in_bytes, out_bytes) = (usize::from(in_width / 8), usize::from(out_width / 8));
        if acc.is_some_and(|r| self.bytes(r) != out_bytes) {
            return Ok(false);
        }
        let n = lhs.len();
        let mut args: Vec<(JVal, usize)> = lhs
            .iter()
            .chain(rhs)
            .map(|&r| (self.get(r), in_bytes))
            .collect();
        if let Some(r) = acc {
            args.push((self.get(r), out_bytes));
        }
        let out_ty = scalar_ty(out_bytes);
        let lane = |g: &mut Self, lanes: &[Value]| -> Option<Value> {
            let extend = |g: &mut Self, v: Value, ty: Type, signed: bool| {
                let v = g.fit(v, ty);
                if signed {
                    g.b.ins().sextend(I128, v)
                } else {
                    g.b.ins().uextend(I128, v)
                }
            };
            let in_ty = scalar_ty(in_bytes);
            let mut sum: Option<Value> = None;
            for k in 0..n {
                let x = extend(g, lanes[k], in_ty, lhs_signed);
                let y = extend(g, lanes[n + k], in_ty, rhs_signed);
                let p = g.b.ins().imul(x, y);
                sum = Some(match sum {
                    None => p,
                    Some(s) => g.b.ins().iadd(s, p),
                });
            }
            let sum = sum?;
            let Some(&acc) = lanes.get(2 * n) else {
                // No accumulator: the low bits.
                return Some(g.b.ins().ireduce(out_ty, sum));
            };
            let acc = extend(g, acc, out_ty, sat_signed);
            let total = g.b.ins().iadd(sum, acc);
            let bits = u32::from(out_width);
            let (min, max): (i64, i64) = if sat_signed {
                (-(1i64 << (bits - 1)), ((1u64 << (bits - 1)) - 1) as i64)
            } else {
                (0, (u64::MAX >> (64 - bits)) as i64)
            };
            let (min, max) = (g.b.ins().iconst(I64, min), g.b.ins().iconst(I64, max));
            let wide_min = g.b.ins().sextend(I128, min);
            let wide_max = if sat_signed {
                g.b.ins().sextend(I128, max)
            } else {
                g.b.ins().uextend(I128, max)
            };
            // The compares in 128 bits, the selects in 64 (x64 has no 128-bit min/max, which
            // a select of compared values would become).
            let below = g.b.ins().icmp(IntCC::SignedLessThan, total, wide_min);
            let above = g.b.ins().icmp(IntCC::SignedGreaterThan, total, wide_max);
            let low = g.b.ins().ireduce(I64, total);
            let t = g.b.ins().select(below, min, low);
            let t = g.b.ins().select(above, max, t);
            Some(g.fit(t, out_ty))
        };
        let r = if args.iter().all(|(v, _)| v.is_scalar()) {
            let scalars: Option<Vec<Value>> = args
                .iter()
                .map(|(v, bytes)| self.scalar(v, *bytes))
                .collect();
            let Some(scalars) = scalars else {
                return Ok(false);
            };
            lane(self, &scalars).map(JVal::Uniform)
        } else {
            self.scalarise(&args, out_bytes, lane)
        };
        match r {
            Some(r) => {
                self.set(dst, r)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The 16 lanes' sums of products of `xs[k]·ys[k]` (components of `bytes`, extended by
    /// their signedness) as four `I32X4`, wrapping modulo 2³².
    fn wrapping_sums(
        &mut self,
        xs: &[JVal],
        ys: &[JVal],
        bytes: usize,
        [lhs_signed, rhs_signed]: [bool; 2],
    ) -> JitResult<Vec<Value>> {
        if bytes == 1 && xs.len().is_multiple_of(4) {
            return self.packed_sums(xs, ys, [lhs_signed, rhs_signed]);
        }
        let mut sums: Option<Vec<Value>> = None;
        for (x, y) in xs.iter().zip(ys) {
            let x = self.lanes32(x, bytes, lhs_signed);
            let y = self.lanes32(y, bytes, rhs_signed);
            let products: Vec<Value> = x
                .iter()
                .zip(&y)
                .map(|(&a, &b)| self.b.ins().imul(a, b))
                .collect();
            sums = Some(match sums {
                None => products,
                Some(s) => s
                    .iter()
                    .zip(&products)
                    .map(|(&a, &b)| self.b.ins().iadd(a, b))
                    .collect(),
            });
        }
        sums.ok_or(JitError::Unexpected("idot: no components"))
    }

    /// [`Self::wrapping_sums`] of 8-bit components, four at a time as the lanes' packed words
    /// (`quads`): per word, the even and the odd bytes widened in 16-bit halves and two
    /// `pmaddwd`s, whose 32-bit sums of two products are exact (|a·b| ≤ 2¹⁶).
    fn packed_sums(
        &mut self,
        xs: &[JVal],
        ys: &[JVal],
        [lhs_signed, rhs_signed]: [bool; 2],
    ) -> JitResult<Vec<Value>> {
        let mut sums: Option<Vec<Value>> = None;
        for (x, y) in xs.chunks(4).zip(ys.chunks(4)) {
            let x = self.words_of(x);
            let y = self.words_of(y);
            let dots: Vec<Value> = x
                .iter()
                .zip(&y)
                .map(|(&x, &y)| {
                    let (xe, xo) = self.byte_halves(x, lhs_signed);
                    let (ye, yo) = self.byte_halves(y, rhs_signed);
                    let even = self.madd_pairs(xe, ye);
                    let odd = self.madd_pairs(xo, yo);
                    self.b.ins().iadd(even, odd)
                })
                .collect();
            sums = Some(match sums {
                None => dots,
                Some(s) => s
                    .iter()
                    .zip(&dots)
                    .map(|(&a, &b)| self.b.ins().iadd(a, b))
                    .collect(),
            });
        }
        sums.ok_or(JitError::Unexpected("idot: no components"))
    }

    /// Four byte components as the lanes' packed words (four `I32X4`): the words they were
    /// split from when `packed_bytes` knows them (bytes 0..3 of the same words), else packed.
    fn words_of(&mut self, bytes: &[JVal]) -> Vec<Value> {
        let vectors: Vec<Value> = bytes.iter().flat_map(|b| self.vectors(b, 1)).collect();
        let known: Option<Vec<&(Vec<Value>, u8)>> =
            vectors.iter().map(|v| self.packed_bytes.get(v)).collect();
        if let Some(known) = known
            && known
                .iter()
                .enumerate()
                .all(|(k, (words, byte))| usize::from(*byte) == k && *words == known[0].0)
        {
            return known[0].0.clone();
        }
        self.pack_bytes(&vectors)
    }

    /// A word's even bytes (0, 2) and odd bytes (1, 3), each extended to 16 bits by `signed`,
    /// as `I16X8`.
    fn byte_halves(&mut self, word: Value, signed: bool) -> (Value, Value) {
        let halves = self.b.ins().bitcast(I16X8, lane_flags(), word);
        if signed {
            let up = self.b.ins().ishl_imm_u(halves, 8);
            (
                self.b.ins().sshr_imm_u(up, 8),
                self.b.ins().sshr_imm_u(halves, 8),
            )
        } else {
            let mask = self.const_vec(2, 0, |_| 0xff);
            (
                self.b.ins().band(halves, mask),
                self.b.ins().ushr_imm_u(halves, 8),
            )
        }
    }

    /// `x[2i]·y[2i] + x[2i+1]·y[2i+1]` of two `I16X8` as `I32X4` (the shape x64 lowers to one
    /// `pmaddwd`).
    fn madd_pairs(&mut self, x: Value, y: Value) -> Value {
        let (xl, yl) = (self.b.ins().swiden_low(x), self.b.ins().swiden_low(y));
        let (xh, yh) = (self.b.ins().swiden_high(x), self.b.ins().swiden_high(y));
        let low = self.b.ins().imul(xl, yl);
        let high = self.b.ins().imul(xh, yh);
        self.b.ins().iadd_pairwise(low, high)
    }

    /// A scalar integer extended to `I32` by its signedness.
    fn widen32(&mut self, x: Value, signed: bool) -> Value {
        if self.b.func.dfg.value_type(x) == I32 {
            x
        } else if signed {
            self.b.ins().sextend(I32, x)
        } else {
            self.b.ins().uextend(I32, x)
        }
    }

    /// A value's 16 lanes as four `I32X4`, extended by `signed` from `bytes`-byte lanes.
    fn lanes32(&mut self, v: &JVal, bytes: usize, signed: bool) -> Vec<Value> {
        let mut vs = self.vectors(v, bytes);
        let mut width = bytes;
        while width < 4 {
            vs = vs
                .into_iter()
                .flat_map(|x| {
                    let (lo, hi) = if signed {
                        (self.b.ins().swiden_low(x), self.b.ins().swiden_high(x))
                    } else {
                        (self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x))
                    };
                    [lo, hi]
                })
                .collect();
            width *= 2;
        }
        vs
    }
}
