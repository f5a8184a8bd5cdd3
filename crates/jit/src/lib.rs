//! Tessera's shader JIT: compiles the IR of a [`tessera_spirv::Program`] to native code with
//! Cranelift, as a [`Backend`] of `tessera-spirv`'s execution seam. The interpreter stays the
//! reference; this crate is the one place with generated machine code.
//!
//! # Model
//! Compiled code runs a lane group in *chunks* of [`LANES`] (16) consecutive lanes. Each chunk
//! runs through the whole control-flow graph in one go, its values in SIMD registers
//! (`codegen::values`: uniform values as scalars, affine ones as a scalar base, the rest as
//! 128-bit vectors), on the assumption that all 16 lanes take the same branches. When they do
//! not — a divergent branch — or when a check of the compiled form fails (an affine index that
//! wraps, a tensor access partly out of bounds), the chunk's live registers go to the register
//! file and the interpreter takes that chunk over from that exact op (`Worker::interpret_from`);
//! the next chunk is compiled code again. The exceptions are a divergent branch whose paths
//! meet again through an acyclic graph of blocks of pure ops, loads and buffer or shared
//! stores: each side runs under its lanes' mask (inactive lanes' stores go to a scratch slot),
//! the registers the sides wrote are merged with selects, and the chunk goes on natively
//! (`codegen::masked`); and a loop of such blocks whose lanes leave at different iterations,
//! which runs its remaining iterations under the mask of the lanes still in it
//! (`codegen::loops`). Ops without a native lowering run in the interpreter
//! for the chunk (`ctx::run_op`). Cooperative-vector and cooperative-matrix ops run as native
//! kernels (`tessera-coop`, through `ctx::coop` and `Worker::run_coop`): operands to the register
//! file, the kernel over the chunk (a chunk's matrix-vector products as one GEMM, a half-subgroup's
//! matrix multiply-add), results back. A multiply-add the kernel takes directly is one call of
//! `ctx::product` with pointers to its operands' rows, or to the rows of the arrays they stay in
//! (`codegen::product`); a row-major cooperative-matrix load or store at a uniform
//! address is compiled inline, as vector loads or stores after one range check
//! (`codegen::coop`). Sync ops (barriers, subgroup operations, atomics) end a
//! chunk's run: once every chunk waits at one, the driver runs it for the whole group with the
//! interpreter, and compiled code resumes the chunks after it (`driver`). When every chunk of a
//! call waits at the same barrier-only block, compiled code moves them past it itself and runs
//! the next round in the same call (barrier rounds, `codegen::flow::next_round`); at a block of
//! one subgroup operation or one integer atomic it also computes the operation for every lane
//! first (`codegen::rounds`, `codegen::atomic_rounds`). An atomic whose result nothing reads,
//! of the one commuting operation of its memory (`Op::AtomicUpdate`), is no sync op: the chunk
//! takes it inline, lane by lane, under masks too (`codegen::atomic_updates`).
//!
//! Strided tensor reads in loops go through tiles (`codegen::tile`); divisions of call
//! invariants run once per call (`codegen::analysis::hoist_divisions`).
//!
//! [`compile_with`] takes the whole kernel from a code store ([`cache`]: a disk directory, a
//! pipeline cache) when it holds one for the same program, driver build and CPU (`saved`: no
//! code generation at all), else the machine code of the same Cranelift function, and keeps
//! both there after a compile.
//!
//! # Safety
//! Generated code touches application memory only inside the windows the worker hands out,
//! each access checked first (`codegen::memory`); the register file, the context and the
//! block-index array are the driver's own. Every call into Rust catches panics. The watchdog is
//! polled on back edges, so a shader that never ends is stopped as in the interpreter.

pub mod cache;
mod classes;
mod codegen;
mod ctx;
mod driver;
mod error;
mod lockstep;
mod saved;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use tessera_spirv::exec::{Backend, Kernel, Worker};
use tessera_spirv::ir::Op;
use tessera_spirv::{Program, SpirvError};

pub use classes::LANES;
pub use ctx::LANE_PCS;
pub use error::JitError;
use error::JitResult;
pub use lockstep::lockstep_reason;

/// What of a kernel came from a code store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CacheHit {
    /// Nothing: Cranelift compiled it.
    Miss,
    /// The machine code of the same Cranelift function (`cache`).
    Code,
    /// The whole kernel, without running the code generator (`saved`).
    Whole,
}

/// The Cranelift JIT backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct Jit;

