//! Specialisation and lowering: `rspirv` module + entry point + spec constants → [`Ir`].
//!
//! Owns: the capability/extension allow-list, the type table, constant evaluation (including
//! `OpSpecConstantOp`, folded by lowering the op into scratch IR and evaluating it with the same
//! `alu` functions the interpreter uses), global variable materialisation (descriptors → resource
//! slots, builtins and `Private`/`Function` variables → per-lane registers, `Workgroup` → shared
//! bytes), function inlining, scalarisation and block ordering. Subgroup built-ins are computed
//! from `LocalInvocationIndex` in the entry block; `OpGroupNonUniform*` become `Op::Sub` (see
//! `subgroup`), except ballot bit extraction and find-LSB/MSB, which are plain per-lane ALU ops.
//!
//! Invariants: every id lookup is checked (a bad id is an error, never a panic); values are
//! scalarised into registers; pointers are compile-time descriptors (base + constant offset +
//! optional per-lane dynamic offset register), so SPIR-V `Logical` addressing is required.

use crate::alu::{self, Conv, FBin, FCmp, FUn, IBin, ICmp, IUn, Tern};
use crate::ir::{Block, Builtins, DescIdx, Edge, Ir, Op, Reg, Space, TensorAcc, Term};
use crate::mem::AtomicOp;
use crate::subgroup::{Arith, SUBGROUP_SIZE, Scan, SubOp};
use crate::{Module, Program, ResourceDecl, ResourceKind, ScalarType, SpirvError};
use rspirv::dr::{Function, Instruction, Operand};
use rspirv::spirv::{
    BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, GroupOperation, Op as S, Scope,
    StorageClass,
};
use std::collections::HashMap;

type Id = u32;
type R<T> = Result<T, SpirvError>;
/// Per block label: the phis' result registers and their (value, parent label) pairs.
type PhiMap = HashMap<Id, Vec<(Vec<Reg>, Vec<(Id, Id)>)>>;

const MAX_LEAVES: u64 = 1 << 16;
const MAX_REGS: u32 = 1 << 18;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(SpirvError::new(msg))
}

/// A leaf scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sc {
    Bool,
    Int(u8, bool),
    Float(u8),
}

impl Sc {
    fn w(self) -> u8 {
        match self {
            Sc::Bool => 1,
            Sc::Int(w, _) | Sc::Float(w) => w,
        }
    }
    /// Size in memory (bools are 32-bit where they can be stored at all).
    fn bytes(self) -> u64 {
        match self {
            Sc::Bool => 4,
            _ => u64::from(self.bits() / 8),
        }
    }
    /// Real bit width (float encodings use width codes in `w`).
    fn bits(self) -> u8 {
        match self {
            Sc::Float(alu::W_BF16) => 16,
            Sc::Float(alu::W_E4M3 | alu::W_E5M2) => 8,
            other => other.w(),
        }
    }
    fn scalar_type(self) -> ScalarType {
        match self {
            Sc::Bool => ScalarType::Bool,
            Sc::Int(8, false) => ScalarType::U8,
            Sc::Int(8, true) => ScalarType::I8,
            Sc::Int(16, false) => ScalarType::U16,
            Sc::Int(16, true) => ScalarType::I16,
            Sc::Int(32, false) => ScalarType::U32,
            Sc::Int(32, true) => ScalarType::I32,
            Sc::Int(_, false) => ScalarType::U64,
            Sc::Int(_, true) => ScalarType::I64,
            Sc::Float(16) => ScalarType::F16,
            Sc::Float(32) => ScalarType::F32,
            Sc::Float(alu::W_BF16) => ScalarType::BF16,
            Sc::Float(alu::W_E4M3) => ScalarType::F8E4M3,
            Sc::Float(alu::W_E5M2) => ScalarType::F8E5M2,
            Sc::Float(_) => ScalarType::F64,
        }
    }
}

#[derive(Debug, Clone)]
enum Ty {
    Void,
    Scalar(Sc),
    Vector {
        elem: Id,
        n: u32,
    },
    Matrix {
        col: Id,
        n: u32,
    },
    Array {
        elem: Id,
        len: u32,
    },
    RuntimeArray {
        elem: Id,
    },
    Struct {
        members: Vec<Id>,
    },
    Pointer {
        pointee: Id,
    },
    Function,
    /// `rank` is `None` for an unranked type; `shape` indexes `Lower::shapes` for a shaped one.
    Tensor {
        elem: Sc,
        rank: Option<u32>,
        shape: Option<u16>,
    },
    Other(&'static str),
}

#[derive(Debug, Clone, Copy)]
enum PK {
    /// Per-lane registers `base..base+len`; offsets count leaves.
    Var {
        base: Reg,
        len: u32,
    },
    /// Byte-addressed memory.
    Mem(Space),
    /// An array of buffer descriptors, not yet indexed.
    BufArr {
        slot: u32,
    },
    Tensor {
        slot: u32,
        desc: DescIdx,
    },
    TensorArr {
        slot: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Ptr {
    pk: PK,
    ty: Id,
    off: u64,
    dynr: Option<Reg>,
    /// Explicit layout (buffers, push constants) vs natural (shared memory).
    explicit: bool,
    /// MatrixStride inherited from the struct member being pointed into.
    mstride: Option<u32>,
}

#[derive(Debug, Clone)]
enum Val {
    Regs(Vec<Reg>),
    Ptr(Ptr),
    Tensor(TensorAcc),
}

struct Lowerer<'m> {
    m: &'m Module,
    spec: &'m [(u32, Vec<u8>)],
    types: HashMap<Id, Ty>,
    consts: HashMap<Id, Vec<u64>>,
    const_regs: HashMap<Id, Vec<Reg>>,
    imms: HashMap<u64, Reg>,
    known: HashMap<Reg, u64>,
    decos: HashMap<Id, Vec<&'m Instruction>>,
    member_decos: HashMap<(Id, u32), Vec<&'m Instruction>>,
    globals: HashMap<Id, (Id, StorageClass, Option<Id>)>,
    global_vals: HashMap<Id, Val>,
    funcs: HashMap<Id, &'m Function>,
    id_types: HashMap<Id, Id>,
    glsl: Option<Id>,
    ignored_sets: Vec<Id>,
    nregs: u32,
    consts_init: Vec<(Reg, u64)>,
    blocks: Vec<Block>,
    cur: usize,
    scratch: Option<Vec<Op>>,
    resources: Vec<ResourceDecl>,
    push_size: u32,
    shared_size: u64,
    /// Shapes of shaped tensor types (`TensorAcc::shape` indexes this).
    shapes: Vec<Box<[u64]>>,
    /// See `Program::warnings`.
    warnings: Vec<String>,
    /// Register ranges of variables (built-ins, private and function variables): stored more
    /// than once and read out of SSA order, so `opt` never treats them as SSA values.
    var_ranges: Vec<(Reg, u32)>,
    builtins: Builtins,
    needs_whole: bool,
    local_size: [u32; 3],
    call_stack: Vec<Id>,
    entry_init: Vec<Op>,
    /// Where we are, for error messages.
    at: String,
}

fn lit(op: Option<&Operand>) -> R<u32> {
    match op {
        Some(Operand::LiteralBit32(v)) => Ok(*v),
        Some(Operand::LiteralExtInstInteger(v)) => Ok(*v),
        other => err(format!("expected a 32-bit literal, found {other:?}")),
    }
}

fn idref(op: Option<&Operand>) -> R<Id> {
    match op {
        Some(Operand::IdRef(v))
        | Some(Operand::IdScope(v))
        | Some(Operand::IdMemorySemantics(v)) => Ok(*v),
        other => err(format!("expected an id operand, found {other:?}")),
    }
}

fn opname(inst: &Instruction) -> String {
    format!("Op{} ({})", inst.class.opname, inst.class.opcode as u32)
}

/// Lowers `entry` of `m` with the given specialization values.
pub(crate) fn lower(m: &Module, entry: &str, spec: &[(u32, Vec<u8>)]) -> R<Program> {
    let mut l = Lowerer {
        m,
        spec,
        types: HashMap::new(),
        consts: HashMap::new(),
        const_regs: HashMap::new(),
        imms: HashMap::new(),
        known: HashMap::new(),
        decos: HashMap::new(),
        member_decos: HashMap::new(),
        globals: HashMap::new(),
        global_vals: HashMap::new(),
        funcs: HashMap::new(),
        id_types: HashMap::new(),
        glsl: None,
        ignored_sets: Vec::new(),
        nregs: 0,
        consts_init: Vec::new(),
        blocks: Vec::new(),
        cur: 0,
        scratch: None,
        resources: Vec::new(),
        push_size: 0,
        shared_size: 0,
        shapes: Vec::new(),
        warnings: Vec::new(),
        var_ranges: Vec::new(),
        builtins: Builtins::default(),
        needs_whole: false,
        local_size: [1, 1, 1],
        call_stack: Vec::new(),
        entry_init: Vec::new(),
        at: String::new(),
    };
    l.check_caps()?;
    l.collect()?;
    l.types_and_consts()?;
    let (func, local_size) = l.entry(entry)?;
    l.local_size = local_size;
    // Block 0 runs the private-variable initialisers, then jumps to the entry function.
    l.blocks.push(Block {
        ops: Vec::new(),
        term: Term::Exit,
        order_succ: Vec::new(),
    });
    l.cur = 0;
    l.call_stack.push(func);
    let first = l.lower_function(func, Vec::new(), None)?;
    let init = std::mem::take(&mut l.entry_init);
    l.blocks[0].ops = init;
    l.blocks[0].term = Term::Jump(Edge {
        target: first,
        moves: Vec::new(),
    });
    let mut blocks = order_blocks(std::mem::take(&mut l.blocks))?;
    crate::opt::optimize(
        &mut blocks,
        l.nregs,
        &l.var_ranges,
        &l.consts_init,
        &l.builtins,
    );
    crate::opt::merge_blocks(&mut blocks);
    let shared_size = u32::try_from(l.shared_size)
        .map_err(|_| SpirvError::new("workgroup memory larger than 4 GiB"))?;
    let ir = Ir {
        blocks,
        nregs: l.nregs,
        consts: l.consts_init,
        builtins: l.builtins,
        shared_size,
        needs_whole_group: l.needs_whole || shared_size > 0,
        shapes: l.shapes,
    };
    ir.verify()?;
    Ok(Program {
        ir,
        local_size,
        resources: l.resources,
        push_size: l.push_size,
        warnings: l.warnings,
    })
}

/// Orders blocks so that every non-back edge goes forward and every construct's blocks precede its
/// merge (DFS over edges + ordering successors, dropping edges to blocks on the DFS stack), drops
/// unreachable blocks and renumbers.
fn order_blocks(blocks: Vec<Block>) -> R<Vec<Block>> {
    let n = blocks.len();
    let succ = |b: &Block| -> Vec<u32> {
        let mut v: Vec<u32> = match &b.term {
            Term::Jump(e) => vec![e.target],
            Term::Branch { t, f, .. } => vec![t.target, f.target],
            Term::Switch { edges, .. } => edges.iter().map(|e| e.target).collect(),
            Term::Exit => vec![],
        };
        // Ordering successors are visited first so that merges end up after the constructs.
        let mut o = b.order_succ.clone();
        o.append(&mut v);
        o
    };
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(usize, Vec<u32>, usize)> = Vec::new();
    if n == 0 {
        return err("no blocks");
    }
    state[0] = 1;
    stack.push((0, succ(&blocks[0]), 0));
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let s = top.1[top.2] as usize;
            top.2 += 1;
            if s < n && state[s] == 0 {
                state[s] = 1;
                let ss = succ(&blocks[s]);
                stack.push((s, ss, 0));
            }
        } else {
            state[top.0] = 2;
            post.push(top.0);
            stack.pop();
        }
    }
    post.reverse();
    let mut newidx = vec![u32::MAX; n];
    for (i, &b) in post.iter().enumerate() {
        newidx[b] = i as u32;
    }
    let mut slots: Vec<Option<Block>> = blocks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(post.len());
    let fix = |e: &mut Edge| -> R<()> {
        let t = newidx.get(e.target as usize).copied().unwrap_or(u32::MAX);
        if t == u32::MAX {
            return err("branch to an unknown block");
        }
        e.target = t;
        Ok(())
    };
    for &b in &post {
        let Some(mut blk) = slots[b].take() else {
            return err("block ordering failed");
        };
        match &mut blk.term {
            Term::Jump(e) => fix(e)?,
            Term::Branch { t, f, .. } => {
                fix(t)?;
                fix(f)?;
            }
            Term::Switch { edges, .. } => {
                for e in edges {
                    fix(e)?;
                }
            }
            Term::Exit => {}
        }
        blk.order_succ.clear();
        out.push(blk);
    }
    Ok(out)
}

impl<'m> Lowerer<'m> {
    fn check_caps(&mut self) -> R<()> {
        use Capability as C;
        let dr = &self.m.dr;
        for inst in &dr.capabilities {
            let Some(Operand::Capability(c)) = inst.operands.first() else {
                return err("malformed OpCapability");
            };
            let ok = matches!(
                c,
                C::Shader
                    | C::Matrix
                    | C::Int8
                    | C::Int16
                    | C::Int64
                    | C::Float16
                    | C::Float64
                    | C::StorageBuffer8BitAccess
                    | C::UniformAndStorageBuffer8BitAccess
                    | C::StoragePushConstant8
                    | C::StorageBuffer16BitAccess
                    | C::UniformAndStorageBuffer16BitAccess
                    | C::StoragePushConstant16
                    | C::Int64Atomics
                    | C::TensorsARM
                    | C::StorageTensorArrayDynamicIndexingARM
                    | C::StorageTensorArrayNonUniformIndexingARM
                    | C::ShaderNonUniform
                    | C::RuntimeDescriptorArray
                    | C::StorageBufferArrayDynamicIndexing
                    | C::UniformBufferArrayDynamicIndexing
                    | C::StorageBufferArrayNonUniformIndexing
                    | C::UniformBufferArrayNonUniformIndexing
                    | C::VulkanMemoryModel
                    | C::VulkanMemoryModelDeviceScope
                    | C::DeviceGroup
                    // Float controls the device reports: IEEE behaviour is what the interpreter
                    // does anyway (no flush-to-zero, round to nearest even, signed zeros, infinities
                    // and NaNs kept). DenormFlushToZero and RoundingModeRTZ are not supported.
                    | C::DotProduct
                    | C::DotProductInputAll
                    | C::DotProductInput4x8Bit
                    | C::DotProductInput4x8BitPacked
                    | C::SignedZeroInfNanPreserve
                    | C::DenormPreserve
                    | C::RoundingModeRTE
                    | C::BFloat16TypeKHR
                    | C::BFloat16DotProductKHR
                    | C::Float8EXT
                    | C::GroupNonUniform
                    | C::GroupNonUniformVote
                    | C::GroupNonUniformArithmetic
                    | C::GroupNonUniformBallot
                    | C::GroupNonUniformShuffle
                    | C::GroupNonUniformShuffleRelative
                    | C::GroupNonUniformClustered
                    | C::GroupNonUniformQuad
            );
            if !ok {
                return err(format!("unsupported capability {c:?} ({})", *c as u32));
            }
        }
        for inst in &dr.extensions {
            let Some(Operand::LiteralString(s)) = inst.operands.first() else {
                return err("malformed OpExtension");
            };
            let ok = matches!(
                s.as_str(),
                "SPV_ARM_tensors"
                    | "SPV_KHR_storage_buffer_storage_class"
                    | "SPV_KHR_8bit_storage"
                    | "SPV_KHR_16bit_storage"
                    | "SPV_KHR_vulkan_memory_model"
                    | "SPV_EXT_descriptor_indexing"
                    | "SPV_KHR_non_semantic_info"
                    | "SPV_KHR_device_group"
                    | "SPV_KHR_float_controls"
                    | "SPV_KHR_integer_dot_product"
                    | "SPV_KHR_bfloat16"
                    | "SPV_EXT_float8"
            );
            if !ok {
                return err(format!("unsupported extension {s}"));
            }
        }
        for inst in &dr.ext_inst_imports {
            let (Some(id), Some(Operand::LiteralString(s))) =
                (inst.result_id, inst.operands.first())
            else {
                return err("malformed OpExtInstImport");
            };
            if s == "GLSL.std.450" {
                self.glsl = Some(id);
            } else if s.starts_with("NonSemantic.") {
                self.ignored_sets.push(id);
            } else {
                return err(format!("unsupported extended instruction set {s}"));
            }
        }
        if let Some(mm) = &dr.memory_model {
            if let Some(Operand::AddressingModel(a)) = mm.operands.first() {
                if *a != rspirv::spirv::AddressingModel::Logical {
                    return err(format!("unsupported addressing model {a:?}"));
                }
            }
        }
        Ok(())
    }

