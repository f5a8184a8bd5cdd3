//! Persistent worker threads, one per CPU the process may run on, created once and shared by every
//! parallel job in the process (shader dispatches, tensor copies, graph kernels).
//!
//! [`Pool::run`] runs `task(i)` once for every `i` in `0..n`, on the calling thread and up to
//! `threads - 1` pool threads (each takes the next index from a shared counter), and returns when
//! every one has returned. Jobs do not allocate or spawn: a job is
//! published to the sleeping (or briefly spinning) workers through one generation counter, so a
//! dispatch of a few microseconds is not dominated by thread start-up.
//!
//! Invariants:
//! - at most one job runs on the pool at a time; a second caller on another thread waits for the
//!   first to finish, and a `run` from inside a task (or while the caller already runs a job) runs
//!   its tasks one after another on the calling thread instead of deadlocking;
//! - `run` never returns while a worker may still read the task it was given (the task's borrow
//!   is what makes the lifetime erasure in [`Job`] sound);
//! - a panicking task is caught on the thread it ran on; `run` reports it after every task of
//!   the job has finished, and the pool stays usable.
//!
//! The thread count is [`std::thread::available_parallelism`] at first use (on Linux it follows
//! the process's CPU affinity mask and cgroup quota, so `taskset -c 0-3` gives 4 workers);
//! `TESSERA_THREADS` overrides it.
//!
//! Workers have stacks of [`THREAD_STACK_BYTES`]: compiled shaders run on them with frames of up
//! to half of it (`tessera_jit::MAX_FRAME_BYTES`).

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// A task panicked (the message, when it was a string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panicked(pub String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a worker task panicked: {}", self.0)
    }
}

impl std::error::Error for Panicked {}

/// The task of the current job, with its lifetime erased (see the module invariants).
#[derive(Clone, Copy)]
struct Job {
    task: *const (dyn Fn(usize) + Sync + 'static),
    /// Task indices `0..tasks`.
    tasks: usize,
    /// Workers `1..participants` help the caller.
    participants: usize,
}

// SAFETY: the pointee is `Sync`, and `Pool::run` keeps it alive until every worker is done with it.
unsafe impl Send for Job {}

struct Shared {
    /// Bumped (under `slot`) for every job; workers compare it with the last one they ran.
    generation: AtomicU64,
    slot: Mutex<Option<Job>>,
    wake: Condvar,
    /// Workers of the current job still running.
    pending: AtomicUsize,
    /// The next task index of the current job.
    next: AtomicUsize,
    done_lock: Mutex<()>,
    done: Condvar,
    /// The first panic message of the current job.
    panic: Mutex<Option<String>>,
    /// Set when the pool is dropped: workers exit at their next wake-up.
    shutdown: AtomicBool,
}

/// A pool of persistent worker threads. See the module docs.
pub struct Pool {
    shared: Arc<Shared>,
    threads: usize,
    /// Serialises jobs; held for the whole of `run`.
    run_lock: Mutex<()>,
    started: OnceLock<()>,
    /// Pool threads actually running (spawning can fail; the caller then does more).
    started_workers: AtomicUsize,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// Whether this thread is running a task of some pool (or is inside `run`).
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
}

/// How many times a worker polls for the next job before it sleeps on the condition variable:
/// back-to-back dispatches (a few µs apart) then skip the wake-up latency.
const SPINS: u32 = 1 << 11;

/// The stack of every worker, and of the runtime's queue threads, which run jobs as their
/// callers. Reserved, not committed: untouched pages cost no memory.
pub const THREAD_STACK_BYTES: usize = 16 << 20;

/// The process-wide pool.
pub fn global() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(default_threads()))
}