/// A compiled program.
pub struct JitKernel {
    /// Owns the code; freed on drop (no dispatch can be running then: it borrows the kernel).
    module: Option<JITModule>,
    func: unsafe extern "C" fn(*mut ctx::Ctx) -> u32,
    out: codegen::Output,
    data: Arc<ctx::CallbackData>,
    /// How long compiling took.
    pub compile_time: Duration,
    /// Why the kernel runs its lane groups on the interpreter in lockstep instead of its
    /// compiled code (see [`lockstep_reason`]), if it does.
    lockstep: Option<&'static str>,
    /// What of the kernel came from a code cache (see [`compile_with`]).
    cache_hit: CacheHit,
    /// Whether [`compile_optimized`] would give better code: the function was allocated in a
    /// single pass only because it grew past [`SINGLE_PASS_REGALLOC_ABOVE_INSTS`].
    improvable: bool,
}

// SAFETY: after `finalize_definitions` the module and the code are immutable; the function
// pointer is plain code, callable from any thread with its own context.
unsafe impl Send for JitKernel {}
// SAFETY: as above; nothing in the kernel is mutated after compilation.
unsafe impl Sync for JitKernel {}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel")
            .field("native_ops", &self.out.native_ops)
            .field("interpreted_ops", &self.data.ops.len())
            .field("compile_time", &self.compile_time)
            .finish_non_exhaustive()
    }
}

impl Drop for JitKernel {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the kernel is being dropped, so no dispatch holds it and no compiled code
            // of this module is running or can run again.
            unsafe { m.free_memory() };
        }
    }
}

/// What compiled code of a kernel handed to the interpreter at run time, over every dispatch
/// since the kernel was compiled (or the last [`JitKernel::reset_run_stats`]). Lanes of a
/// lane group past its last full chunk of [`LANES`] always run on the interpreter and are not
/// counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunStats {
    /// Ops without a native lowering run for a chunk by the interpreter.
    pub callouts: u64,
    /// Chunks handed back to the interpreter (divergence, or a failed check of the compiled
    /// form).
    pub hand_backs: u64,
    /// Sync blocks the driver ran on the interpreter between two calls of compiled code, once
    /// for every lane of the group (barriers and subgroup reductions compiled code runs in its
    /// own rounds are not counted).
    pub sync_blocks: u64,
}

impl JitKernel {
    /// Why this kernel runs on the interpreter in lockstep (see [`lockstep_reason`]), if it does.
    pub fn lockstep(&self) -> Option<&'static str> {
        self.lockstep
    }

    /// Whether the machine code came from the code store given to [`compile_with`] rather
    /// than from Cranelift.
    pub fn from_cache(&self) -> bool {
        self.cache_hit != CacheHit::Miss
    }

    /// Whether the whole kernel came from the code store, with no code generation at all (a
    /// kernel kept whole by an earlier compile of the same program by the same driver build on
    /// the same CPU).
    pub fn whole_from_cache(&self) -> bool {
        self.cache_hit == CacheHit::Whole
    }

    /// Whether [`compile_optimized`] would give this program better code (a second tier worth
    /// compiling in the background): the function was allocated in a single pass only because
    /// it has more than [`SINGLE_PASS_REGALLOC_ABOVE_INSTS`] instructions, and at most
    /// [`TIER_UP_MAX_INSTS`].
    pub fn improvable(&self) -> bool {
        self.improvable
    }

    /// What the code generator said about the code (the ops it hands to Rust, its sites and
    /// tables), in debug form: a kernel read back from a code store says the same.
    #[doc(hidden)]
    pub fn describe(&self) -> String {
        format!("{:?}", self.out)
    }

    /// Cooperative-matrix loads whose multiply-adds read the matrix where it lies, and
    /// multiply-adds that run several to a kernel call.
    pub fn matrix_fusions(&self) -> (u32, u32) {
        (self.out.matrix_fusions[0], self.out.matrix_fusions[1])
    }

    /// Ops compiled natively and ops handed to the interpreter.
    pub fn op_counts(&self) -> (usize, usize) {
        (self.out.native_ops, self.data.ops.len())
    }

    /// The kinds of op compiled code hands to the interpreter (no native lowering; see
    /// [`fallback_kind`]), with how many of each, most frequent first.
    pub fn fallbacks(&self) -> Vec<(String, usize)> {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for op in self.data.ops.iter() {
            let kind = fallback_kind(op);
            match counts.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind, 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }

    /// The ops compiled code hands to the interpreter (their debug form, operands included).
    pub fn interpreted_ops(&self) -> Vec<String> {
        self.data.ops.iter().map(|op| format!("{op:?}")).collect()
    }

    /// What ran on the interpreter so far (see [`RunStats`]).
    pub fn run_stats(&self) -> RunStats {
        use std::sync::atomic::Ordering::Relaxed;
        RunStats {
            callouts: self.data.callouts.load(Relaxed),
            hand_backs: self.data.hand_backs.load(Relaxed),
            sync_blocks: self.data.sync_blocks.load(Relaxed),
        }
    }

    /// Where chunks were handed back so far, most often first: ((block, op), count), block
    /// `u32::MAX` for a chunk whose lanes went on from their own blocks.
    pub fn hand_back_sites(&self) -> Vec<((u32, u32), u64)> {
        let mut sites: Vec<_> = self
            .data
            .hand_back_sites
            .lock()
            .map(|s| s.iter().map(|(&k, &v)| (k, v)).collect())
            .unwrap_or_default();
        sites.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        sites
    }

    /// Sets the [`RunStats`] counters back to zero.
    pub fn reset_run_stats(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        self.data.callouts.store(0, Relaxed);
        self.data.hand_backs.store(0, Relaxed);
        self.data.sync_blocks.store(0, Relaxed);
        if let Ok(mut sites) = self.data.hand_back_sites.lock() {
            sites.clear();
        }
    }
}