    fn collect(&mut self) -> R<()> {
        let dr = &self.m.dr;
        for inst in &dr.annotations {
            match inst.class.opcode {
                S::Decorate | S::DecorateId => {
                    let t = idref(inst.operands.first())?;
                    self.decos.entry(t).or_default().push(inst);
                }
                S::MemberDecorate => {
                    let t = idref(inst.operands.first())?;
                    let mi = lit(inst.operands.get(1))?;
                    self.member_decos.entry((t, mi)).or_default().push(inst);
                }
                _ => {}
            }
        }
        for f in &dr.functions {
            let Some(id) = f.def.as_ref().and_then(|d| d.result_id) else {
                return err("function without OpFunction");
            };
            self.funcs.insert(id, f);
            for inst in f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            {
                if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                    self.id_types.insert(r, t);
                }
            }
        }
        for inst in &dr.types_global_values {
            if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                self.id_types.insert(r, t);
            }
        }
        Ok(())
    }

    fn deco(&self, id: Id, d: Decoration) -> Option<&'m Instruction> {
        self.decos
            .get(&id)?
            .iter()
            .copied()
            .find(|i| matches!(i.operands.get(1), Some(Operand::Decoration(x)) if *x == d))
    }
    fn deco_lit(&self, id: Id, d: Decoration) -> Option<u32> {
        lit(self.deco(id, d)?.operands.get(2)).ok()
    }
    fn member_deco_lit(&self, id: Id, m: u32, d: Decoration) -> Option<u32> {
        let v = self.member_decos.get(&(id, m))?;
        let i = v
            .iter()
            .find(|i| matches!(i.operands.get(2), Some(Operand::Decoration(x)) if *x == d))?;
        lit(i.operands.get(3)).ok()
    }
    fn has_member_deco(&self, id: Id, m: u32, d: Decoration) -> bool {
        self.member_decos.get(&(id, m)).is_some_and(|v| {
            v.iter()
                .any(|i| matches!(i.operands.get(2), Some(Operand::Decoration(x)) if *x == d))
        })
    }

    fn ty(&self, id: Id) -> R<&Ty> {
        self.types
            .get(&id)
            .ok_or_else(|| SpirvError::new(format!("{}: %{id} is not a type", self.at)))
    }

    fn leaves(&self, id: Id) -> R<Vec<Sc>> {
        let mut out = Vec::new();
        self.leaves_into(id, &mut out, 0)?;
        Ok(out)
    }
    fn leaves_into(&self, id: Id, out: &mut Vec<Sc>, depth: u32) -> R<()> {
        if depth > 64 || out.len() as u64 > MAX_LEAVES {
            return err(format!("type %{id} is too large or too deeply nested"));
        }
        match self.ty(id)? {
            Ty::Scalar(s) => out.push(*s),
            Ty::Vector { elem, n } => {
                for _ in 0..*n {
                    self.leaves_into(*elem, out, depth + 1)?;
                }
            }
            Ty::Matrix { col: elem, n } | Ty::Array { elem, len: n } => {
                let mut one = Vec::new();
                self.leaves_into(*elem, &mut one, depth + 1)?;
                if (one.len() as u64) * u64::from(*n) + out.len() as u64 > MAX_LEAVES {
                    return err(format!("type %{id} is too large to hold in registers"));
                }
                for _ in 0..*n {
                    out.extend_from_slice(&one);
                }
            }
            Ty::Struct { members } => {
                for m in members.clone() {
                    self.leaves_into(m, out, depth + 1)?;
                }
            }
            Ty::Void | Ty::Pointer { .. } | Ty::Tensor { .. } | Ty::Function => {}
            Ty::RuntimeArray { .. } => {
                return err(format!("runtime array %{id} cannot be held in registers"));
            }
            Ty::Other(n) => return err(format!("unsupported type {n} (%{id})")),
        }
        Ok(())
    }
    fn nleaves(&self, id: Id) -> R<u32> {
        Ok(self.leaves(id)?.len() as u32)
    }

    /// Member/element type and leaf offset of composite index `k`.
    fn sub(&self, id: Id, k: u32) -> R<(Id, u32)> {
        match self.ty(id)?.clone() {
            Ty::Vector { elem, n } | Ty::Matrix { col: elem, n } | Ty::Array { elem, len: n } => {
                if k >= n {
                    return err(format!("{}: index {k} out of range for %{id}", self.at));
                }
                Ok((elem, k * self.nleaves(elem)?))
            }
            Ty::Struct { members } => {
                let Some(&m) = members.get(k as usize) else {
                    return err(format!("{}: member {k} out of range for %{id}", self.at));
                };
                let mut off = 0;
                for &p in &members[..k as usize] {
                    off += self.nleaves(p)?;
                }
                Ok((m, off))
            }
            _ => err(format!(
                "{}: cannot index into non-composite %{id}",
                self.at
            )),
        }
    }

    fn alloc(&mut self, n: u32) -> R<Reg> {
        let b = self.nregs;
        self.nregs = self
            .nregs
            .checked_add(n)
            .filter(|&x| x <= MAX_REGS)
            .ok_or_else(|| SpirvError::new("shader needs too many registers"))?;
        Ok(b)
    }
    fn alloc_v(&mut self, n: u32) -> R<Vec<Reg>> {
        let b = self.alloc(n)?;
        Ok((b..b + n).collect())
    }
    fn imm(&mut self, v: u64) -> R<Reg> {
        if let Some(&r) = self.imms.get(&v) {
            return Ok(r);
        }
        let r = self.alloc(1)?;
        self.consts_init.push((r, v));
        self.known.insert(r, v);
        self.imms.insert(v, r);
        Ok(r)
    }
    fn emit(&mut self, op: Op) {
        match &mut self.scratch {
            Some(s) => s.push(op),
            None => self.blocks[self.cur].ops.push(op),
        }
    }

    // ----------------------------------------------------------------- types and constants

    fn types_and_consts(&mut self) -> R<()> {
        let dr = &self.m.dr;
        for inst in &dr.types_global_values {
            self.at = format!(
                "{} at word {}",
                opname(inst),
                inst.result_id
                    .and_then(|i| self.m.id_offsets.get(&i))
                    .copied()
                    .unwrap_or(0)
            );
            self.type_or_const(inst)?;
        }
        Ok(())
    }

    fn const_u32(&self, id: Id) -> R<u32> {
        match self.consts.get(&id).map(|v| v.as_slice()) {
            Some([v]) => Ok(*v as u32),
            _ => err(format!("{}: %{id} is not a scalar constant", self.at)),
        }
    }

    fn spec_value(&self, id: Id, default: u64, w: u8) -> u64 {
        let Some(sid) = self.deco_lit(id, Decoration::SpecId) else {
            return default;
        };
        let Some((_, bytes)) = self.spec.iter().find(|(s, _)| *s == sid) else {
            return default;
        };
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        let v = u64::from_le_bytes(b);
        if w == 1 {
            u64::from(alu::trunc(v, 32) != 0)
        } else {
            alu::trunc(v, w)
        }
    }

    fn type_or_const(&mut self, inst: &'m Instruction) -> R<()> {
        let id = inst.result_id;
        let o = &inst.operands;
        let rid = || id.ok_or_else(|| SpirvError::new("missing result id"));
        let ty = match inst.class.opcode {
            S::TypeVoid => Some(Ty::Void),
            S::TypeBool => Some(Ty::Scalar(Sc::Bool)),
            S::TypeInt => {
                const FLOAT8_E4M3: u32 = 4214;
                const FLOAT8_E5M2: u32 = 4215;
                match self.m.float8_types.get(&rid()?) {
                    Some(&FLOAT8_E4M3) => {
                        self.types
                            .insert(rid()?, Ty::Scalar(Sc::Float(alu::W_E4M3)));
                        return Ok(());
                    }
                    Some(&FLOAT8_E5M2) => {
                        self.types
                            .insert(rid()?, Ty::Scalar(Sc::Float(alu::W_E5M2)));
                        return Ok(());
                    }
                    Some(enc) => {
                        return err(format!(
                            "{}: unsupported float encoding {enc} for width 8",
                            self.at
                        ));
                    }
                    None => {}
                }
                let w = lit(o.first())?;
                let s = lit(o.get(1))? != 0;
                if !matches!(w, 8 | 16 | 32 | 64) {
                    return err(format!("{}: unsupported integer width {w}", self.at));
                }
                Some(Ty::Scalar(Sc::Int(w as u8, s)))
            }
            S::TypeFloat => {
                use rspirv::spirv::FPEncoding as E;
                let w = lit(o.first())?;
                if let Some(enc) = o.get(1) {
                    match (w, enc) {
                        (16, Operand::FPEncoding(E::BFloat16KHR)) => {
                            Some(Ty::Scalar(Sc::Float(alu::W_BF16)))
                        }
                        (8, Operand::FPEncoding(E::Float8E4M3EXT)) => {
                            Some(Ty::Scalar(Sc::Float(alu::W_E4M3)))
                        }
                        (8, Operand::FPEncoding(E::Float8E5M2EXT)) => {
                            Some(Ty::Scalar(Sc::Float(alu::W_E5M2)))
                        }
                        _ => {
                            return err(format!(
                                "{}: unsupported float encoding {enc:?} for width {w}",
                                self.at
                            ));
                        }
                    }
                } else if matches!(w, 16 | 32 | 64) {
                    Some(Ty::Scalar(Sc::Float(w as u8)))
                } else {
                    return err(format!("{}: unsupported float width {w}", self.at));
                }
            }
            S::TypeVector => Some(Ty::Vector {
                elem: idref(o.first())?,
                n: lit(o.get(1))?,
            }),
            S::TypeMatrix => Some(Ty::Matrix {
                col: idref(o.first())?,
                n: lit(o.get(1))?,
            }),
            S::TypeArray => {
                let len = self.const_u32(idref(o.get(1))?)?;
                Some(Ty::Array {
                    elem: idref(o.first())?,
                    len,
                })
            }
            S::TypeRuntimeArray => Some(Ty::RuntimeArray {
                elem: idref(o.first())?,
            }),
            S::TypeStruct => Some(Ty::Struct {
                members: o.iter().map(|x| idref(Some(x))).collect::<R<_>>()?,
            }),
            S::TypePointer => match o.first() {
                Some(Operand::StorageClass(_)) => Some(Ty::Pointer {
                    pointee: idref(o.get(1))?,
                }),
                _ => return err(format!("{}: malformed pointer type", self.at)),
            },
            S::TypeFunction => Some(Ty::Function),
            S::TypeTensorARM => {
                let elem = match self.ty(idref(o.first())?)? {
                    Ty::Scalar(s) => *s,
                    _ => return err(format!("{}: tensor element type must be a scalar", self.at)),
                };
                let rank = match o.get(1) {
                    Some(x) => Some(self.const_u32(idref(Some(x))?)?),
                    None => None,
                };
                if rank.is_none() {
                    self.warnings.push(format!(
                        "{}: OpTypeTensorARM without a Rank (VUID-RuntimeSpirv-OpTypeTensorARM-09907); \
                         it cannot be accessed",
                        self.at
                    ));
                }
                let shape = match o.get(2) {
                    Some(x) => {
                        let sid = idref(Some(x))?;
                        let dims = match self.consts.get(&sid) {
                            Some(v) if Some(v.len() as u32) == rank => v.clone(),
                            _ => {
                                return err(format!(
                                    "{}: the Shape of OpTypeTensorARM must be a constant array of Rank integers",
                                    self.at
                                ));
                            }
                        };
                        self.warnings.push(format!(
                            "{}: OpTypeTensorARM with a Shape (VUID-RuntimeSpirv-OpTypeTensorARM-09902); \
                             accesses to a tensor of another shape read zero and drop writes",
                            self.at
                        ));
                        let Ok(n) = u16::try_from(self.shapes.len()) else {
                            return err("too many shaped tensor types");
                        };
                        self.shapes.push(dims.into_boxed_slice());
                        Some(n)
                    }
                    None => None,
                };
                Some(Ty::Tensor { elem, rank, shape })
            }
            S::TypeImage => Some(Ty::Other("OpTypeImage")),
            S::TypeSampler => Some(Ty::Other("OpTypeSampler")),
            S::TypeSampledImage => Some(Ty::Other("OpTypeSampledImage")),
            S::TypeForwardPointer => {
                return err(format!("{}: physical pointers are not supported", self.at));
            }
            _ => None,
        };
        if let Some(t) = ty {
            self.types.insert(rid()?, t);
            return Ok(());
        }
        let rt = inst.result_type.unwrap_or(0);
        match inst.class.opcode {
            S::ConstantTrue | S::ConstantFalse => {
                self.consts.insert(
                    rid()?,
                    vec![u64::from(inst.class.opcode == S::ConstantTrue)],
                );
            }
            S::SpecConstantTrue | S::SpecConstantFalse => {
                let d = u64::from(inst.class.opcode == S::SpecConstantTrue);
                let v = self.spec_value(rid()?, d, 1);
                self.consts.insert(rid()?, vec![v]);
            }
            S::Constant | S::SpecConstant => {
                let leaves = self.leaves(rt)?;
                let [sc] = leaves.as_slice() else {
                    return err(format!("{}: constant of non-scalar type", self.at));
                };
                let v = match o.first() {
                    Some(Operand::LiteralBit32(v)) => u64::from(*v),
                    Some(Operand::LiteralBit64(v)) => *v,
                    _ => return err(format!("{}: malformed constant", self.at)),
                };
                let v = alu::trunc(v, sc.w());
                let v = if inst.class.opcode == S::SpecConstant {
                    self.spec_value(rid()?, v, sc.w())
                } else {
                    v
                };
                self.consts.insert(rid()?, vec![v]);
            }
            S::ConstantComposite | S::SpecConstantComposite => {
                let mut v = Vec::new();
                for x in o {
                    let c = idref(Some(x))?;
                    match self.consts.get(&c) {
                        Some(cv) => v.extend_from_slice(cv),
                        None => {
                            return err(format!("{}: constituent %{c} is not a constant", self.at));
                        }
                    }
                }
                if v.len() as u32 != self.nleaves(rt)? {
                    return err(format!("{}: wrong number of constituents", self.at));
                }
                self.consts.insert(rid()?, v);
            }
            S::ConstantNull | S::Undef => {
                let n = self.nleaves(rt)?;
                self.consts.insert(rid()?, vec![0; n as usize]);
            }
            S::SpecConstantOp => {
                let Some(Operand::LiteralSpecConstantOpInteger(op)) = o.first() else {
                    return err(format!("{}: malformed OpSpecConstantOp", self.at));
                };
                let inner =
                    Instruction::new(*op, inst.result_type, inst.result_id, o[1..].to_vec());
                self.fold(&inner)?;
            }
            S::Variable => {
                let sc = match o.first() {
                    Some(Operand::StorageClass(sc)) => *sc,
                    _ => return err(format!("{}: malformed OpVariable", self.at)),
                };
                let init = match o.get(1) {
                    Some(x) => Some(idref(Some(x))?),
                    None => None,
                };
                self.globals.insert(rid()?, (rt, sc, init));
            }
            S::String | S::Line | S::NoLine | S::ExtInst => {}
            _ => return err(format!("unsupported global instruction {}", self.at)),
        }
        Ok(())
    }

    /// Folds a spec-constant operation by lowering it into scratch IR and evaluating that.
    fn fold(&mut self, inst: &Instruction) -> R<()> {
        let rid = inst
            .result_id
            .ok_or_else(|| SpirvError::new("missing result id"))?;
        self.scratch = Some(Vec::new());
        let mut vals = HashMap::new();
        let res = self.lower_inst(inst, &mut vals);
        let ops = self.scratch.take().unwrap_or_default();
        res?;
        for op in &ops {
            let v = |r: &Reg| {
                self.known
                    .get(r)
                    .copied()
                    .ok_or_else(|| SpirvError::new("OpSpecConstantOp operand is not constant"))
            };
            let (d, x) = match op {
                Op::Mov { d, a } => (*d, v(a)?),
                Op::IBin { op, w, d, a, b } => (*d, alu::ibin(*op, *w, v(a)?, v(b)?)),
                Op::IUn { op, w, d, a } => (*d, alu::iun(*op, *w, v(a)?)),
                Op::ICmp { op, w, d, a, b } => (*d, alu::icmp(*op, *w, v(a)?, v(b)?)),
                Op::FBin { op, w, d, a, b } => (*d, alu::fbin(*op, *w, v(a)?, v(b)?)),
                Op::FUn { op, w, d, a } => (*d, alu::fun(*op, *w, v(a)?)),
                Op::FCmp { op, w, d, a, b } => (*d, alu::fcmp(*op, *w, v(a)?, v(b)?)),
                Op::Tern { op, w, d, a, b, c } => (*d, alu::tern(*op, *w, v(a)?, v(b)?, v(c)?)),
                Op::Conv { op, from, to, d, a } => (*d, alu::conv(*op, *from, *to, v(a)?)),
                Op::Select { d, c, a, b } => (*d, if v(c)? != 0 { v(a)? } else { v(b)? }),
                _ => {
                    return err(format!(
                        "{}: OpSpecConstantOp of a non-constant operation",
                        self.at
                    ));
                }
            };
            self.known.insert(d, x);
        }
        let Some(Val::Regs(regs)) = vals.get(&rid) else {
            return err(format!(
                "{}: OpSpecConstantOp did not produce a value",
                self.at
            ));
        };
        let mut out = Vec::new();
        for r in regs {
            out.push(
                self.known
                    .get(r)
                    .copied()
                    .ok_or_else(|| SpirvError::new("OpSpecConstantOp result is not constant"))?,
            );
        }
        self.consts.insert(rid, out);
        Ok(())
    }

    // ----------------------------------------------------------------- entry point

    fn entry(&mut self, name: &str) -> R<(Id, [u32; 3])> {
        let dr = &self.m.dr;
        let mut found = None;
        for ep in &dr.entry_points {
            let model = matches!(
                ep.operands.first(),
                Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
            );
            let n = matches!(ep.operands.get(2), Some(Operand::LiteralString(s)) if s == name);
            if n && model {
                found = Some(idref(ep.operands.get(1))?);
            }
        }
        let Some(f) = found else {
            return err(format!("no GLCompute entry point named {name:?}"));
        };
        if !self.funcs.contains_key(&f) {
            return err(format!(
                "entry point {name:?} names %{f}, which is not a function"
            ));
        }
        let mut ls = [1u32, 1, 1];
        for em in &dr.execution_modes {
            if idref(em.operands.first())? != f {
                continue;
            }
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    for (i, l) in ls.iter_mut().enumerate() {
                        *l = lit(em.operands.get(2 + i))?;
                    }
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    for (i, l) in ls.iter_mut().enumerate() {
                        *l = self.const_u32(idref(em.operands.get(2 + i))?)?;
                    }
                }
                _ => {}
            }
        }
        for (ep, mode, ids) in &self.m.mode_ids {
            if *ep == f && *mode == ExecutionMode::LocalSizeId as u32 {
                for (i, l) in ls.iter_mut().enumerate() {
                    let id = *ids
                        .get(i)
                        .ok_or_else(|| SpirvError::new("LocalSizeId needs three ids"))?;
                    *l = self.const_u32(id)?;
                }
            }
        }
        // A constant decorated BuiltIn WorkgroupSize overrides the execution mode.
        for (&id, v) in &self.consts {
            let is_wgs = self.decos.get(&id).is_some_and(|ds| {
                ds.iter().any(|d| {
                    matches!(
                        (d.operands.get(1), d.operands.get(2)),
                        (
                            Some(Operand::Decoration(Decoration::BuiltIn)),
                            Some(Operand::BuiltIn(BuiltIn::WorkgroupSize))
                        )
                    )
                })
            });
            if is_wgs && v.len() == 3 {
                ls = [v[0] as u32, v[1] as u32, v[2] as u32];
            }
        }
        let total = u64::from(ls[0]) * u64::from(ls[1]) * u64::from(ls[2]);
        if total == 0 || total > 4096 {
            return err(format!("unsupported workgroup size {ls:?}"));
        }
        Ok((f, ls))
    }

    // ----------------------------------------------------------------- values

    fn val(&mut self, vals: &HashMap<Id, Val>, id: Id) -> R<Val> {
        if let Some(v) = vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(r) = self.const_regs.get(&id) {
            return Ok(Val::Regs(r.clone()));
        }
        if let Some(c) = self.consts.get(&id).cloned() {
            let mut regs = Vec::with_capacity(c.len());
            for v in c {
                regs.push(self.imm(v)?);
            }
            self.const_regs.insert(id, regs.clone());
            return Ok(Val::Regs(regs));
        }
        if let Some(v) = self.global_vals.get(&id) {
            return Ok(v.clone());
        }
        if self.globals.contains_key(&id) {
            let v = self.global(id)?;
            self.global_vals.insert(id, v.clone());
            return Ok(v);
        }
        err(format!(
            "{}: unknown or forward-referenced id %{id}",
            self.at
        ))
    }

    fn regs(&mut self, vals: &HashMap<Id, Val>, id: Id) -> R<Vec<Reg>> {
        match self.val(vals, id)? {
            Val::Regs(r) => Ok(r),
            _ => err(format!("{}: %{id} is not a plain value", self.at)),
        }
    }
    fn reg1(&mut self, vals: &HashMap<Id, Val>, id: Id) -> R<Reg> {
        match self.regs(vals, id)?.as_slice() {
            [r] => Ok(*r),
            _ => err(format!("{}: %{id} is not a scalar", self.at)),
        }
    }
    fn ptr(&mut self, vals: &HashMap<Id, Val>, id: Id) -> R<Ptr> {
        match self.val(vals, id)? {
            Val::Ptr(p) => Ok(p),
            _ => err(format!("{}: %{id} is not a pointer", self.at)),
        }
    }

    fn binding(&self, id: Id) -> (u32, u32) {
        (
            self.deco_lit(id, Decoration::DescriptorSet).unwrap_or(0),
            self.deco_lit(id, Decoration::Binding).unwrap_or(0),
        )
    }

    fn add_resource(&mut self, id: Id, kind: ResourceKind, array_len: Option<u32>) -> u32 {
        let (set, binding) = self.binding(id);
        self.resources.push(ResourceDecl {
            set,
            binding,
            kind,
            array_len,
        });
        (self.resources.len() - 1) as u32
    }

    fn global(&mut self, id: Id) -> R<Val> {
        let (pty, sc, init) = self.globals[&id];
        let pointee = match self.ty(pty)? {
            Ty::Pointer { pointee, .. } => *pointee,
            _ => return err(format!("variable %{id} does not have a pointer type")),
        };
        let mk = |pk, explicit| Ptr {
            pk,
            ty: pointee,
            off: 0,
            dynr: None,
            explicit,
            mstride: None,
        };
        match sc {
            StorageClass::Input => {
                let Some(d) = self.deco(id, Decoration::BuiltIn) else {
                    return err(format!("Input variable %{id} is not a compute built-in"));
                };
                let Some(Operand::BuiltIn(b)) = d.operands.get(2) else {
                    return err("malformed BuiltIn");
                };
                let n = self.nleaves(pointee)?;
                if let Some(base) = self.subgroup_builtin(*b, pointee, n)? {
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PK::Var { base, len: n }, false)));
                }
                if *b == BuiltIn::LocalInvocationIndex && n == 1 {
                    let base = self.local_index_reg()?;
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PK::Var { base, len: n }, false)));
                }
                if *b == BuiltIn::DeviceIndex && n == 1 {
                    // One physical device per device group: always device 0.
                    let base = self.alloc(1)?;
                    let zero = self.imm(0)?;
                    self.entry_init.push(Op::Mov { d: base, a: zero });
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PK::Var { base, len: n }, false)));
                }
                let base = self.alloc(n)?;
                let slot = match b {
                    BuiltIn::GlobalInvocationId => &mut self.builtins.global_id,
                    BuiltIn::LocalInvocationId => &mut self.builtins.local_id,
                    BuiltIn::WorkgroupId => &mut self.builtins.workgroup_id,
                    BuiltIn::NumWorkgroups => &mut self.builtins.num_workgroups,
                    BuiltIn::LocalInvocationIndex => &mut self.builtins.local_index,
                    other => return err(format!("unsupported built-in {other:?}")),
                };
                let want = if *b == BuiltIn::LocalInvocationIndex {
                    1
                } else {
                    3
                };
                if n != want {
                    return err(format!(
                        "built-in {b:?} has {n} components, expected {want}"
                    ));
                }
                *slot = Some(base);
                self.var_ranges.push((base, n));
                Ok(Val::Ptr(mk(PK::Var { base, len: n }, false)))
            }
            StorageClass::Private | StorageClass::Function => {
                let n = self.nleaves(pointee)?;
                let base = self.alloc(n)?;
                // Private variables start from their initializer, or zero (deterministic rather
                // than whatever the previous lane group left in the registers).
                let src = match init {
                    Some(i) => self.regs(&HashMap::new(), i)?,
                    None => vec![self.imm(0)?; n as usize],
                };
                for (k, s) in src.into_iter().enumerate() {
                    self.entry_init.push(Op::Mov {
                        d: base + k as u32,
                        a: s,
                    });
                }
                self.var_ranges.push((base, n));
                Ok(Val::Ptr(mk(PK::Var { base, len: n }, false)))
            }
            StorageClass::Workgroup => {
                let (size, align) = self.nat(pointee, 0)?;
                let off = self.shared_size.div_ceil(align) * align;
                self.shared_size = off + size;
                if self.shared_size > (1 << 26) {
                    return err("workgroup memory too large");
                }
                self.needs_whole = true;
                let mut p = mk(PK::Mem(Space::Shared), false);
                p.off = off;
                Ok(Val::Ptr(p))
            }
            StorageClass::PushConstant => {
                let size = self.explicit_size(pointee)?;
                self.push_size = self.push_size.max(u32::try_from(size).unwrap_or(u32::MAX));
                Ok(Val::Ptr(mk(PK::Mem(Space::Push), true)))
            }
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                let (block, arr) = match self.ty(pointee)?.clone() {
                    Ty::Array { elem, len } => (elem, Some(len)),
                    Ty::RuntimeArray { elem } => (elem, Some(0)),
                    _ => (pointee, None),
                };
                let kind = if sc == StorageClass::StorageBuffer
                    || self.deco(block, Decoration::BufferBlock).is_some()
                {
                    ResourceKind::StorageBuffer
                } else {
                    ResourceKind::UniformBuffer
                };
                let slot = self.add_resource(id, kind, arr);
                if arr.is_some() {
                    Ok(Val::Ptr(mk(PK::BufArr { slot }, true)))
                } else {
                    Ok(Val::Ptr(mk(
                        PK::Mem(Space::Buffer {
                            slot,
                            desc: DescIdx::Const(0),
                        }),
                        true,
                    )))
                }
            }
            StorageClass::UniformConstant => {
                let (tt, arr) = match self.ty(pointee)?.clone() {
                    Ty::Array { elem, len } => (elem, Some(len)),
                    Ty::RuntimeArray { elem } => (elem, Some(0)),
                    _ => (pointee, None),
                };
                let Ty::Tensor { elem, rank, .. } = self.ty(tt)?.clone() else {
                    return err(format!(
                        "UniformConstant variable %{id} is not a tensor (images/samplers are not supported)"
                    ));
                };
                let slot = self.add_resource(
                    id,
                    ResourceKind::Tensor {
                        rank,
                        element: elem.scalar_type(),
                    },
                    arr,
                );
                let mut p = mk(
                    if arr.is_some() {
                        PK::TensorArr { slot }
                    } else {
                        PK::Tensor {
                            slot,
                            desc: DescIdx::Const(0),
                        }
                    },
                    false,
                );
                p.ty = if arr.is_some() { pointee } else { tt };
                Ok(Val::Ptr(p))
            }
            other => err(format!(
                "unsupported storage class {other:?} for variable %{id}"
            )),
        }
    }

    // ----------------------------------------------------------------- layout

    /// Natural (size, align) in bytes.
    fn nat(&self, id: Id, depth: u32) -> R<(u64, u64)> {
        if depth > 64 {
            return err("type nesting too deep");
        }
        Ok(match self.ty(id)?.clone() {
            Ty::Scalar(s) => (s.bytes(), s.bytes()),
            Ty::Vector { elem, n } | Ty::Matrix { col: elem, n } | Ty::Array { elem, len: n } => {
                let (s, a) = self.nat(elem, depth + 1)?;
                let stride = s.div_ceil(a) * a;
                (stride.saturating_mul(u64::from(n)), a)
            }
            Ty::Struct { members } => {
                let (mut off, mut al) = (0u64, 1u64);
                for m in members {
                    let (s, a) = self.nat(m, depth + 1)?;
                    off = off.div_ceil(a) * a + s;
                    al = al.max(a);
                }
                (off.div_ceil(al) * al, al)
            }
            _ => return err(format!("type %{id} has no natural memory layout")),
        })
    }

    fn member_offset(&self, st: Id, k: u32, explicit: bool) -> R<u64> {
        if explicit {
            if let Some(o) = self.member_deco_lit(st, k, Decoration::Offset) {
                return Ok(u64::from(o));
            }
        }
        let Ty::Struct { members } = self.ty(st)?.clone() else {
            return err("not a struct");
        };
        let mut off = 0u64;
        for (i, m) in members.iter().enumerate() {
            let (s, a) = self.nat(*m, 0)?;
            off = off.div_ceil(a) * a;
            if i as u32 == k {
                return Ok(off);
            }
            off += s;
        }
        err(format!("{}: member {k} out of range", self.at))
    }

    fn elem_stride(&self, id: Id, explicit: bool, mstride: Option<u32>) -> R<(Id, u64)> {
        match self.ty(id)?.clone() {
            Ty::Array { elem, .. } | Ty::RuntimeArray { elem } => {
                if explicit {
                    if let Some(s) = self.deco_lit(id, Decoration::ArrayStride) {
                        return Ok((elem, u64::from(s)));
                    }
                }
                let (s, a) = self.nat(elem, 0)?;
                Ok((elem, s.div_ceil(a) * a))
            }
            Ty::Matrix { col, .. } => {
                if let (true, Some(s)) = (explicit, mstride) {
                    return Ok((col, u64::from(s)));
                }
                Ok((col, self.nat(col, 0)?.0))
            }
            Ty::Vector { elem, .. } => Ok((elem, self.nat(elem, 0)?.0)),
            _ => err(format!("{}: cannot index %{id}", self.at)),
        }
    }

    /// Byte offsets and scalar types of every leaf of `id` laid out at `base`.
    fn mem_leaves(
        &self,
        id: Id,
        explicit: bool,
        mstride: Option<u32>,
        base: u64,
        out: &mut Vec<(u64, Sc)>,
    ) -> R<()> {
        if out.len() as u64 > MAX_LEAVES {
            return err("memory access too large");
        }
        match self.ty(id)?.clone() {
            Ty::Scalar(s) => out.push((base, s)),
            Ty::Vector { n, .. } | Ty::Matrix { n, .. } | Ty::Array { len: n, .. } => {
                let (elem, stride) = self.elem_stride(id, explicit, mstride)?;
                for i in 0..u64::from(n) {
                    self.mem_leaves(elem, explicit, mstride, base + i * stride, out)?;
                }
            }
            Ty::Struct { members } => {
                for (i, m) in members.iter().enumerate() {
                    let off = self.member_offset(id, i as u32, explicit)?;
                    let ms = self.member_deco_lit(id, i as u32, Decoration::MatrixStride);
                    if explicit && self.has_member_deco(id, i as u32, Decoration::RowMajor) {
                        return err("row-major matrices in buffers are not supported");
                    }
                    self.mem_leaves(*m, explicit, ms, base + off, out)?;
                }
            }
            _ => {
                return err(format!(
                    "{}: type %{id} cannot be loaded or stored as a whole",
                    self.at
                ));
            }
        }
        Ok(())
    }

    fn explicit_size(&self, id: Id) -> R<u64> {
        let mut v = Vec::new();
        match self.mem_leaves(id, true, None, 0, &mut v) {
            Ok(()) => Ok(v.iter().map(|(o, s)| o + s.bytes()).max().unwrap_or(0)),
            Err(_) => Ok(0),
        }
    }

    // ----------------------------------------------------------------- functions

    fn lower_function(&mut self, fid: Id, args: Vec<Val>, ret: Option<(u32, Vec<Reg>)>) -> R<u32> {
        let f: &'m Function = self
            .funcs
            .get(&fid)
            .copied()
            .ok_or_else(|| SpirvError::new(format!("unknown function %{fid}")))?;
        let mut vals: HashMap<Id, Val> = HashMap::new();
        if f.parameters.len() != args.len() {
            return err(format!(
                "call to %{fid} passes {} arguments, it takes {}",
                args.len(),
                f.parameters.len()
            ));
        }
        for (p, a) in f.parameters.iter().zip(args) {
            let pid = p
                .result_id
                .ok_or_else(|| SpirvError::new("parameter without id"))?;
            vals.insert(pid, a);
        }
        if f.blocks.is_empty() {
            return err(format!("function %{fid} has no body"));
        }
        let mut label_map: HashMap<Id, u32> = HashMap::new();
        for b in &f.blocks {
            let lid = b
                .label_id()
                .ok_or_else(|| SpirvError::new("block without label"))?;
            label_map.insert(lid, self.blocks.len() as u32);
            self.blocks.push(Block {
                ops: Vec::new(),
                term: Term::Exit,
                order_succ: Vec::new(),
            });
        }
        // Phis: allocate result registers up front.
        let mut phis: PhiMap = HashMap::new();
        for b in &f.blocks {
            let lid = b.label_id().unwrap_or(0);
            for inst in &b.instructions {
                if inst.class.opcode != S::Phi {
                    continue;
                }
                let rid = inst
                    .result_id
                    .ok_or_else(|| SpirvError::new("OpPhi without result"))?;
                let n = self.nleaves(inst.result_type.unwrap_or(0))?;
                if !matches!(
                    self.ty(inst.result_type.unwrap_or(0))?,
                    Ty::Scalar(_)
                        | Ty::Vector { .. }
                        | Ty::Matrix { .. }
                        | Ty::Array { .. }
                        | Ty::Struct { .. }
                ) {
                    return err(format!("OpPhi %{rid} of non-value type is not supported"));
                }
                let regs = self.alloc_v(n)?;
                let mut inc = Vec::new();
                for pair in inst.operands.chunks(2) {
                    inc.push((idref(pair.first())?, idref(pair.get(1))?));
                }
                vals.insert(rid, Val::Regs(regs.clone()));
                phis.entry(lid).or_default().push((regs, inc));
            }
        }
        let entry = label_map[&f.blocks[0].label_id().unwrap_or(0)];
        for b in &f.blocks {
            let lid = b.label_id().unwrap_or(0);
            self.cur = label_map[&lid] as usize;
            for inst in &b.instructions {
                self.at = format!(
                    "{} in block %{lid} (word {})",
                    opname(inst),
                    self.m
                        .id_offsets
                        .get(&inst.result_id.unwrap_or(lid))
                        .copied()
                        .unwrap_or(0)
                );
                let target = |l: &Lowerer, o: Option<&Operand>| -> R<u32> {
                    let t = idref(o)?;
                    label_map.get(&t).copied().ok_or_else(|| {
                        SpirvError::new(format!("{}: %{t} is not a block of this function", l.at))
                    })
                };
                match inst.class.opcode {
                    S::Phi | S::Line | S::NoLine | S::Nop => {}
                    S::LoopMerge => {
                        let merge = target(self, inst.operands.first())?;
                        let cont = target(self, inst.operands.get(1))?;
                        self.blocks[cont as usize].order_succ.push(merge);
                        let c = self.cur;
                        self.blocks[c].order_succ.push(merge);
                    }
                    S::SelectionMerge => {
                        let merge = target(self, inst.operands.first())?;
                        let c = self.cur;
                        self.blocks[c].order_succ.push(merge);
                    }
                    S::Branch => {
                        let t = target(self, inst.operands.first())?;
                        let e = self.edge(&vals, &phis, lid, idref(inst.operands.first())?, t)?;
                        let c = self.cur;
                        self.blocks[c].term = Term::Jump(e);
                    }
                    S::BranchConditional => {
                        let c = self.reg1(&vals, idref(inst.operands.first())?)?;
                        let tl = idref(inst.operands.get(1))?;
                        let fl = idref(inst.operands.get(2))?;
                        let t =
                            self.edge(&vals, &phis, lid, tl, target(self, inst.operands.get(1))?)?;
                        let fe =
                            self.edge(&vals, &phis, lid, fl, target(self, inst.operands.get(2))?)?;
                        let cur = self.cur;
                        self.blocks[cur].term = Term::Branch { c, t, f: fe };
                    }
                    S::Switch => {
                        let sel = self.reg1(&vals, idref(inst.operands.first())?)?;
                        let dl = idref(inst.operands.get(1))?;
                        let mut edges = vec![self.edge(
                            &vals,
                            &phis,
                            lid,
                            dl,
                            target(self, inst.operands.get(1))?,
                        )?];
                        let mut cases = Vec::new();
                        for pair in inst.operands[2..].chunks(2) {
                            let v = match pair.first() {
                                Some(Operand::LiteralBit32(v)) => u64::from(*v),
                                Some(Operand::LiteralBit64(v)) => *v,
                                _ => return err(format!("{}: malformed case literal", self.at)),
                            };
                            let l = idref(pair.get(1))?;
                            let e = self.edge(&vals, &phis, lid, l, target(self, pair.get(1))?)?;
                            edges.push(e);
                            cases.push((v, edges.len() - 1));
                        }
                        let c = self.cur;
                        self.blocks[c].term = Term::Switch { sel, cases, edges };
                    }
                    S::Return | S::ReturnValue => {
                        let c = self.cur;
                        self.blocks[c].term = match &ret {
                            None => Term::Exit,
                            Some((cont, rregs)) => {
                                let mut moves = Vec::new();
                                if inst.class.opcode == S::ReturnValue {
                                    let v = self.regs(&vals, idref(inst.operands.first())?)?;
                                    if v.len() != rregs.len() {
                                        return err(format!(
                                            "{}: return value has the wrong type",
                                            self.at
                                        ));
                                    }
                                    moves = rregs.iter().copied().zip(v).collect();
                                }
                                Term::Jump(Edge {
                                    target: *cont,
                                    moves,
                                })
                            }
                        };
                    }
                    S::Kill | S::TerminateInvocation | S::Unreachable => {
                        let c = self.cur;
                        self.blocks[c].term = Term::Exit;
                    }
                    S::FunctionCall => {
                        let callee = idref(inst.operands.first())?;
                        if self.call_stack.contains(&callee) {
                            return err(format!("{}: recursion through %{callee}", self.at));
                        }
                        if self.call_stack.len() > 64 {
                            return err("call depth too large");
                        }
                        let mut args = Vec::new();
                        for a in &inst.operands[1..] {
                            args.push(self.val(&vals, idref(Some(a))?)?);
                        }
                        let rt = inst.result_type.unwrap_or(0);
                        let n = self.nleaves(rt)?;
                        let rregs = self.alloc_v(n)?;
                        let cont = self.blocks.len() as u32;
                        self.blocks.push(Block {
                            ops: Vec::new(),
                            term: Term::Exit,
                            order_succ: Vec::new(),
                        });
                        let caller_cur = self.cur;
                        self.call_stack.push(callee);
                        let centry =
                            self.lower_function(callee, args, Some((cont, rregs.clone())))?;
                        self.call_stack.pop();
                        self.blocks[caller_cur].term = Term::Jump(Edge {
                            target: centry,
                            moves: Vec::new(),
                        });
                        self.cur = cont as usize;
                        if let Some(r) = inst.result_id {
                            vals.insert(r, Val::Regs(rregs));
                        }
                    }
                    _ => self.lower_inst(inst, &mut vals)?,
                }
            }
        }
        Ok(entry)
    }

    fn edge(
        &mut self,
        vals: &HashMap<Id, Val>,
        phis: &PhiMap,
        from: Id,
        to: Id,
        target: u32,
    ) -> R<Edge> {
        let mut moves = Vec::new();
        if let Some(ps) = phis.get(&to) {
            for (dst, inc) in ps {
                if let Some((v, _)) = inc.iter().find(|(_, p)| *p == from) {
                    let src = self.regs(vals, *v)?;
                    if src.len() != dst.len() {
                        return err(format!(
                            "{}: OpPhi operand %{v} has the wrong type",
                            self.at
                        ));
                    }
                    moves.extend(dst.iter().copied().zip(src));
                }
            }
        }
        Ok(Edge { target, moves })
    }

    // ----------------------------------------------------------------- instructions

    fn result_leaves(&self, inst: &Instruction) -> R<Vec<Sc>> {
        self.leaves(
            inst.result_type
                .ok_or_else(|| SpirvError::new(format!("{}: missing result type", self.at)))?,
        )
    }
}

