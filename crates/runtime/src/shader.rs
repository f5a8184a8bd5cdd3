//! Which backend runs a compute pipeline's shader: the interpreter (`tessera-spirv`) or compiled
//! code from the JIT (`tessera-jit`), chosen by `TESSERA_SHADER_BACKEND`:
//! - `interp`: always the interpreter;
//! - `jit`: compile at pipeline creation (both tiers, below), and fail the creation if the JIT
//!   cannot compile the shader (a developer's switch: it shows what the JIT does not handle;
//!   nothing is left to a background thread, so what a run compiles and keeps is the same every
//!   time);
//! - `auto` (the default): take the kernel a code store keeps whole for the shader at pipeline
//!   creation if there is one (`tessera_jit::kept_kernel`, about a millisecond); otherwise
//!   compile on a background thread (at the lowest scheduling priority, so
//!   that it never takes a core from the threads that dispatch); small dispatches use the
//!   interpreter until the compiled code is ready, a large one ([`WAIT_FOR_CODE_INVOCATIONS`]
//!   or more), or any once the pipeline's dispatches have spent [`INTERPRETER_BUDGET`] on the
//!   interpreter, waits for it (compiling it on the dispatching thread if the queue has not
//!   reached it, and also when the background thread has it but has not finished within
//!   [`BACKGROUND_PATIENCE`]: busy cores can starve it; the first compile to finish wins), then
//!   the compiled code. A shader the JIT cannot compile stays on the
//!   interpreter, with an `info` log line saying why.
//!
//! Both backends compute the same results bit for bit (the JIT's tests check it), so which one
//! runs a dispatch never shows in its output.
//!
//! Tiers: a shader whose generated function is large gets single-pass register allocation,
//! which is fast to compile but spills; when the JIT says a backtracking compile would be better
//! (`JitKernel::improvable`), the background thread compiles that second tier after the first
//! (in `jit` mode the creating thread does, before creation returns), and dispatches take it
//! once it is ready. It goes into the code stores, so a later creation of
//! the same pipeline starts on it.
//!
//! Compiled kernels are kept (`tessera_jit::cache`) in the pipeline's `VkPipelineCache`, if it
//! was created with one, and in a directory on disk, so that the same pipeline created again, in
//! this process or a later one, skips code generation and Cranelift's compile:
//! - `TESSERA_SHADER_CACHE_DIR`: the directory (default `$XDG_CACHE_HOME/tessera`, else
//!   `$HOME/.cache/tessera`; no disk cache when neither is set);
//! - `TESSERA_SHADER_CACHE_DISABLE=1` (or `true`): no disk cache;
//! - `TESSERA_SHADER_CACHE_MAX_SIZE`: its budget in bytes, with an optional `K`, `M` or `G`
//!   suffix (default 1G); the least recently used entries go first.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use tessera_jit::cache::{CodeKey, CodeStore, DiskCache};
use tessera_spirv::Program;
use tessera_spirv::exec::Kernel;

use crate::pipeline::PipelineCache;
use crate::{Error, Result};

/// The configured backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderBackend {
    Interpreter,
    Jit,
    Auto,
}

/// `TESSERA_SHADER_BACKEND`, read once.
pub fn configured() -> ShaderBackend {
    static CHOICE: OnceLock<ShaderBackend> = OnceLock::new();
    *CHOICE.get_or_init(
        || match std::env::var("TESSERA_SHADER_BACKEND").as_deref() {
            Ok("interp") | Ok("interpreter") => ShaderBackend::Interpreter,
            Ok("jit") => ShaderBackend::Jit,
            Ok("auto") | Ok("") | Err(_) => ShaderBackend::Auto,
            Ok(other) => {
                tracing::warn!(
                    "TESSERA_SHADER_BACKEND={other:?} is not one of interp, jit, auto; using auto"
                );
                ShaderBackend::Auto
            }
        },
    )
}