impl Backend for Jit {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn compile(&self, program: &Program) -> Result<Box<dyn Kernel>, SpirvError> {
        compile(program).map(|k| Box::new(k) as Box<dyn Kernel>)
    }
}

/// Compiles `program`. Never panics: a failure of the code generator or of Cranelift is an
/// error (the program then runs on the interpreter).
pub fn compile(program: &Program) -> Result<JitKernel, SpirvError> {
    compile_with(program, None)
}

/// Programs with more IR ops than this get Cranelift's single-pass register allocator.
///
/// The backtracking allocator gives better code but its time grows faster than linearly with the
/// number of live ranges: a straight-line shader of 14 000 ops (the CTS's 1024-component
/// cooperative vectors, fully unrolled) took over 200 s to allocate, against 2 s single-pass. The
/// corpus's and the IREE workloads' largest shaders have under 1 000 ops and keep backtracking
/// (unless their function grows past [`SINGLE_PASS_REGALLOC_ABOVE_INSTS`]).
pub const SINGLE_PASS_REGALLOC_ABOVE_OPS: usize = 4000;

/// The generated function's size, in Cranelift instructions, above which it is compiled again
/// with single-pass register allocation when the IR's size chose backtracking: a few hundred
/// IR ops can expand to this (vector divisions by multiplication, masked regions that emit
/// their code a second time). The corpus's largest (`tensor_ranks_1_to_8`, 500 IR ops, 42 000
/// instructions) took 2.5 s to allocate by backtracking and 0.1 s in one pass; the next
/// largest (37 000) compiles in tens of milliseconds and keeps backtracking. Such a kernel is
/// [`JitKernel::improvable`]: the runtime compiles its backtracking second tier in the
/// background ([`compile_optimized`]), and takes it straight from the code store next time.
pub const SINGLE_PASS_REGALLOC_ABOVE_INSTS: usize = 40_000;

/// The largest function, in Cranelift instructions, that [`compile_optimized`] is worth running
/// on in the background after [`compile_with`] chose single-pass allocation by its size. The
/// IREE workloads' shaders have 40 000 to 100 000 and allocate by backtracking in 0.2 to 0.7 s on
/// one core (spills cut: their dispatches run 1.3 to 1.8× faster); the time grows faster than
/// linearly, so larger functions keep their first code.
pub const TIER_UP_MAX_INSTS: usize = 200_000;

/// The largest stack frame compiled code may have. Compiled code runs on the runtime's queue and
/// worker threads, whose stacks (`tessera_workers::THREAD_STACK_BYTES`) are at least twice this;
/// a program whose frame is larger does not compile ([`JitError::FrameTooLarge`]).
pub const MAX_FRAME_BYTES: u64 = 8 << 20;

/// Fails when a frame of `bytes` is over [`MAX_FRAME_BYTES`].
fn check_frame(bytes: u64) -> JitResult<()> {
    if bytes > MAX_FRAME_BYTES {
        return Err(JitError::FrameTooLarge {
            bytes,
            limit: MAX_FRAME_BYTES,
        });
    }
    Ok(())
}

/// Cranelift's register allocators (its `regalloc_algorithm` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterAllocator {
    /// Better code; its time grows faster than linearly with the live ranges.
    Backtracking,
    /// One pass, linear time; more spills.
    SinglePass,
}