/// Worker count for the global pool: `TESSERA_THREADS` if set to a positive number, else
/// `available_parallelism`.
fn default_threads() -> usize {
    std::env::var("TESSERA_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(1024)
}

impl Pool {
    /// A pool of `threads` workers in all (the caller of `run` counts as one), started lazily.
    pub fn new(threads: usize) -> Pool {
        Pool {
            shared: Arc::new(Shared {
                generation: AtomicU64::new(0),
                slot: Mutex::new(None),
                wake: Condvar::new(),
                pending: AtomicUsize::new(0),
                next: AtomicUsize::new(0),
                done_lock: Mutex::new(()),
                done: Condvar::new(),
                panic: Mutex::new(None),
                shutdown: AtomicBool::new(false),
            }),
            threads: threads.max(1),
            run_lock: Mutex::new(()),
            started: OnceLock::new(),
            started_workers: AtomicUsize::new(0),
        }
    }

    /// Workers in all, the calling thread included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn start(&self) {
        self.started.get_or_init(|| {
            // The generation before any job of this pool: a worker that starts late must still
            // see the first job as new.
            let first_seen = self.shared.generation.load(Ordering::SeqCst);
            for index in 1..self.threads {
                let shared = Arc::clone(&self.shared);
                // Workers are numbered densely from 1: when one cannot be spawned, stop, and
                // `run` uses only the ones that exist.
                let spawned = std::thread::Builder::new()
                    .name(format!("tessera-worker-{index}"))
                    .stack_size(THREAD_STACK_BYTES)
                    .spawn(move || worker(&shared, index, first_seen));
                if spawned.is_err() {
                    break;
                }
                self.started_workers.fetch_add(1, Ordering::Relaxed);
            }
        });
    }

    /// Runs `task(i)` once for every `i` in `0..n`, spread over the calling thread and up to
    /// `threads - 1` workers, and returns when all have returned. Returns the first panic's
    /// message if a task panicked (the other tasks still ran).
    pub fn run(&self, n: usize, task: &(dyn Fn(usize) + Sync)) -> Result<(), Panicked> {
        if n <= 1 || self.threads == 1 || IN_JOB.with(Cell::get) {
            return run_inline(n, task);
        }
        let _serial = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.start();
        let workers = self.started_workers.load(Ordering::Relaxed);
        let participants = n.min(workers + 1);
        if participants == 1 {
            return run_inline(n, task);
        }
        let shared = &*self.shared;
        // SAFETY: a lifetime erasure only: `task` outlives this call, and this call does not
        // return before `pending` is back to 0, i.e. before every worker that took the job has
        // finished calling it; workers never keep the pointer past their tasks.
        let erased = unsafe {
            std::mem::transmute::<
                *const (dyn Fn(usize) + Sync + '_),
                *const (dyn Fn(usize) + Sync + 'static),
            >(task)
        };
        shared.pending.store(participants - 1, Ordering::SeqCst);
        shared.next.store(0, Ordering::SeqCst);
        {
            let mut slot = shared.slot.lock().unwrap_or_else(|e| e.into_inner());
            *slot = Some(Job {
                task: erased,
                tasks: n,
                participants,
            });
            shared.generation.fetch_add(1, Ordering::SeqCst);
        }
        shared.wake.notify_all();
        IN_JOB.with(|f| f.set(true));
        let own = take_tasks(shared, n, task);
        IN_JOB.with(|f| f.set(false));
        // Wait for the workers: spin briefly, then sleep.
        let mut spins = 0u32;
        while shared.pending.load(Ordering::Acquire) != 0 {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let guard = shared.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            if shared.pending.load(Ordering::Acquire) != 0 {
                drop(
                    shared
                        .done
                        .wait_timeout(guard, std::time::Duration::from_millis(1))
                        .unwrap_or_else(|e| e.into_inner()),
                );
            }
        }
        {
            let mut slot = shared.slot.lock().unwrap_or_else(|e| e.into_inner());
            *slot = None;
        }
        let worker_panic = shared
            .panic
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match own.or(worker_panic) {
            Some(msg) => Err(Panicked(msg)),
            None => Ok(()),
        }
    }
}

/// Runs task indices from the job's counter until none are left; returns the first panic.
fn take_tasks(shared: &Shared, tasks: usize, task: &(dyn Fn(usize) + Sync)) -> Option<String> {
    let mut first = None;
    loop {
        let i = shared.next.fetch_add(1, Ordering::Relaxed);
        if i >= tasks {
            return first;
        }
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| task(i))) {
            first.get_or_insert_with(|| panic_message(&*p));
        }
    }
}

