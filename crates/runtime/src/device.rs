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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::Buffer;
    use crate::cmd::{BufferCopy, Command, CommandPool, Level, UsageFlags};
    use crate::queue::SemaphoreOp;
    use crate::sync::{Event, Semaphore, SemaphoreKind, WaitOutcome, wait_for_fences};

    fn buffer(dev: &Device, size: u64) -> (Arc<DeviceMemory>, Arc<Buffer>) {
        let mem = Arc::new(
            dev.allocate_memory(Buffer::requirements_for(size).size, 0)
                .unwrap(),
        );
        let buf = Arc::new(Buffer::new(size, 3).unwrap());
        buf.bind(mem.clone(), 0).unwrap();
        (mem, buf)
    }

    #[test]
    fn fill_copy_and_fence() {
        let dev = Device::new(1).unwrap();
        let (_ma, a) = buffer(&dev, 64);
        let (mb, b) = buffer(&dev, 64);
        let pool = CommandPool::new(false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("fill", || {
            Command::fill_buffer(a.clone(), 0, None, 0xAABB_CCDD)
        });
        cb.record("copy", || {
            Command::copy_buffer(
                a.clone(),
                b.clone(),
                vec![BufferCopy {
                    src_offset: 8,
                    dst_offset: 16,
                    size: 8,
                }],
            )
        });
        cb.end().unwrap();
        let fence = Arc::new(Fence::new(dev.hub().clone(), false));
        let batch = SubmitBatch {
            command_buffers: vec![cb.clone()],
            ..Default::default()
        };
        dev.submit(&dev.queues()[0], vec![batch], Some(fence.clone()))
            .unwrap();
        assert_eq!(
            wait_for_fences(dev.hub(), &[fence], true, u64::MAX),
            WaitOutcome::Ready
        );
        let mut out = [0u8; 32];
        mb.read(0, &mut out).unwrap();
        assert_eq!(&out[..16], &[0; 16]);
        assert_eq!(
            &out[16..24],
            &[0xDD, 0xCC, 0xBB, 0xAA, 0xDD, 0xCC, 0xBB, 0xAA]
        );
        assert!(!cb.is_pending());
    }

    #[test]
    fn semaphore_orders_two_queues() {
        let dev = Device::new(2).unwrap();
        let (ma, a) = buffer(&dev, 16);
        let (mb, b) = buffer(&dev, 16);
        ma.write(0, &[7; 16]).unwrap();
        let pool = CommandPool::new(false);
        let sem = Arc::new(Semaphore::new(
            dev.hub().clone(),
            SemaphoreKind::Timeline,
            0,
        ));
        let copy = pool.allocate(Level::Primary);
        copy.begin(UsageFlags::default()).unwrap();
        copy.record("copy", || {
            Command::copy_buffer(
                a.clone(),
                b.clone(),
                vec![BufferCopy {
                    src_offset: 0,
                    dst_offset: 0,
                    size: 16,
                }],
            )
        });
        copy.end().unwrap();
        // Queue 1 waits for value 1, which the host signals only after the submit.
        let fence = Arc::new(Fence::new(dev.hub().clone(), false));
        let batch = SubmitBatch {
            waits: vec![SemaphoreOp {
                semaphore: sem.clone(),
                value: 1,
            }],
            command_buffers: vec![copy],
            signals: vec![],
        };
        dev.submit(&dev.queues()[1], vec![batch], Some(fence.clone()))
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!fence.is_signaled());
        let mut out = [0u8; 16];
        mb.read(0, &mut out).unwrap();
        assert_eq!(out, [0; 16]);
        sem.signal(1);
        dev.wait_idle().unwrap();
        mb.read(0, &mut out).unwrap();
        assert_eq!(out, [7; 16]);
        assert!(fence.is_signaled());
    }

    fn run(dev: &Device, cmd: Command) {
        let pool = CommandPool::new(false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("cmd", || Ok(cmd));
        cb.end().unwrap();
        let batch = SubmitBatch {
            command_buffers: vec![cb],
            ..Default::default()
        };
        dev.submit(&dev.queues()[0], vec![batch], None).unwrap();
        dev.wait_idle().unwrap();
    }

    #[test]
    fn tensor_copies_packed_to_padded_and_overlapping() {
        use crate::cmd::TensorCopy;
        use crate::tensor::{Tensor, TensorDesc, Tiling, USAGE_TRANSFER_DST, USAGE_TRANSFER_SRC};
        let dev = Device::new(1).unwrap();
        let mem = Arc::new(dev.allocate_memory(4096, 0).unwrap());
        let usage = USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST;
        let packed = TensorDesc::new(Tiling::Linear, 13, &[3, 5], None, usage, false).unwrap();
        let padded =
            TensorDesc::new(Tiling::Linear, 13, &[3, 5], Some(&[18, 1]), usage, true).unwrap();
        let src = Arc::new(Tensor::new(packed.clone(), 0).unwrap());
        let dst = Arc::new(Tensor::new(padded, 0).unwrap());
        src.bind(mem.clone(), 0).unwrap();
        dst.bind(mem.clone(), 1024).unwrap();
        let bytes: Vec<u8> = (1..=15).collect();
        mem.write(0, &bytes).unwrap();
        mem.fill_u32(1024, 64, 0xEEEE_EEEE).unwrap();
        let whole = vec![TensorCopy::default()];
        run(
            &dev,
            Command::copy_tensor(src.clone(), dst.clone(), whole.clone()).unwrap(),
        );
        let mut out = [0u8; 64];
        mem.read(1024, &mut out).unwrap();
        assert_eq!(&out[0..5], &[1, 2, 3, 4, 5]);
        assert_eq!(&out[5..18], &[0xEE; 13], "padding untouched");
        assert_eq!(&out[18..23], &[6, 7, 8, 9, 10]);
        assert_eq!(&out[36..41], &[11, 12, 13, 14, 15]);
        // Two packed tensors whose ranges overlap in the same memory (offsets 0 and 64 of a
        // 3x64 tensor): the copy reads every source element before writing.
        let big = TensorDesc::new(Tiling::Linear, 13, &[3, 64], None, usage, false).unwrap();
        let a = Arc::new(Tensor::new(big.clone(), 0).unwrap());
        let b = Arc::new(Tensor::new(big, 0).unwrap());
        a.bind(mem.clone(), 2048).unwrap();
        b.bind(mem.clone(), 2048 + 64).unwrap();
        let pattern: Vec<u8> = (0..192).map(|i| i as u8).collect();
        mem.write(2048, &pattern).unwrap();
        run(&dev, Command::copy_tensor(a, b, whole).unwrap());
        let mut moved = vec![0u8; 192];
        mem.read(2048 + 64, &mut moved).unwrap();
        assert_eq!(moved, pattern);
        // Shape mismatch and a bad region are validation errors.
        let other = Arc::new(
            Tensor::new(
                TensorDesc::new(Tiling::Linear, 13, &[5, 3], None, usage, false).unwrap(),
                0,
            )
            .unwrap(),
        );
        assert!(Command::copy_tensor(src.clone(), other, vec![TensorCopy::default()]).is_err());
        let offset = TensorCopy {
            dimension_count: 2,
            src_offset: Some(vec![0, 1]),
            ..Default::default()
        };
        assert!(Command::copy_tensor(src.clone(), dst.clone(), vec![offset]).is_err());
        assert!(Command::copy_tensor(src, dst, vec![]).is_err());
    }

    #[test]
    fn destroy_with_pending_work_does_not_hang() {
        let dev = Device::new(1).unwrap();
        let event = Arc::new(Event::new(dev.hub().clone(), false));
        let pool = CommandPool::new(false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("wait", || {
            Ok(Command::WaitEvents {
                events: vec![event.clone()].into(),
            })
        });
        cb.end().unwrap();
        let batch = SubmitBatch {
            command_buffers: vec![cb.clone()],
            ..Default::default()
        };
        dev.submit(&dev.queues()[0], vec![batch], None).unwrap();
        dev.destroy();
        assert!(!cb.is_pending());
        let batch = SubmitBatch {
            command_buffers: vec![cb],
            ..Default::default()
        };
        assert!(matches!(
            dev.submit(&dev.queues()[0], vec![batch], None),
            Err(Error::DeviceLost(_))
        ));
    }

    #[test]
    fn submit_validation_leaves_nothing_pending() {
        let dev = Device::new(1).unwrap();
        let pool = CommandPool::new(false);
        let ok = pool.allocate(Level::Primary);
        ok.begin(UsageFlags::default()).unwrap();
        ok.end().unwrap();
        let not_ended = pool.allocate(Level::Primary);
        let batch = SubmitBatch {
            command_buffers: vec![ok.clone(), not_ended],
            ..Default::default()
        };
        assert!(matches!(
            dev.submit(&dev.queues()[0], vec![batch], None),
            Err(Error::Validation { .. })
        ));
        assert!(!ok.is_pending());
        assert!(Device::new(0).is_err());
        assert!(Device::new(QUEUE_COUNT + 1).is_err());
    }
}
