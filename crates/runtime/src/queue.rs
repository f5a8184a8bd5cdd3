//! `VkQueue`: a worker thread that runs submissions in order.
//!
//! `vkQueueSubmit(2)` validates and deep-copies the submission on the caller's thread, then sends
//! a [`Job`] over a channel; the worker waits on the batch's semaphores, executes its command
//! buffers, signals its semaphores and finally the fence. A panic in the executor is caught and
//! marks the device lost instead of killing the thread, so waiters are always released. The
//! worker's stack is the pool's (`tessera_workers::THREAD_STACK_BYTES`): it runs compiled
//! shaders as one of the pool's threads.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::cmd::{CommandBuffer, Recording};
use crate::device::SubmitBatch;
use crate::exec::{ExecContext, execute};
use crate::memory::LiveMemory;
use crate::sync::{Fence, Semaphore, SemaphoreKind, SyncHub, WaitOutcome};
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

// Compiled shaders run on this thread and the pool's: their frames must fit, with room left.
const _: () =
    assert!(tessera_workers::THREAD_STACK_BYTES as u64 >= 2 * tessera_jit::MAX_FRAME_BYTES);

/// A semaphore operation: binary semaphores ignore the value; a timeline one needs it.
fn semaphore_op(
    semaphore: &Arc<Semaphore>,
    value: Option<u64>,
    vuid_value: &'static str,
) -> Result<SemaphoreOp> {
    let value = match (semaphore.kind(), value) {
        (SemaphoreKind::Binary, _) => 0,
        (SemaphoreKind::Timeline, Some(v)) => v,
        (SemaphoreKind::Timeline, None) => {
            return Err(Error::invalid(
                vuid_value,
                "a timeline semaphore needs a value (VkTimelineSemaphoreSubmitInfo)",
            ));
        }
    };
    Ok(SemaphoreOp {
        semaphore: semaphore.clone(),
        value,
    })
}

/// One `VkSubmitInfo` as a batch.
fn batch(info: &vk::SubmitInfo) -> Result<SubmitBatch> {
    let (wait_values, signal_values): (&[u64], &[u64]) = match &info.timeline_semaphore_submit_info
    {
        None => (&[], &[]),
        Some(t) => {
            let waits = t.wait_semaphore_values.as_deref().unwrap_or(&[]);
            let signals = t.signal_semaphore_values.as_deref().unwrap_or(&[]);
            ensure!(
                waits.len() == info.wait_semaphores.len(),
                "VUID-VkSubmitInfo-pNext-03240",
                "waitSemaphoreValueCount {} differs from waitSemaphoreCount {}",
                waits.len(),
                info.wait_semaphores.len()
            );
            ensure!(
                signals.len() == info.signal_semaphores.len(),
                "VUID-VkSubmitInfo-pNext-03241",
                "signalSemaphoreValueCount {} differs from signalSemaphoreCount {}",
                signals.len(),
                info.signal_semaphores.len()
            );
            (waits, signals)
        }
    };
    ensure!(
        info.protected_submit_info
            .as_ref()
            .is_none_or(|p| !p.protected_submit),
        "VUID-VkProtectedSubmitInfo-protectedSubmit-01816",
        "protected submissions are not supported"
    );
    Ok(SubmitBatch {
        waits: info
            .wait_semaphores
            .iter()
            .enumerate()
            .map(|(i, s)| {
                semaphore_op(
                    s,
                    wait_values.get(i).copied(),
                    "VUID-VkSubmitInfo-pWaitSemaphores-03243",
                )
            })
            .collect::<Result<_>>()?,
        command_buffers: info.command_buffers.clone(),
        signals: info
            .signal_semaphores
            .iter()
            .enumerate()
            .map(|(i, s)| {
                semaphore_op(
                    s,
                    signal_values.get(i).copied(),
                    "VUID-VkSubmitInfo-pSignalSemaphores-03244",
                )
            })
            .collect::<Result<_>>()?,
    })
}

/// One `VkSubmitInfo2` as a batch.
fn batch2(info: &vk::SubmitInfo2) -> Result<SubmitBatch> {
    ensure!(
        info.flags & VK_SUBMIT_PROTECTED_BIT == 0,
        "VUID-VkSubmitInfo2-flags-03886",
        "protected submissions are not supported"
    );
    let op = |s: &vk::SemaphoreSubmitInfo| {
        ensure!(
            s.device_index == 0,
            "VUID-VkSemaphoreSubmitInfo-deviceIndex-03888",
            "deviceIndex {} >= 1",
            s.device_index
        );
        semaphore_op(
            &s.semaphore,
            Some(s.value),
            "VUID-VkSubmitInfo2-semaphore-03881",
        )
    };
    Ok(SubmitBatch {
        waits: info
            .wait_semaphore_infos
            .iter()
            .map(op)
            .collect::<Result<_>>()?,
        command_buffers: info
            .command_buffer_infos
            .iter()
            .map(|c| {
                ensure!(
                    c.device_mask <= 1,
                    "VUID-VkCommandBufferSubmitInfo-deviceMask-03891",
                    "deviceMask {:#x} names devices beyond the one in the group",
                    c.device_mask
                );
                Ok(c.command_buffer.clone())
            })
            .collect::<Result<_>>()?,
        signals: info
            .signal_semaphore_infos
            .iter()
            .map(op)
            .collect::<Result<_>>()?,
    })
}