/// A dispatch of at least this many invocations waits for its pipeline's compiled code rather
/// than run on the interpreter. Compiling takes a millisecond to a few hundred; the interpreter
/// needs about as long for 4096 invocations of a simple shader, and far longer for a shader with
/// loops (a tiled matrix multiply's 32 768 invocations take seconds).
pub const WAIT_FOR_CODE_INVOCATIONS: u64 = 1 << 12;

/// Once a pipeline's dispatches have spent this long on the interpreter, the next one waits
/// for its compiled code too: small dispatches repeated (a benchmark loop, a model's layers)
/// would otherwise keep the cores busy enough that the low-priority compile never runs.
pub const INTERPRETER_BUDGET: std::time::Duration = std::time::Duration::from_millis(50);

/// How long a dispatch that waits for its pipeline's code lets the background thread finish
/// the compile it took before compiling the shader itself as well (`Compiled::wait_for_kernel`).
pub const BACKGROUND_PATIENCE: std::time::Duration = std::time::Duration::from_millis(20);

/// The default budget of the disk cache.
const DEFAULT_CACHE_BYTES: u64 = 1 << 30;

/// `TESSERA_SHADER_CACHE_MAX_SIZE`'s value in bytes: a number with an optional `K`, `M` or `G`
/// (powers of 1024).
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last()? {
        (i, 'k' | 'K') => (&text[..i], 1 << 10),
        (i, 'm' | 'M') => (&text[..i], 1 << 20),
        (i, 'g' | 'G') => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(unit)
}

/// The disk cache as the environment configures it (see the module docs), opened once. None in
/// this crate's unit tests: they never read or write the user's cache (a kernel kept there by
/// an earlier run would skip the compile paths they test).
pub fn disk_cache() -> Option<&'static DiskCache> {
    if cfg!(test) {
        return None;
    }
    static CACHE: OnceLock<Option<DiskCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
            if var("TESSERA_SHADER_CACHE_DISABLE")
                .is_some_and(|v| matches!(v.to_str(), Some("1" | "true" | "yes")))
            {
                return None;
            }
            let dir = match var("TESSERA_SHADER_CACHE_DIR") {
                Some(dir) => std::path::PathBuf::from(dir),
                None => var("XDG_CACHE_HOME")
                    .map(std::path::PathBuf::from)
                    .or_else(|| var("HOME").map(|h| std::path::Path::new(&h).join(".cache")))?
                    .join("tessera"),
            };
            let max = match var("TESSERA_SHADER_CACHE_MAX_SIZE") {
                Some(v) => v.to_str().and_then(parse_size).unwrap_or_else(|| {
                    tracing::warn!(
                        "TESSERA_SHADER_CACHE_MAX_SIZE={v:?} is not a size like 512M; using 1G"
                    );
                    DEFAULT_CACHE_BYTES
                }),
                None => DEFAULT_CACHE_BYTES,
            };
            tracing::debug!("shader cache: {} (at most {max} bytes)", dir.display());
            Some(DiskCache::new(dir, max))
        })
        .as_ref()
}

/// Where a compile looks for code and keeps it: the pipeline cache first, then the disk cache
/// (a damaged pipeline-cache entry falls through to the disk; a disk hit is copied into the
/// pipeline cache, so its data carries the code).
struct Stores<'a> {
    pipeline: Option<&'a PipelineCache>,
    disk: Option<&'a DiskCache>,
}

impl CodeStore for Stores<'_> {
    fn get(&self, key: &CodeKey) -> Option<Vec<u8>> {
        if let Some(found) = self.pipeline.and_then(|p| p.code().get(key))
            && tessera_jit::cache::open(key, &found).is_some()
        {
            return Some(found);
        }
        let found = self.disk?.get(key)?;
        if let Some(p) = self.pipeline {
            p.code().put(key, &found);
        }
        Some(found)
    }

    fn put(&self, key: &CodeKey, sealed: &[u8]) {
        if let Some(p) = self.pipeline {
            p.code().put(key, sealed);
        }
        if let Some(d) = self.disk {
            d.put(key, sealed);
        }
    }
}

/// What a background compile needs.
#[derive(Clone)]
struct Job {
    program: Arc<Program>,
    name: String,
    cache: Option<Arc<PipelineCache>>,
}

