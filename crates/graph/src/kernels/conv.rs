//! CONV2D, DEPTHWISE_CONV2D and MATMUL, reference loops: integer products accumulate exactly
//! (`(x − x_zp)·(w − w_zp)` for taps inside the image only; padded taps add nothing); float ones
//! as the pseudocode does: in the pseudocode's tap order, each product and each sum rounded to
//! `acc_t` (`acc_type`, or the result type for MATMUL), then cast to the result type and the bias
//! added in it. (TOSA also allows other orders and wider accumulators; this is the spec's own.)

use super::{ACC_FP16, ACC_FP32, ACC_INT32, ACC_INT48, bad, int, ints, zero_point as zp};
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

/// MATMUL's result type of `(A, B)` element types: the convolutions' pairs, except that its
/// 16-bit variant (EXT-INT16) is i16 × i16 → i48, not i16 × i8.
fn matmul_result_type(a: DType, b: DType) -> Option<DType> {
    match (a, b) {
        (DType::I16, DType::I16) => Some(DType::I48),
        (DType::I16, _) => None,
        _ => result_type(a, b),
    }
}

/// Geometry of a 2-D convolution.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub(crate) pad: [usize; 4],
    pub(crate) stride: [usize; 2],
    pub(crate) dilation: [usize; 2],
    pub(crate) out: [usize; 4],
}

impl Geometry {
    /// Calls `tap(ky, kx, y, x)` for each tap of output position `(oy, ox)` that reads inside
    /// an `ih × iw` input (input row `y`, column `x`), in the pseudocode's (ky, kx) order.
    #[inline]
    pub(crate) fn each_tap(
        &self,
        (ih, iw): (usize, usize),
        (kh, kw): (usize, usize),
        oy: usize,
        ox: usize,
        mut tap: impl FnMut(usize, usize, usize, usize),
    ) {
        for ky in 0..kh {
            let y = (oy * self.stride[0] + ky * self.dilation[0]).wrapping_sub(self.pad[0]);
            if y >= ih {
                continue;
            }
            for kx in 0..kw {
                let x = (ox * self.stride[1] + kx * self.dilation[1]).wrapping_sub(self.pad[2]);
                if x < iw {
                    tap(ky, kx, y, x);
                }
            }
        }
    }
}

