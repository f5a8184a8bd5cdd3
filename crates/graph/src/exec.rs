//! Running a decoded [`Graph`] on host tensors with the reference kernels: [`Tensor`] (a packed
//! row-major array of widened values, see `dtype`) and [`run`].
//!
//! Invariants: a kernel receives exactly the inputs `decode` checked (types and shapes as its
//! node says) and must return exactly its node's output types; `run` checks both again, so a
//! kernel bug is an error, never a wrong-sized buffer.

use crate::dtype::{DType, Values};
use crate::error::{GraphError, Result};
use crate::ir::{Graph, Source, ValueInfo};

/// A tensor: element type, shape and packed row-major values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub values: Values,
}

impl Tensor {
    /// A tensor, checking that `values` has one element per shape position and is of `dtype`'s
    /// kind.
    pub fn new(dtype: DType, shape: Vec<usize>, values: Values) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        let kind_ok = match &values {
            Values::Bool(_) => dtype == DType::Bool,
            Values::Int(_) => dtype.is_int(),
            Values::Float(_) => dtype.is_float(),
        };
        if values.len() != n || !kind_ok {
            return Err(GraphError::new(
                "Tessera",
                format!(
                    "internal error: {} values of the wrong kind or count for {}",
                    values.len(),
                    ValueInfo { dtype, shape }
                ),
            ));
        }
        Ok(Tensor {
            dtype,
            shape,
            values,
        })
    }

    /// Zeros of type `info`.
    pub fn zeros(info: &ValueInfo) -> Tensor {
        Tensor {
            dtype: info.dtype,
            shape: info.shape.clone(),
            values: Values::zeros(info.dtype, info.elements()),
        }
    }

    /// Decodes packed little-endian elements (a graph input, a graph constant).
    pub fn from_bytes(info: &ValueInfo, bytes: &[u8]) -> Result<Tensor> {
        let n = info.elements();
        let values = Values::decode(info.dtype, bytes, n).ok_or_else(|| {
            GraphError::new(
                "Tessera",
                format!(
                    "{} needs {} bytes, {} given",
                    info,
                    n.saturating_mul(info.dtype.bytes()),
                    bytes.len()
                ),
            )
        })?;
        Ok(Tensor {
            dtype: info.dtype,
            shape: info.shape.clone(),
            values,
        })
    }

    /// The packed little-endian encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.values.encode(self.dtype)
    }

    /// Its type.
    pub fn info(&self) -> ValueInfo {
        ValueInfo {
            dtype: self.dtype,
            shape: self.shape.clone(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Integer values (empty for other kinds).
    pub fn ints(&self) -> &[i64] {
        match &self.values {
            Values::Int(v) => v,
            _ => &[],
        }
    }

    /// Float values (empty for other kinds).
    pub fn floats(&self) -> &[f64] {
        match &self.values {
            Values::Float(v) => v,
            _ => &[],
        }
    }

    /// Bool values (empty for other kinds).
    pub fn bools(&self) -> &[bool] {
        match &self.values {
            Values::Bool(v) => v,
            _ => &[],
        }
    }

    /// The first element as an integer (bools as 0/1), for scalar attributes.
    pub fn scalar_i64(&self) -> Option<i64> {
        match &self.values {
            Values::Int(v) => v.first().copied(),
            Values::Bool(v) => v.first().map(|&b| i64::from(b)),
            Values::Float(_) => None,
        }
    }

    /// Element `i` as f64 (ints and bools converted), 0 when out of range.
    pub fn get_f64(&self, i: usize) -> f64 {
        match &self.values {
            Values::Int(v) => v.get(i).map_or(0.0, |&x| x as f64),
            Values::Float(v) => v.get(i).copied().unwrap_or(0.0),
            Values::Bool(v) => v.get(i).map_or(0.0, |&b| f64::from(u8::from(b))),
        }
    }

    /// A short text for the IR printer: the value for one element, else type and a hash-free
    /// summary (first elements).
    pub fn summary(&self) -> String {
        let show = |n: usize| -> Vec<String> {
            match &self.values {
                Values::Int(v) => v.iter().take(n).map(|x| x.to_string()).collect(),
                Values::Float(v) => v.iter().take(n).map(|x| format!("{x:?}")).collect(),
                Values::Bool(v) => v.iter().take(n).map(|x| x.to_string()).collect(),
            }
        };
        if self.shape.is_empty() {
            return show(1).join("");
        }
        let n = self.len();
        let mut items = show(8);
        if n > 8 {
            items.push(format!("… {n} elements"));
        }
        format!("{}[{}]", self.info(), items.join(", "))
    }
}

/// Runs `graph` on `inputs` (one per input interface, of its type) and returns one tensor per
/// output interface.
pub fn run(graph: &Graph, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    if inputs.len() != graph.inputs.len() {
        return Err(GraphError::new(
            "Tessera",
            format!(
                "the graph has {} inputs, {} given",
                graph.inputs.len(),
                inputs.len()
            ),
        ));
    }
    for (i, (t, want)) in inputs.iter().zip(&graph.inputs).enumerate() {
        if t.info() != want.info {
            return Err(GraphError::new(
                "Tessera",
                format!("input {i} is {}, the graph wants {}", t.info(), want.info),
            ));
        }
    }
    let mut slots: Vec<Option<Tensor>> = vec![None; graph.values.len()];
    for (v, src) in graph.sources.iter().enumerate() {
        match src {
            Source::Input(i) => slots[v] = inputs.get(*i).cloned(),
            Source::Constant(t) => slots[v] = Some(t.clone()),
            Source::Node { .. } => {}
        }
    }
    for node in &graph.nodes {
        let kernel = node.op.kernel().ok_or_else(|| {
            GraphError::new(
                "Tessera",
                format!("TOSA {} is not implemented", node.op.name()),
            )
        })?;
        let args: Vec<&Tensor> = node
            .inputs
            .iter()
            .map(|&v| {
                slots.get(v).and_then(Option::as_ref).ok_or_else(|| {
                    GraphError::new("Tessera", format!("internal error: %{v} used unset"))
                })
            })
            .collect::<Result<_>>()?;
        let outs = kernel(node, &args)?;
        if outs.len() != node.outputs.len() {
            return Err(GraphError::new(
                "Tessera",
                format!(
                    "internal error: {} returned {} results",
                    node.op.name(),
                    outs.len()
                ),
            ));
        }
        for ((t, &v), want) in outs.into_iter().zip(&node.outputs).zip(&node.out) {
            if t.info() != *want || t.len() != want.elements() {
                return Err(GraphError::new(
                    "Tessera",
                    format!(
                        "internal error: {} made {}, its result is {}",
                        node.op.name(),
                        t.info(),
                        want
                    ),
                ));
            }
            slots[v] = Some(t);
        }
    }
    graph
        .output_values
        .iter()
        .map(|&v| {
            slots
                .get(v)
                .and_then(Option::as_ref)
                .cloned()
                .ok_or_else(|| {
                    GraphError::new("Tessera", format!("internal error: output %{v} unset"))
                })
        })
        .collect()
}
