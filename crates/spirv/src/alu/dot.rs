//! Integer dot products (`idot`), kept exact as 128-bit sums so that saturation sees the
//! true value.

use super::*;

/// `x·y` exactly, as `hi·2^64 + lo` with `lo < 2^64` (`|x|, |y| ≤ 2^64`, so `|x·y| < 2^128`).
fn wide_mul(x: i128, y: i128) -> (i128, u128) {
    let mag = x.unsigned_abs() * y.unsigned_abs();
    let (mh, ml) = ((mag >> 64) as i128, mag & u128::from(u64::MAX));
    if (x < 0) != (y < 0) && mag != 0 {
        // -(mh·2^64 + ml) = (-mh - 1)·2^64 + (2^64 - ml) when ml > 0.
        if ml == 0 {
            (-mh, 0)
        } else {
            (-mh - 1, (1u128 << 64) - ml)
        }
    } else {
        (mh, ml)
    }
}

/// One lane of an integer dot product (see `ir::Op::IDot`): the sum (and accumulator) is kept
/// exactly as `hi·2^64 + lo`, so saturation sees the true value whatever the widths and signs.
#[allow(clippy::too_many_arguments)]
pub fn idot(
    w_in: u8,
    w_out: u8,
    a_signed: bool,
    b_signed: bool,
    sat_signed: bool,
    a: impl Iterator<Item = u64>,
    b: impl Iterator<Item = u64>,
    acc: Option<u64>,
) -> u64 {
    let ext = |x: u64, signed: bool| -> i128 {
        if signed {
            i128::from(sext(x, w_in))
        } else {
            i128::from(trunc(x, w_in))
        }
    };
    let (mut hi, mut lo) = (0i128, 0u128);
    for (x, y) in a.zip(b) {
        let (ph, pl) = wide_mul(ext(x, a_signed), ext(y, b_signed));
        hi += ph;
        lo += pl;
    }
    if let Some(acc) = acc {
        let acc = if sat_signed {
            i128::from(sext(acc, w_out))
        } else {
            i128::from(trunc(acc, w_out))
        };
        let (ph, pl) = wide_mul(acc, 1);
        hi += ph;
        lo += pl;
    }
    hi += (lo >> 64) as i128;
    let lo = lo as u64;
    if acc.is_none() {
        // No saturation: the low `w_out` bits.
        return trunc(lo, w_out);
    }
    // The total is hi·2^64 + lo; it fits an i128 exactly when hi is 0 or -1.
    let total: Option<i128> = match hi {
        0 => Some(i128::from(lo)),
        -1 => Some(i128::from(lo) - (1i128 << 64)),
        _ => None,
    };
    let (min, max) = if sat_signed {
        (-(1i128 << (w_out - 1)), (1i128 << (w_out - 1)) - 1)
    } else {
        (0, (1i128 << w_out) - 1)
    };
    let v = match total {
        Some(t) => t.clamp(min, max),
        None if hi > 0 => max,
        None => min,
    };
    trunc(v as u64, w_out)
}
