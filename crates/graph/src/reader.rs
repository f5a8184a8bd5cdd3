//! Reads a SPIR-V module with `SPV_ARM_graph` graphs into a [`Module`]: its types, constants,
//! decorations, interface variables, graph entry points and graph bodies. Knows nothing of TOSA
//! (the body keeps `OpExtInst` operands as ids).
//!
//! A streaming word reader of our own: `rspirv`'s loader rejects graph modules (`OpExtInst`
//! outside a function). Function bodies, debug and annotation instructions it does not need are
//! skipped by their word count.
//!
//! Invariants: never panics and never allocates more than a small multiple of the input's size
//! on any input (every count comes from the words themselves); every id a later stage looks up
//! is below the header's bound.

use std::collections::HashMap;

use crate::error::{GraphError, Result};

/// A SPIR-V result id.
pub type Id = u32;

/// `OpTypeFloat`'s encoding operand for bfloat16 (`SPV_KHR_bfloat16`).
pub const ENCODING_BF16: u32 = 0;
/// `OpTypeFloat`'s encoding operand for float8 E4M3 (`SPV_EXT_float8`).
pub const ENCODING_E4M3: u32 = 4214;
/// `OpTypeFloat`'s encoding operand for float8 E5M2 (`SPV_EXT_float8`).
pub const ENCODING_E5M2: u32 = 4215;

/// The opcodes the reader understands.
mod op {
    pub const NAME: u16 = 5;
    pub const EXTENSION: u16 = 10;
    pub const EXT_INST_IMPORT: u16 = 11;
    pub const EXT_INST: u16 = 12;
    pub const MEMORY_MODEL: u16 = 14;
    pub const ENTRY_POINT: u16 = 15;
    pub const CAPABILITY: u16 = 17;
    pub const TYPE_VOID: u16 = 19;
    pub const TYPE_BOOL: u16 = 20;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const TYPE_FUNCTION: u16 = 33;
    pub const CONSTANT_TRUE: u16 = 41;
    pub const CONSTANT_FALSE: u16 = 42;
    pub const CONSTANT: u16 = 43;
    pub const CONSTANT_COMPOSITE: u16 = 44;
    pub const CONSTANT_NULL: u16 = 46;
    pub const SPEC_CONSTANT_TRUE: u16 = 48;
    pub const SPEC_CONSTANT_FALSE: u16 = 49;
    pub const SPEC_CONSTANT: u16 = 50;
    pub const SPEC_CONSTANT_COMPOSITE: u16 = 51;
    pub const SPEC_CONSTANT_OP: u16 = 52;
    pub const FUNCTION: u16 = 54;
    pub const FUNCTION_END: u16 = 56;
    pub const VARIABLE: u16 = 59;
    pub const DECORATE: u16 = 71;
    pub const COMPOSITE_EXTRACT: u16 = 81;
    pub const TYPE_TENSOR_ARM: u16 = 4163;
    pub const GRAPH_CONSTANT_ARM: u16 = 4181;
    pub const GRAPH_ENTRY_POINT_ARM: u16 = 4182;
    pub const GRAPH_ARM: u16 = 4183;
    pub const GRAPH_INPUT_ARM: u16 = 4184;
    pub const GRAPH_SET_OUTPUT_ARM: u16 = 4185;
    pub const GRAPH_END_ARM: u16 = 4186;
    pub const TYPE_GRAPH_ARM: u16 = 4190;
    pub const CONSTANT_COMPOSITE_REPLICATE_EXT: u16 = 4461;
    pub const SPEC_CONSTANT_COMPOSITE_REPLICATE_EXT: u16 = 4462;
}

/// Decorations the graph stages use.
const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
/// `Capability GraphARM`.
pub const CAPABILITY_GRAPH_ARM: u32 = 4191;
/// `StorageClass UniformConstant`.
pub const STORAGE_UNIFORM_CONSTANT: u32 = 0;

/// A type declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
        encoding: Option<u32>,
    },
    Vector {
        elem: Id,
        count: u32,
    },
    Array {
        elem: Id,
        length: Id,
    },
    RuntimeArray {
        elem: Id,
    },
    Struct(Vec<Id>),
    Pointer {
        storage: u32,
        pointee: Id,
    },
    Function,
    /// `OpTypeTensorARM` with its optional rank and shape constants.
    Tensor {
        elem: Id,
        rank: Option<Id>,
        shape: Option<Id>,
    },
    /// `OpTypeGraphARM`: the first `inputs` of `interface` are inputs, the rest outputs.
    Graph {
        inputs: u32,
        interface: Vec<Id>,
    },
}