/// A semaphore wait or signal with its value (ignored for binary semaphores).
#[derive(Debug, Clone)]
pub struct SemaphoreOp {
    /// The semaphore.
    pub semaphore: Arc<Semaphore>,
    /// The timeline value.
    pub value: u64,
}

/// One `VkSubmitInfo(2)`, deep-copied.
#[derive(Debug, Default)]
pub struct Batch {
    /// Semaphores to wait on before executing.
    pub waits: Vec<SemaphoreOp>,
    /// Command buffers with the recordings captured at submit time.
    pub command_buffers: Vec<(Arc<CommandBuffer>, Arc<Recording>)>,
    /// Semaphores to signal afterwards.
    pub signals: Vec<SemaphoreOp>,
}

/// A whole `vkQueueSubmit(2)` call.
#[derive(Debug)]
pub struct Job {
    /// The batches, in order.
    pub batches: Vec<Batch>,
    /// Signalled when every batch has finished.
    pub fence: Option<Arc<Fence>>,
}

#[derive(Debug, Default)]
struct Progress {
    submitted: AtomicU64,
    completed: AtomicU64,
}

/// A queue.
#[derive(Debug)]
pub struct Queue {
    family: u32,
    index: u32,
    sender: Mutex<Option<Sender<Job>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    progress: Arc<Progress>,
    hub: Arc<SyncHub>,
    lost: Arc<AtomicBool>,
}

impl Queue {
    /// Starts the worker thread of queue `index` in `family`.
    ///
    /// # Errors
    /// `OutOfHostMemory` when the thread cannot be spawned.
    pub fn new(
        family: u32,
        index: u32,
        hub: Arc<SyncHub>,
        lost: Arc<AtomicBool>,
        live_memory: Arc<LiveMemory>,
    ) -> Result<Self> {
        let (sender, receiver) = channel();
        let progress = Arc::new(Progress::default());
        let worker = {
            let (progress, hub, lost) = (progress.clone(), hub.clone(), lost.clone());
            // Read here, on the creating thread: the worker never touches the environment.
            let timeout = crate::exec::dispatch_timeout();
            std::thread::Builder::new()
                .name(format!("tessera-queue-{family}.{index}"))
                .stack_size(tessera_workers::THREAD_STACK_BYTES)
                .spawn(move || worker_loop(receiver, &progress, &hub, &lost, &live_memory, timeout))
                .map_err(|e| Error::OutOfHostMemory(format!("cannot start a queue thread: {e}")))?
        };
        Ok(Queue {
            family,
            index,
            sender: Mutex::new(Some(sender)),
            worker: Mutex::new(Some(worker)),
            progress,
            hub,
            lost,
        })
    }

    /// Queue family index.
    pub fn family(&self) -> u32 {
        self.family
    }

    /// Index within the family.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// `vkQueueSubmit`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken (nothing is queued then); `DeviceLost`.
    pub fn submit_infos(
        &self,
        submits: &[vk::SubmitInfo],
        fence: Option<Arc<Fence>>,
    ) -> Result<()> {
        let batches = submits.iter().map(batch).collect::<Result<Vec<_>>>()?;
        self.submit_batches(batches, fence)
    }

    /// `vkQueueSubmit2`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken (nothing is queued then); `DeviceLost`.
    pub fn submit_infos2(
        &self,
        submits: &[vk::SubmitInfo2],
        fence: Option<Arc<Fence>>,
    ) -> Result<()> {
        let batches = submits.iter().map(batch2).collect::<Result<Vec<_>>>()?;
        self.submit_batches(batches, fence)
    }

