//! Tessera's Vulkan-agnostic SPIR-V pipeline for compute shaders, including `SPV_ARM_tensors`.
//!
//! Stages:
//! 1. [`Module::parse`] — words → `rspirv` data representation. Never panics on malformed input
//!    (truncated modules, bad word counts, unknown opcodes give a [`SpirvError`]).
//! 2. [`Program::new`] — checks the capability/extension allow-list, applies specialization
//!    constants, inlines every call, scalarises every value into dense registers, turns memory
//!    accesses into explicit byte-offset loads/stores with layout decorations applied, orders
//!    the blocks for lockstep execution (see `ir`), removes copies (`opt`; a loop result read
//!    only after its loop is copied at the loop's exits, `loop_exits`; a loop-carried value is
//!    computed in place, `coalesce`), writes out small counted loops (`unroll`) and folds the
//!    counters that leaves known, variables at constant indices becoming registers
//!    (`constants`), keeps a buffer word a loop accumulates into in a register across the loop
//!    (`promote`), and writes switches as chains of two-way branches (`switches`). Everything
//!    unsupported is rejected here with an error naming the opcode/capability and where it is.
//! 3. [`Program::dispatch`] — runs workgroups as lane groups (one workgroup, or several tiny fused
//!    workgroups when the shader has no workgroup-scope barrier or shared memory) with an active
//!    mask, on `threads` scoped worker threads. All application memory is touched through the
//!    bounds-checked `mem` module, the only place with `unsafe` code.
//!
//! Subgroups (`GroupNonUniform*` capabilities: basic, vote, ballot, arithmetic, clustered,
//! shuffle, shuffle relative, quad): the subgroup size is fixed at 32; a subgroup is 32
//! consecutive invocations of one workgroup by `LocalInvocationIndex` (the last one of a
//! workgroup may be partial). Subgroup operations are cut per workgroup, so fusing tiny
//! workgroups stays allowed and never mixes them; inactive lanes do not participate.
//!
//! Invariants: no shader value can make Rust arithmetic panic or hit UB (see `alu`); a
//! [`Program`] is immutable and shareable between threads.

pub mod alu;
mod coalesce;
mod constants;
pub mod converge;
pub mod exec;
pub mod ir;
mod loop_exits;
mod lower;
pub mod math;
mod mem;
mod opt;
mod promote;
pub mod subgroup;
mod switches;
mod unroll;

use std::fmt;

/// Why a module could not be parsed, specialised, lowered or run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpirvError {
    msg: String,
}

impl SpirvError {
    pub(crate) fn new(msg: impl Into<String>) -> SpirvError {
        SpirvError { msg: msg.into() }
    }

    /// An error of a backend (a compiled form that could not be made).
    pub fn new_backend(msg: impl Into<String>) -> SpirvError {
        SpirvError { msg: msg.into() }
    }

    /// The message (same as `Display`).
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for SpirvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SPIR-V: {}", self.msg)
    }
}

impl std::error::Error for SpirvError {}

/// A parsed SPIR-V module (not yet specialised).
#[derive(Debug)]
pub struct Module {
    pub(crate) dr: rspirv::dr::Module,
    /// Word offset of the instruction defining each result id (for error messages).
    pub(crate) id_offsets: std::collections::HashMap<u32, usize>,
    /// `OpExecutionModeId` instructions (entry point, mode, operand ids): rspirv 0.13's loader
    /// rejects them, so they are taken out of the stream before loading.
    pub(crate) mode_ids: Vec<(u32, u32, Vec<u32>)>,
    /// `OpTypeFloat 8 <encoding>` result ids and their encoding word. rspirv 0.13 cannot read
    /// constants of 8-bit float types, so these types reach it as `OpTypeInt 8 0` (same word
    /// count; an 8-bit literal is the same word either way) and lowering restores them.
    pub(crate) float8_types: std::collections::HashMap<u32, u32>,
}