/// A constant instruction (`Op*Constant*`, `OpGraphConstantARM`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constant {
    /// `OpConstant` / `OpSpecConstant`: the literal words (one or two).
    Scalar { ty: Id, words: Vec<u32>, spec: bool },
    /// `OpConstantTrue/False` / `OpSpecConstantTrue/False`.
    Bool { ty: Id, value: bool, spec: bool },
    /// `OpConstantComposite` / `OpSpecConstantComposite`.
    Composite { ty: Id, parts: Vec<Id> },
    /// `OpConstantNull`: every element zero.
    Null { ty: Id },
    /// `OpConstantCompositeReplicateEXT` / its spec form: every element `part`.
    Replicate { ty: Id, part: Id },
    /// `OpGraphConstantARM`: data from the API's `VkDataGraphPipelineConstantARM` with this id.
    Graph { ty: Id, graph_constant_id: u32 },
}

impl Constant {
    /// The constant's type.
    pub fn ty(&self) -> Id {
        match *self {
            Constant::Scalar { ty, .. }
            | Constant::Bool { ty, .. }
            | Constant::Composite { ty, .. }
            | Constant::Null { ty }
            | Constant::Replicate { ty, .. }
            | Constant::Graph { ty, .. } => ty,
        }
    }
}

/// An instruction of a graph body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyInst {
    /// `OpExtInst` of an imported set.
    ExtInst {
        ty: Id,
        result: Id,
        set: Id,
        opcode: u32,
        operands: Vec<Id>,
    },
    /// `OpCompositeExtract` (unpacks a multi-output operator's struct).
    Extract {
        ty: Id,
        result: Id,
        composite: Id,
        indices: Vec<u32>,
    },
}

/// `OpGraphInputARM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphInput {
    pub ty: Id,
    pub result: Id,
    pub index: Id,
    pub element: Option<Id>,
}

/// `OpGraphSetOutputARM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphOutput {
    pub value: Id,
    pub index: Id,
    pub element: Option<Id>,
}

/// One `OpGraphARM` … `OpGraphEndARM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphDef {
    pub ty: Id,
    pub result: Id,
    pub inputs: Vec<GraphInput>,
    pub body: Vec<BodyInst>,
    pub outputs: Vec<GraphOutput>,
}

/// `OpGraphEntryPointARM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEntryPoint {
    pub graph: Id,
    pub name: String,
    pub interface: Vec<Id>,
}

/// A module as read.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// The header's id bound.
    pub bound: u32,
    pub capabilities: Vec<u32>,
    pub extensions: Vec<String>,
    /// `OpExtInstImport`: id → set name.
    pub imports: HashMap<Id, String>,
    pub names: HashMap<Id, String>,
    pub types: HashMap<Id, Type>,
    pub constants: HashMap<Id, Constant>,
    /// `OpVariable`: id → (pointer type, storage class).
    pub variables: HashMap<Id, (Id, u32)>,
    pub descriptor_sets: HashMap<Id, u32>,
    pub bindings: HashMap<Id, u32>,
    pub spec_ids: HashMap<Id, u32>,
    pub entry_points: Vec<GraphEntryPoint>,
    pub graphs: Vec<GraphDef>,
    /// Whether the module has shader entry points (`OpEntryPoint`).
    pub has_shader_entry_points: bool,
}

/// One instruction's words: opcode and operands.
struct Inst<'a> {
    opcode: u16,
    ops: &'a [u32],
}

impl Inst<'_> {
    fn word(&self, i: usize) -> Result<u32> {
        self.ops.get(i).copied().ok_or_else(|| {
            GraphError::spirv(format!("opcode {} has too few operands", self.opcode))
        })
    }

    /// A literal string starting at operand `i`, and the operand index after it.
    fn string(&self, i: usize) -> Result<(String, usize)> {
        let mut bytes = Vec::new();
        for (k, w) in self.ops.iter().enumerate().skip(i) {
            for b in w.to_le_bytes() {
                if b == 0 {
                    let s = String::from_utf8(bytes)
                        .map_err(|_| GraphError::spirv("a literal string is not UTF-8"))?;
                    return Ok((s, k + 1));
                }
                bytes.push(b);
            }
        }
        Err(GraphError::spirv(format!(
            "opcode {}: a literal string has no terminating NUL",
            self.opcode
        )))
    }
}

