//! Reductions along one axis (the result keeps the rank with that dimension 1) and ARGMAX (the
//! result drops the axis; a rank-1 input gives `[1]`, as converters write TOSA's rank 0).

use super::{NAN_IGNORE, NAN_PROPAGATE, bad, fmax, fmin, int, one_of};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// The result type.
pub(crate) fn shape(node: &Node, a: &ValueInfo) -> Result<ValueInfo> {
    let axis = int(node, "axis")?;
    if axis < 0 || axis as usize >= a.shape.len() {
        return Err(bad(
            node,
            format!("axis {axis} of a rank-{} input", a.shape.len()),
        ));
    }
    let axis = axis as usize;
    let floats = [DType::F16, DType::Bf16, DType::F32];
    let dtype = match node.op {
        TosaOp::ReduceAll | TosaOp::ReduceAny => {
            one_of(node, "input", a.dtype, &[DType::Bool])?;
            DType::Bool
        }
        TosaOp::ReduceMax | TosaOp::ReduceMin => {
            let ok: Vec<DType> = [DType::I8, DType::I16, DType::I32]
                .iter()
                .chain(&floats)
                .copied()
                .collect();
            one_of(node, "input", a.dtype, &ok)?;
            a.dtype
        }
        TosaOp::ReduceSum => {
            let ok: Vec<DType> = std::iter::once(DType::I32).chain(floats).collect();
            one_of(node, "input", a.dtype, &ok)?;
            a.dtype
        }
        TosaOp::ReduceProduct => {
            one_of(node, "input", a.dtype, &floats)?;
            a.dtype
        }
        TosaOp::ArgMax => {
            // EXT-FP8E4M3 / EXT-FP8E5M2 add their types (fp8 → i32).
            let fp8 = [DType::Fp8E4m3, DType::Fp8E5m2];
            let ok: Vec<DType> = [DType::I8, DType::I16]
                .iter()
                .chain(&floats)
                .chain(&fp8)
                .copied()
                .collect();
            one_of(node, "input", a.dtype, &ok)?;
            let mut shape = a.shape.clone();
            shape.remove(axis);
            if shape.is_empty() {
                shape.push(1);
            }
            return Ok(ValueInfo {
                dtype: DType::I32,
                shape,
            });
        }
        _ => return Err(bad(node, "internal error: not a reduction")),
    };
    let mut shape = a.shape.clone();
    shape[axis] = 1;
    Ok(ValueInfo { dtype, shape })
}

/// (outer, axis length, inner) of reducing `shape` along `axis`.
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// Folds every run along the axis with `f` (starting from each run's first element).
fn fold<T: Copy>(x: &[T], shape: &[usize], axis: usize, f: impl Fn(T, T) -> T) -> Vec<T> {
    let (outer, n, inner) = split(shape, axis);
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let mut acc = x[base];
            for k in 1..n {
                acc = f(acc, x[base + k * inner]);
            }
            out.push(acc);
        }
    }
    out
}

fn reduce(
    node: &Node,
    a: &Tensor,
    ints: impl Fn(i64, i64) -> i64,
    floats: impl Fn(f64, f64) -> f64,
    bools: impl Fn(bool, bool) -> bool,
) -> Result<Vec<Tensor>> {
    let axis = int(node, "axis")? as usize;
    let out = &node.out[0];
    let values = match &a.values {
        Values::Int(x) => Values::Int(
            fold(x, &a.shape, axis, ints)
                .into_iter()
                .map(|v| out.dtype.wrap_int(v))
                .collect(),
        ),
        Values::Float(x) => Values::Float(
            fold(x, &a.shape, axis, floats)
                .into_iter()
                .map(|v| out.dtype.round_float(v))
                .collect(),
        ),
        Values::Bool(x) => Values::Bool(fold(x, &a.shape, axis, bools)),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

fn nan_mode(node: &Node) -> Result<i64> {
    let m = int(node, "nan_mode")?;
    if m != NAN_PROPAGATE && m != NAN_IGNORE {
        return Err(bad(node, format!("nan_mode {m}")));
    }
    Ok(m)
}

pub fn reduce_all(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    reduce(node, ins[0], |a, _| a, |a, _| a, |a, b| a && b)
}

pub fn reduce_any(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    reduce(node, ins[0], |a, _| a, |a, _| a, |a, b| a || b)
}

pub fn reduce_max(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let m = nan_mode(node)?;
    reduce(node, ins[0], i64::max, |a, b| fmax(a, b, m), |a, _| a)
}

pub fn reduce_min(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let m = nan_mode(node)?;
    reduce(node, ins[0], i64::min, |a, b| fmin(a, b, m), |a, _| a)
}

/// Float sums and products accumulate in f64 and round once (more precise than TOSA's
/// dot-product bound asks).
pub fn reduce_sum(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    reduce(node, ins[0], i64::wrapping_add, |a, b| a + b, |a, _| a)
}

pub fn reduce_product(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    reduce(node, ins[0], i64::wrapping_mul, |a, b| a * b, |a, _| a)
}

/// The first index of the largest value; NaN counts as the largest with PROPAGATE and as the
/// smallest with IGNORE.
pub fn argmax(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let axis = int(node, "axis")? as usize;
    let m = nan_mode(node)?;
    let out = &node.out[0];
    let (outer, n, inner) = split(&a.shape, axis);
    let mut idx = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let key = |k: usize| {
                let v = a.get_f64(base + k * inner);
                if v.is_nan() {
                    if m == NAN_PROPAGATE {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    }
                } else {
                    v
                }
            };
            let nan_at = |k: usize| a.get_f64(base + k * inner).is_nan();
            let mut best = 0usize;
            for k in 1..n {
                let (kb, kk) = (key(best), key(k));
                // A NaN beats an infinity under PROPAGATE; under IGNORE any number beats a NaN.
                let better = kk > kb
                    || (kk == kb && m == NAN_PROPAGATE && nan_at(k) && !nan_at(best))
                    || (kk == kb && m == NAN_IGNORE && nan_at(best) && !nan_at(k));
                if better {
                    best = k;
                }
            }
            idx.push(best as i64);
        }
    }
    Ok(vec![Tensor::new(
        out.dtype,
        out.shape.clone(),
        Values::Int(idx),
    )?])
}