impl Module {
    /// Parses a SPIR-V binary given as little-endian bytes (a `.spv` file's contents).
    pub fn parse_bytes(bytes: &[u8]) -> Result<Module, SpirvError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(SpirvError::new(format!(
                "module is {} bytes long, not a whole number of words",
                bytes.len()
            )));
        }
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        Module::parse(&words)
    }

    /// Parses a SPIR-V binary. Malformed input gives an error, never a panic.
    pub fn parse(words: &[u32]) -> Result<Module, SpirvError> {
        if words.len() < 5 {
            return Err(SpirvError::new(format!(
                "module is {} words long; the header alone needs 5",
                words.len()
            )));
        }
        if words[0] != 0x0723_0203 {
            return Err(SpirvError::new(format!(
                "bad magic number {:#010x} at word 0",
                words[0]
            )));
        }
        let (id_offsets, mode_ids, filtered, float8_types) = scan_offsets(words)?;
        let parsed = std::panic::catch_unwind(|| rspirv::dr::load_words(&filtered))
            .map_err(|_| SpirvError::new("the SPIR-V parser failed on malformed input"))?;
        let mut dr = parsed.map_err(|e| SpirvError::new(format!("parse error: {e}")))?;
        expand_decoration_groups(&mut dr)?;
        Ok(Module {
            dr,
            id_offsets,
            mode_ids,
            float8_types,
        })
    }

    /// Entry points: name and whether the execution model is `GLCompute`.
    pub fn entry_points(&self) -> Vec<(String, bool)> {
        self.dr
            .entry_points
            .iter()
            .filter_map(|ep| {
                let model = match ep.operands.first()? {
                    rspirv::dr::Operand::ExecutionModel(m) => *m,
                    _ => return None,
                };
                let name = match ep.operands.get(2)? {
                    rspirv::dr::Operand::LiteralString(s) => s.clone(),
                    _ => return None,
                };
                Some((name, model == rspirv::spirv::ExecutionModel::GLCompute))
            })
            .collect()
    }
}

/// Replaces `OpGroupDecorate` / `OpGroupMemberDecorate` by the `OpDecorate` / `OpMemberDecorate`
/// instructions they stand for (and drops the groups), so lowering sees every decoration on its
/// target. The expansion is capped (a small module could otherwise ask for billions of
/// decorations).
fn expand_decoration_groups(dr: &mut rspirv::dr::Module) -> Result<(), SpirvError> {
    use rspirv::dr::{Instruction, Operand};
    use rspirv::spirv::Op;
    let groups: std::collections::HashSet<u32> = dr
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::DecorationGroup)
        .filter_map(|i| i.result_id)
        .collect();
    if groups.is_empty() {
        return Ok(());
    }
    let cap = dr.annotations.len().saturating_mul(4).max(1 << 16);
    let too_many = || {
        SpirvError::new(format!(
            "decoration groups expand to more than {cap} decorations"
        ))
    };
    let target = |i: &Instruction| match i.operands.first() {
        Some(Operand::IdRef(t)) => Some(*t),
        _ => None,
    };
    let mut by_group: std::collections::HashMap<u32, Vec<Instruction>> = Default::default();
    for i in &dr.annotations {
        if matches!(i.class.opcode, Op::Decorate | Op::DecorateId)
            && let Some(g) = target(i).filter(|t| groups.contains(t))
        {
            by_group.entry(g).or_default().push(i.clone());
        }
    }
    let mut out = Vec::with_capacity(dr.annotations.len());
    for i in std::mem::take(&mut dr.annotations) {
        match i.class.opcode {
            Op::DecorationGroup => {}
            Op::Decorate | Op::DecorateId if target(&i).is_some_and(|t| groups.contains(&t)) => {}
            Op::GroupDecorate => {
                let decos = target(&i).and_then(|g| by_group.get(&g));
                for t in i.operands.iter().skip(1) {
                    for d in decos.into_iter().flatten() {
                        if out.len() >= cap {
                            return Err(too_many());
                        }
                        let mut d = d.clone();
                        d.operands[0] = t.clone();
                        out.push(d);
                    }
                }
            }
            Op::GroupMemberDecorate => {
                let decos = target(&i).and_then(|g| by_group.get(&g));
                for pair in i.operands.get(1..).unwrap_or_default().chunks_exact(2) {
                    for d in decos.into_iter().flatten() {
                        if out.len() >= cap {
                            return Err(too_many());
                        }
                        let mut ops = vec![pair[0].clone(), pair[1].clone()];
                        ops.extend(d.operands.iter().skip(1).cloned());
                        out.push(Instruction::new(Op::MemberDecorate, None, None, ops));
                    }
                }
            }
            _ => out.push(i),
        }
    }
    dr.annotations = out;
    Ok(())
}