/// GLSL.std.450 instruction numbers used below.
mod glsl {
    pub const ROUND: u32 = 1;
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const FSIGN: u32 = 6;
    pub const SSIGN: u32 = 7;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const RADIANS: u32 = 11;
    pub const DEGREES: u32 = 12;
    pub const SIN: u32 = 13;
    pub const ATANH: u32 = 24;
    pub const ATAN2: u32 = 25;
    pub const POW: u32 = 26;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INV_SQRT: u32 = 32;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FCLAMP: u32 = 43;
    pub const UCLAMP: u32 = 44;
    pub const SCLAMP: u32 = 45;
    pub const FMIX: u32 = 46;
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_SMSB: u32 = 74;
    pub const FIND_UMSB: u32 = 75;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
    pub const NCLAMP: u32 = 81;
}

impl<'m> Lowerer<'m> {
    fn typed_leaves(&self, id: Id) -> R<Vec<Sc>> {
        match self.id_types.get(&id) {
            Some(t) => self.leaves(*t),
            None => err(format!("{}: cannot determine the type of %{id}", self.at)),
        }
    }

    /// Emits one op per leaf; `b`/`c` may be scalars broadcast over `a`'s length.
    fn map_n(
        &mut self,
        srcs: &[Vec<Reg>],
        n: usize,
        mut f: impl FnMut(usize, Reg, &[Reg]) -> Op,
    ) -> R<Vec<Reg>> {
        for s in srcs {
            if s.len() != n && s.len() != 1 {
                return err(format!(
                    "{}: operand has {} components, expected {n}",
                    self.at,
                    s.len()
                ));
            }
        }
        let mut out = Vec::with_capacity(n);
        let mut ops = Vec::with_capacity(srcs.len());
        for i in 0..n {
            let d = self.alloc(1)?;
            ops.clear();
            ops.extend(srcs.iter().map(|s| if s.len() == 1 { s[0] } else { s[i] }));
            let op = f(i, d, &ops);
            self.emit(op);
            out.push(d);
        }
        Ok(out)
    }

