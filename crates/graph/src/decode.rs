//! Decodes one graph entry point of a [`Module`] into a checked [`Graph`]: resolves the
//! interface variables, the tensor types (which must be shaped), every constant (inline
//! composites, `OpConstantNull`, replicated composites, specialization constants and the
//! application's `OpGraphConstantARM` data) and every `OpExtInst` of `TOSA.001000.1` into a node,
//! and checks each node against its operator's rules (`kernels::validate`).
//!
//! Every rejection is a [`GraphError`] naming the rule; nothing here panics on any module.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::dtype::{DType, Values};
use crate::error::{GraphError, Result};
use crate::exec::Tensor;
use crate::ir::{Graph, Interface, Node, Source, ValueId, ValueInfo};
use crate::reader::{
    BodyInst, CAPABILITY_GRAPH_ARM, Constant, ENCODING_BF16, ENCODING_E4M3, ENCODING_E5M2, Id,
    Module, STORAGE_UNIFORM_CONSTANT, Type,
};
use crate::tosa::{Operand, TosaOp};

/// The instruction set name graphs must import.
pub const TOSA_SET: &str = "TOSA.001000.1";
/// Level 8K: the largest rank.
pub const MAX_RANK: usize = 6;
/// Level 8K: the largest tensor, in elements (log2 size 31).
pub const MAX_ELEMENTS: usize = 1 << 31;
/// The largest `OpConstantNull` or replicated constant Tessera expands (a module of a few words
/// must not make it allocate gigabytes).
pub const MAX_EXPANDED_CONSTANT: usize = 1 << 24;

/// What the application gives besides the module.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// `VkDataGraphPipelineConstantARM` data by GraphConstantID, packed row-major.
    pub graph_constants: HashMap<u32, Vec<u8>>,
    /// Specialization constant values by SpecId (`VkSpecializationInfo`), little-endian bytes.
    pub specialization: HashMap<u32, Vec<u8>>,
}

/// Decodes entry point `entry` of `m`.
pub fn decode(m: &Module, entry: &str, inputs: &Inputs) -> Result<Graph> {
    Decoder {
        m,
        inputs,
        graph: Graph::default(),
        values: HashMap::new(),
        composites: HashMap::new(),
        graph_constants: RefCell::new(Vec::new()),
    }
    .run(entry)
}

struct Decoder<'a> {
    m: &'a Module,
    inputs: &'a Inputs,
    graph: Graph,
    /// SPIR-V id → value.
    values: HashMap<Id, ValueId>,
    /// The struct results of multi-output operators (FFT2D, RFFT2D) → their members' values,
    /// which `OpCompositeExtract` unpacks.
    composites: HashMap<Id, Vec<ValueId>>,
    /// The `OpGraphConstantARM`s decoded so far (moved into `Graph::graph_constants`).
    graph_constants: RefCell<Vec<(u32, ValueInfo)>>,
}

fn err(rule: &str, message: String) -> GraphError {
    GraphError::new(rule, message)
}