/// Runs tasks `0..n` one after another on the calling thread.
fn run_inline(n: usize, task: &(dyn Fn(usize) + Sync)) -> Result<(), Panicked> {
    let was = IN_JOB.with(|f| f.replace(true));
    let mut first = None;
    for i in 0..n {
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| task(i))) {
            first.get_or_insert_with(|| panic_message(&*p));
        }
    }
    IN_JOB.with(|f| f.set(was));
    first.map_or(Ok(()), |m| Err(Panicked(m)))
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

impl Drop for Pool {
    fn drop(&mut self) {
        let shared = &*self.shared;
        shared.shutdown.store(true, Ordering::SeqCst);
        {
            let _slot = shared.slot.lock().unwrap_or_else(|e| e.into_inner());
            shared.generation.fetch_add(1, Ordering::SeqCst);
        }
        shared.wake.notify_all();
    }
}

fn worker(shared: &Shared, index: usize, first_seen: u64) {
    IN_JOB.with(|f| f.set(true));
    let mut seen = first_seen;
    loop {
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        // Wait for a new generation: spin first, then sleep.
        let mut spins = 0u32;
        let job = loop {
            if shared.generation.load(Ordering::Acquire) != seen {
                let slot = shared.slot.lock().unwrap_or_else(|e| e.into_inner());
                seen = shared.generation.load(Ordering::SeqCst);
                break *slot;
            }
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let slot = shared.slot.lock().unwrap_or_else(|e| e.into_inner());
            if shared.generation.load(Ordering::SeqCst) != seen {
                continue;
            }
            drop(shared.wake.wait(slot).unwrap_or_else(|e| e.into_inner()));
        };
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        let Some(job) = job else { continue };
        if index >= job.participants {
            continue;
        }
        // SAFETY: `Pool::run` keeps the task alive until `pending` reaches 0, which happens only
        // after this call returns (the decrement below).
        let task = unsafe { &*job.task };
        if let Some(msg) = take_tasks(shared, job.tasks, task) {
            let mut slot = shared.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(msg);
        }
        if shared.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _g = shared.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.done.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_runs_once() {
        let pool = Pool::new(4);
        for round in 0..200 {
            let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            pool.run(4, &|i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Ordering::Relaxed), 1, "round {round} index {i}");
            }
        }
    }

    #[test]
    fn more_tasks_than_workers() {
        let pool = Pool::new(3);
        let hits: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
        pool.run(100, &|i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn fewer_tasks_than_workers() {
        let pool = Pool::new(4);
        let sum = AtomicUsize::new(0);
        pool.run(2, &|i| {
            sum.fetch_add(i + 1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn nested_runs_do_not_deadlock() {
        let pool = Pool::new(3);
        let sum = AtomicUsize::new(0);
        pool.run(3, &|_| {
            pool.run(3, &|j| {
                sum.fetch_add(j, Ordering::Relaxed);
            })
            .unwrap();
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3 * 3);
    }

    #[test]
    fn a_panic_is_reported_and_the_pool_survives() {
        let pool = Pool::new(3);
        let err = pool
            .run(3, &|i| {
                if i == 2 {
                    panic!("task two");
                }
            })
            .unwrap_err();
        assert!(err.0.contains("task two"), "{err}");
        let sum = AtomicUsize::new(0);
        pool.run(3, &|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn concurrent_callers_take_turns() {
        let pool = Pool::new(2);
        let total = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        pool.run(2, &|_| {
                            total.fetch_add(1, Ordering::Relaxed);
                        })
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * 2);
    }
}