/// A pipeline's compiled code, once there is some.
pub struct Compiled {
    /// This slot, for queueing its second tier from the thread that compiled the first.
    me: std::sync::Weak<Compiled>,
    kernel: OnceLock<Option<Box<dyn Kernel>>>,
    /// The second tier, once compiled (see the module docs); dispatches prefer it.
    optimized: OnceLock<Box<dyn Kernel>>,
    /// The second tier's compile, until the background thread takes it.
    tier_up: Mutex<Option<Job>>,
    /// `auto`: the compile to do, until a thread takes it — the background compiler, or a large
    /// dispatch that would rather compile now than wait behind the queue.
    job: Mutex<Option<Job>>,
    /// `auto`: the same compile, kept while the first tier is not ready, for a dispatch that
    /// waits longer than [`BACKGROUND_PATIENCE`] for the background thread to finish it.
    source: Mutex<Option<Job>>,
    /// Nanoseconds its dispatches have run on the interpreter while the code was not ready.
    interpreted_ns: std::sync::atomic::AtomicU64,
    /// The shader's name, for the log.
    name: String,
}

impl Drop for Compiled {
    /// Logs at `info` what of the compiled code's runs went to the interpreter.
    fn drop(&mut self) {
        let first = self.kernel.get().and_then(|k| k.as_deref());
        for kernel in first.into_iter().chain(self.optimized.get().map(|k| &**k)) {
            if let Some(what) = kernel.interpreted() {
                tracing::info!("compute shader {:?}: at run time, {what}", self.name);
            }
        }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("ready", &self.kernel.get().is_some())
            .finish()
    }
}

/// The background compiler's queue.
fn queue() -> Option<Sender<Arc<Compiled>>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Arc<Compiled>>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = channel::<Arc<Compiled>>();
            std::thread::Builder::new()
                .name("tessera-jit".into())
                .spawn(move || {
                    lowest_priority();
                    for slot in rx {
                        slot.run_job();
                        slot.run_tier_up();
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
        .and_then(|m| m.lock().ok().map(|tx| tx.clone()))
}

/// Puts the calling thread at the lowest scheduling priority (nice 19; Linux applies it per
/// thread). Best effort: a failure leaves the priority as it was.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority take no pointers; PRIO_PROCESS with a thread id sets
        // that thread's nice value on Linux.
        let result = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19)
        };
        if result != 0 {
            tracing::debug!("the JIT thread keeps its scheduling priority (setpriority failed)");
        }
    }
}

/// Compiles `program` with the code stores (the pipeline cache `cache`, the disk cache).
fn compile_stored(
    program: &Program,
    cache: Option<&PipelineCache>,
) -> std::result::Result<tessera_jit::JitKernel, tessera_spirv::SpirvError> {
    let stores = Stores {
        pipeline: cache,
        disk: disk_cache(),
    };
    if stores.pipeline.is_none() && stores.disk.is_none() {
        return tessera_jit::compile(program);
    }
    tessera_jit::compile_with(program, Some(&stores))
}

/// The kernel the pipeline cache or the disk cache keeps whole for `program`, if any (see
/// `tessera_jit::kept_kernel`; nothing is compiled).
fn kept(program: &Program, cache: Option<&PipelineCache>) -> Option<tessera_jit::JitKernel> {
    let stores = Stores {
        pipeline: cache,
        disk: disk_cache(),
    };
    if stores.pipeline.is_none() && stores.disk.is_none() {
        return None;
    }
    tessera_jit::kept_kernel(program, &stores)
}

fn compile(
    program: &Program,
    name: &str,
    cache: Option<&PipelineCache>,
) -> Option<tessera_jit::JitKernel> {
    match compile_stored(program, cache) {
        Ok(k) => {
            report(&k, name);
            Some(k)
        }
        Err(e) => {
            tracing::info!("compute shader {name:?}: runs wholly on the interpreter: {e}");
            None
        }
    }
}

