//! The graph IR: typed values and TOSA operator nodes in topological order, with every
//! constant-only operand already decoded into a [`Tensor`], and a text printer (golden tests).
//!
//! Invariants (established by `decode`): every node's inputs are graph inputs, constants or
//! outputs of earlier nodes; every value has one static type and shape; every attribute a node's
//! operator marks `Const` is present; every interface variable is used exactly as declared.

use std::fmt::{self, Write as _};

use crate::dtype::DType;
use crate::exec::Tensor;
use crate::reader::Id;
use crate::tosa::{Operand, TosaOp};

/// Index of a value in [`Graph::values`].
pub type ValueId = usize;

/// A value's static type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValueInfo {
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl ValueInfo {
    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }
}

impl fmt::Display for ValueInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype.name())?;
        for (i, d) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{d}")?;
        }
        f.write_char(']')
    }
}

/// Where a value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Graph input `index` (interface order).
    Input(usize),
    /// A constant (inline or `OpGraphConstantARM`), decoded.
    Constant(Tensor),
    /// Output `output` of node `node`.
    Node { node: usize, output: usize },
}

/// A TOSA operator application.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub op: TosaOp,
    /// Per operand of `op.operands()` (variadic ones flattened after it): the decoded constant
    /// for `Const` operands, `None` for tensor operands.
    pub attrs: Vec<Option<Tensor>>,
    /// The tensor operands, in order.
    pub inputs: Vec<ValueId>,
    /// The results.
    pub outputs: Vec<ValueId>,
    /// The results' types (copied from `Graph::values`, for kernels).
    pub out: Vec<ValueInfo>,
    /// The SPIR-V result id (for messages).
    pub result: Id,
}

impl Node {
    /// The constant operand `name`. Decoding guarantees every `Const` operand is present, so a
    /// missing one is an internal error reported as such.
    pub fn attr(&self, name: &str) -> crate::error::Result<&Tensor> {
        self.op
            .operands()
            .iter()
            .position(|(n, _)| *n == name)
            .and_then(|i| self.attrs.get(i))
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                crate::error::GraphError::new(
                    "Tessera",
                    format!("internal error: {} has no attribute {name}", self.op.name()),
                )
            })
    }
}

/// A graph interface tensor (an `OpGraphEntryPointARM` interface variable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// The `OpVariable`.
    pub variable: Id,
    pub set: u32,
    pub binding: u32,
    pub info: ValueInfo,
}

/// A decoded graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    pub values: Vec<ValueInfo>,
    pub sources: Vec<Source>,
    pub nodes: Vec<Node>,
    pub inputs: Vec<Interface>,
    pub outputs: Vec<Interface>,
    /// The value each output interface receives.
    pub output_values: Vec<ValueId>,
    /// The `OpGraphConstantARM`s the graph uses: GraphConstantID and type, in first-use order.
    pub graph_constants: Vec<(u32, ValueInfo)>,
}

impl Graph {
    /// Adds a value.
    pub(crate) fn value(&mut self, info: ValueInfo, source: Source) -> ValueId {
        self.values.push(info);
        self.sources.push(source);
        self.values.len() - 1
    }

    /// The text form: one line per input, constant, node and output.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (i, inp) in self.inputs.iter().enumerate() {
            let _ = writeln!(
                s,
                "input {i} (set {}, binding {}): {}",
                inp.set, inp.binding, inp.info
            );
        }
        for (v, src) in self.sources.iter().enumerate() {
            match src {
                Source::Input(i) => {
                    let _ = writeln!(s, "%{v}: {} = input {i}", self.values[v]);
                }
                Source::Constant(t) => {
                    let _ = writeln!(s, "%{v}: {} = const {}", self.values[v], t.summary());
                }
                Source::Node { .. } => {}
            }
        }
        for node in &self.nodes {
            let outs: Vec<String> = node
                .outputs
                .iter()
                .map(|&o| format!("%{o}: {}", self.values[o]))
                .collect();
            let _ = write!(s, "{} = {}", outs.join(", "), node.op.name());
            let mut inputs = node.inputs.iter();
            let mut first = true;
            for (k, (name, kind)) in node.op.operands().iter().enumerate() {
                let mut arg = |text: String| {
                    let _ = write!(s, "{}{name}={text}", if first { " " } else { ", " });
                    first = false;
                };
                match kind {
                    Operand::Const => {
                        if let Some(Some(t)) = node.attrs.get(k) {
                            arg(t.summary());
                        }
                    }
                    Operand::Tensor => {
                        if let Some(v) = inputs.next() {
                            arg(format!("%{v}"));
                        }
                    }
                    Operand::Variadic => {
                        let rest: Vec<String> = inputs.by_ref().map(|v| format!("%{v}")).collect();
                        arg(format!("[{}]", rest.join(", ")));
                    }
                }
            }
            s.push('\n');
        }
        for (i, (out, v)) in self.outputs.iter().zip(&self.output_values).enumerate() {
            let _ = writeln!(
                s,
                "output {i} (set {}, binding {}) = %{v}: {}",
                out.set, out.binding, out.info
            );
        }
        s
    }
}