impl Module {
    /// Reads `words` (a whole module, native word order after the magic number).
    pub fn read(words: &[u32]) -> Result<Module> {
        let header = words
            .get(..5)
            .ok_or_else(|| GraphError::spirv("a module shorter than its 5-word header"))?;
        if header[0] != 0x0723_0203 {
            return Err(GraphError::spirv(format!(
                "magic number {:#010x} is not SPIR-V's",
                header[0]
            )));
        }
        let mut m = Module {
            bound: header[3],
            ..Module::default()
        };
        let mut at = 5;
        let mut in_function = false;
        let mut graph: Option<GraphDef> = None;
        while at < words.len() {
            let first = words[at];
            let count = (first >> 16) as usize;
            let opcode = (first & 0xffff) as u16;
            if count == 0 || at + count > words.len() {
                return Err(GraphError::spirv(format!(
                    "the instruction at word {at} (opcode {opcode}) has word count {count}, past the module's end"
                )));
            }
            let inst = Inst {
                opcode,
                ops: &words[at + 1..at + count],
            };
            at += count;
            if in_function {
                in_function = opcode != op::FUNCTION_END;
                continue;
            }
            if let Some(g) = graph.as_mut() {
                match opcode {
                    op::GRAPH_INPUT_ARM => g.inputs.push(GraphInput {
                        ty: m.id(&inst, 0)?,
                        result: m.id(&inst, 1)?,
                        index: m.id(&inst, 2)?,
                        element: m.opt_id(&inst, 3)?,
                    }),
                    op::GRAPH_SET_OUTPUT_ARM => g.outputs.push(GraphOutput {
                        value: m.id(&inst, 0)?,
                        index: m.id(&inst, 1)?,
                        element: m.opt_id(&inst, 2)?,
                    }),
                    op::EXT_INST => {
                        let operands = (4..inst.ops.len())
                            .map(|i| m.id(&inst, i))
                            .collect::<Result<Vec<_>>>()?;
                        g.body.push(BodyInst::ExtInst {
                            ty: m.id(&inst, 0)?,
                            result: m.id(&inst, 1)?,
                            set: m.id(&inst, 2)?,
                            opcode: inst.word(3)?,
                            operands,
                        });
                    }
                    op::COMPOSITE_EXTRACT => g.body.push(BodyInst::Extract {
                        ty: m.id(&inst, 0)?,
                        result: m.id(&inst, 1)?,
                        composite: m.id(&inst, 2)?,
                        indices: inst.ops.get(3..).unwrap_or(&[]).to_vec(),
                    }),
                    op::GRAPH_END_ARM => {
                        if let Some(done) = graph.take() {
                            m.graphs.push(done);
                        }
                    }
                    // Debug lines may appear anywhere.
                    8 | 317 => {}
                    other => {
                        return Err(GraphError::new(
                            "SPV_ARM_graph",
                            format!(
                                "opcode {other} inside a graph body (only OpGraphInputARM, OpGraphSetOutputARM, OpExtInst and OpCompositeExtract may appear there)"
                            ),
                        ));
                    }
                }
                continue;
            }
            m.global(&inst, &mut in_function, &mut graph)?;
        }
        if graph.is_some() {
            return Err(GraphError::new(
                "SPV_ARM_graph",
                "an OpGraphARM has no OpGraphEndARM",
            ));
        }
        Ok(m)
    }

    /// Operand `i` as an id below the bound.
    fn id(&self, inst: &Inst<'_>, i: usize) -> Result<Id> {
        let id = inst.word(i)?;
        if id == 0 || id >= self.bound {
            return Err(GraphError::spirv(format!(
                "opcode {}: id {id} is outside the module's bound {}",
                inst.opcode, self.bound
            )));
        }
        Ok(id)
    }

    fn opt_id(&self, inst: &Inst<'_>, i: usize) -> Result<Option<Id>> {
        if i < inst.ops.len() {
            self.id(inst, i).map(Some)
        } else {
            Ok(None)
        }
    }

