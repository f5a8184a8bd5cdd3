//! Which backend runs a compute pipeline's shader: the interpreter (`tessera-spirv`) or compiled
//! code from the JIT (`tessera-jit`), chosen by `TESSERA_SHADER_BACKEND`:
//! - `interp`: always the interpreter;
//! - `jit`: compile at pipeline creation, and fail the creation if the JIT cannot compile the
//!   shader (a developer's switch: it shows what the JIT does not handle);
//! - `auto` (the default): compile on a background thread (at the lowest scheduling priority, so
//!   that it never takes a core from the threads that dispatch); small dispatches use the
//!   interpreter until the compiled code is ready, a large one ([`WAIT_FOR_CODE_INVOCATIONS`]
//!   or more), or any once the pipeline's dispatches have spent [`INTERPRETER_BUDGET`] on the
//!   interpreter, waits for it (compiling it on the dispatching thread if the queue has not
//!   reached it), then the compiled code. A shader the JIT cannot compile stays on the
//!   interpreter, with an `info` log line saying why.
//!
//! Both backends compute the same results bit for bit (the JIT's tests check it), so which one
//! runs a dispatch never shows in its output.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use tessera_spirv::Program;
use tessera_spirv::exec::Kernel;

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

/// A pipeline's compiled code, once there is some.
#[derive(Default)]
pub struct Compiled {
    kernel: OnceLock<Option<Box<dyn Kernel>>>,
    /// `auto`: the compile to do, until a thread takes it — the background compiler, or a large
    /// dispatch that would rather compile now than wait behind the queue.
    job: Mutex<Option<(Arc<Program>, String)>>,
    /// Nanoseconds its dispatches have run on the interpreter while the code was not ready.
    interpreted_ns: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("ready", &self.kernel.get().is_some())
            .finish()
    }
}

type Job = Arc<Compiled>;

/// The background compiler's queue.
fn queue() -> Option<Sender<Job>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = channel::<Job>();
            std::thread::Builder::new()
                .name("tessera-jit".into())
                .spawn(move || {
                    lowest_priority();
                    for slot in rx {
                        slot.run_job();
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

fn compile(program: &Program, name: &str) -> Option<Box<dyn Kernel>> {
    match tessera_jit::compile(program) {
        Ok(k) => {
            report(&k, name);
            Some(Box::new(k))
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
    if let Some(why) = k.lockstep() {
        tracing::info!("compute shader {name:?}: runs wholly on the interpreter: {why}");
        return;
    }
    let (native, interpreted) = k.op_counts();
    if interpreted == 0 {
        tracing::debug!(
            "compute shader {name:?}: compiled by the JIT in {ms:.2} ms ({native} ops)"
        );
        return;
    }
    let kinds: Vec<String> = k
        .fallbacks()
        .iter()
        .map(|(op, n)| format!("{op} ×{n}"))
        .collect();
    tracing::info!(
        "compute shader {name:?}: compiled by the JIT in {ms:.2} ms; {interpreted} of {} ops have \
         no native lowering and run on the interpreter: {}",
        native + interpreted,
        kinds.join(", ")
    );
}

impl Compiled {
    /// The compiled code for `program` under the configured backend (see the module docs).
    ///
    /// # Errors
    /// `NotSupported` with `TESSERA_SHADER_BACKEND=jit` when the JIT cannot compile it.
    pub fn for_program(program: &Arc<Program>, name: &str) -> Result<Arc<Compiled>> {
        Self::for_program_with(configured(), program, name)
    }

    /// [`Self::for_program`] under `backend`.
    fn for_program_with(
        backend: ShaderBackend,
        program: &Arc<Program>,
        name: &str,
    ) -> Result<Arc<Compiled>> {
        let slot = Arc::new(Compiled::default());
        match backend {
            ShaderBackend::Interpreter => slot.finish(None),
            ShaderBackend::Jit => match tessera_jit::compile(program) {
                Ok(k) => {
                    report(&k, name);
                    slot.finish(Some(Box::new(k)))
                }
                Err(e) => {
                    return Err(Error::NotSupported(format!(
                        "TESSERA_SHADER_BACKEND=jit and the JIT cannot compile compute shader \
                         {name:?}: {e}"
                    )));
                }
            },
            ShaderBackend::Auto => {
                if let Ok(mut job) = slot.job.lock() {
                    *job = Some((program.clone(), name.to_string()));
                }
                if queue().is_none_or(|q| q.send(slot.clone()).is_err()) {
                    // No background thread: compile now.
                    slot.run_job();
                }
            }
        }
        Ok(slot)
    }

    fn finish(&self, kernel: Option<Box<dyn Kernel>>) {
        let _ = self.kernel.set(kernel);
    }

    /// Compiles the queued job, if no other thread took it. The slot gets its answer even if
    /// compiling panics (a dispatch may be waiting for it).
    fn run_job(&self) {
        let job = self.job.lock().ok().and_then(|mut job| job.take());
        if let Some((program, name)) = job {
            let kernel =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compile(&program, &name)))
                    .unwrap_or(None);
            self.finish(kernel);
        }
    }

    /// The compiled code, if it is ready (else the interpreter runs the dispatch).
    pub fn kernel(&self) -> Option<&dyn Kernel> {
        self.kernel.get().and_then(|k| k.as_deref())
    }

    /// The compiled code for a dispatch of `invocations`: a large one, or any once the
    /// pipeline has used up its [`INTERPRETER_BUDGET`], waits for it (see the module docs); a
    /// small one takes what is ready.
    pub fn kernel_for(&self, invocations: u64) -> Option<&dyn Kernel> {
        if let Some(ready) = self.kernel.get() {
            return ready.as_deref();
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
        self.kernel.wait().as_deref()
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
    fn interp_never_compiles() {
        let c = Compiled::for_program_with(ShaderBackend::Interpreter, &program(), "main").unwrap();
        assert!(c.kernel.get().is_some(), "decided at once");
        assert!(c.kernel().is_none());
    }

    #[test]
    fn jit_compiles_at_creation() {
        let c = Compiled::for_program_with(ShaderBackend::Jit, &program(), "main").unwrap();
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn auto_compiles_in_the_background() {
        let c = Compiled::for_program_with(ShaderBackend::Auto, &program(), "main").unwrap();
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
        let c = Compiled::for_program_with(ShaderBackend::Auto, &program(), "main").unwrap();
        // Compiled on this thread if the background compiler has not taken it yet.
        assert_eq!(c.wait_for_kernel().map(|k| k.backend()), Some("jit"));
        assert!(c.job.lock().unwrap().is_none(), "the job is taken once");
        assert_eq!(c.kernel().map(|k| k.backend()), Some("jit"));
    }

    #[test]
    fn small_dispatches_wait_once_their_budget_is_spent() {
        let slot = Compiled::default();
        // Not compiled and never queued: a small dispatch runs on the interpreter.
        *slot.job.lock().unwrap() = Some((program(), "main".into()));
        assert!(slot.kernel_for(1).is_none());
        slot.note_interpreted(INTERPRETER_BUDGET);
        assert_eq!(slot.kernel_for(1).map(|k| k.backend()), Some("jit"));
    }
}