/// Logs how much of a compiled shader runs natively: at `info` whatever runs on the
/// interpreter (each kind of op without a native lowering, or why the whole shader does).
fn report(k: &tessera_jit::JitKernel, name: &str) {
    let ms = k.compile_time.as_secs_f64() * 1e3;
    let how = if k.whole_from_cache() {
        "compiled (kernel from the shader cache)"
    } else if k.from_cache() {
        "compiled (code from the shader cache)"
    } else {
        "compiled by the JIT"
    };
    if let Some(why) = k.lockstep() {
        tracing::info!("compute shader {name:?}: runs wholly on the interpreter: {why}");
        return;
    }
    let (native, interpreted) = k.op_counts();
    if interpreted == 0 {
        tracing::debug!("compute shader {name:?}: {how} in {ms:.2} ms ({native} ops)");
        return;
    }
    let kinds: Vec<String> = k
        .fallbacks()
        .iter()
        .map(|(op, n)| format!("{op} ×{n}"))
        .collect();
    tracing::info!(
        "compute shader {name:?}: {how} in {ms:.2} ms; {interpreted} of {} ops have \
         no native lowering and run on the interpreter: {}",
        native + interpreted,
        kinds.join(", ")
    );
}

impl Compiled {
    /// The compiled code for `program` under the configured backend (see the module docs),
    /// kept in and taken from `cache` and the disk cache.
    ///
    /// # Errors
    /// `NotSupported` with `TESSERA_SHADER_BACKEND=jit` when the JIT cannot compile it.
    pub fn for_program(
        program: &Arc<Program>,
        name: &str,
        cache: Option<&Arc<PipelineCache>>,
    ) -> Result<Arc<Compiled>> {
        Self::for_program_with(configured(), program, name, cache)
    }

    /// [`Self::for_program`] under `backend`.
    fn for_program_with(
        backend: ShaderBackend,
        program: &Arc<Program>,
        name: &str,
        cache: Option<&Arc<PipelineCache>>,
    ) -> Result<Arc<Compiled>> {
        let slot = Self::empty(name);
        let job = || Job {
            program: program.clone(),
            name: name.to_string(),
            cache: cache.cloned(),
        };
        match backend {
            ShaderBackend::Interpreter => slot.finish(None),
            ShaderBackend::Jit => match compile_stored(program, cache.map(|c| &**c)) {
                Ok(k) => {
                    report(&k, name);
                    let improvable = k.improvable();
                    slot.install_here(k);
                    if improvable {
                        // Everything at creation: the second tier too, on this thread.
                        if let Ok(mut tier_up) = slot.tier_up.lock() {
                            *tier_up = Some(job());
                        }
                        slot.run_tier_up();
                    }
                }
                Err(e) => {
                    return Err(Error::NotSupported(format!(
                        "TESSERA_SHADER_BACKEND=jit and the JIT cannot compile compute shader \
                         {name:?}: {e}"
                    )));
                }
            },
            ShaderBackend::Auto => {
                // A kernel kept whole in a store loads in about a millisecond: no interpreter
                // and no background compile for a shader an earlier run compiled.
                if let Some(k) = kept(program, cache.map(|c| &**c)) {
                    report(&k, name);
                    slot.install(k, job());
                    return Ok(slot);
                }
                if let Ok(mut pending) = slot.job.lock() {
                    *pending = Some(job());
                }
                if let Ok(mut source) = slot.source.lock() {
                    *source = Some(job());
                }
                if let Some(cache) = cache {
                    cache.pending(&slot);
                }
                if queue().is_none_or(|q| q.send(slot.clone()).is_err()) {
                    // No background thread: compile now.
                    slot.run_job();
                }
            }
        }
        Ok(slot)
    }

    /// A slot with no code yet.
    fn empty(name: &str) -> Arc<Compiled> {
        Arc::new_cyclic(|me| Compiled {
            me: me.clone(),
            kernel: OnceLock::new(),
            optimized: OnceLock::new(),
            tier_up: Mutex::new(None),
            job: Mutex::new(None),
            source: Mutex::new(None),
            interpreted_ns: Default::default(),
            name: name.to_string(),
        })
    }

