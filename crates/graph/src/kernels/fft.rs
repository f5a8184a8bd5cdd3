//! FFT2D and RFFT2D (EXT-FFT, f32): the direct discrete Fourier transform of TOSA's
//! pseudocode, summed in f64 with angles reduced exactly (`(iy·oy mod H)/H + (ix·ox mod W)/W` of
//! a turn, exact at quarter turns), rounded once. Both return (real, imaginary) as a struct of two tensors.

use super::{bad, int, one_of};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// The type of both results (validation also checks that the two match).
pub(crate) fn shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let a = ins[0];
    one_of(node, "input_real", a.dtype, &[DType::F32])?;
    if a.shape.len() != 3 {
        return Err(bad(node, format!("input {a} is not [N,H,W]")));
    }
    let (h, w) = (a.shape[1], a.shape[2]);
    if !h.is_power_of_two() || !w.is_power_of_two() || h > 8192 || w > 8192 {
        return Err(bad(
            node,
            format!("H {h} and W {w} must be powers of two up to 8192"),
        ));
    }
    let mut shape = a.shape.clone();
    if node.op == TosaOp::Fft2d {
        if ins[1] != a {
            return Err(bad(
                node,
                format!("input_imag {} differs from input_real {a}", ins[1]),
            ));
        }
    } else {
        shape[2] = w / 2 + 1;
    }
    let info = ValueInfo {
        dtype: DType::F32,
        shape,
    };
    if node.out.len() == 2 && node.out[1] != info {
        return Err(bad(
            node,
            format!("the imaginary result is {}, {info} expected", node.out[1]),
        ));
    }
    Ok(info)
}

fn dft(node: &Node, re: &Tensor, im: Option<&Tensor>, sign: f64) -> Result<Vec<Tensor>> {
    let out = &node.out[0];
    let [n, h, w] = [re.shape[0], re.shape[1], re.shape[2]];
    let ow = out.shape[2];
    let (mut vr, mut vi) = (
        Vec::with_capacity(out.elements()),
        Vec::with_capacity(out.elements()),
    );
    for b in 0..n {
        for oy in 0..h {
            for ox in 0..ow {
                let (mut sr, mut si) = (0.0, 0.0);
                for iy in 0..h {
                    for ix in 0..w {
                        let k = (b * h + iy) * w + ix;
                        let (xr, xi) = (re.get_f64(k), im.map_or(0.0, |t| t.get_f64(k)));
                        // The angle as the exact fraction turn/(h·w) of a turn.
                        let turn = ((iy * oy) % h * w + (ix * ox) % w * h) % (h * w);
                        let (s, c) = sin_cos_turn(turn, h * w);
                        let s = sign * s;
                        sr += xr * c + xi * s;
                        si += -xr * s + xi * c;
                    }
                }
                vr.push(out.dtype.round_float(sr));
                vi.push(out.dtype.round_float(si));
            }
        }
    }
    Ok(vec![
        Tensor::new(out.dtype, out.shape.clone(), Values::Float(vr))?,
        Tensor::new(out.dtype, out.shape.clone(), Values::Float(vi))?,
    ])
}

/// `(sin, cos)` of `2π·k/n` (`k < n`), exact at multiples of a quarter turn, so that the
/// results TOSA requires to be zero (an RFFT2D's imaginary part at its first and Nyquist
/// columns) are zero.
fn sin_cos_turn(k: usize, n: usize) -> (f64, f64) {
    if (4 * k).is_multiple_of(n) {
        return match 4 * k / n {
            0 => (0.0, 1.0),
            1 => (1.0, 0.0),
            2 => (0.0, -1.0),
            _ => (-1.0, 0.0),
        };
    }
    (2.0 * std::f64::consts::PI * k as f64 / n as f64).sin_cos()
}

pub fn fft2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let sign = if int(node, "inverse")? != 0 {
        -1.0
    } else {
        1.0
    };
    dft(node, ins[0], Some(ins[1]), sign)
}

pub fn rfft2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    dft(node, ins[0], None, 1.0)
}
