//! Data movement: CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE, GATHER and SCATTER, all
//! as index maps over any element kind. Data-dependent indices (GATHER, SCATTER) outside the
//! values tensor are unpredictable in TOSA: Tessera reads 0 and drops the write.

use super::{bad, int, ints, strides};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

/// The result type.
pub(crate) fn shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    let a = ins.first().copied().ok_or_else(|| bad(node, "no inputs"))?;
    let rank = a.shape.len();
    let mut shape = a.shape.clone();
    match node.op {
        TosaOp::Concat => {
            let axis = int(node, "axis")?;
            if axis < 0 || axis as usize >= rank {
                return Err(bad(node, format!("axis {axis} of rank {rank}")));
            }
            let axis = axis as usize;
            shape[axis] = 0;
            for b in ins {
                if b.dtype != a.dtype || b.shape.len() != rank {
                    return Err(bad(
                        node,
                        format!("inputs {a} and {b} differ in type or rank"),
                    ));
                }
                for d in 0..rank {
                    if d != axis && b.shape[d] != a.shape[d] {
                        return Err(bad(node, format!("inputs {a} and {b} differ off the axis")));
                    }
                }
                shape[axis] += b.shape[axis];
            }
        }
        TosaOp::Pad => {
            let p = ints(node, "padding")?;
            if p.len() != 2 * rank || p.iter().any(|&v| !(0..=1 << 31).contains(&v)) {
                return Err(bad(
                    node,
                    format!("padding {p:?}: {} values ≥ 0 expected", 2 * rank),
                ));
            }
            let pc = node.attr("pad_const")?;
            if pc.dtype != a.dtype || pc.is_empty() {
                return Err(bad(node, "pad_const must be one value of the input's type"));
            }
            for d in 0..rank {
                shape[d] += (p[2 * d] + p[2 * d + 1]) as usize;
            }
        }
        TosaOp::Reshape => {
            let s = ints(node, "shape")?;
            let out = &node.out[0];
            let fits = s.len() == out.shape.len()
                && s.iter()
                    .zip(&out.shape)
                    .all(|(&x, &y)| x == -1 || x == y as i64);
            if !fits || out.elements() != a.elements() {
                return Err(bad(node, format!("shape {s:?} for {a} (result {out})")));
            }
            shape = out.shape.clone();
        }
        TosaOp::Reverse => {
            let axis = int(node, "axis")?;
            if axis < 0 || axis as usize >= rank {
                return Err(bad(node, format!("axis {axis} of rank {rank}")));
            }
        }
        TosaOp::Slice => {
            let (start, size) = (ints(node, "start")?, ints(node, "size")?);
            if start.len() != rank || size.len() != rank {
                return Err(bad(node, "start and size need one value per dimension"));
            }
            for d in 0..rank {
                let (st, sz) = (start[d], size[d]);
                if st < 0 || sz < 1 || st + sz > a.shape[d] as i64 {
                    return Err(bad(
                        node,
                        format!("slice {st}..{} of dimension {d} ({})", st + sz, a.shape[d]),
                    ));
                }
                shape[d] = sz as usize;
            }
        }
        TosaOp::Tile => {
            let m = ints(node, "multiples")?;
            if m.len() != rank || m.iter().any(|&v| !(1..=1 << 31).contains(&v)) {
                return Err(bad(node, format!("multiples {m:?}")));
            }
            for d in 0..rank {
                shape[d] = shape[d].saturating_mul(m[d] as usize);
            }
        }
        TosaOp::Transpose => {
            let p = ints(node, "perms")?;
            let mut seen = vec![false; rank];
            for &x in &p {
                if x < 0 || x as usize >= rank || std::mem::replace(&mut seen[x as usize], true) {
                    return Err(bad(
                        node,
                        format!("perms {p:?} is not a permutation of 0..{rank}"),
                    ));
                }
            }
            if p.len() != rank {
                return Err(bad(node, format!("perms {p:?} for rank {rank}")));
            }
            shape = p.iter().map(|&x| a.shape[x as usize]).collect();
        }
        TosaOp::Gather => {
            let idx = ins[1];
            if rank != 3
                || idx.shape.len() != 2
                || idx.shape[0] != a.shape[0]
                || idx.dtype != DType::I32
            {
                return Err(bad(
                    node,
                    format!("values {a} [N,K,C] and i32 indices {idx} [N,W] expected"),
                ));
            }
            shape = vec![a.shape[0], idx.shape[1], a.shape[2]];
        }
        TosaOp::Scatter => {
            let (idx, inp) = (ins[1], ins[2]);
            let ok = rank == 3
                && idx.shape.len() == 2
                && idx.dtype == DType::I32
                && inp.shape == vec![a.shape[0], idx.shape[1], a.shape[2]]
                && idx.shape[0] == a.shape[0]
                && inp.dtype == a.dtype;
            if !ok {
                return Err(bad(
                    node,
                    format!("values_in {a}, indices {idx}, input {inp}"),
                ));
            }
        }
        _ => return Err(bad(node, "internal error: not a data-movement operator")),
    }
    Ok(ValueInfo {
        dtype: a.dtype,
        shape,
    })
}

