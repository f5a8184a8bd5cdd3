//! `VkDevice`: its queues, the sync hub every wait goes through, and the memory heap.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crate::cmd::CommandBuffer;
use crate::limits::{QUEUE_COUNT, heap_size};
use crate::memory::{DeviceMemory, HeapBudget};
use crate::queue::{Batch, Job, Queue};
use crate::sync::{Fence, SyncHub};
use crate::{Error, Result, ensure};

/// The process-wide heap every device allocates from (there is one physical device).
pub fn global_heap() -> &'static Arc<HeapBudget> {
    static HEAP: OnceLock<Arc<HeapBudget>> = OnceLock::new();
    HEAP.get_or_init(|| Arc::new(HeapBudget::new(heap_size())))
}

/// A logical device.
#[derive(Debug)]
pub struct Device {
    hub: Arc<SyncHub>,
    queues: Vec<Arc<Queue>>,
    lost: Arc<AtomicBool>,
}

/// A submission as the ICD decoded it: batches of command buffers and semaphore operations.
#[derive(Debug, Default)]
pub struct SubmitBatch {
    /// `(semaphore, value)` waits.
    pub waits: Vec<crate::queue::SemaphoreOp>,
    /// Command buffers in order.
    pub command_buffers: Vec<Arc<CommandBuffer>>,
    /// `(semaphore, value)` signals.
    pub signals: Vec<crate::queue::SemaphoreOp>,
}

impl Device {
    /// Creates a device with `queue_count` queues in family 0.
    ///
    /// # Errors
    /// `Validation` for a bad queue count, `OutOfHostMemory` when a worker cannot start.
    pub fn new(queue_count: u32) -> Result<Self> {
        ensure!(
            (1..=QUEUE_COUNT).contains(&queue_count),
            "VUID-VkDeviceQueueCreateInfo-queueCount-00382",
            "queueCount {queue_count} is not in 1..={QUEUE_COUNT}"
        );
        let hub = Arc::new(SyncHub::default());
        let lost = Arc::new(AtomicBool::new(false));
        let mut queues = Vec::new();
        for index in 0..queue_count {
            match Queue::new(0, index, hub.clone(), lost.clone()) {
                Ok(q) => queues.push(Arc::new(q)),
                Err(e) => {
                    hub.shut_down();
                    queues.iter().for_each(|q: &Arc<Queue>| q.shut_down());
                    return Err(e);
                }
            }
        }
        Ok(Device { hub, queues, lost })
    }

    /// The wake-up point for every wait on this device.
    pub fn hub(&self) -> &Arc<SyncHub> {
        &self.hub
    }

    /// The queues of family 0.
    pub fn queues(&self) -> &[Arc<Queue>] {
        &self.queues
    }

    /// Whether a submission failed.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// `vkAllocateMemory`.
    ///
    /// # Errors
    /// `Validation` for a bad type index or size, `OutOfDeviceMemory` when the heap is full.
    pub fn allocate_memory(&self, size: u64, memory_type: u32) -> Result<DeviceMemory> {
        ensure!(
            memory_type < crate::limits::MEMORY_TYPE_COUNT,
            "VUID-vkAllocateMemory-pAllocateInfo-01714",
            "memoryTypeIndex {memory_type} is not less than memoryTypeCount {}",
            crate::limits::MEMORY_TYPE_COUNT
        );
        DeviceMemory::allocate(global_heap(), size, memory_type)
    }

    /// `vkQueueSubmit(2)`: validates every batch, marks its command buffers pending and queues it.
    ///
    /// # Errors
    /// `Validation` naming the rule broken (nothing is queued then); `DeviceLost`.
    pub fn submit(
        &self,
        queue: &Queue,
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
        queue.submit(job)
    }

    /// `vkDeviceWaitIdle`.
    ///
    /// # Errors
    /// `DeviceLost` when a submission failed.
    pub fn wait_idle(&self) -> Result<()> {
        for q in &self.queues {
            q.wait_idle()?;
        }
        Ok(())
    }

    /// `vkDestroyDevice`: abandons pending waits and joins the queue threads. Idempotent.
    pub fn destroy(&self) {
        self.hub.shut_down();
        for q in &self.queues {
            q.shut_down();
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.destroy();
    }
}

/// Rejects use of a lost device.
///
/// # Errors
/// `DeviceLost`.
pub fn check_not_lost(device: &Device) -> Result<()> {
    if device.is_lost() {
        return Err(Error::DeviceLost("an earlier submission failed".into()));
    }
    Ok(())
}