impl RegisterAllocator {
    /// The allocator for a program of `ops` IR ops: backtracking unless the program has more
    /// than [`SINGLE_PASS_REGALLOC_ABOVE_OPS`].
    pub fn for_ops(ops: usize) -> Self {
        if ops > SINGLE_PASS_REGALLOC_ABOVE_OPS {
            RegisterAllocator::SinglePass
        } else {
            RegisterAllocator::Backtracking
        }
    }

    fn setting(self) -> &'static str {
        match self {
            RegisterAllocator::Backtracking => "backtracking",
            RegisterAllocator::SinglePass => "single_pass",
        }
    }
}

/// [`compile`] with the register allocator chosen by the caller instead of by size.
pub fn compile_with_allocator(
    program: &Program,
    allocator: RegisterAllocator,
) -> Result<JitKernel, SpirvError> {
    guarded(|| compile_inner(program, None, Some(allocator)))
}

/// The second tier of a kernel that [`JitKernel::improvable`] says is worth it: the same
/// function allocated by backtracking whatever its size, through `store` as [`compile_with`]
/// (a later [`compile_with`] of the same program takes this code from the store).
pub fn compile_optimized(
    program: &Program,
    store: Option<&dyn cache::CodeStore>,
) -> Result<JitKernel, SpirvError> {
    guarded(|| compile_inner(program, store, Some(RegisterAllocator::Backtracking)))
}

/// [`compile`], taking the kernel from `store` when it holds it whole (the same program,
/// driver build and CPU: see `saved`; nothing is generated), or else the machine code of the
/// same Cranelift function for this CPU (see [`cache`]: our code generator runs, its output is
/// the key), and keeping both there otherwise.
pub fn compile_with(
    program: &Program,
    store: Option<&dyn cache::CodeStore>,
) -> Result<JitKernel, SpirvError> {
    guarded(|| compile_inner(program, store, None))
}

/// The kernel `store` keeps whole for `program` (see `saved`), as [`compile_with`] would take
/// it, or `None` without compiling anything: a miss, a damaged entry, or a failure to load.
/// For a caller that would rather start on the interpreter than wait for a compile.
pub fn kept_kernel(program: &Program, store: &dyn cache::CodeStore) -> Option<JitKernel> {
    if std::env::var_os("TESSERA_JIT_DUMP").is_some() {
        return None;
    }
    let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let digest = saved::ProgramDigest::of(program);
        let chosen = RegisterAllocator::for_ops(program_ops(program));
        load_kept(program, store, &digest, chosen, true, Instant::now())
            .ok()
            .flatten()
    }));
    found.ok().flatten()
}

/// The number of IR ops of `program`.
fn program_ops(program: &Program) -> usize {
    program
        .ir()
        .blocks
        .iter()
        .map(|block| block.ops.len())
        .sum()
}

/// Runs a compile, turning a panic into an error.
fn guarded(compile: impl FnOnce() -> JitResult<JitKernel>) -> Result<JitKernel, SpirvError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile))
        .unwrap_or_else(|_| Err(JitError::Panicked))
        .map_err(|e| SpirvError::new_backend(format!("JIT: {e}")))
}

/// Declares the function in `cctx` under `name` (local to the module) and compiles it.
fn define(
    module: &mut JITModule,
    name: &str,
    cctx: &mut cranelift_codegen::Context,
) -> JitResult<cranelift_module::FuncId> {
    let id = module
        .declare_function(name, Linkage::Local, &cctx.func.signature)
        .map_err(|e| JitError::Cranelift(e.to_string()))?;
    module
        .define_function(id, cctx)
        .map_err(|e| JitError::Cranelift(format!("{e:?}")))?;
    Ok(id)
}

/// Whether `store` holds a sound entry for `func` compiled by `isa` (its flags included).
fn has_code(
    store: &dyn cache::CodeStore,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    func: &cranelift_codegen::ir::Function,
) -> bool {
    let key = cranelift_codegen::incremental_cache::compute_cache_key(isa, func);
    let Some(key) = key_bytes(&key.to_string()) else {
        return false;
    };
    store
        .get(&key)
        .is_some_and(|sealed| cache::open(&key, &sealed).is_some())
}