/// The elements of `v` at `idx` (`None`: `fill`).
fn take(v: &Values, idx: &[Option<usize>], fill: &Values) -> Values {
    fn pick<T: Copy>(x: &[T], idx: &[Option<usize>], f: T) -> Vec<T> {
        idx.iter()
            .map(|i| i.and_then(|i| x.get(i).copied()).unwrap_or(f))
            .collect()
    }
    match (v, fill) {
        (Values::Int(x), Values::Int(f)) => {
            Values::Int(pick(x, idx, f.first().copied().unwrap_or(0)))
        }
        (Values::Float(x), Values::Float(f)) => {
            Values::Float(pick(x, idx, f.first().copied().unwrap_or(0.0)))
        }
        (Values::Bool(x), Values::Bool(f)) => {
            Values::Bool(pick(x, idx, f.first().copied().unwrap_or(false)))
        }
        (Values::Int(x), _) => Values::Int(pick(x, idx, 0)),
        (Values::Float(x), _) => Values::Float(pick(x, idx, 0.0)),
        (Values::Bool(x), _) => Values::Bool(pick(x, idx, false)),
    }
}

/// For every position of `out` (row-major), `f(coordinates)` gives the source index.
fn map_out(out: &[usize], mut f: impl FnMut(&[usize]) -> Option<usize>) -> Vec<Option<usize>> {
    let n: usize = out.iter().product();
    let mut idx = vec![0usize; out.len()];
    let mut map = Vec::with_capacity(n);
    for _ in 0..n {
        map.push(f(&idx));
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    map
}

fn linear(coords: &[usize], strides: &[usize]) -> usize {
    coords.iter().zip(strides).map(|(c, s)| c * s).sum()
}

fn result(node: &Node, values: Values) -> Result<Vec<Tensor>> {
    let out = &node.out[0];
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

pub fn reshape(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    result(node, ins[0].values.clone())
}

pub fn transpose(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let p = ints(node, "perms")?;
    let st = strides(&a.shape);
    let map = map_out(&node.out[0].shape, |c| {
        let mut src = 0;
        for (i, &pi) in p.iter().enumerate() {
            src += c[i] * st[pi as usize];
        }
        Some(src)
    });
    result(node, take(&a.values, &map, &a.values))
}

pub fn reverse(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let axis = int(node, "axis")? as usize;
    let st = strides(&a.shape);
    let map = map_out(&a.shape, |c| {
        let mut c = c.to_vec();
        c[axis] = a.shape[axis] - 1 - c[axis];
        Some(linear(&c, &st))
    });
    result(node, take(&a.values, &map, &a.values))
}

pub fn slice(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let start = ints(node, "start")?;
    let st = strides(&a.shape);
    let map = map_out(&node.out[0].shape, |c| {
        Some(
            c.iter()
                .zip(&start)
                .zip(&st)
                .map(|((&x, &s0), &s)| (x + s0 as usize) * s)
                .sum(),
        )
    });
    result(node, take(&a.values, &map, &a.values))
}

pub fn tile(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let st = strides(&a.shape);
    let map = map_out(&node.out[0].shape, |c| {
        Some(
            c.iter()
                .zip(&a.shape)
                .zip(&st)
                .map(|((&x, &d), &s)| (x % d) * s)
                .sum(),
        )
    });
    result(node, take(&a.values, &map, &a.values))
}

pub fn pad(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let a = ins[0];
    let p = ints(node, "padding")?;
    let st = strides(&a.shape);
    let map = map_out(&node.out[0].shape, |c| {
        let mut src = 0;
        for d in 0..c.len() {
            let x = c[d].checked_sub(p[2 * d] as usize)?;
            if x >= a.shape[d] {
                return None;
            }
            src += x * st[d];
        }
        Some(src)
    });
    result(node, take(&a.values, &map, &node.attr("pad_const")?.values))
}

pub fn concat(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let axis = int(node, "axis")? as usize;
    let out = &node.out[0];
    // Flatten every input into one values list, then map.
    let mut all = ins[0].values.clone();
    let mut offsets = Vec::new();
    let mut at = 0;
    for (k, t) in ins.iter().enumerate() {
        offsets.push(at);
        at += t.len();
        if k > 0 {
            match (&mut all, &t.values) {
                (Values::Int(x), Values::Int(y)) => x.extend_from_slice(y),
                (Values::Float(x), Values::Float(y)) => x.extend_from_slice(y),
                (Values::Bool(x), Values::Bool(y)) => x.extend_from_slice(y),
                _ => return Err(bad(node, "inputs of mixed kinds")),
            }
        }
    }
    let map = map_out(&out.shape, |c| {
        let mut pos = c[axis];
        for (k, t) in ins.iter().enumerate() {
            if pos < t.shape[axis] {
                let mut cc = c.to_vec();
                cc[axis] = pos;
                return Some(offsets[k] + linear(&cc, &strides(&t.shape)));
            }
            pos -= t.shape[axis];
        }
        None
    });
    result(node, take(&all, &map, &all))
}

pub fn gather(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let (v, idx) = (ins[0], ins[1]);
    let (k, c) = (v.shape[1], v.shape[2]);
    let w = idx.shape[1];
    let ix = idx.ints();
    let map = map_out(&node.out[0].shape, |co| {
        let (n, wi, ci) = (co[0], co[1], co[2]);
        let at = *ix.get(n * w + wi)?;
        (0..k as i64)
            .contains(&at)
            .then(|| (n * k + at as usize) * c + ci)
    });
    result(node, take(&v.values, &map, &Values::zeros(v.dtype, 0)))
}

pub fn scatter(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let (vin, idx, inp) = (ins[0], ins[1], ins[2]);
    let (n, k, c) = (vin.shape[0], vin.shape[1], vin.shape[2]);
    let w = idx.shape[1];
    // Source per output position: the values_in element, unless an index writes it.
    let mut src: Vec<Option<usize>> = (0..n * k * c).map(Some).collect();
    let base = vin.len();
    for b in 0..n {
        for wi in 0..w {
            let Some(&at) = idx.ints().get(b * w + wi) else {
                continue;
            };
            if !(0..k as i64).contains(&at) {
                continue;
            }
            for ci in 0..c {
                src[(b * k + at as usize) * c + ci] = Some(base + (b * w + wi) * c + ci);
            }
        }
    }
    let mut all = vin.values.clone();
    match (&mut all, &inp.values) {
        (Values::Int(x), Values::Int(y)) => x.extend_from_slice(y),
        (Values::Float(x), Values::Float(y)) => x.extend_from_slice(y),
        (Values::Bool(x), Values::Bool(y)) => x.extend_from_slice(y),
        _ => return Err(bad(node, "inputs of mixed kinds")),
    }
    result(node, take(&all, &src, &all))
}