    fn finish(&self, kernel: Option<Box<dyn Kernel>>) {
        let _ = self.kernel.set(kernel);
        self.drop_source();
    }

    /// Forgets the copy of the compile once the first tier is decided, so that it keeps no
    /// pipeline cache alive.
    fn drop_source(&self) {
        if let Ok(mut source) = self.source.lock() {
            *source = None;
        }
    }

    /// Makes `kernel` the first tier and queues nothing (`jit` mode compiles the second tier
    /// itself).
    fn install_here(&self, kernel: tessera_jit::JitKernel) {
        let _ = self.kernel.set(Some(Box::new(kernel)));
        self.drop_source();
    }

    /// Makes `kernel` the first tier, and queues its second (`job` again) when the JIT says
    /// one would be better; does nothing when the slot already has its first tier.
    fn install(&self, kernel: tessera_jit::JitKernel, job: Job) {
        let improvable = kernel.improvable();
        let won = self.kernel.set(Some(Box::new(kernel))).is_ok();
        self.drop_source();
        if !won {
            return; // Another thread's compile of the same shader won (`wait_for_kernel`).
        }
        if !improvable {
            return;
        }
        if let Ok(mut tier_up) = self.tier_up.lock() {
            *tier_up = Some(job);
        }
        if let Some(me) = self.me.upgrade()
            && queue().is_some_and(|q| q.send(me).is_ok())
        {
            return;
        }
        // No background thread: keep the first tier.
        if let Ok(mut tier_up) = self.tier_up.lock() {
            *tier_up = None;
        }
    }

