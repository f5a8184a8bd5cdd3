//! `VkDevice`: what was enabled at creation (features, extensions), its queues, the sync hub
//! every wait goes through, and the memory heap.
//!
//! Invariants: the enabled features are a subset of the physical device's; every enabled
//! extension is one the physical device lists; every object that needs a device rule (a limit,
//! an enabled feature) reaches it through [`Device::physical`] and [`Device::features`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use vulkan_headers::vulkan::vulkan_core::*;

use crate::cmd::CommandBuffer;
use crate::limits::{QUEUE_COUNT, heap_size};
use crate::memory::{DeviceMemory, HeapBudget, LiveMemory};
use crate::physical_device::PhysicalDevice;
use crate::private_data::PrivateDataSlot;
use crate::queue::Queue;
use crate::sync::{Fence, SyncHub};
use crate::vk::extensions::DeviceExtension;
use crate::vk::features::Features;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The process-wide heap every device allocates from (there is one physical device).
pub fn global_heap() -> &'static Arc<HeapBudget> {
    static HEAP: OnceLock<Arc<HeapBudget>> = OnceLock::new();
    HEAP.get_or_init(|| Arc::new(HeapBudget::new(heap_size())))
}

/// A logical device.
#[derive(Debug)]
pub struct Device {
    physical: Arc<PhysicalDevice>,
    features: Features,
    extensions: Vec<DeviceExtension>,
    queue_flags: VkDeviceQueueCreateFlags,
    hub: Arc<SyncHub>,
    queues: Vec<Arc<Queue>>,
    lost: Arc<AtomicBool>,
    /// The live allocations, for `PhysicalStorageBuffer` addresses in shaders.
    live_memory: Arc<LiveMemory>,
}