pub(crate) fn geometry(
    node: &Node,
    input: &ValueInfo,
    kh: usize,
    kw: usize,
    oc: usize,
) -> Result<Geometry> {
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

/// The float accumulator type `acc_type` names (FP16 or FP32).
fn float_acc(node: &Node) -> Result<DType> {
    Ok(if int(node, "acc_type")? == ACC_FP16 {
        DType::F16
    } else {
        DType::F32
    })
}

/// `acc + a·b` as the pseudocode computes it: the product and the sum each rounded to `acc_t`
/// (exact in f64 before rounding, so each is the correctly rounded `acc_t` operation).
fn mac(acc_t: DType, acc: f64, a: f64, b: f64) -> f64 {
    acc_t.round_float(acc + acc_t.round_float(a * b))
}

/// The result of a float dot product: `acc` cast to `out_t`, then the bias added in `out_t`.
fn finish(out_t: DType, acc: f64, bias: f64) -> f64 {
    out_t.round_float(out_t.round_float(acc) + bias)
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

/// What every convolution checks: a TOSA (input, weight) type pair, input and weight of rank
/// `rank` with the weight's dimension `ic_axis` matching the input's channels, `acc_type`, the
/// zero points, and a rank-1 bias of the result type with `oc(weight shape)` entries or 1.
/// Returns the result type.
fn conv_operands(
    node: &Node,
    ins: &[&ValueInfo],
    rank: usize,
    ic_axis: usize,
    oc: fn(&[usize]) -> usize,
) -> Result<DType> {
    let (a, w, bias) = (ins[0], ins[1], ins[2]);
    let out_t = result_type(a.dtype, w.dtype).ok_or_else(|| {
        bad(
            node,
            format!("no {} × {} variant", a.dtype.name(), w.dtype.name()),
        )
    })?;
    if a.shape.len() != rank
        || w.shape.len() != rank
        || bias.shape.len() != 1
        || w.shape[ic_axis] != a.shape[rank - 1]
    {
        return Err(bad(
            node,
            format!(
                "input {a}, weight {w}, bias {bias}: ranks {rank}, {rank}, 1 with matching channels expected"
            ),
        ));
    }
    check_acc(node, a.dtype)?;
    check_zps(node, a.dtype, w.dtype, ["input_zp", "weight_zp"])?;
    // The bias has the result's type (i32 / i48 accumulators, or the float type).
    let oc = oc(&w.shape);
    if bias.dtype != out_t || (bias.shape[0] != oc && bias.shape[0] != 1) {
        return Err(bad(
            node,
            format!(
                "bias {bias}: {} with {oc} or 1 entries expected",
                out_t.name()
            ),
        ));
    }
    Ok(out_t)
}

/// The result type.
pub(crate) fn shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let (a, b) = (ins[0], ins[1]);
    let pair = if node.op == TosaOp::Matmul {
        matmul_result_type
    } else {
        result_type
    };
    let out_t = pair(a.dtype, b.dtype).ok_or_else(|| {
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
    let (kh, kw, oc) = if node.op == TosaOp::Conv2d {
        conv_operands(node, ins, 4, 3, |w| w[0])?;
        (b.shape[1], b.shape[2], b.shape[0])
    } else {
        conv_operands(node, ins, 4, 2, |w| w[2] * w[3])?;
        (b.shape[0], b.shape[1], b.shape[2] * b.shape[3])
    };
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
                        g.each_tap((ih, iw), (kh, kw), oy, ox, |ky, kx, y, x| {
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
                        });
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
            let acc_t = float_acc(node)?;
            let mut v = vec![0f64; out.elements()];
            conv_loop(&a.shape, &g, kh, kw, m, ic, |o, each| {
                let mut acc = 0f64;
                each(&mut |i, k| acc = mac(acc_t, acc, x[i], wv[k]));
                let ch = o % oc;
                v[o] = finish(out.dtype, acc, bv.get(bias_at(ch)).copied().unwrap_or(0.0));
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
                            acc = mac(
                                out.dtype,
                                acc,
                                x[(bi * h + i) * c + k],
                                y[(bi * c + k) * w + j],
                            );
                        }
                        v.push(acc);
                    }
                }
            }
            Values::Float(v)
        }
        _ => return Err(bad(node, "A and B of mixed kinds")),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

/// CONV3D: input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC], pad [6] (front, back, top, bottom,
/// left, right), stride [3], dilation [3].
pub(crate) fn conv3d_shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let out_t = conv_operands(node, ins, 5, 4, |w| w[0])?;
    let (a, w) = (ins[0], ins[1]);
    let (p, s, d) = (
        ints(node, "pad")?,
        ints(node, "stride")?,
        ints(node, "dilation")?,
    );
    if p.len() != 6 || s.len() != 3 || d.len() != 3 {
        return Err(bad(node, "pad [6], stride [3] and dilation [3] expected"));
    }
    if p.iter().any(|&v| !(0..=8192).contains(&v))
        || s.iter().chain(&d).any(|&v| !(1..=8192).contains(&v))
    {
        return Err(bad(
            node,
            format!("pad {p:?}, stride {s:?}, dilation {d:?}"),
        ));
    }
    let mut shape = vec![a.shape[0]];
    for k in 0..3 {
        let span = a.shape[1 + k] as i64 - 1 + p[2 * k] + p[2 * k + 1]
            - (w.shape[1 + k] as i64 - 1) * d[k];
        if span < 0 || span % s[k] != 0 {
            return Err(bad(
                node,
                format!("the output size does not divide exactly ({span}/{})", s[k]),
            ));
        }
        shape.push((span / s[k] + 1) as usize);
    }
    shape.push(w.shape[0]);
    Ok(ValueInfo {
        dtype: out_t,
        shape,
    })
}