type Scan = (
    std::collections::HashMap<u32, usize>,
    Vec<(u32, u32, Vec<u32>)>,
    Vec<u32>,
    std::collections::HashMap<u32, u32>,
);

/// Walks the instruction stream once, checking word counts, records where each result id is
/// defined (used to put word offsets in error messages), extracts `OpExecutionModeId`, drops
/// debug instructions and rewrites 8-bit float types (see `Module::float8_types`).
fn scan_offsets(words: &[u32]) -> Result<Scan, SpirvError> {
    const OP_EXECUTION_MODE_ID: u32 = 331;
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    // OpSourceContinued, OpSource, OpSourceExtension, OpName, OpMemberName, OpString, OpLine,
    // OpNoLine, OpModuleProcessed.
    const DEBUG_OPCODES: [u32; 9] = [2, 3, 4, 5, 6, 7, 8, 317, 330];
    let mut float8 = std::collections::HashMap::new();
    let mut map = std::collections::HashMap::new();
    let mut mode_ids = Vec::new();
    let mut filtered = Vec::with_capacity(words.len());
    filtered.extend_from_slice(&words[..5]);
    let mut at = 5usize;
    while at < words.len() {
        let wc = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if wc == 0 {
            return Err(SpirvError::new(format!(
                "word count 0 at word {at} (opcode {opcode})"
            )));
        }
        if at + wc > words.len() {
            return Err(SpirvError::new(format!(
                "truncated module: instruction with opcode {opcode} at word {at} needs {wc} words, {} left",
                words.len() - at
            )));
        }
        if let Some(g) = rspirv::grammar::INSTRUCTION_TABLE.lookup_opcode(opcode) {
            use rspirv::grammar::OperandKind as K;
            let mut idx = 1;
            for op in g.operands.iter().take(2) {
                match op.kind {
                    K::IdResultType => idx += 1,
                    K::IdResult => {
                        if let Some(&id) = words.get(at + idx)
                            && idx < wc
                        {
                            map.insert(id, at);
                        }
                    }
                    _ => break,
                }
            }
        }
        if DEBUG_OPCODES.contains(&opcode) {
            // Debug information: never needed, and its strings need not be UTF-8 (the CTS
            // checks that), which rspirv would reject.
        } else if opcode == OP_TYPE_FLOAT && wc == 4 && words[at + 2] == 8 {
            float8.insert(words[at + 1], words[at + 3]);
            filtered.extend_from_slice(&[(4 << 16) | OP_TYPE_INT, words[at + 1], 8, 0]);
        } else if opcode == OP_EXECUTION_MODE_ID {
            if wc < 3 {
                return Err(SpirvError::new(format!(
                    "malformed OpExecutionModeId at word {at}"
                )));
            }
            mode_ids.push((
                words[at + 1],
                words[at + 2],
                words[at + 3..at + wc].to_vec(),
            ));
        } else {
            filtered.extend_from_slice(&words[at..at + wc]);
        }
        at += wc;
    }
    Ok((map, mode_ids, filtered, float8))
}

/// A descriptor used by an entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceDecl {
    pub set: u32,
    pub binding: u32,
    pub kind: ResourceKind,
    /// `None` = not an array; `Some(0)` = runtime array.
    pub array_len: Option<u32>,
}

/// What kind of descriptor a resource is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceKind {
    StorageBuffer,
    UniformBuffer,
    Tensor {
        rank: Option<u32>,
        element: ScalarType,
    },
}

/// Scalar types (tensor element types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    /// `OpTypeFloat 16 BFloat16KHR`.
    BF16,
    /// `OpTypeFloat 8 Float8E4M3EXT`.
    F8E4M3,
    /// `OpTypeFloat 8 Float8E5M2EXT`.
    F8E5M2,
}

