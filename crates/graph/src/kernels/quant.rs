//! Quantisation: RESCALE (TOSA's exact `apply_scale_32`/`apply_scale_16` with single and double
//! rounding, signed and unsigned sides, per-channel scales) and TABLE (256-entry i8 and
//! 513-entry interpolated i16 lookups). Results a failed `REQUIRE` makes unpredictable are
//! computed with wrapping arithmetic; nothing here panics or overflows.

use super::{bad, int, ints, one_of};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// `rounding_mode` values.
pub const SINGLE_ROUND: i64 = 1;
pub const INEXACT_ROUND: i64 = 2;
pub const DOUBLE_ROUND: i64 = 3;

/// TOSA's `apply_scale_32`: `(value·multiplier + round) >> shift`, with the ±2^30 double-rounding
/// adjustment for shifts above 31. Shifts outside 2..=62 are unpredictable; they are clamped.
pub fn apply_scale_32(value: i64, multiplier: i64, shift: i64, double_round: bool) -> i64 {
    let shift = shift.clamp(2, 62);
    let mut round = 1i128 << (shift - 1);
    if double_round && shift > 31 {
        round += if value >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    let r = (i128::from(value) * i128::from(multiplier) + round) >> shift;
    DType::I32.wrap_int(r as i64)
}

/// TOSA's `apply_scale_16` (48-bit values, 16-bit multipliers).
pub fn apply_scale_16(value: i64, multiplier: i64, shift: i64) -> i64 {
    apply_scale_32(value, multiplier, shift, false)
}

/// TOSA's `reciprocal_scale(count)`: (multiplier, shift) with `multiplier / 2^shift ≈ 1/count`.
pub fn reciprocal_scale(count: i64) -> (i64, i64) {
    let count = count.max(1);
    let k = 32 - i64::from(((count - 1) as u32).leading_zeros());
    let numerator = ((1i64 << 30) + 1) << k;
    (numerator / count, 30 + k)
}

/// The result type.
pub(crate) fn shape(node: &Node, a: &ValueInfo) -> Result<ValueInfo> {
    let out = &node.out[0];
    match node.op {
        TosaOp::Table => {
            let table = node.attr("table")?;
            let (want_len, dtype) = match a.dtype {
                DType::I8 => (256, DType::I8),
                DType::I16 => (513, DType::I32),
                other => {
                    return Err(bad(
                        node,
                        format!("input of type {} (i8 or i16)", other.name()),
                    ));
                }
            };
            if table.len() != want_len
                || table.dtype
                    != if a.dtype == DType::I8 {
                        DType::I8
                    } else {
                        DType::I16
                    }
            {
                return Err(bad(
                    node,
                    format!(
                        "the table has {} {} entries, {want_len} expected",
                        table.len(),
                        table.dtype.name()
                    ),
                ));
            }
            Ok(ValueInfo {
                dtype,
                shape: a.shape.clone(),
            })
        }
        TosaOp::Rescale => {
            let ins_ok = [DType::I8, DType::I16, DType::I32, DType::I48];
            one_of(node, "input", a.dtype, &ins_ok)?;
            one_of(
                node,
                "output",
                out.dtype,
                &[DType::I8, DType::I16, DType::I32],
            )?;
            let p = Params::read(node)?;
            let (i, o) = (a.dtype, out.dtype);
            if p.input_unsigned && p.output_unsigned {
                return Err(bad(node, "input_unsigned and output_unsigned together"));
            }
            if o == DType::I32 && p.input_unsigned || i == DType::I32 && p.output_unsigned {
                return Err(bad(node, "an unsigned side with an i32 side"));
            }
            if i == DType::I48 && (p.input_unsigned || p.output_unsigned || p.scale32) {
                return Err(bad(
                    node,
                    "i48 input needs scale32 = false and signed sides",
                ));
            }
            if !p.scale32 && p.rounding == DOUBLE_ROUND {
                return Err(bad(node, "DOUBLE_ROUND needs scale32"));
            }
            if ![SINGLE_ROUND, INEXACT_ROUND, DOUBLE_ROUND].contains(&p.rounding) {
                return Err(bad(node, format!("rounding_mode {}", p.rounding)));
            }
            let zp_ok = |t: DType, unsigned: bool, zp: i64| {
                zp == 0 || t == DType::I8 || (t == DType::I16 && unsigned && zp == 32768)
            };
            if !zp_ok(i, p.input_unsigned, p.input_zp) {
                return Err(bad(
                    node,
                    format!("input_zp {} for {} input", p.input_zp, i.name()),
                ));
            }
            if !zp_ok(o, p.output_unsigned, p.output_zp) {
                return Err(bad(
                    node,
                    format!("output_zp {} for {} output", p.output_zp, o.name()),
                ));
            }
            let nc = if p.per_channel {
                a.shape.last().copied().unwrap_or(1)
            } else {
                1
            };
            if p.multiplier.len() != nc || p.shift.len() != nc {
                return Err(bad(
                    node,
                    format!(
                        "multiplier/shift have {}/{} entries, {nc} expected",
                        p.multiplier.len(),
                        p.shift.len()
                    ),
                ));
            }
            Ok(ValueInfo {
                dtype: o,
                shape: a.shape.clone(),
            })
        }
        _ => Err(bad(node, "internal error: not a quantisation operator")),
    }
}

struct Params {
    scale32: bool,
    rounding: i64,
    per_channel: bool,
    input_unsigned: bool,
    output_unsigned: bool,
    multiplier: Vec<i64>,
    shift: Vec<i64>,
    input_zp: i64,
    output_zp: i64,
}

impl Params {
    fn read(node: &Node) -> Result<Params> {
        let input_unsigned = int(node, "input_unsigned")? != 0;
        let output_unsigned = int(node, "output_unsigned")? != 0;
        let zp = |name: &str, unsigned: bool| -> Result<i64> {
            let t = node.attr(name)?;
            let v = t.scalar_i64().unwrap_or(0);
            // Zero points are stored in the side's type; unsigned sides read them unsigned.
            Ok(if unsigned && t.dtype.is_int() {
                v & ((1i64 << t.dtype.int_bits()) - 1)
            } else {
                v
            })
        };
        Ok(Params {
            scale32: int(node, "scale32")? != 0,
            rounding: int(node, "rounding_mode")?,
            per_channel: int(node, "per_channel")? != 0,
            input_unsigned,
            output_unsigned,
            multiplier: ints(node, "multiplier")?,
            shift: ints(node, "shift")?,
            input_zp: zp("input_zp", input_unsigned)?,
            output_zp: zp("output_zp", output_unsigned)?,
        })
    }
}

/// A RESCALE from signed i32 to signed i8 with input zero point 0, the form that follows an int8
/// convolution, as a per-element function an int8 GEMM's epilogue can apply ([`Requant::apply`]
/// is bit-exact with [`rescale`] for it).
#[derive(Debug, Clone)]
pub struct Requant {
    /// Per channel (or one for all).
    multiplier: Vec<i32>,
    shift: Vec<i32>,
    double_round: bool,
    output_zp: i32,
}

impl Requant {
    /// The RESCALE `node` as a [`Requant`] when it is one: i32 input (signed, zero point 0) to
    /// signed i8, per channel over `channels` (the last dimension) or not.
    pub fn of(node: &Node, input: &ValueInfo, channels: usize) -> Option<Requant> {
        let p = Params::read(node).ok()?;
        if node.op != TosaOp::Rescale
            || input.dtype != DType::I32
            || node.out.first()?.dtype != DType::I8
            || p.input_unsigned
            || p.output_unsigned
            || p.input_zp != 0
        {
            return None;
        }
        let count = if p.per_channel { channels } else { 1 };
        if p.multiplier.len() != count || p.shift.len() != count {
            return None;
        }
        let narrow =
            |v: &[i64]| -> Option<Vec<i32>> { v.iter().map(|&x| i32::try_from(x).ok()).collect() };
        Some(Requant {
            multiplier: narrow(&p.multiplier)?,
            shift: narrow(&p.shift)?,
            double_round: p.scale32 && p.rounding == DOUBLE_ROUND,
            output_zp: i32::try_from(p.output_zp).ok()?,
        })
    }

    /// RESCALE of `value` in `channel`: `apply_scale_32` (in i64, which holds every product of
    /// two i32 plus the rounding term), the output zero point added in wrapping i32, clamped.
    #[inline]
    pub fn apply(&self, value: i32, channel: usize) -> i8 {
        let c = if self.multiplier.len() == 1 {
            0
        } else {
            channel
        };
        let (m, s) = (
            self.multiplier.get(c).copied().unwrap_or(0),
            self.shift.get(c).copied().unwrap_or(2).clamp(2, 62),
        );
        let mut round = 1i64 << (s - 1);
        if self.double_round && s > 31 {
            round += if value >= 0 { 1 << 30 } else { -(1 << 30) };
        }
        let r = (i64::from(value) * i64::from(m) + round) >> s;
        (r as i32).wrapping_add(self.output_zp).clamp(-128, 127) as i8
    }
}

pub fn rescale(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let p = Params::read(node)?;
    let out = &node.out[0];
    let channels = a.shape.last().copied().unwrap_or(1).max(1);
    let in_mask = (1i64 << a.dtype.int_bits().min(62)) - 1;
    let (olo, ohi) = if p.output_unsigned {
        (0, (1i64 << out.dtype.int_bits()) - 1)
    } else {
        out.dtype.int_range()
    };
    let x = a.ints();
    let mut v = Vec::with_capacity(x.len());
    for (k, &raw) in x.iter().enumerate() {
        let value = if p.input_unsigned { raw & in_mask } else { raw };
        let value = value - p.input_zp;
        let c = if p.per_channel { k % channels } else { 0 };
        let (m, s) = (
            p.multiplier.get(c).copied().unwrap_or(0),
            p.shift.get(c).copied().unwrap_or(2),
        );
        let r = if p.scale32 {
            apply_scale_32(value, m, s, p.rounding == DOUBLE_ROUND)
        } else {
            apply_scale_16(value, m, s)
        };
        let r = DType::I32.wrap_int(r + p.output_zp).clamp(olo, ohi);
        v.push(out.dtype.wrap_int(r));
    }
    Ok(vec![Tensor::new(
        out.dtype,
        out.shape.clone(),
        Values::Int(v),
    )?])
}

pub fn table(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let t = node.attr("table")?.ints();
    let out = &node.out[0];
    let at = |i: i64| {
        t.get(i.clamp(0, t.len() as i64 - 1) as usize)
            .copied()
            .unwrap_or(0)
    };
    let v = match a.dtype {
        DType::I8 => a.ints().iter().map(|&x| at(x + 128)).collect(),
        _ => a
            .ints()
            .iter()
            .map(|&x| {
                let value = x + 32768;
                let (index, fraction) = (value >> 7, value & 0x7f);
                let (base, next) = (at(index), at(index + 1));
                DType::I32.wrap_int((base << 7) + (next - base) * fraction)
            })
            .collect(),
    };
    Ok(vec![Tensor::new(
        out.dtype,
        out.shape.clone(),
        Values::Int(v),
    )?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_round_like_tosa() {
        // 0.5 rounds up; the double-rounding adjustment moves a value just below a tie.
        assert_eq!(apply_scale_32(3, 1 << 30, 31, false), 2);
        assert_eq!(apply_scale_32(-3, 1 << 30, 31, false), -1);
        // 1/4 rounds to 0 once, to 1 twice (first to 0.5 at bit 31, then up).
        assert_eq!(apply_scale_32(1, 1 << 30, 32, false), 0);
        assert_eq!(apply_scale_32(1, 1 << 30, 32, true), 1);
        assert_eq!(apply_scale_32(-1, 1 << 30, 32, true), 0);
        // Shifts up to 31 never double-round.
        assert_eq!(apply_scale_32(1, 1 << 29, 31, true), 0);
        assert_eq!(reciprocal_scale(1), ((1 << 30) + 1, 30));
        let (m, s) = reciprocal_scale(9);
        assert_eq!((m, s), ((((1i64 << 30) + 1) << 4) / 9, 34));
        assert_eq!(apply_scale_32(90, m, s, false), 10);
        // Never panics on unpredictable shifts or huge products.
        let _ = apply_scale_32(i64::MAX, i64::MAX, 99, true);
        let _ = apply_scale_16(-(1 << 47), 32767, -5);
    }

    #[test]
    fn requant_matches_apply_scale_32_for_every_rounding_and_shift() {
        let mut x = 99u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for double_round in [false, true] {
            for shift in [0, 2, 13, 31, 32, 40, 62, 70] {
                for _ in 0..200 {
                    let value = next() as i32;
                    let multiplier = next() as i32;
                    let zp = (next() % 256) as i32 - 128;
                    let q = Requant {
                        multiplier: vec![multiplier],
                        shift: vec![shift],
                        double_round,
                        output_zp: zp,
                    };
                    let want = DType::I32
                        .wrap_int(
                            apply_scale_32(
                                i64::from(value),
                                i64::from(multiplier),
                                i64::from(shift),
                                double_round,
                            ) + i64::from(zp),
                        )
                        .clamp(-128, 127);
                    assert_eq!(
                        i64::from(q.apply(value, 5)),
                        want,
                        "{value}·{multiplier}>>{shift}"
                    );
                }
            }
        }
    }
}
