//! Reference kernels for the TOSA operators, one module per family, and [`validate`], the
//! per-operator checks (`ERROR_IF`s, type combinations, result shapes) that decoding runs on
//! every node. Kernels transliterate the TOSA 1.0 pseudocode on widened values (see `dtype`):
//! integers exact (wrapping where TOSA calls overflow unpredictable), floats computed in f64 and
//! rounded once to the declared type. A kernel never indexes out of bounds for any input that
//! passed [`validate`]; data-dependent indices (GATHER, SCATTER, TABLE) are range-checked.

pub mod conv;
pub mod data;
pub mod elementwise;
pub mod fft;
pub mod pool;
pub mod quant;
pub mod reduce;

use crate::dtype::DType;
use crate::error::{GraphError, Result};
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// `nan_mode` PROPAGATE.
pub const NAN_PROPAGATE: i64 = 1;
/// `nan_mode` IGNORE.
pub const NAN_IGNORE: i64 = 2;
/// `acc_type` values.
pub const ACC_INT32: i64 = 1;
pub const ACC_FP16: i64 = 2;
pub const ACC_FP32: i64 = 3;
pub const ACC_INT48: i64 = 4;

/// An `ERROR_IF` or type-table violation of `node`'s operator.
pub(crate) fn bad(node: &Node, message: impl Into<String>) -> GraphError {
    GraphError::new(format!("TOSA {}: ERROR_IF", node.op.name()), message)
}

/// An integer attribute's values.
pub(crate) fn ints(node: &Node, name: &str) -> Result<Vec<i64>> {
    let t = node.attr(name)?;
    match &t.values {
        crate::dtype::Values::Int(v) => Ok(v.clone()),
        crate::dtype::Values::Bool(v) => Ok(v.iter().map(|&b| i64::from(b)).collect()),
        crate::dtype::Values::Float(_) => Err(bad(node, format!("{name} must be integers"))),
    }
}

/// A scalar integer (or bool) attribute (a rank-0 constant, or the first element of a `[1]`).
pub(crate) fn int(node: &Node, name: &str) -> Result<i64> {
    ints(node, name)?
        .first()
        .copied()
        .ok_or_else(|| bad(node, format!("{name} is empty")))
}

/// A zero-point operand's value: a `[1]` (or rank-0) constant of the input's type, integer or
/// float (floats' zero points must be 0 and are read as numbers).
pub(crate) fn zero_point(node: &Node, name: &str) -> Result<i64> {
    let t = node.attr(name)?;
    Ok(t.scalar_i64().unwrap_or_else(|| t.get_f64(0) as i64))
}

/// `max` per TOSA's `apply_max_s` with a NaN mode (floats).
pub(crate) fn fmax(a: f64, b: f64, nan_mode: i64) -> f64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => a,
        (true, false) => {
            if nan_mode == NAN_IGNORE {
                b
            } else {
                a
            }
        }
        (false, true) => {
            if nan_mode == NAN_IGNORE {
                a
            } else {
                b
            }
        }
        _ => {
            if a >= b {
                a
            } else {
                b
            }
        }
    }
}

/// `min` per TOSA's `apply_min_s` with a NaN mode (floats).
pub(crate) fn fmin(a: f64, b: f64, nan_mode: i64) -> f64 {
    -fmax(-a, -b, nan_mode)
}

/// The checks of `node` given its inputs' types; its declared result is `node.out[0]`.
pub fn validate(node: &Node, ins: &[&ValueInfo]) -> Result<()> {
    if node.op.kernel().is_none() {
        return Err(GraphError::new(
            "Tessera",
            format!("TOSA {} is not implemented yet", node.op.name()),
        ));
    }
    let out = &node.out[0];
    let expected = match node.op {
        TosaOp::ArgMax
        | TosaOp::ReduceAll
        | TosaOp::ReduceAny
        | TosaOp::ReduceMax
        | TosaOp::ReduceMin
        | TosaOp::ReduceProduct
        | TosaOp::ReduceSum => reduce::shape(node, ins[0])?,
        TosaOp::AvgPool2d | TosaOp::MaxPool2d => pool::shape(node, ins[0])?,
        TosaOp::Conv2d | TosaOp::DepthwiseConv2d | TosaOp::Matmul => conv::shape(node, ins)?,
        TosaOp::Conv3d => conv::conv3d_shape(node, ins)?,
        TosaOp::TransposeConv2d => conv::transpose_conv2d_shape(node, ins)?,
        TosaOp::Resize => pool::resize_shape(node, ins[0])?,
        TosaOp::Fft2d | TosaOp::Rfft2d => fft::shape(node, ins)?,
        TosaOp::Table | TosaOp::Rescale => quant::shape(node, ins[0])?,
        TosaOp::Concat
        | TosaOp::Pad
        | TosaOp::Reshape
        | TosaOp::Reverse
        | TosaOp::Slice
        | TosaOp::Tile
        | TosaOp::Transpose
        | TosaOp::Gather
        | TosaOp::Scatter => data::shape(node, ins)?,
        _ => elementwise::shape(node, ins)?,
    };
    if expected.shape != out.shape {
        return Err(bad(
            node,
            format!("the result is {out}, its operands make {expected}"),
        ));
    }
    if expected.dtype != out.dtype {
        return Err(bad(
            node,
            format!(
                "the result's element type is {}, the operator's is {}",
                out.dtype.name(),
                expected.dtype.name()
            ),
        ));
    }
    Ok(())
}

/// For each position of `out` (row-major), the position of `inp` that broadcasts to it (dims of
/// size 1 repeat). Ranks must be equal.
pub(crate) fn broadcast_map(out: &[usize], inp: &[usize]) -> Vec<usize> {
    let n: usize = out.iter().product();
    let rank = out.len();
    let mut strides = vec![0usize; rank];
    let mut s = 1;
    for d in (0..rank).rev() {
        strides[d] = if inp.get(d) == Some(&1) { 0 } else { s };
        s *= inp.get(d).copied().unwrap_or(1);
    }
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; rank];
    for _ in 0..n {
        map.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    map
}

/// Row-major strides of `shape`.
pub(crate) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Whether `t` is one of `allowed`.
pub(crate) fn one_of(node: &Node, what: &str, t: DType, allowed: &[DType]) -> Result<()> {
    if allowed.contains(&t) {
        Ok(())
    } else {
        Err(bad(
            node,
            format!(
                "{what} of type {} (the operator takes {})",
                t.name(),
                allowed
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }
}