    /// Validates every batch, marks its command buffers pending and queues the job.
    ///
    /// # Errors
    /// `Validation` naming the rule broken (nothing is queued then); `DeviceLost`.
    pub fn submit_batches(
        &self,
        batches: Vec<SubmitBatch>,
        fence: Option<Arc<Fence>>,
    ) -> Result<()> {
        if let Some(f) = &fence {
            ensure!(
                !f.is_signaled(),
                "VUID-vkQueueSubmit-fence-00063",
                "fence is already signaled"
            );
        }
        for b in &batches {
            for s in &b.signals {
                s.semaphore
                    .check_signal_value(s.value, "VUID-VkSubmitInfo-pSignalSemaphores-03242")?;
            }
        }
        let mut job = Job {
            batches: Vec::with_capacity(batches.len()),
            fence,
        };
        for b in batches {
            let mut batch = Batch {
                waits: b.waits,
                command_buffers: Vec::new(),
                signals: b.signals,
            };
            for cb in b.command_buffers {
                match cb.begin_submit() {
                    Ok(rec) => batch.command_buffers.push((cb, rec)),
                    Err(e) => {
                        job.batches.push(batch);
                        for done in job.batches {
                            for (cb, _) in done.command_buffers {
                                cb.end_submit(false);
                            }
                        }
                        return Err(e);
                    }
                }
            }
            job.batches.push(batch);
        }
        self.submit(job)
    }

    /// Hands a validated job to the worker.
    ///
    /// # Errors
    /// `DeviceLost` when the device was lost or destroyed.
    pub fn submit(&self, job: Job) -> Result<()> {
        if self.lost.load(Ordering::Acquire) {
            release(job, false);
            return Err(Error::DeviceLost("an earlier submission failed".into()));
        }
        let sender = self.sender.lock();
        let Some(sender) = sender.as_ref() else {
            release(job, false);
            return Err(Error::DeviceLost("the device is being destroyed".into()));
        };
        self.progress.submitted.fetch_add(1, Ordering::AcqRel);
        sender.send(job).map_err(|e| {
            self.progress.completed.fetch_add(1, Ordering::AcqRel);
            release(e.0, false);
            Error::DeviceLost("the queue thread has stopped".into())
        })
    }

    /// `vkQueueWaitIdle`: waits for everything submitted so far.
    ///
    /// # Errors
    /// `DeviceLost` when the device was lost.
    pub fn wait_idle(&self) -> Result<()> {
        let target = self.progress.submitted.load(Ordering::Acquire);
        self.hub.wait_until(None, || {
            self.progress.completed.load(Ordering::Acquire) >= target
        });
        if self.lost.load(Ordering::Acquire) {
            return Err(Error::DeviceLost("a submission failed".into()));
        }
        Ok(())
    }

    /// Stops the worker: pending waits are abandoned (the hub must already be shut down), the
    /// thread is joined.
    pub fn shut_down(&self) {
        drop(self.sender.lock().take());
        if let Some(worker) = self.worker.lock().take()
            && worker.join().is_err()
        {
            tracing::error!("queue thread {}.{} panicked", self.family, self.index);
        }
    }
}

/// Ends the pending state of every command buffer of a job that did not (fully) run.
fn release(job: Job, executed: bool) {
    for batch in job.batches {
        for (cb, _) in batch.command_buffers {
            cb.end_submit(executed);
        }
    }
}

fn worker_loop(
    receiver: Receiver<Job>,
    progress: &Progress,
    hub: &SyncHub,
    lost: &AtomicBool,
    live_memory: &LiveMemory,
    timeout: Option<std::time::Duration>,
) {
    let ctx = ExecContext {
        hub,
        lost,
        live_memory,
        timeout,
    };
    while let Ok(job) = receiver.recv() {
        run_job(&ctx, job, lost);
        progress.completed.fetch_add(1, Ordering::AcqRel);
        hub.notify();
    }
}

fn run_job(ctx: &ExecContext<'_>, job: Job, lost: &AtomicBool) {
    for batch in job.batches {
        let mut ok = !ctx.hub.is_shut_down();
        for w in &batch.waits {
            if ok
                && ctx
                    .hub
                    .wait_until(None, || w.semaphore.try_acquire(w.value))
                    != WaitOutcome::Ready
            {
                ok = false;
            }
        }
        for (cb, recording) in batch.command_buffers {
            if ok && !lost.load(Ordering::Acquire) {
                let run = catch_unwind(AssertUnwindSafe(|| execute(ctx, &recording)));
                let failure = match run {
                    Ok(Ok(())) => None,
                    Ok(Err(Error::DeviceLost(why))) => Some(why),
                    Ok(Err(e)) => Some(e.to_string()),
                    Err(_) => Some("the executor panicked".to_string()),
                };
                if let Some(why) = failure {
                    if !ctx.hub.is_shut_down() {
                        tracing::error!("device lost: {why}");
                    }
                    lost.store(true, Ordering::Release);
                    ok = false;
                }
            }
            cb.end_submit(ok);
        }
        // Signal even after a failure so that nothing waits forever on a lost device.
        for s in &batch.signals {
            s.semaphore.signal(s.value);
        }
    }
    if let Some(fence) = job.fence {
        fence.signal();
    }
}