    /// Compiles the queued second tier, if any (on the background thread).
    fn run_tier_up(&self) {
        let job = self.tier_up.lock().ok().and_then(|mut job| job.take());
        let Some(Job {
            program,
            name,
            cache,
        }) = job
        else {
            return;
        };
        let stores = Stores {
            pipeline: cache.as_deref(),
            disk: disk_cache(),
        };
        let started = std::time::Instant::now();
        let store = (stores.pipeline.is_some() || stores.disk.is_some())
            .then_some(&stores as &dyn CodeStore);
        let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tessera_jit::compile_optimized(&program, store)
        }));
        match compiled {
            Ok(Ok(kernel)) => {
                tracing::debug!(
                    "compute shader {name:?}: second tier (backtracking register allocation) \
                     compiled in {:.2} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
                let _ = self.optimized.set(Box::new(kernel));
            }
            Ok(Err(e)) => {
                tracing::debug!("compute shader {name:?}: keeps its first tier: {e}");
            }
            Err(_) => {
                tracing::debug!("compute shader {name:?}: the second tier's compile panicked")
            }
        }
    }

    /// Compiles the queued job, if no other thread took it. The slot gets its answer even if
    /// compiling panics (a dispatch may be waiting for it).
    fn run_job(&self) {
        let job = self.job.lock().ok().and_then(|mut job| job.take());
        if let Some(Job {
            program,
            name,
            cache,
        }) = job
        {
            let again = Job {
                program: program.clone(),
                name: name.clone(),
                cache: cache.clone(),
            };
            let kernel = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                compile(&program, &name, cache.as_deref())
            }))
            .unwrap_or(None);
            match kernel {
                Some(kernel) => self.install(kernel, again),
                None => self.finish(None),
            }
        }
    }

    /// The compiled code, if it is ready (else the interpreter runs the dispatch): the second
    /// tier once there is one.
    pub fn kernel(&self) -> Option<&dyn Kernel> {
        match self.optimized.get() {
            Some(optimized) => Some(&**optimized),
            None => self.kernel.get().and_then(|k| k.as_deref()),
        }
    }

    /// The compiled code for a dispatch of `invocations`: a large one, or any once the
    /// pipeline has used up its [`INTERPRETER_BUDGET`], waits for it (see the module docs); a
    /// small one takes what is ready.
    pub fn kernel_for(&self, invocations: u64) -> Option<&dyn Kernel> {
        if self.kernel.get().is_some() {
            return self.kernel();
        }
        let spent = self
            .interpreted_ns
            .load(std::sync::atomic::Ordering::Relaxed);
        if invocations >= WAIT_FOR_CODE_INVOCATIONS
            || u128::from(spent) >= INTERPRETER_BUDGET.as_nanos()
        {
            self.wait_for_kernel()
        } else {
            None
        }
    }

    /// Counts `time` a dispatch spent on the interpreter towards [`INTERPRETER_BUDGET`].
    pub fn note_interpreted(&self, time: std::time::Duration) {
        let ns = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
        self.interpreted_ns
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
    }

    /// The compiled code, waiting for the background compile to finish first (see the module
    /// docs); `None` when the JIT could not compile the shader or is not used.
    pub fn wait_for_kernel(&self) -> Option<&dyn Kernel> {
        // Still queued: compile on this thread rather than wait for the ones ahead of it.
        self.run_job();
        // Taken by the background thread: give it a moment, then compile here too and take
        // whichever finishes first. It runs at the lowest priority, so on a machine whose
        // cores are busy (an application spinning on a fence beside this queue's thread) it
        // may not run for seconds.
        let started = std::time::Instant::now();
        while self.kernel.get().is_none() {
            if started.elapsed() >= BACKGROUND_PATIENCE {
                let source = self.source.lock().ok().and_then(|source| source.clone());
                if let Some(job) = source {
                    self.compile_here(job);
                }
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        self.kernel.wait();
        self.drop_source();
        self.kernel()
    }

    /// Compiles `job` on this thread beside the background thread's compile of it, and
    /// installs the result unless that compile finished first.
    fn compile_here(&self, job: Job) {
        let kernel = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compile(&job.program, &job.name, job.cache.as_deref())
        }))
        .unwrap_or(None);
        if self.kernel.get().is_some() {
            return;
        }
        match kernel {
            Some(kernel) => self.install(kernel, job),
            None => self.finish(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Arc<Program> {
        let bytes = include_bytes!("../../../spirv-tests/shaders/bench_tensor_add.spv");
        let module = tessera_spirv::Module::parse_bytes(bytes).unwrap();
        Arc::new(Program::new(&module, "main", &[]).unwrap())
    }

    #[test]
    fn an_improvable_kernel_moves_to_its_second_tier() {
        let bytes = include_bytes!("../../../spirv-tests/cases/tensor_ranks_1_to_8/shader.spv");
        let module = tessera_spirv::Module::parse_bytes(bytes).unwrap();
        let program = Arc::new(Program::new(&module, "main", &[]).unwrap());
        let first = tessera_jit::compile(&program).unwrap();
        assert!(first.improvable(), "single-pass by size");
        let slot = Compiled::empty("ranks");
        let job = Job {
            program: program.clone(),
            name: "ranks".into(),
            cache: None,
        };
        slot.install(first, job);
        let first_code = slot.kernel().map(|k| k as *const dyn Kernel as *const u8);
        // The background thread or this one, whichever takes the job first.
        slot.run_tier_up();
        let start = std::time::Instant::now();
        while slot.optimized.get().is_none() {
            assert!(start.elapsed() < std::time::Duration::from_secs(120));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let now = slot.kernel().map(|k| k as *const dyn Kernel as *const u8);
        assert_ne!(now, first_code, "dispatches take the second tier");
        assert!(slot.tier_up.lock().unwrap().is_none());
    }

    /// A dispatch that waits for code the background thread took but does not finish (a
    /// starved thread: here, none at all) compiles the shader itself after
    /// `BACKGROUND_PATIENCE`.
    #[test]
    fn a_waiting_dispatch_compiles_what_a_starved_thread_took() {
        let slot = Compiled::empty("taken");
        *slot.source.lock().unwrap() = Some(Job {
            program: program(),
            name: "taken".into(),
            cache: None,
        });
        let started = std::time::Instant::now();
        assert!(
            slot.wait_for_kernel().is_some(),
            "compiled on the waiting thread"
        );
        assert!(started.elapsed() >= BACKGROUND_PATIENCE);
        assert!(
            slot.source.lock().unwrap().is_none(),
            "the copy is dropped once ready"
        );
    }

    #[test]
    fn interp_never_compiles() {
        let c = Compiled::for_program_with(ShaderBackend::Interpreter, &program(), "main", None)
            .unwrap();
        assert!(c.kernel.get().is_some(), "decided at once");
        assert!(c.kernel().is_none());
    }

    #[test]
    fn jit_compiles_at_creation() {
        let c = Compiled::for_program_with(ShaderBackend::Jit, &program(), "main", None).unwrap();
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn auto_compiles_in_the_background() {
        let c = Compiled::for_program_with(ShaderBackend::Auto, &program(), "main", None).unwrap();
        // Until the code is ready, dispatches run on the interpreter (`kernel()` is None).
        let start = std::time::Instant::now();
        while c.kernel().is_none() {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "the background compile never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn a_large_dispatch_waits_for_the_code() {
        let c = Compiled::for_program_with(ShaderBackend::Auto, &program(), "main", None).unwrap();
        // Compiled on this thread if the background compiler has not taken it yet.
        assert_eq!(c.wait_for_kernel().map(|k| k.backend()), Some("jit"));
        assert!(c.job.lock().unwrap().is_none(), "the job is taken once");
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn a_pipeline_cache_keeps_the_code_for_the_next_compile() {
        let cache = PipelineCache::for_tests();
        let stores = Stores {
            pipeline: Some(&cache),
            disk: None,
        };
        let first = tessera_jit::compile_with(&program(), Some(&stores)).unwrap();
        assert!(!first.from_cache());
        assert_eq!(
            cache.code().len(),
            2,
            "the whole kernel and Cranelift's code"
        );
        // The data carries it to a new cache (a later run of the application).
        let next = PipelineCache::for_tests_from(&cache.data());
        let stores = Stores {
            pipeline: Some(&next),
            disk: None,
        };
        let second = tessera_jit::compile_with(&program(), Some(&stores)).unwrap();
        assert!(second.whole_from_cache());
        assert_eq!(second.op_counts(), first.op_counts());
    }

    #[test]
    fn auto_takes_a_kept_kernel_at_creation() {
        let cache = Arc::new(PipelineCache::for_tests());
        let program = program();
        let first =
            Compiled::for_program_with(ShaderBackend::Jit, &program, "main", Some(&cache)).unwrap();
        assert_eq!(first.kernel().map(|k| k.backend()), Some("jit"));
        let next = Arc::new(PipelineCache::for_tests_from(&cache.data()));
        let c =
            Compiled::for_program_with(ShaderBackend::Auto, &program, "main", Some(&next)).unwrap();
        // Ready at creation: nothing queued, nothing to wait for.
        assert!(c.job.lock().unwrap().is_none());
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn the_disk_cache_fills_the_pipeline_cache() {
        let dir = std::env::temp_dir().join(format!("tessera-stores-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let disk = DiskCache::new(&dir, 1 << 26);
        let cache = PipelineCache::for_tests();
        let only_disk = Stores {
            pipeline: None,
            disk: Some(&disk),
        };
        assert!(
            !tessera_jit::compile_with(&program(), Some(&only_disk))
                .unwrap()
                .from_cache()
        );
        let both = Stores {
            pipeline: Some(&cache),
            disk: Some(&disk),
        };
        assert!(
            tessera_jit::compile_with(&program(), Some(&both))
                .unwrap()
                .whole_from_cache()
        );
        assert_eq!(
            cache.code().len(),
            1,
            "the whole kernel, copied from the disk"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size(" 2g "), Some(2 << 30));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn small_dispatches_wait_once_their_budget_is_spent() {
        let slot = Compiled::empty("main");
        // Not compiled and never queued: a small dispatch runs on the interpreter.
        *slot.job.lock().unwrap() = Some(Job {
            program: program(),
            name: "main".into(),
            cache: None,
        });
        assert!(slot.kernel_for(1).is_none());
        slot.note_interpreted(INTERPRETER_BUDGET);
        assert_eq!(slot.kernel_for(1).map(|k| k.backend()), Some("jit"));
    }
}
