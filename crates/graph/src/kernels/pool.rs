//! Spatial operators over NHWC inputs: MAX_POOL2D and AVG_POOL2D (padded taps are skipped,
//! AVG_POOL2D divides by the count of real taps, integer averages scale by TOSA's
//! `reciprocal_scale`) and RESIZE (nearest and bilinear, TOSA's integer arithmetic).

use super::quant::{apply_scale_32, reciprocal_scale};
use super::{
    ACC_FP16, ACC_FP32, ACC_INT32, NAN_IGNORE, NAN_PROPAGATE, bad, fmax, int, ints, one_of,
    zero_point as zp,
};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// Level 8K's largest kernel and stride.
const MAX_KERNEL: i64 = 8192;

struct Window {
    ky: usize,
    kx: usize,
    sy: usize,
    sx: usize,
    top: usize,
    left: usize,
}

fn window(node: &Node, a: &ValueInfo) -> Result<(Window, [usize; 4])> {
    if a.shape.len() != 4 {
        return Err(bad(node, format!("input {a} is not rank 4 (NHWC)")));
    }
    let (k, s, p) = (
        ints(node, "kernel")?,
        ints(node, "stride")?,
        ints(node, "pad")?,
    );
    if k.len() != 2 || s.len() != 2 || p.len() != 4 {
        return Err(bad(node, "kernel [2], stride [2] and pad [4] expected"));
    }
    if k.iter().any(|&v| !(1..=MAX_KERNEL).contains(&v))
        || s.iter().any(|&v| !(1..=MAX_KERNEL).contains(&v))
    {
        return Err(bad(
            node,
            format!("kernel {k:?} / stride {s:?} outside 1..={MAX_KERNEL}"),
        ));
    }
    // pad = [top, bottom, left, right]; each below its kernel size.
    if p.iter().any(|&v| v < 0) || p[0] >= k[0] || p[1] >= k[0] || p[2] >= k[1] || p[3] >= k[1] {
        return Err(bad(
            node,
            format!("pad {p:?} must be ≥ 0 and below the kernel {k:?}"),
        ));
    }
    let (ih, iw) = (a.shape[1] as i64, a.shape[2] as i64);
    let span_y = ih + p[0] + p[1] - k[0];
    let span_x = iw + p[2] + p[3] - k[1];
    if span_y < 0 || span_x < 0 || span_y % s[0] != 0 || span_x % s[1] != 0 {
        return Err(bad(
            node,
            format!(
                "(IH + pads − kernel) / stride must divide exactly: {span_y}/{} and {span_x}/{}",
                s[0], s[1]
            ),
        ));
    }
    let oh = (span_y / s[0] + 1) as usize;
    let ow = (span_x / s[1] + 1) as usize;
    Ok((
        Window {
            ky: k[0] as usize,
            kx: k[1] as usize,
            sy: s[0] as usize,
            sx: s[1] as usize,
            top: p[0] as usize,
            left: p[2] as usize,
        },
        [a.shape[0], oh, ow, a.shape[3]],
    ))
}

/// The result type.
pub(crate) fn shape(node: &Node, a: &ValueInfo) -> Result<ValueInfo> {
    let (_, out) = window(node, a)?;
    let types = [
        DType::I8,
        DType::I16,
        DType::F16,
        DType::Bf16,
        DType::F32,
        DType::Fp8E4m3,
        DType::Fp8E5m2,
    ];
    one_of(node, "input", a.dtype, &types)?;
    if node.op == TosaOp::MaxPool2d {
        let m = int(node, "nan_mode")?;
        if m != NAN_PROPAGATE && m != NAN_IGNORE {
            return Err(bad(node, format!("nan_mode {m}")));
        }
    } else {
        let acc = int(node, "acc_type")?;
        let ok = match a.dtype {
            DType::I8 | DType::I16 => acc == ACC_INT32,
            DType::F16 => acc == ACC_FP16 || acc == ACC_FP32,
            DType::Fp8E4m3 | DType::Fp8E5m2 => acc == ACC_FP16,
            _ => acc == ACC_FP32,
        };
        if !ok {
            return Err(bad(
                node,
                format!("acc_type {acc} for {} input", a.dtype.name()),
            ));
        }
        let (izp, ozp) = (zp(node, "input_zp")?, zp(node, "output_zp")?);
        if a.dtype != DType::I8 && (izp != 0 || ozp != 0) {
            return Err(bad(node, "zero points must be 0 unless the type is i8"));
        }
    }
    Ok(ValueInfo {
        dtype: a.dtype,
        shape: out.to_vec(),
    })
}