impl ScalarType {
    /// Storage bytes of one element (bools are stored as one byte).
    pub fn bytes(self) -> usize {
        use ScalarType as S;
        match self {
            S::Bool | S::I8 | S::U8 | S::F8E4M3 | S::F8E5M2 => 1,
            S::I16 | S::U16 | S::F16 | S::BF16 => 2,
            S::I32 | S::U32 | S::F32 => 4,
            S::I64 | S::U64 | S::F64 => 8,
        }
    }
}

/// What a descriptor is bound to at dispatch.
#[derive(Debug, Clone)]
pub enum BoundResource {
    Buffer {
        ptr: *mut u8,
        len: usize,
    },
    Tensor {
        ptr: *mut u8,
        /// Bytes from `ptr` the tensor may touch.
        len: usize,
        format: TensorElement,
        dims: Vec<u64>,
        /// Byte strides, outermost first.
        strides: Vec<u64>,
    },
    Null,
}

/// A tensor view's element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorElement {
    Bool8,
    U8,
    I8,
    U16,
    I16,
    F16,
    BF16,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
    F8E4M3,
    F8E5M2,
}

/// Looks up bound descriptors at dispatch.
pub trait Resources: Sync {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource>;

    /// The device-memory ranges live for the dispatch, for `PhysicalStorageBuffer` addresses
    /// (none by default: every such access is then out of bounds).
    fn physical_ranges(&self) -> &[PhysicalRange] {
        &[]
    }
}

/// A device-memory range that `PhysicalStorageBuffer` addresses may point into: `len` bytes at
/// host address `ptr`, known to shaders as device address `address`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhysicalRange {
    pub address: u64,
    pub ptr: *mut u8,
    pub len: usize,
}

/// What a program uses of `SPV_NV_cooperative_vector` and `SPV_KHR_cooperative_matrix`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cooperative {
    /// Every distinct matrix-vector product form.
    pub mat_vecs: Vec<tessera_coop::MatVec>,
    /// The most components of a cooperative vector type (0 without any).
    pub max_vector_components: u32,
    /// Uses the training instructions (`CooperativeVectorTrainingNV`).
    pub training: bool,
    /// Every distinct cooperative matrix type.
    pub matrix_types: Vec<tessera_coop::matrix::MatrixType>,
    /// Every distinct multiply-add form.
    pub mul_adds: Vec<tessera_coop::matrix::MulAdd>,
}

/// A specialised, lowered entry point: immutable and shareable.
#[derive(Debug)]
pub struct Program {
    pub(crate) ir: ir::Ir,
    pub(crate) cooperative: Cooperative,
    pub(crate) local_size: [u32; 3],
    pub(crate) resources: Vec<ResourceDecl>,
    pub(crate) push_size: u32,
    /// Whether any op accesses `Space::Physical`.
    pub(crate) physical: bool,
    /// Whether a variable pointer into a buffer is a descriptor address
    /// (`exec::bind::descriptor_address`): every bound buffer's window is then physical memory.
    pub(crate) descriptor_addresses: bool,
    pub(crate) warnings: Vec<String>,
    /// How invocations are grouped into lane groups.
    pub(crate) shape: exec::GroupShape,
    /// The register file layout of one lane group.
    pub(crate) layout: exec::regfile::RegLayout,
    /// `LocalInvocationId` rows of one workgroup.
    pub(crate) local_ids: Vec<u32>,
}