/// The bytes of a Cranelift cache key from its `Display` form (`CacheKeyHash:[1, 2, …]`: the
/// type keeps its bytes private); `None` if the form is not that.
fn key_bytes(shown: &str) -> Option<cache::CodeKey> {
    let list = shown.strip_prefix("CacheKeyHash:[")?.strip_suffix(']')?;
    let bytes: Vec<u8> = list
        .split(',')
        .map(|b| b.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .ok()?;
    cache::CodeKey::try_from(bytes.as_slice()).ok()
}

/// [`define`] through Cranelift's incremental cache over `store`: the code comes from the
/// store when it has the function's key, and goes into it otherwise. Returns whether it came
/// from the store.
fn define_cached(
    module: &mut JITModule,
    name: &str,
    cctx: &mut cranelift_codegen::Context,
    store: &dyn cache::CodeStore,
) -> JitResult<(cranelift_module::FuncId, bool)> {
    let id = module
        .declare_function(name, Linkage::Local, &cctx.func.signature)
        .map_err(|e| JitError::Cranelift(e.to_string()))?;
    let mut kv = cache::KvStore(store);
    let (_, hit) = cctx
        .compile_with_cache(
            module.isa(),
            &mut kv,
            &mut cranelift_codegen::control::ControlPlane::default(),
        )
        .map_err(|e| JitError::Cranelift(format!("{:?}", e.inner)))?;
    let code = cctx.compiled_code().ok_or(JitError::Cranelift(
        "no compiled code after a compile".into(),
    ))?;
    let relocs: Vec<cranelift_module::ModuleReloc> = code
        .buffer
        .relocs()
        .iter()
        .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &cctx.func, id))
        .collect();
    let alignment = u64::from(code.buffer.alignment);
    module
        .define_function_bytes(id, alignment, code.code_buffer(), &relocs)
        .map_err(|e| JitError::Cranelift(format!("{e:?}")))?;
    Ok((id, hit))
}

/// The target ISA of this CPU with our settings and register allocator `allocator`.
fn target_isa(allocator: RegisterAllocator) -> JitResult<cranelift_codegen::isa::OwnedTargetIsa> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| JitError::Cranelift(format!("flag {k}: {e}")))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "regalloc_algorithm", allocator.setting())?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    cranelift_native::builder()
        .map_err(|e| JitError::Host(e.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| JitError::Cranelift(e.to_string()))
}

/// A module for `isa` holding the watchdog poll's trampoline (which the shader's function
/// calls), with a context ready for the shader's function.
fn module_with_poll(
    isa: cranelift_codegen::isa::OwnedTargetIsa,
) -> JitResult<(
    JITModule,
    cranelift_codegen::Context,
    cranelift_frontend::FunctionBuilderContext,
    cranelift_module::FuncId,
)> {
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let mut cctx = module.make_context();
    let mut fctx = cranelift_frontend::FunctionBuilderContext::new();
    codegen::build_poll_trampoline(&mut cctx.func, &mut fctx, module.target_config());
    let poll_id = define(&mut module, "tessera_poll", &mut cctx)?;
    module.clear_context(&mut cctx);
    Ok((module, cctx, fctx, poll_id))
}

/// The kernel of `module`'s finalized function `code`, which the code generator described
/// with `out`.
fn kernel(
    module: JITModule,
    code: *const u8,
    out: codegen::Output,
    program: &Program,
    started: Instant,
    cache_hit: CacheHit,
    improvable: bool,
) -> JitKernel {
    // SAFETY: the function was built with the signature `fn(*mut Ctx) -> u32` in the module's
    // default calling convention, which is the platform's C convention.
    let func = unsafe {
        std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut ctx::Ctx) -> u32>(code)
    };
    let data = Arc::new(ctx::CallbackData {
        ops: out.callouts.clone(),
        natives: out.natives.clone(),
        dynamic: out.sites.dynamic.clone(),
        callouts: Default::default(),
        hand_backs: Default::default(),
        sync_blocks: Default::default(),
        hand_back_sites: Default::default(),
    });
    JitKernel {
        module: Some(module),
        func,
        out,
        data,
        compile_time: started.elapsed(),
        lockstep: lockstep_reason(program.ir()),
        cache_hit,
        improvable,
    }
}