/// The extension that must be enabled for a feature struct to be chained at device creation
/// (`None` for the core structs).
fn feature_struct_extension(stype: VkStructureType) -> Option<DeviceExtension> {
    match stype {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_FEATURES_ARM
        | VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_TENSOR_FEATURES_ARM => {
            Some(DeviceExtension::ArmTensors)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_6_FEATURES => {
            Some(DeviceExtension::KhrMaintenance6)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR => {
            Some(DeviceExtension::KhrShaderBfloat16)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT8_FEATURES_EXT => {
            Some(DeviceExtension::ExtShaderFloat8)
        }
        _ => None,
    }
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
    /// `vkCreateDevice`: checks the extensions, features and queues requested against what
    /// `physical` supports.
    ///
    /// # Errors
    /// `ExtensionNotPresent`, `FeatureNotPresent`, `Validation` naming the rule broken,
    /// `OutOfHostMemory` when a queue's worker cannot start.
    pub fn create(
        physical: &Arc<PhysicalDevice>,
        info: &vk::DeviceCreateInfo,
    ) -> Result<Arc<Self>> {
        let mut extensions = Vec::new();
        for name in &info.enabled_extension_names {
            let ext = DeviceExtension::from_name(name)
                .ok_or_else(|| Error::ExtensionNotPresent(format!("device extension {name}")))?;
            if !extensions.contains(&ext) {
                extensions.push(ext);
            }
        }
        let mut features = info.features.clone();
        if let Some(f10) = &info.enabled_features {
            ensure!(
                !info
                    .feature_structs
                    .contains(&VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2),
                "VUID-VkDeviceCreateInfo-pNext-00373",
                "pEnabledFeatures is not NULL while VkPhysicalDeviceFeatures2 is chained"
            );
            features.vulkan10 = f10.clone();
        }
        for stype in &info.feature_structs {
            if let Some(ext) = feature_struct_extension(*stype) {
                ensure!(
                    extensions.contains(&ext),
                    "VUID-VkDeviceCreateInfo-pNext-pNext",
                    "feature structure {stype} is chained but {} is not enabled",
                    ext.info().name
                );
            }
        }
        if let Some(missing) = features.first_unsupported(physical.features()) {
            return Err(Error::FeatureNotPresent(format!(
                "{missing} is not supported"
            )));
        }
        ensure!(
            info.queue_create_infos.len() == 1,
            "VUID-VkDeviceCreateInfo-queueFamilyIndex-02802",
            "{} VkDeviceQueueCreateInfo for the one queue family",
            info.queue_create_infos.len()
        );
        let q = &info.queue_create_infos[0];
        ensure!(
            (q.queue_family_index as usize) < physical.queue_families().len(),
            "VUID-VkDeviceQueueCreateInfo-queueFamilyIndex-00381",
            "queueFamilyIndex {} does not exist (there is one family, 0)",
            q.queue_family_index
        );
        ensure!(
            q.flags == 0,
            "VUID-VkDeviceQueueCreateInfo-flags-06449",
            "queue create flags {:#x}: protected memory is not supported",
            q.flags
        );
        ensure!(
            q.queue_priorities.iter().all(|p| (0.0..=1.0).contains(p)),
            "VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383",
            "a queue priority is outside [0, 1]"
        );
        let mut device = Self::with_queues(q.queue_count)?;
        device.physical = physical.clone();
        device.features = features;
        device.extensions = extensions;
        device.queue_flags = q.flags;
        Ok(Arc::new(device))
    }

    /// The physical device (limits, supported features).
    pub fn physical(&self) -> &Arc<PhysicalDevice> {
        &self.physical
    }

    /// The features enabled at creation.
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// Whether the device extension called `name` was enabled at creation.
    pub fn is_extension_enabled(&self, name: &str) -> bool {
        DeviceExtension::from_name(name).is_some_and(|e| self.extensions.contains(&e))
    }

    /// Whether `extension` was enabled at creation.
    pub fn has_extension(&self, extension: DeviceExtension) -> bool {
        self.extensions.contains(&extension)
    }

    /// `vkGetDeviceQueue(2)`: queue `index` of `family`, created with `flags`.
    ///
    /// # Errors
    /// `Validation` for a family, index or flags the device was not created with.
    pub fn queue(
        &self,
        family: u32,
        index: u32,
        flags: VkDeviceQueueCreateFlags,
    ) -> Result<Arc<Queue>> {
        ensure!(
            family == 0,
            "VUID-vkGetDeviceQueue-queueFamilyIndex-00384",
            "queueFamilyIndex {family} was not requested at device creation"
        );
        ensure!(
            flags == self.queue_flags,
            "VUID-VkDeviceQueueInfo2-flags-06225",
            "flags {flags:#x} differ from the queue's create flags"
        );
        self.queues.get(index as usize).cloned().ok_or_else(|| {
            Error::invalid(
                "VUID-vkGetDeviceQueue-queueIndex-00385",
                format!(
                    "queueIndex {index} is not less than the {} queues created",
                    self.queues.len()
                ),
            )
        })
    }

    /// `vkGetDeviceGroupPeerMemoryFeatures`: the group has one device, so no index pair is valid.
    ///
    /// # Errors
    /// `Validation` always, naming the index rule.
    pub fn peer_memory_features(&self, heap: u32, local: u32, remote: u32) -> Result<()> {
        let heaps = self.physical.memory_properties().memory_heap_count;
        ensure!(
            heap < heaps,
            "VUID-vkGetDeviceGroupPeerMemoryFeatures-heapIndex-00691",
            "heapIndex {heap} >= {heaps}"
        );
        Err(Error::invalid(
            "VUID-vkGetDeviceGroupPeerMemoryFeatures-localDeviceIndex-00692",
            format!(
                "the device group has one device; local {local} / remote {remote} are not two of its devices"
            ),
        ))
    }

    /// `vkCreatePrivateDataSlot`.
    ///
    /// # Errors
    /// None today; private data is always available.
    pub fn create_private_data_slot(&self) -> Result<PrivateDataSlot> {
        Ok(PrivateDataSlot::default())
    }

    /// `vkCreateFence`.
    pub fn create_fence(&self, info: &vk::FenceCreateInfo) -> Result<Fence> {
        let signaled = info.flags & VK_FENCE_CREATE_SIGNALED_BIT != 0;
        Ok(Fence::new(self.hub.clone(), signaled))
    }

    /// `vkGetFenceStatus`.
    ///
    /// # Errors
    /// `DeviceLost` when a submission failed.
    pub fn fence_status(&self, fence: &Fence) -> Result<VkResult> {
        check_not_lost(self)?;
        Ok(if fence.is_signaled() {
            VK_SUCCESS
        } else {
            VK_NOT_READY
        })
    }

    /// `vkWaitForFences`.
    ///
    /// # Errors
    /// `DeviceLost` when the device is destroyed during the wait.
    pub fn wait_for_fences(
        &self,
        fences: &[Arc<Fence>],
        wait_all: bool,
        timeout: u64,
    ) -> Result<VkResult> {
        crate::sync::wait_result(crate::sync::wait_for_fences(
            &self.hub, fences, wait_all, timeout,
        ))
    }

    /// `vkCreateSemaphore`.
    ///
    /// # Errors
    /// As [`crate::sync::Semaphore::create`].
    pub fn create_semaphore(
        &self,
        info: &vk::SemaphoreCreateInfo,
    ) -> Result<crate::sync::Semaphore> {
        crate::sync::Semaphore::create(self.hub.clone(), info)
    }

    /// `vkWaitSemaphores`.
    ///
    /// # Errors
    /// `Validation` for a binary semaphore; `DeviceLost`.
    pub fn wait_semaphores(&self, info: &vk::SemaphoreWaitInfo, timeout: u64) -> Result<VkResult> {
        // Both arrays have `semaphoreCount` elements.
        let waits: Vec<_> = info
            .semaphores
            .iter()
            .cloned()
            .zip(info.values.iter().copied())
            .collect();
        let any = info.flags & VK_SEMAPHORE_WAIT_ANY_BIT != 0;
        crate::sync::wait_result(crate::sync::wait_semaphores(
            &self.hub, &waits, any, timeout,
        )?)
    }

    /// `vkCreateEvent`.
    pub fn create_event(&self, info: &vk::EventCreateInfo) -> crate::sync::Event {
        let device_only = info.flags & VK_EVENT_CREATE_DEVICE_ONLY_BIT != 0;
        crate::sync::Event::new(self.hub.clone(), device_only)
    }

    /// `vkCreateCommandPool`.
    ///
    /// # Errors
    /// `Validation` for a protected pool or a queue family that does not exist.
    pub fn create_command_pool(
        &self,
        info: &vk::CommandPoolCreateInfo,
    ) -> Result<crate::cmd::CommandPool> {
        ensure!(
            info.flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT == 0,
            "VUID-VkCommandPoolCreateInfo-flags-02860",
            "protected memory is not supported"
        );
        ensure!(
            (info.queue_family_index as usize) < self.physical.queue_families().len(),
            "VUID-vkCreateCommandPool-queueFamilyIndex-01937",
            "queueFamilyIndex {} does not exist",
            info.queue_family_index
        );
        let resettable = info.flags & VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT != 0;
        Ok(crate::cmd::CommandPool::new(
            self.physical.clone(),
            resettable,
        ))
    }

    /// A device with `queue_count` queues in family 0, every feature and extension off (for
    /// tests and tools).
    ///
    /// # Errors
    /// `Validation` for a bad queue count, `OutOfHostMemory` when a worker cannot start.
    pub fn new(queue_count: u32) -> Result<Self> {
        Self::with_queues(queue_count)
    }

    fn with_queues(queue_count: u32) -> Result<Self> {
        ensure!(
            (1..=QUEUE_COUNT).contains(&queue_count),
            "VUID-VkDeviceQueueCreateInfo-queueCount-00382",
            "queueCount {queue_count} is not in 1..={QUEUE_COUNT}"
        );
        let hub = Arc::new(SyncHub::default());
        let lost = Arc::new(AtomicBool::new(false));
        let live_memory = Arc::new(LiveMemory::default());
        let mut queues = Vec::new();
        for index in 0..queue_count {
            match Queue::new(0, index, hub.clone(), lost.clone(), live_memory.clone()) {
                Ok(q) => queues.push(Arc::new(q)),
                Err(e) => {
                    hub.shut_down();
                    queues.iter().for_each(|q: &Arc<Queue>| q.shut_down());
                    return Err(e);
                }
            }
        }
        Ok(Device {
            physical: Arc::new(PhysicalDevice::new()),
            features: Features::default(),
            extensions: Vec::new(),
            queue_flags: 0,
            hub,
            queues,
            lost,
            live_memory,
        })
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

    /// The device's live allocations (see [`LiveMemory`]): the ICD lists each allocation it
    /// hands out and unlists it at `vkFreeMemory`.
    pub fn live_memory(&self) -> &LiveMemory {
        &self.live_memory
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

    /// `vkAllocateMemory`, with the chained structures the runtime honours (a dedicated
    /// allocation for a tensor records the tensor; device-address, dedicated-buffer and priority
    /// infos need nothing: every allocation can do all of it).
    ///
    /// # Errors
    /// As [`Self::allocate_memory`]; `Validation` for a dedicated size that differs from the
    /// tensor's requirement.
    pub fn allocate(&self, info: &vk::MemoryAllocateInfo) -> Result<DeviceMemory> {
        let dedicated = match &info.memory_dedicated_allocate_info_tensor_arm {
            Some(d) => {
                let size = d.tensor.requirements().size;
                ensure!(
                    info.allocation_size == size,
                    "VUID-VkMemoryDedicatedAllocateInfoTensorARM-allocationSize-09710",
                    "allocationSize {} differs from the tensor's memory requirement {size}",
                    info.allocation_size
                );
                Some(Arc::as_ptr(&d.tensor) as usize)
            }
            None => None,
        };
        let memory = self.allocate_memory(info.allocation_size, info.memory_type_index)?;
        if let Some(key) = dedicated {
            memory.set_dedicated_to(key);
        }
        Ok(memory)
    }

    /// `vkCreateBuffer` (and the buffer `vkGetDeviceBufferMemoryRequirements` describes).
    ///
    /// # Errors
    /// `Validation` naming the rule broken; `OutOfDeviceMemory` for a buffer larger than
    /// `maxBufferSize`.
    pub fn create_buffer(&self, info: &vk::BufferCreateInfo) -> Result<crate::buffer::Buffer> {
        let sparse = VK_BUFFER_CREATE_SPARSE_BINDING_BIT
            | VK_BUFFER_CREATE_SPARSE_RESIDENCY_BIT
            | VK_BUFFER_CREATE_SPARSE_ALIASED_BIT;
        ensure!(
            info.flags & sparse == 0,
            "VUID-VkBufferCreateInfo-flags-00915",
            "sparse buffers are not supported (sparseBinding is VK_FALSE)"
        );
        ensure!(
            info.flags & VK_BUFFER_CREATE_PROTECTED_BIT == 0,
            "VUID-VkBufferCreateInfo-flags-01887",
            "protected memory is not supported"
        );
        if info.sharing_mode == VK_SHARING_MODE_CONCURRENT {
            let families = self.physical.queue_families().len() as u32;
            ensure!(
                info.queue_family_indices.iter().all(|f| *f < families),
                "VUID-VkBufferCreateInfo-sharingMode-01419",
                "pQueueFamilyIndices names a queue family that does not exist"
            );
        }
        let usage = info
            .buffer_usage_flags2_create_info
            .as_ref()
            .map_or(u64::from(info.usage), |u| u.usage);
        crate::buffer::Buffer::new(info.size, usage)
    }

    /// `vkQueueSubmit(2)` of `batches` to `queue` (see [`Queue::submit_batches`]).
    ///
    /// # Errors
    /// `Validation` naming the rule broken (nothing is queued then); `DeviceLost`.
    pub fn submit(
        &self,
        queue: &Queue,
        batches: Vec<SubmitBatch>,
        fence: Option<Arc<Fence>>,
    ) -> Result<()> {
        queue.submit_batches(batches, fence)
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
        let pool = CommandPool::new(Default::default(), false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("fill", |r| {
            r.push(({ Command::fill_buffer(a.clone(), 0, None, 0xAABB_CCDD) })?);
            Ok(())
        });
        cb.record("copy", |r| {
            r.push(
                ({
                    Command::copy_buffer(
                        a.clone(),
                        b.clone(),
                        vec![BufferCopy {
                            src_offset: 8,
                            dst_offset: 16,
                            size: 8,
                        }],
                    )
                })?,
            );
            Ok(())
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
        let pool = CommandPool::new(Default::default(), false);
        let sem = Arc::new(Semaphore::new(
            dev.hub().clone(),
            SemaphoreKind::Timeline,
            0,
        ));
        let copy = pool.allocate(Level::Primary);
        copy.begin(UsageFlags::default()).unwrap();
        copy.record("copy", |r| {
            r.push(
                ({
                    Command::copy_buffer(
                        a.clone(),
                        b.clone(),
                        vec![BufferCopy {
                            src_offset: 0,
                            dst_offset: 0,
                            size: 16,
                        }],
                    )
                })?,
            );
            Ok(())
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
        let pool = CommandPool::new(Default::default(), false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("cmd", |r| {
            r.push((Ok(cmd))?);
            Ok(())
        });
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
        let pool = CommandPool::new(Default::default(), false);
        let cb = pool.allocate(Level::Primary);
        cb.begin(UsageFlags::default()).unwrap();
        cb.record("wait", |r| {
            r.push(
                ({
                    Ok(Command::WaitEvents {
                        events: vec![event.clone()].into(),
                    })
                })?,
            );
            Ok(())
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
        let pool = CommandPool::new(Default::default(), false);
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
