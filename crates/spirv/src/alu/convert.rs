//! Conversions between scalar kinds (`Conv`): integer widths, integer ↔ float, float widths,
//! with the rounding and saturation rules of the module above.

use super::*;

/// Conversions between scalar kinds. `from`/`to` are bit widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// Zero-extend or truncate.
    UToU,
    /// Sign-extend or truncate.
    SToS,
    FToU,
    FToS,
    UToF,
    SToF,
    FToF,
    /// `FToF` decorated `FPRoundingMode` RTZ (1), RTP (2) or RTN (3).
    FToFDirected(u8),
    /// `FToF` to a float8 type decorated `SaturatedToLargestFloat8NormalConversionEXT`: values
    /// beyond the largest normal value (infinities included) become it, with their sign; NaN
    /// stays NaN.
    FToFSat,
}

#[inline(always)]
pub fn conv(op: Conv, from: u8, to: u8, a: u64) -> u64 {
    match op {
        Conv::UToU => trunc(a, to),
        Conv::SToS => trunc(sext(a, from) as u64, to),
        Conv::FToU => {
            let x = f_get(from, a);
            let max = if to >= 64 { u64::MAX } else { (1u64 << to) - 1 };
            // `as` saturates and maps NaN to 0: no UB, no panic.
            (x as u64).min(max)
        }
        Conv::FToS => {
            let x = f_get(from, a);
            let (min, max) = if to >= 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (to - 1)), (1i64 << (to - 1)) - 1)
            };
            trunc((x as i64).clamp(min, max) as u64, to)
        }
        Conv::UToF => match to {
            32 => u64::from((a as f32).to_bits()),
            16 => u64::from(f16::from_f32(a as f32).to_bits()),
            64 => (a as f64).to_bits(),
            _ => f_put(to, f64_rounded_to_odd(a)),
        },
        Conv::SToF => {
            let x = sext(a, from);
            match to {
                32 => u64::from((x as f32).to_bits()),
                16 => u64::from(f16::from_f32(x as f32).to_bits()),
                64 => (x as f64).to_bits(),
                _ => {
                    let magnitude = f64_rounded_to_odd(x.unsigned_abs());
                    f_put(to, if x < 0 { -magnitude } else { magnitude })
                }
            }
        }
        Conv::FToF => {
            if from == to {
                a
            } else {
                f_put(to, f_get(from, a))
            }
        }
        Conv::FToFDirected(dir) => f_put_directed(to, f_get(from, a), dir),
        Conv::FToFSat => {
            let v = f_get(from, a);
            let max = match to {
                W_E4M3 => 448.0,
                W_E5M2 => 57344.0,
                _ => f64::INFINITY,
            };
            f_put(to, if v.is_nan() { v } else { v.clamp(-max, max) })
        }
    }
}

/// `m` as an f64 rounded to odd (toward zero, the last bit set when a bit was dropped): a
/// conversion from it to a format of at most 51 bits then rounds as one from `m` would
/// (`as f64` rounds to nearest, and a second rounding could land on the other side of a tie).
fn f64_rounded_to_odd(m: u64) -> f64 {
    let shift = 11u32.saturating_sub(m.leading_zeros());
    if shift == 0 {
        return m as f64;
    }
    let kept = (m >> shift) | u64::from(m & ((1 << shift) - 1) != 0);
    // Below 2^53: exact; times a power of two: exact.
    kept as f64 * f64::from(1u32 << shift)
}