/// Compiles `program`, first looking for the whole kernel in `store` (`saved`), and keeping it
/// there after a compile. `allocator`: the caller's, or `None` to choose by size.
fn compile_inner(
    program: &Program,
    store: Option<&dyn cache::CodeStore>,
    allocator: Option<RegisterAllocator>,
) -> JitResult<JitKernel> {
    let started = Instant::now();
    let by_size = allocator.is_none();
    let chosen = allocator.unwrap_or_else(|| {
        let ops = program_ops(program);
        let chosen = RegisterAllocator::for_ops(ops);
        if chosen == RegisterAllocator::SinglePass {
            tracing::debug!(
                ops,
                "a program this large gets single-pass register allocation"
            );
        }
        chosen
    });
    // A dump wants the code generator's intermediate forms: it compiles.
    let dump = std::env::var_os("TESSERA_JIT_DUMP").map(std::path::PathBuf::from);
    let whole = store.filter(|_| dump.is_none());
    let digest = whole.map(|_| saved::ProgramDigest::of(program));
    if let (Some(store), Some(digest)) = (whole, &digest)
        && let Some(kernel) = load_kept(program, store, digest, chosen, by_size, started)?
    {
        return Ok(kernel);
    }
    let (kernel, fresh) = compile_fresh(program, store, chosen, by_size, dump, started)?;
    if let (Some(store), Some(digest), Some((fresh, allocator))) = (whole, &digest, fresh) {
        match fresh.encode(program, &kernel.out, kernel.improvable) {
            Some(payload) => {
                let key = saved::key(digest, &*target_isa(allocator)?);
                store.put(&key, &cache::seal(&key, &payload));
            }
            None => tracing::debug!("a kernel naming ops outside its IR is not kept whole"),
        }
    }
    Ok(kernel)
}

/// The kernel kept whole in `store` that a compile of `program` (its `digest`) with `chosen`
/// would make (`by_size`: chosen by the IR's size). Chosen by size, a backtracking kernel may
/// have been kept single-pass (its function grew too large) and its second tier kept later:
/// the second tier first.
fn load_kept(
    program: &Program,
    store: &dyn cache::CodeStore,
    digest: &saved::ProgramDigest,
    chosen: RegisterAllocator,
    by_size: bool,
    started: Instant,
) -> JitResult<Option<JitKernel>> {
    let mut order = vec![chosen];
    if by_size && chosen == RegisterAllocator::Backtracking {
        order.push(RegisterAllocator::SinglePass);
    }
    for allocator in order {
        if let Some(kernel) = load_whole(program, store, digest, allocator, started)? {
            return Ok(Some(kernel));
        }
    }
    Ok(None)
}

/// The kernel kept whole in `store` for `program` (its `digest`) and `allocator`, if there is a
/// sound one (see `saved`).
fn load_whole(
    program: &Program,
    store: &dyn cache::CodeStore,
    digest: &saved::ProgramDigest,
    allocator: RegisterAllocator,
    started: Instant,
) -> JitResult<Option<JitKernel>> {
    let isa = target_isa(allocator)?;
    let key = saved::key(digest, &*isa);
    let Some(sealed) = store.get(&key) else {
        return Ok(None);
    };
    let Some(payload) = cache::open(&key, &sealed) else {
        return Ok(None);
    };
    let (mut module, _, _, poll_id) = module_with_poll(isa)?;
    let Some(whole) = saved::decode(program, payload, poll_id) else {
        tracing::debug!("a kept kernel that does not decode is compiled again");
        return Ok(None);
    };
    if check_frame(whole.frame).is_err() {
        tracing::debug!("a kept kernel with too large a frame is compiled again");
        return Ok(None);
    }
    let id = module
        .declare_function("tessera_shader", Linkage::Local, &shader_signature(&module))
        .map_err(|e| JitError::Cranelift(e.to_string()))?;
    if let Err(e) = module.define_function_bytes(id, whole.alignment, &whole.code, &whole.relocs) {
        tracing::debug!("a kept kernel that does not load ({e}) is compiled again");
        return Ok(None);
    }
    module
        .finalize_definitions()
        .map_err(|e| JitError::Cranelift(e.to_string()))?;
    let code = module.get_finalized_function(id);
    Ok(Some(kernel(
        module,
        code,
        whole.out,
        program,
        started,
        CacheHit::Whole,
        whole.improvable,
    )))
}