impl Program {
    /// Specialises and lowers `entry_point`. `spec`: (SpecId, little-endian bytes) pairs.
    pub fn new(
        module: &Module,
        entry_point: &str,
        spec: &[(u32, Vec<u8>)],
    ) -> Result<Program, SpirvError> {
        // Lowering checks everything it reads; the unwind guard only turns a bug into an error
        // instead of taking the driver down.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lower::lower(module, entry_point, spec)
        }))
        .unwrap_or_else(|_| Err(SpirvError::new("internal error: lowering panicked")))
    }

    /// What the program uses of cooperative vectors and matrices (the runtime checks it against
    /// the device's property lists).
    pub fn cooperative(&self) -> &Cooperative {
        &self.cooperative
    }

    /// Things the module does that Vulkan forbids but the interpreter tolerates, one sentence each
    /// naming the rule (the driver logs them).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The workgroup size after specialization.
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Bytes of workgroup (shared) memory the entry point declares, laid out as the interpreter
    /// allocates it.
    pub fn shared_memory_size(&self) -> u32 {
        self.ir.shared_size
    }

    /// Whether the entry point accesses memory through `PhysicalStorageBuffer` pointers (a
    /// dispatch then needs [`Resources::physical_ranges`]).
    pub fn uses_physical_addresses(&self) -> bool {
        self.physical
    }

    /// Every descriptor the entry point uses.
    pub fn resources(&self) -> &[ResourceDecl] {
        &self.resources
    }

    /// Bytes of push constants the shader reads (0 if none).
    pub fn push_constant_size(&self) -> u32 {
        self.push_size
    }

    /// The lowered IR (what every backend runs).
    pub fn ir(&self) -> &ir::Ir {
        &self.ir
    }

    /// How invocations are grouped into lane groups.
    pub fn group_shape(&self) -> exec::GroupShape {
        self.shape
    }

    /// The register file layout of one lane group.
    pub fn reg_layout(&self) -> &exec::regfile::RegLayout {
        &self.layout
    }

    /// The IR's text form with the entry point's workgroup size and lane grouping first: what
    /// the `expected.ir` snapshots hold.
    pub fn ir_text(&self) -> String {
        let s = self.shape;
        format!(
            "; workgroup {:?}, {} workgroup(s) per lane group\n{}",
            self.local_size,
            s.fuse,
            self.ir.to_text()
        )
    }

    /// Runs workgroups `base..base+count` over `threads` worker threads (1 = inline).
    /// Out-of-range buffer loads give 0 and stores are dropped; tensor reads out of bounds give
    /// the `OutOfBoundsValueARM` operand or zero, writes are dropped.
    ///
    /// # Safety
    /// Every Buffer/Tensor record's `ptr` must be valid for reads and writes of `len` bytes for the
    /// whole call; other threads may access the same memory only in ways the Vulkan memory model
    /// allows (the interpreter uses unaligned raw reads/writes and real atomics, never Rust
    /// references to that memory).
    pub unsafe fn dispatch(
        &self,
        resources: &dyn Resources,
        push_constants: &[u8],
        base: [u32; 3],
        count: [u32; 3],
        threads: usize,
    ) -> Result<(), SpirvError> {
        // SAFETY: forwarded contract.
        unsafe { self.dispatch_watched(resources, push_constants, base, count, threads, &|| None) }
    }

    /// [`Self::dispatch`] under a watchdog: every few thousand blocks each worker calls `stop`,
    /// and when it returns a reason the dispatch ends early (workgroups not yet finished are left
    /// as they are) and returns that reason as the error. This is how a shader that never
    /// terminates is stopped.
    ///
    /// # Safety
    /// Same contract as [`Self::dispatch`].
    pub unsafe fn dispatch_watched(
        &self,
        resources: &dyn Resources,
        push_constants: &[u8],
        base: [u32; 3],
        count: [u32; 3],
        threads: usize,
        stop: &(dyn Fn() -> Option<String> + Sync),
    ) -> Result<(), SpirvError> {
        // SAFETY: forwarded contract — the caller guarantees the bound memory is valid.
        unsafe {
            exec::dispatch(
                self,
                None,
                resources,
                push_constants,
                base,
                count,
                threads,
                stop,
            )
        }
    }

    /// [`Self::dispatch_watched`] with a compiled `kernel` of this program (from a
    /// [`exec::Backend`]) instead of the interpreter.
    ///
    /// # Safety
    /// Same contract as [`Self::dispatch`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn dispatch_kernel(
        &self,
        kernel: &dyn exec::Kernel,
        resources: &dyn Resources,
        push_constants: &[u8],
        base: [u32; 3],
        count: [u32; 3],
        threads: usize,
        stop: &(dyn Fn() -> Option<String> + Sync),
    ) -> Result<(), SpirvError> {
        // SAFETY: forwarded contract — the caller guarantees the bound memory is valid.
        unsafe {
            exec::dispatch(
                self,
                Some(kernel),
                resources,
                push_constants,
                base,
                count,
                threads,
                stop,
            )
        }
    }
}
