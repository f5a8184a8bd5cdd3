//! CONV2D, DEPTHWISE_CONV2D and MATMUL, reference loops: integer products accumulate exactly
//! (`(x − x_zp)·(w − w_zp)` for taps inside the image only; padded taps add nothing), float ones
//! in f64, rounded once to the result type (TOSA allows any order and wider accumulators).

use super::{ACC_FP16, ACC_FP32, ACC_INT32, ACC_INT48, bad, int, ints};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// The result type of `(input, weight)` element types, or `None` when TOSA has no such pair.
fn result_type(input: DType, weight: DType) -> Option<DType> {
    Some(match (input, weight) {
        (DType::I8, DType::I8) => DType::I32,
        (DType::I16, DType::I8) => DType::I48,
        (DType::F16, DType::F16) => DType::F16,
        (DType::Bf16, DType::Bf16) => DType::Bf16,
        (DType::F32, DType::F32) => DType::F32,
        (DType::Fp8E4m3, DType::Fp8E4m3) | (DType::Fp8E5m2, DType::Fp8E5m2) => DType::F16,
        _ => return None,
    })
}

fn zp(node: &Node, name: &str) -> Result<i64> {
    let t = node.attr(name)?;
    Ok(t.scalar_i64().unwrap_or_else(|| t.get_f64(0) as i64))
}

/// Geometry of a 2-D convolution.
struct Geometry {
    pad: [usize; 4],
    stride: [usize; 2],
    dilation: [usize; 2],
    out: [usize; 4],
}

fn geometry(node: &Node, input: &ValueInfo, kh: usize, kw: usize, oc: usize) -> Result<Geometry> {
    let (p, s, d) = (
        ints(node, "pad")?,
        ints(node, "stride")?,
        ints(node, "dilation")?,
    );
    if p.len() != 4 || s.len() != 2 || d.len() != 2 {
        return Err(bad(node, "pad [4], stride [2] and dilation [2] expected"));
    }
    if p.iter().any(|&v| !(0..=8192).contains(&v))
        || s.iter().chain(&d).any(|&v| !(1..=8192).contains(&v))
    {
        return Err(bad(
            node,
            format!("pad {p:?} ≥ 0, stride {s:?} and dilation {d:?} ≥ 1 (at most 8192)"),
        ));
    }
    let (ih, iw) = (input.shape[1] as i64, input.shape[2] as i64);
    let span_y = ih - 1 + p[0] + p[1] - (kh as i64 - 1) * d[0];
    let span_x = iw - 1 + p[2] + p[3] - (kw as i64 - 1) * d[1];
    if span_y < 0 || span_x < 0 || span_y % s[0] != 0 || span_x % s[1] != 0 {
        return Err(bad(
            node,
            format!(
                "the output size does not divide exactly ({span_y}/{}, {span_x}/{})",
                s[0], s[1]
            ),
        ));
    }
    Ok(Geometry {
        pad: [p[0] as usize, p[1] as usize, p[2] as usize, p[3] as usize],
        stride: [s[0] as usize, s[1] as usize],
        dilation: [d[0] as usize, d[1] as usize],
        out: [
            input.shape[0],
            (span_y / s[0] + 1) as usize,
            (span_x / s[1] + 1) as usize,
            oc,
        ],
    })
}

fn check_acc(node: &Node, input: DType) -> Result<()> {
    let acc = int(node, "acc_type")?;
    let ok = match input {
        DType::I8 => acc == ACC_INT32,
        DType::I16 => acc == ACC_INT48,
        DType::F16 => acc == ACC_FP16 || acc == ACC_FP32,
        DType::Fp8E4m3 | DType::Fp8E5m2 => acc == ACC_FP16,
        _ => acc == ACC_FP32,
    };
    if ok {
        Ok(())
    } else {
        Err(bad(
            node,
            format!("acc_type {acc} for {} input", input.name()),
        ))
    }
}

fn check_zps(node: &Node, input: DType, weight: DType, names: [&str; 2]) -> Result<()> {
    if input != DType::I8 && zp(node, names[0])? != 0 {
        return Err(bad(
            node,
            format!("{} must be 0 unless the input is i8", names[0]),
        ));
    }
    if weight != DType::I8 && zp(node, names[1])? != 0 {
        return Err(bad(
            node,
            format!("{} must be 0 unless the weights are i8", names[1]),
        ));
    }
    Ok(())
}