/// Calls `f(output index, taps)` with the in-image input indices of every output position.
fn each_window(a: &Tensor, w: &Window, out: [usize; 4], mut f: impl FnMut(usize, &[usize])) {
    let [n, oh, ow, c] = out;
    let (ih, iw) = (a.shape[1], a.shape[2]);
    let mut taps = Vec::with_capacity(w.ky * w.kx);
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for ch in 0..c {
                    taps.clear();
                    for ky in 0..w.ky {
                        let y = (oy * w.sy + ky).wrapping_sub(w.top);
                        if y >= ih {
                            continue;
                        }
                        for kx in 0..w.kx {
                            let x = (ox * w.sx + kx).wrapping_sub(w.left);
                            if x < iw {
                                taps.push(((b * ih + y) * iw + x) * c + ch);
                            }
                        }
                    }
                    f(((b * oh + oy) * ow + ox) * c + ch, &taps);
                }
            }
        }
    }
}

pub fn max_pool2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let (w, out) = window(node, &a.info())?;
    let m = int(node, "nan_mode")?;
    let info = &node.out[0];
    let values = match &a.values {
        Values::Int(x) => {
            let mut v = vec![0i64; info.elements()];
            let lo = a.dtype.int_range().0;
            each_window(a, &w, out, |o, taps| {
                v[o] = taps.iter().map(|&i| x[i]).fold(lo, i64::max);
            });
            Values::Int(v)
        }
        Values::Float(x) => {
            let mut v = vec![0f64; info.elements()];
            each_window(a, &w, out, |o, taps| {
                v[o] = taps
                    .iter()
                    .map(|&i| x[i])
                    .fold(f64::NEG_INFINITY, |acc, y| fmax(acc, y, m));
            });
            Values::Float(v)
        }
        Values::Bool(_) => return Err(bad(node, "a bool input")),
    };
    Ok(vec![Tensor::new(info.dtype, info.shape.clone(), values)?])
}

pub fn avg_pool2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let (w, out) = window(node, &a.info())?;
    let info = &node.out[0];
    let (izp, ozp) = (zp(node, "input_zp")?, zp(node, "output_zp")?);
    let values = match &a.values {
        Values::Int(x) => {
            let mut v = vec![0i64; info.elements()];
            let t = a.dtype;
            each_window(a, &w, out, |o, taps| {
                let sum: i64 = taps.iter().map(|&i| x[i] - izp).sum();
                let (mult, shift) = reciprocal_scale(taps.len().max(1) as i64);
                let scaled = apply_scale_32(sum, mult, shift, false);
                v[o] = t.clip_int(scaled + ozp);
            });
            Values::Int(v)
        }
        Values::Float(x) => {
            let mut v = vec![0f64; info.elements()];
            each_window(a, &w, out, |o, taps| {
                let sum: f64 = taps.iter().map(|&i| x[i]).sum();
                v[o] = info.dtype.round_float(sum / taps.len().max(1) as f64);
            });
            Values::Float(v)
        }
        Values::Bool(_) => return Err(bad(node, "a bool input")),
    };
    Ok(vec![Tensor::new(info.dtype, info.shape.clone(), values)?])
}

/// RESIZE `mode` values.
const NEAREST: i64 = 1;
const BILINEAR: i64 = 2;

/// RESIZE's parameters: (mode, scale [y_n, y_d, x_n, x_d], offset [y, x], border [y, x]).
type ResizeParams = (i64, [i64; 4], [i64; 2], [i64; 2]);

fn resize_params(node: &Node) -> Result<ResizeParams> {
    let mode = int(node, "mode")?;
    let (s, o, b) = (
        ints(node, "scale")?,
        ints(node, "offset")?,
        ints(node, "border")?,
    );
    if s.len() != 4 || o.len() != 2 || b.len() != 2 {
        return Err(bad(node, "scale [4], offset [2] and border [2] expected"));
    }
    Ok((mode, [s[0], s[1], s[2], s[3]], [o[0], o[1]], [b[0], b[1]]))
}