    fn srcs(&mut self, vals: &HashMap<Id, Val>, ids: &[Operand]) -> R<Vec<Vec<Reg>>> {
        ids.iter()
            .map(|o| {
                let id = idref(Some(o))?;
                self.regs(vals, id)
            })
            .collect()
    }

    fn alu(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
        kind: AluKind,
    ) -> R<()> {
        let res = self.result_leaves(inst)?;
        let first = idref(args.first())?;
        let opl = self.typed_leaves(first).unwrap_or_else(|_| res.clone());
        let s = self.srcs(vals, args)?;
        let n = res.len();
        let out = self.map_n(&s, n, |i, d, a| {
            let rw = res[i].w();
            let ow = opl.get(i).or(opl.first()).map(|x| x.w()).unwrap_or(rw);
            let g = |k: usize| a.get(k).copied().unwrap_or(a[0]);
            match kind {
                AluKind::I(op) => Op::IBin {
                    op,
                    w: rw,
                    d,
                    a: a[0],
                    b: g(1),
                },
                AluKind::IU(op) => Op::IUn {
                    op,
                    w: rw,
                    d,
                    a: a[0],
                },
                AluKind::IC(op) => Op::ICmp {
                    op,
                    w: ow,
                    d,
                    a: a[0],
                    b: g(1),
                },
                AluKind::F(op) => Op::FBin {
                    op,
                    w: rw,
                    d,
                    a: a[0],
                    b: g(1),
                },
                AluKind::FU(op) => Op::FUn {
                    op,
                    w: rw,
                    d,
                    a: a[0],
                },
                AluKind::FC(op) => Op::FCmp {
                    op,
                    w: ow,
                    d,
                    a: a[0],
                    b: g(1),
                },
                AluKind::T(op) => Op::Tern {
                    op,
                    w: rw,
                    d,
                    a: a[0],
                    b: g(1),
                    c: g(2),
                },
                AluKind::C(op) => Op::Conv {
                    op,
                    from: ow,
                    to: rw,
                    d,
                    a: a[0],
                },
            }
        })?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    fn fw(&self, inst: &Instruction) -> R<u8> {
        Ok(self
            .result_leaves(inst)?
            .first()
            .map(|s| s.w())
            .unwrap_or(32))
    }

    /// Dot product of two float vectors into a new register.
    fn dot(&mut self, w: u8, a: &[Reg], b: &[Reg]) -> R<Reg> {
        if a.len() != b.len() || a.is_empty() {
            return err(format!("{}: dot of mismatched vectors", self.at));
        }
        if w == alu::W_BF16 {
            // bfloat16 dot products accumulate in float32 and round once at the end.
            let mut wide = |v: &[Reg]| -> R<Vec<Reg>> {
                v.iter()
                    .map(|&x| {
                        let d = self.alloc(1)?;
                        self.emit(Op::Conv {
                            op: Conv::FToF,
                            from: w,
                            to: 32,
                            d,
                            a: x,
                        });
                        Ok(d)
                    })
                    .collect()
            };
            let (a, b) = (wide(a)?, wide(b)?);
            let s = self.dot(32, &a, &b)?;
            let d = self.alloc(1)?;
            self.emit(Op::Conv {
                op: Conv::FToF,
                from: 32,
                to: w,
                d,
                a: s,
            });
            return Ok(d);
        }
        let mut acc = self.alloc(1)?;
        self.emit(Op::FBin {
            op: FBin::Mul,
            w,
            d: acc,
            a: a[0],
            b: b[0],
        });
        for i in 1..a.len() {
            let t = self.alloc(1)?;
            self.emit(Op::FBin {
                op: FBin::Mul,
                w,
                d: t,
                a: a[i],
                b: b[i],
            });
            let s = self.alloc(1)?;
            self.emit(Op::FBin {
                op: FBin::Add,
                w,
                d: s,
                a: acc,
                b: t,
            });
            acc = s;
        }
        Ok(acc)
    }

    fn lower_inst(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        use AluKind as K;
        let o = &inst.operands;
        let rid = inst.result_id;
        let rt = inst.result_type.unwrap_or(0);
        macro_rules! alu {
            ($k:expr) => {
                self.alu(inst, vals, o, $k)?
            };
        }
        let set = |vals: &mut HashMap<Id, Val>, v: Val| {
            if let Some(r) = rid {
                vals.insert(r, v);
            }
        };
        match inst.class.opcode {
            S::IAdd => alu!(K::I(IBin::Add)),
            S::ISub => alu!(K::I(IBin::Sub)),
            S::IMul => alu!(K::I(IBin::Mul)),
            S::UDiv => alu!(K::I(IBin::UDiv)),
            S::SDiv => alu!(K::I(IBin::SDiv)),
            S::UMod => alu!(K::I(IBin::UMod)),
            S::SRem => alu!(K::I(IBin::SRem)),
            S::SMod => alu!(K::I(IBin::SMod)),
            S::ShiftLeftLogical => alu!(K::I(IBin::Shl)),
            S::ShiftRightLogical => alu!(K::I(IBin::ShrL)),
            S::ShiftRightArithmetic => alu!(K::I(IBin::ShrA)),
            S::BitwiseAnd | S::LogicalAnd => alu!(K::I(IBin::And)),
            S::BitwiseOr | S::LogicalOr => alu!(K::I(IBin::Or)),
            S::BitwiseXor | S::LogicalNotEqual => alu!(K::I(IBin::Xor)),
            S::LogicalEqual => alu!(K::IC(ICmp::Eq)),
            S::LogicalNot | S::Not => alu!(K::IU(IUn::Not)),
            S::SNegate => alu!(K::IU(IUn::Neg)),
            S::BitCount => alu!(K::IU(IUn::BitCount)),
            S::BitFieldUExtract | S::BitFieldSExtract | S::BitFieldInsert => {
                let out = self.bitfield(inst, vals)?;
                set(vals, Val::Regs(out));
            }
            S::Transpose => {
                // Matrices are scalarised column-major: transposing is a renaming.
                let m_id = idref(o.first())?;
                let m = self.regs(vals, m_id)?;
                let rows = self.matrix_rows(m_id)?;
                let cols = m.len() / rows.max(1);
                let out = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (c, r)))
                    .map(|(c, r)| m[c * rows + r])
                    .collect();
                set(vals, Val::Regs(out));
            }
            S::OuterProduct => {
                // result column j, row i = a[i] * b[j]
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let mut out = Vec::with_capacity(a.len() * b.len());
                for bj in &b {
                    for ai in &a {
                        let d = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Mul,
                            w,
                            d,
                            a: *ai,
                            b: *bj,
                        });
                        out.push(d);
                    }
                }
                set(vals, Val::Regs(out));
            }
            S::BitReverse => alu!(K::IU(IUn::BitReverse)),
            S::IEqual => alu!(K::IC(ICmp::Eq)),
            S::INotEqual => alu!(K::IC(ICmp::Ne)),
            S::UGreaterThan => alu!(K::IC(ICmp::UGt)),
            S::UGreaterThanEqual => alu!(K::IC(ICmp::UGe)),
            S::ULessThan => alu!(K::IC(ICmp::ULt)),
            S::ULessThanEqual => alu!(K::IC(ICmp::ULe)),
            S::SGreaterThan => alu!(K::IC(ICmp::SGt)),
            S::SGreaterThanEqual => alu!(K::IC(ICmp::SGe)),
            S::SLessThan => alu!(K::IC(ICmp::SLt)),
            S::SLessThanEqual => alu!(K::IC(ICmp::SLe)),
            S::FAdd => alu!(K::F(FBin::Add)),
            S::FSub => alu!(K::F(FBin::Sub)),
            S::FMul | S::VectorTimesScalar => alu!(K::F(FBin::Mul)),
            S::FDiv => alu!(K::F(FBin::Div)),
            S::FRem => alu!(K::F(FBin::Rem)),
            S::FMod => alu!(K::F(FBin::Mod)),
            S::FNegate => alu!(K::FU(FUn::Neg)),
            S::FOrdEqual => alu!(K::FC(FCmp::OEq)),
            S::FOrdNotEqual => alu!(K::FC(FCmp::ONe)),
            S::FOrdLessThan => alu!(K::FC(FCmp::OLt)),
            S::FOrdLessThanEqual => alu!(K::FC(FCmp::OLe)),
            S::FOrdGreaterThan => alu!(K::FC(FCmp::OGt)),
            S::FOrdGreaterThanEqual => alu!(K::FC(FCmp::OGe)),
            S::FUnordEqual => alu!(K::FC(FCmp::UEq)),
            S::FUnordNotEqual => alu!(K::FC(FCmp::UNe)),
            S::FUnordLessThan => alu!(K::FC(FCmp::ULt)),
            S::FUnordLessThanEqual => alu!(K::FC(FCmp::ULe)),
            S::FUnordGreaterThan => alu!(K::FC(FCmp::UGt)),
            S::FUnordGreaterThanEqual => alu!(K::FC(FCmp::UGe)),
            S::IsNan => alu!(K::FC(FCmp::IsNan)),
            S::IsInf => alu!(K::FC(FCmp::IsInf)),
            S::ConvertFToU => alu!(K::C(Conv::FToU)),
            S::ConvertFToS => alu!(K::C(Conv::FToS)),
            S::ConvertUToF => alu!(K::C(Conv::UToF)),
            S::ConvertSToF => alu!(K::C(Conv::SToF)),
            S::UConvert => alu!(K::C(Conv::UToU)),
            S::SConvert => alu!(K::C(Conv::SToS)),
            S::QuantizeToF16 => {
                // Round to f16 and back; values below f16's normal range become signed zeros.
                let x = self.regs(vals, idref(o.first())?)?;
                let min_normal = self.imm(u64::from((2f32.powi(-14)).to_bits()))?;
                let sign_mask = self.imm(0x8000_0000)?;
                let mut out = Vec::with_capacity(x.len());
                for &xi in &x {
                    let [h, f, abs, small, sign] = [0; 5].map(|_| self.alloc(1));
                    let [h, f, abs, small, sign] = [h?, f?, abs?, small?, sign?];
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 32,
                        to: 16,
                        d: h,
                        a: xi,
                    });
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 16,
                        to: 32,
                        d: f,
                        a: h,
                    });
                    self.emit(Op::FUn {
                        op: FUn::Abs,
                        w: 32,
                        d: abs,
                        a: f,
                    });
                    self.emit(Op::FCmp {
                        op: FCmp::OLt,
                        w: 32,
                        d: small,
                        a: abs,
                        b: min_normal,
                    });
                    self.emit(Op::IBin {
                        op: IBin::And,
                        w: 32,
                        d: sign,
                        a: f,
                        b: sign_mask,
                    });
                    // `sign` keeps only the sign bit: the signed zero.
                    self.emit(Op::Select {
                        d,
                        c: small,
                        a: sign,
                        b: f,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::FConvert
                if inst.result_id.is_some_and(|r| {
                    self.deco(r, Decoration::SaturatedToLargestFloat8NormalConversionEXT)
                        .is_some()
                }) =>
            {
                alu!(K::C(Conv::FToFSat))
            }
            S::FConvert => {
                // FPRoundingMode: RTE = 0 is the default rounding; RTZ/RTP/RTN are directed.
                let dir = inst.result_id.and_then(|r| {
                    self.deco(r, Decoration::FPRoundingMode)
                        .and_then(|d| match d.operands.get(2) {
                            Some(Operand::FPRoundingMode(m)) => Some(*m as u32),
                            Some(Operand::LiteralBit32(m)) => Some(*m),
                            _ => None,
                        })
                });
                match dir {
                    Some(d @ 1..=3) => alu!(K::C(Conv::FToFDirected(d as u8))),
                    _ => alu!(K::C(Conv::FToF)),
                }
            }
            S::Bitcast => {
                let src = self.regs(vals, idref(o.first())?)?;
                let sl = self.typed_leaves(idref(o.first())?)?;
                let dl = self.result_leaves(inst)?;
                let out = self.bitcast(&src, &sl, &dl)?;
                set(vals, Val::Regs(out));
            }
            S::Select => {
                let s = self.srcs(vals, &o[..3.min(o.len())])?;
                if s.len() != 3 {
                    return err(format!("{}: malformed OpSelect", self.at));
                }
                let n = self.nleaves(rt)? as usize;
                let out = self.map_n(&s, n, |_, d, a| Op::Select {
                    d,
                    c: a[0],
                    a: a[1],
                    b: a[2],
                })?;
                set(vals, Val::Regs(out));
            }
            S::Any | S::All => {
                let s = self.regs(vals, idref(o.first())?)?;
                let op = if inst.class.opcode == S::Any {
                    IBin::Or
                } else {
                    IBin::And
                };
                let mut acc = *s.first().ok_or_else(|| SpirvError::new("empty vector"))?;
                for &r in &s[1..] {
                    let d = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op,
                        w: 1,
                        d,
                        a: acc,
                        b: r,
                    });
                    acc = d;
                }
                set(vals, Val::Regs(vec![acc]));
            }
            S::SDot | S::UDot | S::SUDot | S::SDotAccSat | S::UDotAccSat | S::SUDotAccSat => {
                self.int_dot(inst, vals)?;
            }
            S::Dot => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let d = self.dot(w, &a, &b)?;
                set(vals, Val::Regs(vec![d]));
            }
            S::MatrixTimesScalar => alu!(K::F(FBin::Mul)),
            S::MatrixTimesVector | S::VectorTimesMatrix | S::MatrixTimesMatrix => {
                self.matmul(inst, vals)?;
            }
            S::IAddCarry | S::ISubBorrow | S::UMulExtended | S::SMulExtended => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let leaves = self.result_leaves(inst)?;
                let n = leaves.len() / 2;
                let (lo, hi) = match inst.class.opcode {
                    S::IAddCarry => (IBin::Add, IBin::AddCarry),
                    S::ISubBorrow => (IBin::Sub, IBin::SubBorrow),
                    S::UMulExtended => (IBin::Mul, IBin::UMulHi),
                    _ => (IBin::Mul, IBin::SMulHi),
                };
                let w = leaves.first().map(|s| s.w()).unwrap_or(32);
                let l = self.map_n(&[a.clone(), b.clone()], n, |_, d, x| Op::IBin {
                    op: lo,
                    w,
                    d,
                    a: x[0],
                    b: x[1],
                })?;
                let h = self.map_n(&[a, b], n, |_, d, x| Op::IBin {
                    op: hi,
                    w,
                    d,
                    a: x[0],
                    b: x[1],
                })?;
                set(vals, Val::Regs(l.into_iter().chain(h).collect()));
            }
            S::CompositeConstruct => {
                let mut out = Vec::new();
                for x in o {
                    out.extend(self.regs(vals, idref(Some(x))?)?);
                }
                if out.len() as u32 != self.nleaves(rt)? {
                    return err(format!("{}: wrong number of constituents", self.at));
                }
                set(vals, Val::Regs(out));
            }
            S::CompositeExtract => {
                let cid = idref(o.first())?;
                let c = self.regs(vals, cid)?;
                let mut ty = *self
                    .id_types
                    .get(&cid)
                    .ok_or_else(|| SpirvError::new(format!("{}: untyped composite", self.at)))?;
                let mut off = 0;
                for x in &o[1..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)?;
                let r = c
                    .get(off as usize..(off + n) as usize)
                    .ok_or_else(|| SpirvError::new("extract out of range"))?;
                set(vals, Val::Regs(r.to_vec()));
            }
            S::CompositeInsert => {
                let obj = self.regs(vals, idref(o.first())?)?;
                let mut c = self.regs(vals, idref(o.get(1))?)?;
                let mut ty = rt;
                let mut off = 0;
                for x in &o[2..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)? as usize;
                if obj.len() != n || off as usize + n > c.len() {
                    return err(format!("{}: inserted object has the wrong type", self.at));
                }
                c[off as usize..off as usize + n].copy_from_slice(&obj);
                set(vals, Val::Regs(c));
            }
            S::VectorShuffle => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let z = self.imm(0)?;
                let mut out = Vec::new();
                for x in &o[2..] {
                    let k = lit(Some(x))? as usize;
                    out.push(if k < a.len() {
                        a[k]
                    } else {
                        b.get(k - a.len()).copied().unwrap_or(z)
                    });
                }
                set(vals, Val::Regs(out));
            }
            S::VectorExtractDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let idx = self.reg1(vals, idref(o.get(1))?)?;
                let d = self.alloc(1)?;
                self.emit(Op::Pick {
                    d,
                    idx,
                    srcs: v.into(),
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::VectorInsertDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let comp = self.reg1(vals, idref(o.get(1))?)?;
                let idx = self.reg1(vals, idref(o.get(2))?)?;
                let iw = self
                    .typed_leaves(idref(o.get(2))?)?
                    .first()
                    .map(|s| s.w())
                    .unwrap_or(32);
                let mut out = Vec::new();
                for (i, &r) in v.iter().enumerate() {
                    let k = self.imm(i as u64)?;
                    let c = self.alloc(1)?;
                    self.emit(Op::ICmp {
                        op: ICmp::Eq,
                        w: iw,
                        d: c,
                        a: idx,
                        b: k,
                    });
                    let d = self.alloc(1)?;
                    self.emit(Op::Select {
                        d,
                        c,
                        a: comp,
                        b: r,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::CopyObject | S::CopyLogical => {
                let v = self.val(vals, idref(o.first())?)?;
                set(vals, v);
            }
            S::Undef => {
                let n = self.nleaves(rt)?;
                let z = self.imm(0)?;
                set(vals, Val::Regs(vec![z; n as usize]));
            }
            S::ExtInst => self.ext_inst(inst, vals)?,
            S::Variable => {
                let Some(Ty::Pointer { pointee, .. }) = self.types.get(&rt).cloned() else {
                    return err(format!("{}: variable without pointer type", self.at));
                };
                let n = self.nleaves(pointee)?;
                let base = self.alloc(n)?;
                self.var_ranges.push((base, n));
                if let Some(init) = o.get(1) {
                    let src = self.regs(vals, idref(Some(init))?)?;
                    for (k, s) in src.into_iter().enumerate() {
                        self.emit(Op::Mov {
                            d: base + k as u32,
                            a: s,
                        });
                    }
                }
                set(
                    vals,
                    Val::Ptr(Ptr {
                        pk: PK::Var { base, len: n },
                        ty: pointee,
                        off: 0,
                        dynr: None,
                        explicit: false,
                        mstride: None,
                    }),
                );
            }
            S::AccessChain | S::InBoundsAccessChain => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let p = self.chain(vals, p, &o[1..])?;
                set(vals, Val::Ptr(p));
            }
            S::Load => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let v = self.load(p)?;
                set(vals, v);
            }
            S::Store => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let v = self.regs(vals, idref(o.get(1))?)?;
                self.store(p, &v)?;
            }
            S::CopyMemory => {
                let dst = self.ptr(vals, idref(o.first())?)?;
                let src = self.ptr(vals, idref(o.get(1))?)?;
                let Val::Regs(v) = self.load(src)? else {
                    return err(format!("{}: cannot copy descriptors", self.at));
                };
                self.store(dst, &v)?;
            }
            S::ArrayLength => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let k = lit(o.get(1))?;
                let PK::Mem(Space::Buffer { slot, desc }) = p.pk else {
                    return err(format!("{}: OpArrayLength on a non-buffer", self.at));
                };
                let moff = self.member_offset(p.ty, k, true)?;
                let Ty::Struct { members } = self.ty(p.ty)?.clone() else {
                    return err("OpArrayLength on a non-struct");
                };
                let arr = *members
                    .get(k as usize)
                    .ok_or_else(|| SpirvError::new("bad member"))?;
                let (_, stride) = self.elem_stride(arr, true, None)?;
                let d = self.alloc(1)?;
                self.emit(Op::ArrayLength {
                    slot,
                    desc,
                    off: p.off + moff,
                    stride,
                    d,
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::ControlBarrier => {
                // A subgroup-scope barrier is free in lockstep and does not stop fusion.
                let scope = idref(o.first()).and_then(|id| self.const_u32(id)).ok();
                if scope != Some(Scope::Subgroup as u32) {
                    self.needs_whole = true;
                }
            }
            S::GroupNonUniformElect
            | S::GroupNonUniformAll
            | S::GroupNonUniformAny
            | S::GroupNonUniformAllEqual
            | S::GroupNonUniformBroadcast
            | S::GroupNonUniformBroadcastFirst
            | S::GroupNonUniformBallot
            | S::GroupNonUniformInverseBallot
            | S::GroupNonUniformBallotBitExtract
            | S::GroupNonUniformBallotBitCount
            | S::GroupNonUniformBallotFindLSB
            | S::GroupNonUniformBallotFindMSB
            | S::GroupNonUniformShuffle
            | S::GroupNonUniformShuffleXor
            | S::GroupNonUniformShuffleUp
            | S::GroupNonUniformShuffleDown
            | S::GroupNonUniformIAdd
            | S::GroupNonUniformFAdd
            | S::GroupNonUniformIMul
            | S::GroupNonUniformFMul
            | S::GroupNonUniformSMin
            | S::GroupNonUniformUMin
            | S::GroupNonUniformFMin
            | S::GroupNonUniformSMax
            | S::GroupNonUniformUMax
            | S::GroupNonUniformFMax
            | S::GroupNonUniformBitwiseAnd
            | S::GroupNonUniformBitwiseOr
            | S::GroupNonUniformBitwiseXor
            | S::GroupNonUniformLogicalAnd
            | S::GroupNonUniformLogicalOr
            | S::GroupNonUniformLogicalXor
            | S::GroupNonUniformQuadBroadcast
            | S::GroupNonUniformQuadSwap => self.group(inst, vals)?,
            S::MemoryBarrier => {}
            S::AtomicLoad
            | S::AtomicStore
            | S::AtomicExchange
            | S::AtomicCompareExchange
            | S::AtomicIIncrement
            | S::AtomicIDecrement
            | S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicSMin
            | S::AtomicUMin
            | S::AtomicSMax
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor => {
                self.atomic(inst, vals)?;
            }
            S::TensorReadARM | S::TensorWriteARM | S::TensorQuerySizeARM => {
                self.tensor(inst, vals)?
            }
            S::SelectionMerge
            | S::LoopMerge
            | S::Line
            | S::NoLine
            | S::Nop
            | S::Name
            | S::MemberName
            | S::String => {}
            _ => return err(format!("unsupported instruction {}", self.at)),
        }
        Ok(())
    }

    /// The `LocalInvocationIndex` register (allocated on first use; `exec` fills it).
    fn local_index_reg(&mut self) -> R<Reg> {
        if let Some(r) = self.builtins.local_index {
            return Ok(r);
        }
        let r = self.alloc(1)?;
        self.builtins.local_index = Some(r);
        Ok(r)
    }

    /// Registers of a subgroup built-in (`None` if `b` is not one), computed from
    /// `LocalInvocationIndex` by ops run in the entry block. Masks are `uvec4` with only `x`
    /// meaningful (32 lanes).
    fn subgroup_builtin(&mut self, b: BuiltIn, pointee: Id, n: u32) -> R<Option<Reg>> {
        let leaves = self.leaves(pointee)?;
        let is_mask = matches!(
            b,
            BuiltIn::SubgroupEqMask
                | BuiltIn::SubgroupGeMask
                | BuiltIn::SubgroupGtMask
                | BuiltIn::SubgroupLeMask
                | BuiltIn::SubgroupLtMask
        );
        let is_scalar = matches!(
            b,
            BuiltIn::SubgroupSize
                | BuiltIn::SubgroupLocalInvocationId
                | BuiltIn::NumSubgroups
                | BuiltIn::SubgroupId
        );
        if !is_mask && !is_scalar {
            return Ok(None);
        }
        let want = if is_mask { 4 } else { 1 };
        if n != want || leaves.iter().any(|s| !matches!(s, Sc::Int(32, _))) {
            return err(format!(
                "built-in {b:?} must be a {}",
                if is_mask { "uvec4" } else { "32-bit integer" }
            ));
        }
        let base = self.alloc(n)?;
        let li = self.local_index_reg()?;
        let [x, y, z] = self.local_size.map(u64::from);
        let sg = SUBGROUP_SIZE as u64;
        let mut ops = Vec::new();
        let mut bin = |l: &mut Self, op: IBin, d: Reg, a: Reg, bv: u64| -> R<()> {
            let b = l.imm(bv)?;
            ops.push(Op::IBin { op, w: 32, d, a, b });
            Ok(())
        };
        match b {
            BuiltIn::SubgroupSize => {
                let a = self.imm(sg)?;
                ops.push(Op::Mov { d: base, a });
            }
            BuiltIn::NumSubgroups => {
                let a = self.imm((x * y * z).div_ceil(sg))?;
                ops.push(Op::Mov { d: base, a });
            }
            BuiltIn::SubgroupId => bin(self, IBin::ShrL, base, li, sg.trailing_zeros().into())?,
            BuiltIn::SubgroupLocalInvocationId => bin(self, IBin::And, base, li, sg - 1)?,
            _ => {
                let lane = self.alloc(1)?;
                bin(self, IBin::And, lane, li, sg - 1)?;
                let ones = self.imm(0xffff_ffff)?;
                let (start, invert) = match b {
                    BuiltIn::SubgroupEqMask => (1, false),
                    BuiltIn::SubgroupGeMask => (0xffff_ffff, false),
                    BuiltIn::SubgroupGtMask => (0xffff_fffe, false),
                    BuiltIn::SubgroupLeMask => (0xffff_fffe, true),
                    _ => (0xffff_ffff, true),
                };
                let s = self.imm(start)?;
                let t = if invert { self.alloc(1)? } else { base };
                ops.push(Op::IBin {
                    op: IBin::Shl,
                    w: 32,
                    d: t,
                    a: s,
                    b: lane,
                });
                if invert {
                    ops.push(Op::IBin {
                        op: IBin::Xor,
                        w: 32,
                        d: base,
                        a: t,
                        b: ones,
                    });
                }
                let zero = self.imm(0)?;
                for k in 1..4 {
                    ops.push(Op::Mov {
                        d: base + k,
                        a: zero,
                    });
                }
            }
        }
        self.entry_init.extend(ops);
        Ok(Some(base))
    }

    /// One subgroup op into a new register.
    fn sub1(&mut self, op: SubOp, w: u8, a: Reg, b: Reg) -> R<Reg> {
        let d = self.alloc(1)?;
        self.emit(Op::Sub { op, w, d, a, b });
        Ok(d)
    }

    /// `OpGroupNonUniform*`: vectors are scalarised; ballots are `uvec4` whose `x` holds the 32
    /// lanes' bits (`y`, `z`, `w` are zero).
    fn group(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        let o = &inst.operands;
        let scope = self.const_u32(idref(o.first())?)?;
        if scope != Scope::Subgroup as u32 {
            return err(format!(
                "{}: only Subgroup scope is supported (scope {scope})",
                self.at
            ));
        }
        let res = self.result_leaves(inst)?;
        let zero = self.imm(0)?;
        let value = |l: &mut Self, k: usize| -> R<(Vec<Reg>, Vec<Sc>)> {
            let id = idref(o.get(k))?;
            let v = l.regs(vals, id)?;
            let lv = l.typed_leaves(id)?;
            if lv.len() != v.len() || v.is_empty() {
                return err(format!("{}: operand %{id} has the wrong type", l.at));
            }
            Ok((v, lv))
        };
        let scan = |l: &Self, k: usize| -> R<Scan> {
            Ok(match o.get(k) {
                Some(Operand::GroupOperation(GroupOperation::Reduce)) => {
                    Scan::Clustered(SUBGROUP_SIZE as u32)
                }
                Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => Scan::Inclusive,
                Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => Scan::Exclusive,
                Some(Operand::GroupOperation(GroupOperation::ClusteredReduce)) => {
                    let c = l.const_u32(idref(o.get(k + 2))?)?;
                    if !c.is_power_of_two() {
                        return err(format!("{}: cluster size {c} is not a power of two", l.at));
                    }
                    Scan::Clustered(c)
                }
                other => return err(format!("{}: unsupported group operation {other:?}", l.at)),
            })
        };
        let out: Vec<Reg> = match inst.class.opcode {
            S::GroupNonUniformElect => vec![self.sub1(SubOp::Elect, 1, zero, zero)?],
            S::GroupNonUniformAll | S::GroupNonUniformAny => {
                let v = self.reg1(vals, idref(o.get(1))?)?;
                let op = if inst.class.opcode == S::GroupNonUniformAll {
                    SubOp::All
                } else {
                    SubOp::Any
                };
                vec![self.sub1(op, 1, v, zero)?]
            }
            S::GroupNonUniformAllEqual => {
                let (v, lv) = value(self, 1)?;
                let mut acc: Option<Reg> = None;
                for (&r, sc) in v.iter().zip(&lv) {
                    let float = matches!(sc, Sc::Float(_));
                    let e = self.sub1(SubOp::AllEqual { float }, sc.w(), r, zero)?;
                    acc = Some(match acc {
                        None => e,
                        Some(x) => {
                            let d = self.alloc(1)?;
                            self.emit(Op::IBin {
                                op: IBin::And,
                                w: 1,
                                d,
                                a: x,
                                b: e,
                            });
                            d
                        }
                    });
                }
                vec![acc.ok_or_else(|| SpirvError::new(format!("{}: empty value", self.at)))?]
            }
            S::GroupNonUniformBroadcast
            | S::GroupNonUniformBroadcastFirst
            | S::GroupNonUniformShuffle
            | S::GroupNonUniformShuffleXor
            | S::GroupNonUniformShuffleUp
            | S::GroupNonUniformShuffleDown
            | S::GroupNonUniformQuadBroadcast
            | S::GroupNonUniformQuadSwap => {
                let (v, lv) = value(self, 1)?;
                let op = match inst.class.opcode {
                    S::GroupNonUniformBroadcast | S::GroupNonUniformShuffle => SubOp::Broadcast,
                    S::GroupNonUniformBroadcastFirst => SubOp::BroadcastFirst,
                    S::GroupNonUniformShuffleXor => SubOp::ShuffleXor,
                    S::GroupNonUniformShuffleUp => SubOp::ShuffleUp,
                    S::GroupNonUniformShuffleDown => SubOp::ShuffleDown,
                    S::GroupNonUniformQuadBroadcast => SubOp::QuadBroadcast,
                    _ => SubOp::QuadSwap,
                };
                let b = if op == SubOp::BroadcastFirst {
                    zero
                } else {
                    self.reg1(vals, idref(o.get(2))?)?
                };
                let mut out = Vec::with_capacity(v.len());
                for (&r, sc) in v.iter().zip(&lv) {
                    out.push(self.sub1(op, sc.w(), r, b)?);
                }
                out
            }
            S::GroupNonUniformBallot => {
                let p = self.reg1(vals, idref(o.get(1))?)?;
                let x = self.sub1(SubOp::Ballot, 32, p, zero)?;
                vec![x, zero, zero, zero]
            }
            S::GroupNonUniformInverseBallot => {
                let (v, _) = value(self, 1)?;
                vec![self.sub1(SubOp::InverseBallot, 32, v[0], zero)?]
            }
            S::GroupNonUniformBallotBitCount => {
                let sc = scan(self, 1)?;
                if matches!(sc, Scan::Clustered(c) if c != SUBGROUP_SIZE as u32) {
                    return err(format!("{}: clustered ballot bit count", self.at));
                }
                let (v, _) = value(self, 2)?;
                vec![self.sub1(SubOp::BitCount(sc), 32, v[0], zero)?]
            }
            S::GroupNonUniformBallotFindLSB | S::GroupNonUniformBallotFindMSB => {
                let (v, _) = value(self, 1)?;
                let op = if inst.class.opcode == S::GroupNonUniformBallotFindLSB {
                    IUn::FindILsb
                } else {
                    IUn::FindUMsb
                };
                let d = self.alloc(1)?;
                self.emit(Op::IUn {
                    op,
                    w: 32,
                    d,
                    a: v[0],
                });
                vec![d]
            }
            S::GroupNonUniformBallotBitExtract => {
                // Pure per lane: bit `index % 32` of component `index / 32`.
                let (v, _) = value(self, 1)?;
                let iid = idref(o.get(2))?;
                let idx = self.reg1(vals, iid)?;
                let iw = self.typed_leaves(iid)?.first().map(|s| s.w()).unwrap_or(32);
                let (five, low, one) = (self.imm(5)?, self.imm(31)?, self.imm(1)?);
                let [word, comp, bit, sh, d] = [0; 5].map(|_| self.alloc(1));
                let [word, comp, bit, sh, d] = [word?, comp?, bit?, sh?, d?];
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    w: iw,
                    d: word,
                    a: idx,
                    b: five,
                });
                self.emit(Op::Pick {
                    d: comp,
                    idx: word,
                    srcs: v.into(),
                });
                self.emit(Op::IBin {
                    op: IBin::And,
                    w: iw,
                    d: bit,
                    a: idx,
                    b: low,
                });
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    w: 32,
                    d: sh,
                    a: comp,
                    b: bit,
                });
                self.emit(Op::IBin {
                    op: IBin::And,
                    w: 32,
                    d,
                    a: sh,
                    b: one,
                });
                vec![d]
            }
            op => {
                let ar = match op {
                    S::GroupNonUniformIAdd => Arith::I(IBin::Add),
                    S::GroupNonUniformFAdd => Arith::F(FBin::Add),
                    S::GroupNonUniformIMul => Arith::I(IBin::Mul),
                    S::GroupNonUniformFMul => Arith::F(FBin::Mul),
                    S::GroupNonUniformSMin => Arith::I(IBin::SMin),
                    S::GroupNonUniformUMin => Arith::I(IBin::UMin),
                    S::GroupNonUniformFMin => Arith::F(FBin::Min),
                    S::GroupNonUniformSMax => Arith::I(IBin::SMax),
                    S::GroupNonUniformUMax => Arith::I(IBin::UMax),
                    S::GroupNonUniformFMax => Arith::F(FBin::Max),
                    S::GroupNonUniformBitwiseAnd | S::GroupNonUniformLogicalAnd => {
                        Arith::I(IBin::And)
                    }
                    S::GroupNonUniformBitwiseOr | S::GroupNonUniformLogicalOr => Arith::I(IBin::Or),
                    S::GroupNonUniformBitwiseXor | S::GroupNonUniformLogicalXor => {
                        Arith::I(IBin::Xor)
                    }
                    _ => return err(format!("unsupported instruction {}", self.at)),
                };
                let sc = scan(self, 1)?;
                let (v, lv) = value(self, 2)?;
                let mut out = Vec::with_capacity(v.len());
                for (&r, l) in v.iter().zip(&lv) {
                    out.push(self.sub1(SubOp::Reduce(ar, sc), l.w(), r, zero)?);
                }
                out
            }
        };
        if out.len() != res.len() {
            return err(format!("{}: result has the wrong type", self.at));
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    fn bitcast(&mut self, src: &[Reg], sl: &[Sc], dl: &[Sc]) -> R<Vec<Reg>> {
        let sw = sl.first().map(|s| s.bits()).unwrap_or(32);
        let dw = dl.first().map(|s| s.bits()).unwrap_or(32);
        if src.len() != sl.len()
            || u32::from(sw) * sl.len() as u32 != u32::from(dw) * dl.len() as u32
        {
            return err(format!(
                "{}: bitcast between types of different sizes",
                self.at
            ));
        }
        if sw == dw {
            return Ok(src.to_vec());
        }
        let mut out = Vec::new();
        if dw > sw {
            let k = (dw / sw) as usize;
            for chunk in src.chunks(k) {
                let mut acc = self.alloc(1)?;
                self.emit(Op::Conv {
                    op: Conv::UToU,
                    from: sw,
                    to: dw,
                    d: acc,
                    a: chunk[0],
                });
                for (j, &s) in chunk.iter().enumerate().skip(1) {
                    let t = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::UToU,
                        from: sw,
                        to: dw,
                        d: t,
                        a: s,
                    });
                    let sh = self.imm(j as u64 * u64::from(sw))?;
                    let t2 = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Shl,
                        w: dw,
                        d: t2,
                        a: t,
                        b: sh,
                    });
                    let n = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Or,
                        w: dw,
                        d: n,
                        a: acc,
                        b: t2,
                    });
                    acc = n;
                }
                out.push(acc);
            }
        } else {
            let k = sw / dw;
            for &s in src {
                for j in 0..k {
                    let sh = self.imm(u64::from(j) * u64::from(dw))?;
                    let t = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::ShrL,
                        w: sw,
                        d: t,
                        a: s,
                        b: sh,
                    });
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::UToU,
                        from: sw,
                        to: dw,
                        d,
                        a: t,
                    });
                    out.push(d);
                }
            }
        }
        Ok(out)
    }

    fn matmul(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        let o = &inst.operands;
        let a_id = idref(o.first())?;
        let b_id = idref(o.get(1))?;
        let a = self.regs(vals, a_id)?;
        let b = self.regs(vals, b_id)?;
        let w = self.fw(inst)?;
        let col_len = |l: &Lowerer, id: Id| -> R<usize> {
            let t = *l
                .id_types
                .get(&id)
                .ok_or_else(|| SpirvError::new("untyped matrix"))?;
            match l.ty(t)? {
                Ty::Matrix { col, .. } => Ok(l.nleaves(*col)? as usize),
                _ => err("expected a matrix"),
            }
        };
        let mut out = Vec::new();
        match inst.class.opcode {
            S::MatrixTimesVector => {
                // result[r] = sum_c a[c][r] * b[c]
                let rows = col_len(self, a_id)?;
                for r in 0..rows {
                    let row: Vec<Reg> = (0..b.len())
                        .map(|c| a.get(c * rows + r).copied().unwrap_or(a[0]))
                        .collect();
                    out.push(self.dot(w, &row, &b)?);
                }
            }
            S::VectorTimesMatrix => {
                let rows = col_len(self, b_id)?;
                for col in b.chunks(rows.max(1)) {
                    out.push(self.dot(w, &a, col)?);
                }
            }
            _ => {
                let rows = col_len(self, a_id)?;
                let inner = col_len(self, b_id)?;
                for bc in b.chunks(inner.max(1)) {
                    for r in 0..rows {
                        let row: Vec<Reg> = (0..inner)
                            .map(|c| a.get(c * rows + r).copied().unwrap_or(a[0]))
                            .collect();
                        out.push(self.dot(w, &row, bc)?);
                    }
                }
            }
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// `frexp` of one float register of width `w`: the significand (magnitude in [0.5, 1), sign
    /// of `x`) and the exponent as an integer of width `ew`. Zero gives (x, 0); infinities and
    /// NaNs give (x, 0); denormals are scaled into the normal range first.
    fn frexp(&mut self, w: u8, ew: u8, x: Reg) -> R<(Reg, Reg)> {
        let (mant_bits, exp_bits) = match w {
            16 => (10u32, 5u32),
            32 => (23, 8),
            _ => (52, 11),
        };
        let bias = (1u64 << (exp_bits - 1)) - 1;
        let emask = (1u64 << exp_bits) - 1;
        let scale_k = u64::from(mant_bits) + 2;
        let i = |l: &mut Self, op: IBin, a: Reg, b: Reg| -> R<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::IBin { op, w, d, a, b });
            Ok(d)
        };
        let c = |l: &mut Self, op: ICmp, a: Reg, b: Reg| -> R<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::ICmp { op, w, d, a, b });
            Ok(d)
        };
        let sel = |l: &mut Self, cond: Reg, a: Reg, b: Reg| -> R<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::Select { d, c: cond, a, b });
            Ok(d)
        };
        let (k_mant, k_emask, k_zero) = (
            self.imm(u64::from(mant_bits))?,
            self.imm(emask)?,
            self.imm(0)?,
        );
        let field = |l: &mut Self, v: Reg| -> R<Reg> {
            let sh = i(l, IBin::ShrL, v, k_mant)?;
            i(l, IBin::And, sh, k_emask)
        };
        // Scale denormals by 2^k so that their exponent field is non-zero.
        let e0 = field(self, x)?;
        let is_sub = c(self, ICmp::Eq, e0, k_zero)?;
        let two_k = self.imm(match w {
            16 => u64::from(half::f16::from_f32((scale_k as f32).exp2()).to_bits()),
            32 => u64::from((scale_k as f32).exp2().to_bits()),
            _ => (scale_k as f64).exp2().to_bits(),
        })?;
        let scaled = self.alloc(1)?;
        self.emit(Op::FBin {
            op: FBin::Mul,
            w,
            d: scaled,
            a: x,
            b: two_k,
        });
        let xn = sel(self, is_sub, scaled, x)?;
        let adj = {
            let k = self.imm(scale_k)?;
            sel(self, is_sub, k, k_zero)?
        };
        let e = field(self, xn)?;
        // exponent = e - (bias - 1) - adj, computed at width `w` then converted to `ew`.
        let bias_m1 = self.imm(bias - 1)?;
        let e1 = i(self, IBin::Sub, e, bias_m1)?;
        let e2 = i(self, IBin::Sub, e1, adj)?;
        // significand: clear the exponent field, set it to bias - 1.
        let placed = self.imm(emask << mant_bits)?;
        let keep = self.alloc(1)?;
        self.emit(Op::IUn {
            op: IUn::Not,
            w,
            d: keep,
            a: placed,
        });
        let cleared = i(self, IBin::And, xn, keep)?;
        let half_exp = self.imm((bias - 1) << mant_bits)?;
        let m = i(self, IBin::Or, cleared, half_exp)?;
        // Zero (magnitude bits all 0) and inf/NaN (exponent field all ones) give (x, 0).
        let sign_off = self.imm(if w == 64 {
            u64::MAX >> 1
        } else {
            (1u64 << (w - 1)) - 1
        })?;
        let mag = i(self, IBin::And, x, sign_off)?;
        let is_zero = c(self, ICmp::Eq, mag, k_zero)?;
        let is_special = c(self, ICmp::Eq, e0, k_emask)?;
        let passthrough = i(self, IBin::Or, is_zero, is_special)?;
        let m_out = sel(self, passthrough, x, m)?;
        let e_out = sel(self, passthrough, k_zero, e2)?;
        let e_conv = self.alloc(1)?;
        self.emit(Op::Conv {
            op: Conv::SToS,
            from: w,
            to: ew,
            d: e_conv,
            a: e_out,
        });
        Ok((m_out, e_conv))
    }

    /// Determinant of the `n`×`n` column-major matrix `m`, expanded along the first column.
    fn determinant(&mut self, w: u8, m: &[Reg], n: usize) -> R<Reg> {
        let at = |c: usize, r: usize| m[c * n + r];
        let fbin = |l: &mut Self, op: FBin, a: Reg, b: Reg| -> R<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::FBin { op, w, d, a, b });
            Ok(d)
        };
        if n == 1 {
            return Ok(m[0]);
        }
        if n == 2 {
            let ad = fbin(self, FBin::Mul, at(0, 0), at(1, 1))?;
            let cb = fbin(self, FBin::Mul, at(1, 0), at(0, 1))?;
            return fbin(self, FBin::Sub, ad, cb);
        }
        let mut acc: Option<Reg> = None;
        for r in 0..n {
            // Minor without column 0 and row r, column-major.
            let minor: Vec<Reg> = (1..n)
                .flat_map(|c| (0..n).filter(move |rr| *rr != r).map(move |rr| (c, rr)))
                .map(|(c, rr)| at(c, rr))
                .collect();
            let sub = self.determinant(w, &minor, n - 1)?;
            let term = fbin(self, FBin::Mul, at(0, r), sub)?;
            acc = Some(match acc {
                None => term,
                Some(a) => fbin(
                    self,
                    if r % 2 == 0 { FBin::Add } else { FBin::Sub },
                    a,
                    term,
                )?,
            });
        }
        acc.ok_or_else(|| SpirvError::new("empty matrix"))
    }

    /// `mag[i]` with the sign bit of `sgn[i]` (floats of width code `w`): GLSL.std.450 gives
    /// Modf's fraction the sign of its operand, also when the fraction is zero.
    fn copysign_all(&mut self, w: u8, mag: &[Reg], sgn: &[Reg]) -> R<Vec<Reg>> {
        let bits: u8 = match w {
            alu::W_BF16 => 16,
            alu::W_E4M3 | alu::W_E5M2 => 8,
            w => w,
        };
        let sign = self.imm(1u64 << (bits - 1))?;
        let rest = self.imm((1u64 << (bits - 1)) - 1)?;
        let n = mag.len();
        let m = self.map_n(&[mag.to_vec(), vec![rest]], n, |_, d, a| Op::IBin {
            op: IBin::And,
            w: bits,
            d,
            a: a[0],
            b: a[1],
        })?;
        let s = self.map_n(&[sgn.to_vec(), vec![sign]], n, |_, d, a| Op::IBin {
            op: IBin::And,
            w: bits,
            d,
            a: a[0],
            b: a[1],
        })?;
        self.map_n(&[m, s], n, |_, d, a| Op::IBin {
            op: IBin::Or,
            w: bits,
            d,
            a: a[0],
            b: a[1],
        })
    }

    /// A register holding the float constant `v` in width code `w`.
    fn fconst(&mut self, w: u8, v: f64) -> R<Reg> {
        self.imm(alu::f_put(w, v))
    }

    /// `OpSDot` & co. (SPV_KHR_integer_dot_product), including the packed 4×8-bit form.
    fn int_dot(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        let o = &inst.operands;
        let op = inst.class.opcode;
        let (a_signed, b_signed, sat_signed) = match op {
            S::SDot | S::SDotAccSat => (true, true, true),
            S::UDot | S::UDotAccSat => (false, false, false),
            _ => (true, false, true),
        };
        let has_acc = matches!(op, S::SDotAccSat | S::UDotAccSat | S::SUDotAccSat);
        let a_id = idref(o.first())?;
        let mut a = self.regs(vals, a_id)?;
        let mut b = self.regs(vals, idref(o.get(1))?)?;
        let acc = if has_acc {
            Some(self.reg1(vals, idref(o.get(2))?)?)
        } else {
            None
        };
        let packed = o
            .iter()
            .any(|x| matches!(x, Operand::PackedVectorFormat(_)));
        let int_width = |l: &[Sc]| match l.first() {
            Some(Sc::Int(w, _)) if *w <= 64 => Some(*w),
            _ => None,
        };
        let Some(w_out) = int_width(&self.result_leaves(inst)?) else {
            return err(format!(
                "{}: an integer dot product needs an integer result",
                self.at
            ));
        };
        for id in o.iter().take(if has_acc { 3 } else { 2 }) {
            let id = idref(Some(id))?;
            if int_width(&self.typed_leaves(id)?).is_none() {
                return err(format!(
                    "{}: integer dot product operand %{id} is not an integer",
                    self.at
                ));
            }
        }
        let w_in = if packed {
            // Four 8-bit components in each 32-bit operand, component 0 in the low byte.
            let mask = self.imm(0xff)?;
            let mut split = |x: Reg| -> R<Vec<Reg>> {
                (0..4u64)
                    .map(|k| {
                        let sh = self.imm(8 * k)?;
                        let (t, d) = (self.alloc(1)?, self.alloc(1)?);
                        self.emit(Op::IBin {
                            op: IBin::ShrL,
                            w: 32,
                            d: t,
                            a: x,
                            b: sh,
                        });
                        self.emit(Op::IBin {
                            op: IBin::And,
                            w: 32,
                            d,
                            a: t,
                            b: mask,
                        });
                        Ok(d)
                    })
                    .collect()
            };
            let (Some(&pa), Some(&pb)) = (a.first(), b.first()) else {
                return err(format!("{}: empty dot-product operand", self.at));
            };
            a = split(pa)?;
            b = split(pb)?;
            8
        } else {
            int_width(&self.typed_leaves(a_id)?).unwrap_or(32)
        };
        if a.len() != b.len() || a.is_empty() || w_out < w_in {
            return err(format!(
                "{}: integer dot product of mismatched operands",
                self.at
            ));
        }
        let d = self.alloc(1)?;
        self.emit(Op::IDot {
            w_in,
            w_out,
            a_signed,
            b_signed,
            sat_signed,
            d,
            a: a.into_boxed_slice(),
            b: b.into_boxed_slice(),
            acc,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// Inverse of the `n`×`n` column-major matrix `m`: `inv[c][r] = (-1)^(r+c) ·
    /// minor(row c, column r) / det(m)`.
    fn inverse(&mut self, w: u8, m: &[Reg], n: usize) -> R<Vec<Reg>> {
        let det = self.determinant(w, m, n)?;
        let mut out = Vec::with_capacity(n * n);
        for c in 0..n {
            for r in 0..n {
                // Minor without row c and column r, column-major.
                let minor: Vec<Reg> = (0..n)
                    .filter(|&cc| cc != r)
                    .flat_map(|cc| (0..n).filter(|&rr| rr != c).map(move |rr| m[cc * n + rr]))
                    .collect();
                let cof = self.determinant(w, &minor, n - 1)?;
                let signed = if (r + c) % 2 == 1 {
                    let d = self.alloc(1)?;
                    self.emit(Op::FUn {
                        op: FUn::Neg,
                        w,
                        d,
                        a: cof,
                    });
                    d
                } else {
                    cof
                };
                let d = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Div,
                    w,
                    d,
                    a: signed,
                    b: det,
                });
                out.push(d);
            }
        }
        Ok(out)
    }

    /// `Pack{S,U}norm`: f32 components → `bits`-wide fields of one u32.
    fn pack_norm(&mut self, x: &[Reg], bits: u8, signed: bool) -> R<Reg> {
        let scale = ((1u32 << (bits - if signed { 1 } else { 0 })) - 1) as f32;
        let lo_c = self.imm(u64::from((if signed { -1.0f32 } else { 0.0 }).to_bits()))?;
        let hi_c = self.imm(u64::from(1.0f32.to_bits()))?;
        let sc = self.imm(u64::from(scale.to_bits()))?;
        let mut acc: Option<Reg> = None;
        for (i, &c) in x.iter().enumerate() {
            let [a, b, t, rnd, q, z] = [0; 6].map(|_| self.alloc(1));
            let [a, b, t, rnd, q, z] = [a?, b?, t?, rnd?, q?, z?];
            self.emit(Op::FBin {
                op: FBin::Max,
                w: 32,
                d: a,
                a: c,
                b: lo_c,
            });
            self.emit(Op::FBin {
                op: FBin::Min,
                w: 32,
                d: b,
                a,
                b: hi_c,
            });
            self.emit(Op::FBin {
                op: FBin::Mul,
                w: 32,
                d: t,
                a: b,
                b: sc,
            });
            self.emit(Op::FUn {
                op: FUn::RoundEven,
                w: 32,
                d: rnd,
                a: t,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::FToS } else { Conv::FToU },
                from: 32,
                to: bits,
                d: q,
                a: rnd,
            });
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: bits,
                to: 32,
                d: z,
                a: q,
            });
            let field = if i == 0 {
                z
            } else {
                let sh = self.imm(u64::from(bits) * i as u64)?;
                let d = self.alloc(1)?;
                self.emit(Op::IBin {
                    op: IBin::Shl,
                    w: 32,
                    d,
                    a: z,
                    b: sh,
                });
                d
            };
            acc = Some(match acc {
                None => field,
                Some(prev) => {
                    let d = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Or,
                        w: 32,
                        d,
                        a: prev,
                        b: field,
                    });
                    d
                }
            });
        }
        acc.ok_or_else(|| SpirvError::new("empty pack"))
    }

    /// `Unpack{S,U}norm`: the `bits`-wide fields of `x` (field 0 lowest) as f32 components.
    fn unpack_norm(&mut self, x: Reg, bits: u8, signed: bool) -> R<Vec<Reg>> {
        let scale = ((1u32 << (bits - if signed { 1 } else { 0 })) - 1) as f32;
        let sc = self.imm(u64::from(scale.to_bits()))?;
        let lo_c = self.imm(u64::from((-1.0f32).to_bits()))?;
        let mask = self.imm((1u64 << bits) - 1)?;
        let mut out = Vec::new();
        for i in 0..32 / u32::from(bits) {
            let sh = self.imm(u64::from(u32::from(bits) * i))?;
            let [shifted, field, wide, f, q] = [0; 5].map(|_| self.alloc(1));
            let [shifted, field, wide, f, q] = [shifted?, field?, wide?, f?, q?];
            self.emit(Op::IBin {
                op: IBin::ShrL,
                w: 32,
                d: shifted,
                a: x,
                b: sh,
            });
            self.emit(Op::IBin {
                op: IBin::And,
                w: 32,
                d: field,
                a: shifted,
                b: mask,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::SToS } else { Conv::UToU },
                from: bits,
                to: 32,
                d: wide,
                a: field,
            });
            self.emit(Op::Conv {
                op: if signed { Conv::SToF } else { Conv::UToF },
                from: 32,
                to: 32,
                d: f,
                a: wide,
            });
            self.emit(Op::FBin {
                op: FBin::Div,
                w: 32,
                d: q,
                a: f,
                b: sc,
            });
            if signed {
                // -128 / 127 (or -32768 / 32767) clamps to -1.
                let d = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Max,
                    w: 32,
                    d,
                    a: q,
                    b: lo_c,
                });
                out.push(d);
            } else {
                out.push(q);
            }
        }
        Ok(out)
    }

    /// Rows of the matrix value `id` (the length of one scalarised column).
    fn matrix_rows(&self, id: Id) -> R<usize> {
        let t = *self
            .id_types
            .get(&id)
            .ok_or_else(|| SpirvError::new("untyped matrix"))?;
        match self.ty(t)? {
            Ty::Matrix { col, .. } => Ok(self.nleaves(*col)? as usize),
            _ => err(format!("{}: expected a matrix", self.at)),
        }
    }

    /// `OpBitFieldUExtract` / `SExtract` / `Insert`, per component, with the shift semantics of
    /// `alu` (a shift by the full width gives 0), so `count == width` selects every bit.
    fn bitfield(&mut self, inst: &Instruction, vals: &HashMap<Id, Val>) -> R<Vec<Reg>> {
        let o = &inst.operands;
        let insert = inst.class.opcode == S::BitFieldInsert;
        let base = self.regs(vals, idref(o.first())?)?;
        let ins = if insert {
            self.regs(vals, idref(o.get(1))?)?
        } else {
            Vec::new()
        };
        let k = usize::from(insert);
        let offset = self.reg1(vals, idref(o.get(1 + k))?)?;
        let count = self.reg1(vals, idref(o.get(2 + k))?)?;
        let res = self.result_leaves(inst)?;
        let one = self.imm(1)?;
        let mut out = Vec::with_capacity(base.len());
        for (i, b) in base.iter().enumerate() {
            let w = res.get(i).or(res.first()).map(|x| x.w()).unwrap_or(32);
            let bin = |l: &mut Self, op: IBin, a: Reg, b: Reg| -> R<Reg> {
                let d = l.alloc(1)?;
                l.emit(Op::IBin { op, w, d, a, b });
                Ok(d)
            };
            // mask = (1 << count) - 1: all ones when count == width (the shift gives 0).
            let shifted_one = bin(self, IBin::Shl, one, count)?;
            let mask = bin(self, IBin::Sub, shifted_one, one)?;
            let d = match inst.class.opcode {
                S::BitFieldUExtract | S::BitFieldSExtract => {
                    let v = bin(self, IBin::ShrL, *b, offset)?;
                    let field = bin(self, IBin::And, v, mask)?;
                    if inst.class.opcode == S::BitFieldUExtract {
                        field
                    } else {
                        // Sign-extend from `count` bits: shift the field to the top and back.
                        let width = self.imm(u64::from(w))?;
                        let up = bin(self, IBin::Sub, width, count)?;
                        let top = bin(self, IBin::Shl, field, up)?;
                        bin(self, IBin::ShrA, top, up)?
                    }
                }
                _ => {
                    let placed_mask = bin(self, IBin::Shl, mask, offset)?;
                    let keep = self.alloc(1)?;
                    self.emit(Op::IUn {
                        op: IUn::Not,
                        w,
                        d: keep,
                        a: placed_mask,
                    });
                    let kept = bin(self, IBin::And, *b, keep)?;
                    let v = ins.get(i).copied().unwrap_or(ins[0]);
                    let moved = bin(self, IBin::Shl, v, offset)?;
                    let new_bits = bin(self, IBin::And, moved, placed_mask)?;
                    bin(self, IBin::Or, kept, new_bits)?
                }
            };
            out.push(d);
        }
        Ok(out)
    }

    fn ext_inst(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        use AluKind as K;
        let o = &inst.operands;
        let set_id = idref(o.first())?;
        if self.ignored_sets.contains(&set_id) {
            return Ok(());
        }
        if Some(set_id) != self.glsl {
            return err(format!(
                "{}: unknown extended instruction set %{set_id}",
                self.at
            ));
        }
        let n = lit(o.get(1))?;
        let args = &o[2..];
        let fu = |op| K::FU(op);
        let kind = match n {
            glsl::ROUND => fu(FUn::Round),
            glsl::ROUND_EVEN => fu(FUn::RoundEven),
            glsl::TRUNC => fu(FUn::Trunc),
            glsl::FABS => fu(FUn::Abs),
            glsl::SABS => K::IU(IUn::SAbs),
            glsl::FSIGN => fu(FUn::Sign),
            glsl::SSIGN => K::IU(IUn::SSign),
            glsl::FLOOR => fu(FUn::Floor),
            glsl::CEIL => fu(FUn::Ceil),
            glsl::FRACT => fu(FUn::Fract),
            glsl::RADIANS => fu(FUn::Radians),
            glsl::DEGREES => fu(FUn::Degrees),
            glsl::SIN..=glsl::ATANH => fu([
                FUn::Sin,
                FUn::Cos,
                FUn::Tan,
                FUn::Asin,
                FUn::Acos,
                FUn::Atan,
                FUn::Sinh,
                FUn::Cosh,
                FUn::Tanh,
                FUn::Asinh,
                FUn::Acosh,
                FUn::Atanh,
            ][(n - glsl::SIN) as usize]),
            glsl::ATAN2 => K::F(FBin::Atan2),
            glsl::POW => K::F(FBin::Pow),
            glsl::EXP => fu(FUn::Exp),
            glsl::LOG => fu(FUn::Log),
            glsl::EXP2 => fu(FUn::Exp2),
            glsl::LOG2 => fu(FUn::Log2),
            glsl::SQRT => fu(FUn::Sqrt),
            glsl::INV_SQRT => fu(FUn::InvSqrt),
            glsl::FMIN | glsl::NMIN => K::F(FBin::Min),
            glsl::FMAX | glsl::NMAX => K::F(FBin::Max),
            glsl::UMIN => K::I(IBin::UMin),
            glsl::SMIN => K::I(IBin::SMin),
            glsl::UMAX => K::I(IBin::UMax),
            glsl::SMAX => K::I(IBin::SMax),
            glsl::FCLAMP => K::T(Tern::FClamp),
            glsl::NCLAMP => K::T(Tern::NClamp),
            glsl::UCLAMP => K::T(Tern::UClamp),
            glsl::SCLAMP => K::T(Tern::SClamp),
            glsl::FMIX => K::T(Tern::FMix),
            glsl::STEP => K::F(FBin::Step),
            glsl::SMOOTH_STEP => K::T(Tern::SmoothStep),
            glsl::FMA => K::T(Tern::Fma),
            glsl::FIND_ILSB => K::IU(IUn::FindILsb),
            glsl::FIND_SMSB => K::IU(IUn::FindSMsb),
            glsl::FIND_UMSB => K::IU(IUn::FindUMsb),
            glsl::LENGTH | glsl::DISTANCE | glsl::NORMALIZE | glsl::CROSS => {
                let w = self.fw(inst)?;
                let mut x = self.regs(vals, idref(args.first())?)?;
                if n == glsl::DISTANCE {
                    let y = self.regs(vals, idref(args.get(1))?)?;
                    let len = x.len();
                    x = self.map_n(&[x, y], len, |_, d, a| Op::FBin {
                        op: FBin::Sub,
                        w,
                        d,
                        a: a[0],
                        b: a[1],
                    })?;
                }
                let out = if n == glsl::CROSS {
                    let y = self.regs(vals, idref(args.get(1))?)?;
                    if x.len() != 3 || y.len() != 3 {
                        return err(format!("{}: cross needs 3-vectors", self.at));
                    }
                    let mut out = Vec::new();
                    for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                        let p = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Mul,
                            w,
                            d: p,
                            a: x[i],
                            b: y[j],
                        });
                        let q = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Mul,
                            w,
                            d: q,
                            a: x[j],
                            b: y[i],
                        });
                        let d = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Sub,
                            w,
                            d,
                            a: p,
                            b: q,
                        });
                        out.push(d);
                    }
                    out
                } else {
                    let dd = self.dot(w, &x, &x)?;
                    let len = self.alloc(1)?;
                    self.emit(Op::FUn {
                        op: FUn::Sqrt,
                        w,
                        d: len,
                        a: dd,
                    });
                    if n == glsl::NORMALIZE {
                        let l = x.len();
                        self.map_n(&[x, vec![len]], l, |_, d, a| Op::FBin {
                            op: FBin::Div,
                            w,
                            d,
                            a: a[0],
                            b: a[1],
                        })?
                    } else {
                        vec![len]
                    }
                };
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // FaceForward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N.
            70 => {
                let w = self.fw(inst)?;
                let nv = self.regs(vals, idref(args.first())?)?;
                let iv = self.regs(vals, idref(args.get(1))?)?;
                let nref = self.regs(vals, idref(args.get(2))?)?;
                let dp = self.dot(w, &nref, &iv)?;
                let zero = self.imm(0)?;
                let neg = self.alloc(1)?;
                self.emit(Op::FCmp {
                    op: FCmp::OLt,
                    w,
                    d: neg,
                    a: dp,
                    b: zero,
                });
                let l = nv.len();
                let minus = self.map_n(std::slice::from_ref(&nv), l, |_, d, a| Op::FUn {
                    op: FUn::Neg,
                    w,
                    d,
                    a: a[0],
                })?;
                let out = self.map_n(&[vec![neg], nv, minus], l, |_, d, a| Op::Select {
                    d,
                    c: a[0],
                    a: a[1],
                    b: a[2],
                })?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // Reflect(I, N) = I - 2·dot(N, I)·N.
            71 => {
                let w = self.fw(inst)?;
                let iv = self.regs(vals, idref(args.first())?)?;
                let nv = self.regs(vals, idref(args.get(1))?)?;
                let dp = self.dot(w, &nv, &iv)?;
                let two = self.fconst(w, 2.0)?;
                let k = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Mul,
                    w,
                    d: k,
                    a: dp,
                    b: two,
                });
                let l = iv.len();
                let kn = self.map_n(&[vec![k], nv], l, |_, d, a| Op::FBin {
                    op: FBin::Mul,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                let out = self.map_n(&[iv, kn], l, |_, d, a| Op::FBin {
                    op: FBin::Sub,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // Refract(I, N, eta): k = 1 - eta²·(1 - dot(N, I)²); 0 if k < 0, else
            // eta·I - (eta·dot(N, I) + sqrt(k))·N.
            72 => {
                let w = self.fw(inst)?;
                let iv = self.regs(vals, idref(args.first())?)?;
                let nv = self.regs(vals, idref(args.get(1))?)?;
                let eta = self.reg1(vals, idref(args.get(2))?)?;
                let ew = self
                    .typed_leaves(idref(args.get(2))?)?
                    .first()
                    .map(|s| s.w())
                    .unwrap_or(w);
                let eta = if ew == w {
                    eta
                } else {
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: ew,
                        to: w,
                        d,
                        a: eta,
                    });
                    d
                };
                let one = self.fconst(w, 1.0)?;
                let zero = self.imm(0)?;
                let dp = self.dot(w, &nv, &iv)?;
                let f = |l: &mut Self, op: FBin, a: Reg, b: Reg| -> R<Reg> {
                    let d = l.alloc(1)?;
                    l.emit(Op::FBin { op, w, d, a, b });
                    Ok(d)
                };
                let dp2 = f(self, FBin::Mul, dp, dp)?;
                let t = f(self, FBin::Sub, one, dp2)?;
                let eta2 = f(self, FBin::Mul, eta, eta)?;
                let et = f(self, FBin::Mul, eta2, t)?;
                let k = f(self, FBin::Sub, one, et)?;
                let neg = self.alloc(1)?;
                self.emit(Op::FCmp {
                    op: FCmp::OLt,
                    w,
                    d: neg,
                    a: k,
                    b: zero,
                });
                let sq = self.alloc(1)?;
                self.emit(Op::FUn {
                    op: FUn::Sqrt,
                    w,
                    d: sq,
                    a: k,
                });
                let ed = f(self, FBin::Mul, eta, dp)?;
                let c = f(self, FBin::Add, ed, sq)?;
                let l = iv.len();
                let ei = self.map_n(&[vec![eta], iv], l, |_, d, a| Op::FBin {
                    op: FBin::Mul,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                let cn = self.map_n(&[vec![c], nv], l, |_, d, a| Op::FBin {
                    op: FBin::Mul,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                let r = self.map_n(&[ei, cn], l, |_, d, a| Op::FBin {
                    op: FBin::Sub,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                let out = self.map_n(&[vec![neg], vec![zero], r], l, |_, d, a| Op::Select {
                    d,
                    c: a[0],
                    a: a[1],
                    b: a[2],
                })?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // Determinant of a square matrix, by cofactor expansion along the first column.
            33 => {
                let m_id = idref(args.first())?;
                let m = self.regs(vals, m_id)?;
                let n = self.matrix_rows(m_id)?;
                if n == 0 || m.len() != n * n || n > 4 {
                    return err(format!(
                        "{}: Determinant needs a 2x2, 3x3 or 4x4 matrix",
                        self.at
                    ));
                }
                let w = self.fw(inst)?;
                let d = self.determinant(w, &m, n)?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![d]));
                }
                return Ok(());
            }
            // Frexp (51: the exponent goes through the pointer operand) and FrexpStruct (52:
            // { significand, exponent }): significand in [0.5, 1) with x's sign, per component.
            51 | 52 => {
                let x = self.regs(vals, idref(args.first())?)?;
                let w = self.fw(inst)?;
                let out_ptr = if n == 51 {
                    Some(self.ptr(vals, idref(args.get(1))?)?)
                } else {
                    None
                };
                let ew = match &out_ptr {
                    Some(p) => self.leaves(p.ty)?.last().map(|l| l.w()),
                    None => self.result_leaves(inst)?.last().map(|l| l.w()),
                }
                .unwrap_or(32);
                let mut sig = Vec::with_capacity(x.len());
                let mut exp = Vec::with_capacity(x.len());
                for xi in &x {
                    let (m, e) = self.frexp(w, ew, *xi)?;
                    sig.push(m);
                    exp.push(e);
                }
                let result = match out_ptr {
                    Some(p) => {
                        self.store(p, &exp)?;
                        sig
                    }
                    None => sig.into_iter().chain(exp).collect(),
                };
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(result));
                }
                return Ok(());
            }
            // Modf (35: the whole part goes through the pointer operand) and ModfStruct (36:
            // { fract, whole }): whole = trunc(x), fract = x - whole with x's sign.
            35 | 36 => {
                let x = self.regs(vals, idref(args.first())?)?;
                let w = self.fw(inst)?;
                let whole = self.map_n(std::slice::from_ref(&x), x.len(), |_, d, a| Op::FUn {
                    op: FUn::Trunc,
                    w,
                    d,
                    a: a[0],
                })?;
                let fract =
                    self.map_n(&[x.clone(), whole.clone()], x.len(), |_, d, a| Op::FBin {
                        op: FBin::Sub,
                        w,
                        d,
                        a: a[0],
                        b: a[1],
                    })?;
                let fract = self.copysign_all(w, &fract, &x)?;
                let result = if n == 35 {
                    let p = self.ptr(vals, idref(args.get(1))?)?;
                    self.store(p, &whole)?;
                    fract
                } else {
                    fract.into_iter().chain(whole).collect()
                };
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(result));
                }
                return Ok(());
            }
            // Ldexp: x * 2^exp.
            53 => {
                let x_id = idref(args.first())?;
                let x = self.regs(vals, x_id)?;
                let e_id = idref(args.get(1))?;
                let e = self.regs(vals, e_id)?;
                let w = self.fw(inst)?;
                let ew = self
                    .typed_leaves(e_id)?
                    .first()
                    .map(|s| s.w())
                    .unwrap_or(32);
                let ef = self.map_n(&[e], x.len(), |_, d, a| Op::Conv {
                    op: Conv::SToF,
                    from: ew,
                    to: w,
                    d,
                    a: a[0],
                })?;
                let scale = self.map_n(&[ef], x.len(), |_, d, a| Op::FUn {
                    op: FUn::Exp2,
                    w,
                    d,
                    a: a[0],
                })?;
                let n = x.len();
                let out = self.map_n(&[x, scale], n, |_, d, a| Op::FBin {
                    op: FBin::Mul,
                    w,
                    d,
                    a: a[0],
                    b: a[1],
                })?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // Pack{Snorm,Unorm}{4x8,2x16}: each component clamped, scaled, rounded to the nearest
            // integer (ties to even) and packed, component 0 in the low bits.
            54..=57 => {
                let x = self.regs(vals, idref(args.first())?)?;
                let (bits, signed) = match n {
                    54 => (8u8, true),
                    55 => (8, false),
                    56 => (16, true),
                    _ => (16, false),
                };
                if x.len() != (32 / bits) as usize {
                    return err(format!("{}: wrong vector size for a pack", self.at));
                }
                let d = self.pack_norm(&x, bits, signed)?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![d]));
                }
                return Ok(());
            }
            // Unpack{Snorm,Unorm}{2x16,4x8}: each field as a float in [-1, 1] or [0, 1].
            60 | 61 | 63 | 64 => {
                let x = self.reg1(vals, idref(args.first())?)?;
                let (bits, signed) = match n {
                    60 => (16u8, true),
                    61 => (16, false),
                    63 => (8, true),
                    _ => (8, false),
                };
                let out = self.unpack_norm(x, bits, signed)?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // PackDouble2x32: a uvec2 as the bits of a double (component 0 low).
            59 => {
                let x = self.regs(vals, idref(args.first())?)?;
                if x.len() != 2 {
                    return err(format!("{}: PackDouble2x32 needs a 2-vector", self.at));
                }
                let (hi, d) = (self.alloc(1)?, self.alloc(1)?);
                let (sh, lo) = (self.imm(32)?, self.alloc(1)?);
                self.emit(Op::Conv {
                    op: Conv::UToU,
                    from: 32,
                    to: 64,
                    d: lo,
                    a: x[0],
                });
                self.emit(Op::IBin {
                    op: IBin::Shl,
                    w: 64,
                    d: hi,
                    a: x[1],
                    b: sh,
                });
                self.emit(Op::IBin {
                    op: IBin::Or,
                    w: 64,
                    d,
                    a: hi,
                    b: lo,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![d]));
                }
                return Ok(());
            }
            // UnpackDouble2x32: the bits of a double as a uvec2 (low word first).
            65 => {
                let x = self.reg1(vals, idref(args.first())?)?;
                let (lo, hi, sh) = (self.alloc(1)?, self.alloc(1)?, self.imm(32)?);
                self.emit(Op::Conv {
                    op: Conv::UToU,
                    from: 64,
                    to: 32,
                    d: lo,
                    a: x,
                });
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    w: 64,
                    d: hi,
                    a: x,
                    b: sh,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![lo, hi]));
                }
                return Ok(());
            }
            // MatrixInverse: adjugate over determinant (the result is undefined for a singular
            // matrix; this gives infinities or NaNs then).
            34 => {
                let m_id = idref(args.first())?;
                let m = self.regs(vals, m_id)?;
                let n = self.matrix_rows(m_id)?;
                if n < 2 || m.len() != n * n || n > 4 {
                    return err(format!(
                        "{}: MatrixInverse needs a 2x2, 3x3 or 4x4 matrix",
                        self.at
                    ));
                }
                let w = self.fw(inst)?;
                let out = self.inverse(w, &m, n)?;
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
                return Ok(());
            }
            // PackHalf2x16: two f32 → f16 bit patterns in one u32 (x in the low half).
            58 => {
                let x = self.regs(vals, idref(args.first())?)?;
                if x.len() != 2 {
                    return err(format!("{}: PackHalf2x16 needs a 2-vector", self.at));
                }
                let sixteen = self.imm(16)?;
                let [lo, hi, shifted, d] = [0; 4].map(|_| self.alloc(1));
                let [lo, hi, shifted, d] = [lo?, hi?, shifted?, d?];
                self.emit(Op::Conv {
                    op: Conv::FToF,
                    from: 32,
                    to: 16,
                    d: lo,
                    a: x[0],
                });
                self.emit(Op::Conv {
                    op: Conv::FToF,
                    from: 32,
                    to: 16,
                    d: hi,
                    a: x[1],
                });
                self.emit(Op::IBin {
                    op: IBin::Shl,
                    w: 32,
                    d: shifted,
                    a: hi,
                    b: sixteen,
                });
                self.emit(Op::IBin {
                    op: IBin::Or,
                    w: 32,
                    d,
                    a: shifted,
                    b: lo,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![d]));
                }
                return Ok(());
            }
            // UnpackHalf2x16: the two f16 halves of a u32 as a 2-vector of f32.
            62 => {
                let x = self.reg1(vals, idref(args.first())?)?;
                let (sixteen, mask) = (self.imm(16)?, self.imm(0xFFFF)?);
                let [lo_bits, hi_bits, lo, hi] = [0; 4].map(|_| self.alloc(1));
                let [lo_bits, hi_bits, lo, hi] = [lo_bits?, hi_bits?, lo?, hi?];
                self.emit(Op::IBin {
                    op: IBin::And,
                    w: 32,
                    d: lo_bits,
                    a: x,
                    b: mask,
                });
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    w: 32,
                    d: hi_bits,
                    a: x,
                    b: sixteen,
                });
                self.emit(Op::Conv {
                    op: Conv::FToF,
                    from: 16,
                    to: 32,
                    d: lo,
                    a: lo_bits,
                });
                self.emit(Op::Conv {
                    op: Conv::FToF,
                    from: 16,
                    to: 32,
                    d: hi,
                    a: hi_bits,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(vec![lo, hi]));
                }
                return Ok(());
            }
            _ => {
                return err(format!(
                    "{}: unsupported GLSL.std.450 instruction {n}",
                    self.at
                ));
            }
        };
        self.alu(inst, vals, args, kind)
    }

    // ----------------------------------------------------------------- pointers

    fn chain(&mut self, vals: &HashMap<Id, Val>, mut p: Ptr, idx: &[Operand]) -> R<Ptr> {
        for x in idx {
            let id = idref(Some(x))?;
            let cst = self.consts.get(&id).and_then(|v| v.first().copied());
            let desc_of = |l: &mut Lowerer, id: Id| -> R<DescIdx> {
                Ok(match cst {
                    Some(c) => DescIdx::Const(c as u32),
                    None => DescIdx::Dyn(l.reg1(vals, id)?),
                })
            };
            match p.pk {
                PK::BufArr { slot } => {
                    let desc = desc_of(self, id)?;
                    let (elem, _) = self.elem_stride(p.ty, false, None)?;
                    p.pk = PK::Mem(Space::Buffer { slot, desc });
                    p.ty = elem;
                    continue;
                }
                PK::TensorArr { slot } => {
                    let desc = desc_of(self, id)?;
                    let (elem, _) = self.elem_stride(p.ty, false, None).or_else(|_| match self
                        .ty(p.ty)?
                    {
                        Ty::Array { elem, .. } | Ty::RuntimeArray { elem } => Ok((*elem, 0)),
                        _ => err("bad tensor array"),
                    })?;
                    p.pk = PK::Tensor { slot, desc };
                    p.ty = elem;
                    continue;
                }
                PK::Tensor { .. } => {
                    return err(format!("{}: cannot index into a tensor", self.at));
                }
                _ => {}
            }
            let is_struct = matches!(self.ty(p.ty)?, Ty::Struct { .. });
            let is_var = matches!(p.pk, PK::Var { .. });
            if is_struct {
                let Some(k) = cst else {
                    return err(format!("{}: struct index must be constant", self.at));
                };
                let k = k as u32;
                if is_var {
                    let (t, lo) = self.sub(p.ty, k)?;
                    p.off += u64::from(lo);
                    p.ty = t;
                } else {
                    let off = self.member_offset(p.ty, k, p.explicit)?;
                    if p.explicit && self.has_member_deco(p.ty, k, Decoration::RowMajor) {
                        return err(format!(
                            "{}: row-major matrices in buffers are not supported",
                            self.at
                        ));
                    }
                    p.mstride = self.member_deco_lit(p.ty, k, Decoration::MatrixStride);
                    let (t, _) = self.sub(p.ty, k)?;
                    p.off += off;
                    p.ty = t;
                }
                continue;
            }
            let (elem, stride) = if is_var {
                let elem = match self.ty(p.ty)? {
                    Ty::Vector { elem, .. }
                    | Ty::Array { elem, .. }
                    | Ty::RuntimeArray { elem } => *elem,
                    Ty::Matrix { col, .. } => *col,
                    _ => return err(format!("{}: cannot index %{}", self.at, p.ty)),
                };
                (elem, u64::from(self.nleaves(elem)?))
            } else {
                self.elem_stride(p.ty, p.explicit, p.mstride)?
            };
            // A member's MatrixStride also covers matrices inside arrays of that member: keep it
            // through array indexing, drop it once a matrix or vector is indexed.
            if !matches!(self.ty(p.ty)?, Ty::Array { .. } | Ty::RuntimeArray { .. }) {
                p.mstride = None;
            }
            p.ty = elem;
            match cst {
                Some(c) => {
                    let sw = self.typed_leaves(id).ok().and_then(|l| l.first().copied());
                    let c = match sw {
                        Some(Sc::Int(w, true)) => alu::sext(c, w) as u64,
                        _ => c,
                    };
                    p.off = p.off.wrapping_add(c.wrapping_mul(stride));
                }
                None => {
                    let r = self.reg1(vals, id)?;
                    let sc = self
                        .typed_leaves(id)?
                        .first()
                        .copied()
                        .unwrap_or(Sc::Int(32, false));
                    let r64 = match sc {
                        Sc::Int(64, _) => r,
                        Sc::Int(w, true) => {
                            let d = self.alloc(1)?;
                            self.emit(Op::Conv {
                                op: Conv::SToS,
                                from: w,
                                to: 64,
                                d,
                                a: r,
                            });
                            d
                        }
                        _ => r,
                    };
                    let scaled = if stride == 1 {
                        r64
                    } else {
                        let k = self.imm(stride)?;
                        let d = self.alloc(1)?;
                        self.emit(Op::IBin {
                            op: IBin::Mul,
                            w: 64,
                            d,
                            a: r64,
                            b: k,
                        });
                        d
                    };
                    p.dynr = Some(match p.dynr {
                        None => scaled,
                        Some(prev) => {
                            let d = self.alloc(1)?;
                            self.emit(Op::IBin {
                                op: IBin::Add,
                                w: 64,
                                d,
                                a: prev,
                                b: scaled,
                            });
                            d
                        }
                    });
                }
            }
        }
        Ok(p)
    }

    fn load(&mut self, p: Ptr) -> R<Val> {
        match p.pk {
            PK::Var { base, len } => {
                let n = self.nleaves(p.ty)?;
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let d = self.alloc(1)?;
                    let off = p.off.wrapping_add(u64::from(i));
                    match p.dynr {
                        None => {
                            if off < u64::from(len) {
                                self.emit(Op::Mov {
                                    d,
                                    a: base + off as u32,
                                });
                            } else {
                                let z = self.imm(0)?;
                                self.emit(Op::Mov { d, a: z });
                            }
                        }
                        Some(idx) => self.emit(Op::LoadVar {
                            d,
                            base,
                            len,
                            off: off.min(u64::from(u32::MAX)) as u32,
                            idx,
                        }),
                    }
                    out.push(d);
                }
                Ok(Val::Regs(out))
            }
            PK::Mem(sp) => {
                let mut leaves = Vec::new();
                self.mem_leaves(p.ty, p.explicit, p.mstride, p.off, &mut leaves)?;
                let mut out = Vec::with_capacity(leaves.len());
                for (off, sc) in leaves {
                    let d = self.alloc(1)?;
                    self.emit(Op::Load {
                        sp,
                        size: sc.bytes() as u8,
                        d,
                        addr: p.dynr,
                        off,
                    });
                    if sc == Sc::Bool {
                        let z = self.imm(0)?;
                        let b = self.alloc(1)?;
                        self.emit(Op::ICmp {
                            op: ICmp::Ne,
                            w: 32,
                            d: b,
                            a: d,
                            b: z,
                        });
                        out.push(b);
                    } else {
                        out.push(d);
                    }
                }
                Ok(Val::Regs(out))
            }
            PK::Tensor { slot, desc } => {
                let Ty::Tensor { elem, rank, shape } = self.ty(p.ty)?.clone() else {
                    return err(format!("{}: load of a non-tensor descriptor", self.at));
                };
                Ok(Val::Tensor(TensorAcc {
                    slot,
                    desc,
                    elem: elem.scalar_type(),
                    rank: rank.unwrap_or(0),
                    shape,
                }))
            }
            PK::BufArr { .. } | PK::TensorArr { .. } => {
                err(format!("{}: cannot load a whole descriptor array", self.at))
            }
        }
    }

    fn store(&mut self, p: Ptr, v: &[Reg]) -> R<()> {
        match p.pk {
            PK::Var { base, len } => {
                let n = self.nleaves(p.ty)?;
                if v.len() != n as usize {
                    return err(format!("{}: stored value has the wrong type", self.at));
                }
                for (i, &r) in v.iter().enumerate() {
                    let off = p.off.wrapping_add(i as u64);
                    match p.dynr {
                        None => {
                            if off < u64::from(len) {
                                self.emit(Op::Mov {
                                    d: base + off as u32,
                                    a: r,
                                });
                            }
                        }
                        Some(idx) => self.emit(Op::StoreVar {
                            base,
                            len,
                            off: off.min(u64::from(u32::MAX)) as u32,
                            idx,
                            v: r,
                        }),
                    }
                }
                Ok(())
            }
            PK::Mem(sp) => {
                if sp == Space::Push {
                    return err(format!("{}: store to push constants", self.at));
                }
                let mut leaves = Vec::new();
                self.mem_leaves(p.ty, p.explicit, p.mstride, p.off, &mut leaves)?;
                if leaves.len() != v.len() {
                    return err(format!("{}: stored value has the wrong type", self.at));
                }
                for ((off, sc), &r) in leaves.into_iter().zip(v) {
                    self.emit(Op::Store {
                        sp,
                        size: sc.bytes() as u8,
                        v: r,
                        addr: p.dynr,
                        off,
                    });
                }
                Ok(())
            }
            _ => err(format!("{}: cannot store to a descriptor", self.at)),
        }
    }

    fn atomic(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        let o = &inst.operands;
        let p = self.ptr(vals, idref(o.first())?)?;
        let PK::Mem(sp) = p.pk else {
            return err(format!(
                "{}: atomics are only supported on buffer and workgroup memory",
                self.at
            ));
        };
        if sp == Space::Push {
            return err(format!("{}: atomic on push constants", self.at));
        }
        let Ty::Scalar(sc) = self.ty(p.ty)?.clone() else {
            return err(format!("{}: atomic on a non-scalar", self.at));
        };
        let size = sc.bytes() as u8;
        if size != 4 && size != 8 {
            return err(format!("{}: atomics need 32- or 64-bit integers", self.at));
        }
        let z = self.imm(0)?;
        let one = self.imm(1)?;
        let (op, v, cmp) = match inst.class.opcode {
            S::AtomicLoad => (AtomicOp::Load, z, z),
            S::AtomicStore => (AtomicOp::Store, self.reg1(vals, idref(o.get(3))?)?, z),
            S::AtomicIIncrement => (AtomicOp::Add, one, z),
            S::AtomicIDecrement => (AtomicOp::Sub, one, z),
            S::AtomicCompareExchange => (
                AtomicOp::CompareExchange,
                self.reg1(vals, idref(o.get(4))?)?,
                self.reg1(vals, idref(o.get(5))?)?,
            ),
            other => {
                let v = self.reg1(vals, idref(o.get(3))?)?;
                let op = match other {
                    S::AtomicExchange => AtomicOp::Exchange,
                    S::AtomicIAdd => AtomicOp::Add,
                    S::AtomicISub => AtomicOp::Sub,
                    S::AtomicSMin => AtomicOp::SMin,
                    S::AtomicUMin => AtomicOp::UMin,
                    S::AtomicSMax => AtomicOp::SMax,
                    S::AtomicUMax => AtomicOp::UMax,
                    S::AtomicAnd => AtomicOp::And,
                    S::AtomicOr => AtomicOp::Or,
                    _ => AtomicOp::Xor,
                };
                (op, v, z)
            }
        };
        let d = self.alloc(1)?;
        self.emit(Op::Atomic {
            op,
            sp,
            size,
            d,
            addr: p.dynr,
            off: p.off,
            v,
            cmp,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    fn tensor(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> R<()> {
        let o = &inst.operands;
        let t = match self.val(vals, idref(o.first())?)? {
            Val::Tensor(t) => t,
            // Tolerate a pointer to a tensor (loaded implicitly).
            Val::Ptr(p) => match self.load(p)? {
                Val::Tensor(t) => t,
                _ => return err(format!("{}: operand is not a tensor", self.at)),
            },
            _ => return err(format!("{}: operand is not a tensor", self.at)),
        };
        if t.rank == 0 {
            return err(format!(
                "{}: SPV_ARM_tensors accesses need an OpTypeTensorARM with a Rank",
                self.at
            ));
        }
        if inst.class.opcode == S::TensorQuerySizeARM {
            let dim = self.reg1(vals, idref(o.get(1))?)?;
            let w = self.fw(inst)?;
            let d = self.alloc(1)?;
            self.emit(Op::TensorQuery { t, dim, w, d });
            if let Some(r) = inst.result_id {
                vals.insert(r, Val::Regs(vec![d]));
            }
            return Ok(());
        }
        let cid = idref(o.get(1))?;
        let coords = self.regs(vals, cid)?;
        if coords.len() != t.rank as usize {
            return err(format!(
                "{}: {} coordinates for a rank-{} tensor",
                self.at,
                coords.len(),
                t.rank
            ));
        }
        let csc = self
            .typed_leaves(cid)?
            .first()
            .copied()
            .unwrap_or(Sc::Int(32, false));
        let (signed, cw) = match csc {
            Sc::Int(w, s) => (s, w),
            _ => return err(format!("{}: tensor coordinates must be integers", self.at)),
        };
        let (operands_at, value) = if inst.class.opcode == S::TensorWriteARM {
            (3, Some(self.regs(vals, idref(o.get(2))?)?))
        } else {
            (2, None)
        };
        let mut oob = None;
        if let Some(Operand::TensorOperands(mask)) = o.get(operands_at) {
            if mask.contains(rspirv::spirv::TensorOperands::OUT_OF_BOUNDS_VALUE_ARM) {
                oob = Some(self.reg1(vals, idref(o.get(operands_at + 1))?)?);
            }
        }
        match value {
            Some(v) => {
                if v.is_empty() {
                    return err(format!("{}: empty tensor write", self.at));
                }
                self.emit(Op::TensorWrite {
                    t,
                    coords: coords.into(),
                    signed,
                    cw,
                    v: v.into(),
                });
            }
            None => {
                let n = self.nleaves(inst.result_type.unwrap_or(0))?;
                if n == 0 {
                    return err(format!("{}: tensor read of an empty type", self.at));
                }
                let d = self.alloc_v(n)?;
                self.emit(Op::TensorRead {
                    t,
                    coords: coords.into(),
                    signed,
                    cw,
                    d: d.clone().into(),
                    oob,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(d));
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
enum AluKind {
    I(IBin),
    IU(IUn),
    IC(ICmp),
    F(FBin),
    FU(FUn),
    FC(FCmp),
    T(Tern),
    C(Conv),
}