/// The result type.
pub(crate) fn shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let (a, b) = (ins[0], ins[1]);
    let out_t = result_type(a.dtype, b.dtype).ok_or_else(|| {
        bad(
            node,
            format!("no {} × {} variant", a.dtype.name(), b.dtype.name()),
        )
    })?;
    if node.op == TosaOp::Matmul {
        if a.shape.len() != 3
            || b.shape.len() != 3
            || a.shape[0] != b.shape[0]
            || a.shape[2] != b.shape[1]
        {
            return Err(bad(
                node,
                format!("A {a} and B {b} are not [N,H,C] and [N,C,W]"),
            ));
        }
        check_zps(node, a.dtype, b.dtype, ["a_zp", "b_zp"])?;
        // f16 inputs may give f16 or f32 results; the declared one decides.
        let dtype = match (a.dtype, node.out[0].dtype) {
            (DType::F16, DType::F32) => DType::F32,
            (DType::Bf16, _) => DType::F32,
            _ => out_t,
        };
        return Ok(ValueInfo {
            dtype,
            shape: vec![a.shape[0], a.shape[1], b.shape[2]],
        });
    }
    let bias = ins[2];
    if a.shape.len() != 4 || b.shape.len() != 4 || bias.shape.len() != 1 {
        return Err(bad(
            node,
            format!("input {a}, weight {b}, bias {bias}: ranks 4, 4, 1 expected"),
        ));
    }
    check_acc(node, a.dtype)?;
    check_zps(node, a.dtype, b.dtype, ["input_zp", "weight_zp"])?;
    // The bias has the result's type (i32 / i48 accumulators, or the float type).
    let bias_t = out_t;
    if bias.dtype != bias_t {
        return Err(bad(
            node,
            format!(
                "bias of type {}, {} expected",
                bias.dtype.name(),
                bias_t.name()
            ),
        ));
    }
    let (kh, kw, oc) = if node.op == TosaOp::Conv2d {
        if b.shape[3] != a.shape[3] {
            return Err(bad(
                node,
                format!("weight {b}'s IC differs from input {a}'s"),
            ));
        }
        (b.shape[1], b.shape[2], b.shape[0])
    } else {
        if b.shape[2] != a.shape[3] {
            return Err(bad(
                node,
                format!("weight {b}'s C differs from input {a}'s"),
            ));
        }
        (b.shape[0], b.shape[1], b.shape[2] * b.shape[3])
    };
    if bias.shape[0] != oc && bias.shape[0] != 1 {
        return Err(bad(
            node,
            format!("bias has {} entries, {oc} or 1 expected", bias.shape[0]),
        ));
    }
    let g = geometry(node, a, kh, kw, oc)?;
    Ok(ValueInfo {
        dtype: out_t,
        shape: g.out.to_vec(),
    })
}

/// `Σ` over taps for output position (n, oy, ox, oc): `tap(input index, weight index)`.
#[allow(clippy::too_many_arguments)]
fn conv_loop(
    input: &[usize],
    g: &Geometry,
    kh: usize,
    kw: usize,
    depthwise_m: Option<usize>,
    ic: usize,
    mut emit: impl FnMut(usize, &mut dyn FnMut(&mut dyn FnMut(usize, usize))),
) {
    let [n, oh, ow, oc] = g.out;
    let (ih, iw) = (input[1], input[2]);
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for o in 0..oc {
                    let out = ((b * oh + oy) * ow + ox) * oc + o;
                    emit(out, &mut |tap| {
                        for ky in 0..kh {
                            let y = (oy * g.stride[0] + ky * g.dilation[0]).wrapping_sub(g.pad[0]);
                            if y >= ih {
                                continue;
                            }
                            for kx in 0..kw {
                                let x =
                                    (ox * g.stride[1] + kx * g.dilation[1]).wrapping_sub(g.pad[2]);
                                if x >= iw {
                                    continue;
                                }
                                let pixel = ((b * ih + y) * iw + x) * ic;
                                match depthwise_m {
                                    None => {
                                        let wbase = ((o * kh + ky) * kw + kx) * ic;
                                        for c in 0..ic {
                                            tap(pixel + c, wbase + c);
                                        }
                                    }
                                    Some(m) => {
                                        // Output channel o = c·M + mm reads input channel c.
                                        let (c, mm) = (o / m, o % m);
                                        tap(pixel + c, ((ky * kw + kx) * ic + c) * m + mm);
                                    }
                                }
                            }
                        }
                    });
                }
            }
        }
    }
}