/// The result type of RESIZE (TOSA 1.0's ERROR_IFs on scale, offset, border and sizes).
pub(crate) fn resize_shape(node: &Node, a: &ValueInfo) -> Result<ValueInfo> {
    if a.shape.len() != 4 {
        return Err(bad(node, format!("input {a} is not NHWC")));
    }
    let (mode, s, o, b) = resize_params(node)?;
    if mode != NEAREST && mode != BILINEAR {
        return Err(bad(node, format!("mode {mode}")));
    }
    if s.iter().any(|&v| v <= 0) || s[0] > 1 << 11 || s[2] > 1 << 11 {
        return Err(bad(
            node,
            format!("scale {s:?}: positive, numerators at most 2048"),
        ));
    }
    if s[1] >= 16 * s[0] || s[3] >= 16 * s[2] {
        return Err(bad(
            node,
            format!("scale {s:?}: denominators below 16× numerators"),
        ));
    }
    if o[0] < -s[0] || o[0] >= 16 * s[0] || o[1] < -s[2] || o[1] >= 16 * s[2] {
        return Err(bad(node, format!("offset {o:?} out of range")));
    }
    if b[0] < -16 * s[0] || b[0] >= s[0] || b[1] < -16 * s[2] || b[1] >= s[2] {
        return Err(bad(node, format!("border {b:?} out of range")));
    }
    let (ih, iw) = (a.shape[1] as i64, a.shape[2] as i64);
    let span_y = (ih - 1) * s[0] - o[0] + b[0];
    let span_x = (iw - 1) * s[2] - o[1] + b[1];
    if span_y < 0 || span_x < 0 || span_y % s[1] != 0 || span_x % s[3] != 0 {
        return Err(bad(
            node,
            format!(
                "the output size does not divide exactly ({span_y}/{}, {span_x}/{})",
                s[1], s[3]
            ),
        ));
    }
    let (oh, ow) = (span_y / s[1] + 1, span_x / s[3] + 1);
    if [oh, ow, ih, iw].iter().any(|&v| v >= 16384) {
        return Err(bad(node, "sizes must stay below 16384"));
    }
    let dtype = match (a.dtype, mode) {
        (DType::I8, BILINEAR) => DType::I32,
        (DType::I16, BILINEAR) => DType::I48,
        (DType::I8 | DType::I16 | DType::F16 | DType::Bf16 | DType::F32, _) => a.dtype,
        (other, _) => return Err(bad(node, format!("input of type {}", other.name()))),
    };
    Ok(ValueInfo {
        dtype,
        shape: vec![a.shape[0], oh as usize, ow as usize, a.shape[3]],
    })
}

/// RESIZE: integer bilinear results are scaled by `scale_y_n·scale_x_n` (a later RESCALE
/// normalises), exactly as TOSA's pseudocode; float ones interpolate in f64 and round once.
pub fn resize(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let out = &node.out[0];
    let (mode, s, o, _) = resize_params(node)?;
    let [n, ih, iw, c] = [a.shape[0], a.shape[1], a.shape[2], a.shape[3]];
    let [oh, ow] = [out.shape[1], out.shape[2]];
    let float = a.dtype.is_float();
    let mut iv = Vec::new();
    let mut fv = Vec::new();
    for b in 0..n {
        for oy in 0..oh {
            let y = oy as i64 * s[1] + o[0];
            let iy = y.div_euclid(s[0]);
            let ry = y - iy * s[0];
            let (iy0, iy1) = (
                iy.max(0) as usize,
                (iy + 1).min(ih as i64 - 1).max(0) as usize,
            );
            for ox in 0..ow {
                let x = ox as i64 * s[3] + o[1];
                let ix = x.div_euclid(s[2]);
                let rx = x - ix * s[2];
                let (ix0, ix1) = (
                    ix.max(0) as usize,
                    (ix + 1).min(iw as i64 - 1).max(0) as usize,
                );
                for ch in 0..c {
                    let at = |yy: usize, xx: usize| ((b * ih + yy) * iw + xx) * c + ch;
                    if mode == NEAREST {
                        let (yy, xx) = if float {
                            (
                                if ry as f64 / s[0] as f64 >= 0.5 {
                                    iy1
                                } else {
                                    iy0
                                },
                                if rx as f64 / s[2] as f64 >= 0.5 {
                                    ix1
                                } else {
                                    ix0
                                },
                            )
                        } else {
                            (
                                if 2 * ry >= s[0] { iy1 } else { iy0 },
                                if 2 * rx >= s[2] { ix1 } else { ix0 },
                            )
                        };
                        if float {
                            fv.push(a.get_f64(at(yy, xx)));
                        } else {
                            iv.push(a.ints().get(at(yy, xx)).copied().unwrap_or(0));
                        }
                    } else if float {
                        let (dy, dx) = (ry as f64 / s[0] as f64, rx as f64 / s[2] as f64);
                        let v = |yy, xx| a.get_f64(at(yy, xx));
                        let acc = v(iy0, ix0) * (1.0 - dy) * (1.0 - dx)
                            + v(iy0, ix1) * (1.0 - dy) * dx
                            + v(iy1, ix0) * dy * (1.0 - dx)
                            + v(iy1, ix1) * dy * dx;
                        fv.push(out.dtype.round_float(acc));
                    } else {
                        let v = |yy, xx| a.ints().get(at(yy, xx)).copied().unwrap_or(0);
                        let (uy, ux) = (s[0], s[2]);
                        let acc = v(iy0, ix0) * (uy - ry) * (ux - rx)
                            + v(iy0, ix1) * (uy - ry) * rx
                            + v(iy1, ix0) * ry * (ux - rx)
                            + v(iy1, ix1) * ry * rx;
                        iv.push(out.dtype.wrap_int(acc));
                    }
                }
            }
        }
    }
    let values = if float {
        Values::Float(fv)
    } else {
        Values::Int(iv)
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}