pub fn conv3d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let (a, w, bias) = (ins[0], ins[1], ins[2]);
    let out = &node.out[0];
    let (p, s, d) = (
        ints(node, "pad")?,
        ints(node, "stride")?,
        ints(node, "dilation")?,
    );
    let [n, id, ih, iw, ic] = [a.shape[0], a.shape[1], a.shape[2], a.shape[3], a.shape[4]];
    let [oc, kd, kh, kw] = [w.shape[0], w.shape[1], w.shape[2], w.shape[3]];
    let [od, oh, ow] = [out.shape[1], out.shape[2], out.shape[3]];
    let (izp, wzp) = if a.dtype.is_int() {
        (zp(node, "input_zp")?, zp(node, "weight_zp")?)
    } else {
        (0, 0)
    };
    let at = |o: usize, k: usize, i: usize| -> Option<usize> {
        let c = (o * s[i] as usize + k * d[i] as usize).checked_sub(p[2 * i] as usize)?;
        (c < [id, ih, iw][i]).then_some(c)
    };
    let mut ints_out = Vec::new();
    let mut floats_out = Vec::new();
    let acc_t = if a.dtype.is_int() {
        out.dtype
    } else {
        float_acc(node)?
    };
    for b in 0..n {
        for z in 0..od {
            for y in 0..oh {
                for x in 0..ow {
                    for o in 0..oc {
                        let (mut ai, mut af) = (0i64, 0f64);
                        for dz in 0..kd {
                            let Some(iz) = at(z, dz, 0) else { continue };
                            for dy in 0..kh {
                                let Some(iy) = at(y, dy, 1) else { continue };
                                for dx in 0..kw {
                                    let Some(ix) = at(x, dx, 2) else { continue };
                                    let pix = (((b * id + iz) * ih + iy) * iw + ix) * ic;
                                    let wb = (((o * kd + dz) * kh + dy) * kw + dx) * ic;
                                    for c in 0..ic {
                                        match (&a.values, &w.values) {
                                            (Values::Int(xv), Values::Int(wv)) => {
                                                ai = ai.wrapping_add(
                                                    (xv[pix + c] - izp) * (wv[wb + c] - wzp),
                                                )
                                            }
                                            _ => {
                                                af = mac(
                                                    acc_t,
                                                    af,
                                                    a.get_f64(pix + c),
                                                    w.get_f64(wb + c),
                                                )
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        let bi = if bias.len() == 1 { 0 } else { o };
                        if a.dtype.is_int() {
                            ints_out.push(out.dtype.wrap_int(
                                ai.wrapping_add(bias.ints().get(bi).copied().unwrap_or(0)),
                            ));
                        } else {
                            floats_out.push(finish(out.dtype, af, bias.get_f64(bi)));
                        }
                    }
                }
            }
        }
    }
    let values = if a.dtype.is_int() {
        Values::Int(ints_out)
    } else {
        Values::Float(floats_out)
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

/// TRANSPOSE_CONV2D: `OH = (IH − 1)·stride_y + out_pad_top + out_pad_bottom + KH` (and so for
/// the width); every input pixel scatters `input · weight` into the output window it strides to.
pub(crate) fn transpose_conv2d_shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let out_t = conv_operands(node, ins, 4, 3, |w| w[0])?;
    let (a, w) = (ins[0], ins[1]);
    let (p, s) = (ints(node, "out_pad")?, ints(node, "stride")?);
    if p.len() != 4 || s.len() != 2 || s.iter().any(|&v| !(1..=8192).contains(&v)) {
        return Err(bad(node, "out_pad [4] and stride [2] (≥ 1) expected"));
    }
    let (kh, kw) = (w.shape[1] as i64, w.shape[2] as i64);
    if p[0] <= -kh || p[1] <= -kh || p[2] <= -kw || p[3] <= -kw || p.iter().any(|&v| v > 8192) {
        return Err(bad(node, format!("out_pad {p:?} must exceed −kernel")));
    }
    let oh = (a.shape[1] as i64 - 1) * s[0] + p[0] + p[1] + kh;
    let ow = (a.shape[2] as i64 - 1) * s[1] + p[2] + p[3] + kw;
    if oh < 1 || ow < 1 {
        return Err(bad(node, format!("output size {oh}×{ow}")));
    }
    Ok(ValueInfo {
        dtype: out_t,
        shape: vec![a.shape[0], oh as usize, ow as usize, w.shape[0]],
    })
}

pub fn transpose_conv2d(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let (a, w, bias) = (ins[0], ins[1], ins[2]);
    let out = &node.out[0];
    let (p, s) = (ints(node, "out_pad")?, ints(node, "stride")?);
    let [n, ih, iw, ic] = [a.shape[0], a.shape[1], a.shape[2], a.shape[3]];
    let [oc, kh, kw] = [w.shape[0], w.shape[1], w.shape[2]];
    let [oh, ow] = [out.shape[1], out.shape[2]];
    let (izp, wzp) = if a.dtype.is_int() {
        (zp(node, "input_zp")?, zp(node, "weight_zp")?)
    } else {
        (0, 0)
    };
    let total = out.elements();
    let mut ai = vec![0i64; total];
    let mut af = vec![0f64; total];
    let acc_t = if a.dtype.is_int() {
        out.dtype
    } else {
        float_acc(node)?
    };
    for (k, (i, f)) in ai.iter_mut().zip(af.iter_mut()).enumerate() {
        let o = k % oc;
        let bi = if bias.len() == 1 { 0 } else { o };
        *i = bias.ints().get(bi).copied().unwrap_or(0);
        *f = bias.get_f64(bi);
    }
    for b in 0..n {
        for iy in 0..ih {
            for ix in 0..iw {
                for ky in 0..kh {
                    let oy = (iy * s[0] as usize + ky) as i64 + p[0];
                    if oy < 0 || oy >= oh as i64 {
                        continue;
                    }
                    for kx in 0..kw {
                        let ox = (ix * s[1] as usize + kx) as i64 + p[2];
                        if ox < 0 || ox >= ow as i64 {
                            continue;
                        }
                        for o in 0..oc {
                            let dst = ((b * oh + oy as usize) * ow + ox as usize) * oc + o;
                            for c in 0..ic {
                                let src = ((b * ih + iy) * iw + ix) * ic + c;
                                let wi = ((o * kh + ky) * kw + kx) * ic + c;
                                match (&a.values, &w.values) {
                                    (Values::Int(xv), Values::Int(wv)) => {
                                        ai[dst] =
                                            ai[dst].wrapping_add((xv[src] - izp) * (wv[wi] - wzp))
                                    }
                                    _ => {
                                        af[dst] = mac(acc_t, af[dst], a.get_f64(src), w.get_f64(wi))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let values = if a.dtype.is_int() {
        Values::Int(ai.into_iter().map(|v| out.dtype.wrap_int(v)).collect())
    } else {
        Values::Float(af.into_iter().map(|v| out.dtype.round_float(v)).collect())
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}