impl Decoder<'_> {
    fn run(mut self, entry: &str) -> Result<Graph> {
        let m = self.m;
        if !m.capabilities.contains(&CAPABILITY_GRAPH_ARM) {
            return Err(err(
                "SPV_ARM_graph",
                "the module does not declare capability GraphARM".into(),
            ));
        }
        let ep = m
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| {
                let names: Vec<&str> = m.entry_points.iter().map(|e| e.name.as_str()).collect();
                err(
                    "VkDataGraphPipelineShaderModuleCreateInfoARM::pName",
                    format!("no OpGraphEntryPointARM named {entry:?} (the module has {names:?})"),
                )
            })?;
        let def = m
            .graphs
            .iter()
            .find(|g| g.result == ep.graph)
            .ok_or_else(|| {
                err(
                    "SPV_ARM_graph",
                    format!(
                        "entry point {entry:?} names %{}, which is no OpGraphARM",
                        ep.graph
                    ),
                )
            })?;
        let Some(Type::Graph {
            inputs: n_in,
            interface,
        }) = m.types.get(&def.ty)
        else {
            return Err(err(
                "SPV_ARM_graph",
                format!("OpGraphARM %{}'s type is not an OpTypeGraphARM", def.result),
            ));
        };
        let n_in = *n_in as usize;
        if interface.len() != ep.interface.len() || n_in > interface.len() {
            return Err(err(
                "SPV_ARM_graph",
                format!(
                    "entry point {entry:?} lists {} interface variables, its graph type {}",
                    ep.interface.len(),
                    interface.len()
                ),
            ));
        }
        if n_in == interface.len() {
            return Err(err(
                "SPV_ARM_graph",
                "a graph type needs at least one output".into(),
            ));
        }
        let mut ifaces = Vec::new();
        for (&var, &ty) in ep.interface.iter().zip(interface) {
            ifaces.push(self.interface(var, ty)?);
        }
        self.graph.outputs = ifaces.split_off(n_in);
        self.graph.inputs = ifaces;

        for input in &def.inputs {
            if input.element.is_some() {
                return Err(err(
                    "Tessera",
                    "graph inputs that are arrays of tensors (ElementIndex) are not supported"
                        .into(),
                ));
            }
            let index = self.index(input.index, "InputIndex")?;
            let want = self.graph.inputs.get(index).ok_or_else(|| {
                err(
                    "SPV_ARM_graph",
                    format!("OpGraphInputARM index {index} is past the {n_in} inputs"),
                )
            })?;
            let info = self.tensor_info(input.ty)?;
            if info != want.info {
                return Err(err(
                    "SPV_ARM_graph",
                    format!(
                        "OpGraphInputARM %{} is {info}, input {index} is {}",
                        input.result, want.info
                    ),
                ));
            }
            let v = self.graph.value(info, Source::Input(index));
            self.define(input.result, v)?;
        }
        let tosa = m
            .imports
            .iter()
            .filter(|(_, name)| name.as_str() == TOSA_SET)
            .map(|(&id, _)| id)
            .collect::<Vec<_>>();
        for inst in &def.body {
            match inst {
                BodyInst::ExtInst {
                    ty,
                    result,
                    set,
                    opcode,
                    operands,
                } => {
                    if !tosa.contains(set) {
                        let name = m.imports.get(set).map_or("?", String::as_str);
                        if name.starts_with("NonSemantic.") {
                            continue;
                        }
                        return Err(err(
                            "Tessera",
                            format!(
                                "OpExtInst %{result} uses instruction set {name:?}; graphs may use only {TOSA_SET}"
                            ),
                        ));
                    }
                    self.node(*ty, *result, *opcode, operands)?;
                }
                BodyInst::Extract {
                    ty,
                    result,
                    composite,
                    indices,
                } => {
                    let members = self.composites.get(composite).ok_or_else(|| {
                        err(
                            "SPV_ARM_graph",
                            format!(
                                "OpCompositeExtract %{result}: %{composite} is not a multi-result operator"
                            ),
                        )
                    })?;
                    let v = match indices.as_slice() {
                        [k] => members.get(*k as usize).copied(),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        err(
                            "SPIR-V",
                            format!("OpCompositeExtract %{result}: indices {indices:?}"),
                        )
                    })?;
                    if self.tensor_info(*ty)? != self.graph.values[v] {
                        return Err(err(
                            "SPIR-V",
                            format!(
                                "OpCompositeExtract %{result}'s type differs from the member's"
                            ),
                        ));
                    }
                    self.define(*result, v)?;
                }
            }
        }
        let mut set = vec![None; self.graph.outputs.len()];
        for out in &def.outputs {
            if out.element.is_some() {
                return Err(err(
                    "Tessera",
                    "graph outputs that are arrays of tensors (ElementIndex) are not supported"
                        .into(),
                ));
            }
            let index = self.index(out.index, "OutputIndex")?;
            let v = self.use_value(out.value)?;
            let want = self.graph.outputs.get(index).ok_or_else(|| {
                err(
                    "SPV_ARM_graph",
                    format!(
                        "OpGraphSetOutputARM index {index} is past the {} outputs",
                        set.len()
                    ),
                )
            })?;
            if self.graph.values[v] != want.info {
                return Err(err(
                    "SPV_ARM_graph",
                    format!(
                        "OpGraphSetOutputARM gives output {index} a {}, its type is {}",
                        self.graph.values[v], want.info
                    ),
                ));
            }
            if set[index].replace(v).is_some() {
                return Err(err("SPV_ARM_graph", format!("output {index} is set twice")));
            }
        }
        self.graph.output_values = set
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| err("SPV_ARM_graph", format!("output {i} is never set"))))
            .collect::<Result<_>>()?;
        self.graph.graph_constants = self.graph_constants.into_inner();
        Ok(self.graph)
    }

    fn define(&mut self, id: Id, v: ValueId) -> Result<()> {
        if self.values.insert(id, v).is_some() {
            return Err(err("SPIR-V", format!("%{id} is defined twice")));
        }
        Ok(())
    }

    /// The value of `id`: an earlier result, or a constant (made a value on first use).
    fn use_value(&mut self, id: Id) -> Result<ValueId> {
        if let Some(&v) = self.values.get(&id) {
            return Ok(v);
        }
        if self.m.constants.contains_key(&id) {
            let t = self.constant(id)?;
            if t.shape.is_empty() {
                return Err(err(
                    "SPV_ARM_graph",
                    format!("%{id} is a scalar constant used as a tensor"),
                ));
            }
            let v = self.graph.value(t.info(), Source::Constant(t));
            self.values.insert(id, v);
            return Ok(v);
        }
        Err(err(
            "SPV_ARM_graph",
            format!("%{id} is used before it is defined (or is not a graph value)"),
        ))
    }

    fn index(&self, id: Id, what: &str) -> Result<usize> {
        match self.m.constants.get(&id) {
            Some(Constant::Scalar {
                words, spec: false, ..
            }) => Ok(words.first().copied().unwrap_or(0) as usize),
            _ => Err(err(
                "SPV_ARM_graph",
                format!("{what} %{id} is not an integer constant"),
            )),
        }
    }

    fn interface(&self, var: Id, ty: Id) -> Result<Interface> {
        let m = self.m;
        let &(ptr, storage) = m.variables.get(&var).ok_or_else(|| {
            err(
                "SPV_ARM_graph",
                format!("interface %{var} is not an OpVariable"),
            )
        })?;
        if storage != STORAGE_UNIFORM_CONSTANT {
            return Err(err(
                "SPV_ARM_graph",
                format!("interface variable %{var} is not in UniformConstant"),
            ));
        }
        let Some(Type::Pointer { pointee, .. }) = m.types.get(&ptr) else {
            return Err(err(
                "SPIR-V",
                format!("variable %{var}'s type is not a pointer"),
            ));
        };
        if matches!(
            m.types.get(pointee),
            Some(Type::Array { .. } | Type::RuntimeArray { .. })
        ) {
            return Err(err(
                "Tessera",
                format!("interface %{var} is an array of tensors, which is not supported"),
            ));
        }
        let info = self.tensor_info(*pointee)?;
        if self.tensor_info(ty)? != info {
            return Err(err(
                "SPV_ARM_graph",
                format!("interface %{var}'s type differs from its graph type's"),
            ));
        }
        let (Some(&set), Some(&binding)) = (m.descriptor_sets.get(&var), m.bindings.get(&var))
        else {
            return Err(err(
                "VUID-StandaloneSpirv-UniformConstant-06677",
                format!("interface variable %{var} has no DescriptorSet and Binding decorations"),
            ));
        };
        Ok(Interface {
            variable: var,
            set,
            binding,
            info,
        })
    }

    /// The element type of a scalar type.
    fn dtype(&self, ty: Id) -> Result<DType> {
        Ok(match self.m.types.get(&ty) {
            Some(Type::Bool) => DType::Bool,
            Some(Type::Int { width: 8, .. }) => DType::I8,
            Some(Type::Int { width: 16, .. }) => DType::I16,
            Some(Type::Int { width: 32, .. }) => DType::I32,
            Some(Type::Int { width: 64, .. }) => DType::I48,
            Some(Type::Float {
                width: 16,
                encoding: None,
            }) => DType::F16,
            Some(Type::Float {
                width: 16,
                encoding: Some(ENCODING_BF16),
            }) => DType::Bf16,
            Some(Type::Float {
                width: 32,
                encoding: None,
            }) => DType::F32,
            Some(Type::Float {
                width: 8,
                encoding: Some(ENCODING_E4M3),
            }) => DType::Fp8E4m3,
            Some(Type::Float {
                width: 8,
                encoding: Some(ENCODING_E5M2),
            }) => DType::Fp8E5m2,
            other => {
                return Err(err(
                    "TOSA.001000.1",
                    format!("%{ty} ({other:?}) is not a TOSA element type"),
                ));
            }
        })
    }

    /// The type of a shaped tensor type.
    fn tensor_info(&self, ty: Id) -> Result<ValueInfo> {
        let Some(&Type::Tensor { elem, rank, shape }) = self.m.types.get(&ty) else {
            return Err(err(
                "SPV_ARM_graph",
                format!("%{ty} is not an OpTypeTensorARM"),
            ));
        };
        let (Some(rank), Some(shape)) = (rank, shape) else {
            return Err(err(
                "VUID-RuntimeSpirv-GraphARM-09919",
                format!("graph tensor type %{ty} has no Rank and Shape"),
            ));
        };
        let dtype = self.dtype(elem)?;
        let rank = self.m.const_u32(rank).ok_or_else(|| {
            err(
                "SPV_ARM_tensors",
                format!("tensor type %{ty}'s Rank is not a constant"),
            )
        })? as usize;
        if rank == 0 || rank > MAX_RANK {
            return Err(err(
                "TOSA level 8K",
                format!("tensor type %{ty} has rank {rank} (1 to {MAX_RANK})"),
            ));
        }
        let dims: Vec<usize> = match self.m.constants.get(&shape) {
            Some(Constant::Composite { parts, .. }) if parts.len() == rank => parts
                .iter()
                .map(|&p| self.m.const_u32(p).map(|d| d as usize))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    err(
                        "SPV_ARM_tensors",
                        format!("tensor type %{ty}'s Shape is not {rank} integer constants"),
                    )
                })?,
            _ => {
                return Err(err(
                    "SPV_ARM_tensors",
                    format!("tensor type %{ty}'s Shape is not a constant array of {rank}"),
                ));
            }
        };
        let mut n = 1usize;
        for &d in &dims {
            n = n.saturating_mul(d);
        }
        if dims.contains(&0) || n > MAX_ELEMENTS {
            return Err(err(
                "TOSA level 8K",
                format!(
                    "tensor type %{ty} has shape {dims:?} (dimensions ≥ 1, at most 2^31 elements)"
                ),
            ));
        }
        Ok(ValueInfo { dtype, shape: dims })
    }

    /// A constant's value: a tensor, or a rank-0 tensor for a scalar constant.
    fn constant(&self, id: Id) -> Result<Tensor> {
        self.constant_depth(id, 0)
    }

    fn constant_depth(&self, id: Id, depth: usize) -> Result<Tensor> {
        let m = self.m;
        let c = m.constants.get(&id).ok_or_else(|| {
            err(
                "TOSA.001000.1",
                format!("%{id} is not a constant instruction"),
            )
        })?;
        if depth > MAX_RANK + 1 {
            return Err(err("SPIR-V", format!("constant %{id} nests too deeply")));
        }
        let ty = c.ty();
        if !matches!(m.types.get(&ty), Some(Type::Tensor { .. })) {
            return self.scalar(id, c);
        }
        let info = self.tensor_info(ty)?;
        let n = info.elements();
        if n > MAX_EXPANDED_CONSTANT
            && matches!(c, Constant::Null { .. } | Constant::Replicate { .. })
        {
            return Err(err(
                "Tessera",
                format!("constant %{id} ({info}) has more than {MAX_EXPANDED_CONSTANT} elements"),
            ));
        }
        let values = match c {
            Constant::Null { .. } => Values::zeros(info.dtype, n),
            Constant::Graph {
                graph_constant_id, ..
            } => {
                let mut used = self.graph_constants.borrow_mut();
                if !used.iter().any(|(g, _)| g == graph_constant_id) {
                    used.push((*graph_constant_id, info.clone()));
                }
                drop(used);
                let data = self
                    .inputs
                    .graph_constants
                    .get(graph_constant_id)
                    .ok_or_else(|| {
                        err(
                            "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-pConstants",
                            format!(
                                "no VkDataGraphPipelineConstantARM with id {graph_constant_id} (OpGraphConstantARM %{id})"
                            ),
                        )
                    })?;
                return Tensor::from_bytes(&info, data).map_err(|e| {
                    err(
                        "VUID-VkDataGraphPipelineConstantARM-pConstantData",
                        format!("graph constant {graph_constant_id}: {}", e.message),
                    )
                });
            }
            Constant::Composite { parts, .. } => {
                let mut all = Values::zeros(info.dtype, 0);
                for &p in parts {
                    let t = self.constant_depth(p, depth + 1)?;
                    append(&mut all, &t, info.dtype, id)?;
                }
                all
            }
            Constant::Replicate { part, .. } => {
                let t = self.constant_depth(*part, depth + 1)?;
                let mut all = Values::zeros(info.dtype, 0);
                if t.is_empty() || n % t.len() != 0 {
                    return Err(err(
                        "SPV_EXT_replicated_composites",
                        format!("%{id} replicates {} elements into {n}", t.len()),
                    ));
                }
                for _ in 0..n / t.len() {
                    append(&mut all, &t, info.dtype, id)?;
                }
                all
            }
            Constant::Scalar { .. } | Constant::Bool { .. } => {
                return Err(err(
                    "SPIR-V",
                    format!("scalar constant %{id} has a tensor type"),
                ));
            }
        };
        if values.len() != n {
            return Err(err(
                "SPIR-V",
                format!(
                    "constant %{id} has {} elements, its type {info}",
                    values.len()
                ),
            ));
        }
        Tensor::new(info.dtype, info.shape, values)
    }

    /// A scalar constant as a rank-0 tensor (specialization applied).
    fn scalar(&self, id: Id, c: &Constant) -> Result<Tensor> {
        let spec = |default: u64| -> u64 {
            let Some(bytes) = self
                .m
                .spec_ids
                .get(&id)
                .and_then(|sid| self.inputs.specialization.get(sid))
            else {
                return default;
            };
            let mut w = [0u8; 8];
            let k = bytes.len().min(8);
            w[..k].copy_from_slice(&bytes[..k]);
            u64::from_le_bytes(w)
        };
        let (dtype, values) = match c {
            Constant::Bool { value, spec: s, .. } => {
                let v = if *s {
                    spec(u64::from(*value)) != 0
                } else {
                    *value
                };
                (DType::Bool, Values::Bool(vec![v]))
            }
            Constant::Scalar {
                ty, words, spec: s, ..
            } => {
                let dtype = self.dtype(*ty)?;
                let mut bits = u64::from(words[0]);
                if let Some(&hi) = words.get(1) {
                    bits |= u64::from(hi) << 32;
                }
                if *s {
                    bits = spec(bits);
                }
                let bytes = bits.to_le_bytes();
                let v = Values::decode(dtype, &bytes, 1).ok_or_else(|| {
                    err("SPIR-V", format!("constant %{id} does not fit its type"))
                })?;
                (dtype, v)
            }
            Constant::Null { ty } => {
                let dtype = self.dtype(*ty)?;
                (dtype, Values::zeros(dtype, 1))
            }
            _ => {
                return Err(err(
                    "TOSA.001000.1",
                    format!("constant %{id} is neither a tensor nor a scalar"),
                ));
            }
        };
        Tensor::new(dtype, Vec::new(), values)
    }

    fn node(&mut self, ty: Id, result: Id, opcode: u32, operands: &[Id]) -> Result<()> {
        let op = TosaOp::from_opcode(opcode).ok_or_else(|| {
            err(
                TOSA_SET,
                format!("OpExtInst %{result}: no instruction number {opcode}"),
            )
        })?;
        let sig = op.operands();
        let variadic = matches!(sig.last(), Some((_, Operand::Variadic)));
        let count_ok = if variadic {
            operands.len() >= sig.len() - 1
        } else {
            operands.len() == sig.len()
        };
        if !count_ok {
            return Err(err(
                TOSA_SET,
                format!(
                    "{} %{result} has {} operands, the instruction {}",
                    op.name(),
                    operands.len(),
                    sig.len()
                ),
            ));
        }
        let mut attrs = Vec::new();
        let mut inputs = Vec::new();
        for (i, &id) in operands.iter().enumerate() {
            let (name, kind) = sig[i.min(sig.len() - 1)];
            match kind {
                Operand::Const => {
                    if !self.m.constants.contains_key(&id) {
                        return Err(err(
                            &format!("TOSA {}", op.name()),
                            format!("operand {name} (%{id}) must be a constant instruction"),
                        ));
                    }
                    attrs.push(Some(self.constant(id)?));
                }
                Operand::Tensor | Operand::Variadic => {
                    attrs.push(None);
                    inputs.push(self.use_value(id)?);
                }
            }
        }
        // Multi-output operators return a struct of tensors.
        let members = match self.m.types.get(&ty) {
            Some(Type::Struct(members)) => members.clone(),
            _ => vec![ty],
        };
        let outs = members
            .iter()
            .map(|&t| self.tensor_info(t))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| {
                err(
                    &format!("TOSA {}", op.name()),
                    format!("result %{result}: {}", e.message),
                )
            })?;
        let wants = match op {
            TosaOp::Fft2d | TosaOp::Rfft2d => 2,
            _ => 1,
        };
        if outs.len() != wants {
            return Err(err(
                &format!("TOSA {}", op.name()),
                format!(
                    "result %{result} has {} members, the operator {wants}",
                    outs.len()
                ),
            ));
        }
        let mut node = Node {
            op,
            attrs,
            inputs,
            outputs: Vec::new(),
            out: outs.clone(),
            result,
        };
        let ins: Vec<&ValueInfo> = node.inputs.iter().map(|&v| &self.graph.values[v]).collect();
        crate::kernels::validate(&node, &ins)
            .map_err(|e| err(&e.rule, format!("{} %{result}: {}", op.name(), e.message)))?;
        let index = self.graph.nodes.len();
        for (output, info) in outs.into_iter().enumerate() {
            let v = self.graph.value(
                info,
                Source::Node {
                    node: index,
                    output,
                },
            );
            node.outputs.push(v);
        }
        let values = node.outputs.clone();
        self.graph.nodes.push(node);
        if wants == 1 {
            self.define(result, values[0])
        } else {
            self.composites.insert(result, values);
            Ok(())
        }
    }
}

/// Appends `t`'s elements (of `dtype`'s kind) to `all`.
fn append(all: &mut Values, t: &Tensor, dtype: DType, id: Id) -> Result<()> {
    if t.dtype != dtype {
        return Err(err(
            "SPIR-V",
            format!(
                "constant %{id} of {} has a {} constituent",
                dtype.name(),
                t.dtype.name()
            ),
        ));
    }
    match (all, &t.values) {
        (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(b),
        (Values::Int(a), Values::Int(b)) => a.extend_from_slice(b),
        (Values::Float(a), Values::Float(b)) => a.extend_from_slice(b),
        _ => return Err(err("SPIR-V", format!("constant %{id} mixes kinds"))),
    }
    Ok(())
}