    fn ids_from(&self, inst: &Inst<'_>, from: usize) -> Result<Vec<Id>> {
        (from..inst.ops.len()).map(|i| self.id(inst, i)).collect()
    }

    fn add_type(&mut self, id: Id, ty: Type) -> Result<()> {
        if self.types.insert(id, ty).is_some() || self.constants.contains_key(&id) {
            return Err(GraphError::spirv(format!("id {id} is defined twice")));
        }
        Ok(())
    }

    fn add_constant(&mut self, id: Id, c: Constant) -> Result<()> {
        if self.constants.insert(id, c).is_some() || self.types.contains_key(&id) {
            return Err(GraphError::spirv(format!("id {id} is defined twice")));
        }
        Ok(())
    }

    /// An instruction outside graph bodies.
    fn global(
        &mut self,
        inst: &Inst<'_>,
        in_function: &mut bool,
        graph: &mut Option<GraphDef>,
    ) -> Result<()> {
        match inst.opcode {
            op::CAPABILITY => self.capabilities.push(inst.word(0)?),
            op::EXTENSION => self.extensions.push(inst.string(0)?.0),
            op::EXT_INST_IMPORT => {
                let id = self.id(inst, 0)?;
                let name = inst.string(1)?.0;
                self.imports.insert(id, name);
            }
            op::NAME => {
                let id = self.id(inst, 0)?;
                let name = inst.string(1)?.0;
                self.names.insert(id, name);
            }
            op::ENTRY_POINT => self.has_shader_entry_points = true,
            op::MEMORY_MODEL => {}
            op::DECORATE => {
                let id = self.id(inst, 0)?;
                let value = inst.ops.get(2).copied();
                match (inst.word(1)?, value) {
                    (DECORATION_DESCRIPTOR_SET, Some(v)) => {
                        self.descriptor_sets.insert(id, v);
                    }
                    (DECORATION_BINDING, Some(v)) => {
                        self.bindings.insert(id, v);
                    }
                    (DECORATION_SPEC_ID, Some(v)) => {
                        self.spec_ids.insert(id, v);
                    }
                    _ => {}
                }
            }
            op::TYPE_VOID => self.add_type(self.id(inst, 0)?, Type::Void)?,
            op::TYPE_BOOL => self.add_type(self.id(inst, 0)?, Type::Bool)?,
            op::TYPE_INT => {
                let ty = Type::Int {
                    width: inst.word(1)?,
                    signed: inst.word(2)? != 0,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_FLOAT => {
                let ty = Type::Float {
                    width: inst.word(1)?,
                    encoding: inst.ops.get(2).copied(),
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_VECTOR => {
                let ty = Type::Vector {
                    elem: self.id(inst, 1)?,
                    count: inst.word(2)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_ARRAY => {
                let ty = Type::Array {
                    elem: self.id(inst, 1)?,
                    length: self.id(inst, 2)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_RUNTIME_ARRAY => {
                let ty = Type::RuntimeArray {
                    elem: self.id(inst, 1)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_STRUCT => {
                let ty = Type::Struct(self.ids_from(inst, 1)?);
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_POINTER => {
                let ty = Type::Pointer {
                    storage: inst.word(1)?,
                    pointee: self.id(inst, 2)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_FUNCTION => self.add_type(self.id(inst, 0)?, Type::Function)?,
            op::TYPE_TENSOR_ARM => {
                let ty = Type::Tensor {
                    elem: self.id(inst, 1)?,
                    rank: self.opt_id(inst, 2)?,
                    shape: self.opt_id(inst, 3)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::TYPE_GRAPH_ARM => {
                let ty = Type::Graph {
                    inputs: inst.word(1)?,
                    interface: self.ids_from(inst, 2)?,
                };
                self.add_type(self.id(inst, 0)?, ty)?
            }
            op::CONSTANT_TRUE
            | op::CONSTANT_FALSE
            | op::SPEC_CONSTANT_TRUE
            | op::SPEC_CONSTANT_FALSE => {
                let c = Constant::Bool {
                    ty: self.id(inst, 0)?,
                    value: matches!(inst.opcode, op::CONSTANT_TRUE | op::SPEC_CONSTANT_TRUE),
                    spec: matches!(
                        inst.opcode,
                        op::SPEC_CONSTANT_TRUE | op::SPEC_CONSTANT_FALSE
                    ),
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::CONSTANT | op::SPEC_CONSTANT => {
                let words = inst.ops.get(2..).unwrap_or(&[]).to_vec();
                if words.is_empty() || words.len() > 2 {
                    return Err(GraphError::spirv(format!(
                        "OpConstant {} has {} literal words",
                        inst.word(1)?,
                        words.len()
                    )));
                }
                let c = Constant::Scalar {
                    ty: self.id(inst, 0)?,
                    words,
                    spec: inst.opcode == op::SPEC_CONSTANT,
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::CONSTANT_COMPOSITE | op::SPEC_CONSTANT_COMPOSITE => {
                let c = Constant::Composite {
                    ty: self.id(inst, 0)?,
                    parts: self.ids_from(inst, 2)?,
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::CONSTANT_NULL => {
                let c = Constant::Null {
                    ty: self.id(inst, 0)?,
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::CONSTANT_COMPOSITE_REPLICATE_EXT | op::SPEC_CONSTANT_COMPOSITE_REPLICATE_EXT => {
                let c = Constant::Replicate {
                    ty: self.id(inst, 0)?,
                    part: self.id(inst, 2)?,
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::SPEC_CONSTANT_OP => {
                return Err(GraphError::new(
                    "Tessera",
                    format!(
                        "OpSpecConstantOp (id {}) is not supported in graph modules",
                        inst.word(1)?
                    ),
                ));
            }
            op::GRAPH_CONSTANT_ARM => {
                let c = Constant::Graph {
                    ty: self.id(inst, 0)?,
                    graph_constant_id: inst.word(2)?,
                };
                self.add_constant(self.id(inst, 1)?, c)?
            }
            op::VARIABLE => {
                let var = self.id(inst, 1)?;
                let ty = self.id(inst, 0)?;
                self.variables.insert(var, (ty, inst.word(2)?));
            }
            op::GRAPH_ENTRY_POINT_ARM => {
                let graph = self.id(inst, 0)?;
                let (name, next) = inst.string(1)?;
                let interface = self.ids_from(inst, next)?;
                self.entry_points.push(GraphEntryPoint {
                    graph,
                    name,
                    interface,
                });
            }
            op::GRAPH_ARM => {
                *graph = Some(GraphDef {
                    ty: self.id(inst, 0)?,
                    result: self.id(inst, 1)?,
                    inputs: Vec::new(),
                    body: Vec::new(),
                    outputs: Vec::new(),
                });
            }
            op::FUNCTION => *in_function = true,
            op::GRAPH_INPUT_ARM | op::GRAPH_SET_OUTPUT_ARM | op::GRAPH_END_ARM => {
                return Err(GraphError::new(
                    "SPV_ARM_graph",
                    format!("opcode {} outside a graph definition", inst.opcode),
                ));
            }
            // Everything else (debug info, execution modes, decorations we do not use,
            // types graphs never reference) is skipped.
            _ => {}
        }
        Ok(())
    }

    /// The scalar value of a (non-spec, or default) integer constant `id`.
    pub fn const_u32(&self, id: Id) -> Option<u32> {
        match self.constants.get(&id)? {
            Constant::Scalar { words, .. } => words.first().copied(),
            Constant::Null { .. } => Some(0),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_broken_headers_and_word_counts() {
        assert!(Module::read(&[]).is_err());
        assert!(Module::read(&[0x0723_0203, 0x10500, 0, 10]).is_err());
        assert!(Module::read(&[0x1234_5678, 0x10500, 0, 10, 0]).is_err());
        // An instruction claiming 5 words with 1 left.
        assert!(Module::read(&[0x0723_0203, 0x10500, 0, 10, 0, (5 << 16) | 17]).is_err());
        // Word count 0.
        assert!(Module::read(&[0x0723_0203, 0x10500, 0, 10, 0, 17]).is_err());
    }

    #[test]
    fn never_panics_on_truncations_and_bit_flips() {
        let words = crate::testing::add_module();
        assert!(Module::read(&words).is_ok());
        for n in 0..words.len() {
            let _ = Module::read(&words[..n]);
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut w = words.clone();
            let i = (state as usize) % w.len();
            w[i] ^= 1 << ((state >> 32) % 32);
            if let Ok(m) = Module::read(&w) {
                let _ = crate::decode::decode(&m, "main", &crate::decode::Inputs::default());
            }
        }
    }
}