/// The shader function's signature, `fn(*mut Ctx) -> u32` in `module`'s default calling
/// convention (as `codegen::build` declares it).
fn shader_signature(module: &JITModule) -> cranelift_codegen::ir::Signature {
    use cranelift_codegen::ir::{AbiParam, types};
    let mut sig = cranelift_codegen::ir::Signature::new(module.target_config().default_call_conv);
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// Compiles `program` with `allocator` (`by_size`: chosen by the IR's size, so a function that
/// grows too large starts again single-pass), taking the machine code from `store`'s
/// Cranelift entries when it has them. Returns the kernel and, when there was a store, what
/// to keep of it whole, with the allocator that made it.
fn compile_fresh(
    program: &Program,
    store: Option<&dyn cache::CodeStore>,
    allocator: RegisterAllocator,
    by_size: bool,
    dump: Option<std::path::PathBuf>,
    started: Instant,
) -> JitResult<(JitKernel, Option<(saved::Fresh, RegisterAllocator)>)> {
    let isa = target_isa(allocator)?;
    let (mut module, mut cctx, _, poll_id) = module_with_poll(isa)?;
    let mut build = |cctx: &mut cranelift_codegen::Context, with_stepper: bool| {
        let mut fctx = cranelift_frontend::FunctionBuilderContext::new();
        let poll = module.declare_func_in_func(poll_id, &mut cctx.func);
        let target = module.target_config();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            codegen::build(
                program,
                &mut cctx.func,
                &mut fctx,
                target,
                poll,
                with_stepper,
            )
        }))
        .unwrap_or(Err(JitError::Panicked))
    };
    let out = match build(&mut cctx, true) {
        Ok(out) => out,
        Err(e) => {
            // Again without the stepper (see `codegen::stepping`): an interpreter op in a
            // stepped block (`SteppedCallout`), or any failure or panic, which then costs no
            // shader its compiled code.
            tracing::debug!(error = %e, "building again without stepping");
            cctx.func.clear();
            build(&mut cctx, false)?
        }
    };
    let insts = cctx.func.dfg.num_insts();
    if by_size
        && allocator == RegisterAllocator::Backtracking
        && insts > SINGLE_PASS_REGALLOC_ABOVE_INSTS
        && !store.is_some_and(|store| has_code(store, module.isa(), &cctx.func))
    {
        // Few IR ops can still make a large function (divisions and masked regions expand):
        // start again with the allocator whose time stays linear, unless the store already
        // has this function's backtracking code (the second tier of an earlier run).
        tracing::debug!(
            insts,
            "a function this large gets single-pass register allocation"
        );
        let (mut kernel, fresh) = compile_fresh(
            program,
            store,
            RegisterAllocator::SinglePass,
            false,
            dump,
            started,
        )?;
        kernel.improvable = insts <= TIER_UP_MAX_INSTS;
        return Ok((kernel, fresh));
    }
    let clif = dump.as_ref().map(|_| cctx.func.display().to_string());
    let (id, from_cache) = match store {
        Some(store) => define_cached(&mut module, "tessera_shader", &mut cctx, store)?,
        None => (define(&mut module, "tessera_shader", &mut cctx)?, false),
    };
    let compiled = cctx
        .compiled_code()
        .ok_or(JitError::Unexpected("no compiled code after a compile"))?;
    let code_len = compiled.code_buffer().len();
    // The frame below the frame pointer. Cranelift records the layout on every target it
    // compiles for; code whose frame size is unknown is not run.
    let frame = compiled
        .buffer
        .frame_layout()
        .map(|layout| u64::from(layout.frame_to_fp_offset))
        .ok_or(JitError::Unexpected("compiled code without a frame layout"))?;
    check_frame(frame)?;
    let fresh = store.map(|_| {
        let relocs = compiled
            .buffer
            .relocs()
            .iter()
            .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &cctx.func, id))
            .collect();
        let fresh = saved::Fresh {
            code: compiled.code_buffer().to_vec(),
            alignment: u64::from(compiled.buffer.alignment),
            relocs,
            frame,
            poll: poll_id,
        };
        (fresh, allocator)
    });
    // The function as Cranelift's optimiser left it (what was lowered to machine code).
    let optimized = clif.as_ref().map(|_| cctx.func.display().to_string());
    module.clear_context(&mut cctx);
    module
        .finalize_definitions()
        .map_err(|e| JitError::Cranelift(e.to_string()))?;
    let code = module.get_finalized_function(id);
    if let (Some(dir), Some(clif)) = (dump, clif) {
        // SAFETY: `code` is the start of the finalized function, `code_len` bytes long.
        let bytes = unsafe { std::slice::from_raw_parts(code, code_len) };
        write_dump(
            &dir,
            program,
            &clif,
            optimized.as_deref(),
            bytes,
            code,
            &out,
        );
    }
    let hit = if from_cache {
        CacheHit::Code
    } else {
        CacheHit::Miss
    };
    let kernel = kernel(module, code, out, program, started, hit, false);
    Ok((kernel, fresh))
}