fn conv(node: &Node, ins: &[&Tensor], depthwise: bool) -> Result<Vec<Tensor>> {
    let (a, w, bias) = (ins[0], ins[1], ins[2]);
    let out = &node.out[0];
    let (kh, kw, oc, m) = if depthwise {
        (
            w.shape[0],
            w.shape[1],
            w.shape[2] * w.shape[3],
            Some(w.shape[3]),
        )
    } else {
        (w.shape[1], w.shape[2], w.shape[0], None)
    };
    let g = geometry(node, &a.info(), kh, kw, oc)?;
    let ic = a.shape[3];
    let bias_at = |o: usize| if bias.len() == 1 { 0 } else { o };
    let values = match (&a.values, &w.values) {
        (Values::Int(x), Values::Int(wv)) => {
            let (izp, wzp) = (zp(node, "input_zp")?, zp(node, "weight_zp")?);
            let bv = bias.ints();
            let mut v = vec![0i64; out.elements()];
            conv_loop(&a.shape, &g, kh, kw, m, ic, |o, each| {
                let mut acc = 0i64;
                each(&mut |i, k| acc = acc.wrapping_add((x[i] - izp) * (wv[k] - wzp)));
                let ch = o % oc;
                v[o] = out
                    .dtype
                    .wrap_int(acc.wrapping_add(bv.get(bias_at(ch)).copied().unwrap_or(0)));
            });
            Values::Int(v)
        }
        (Values::Float(x), Values::Float(wv)) => {
            let bv = bias.floats();
            let mut v = vec![0f64; out.elements()];
            conv_loop(&a.shape, &g, kh, kw, m, ic, |o, each| {
                let mut acc = 0f64;
                each(&mut |i, k| acc += x[i] * wv[k]);
                let ch = o % oc;
                v[o] = out
                    .dtype
                    .round_float(acc + bv.get(bias_at(ch)).copied().unwrap_or(0.0));
            });
            Values::Float(v)
        }
        _ => return Err(bad(node, "input and weight of mixed kinds")),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

pub fn conv2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    conv(node, ins, false)
}

pub fn depthwise_conv2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    conv(node, ins, true)
}

pub fn matmul(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let (a, b) = (ins[0], ins[1]);
    let out = &node.out[0];
    let (n, h, c, w) = (a.shape[0], a.shape[1], a.shape[2], b.shape[2]);
    let values = match (&a.values, &b.values) {
        (Values::Int(x), Values::Int(y)) => {
            let (azp, bzp) = (zp(node, "a_zp")?, zp(node, "b_zp")?);
            let mut v = Vec::with_capacity(n * h * w);
            for bi in 0..n {
                for i in 0..h {
                    for j in 0..w {
                        let mut acc = 0i64;
                        for k in 0..c {
                            acc = acc.wrapping_add(
                                (x[(bi * h + i) * c + k] - azp) * (y[(bi * c + k) * w + j] - bzp),
                            );
                        }
                        v.push(out.dtype.wrap_int(acc));
                    }
                }
            }
            Values::Int(v)
        }
        (Values::Float(x), Values::Float(y)) => {
            let mut v = Vec::with_capacity(n * h * w);
            for bi in 0..n {
                for i in 0..h {
                    for j in 0..w {
                        let mut acc = 0f64;
                        for k in 0..c {
                            acc += x[(bi * h + i) * c + k] * y[(bi * c + k) * w + j];
                        }
                        v.push(out.dtype.round_float(acc));
                    }
                }
            }
            Values::Float(v)
        }
        _ => return Err(bad(node, "A and B of mixed kinds")),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}