/// `TESSERA_JIT_DUMP=<dir>` (a developer's switch): the IR, the Cranelift function and the
/// machine code of every compiled shader, as `<dir>/<pid>-<n>.{ir,clif,bin}` (with the function
/// after Cranelift's optimiser in `.opt.clif`), and in
/// `<dir>/<pid>-<n>.addr` the code's address (to match profiler samples against
/// `objdump -b binary -m i386:x86-64 -D`) and the ops left to the interpreter.
fn write_dump(
    dir: &std::path::Path,
    program: &Program,
    clif: &str,
    optimized: Option<&str>,
    code: &[u8],
    at: *const u8,
    out: &codegen::Output,
) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let _ = std::fs::create_dir_all(dir);
    let base = dir.join(format!("{}-{n}", std::process::id()));
    let _ = std::fs::write(base.with_extension("ir"), program.ir_text());
    let _ = std::fs::write(base.with_extension("clif"), clif);
    if let Some(optimized) = optimized {
        let _ = std::fs::write(base.with_extension("opt.clif"), optimized);
    }
    let _ = std::fs::write(base.with_extension("bin"), code);
    let callouts: Vec<&str> = out.callouts.iter().map(|op| op.name()).collect();
    let _ = std::fs::write(
        base.with_extension("addr"),
        format!(
            "{at:p} {}\nnative ops: {}\nthrough the interpreter: {callouts:?}\n",
            code.len(),
            out.native_ops
        ),
    );
}

impl Kernel for JitKernel {
    fn backend(&self) -> &'static str {
        "jit"
    }

    fn interpreted(&self) -> Option<String> {
        let st = self.run_stats();
        if st.hand_backs == 0 && st.callouts == 0 {
            return None;
        }
        let sites: Vec<String> = self
            .hand_back_sites()
            .iter()
            .take(4)
            .map(|&((block, op), n)| {
                if block == codegen::DONE {
                    format!("lanes' own blocks ×{n}")
                } else if block == LANE_PCS {
                    format!("a masked loop's iteration start ×{n}")
                } else {
                    format!("block {block} op {op} ×{n}")
                }
            })
            .collect();
        Some(format!(
            "the interpreter took over {} chunk(s) of 16 lanes (at {}); {} op(s) with no \
             native lowering ran there for a chunk",
            st.hand_backs,
            if sites.is_empty() {
                "-".to_string()
            } else {
                sites.join(", ")
            },
            st.callouts
        ))
    }

    fn run_groups(&self, worker: &mut Worker<'_, '_>, next: &mut dyn FnMut() -> Option<u64>) {
        driver::run_groups(self, worker, next);
    }
}

/// An op's kind as the fallback log names it: the op, and for arithmetic its operation and
/// widths (what decides whether there is a native lowering).
pub fn fallback_kind(op: &Op) -> String {
    match op {
        Op::IBin { op, width, .. } => format!("ibin {op:?}/{width}"),
        Op::IUn { op, width, .. } => format!("iun {op:?}/{width}"),
        Op::FBin { op, width, .. } => format!("fbin {op:?}/{width}"),
        Op::FUn { op, width, .. } => format!("fun {op:?}/{width}"),
        Op::FCmp { op, width, .. } => format!("fcmp {op:?}/{width}"),
        Op::Tern { op, width, .. } => format!("tern {op:?}/{width}"),
        Op::Conv { op, from, to, .. } => format!("conv {op:?} {from}->{to}"),
        Op::IDot { in_width, .. } => format!("idot {in_width}-bit"),
        Op::Load { space, .. } => format!("load {space:?}"),
        Op::Store { space, .. } => format!("store {space:?}"),
        other => other.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keys_read_from_their_display_form() {
        let isa = cranelift_native::builder()
            .unwrap()
            .finish(settings::Flags::new(settings::builder()))
            .unwrap();
        let func = cranelift_codegen::ir::Function::new();
        let key = cranelift_codegen::incremental_cache::compute_cache_key(&*isa, &func);
        let bytes = key_bytes(&key.to_string()).expect("32 bytes");
        assert!(bytes.iter().any(|&b| b != 0));
        assert_eq!(key_bytes("CacheKeyHash:[1, 2]"), None);
        assert_eq!(key_bytes("something else"), None);
    }

    #[test]
    fn frames_over_the_limit_do_not_compile() {
        assert_eq!(check_frame(0), Ok(()));
        assert_eq!(check_frame(MAX_FRAME_BYTES), Ok(()));
        assert_eq!(
            check_frame(MAX_FRAME_BYTES + 16),
            Err(JitError::FrameTooLarge {
                bytes: MAX_FRAME_BYTES + 16,
                limit: MAX_FRAME_BYTES
            })
        );
    }
}
