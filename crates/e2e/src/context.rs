//! [`Ctx`]: an instance, the Tessera physical device and a logical device with N queues of the
//! single queue family (features enabled as the device reports them, [`EnabledFeatures`]), and
//! its helpers for buffers, host-visible memory ([`HostBuffer`]), command buffers, sync objects
//! and one-shot submissions. Objects created through a helper are destroyed when the `Ctx`
//! drops (after `vkDeviceWaitIdle`).

use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;

use crate::*;
/// Objects owned by a [`Ctx`], destroyed when it drops.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owned {
    Buffer(vk::Buffer),
    Memory(vk::DeviceMemory),
    CommandPool(vk::CommandPool),
    Fence(vk::Fence),
    Semaphore(vk::Semaphore),
    Event(vk::Event),
    QueryPool(vk::QueryPool),
    PrivateDataSlot(vk::PrivateDataSlot),
    Tensor(vk::TensorARM),
    TensorView(vk::TensorViewARM),
}

/// Features that [`Ctx`] enables when the device reports them.
#[derive(Debug, Default, Clone, Copy)]
pub struct EnabledFeatures {
    /// `timelineSemaphore`.
    pub timeline_semaphore: bool,
    /// `bufferDeviceAddress`.
    pub buffer_device_address: bool,
    /// `hostQueryReset`.
    pub host_query_reset: bool,
    /// `synchronization2`.
    pub synchronization2: bool,
    /// `maintenance4`.
    pub maintenance4: bool,
    /// `privateData`.
    pub private_data: bool,
}

/// An instance + the Tessera physical device + a logical device.
pub struct Ctx {
    /// The loader entry (kept alive for the instance).
    pub entry: Entry,
    /// The Vulkan 1.3 instance.
    pub instance: Instance,
    /// The Tessera physical device.
    pub physical_device: vk::PhysicalDevice,
    /// The logical device.
    pub device: Device,
    /// Index of the (compute + transfer) queue family used.
    pub queue_family: u32,
    /// The device's queues, `queues.len()` as requested.
    pub queues: Vec<vk::Queue>,
    /// A HOST_VISIBLE | HOST_COHERENT memory type index.
    pub memory_type: u32,
    /// Physical device properties.
    pub properties: vk::PhysicalDeviceProperties,
    /// Physical device memory properties.
    pub memory_properties: vk::PhysicalDeviceMemoryProperties,
    /// Device extensions enabled on `device`.
    pub enabled_extensions: Vec<String>,
    /// Features enabled on `device`.
    pub features: EnabledFeatures,
    owned: Mutex<Vec<Owned>>,
}

impl fmt::Debug for Ctx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx")
            .field("device", &device_name(&self.properties))
            .field("queue_family", &self.queue_family)
            .field("queues", &self.queues.len())
            .field("memory_type", &self.memory_type)
            .finish_non_exhaustive()
    }
}

/// A buffer bound to its own host-visible memory, persistently mapped.
pub struct HostBuffer<'a> {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its dedicated memory.
    pub memory: vk::DeviceMemory,
    /// Buffer size in bytes.
    pub size: u64,
    ptr: *mut u8,
    _ctx: PhantomData<&'a Ctx>,
}

impl fmt::Debug for HostBuffer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostBuffer")
            .field("buffer", &self.buffer)
            .field("size", &self.size)
            .finish()
    }
}

impl HostBuffer<'_> {
    /// The mapped bytes (copied out). Only call while no device work writes it.
    pub fn read(&self) -> Vec<u8> {
        // SAFETY: `ptr` maps `size` bytes of HOST_COHERENT memory that lives
        // as long as the owning `Ctx` (which outlives `self`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) }.to_vec()
    }

    /// The mapped contents as native-endian `u32`s.
    pub fn read_u32s(&self) -> Vec<u32> {
        self.read()
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    /// Writes `data` at `offset` through the mapping.
    pub fn write(&self, offset: usize, data: &[u8]) {
        assert!(
            offset + data.len() <= self.size as usize,
            "write out of range"
        );
        // SAFETY: the range was checked against the mapped size above.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset), data.len()) };
    }

    /// Writes `u32`s starting at byte 0.
    pub fn write_u32s(&self, values: &[u32]) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.write(0, &bytes);
    }

    /// Fills the whole buffer with `byte`.
    pub fn fill(&self, byte: u8) {
        // SAFETY: writes exactly the mapped range.
        unsafe { std::ptr::write_bytes(self.ptr, byte, self.size as usize) };
    }
}

impl Ctx {
    /// A context with one queue.
    pub fn new() -> Self {
        Self::with_queues(1)
    }

    /// A context with `queue_count` queues of the Tessera queue family.
    pub fn with_queues(queue_count: u32) -> Self {
        Self::build(queue_count, None).unwrap_or_else(|e| panic!("vkCreateDevice failed: {e:?}"))
    }

    /// A context with one queue and `VK_ARM_tensors` enabled, with the
    /// `tensors` and `tensorNonPacked` features.
    pub fn with_tensors() -> Self {
        Self::with_tensor_features(vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("vkCreateDevice with VK_ARM_tensors failed: {e:?}"))
    }

    /// A context with one queue, `VK_ARM_tensors` enabled and exactly
    /// `features` (its `s_type`/`next` are overwritten) chained to
    /// `VkDeviceCreateInfo`. Returns the `vkCreateDevice` error, if any.
    pub fn with_tensor_features(features: vk::PhysicalDeviceTensorFeaturesARM) -> VkResult<Self> {
        Self::build(1, Some(features))
    }

    /// A context for running arbitrary compute shaders (the `spirv-tests` cases): one queue,
    /// `VK_ARM_tensors` with every tensor shader-access feature, and the shader arithmetic and
    /// 8/16-bit storage features (`shaderInt64`, `shaderFloat64`, `shaderInt16`, `shaderInt8`,
    /// `shaderFloat16`, `storageBuffer8/16BitAccess`, …) the device reports.
    pub fn for_shaders() -> Self {
        let tensors = vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            shader_tensor_access: vk::TRUE,
            shader_storage_tensor_array_dynamic_indexing: vk::TRUE,
            shader_storage_tensor_array_non_uniform_indexing: vk::TRUE,
            ..Default::default()
        };
        Self::build_with(1, Some(tensors), true, false)
            .unwrap_or_else(|e| panic!("vkCreateDevice with shader features failed: {e:?}"))
    }

    /// [`Ctx::for_shaders`] plus `VK_ARM_data_graph` (and its dependencies
    /// `VK_KHR_maintenance5` and `VK_KHR_deferred_host_operations`) with the features
    /// `dataGraph`, `dataGraphShaderModule`, `dataGraphSpecializationConstants` and
    /// `dataGraphUpdateAfterBind`, and `maintenance5`.
    pub fn with_data_graph() -> Self {
        let tensors = vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            tensor_non_packed: vk::TRUE,
            shader_tensor_access: vk::TRUE,
            ..Default::default()
        };
        Self::build_with(1, Some(tensors), true, true)
            .unwrap_or_else(|e| panic!("vkCreateDevice with VK_ARM_data_graph failed: {e:?}"))
    }

    /// Creates the context; `tensor_features` enables `VK_ARM_tensors` and
    /// chains the struct.
    fn build(
        queue_count: u32,
        tensor_features: Option<vk::PhysicalDeviceTensorFeaturesARM>,
    ) -> VkResult<Self> {
        Self::build_with(queue_count, tensor_features, false, false)
    }

    /// [`Ctx::build`]; `shader_features` also enables the supported shader arithmetic and
    /// small-type storage features, `data_graph` the data graph extensions and features.
    fn build_with(
        queue_count: u32,
        tensor_features: Option<vk::PhysicalDeviceTensorFeaturesARM>,
        shader_features: bool,
        data_graph: bool,
    ) -> VkResult<Self> {
        let entry = entry();
        let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
        let physical_device = tessera_physical_device(&instance);
        // SAFETY: `physical_device` belongs to `instance`.
        let (properties, memory_properties, families) = unsafe {
            (
                instance.get_physical_device_properties(physical_device),
                instance.get_physical_device_memory_properties(physical_device),
                instance.get_physical_device_queue_family_properties(physical_device),
            )
        };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .expect("a queue family with COMPUTE") as u32;
        let available = families[queue_family as usize].queue_count;
        assert!(
            queue_count >= 1 && queue_count <= available,
            "Ctx::with_queues({queue_count}): queue family {queue_family} has {available} queues"
        );

        // Enable the wanted extensions and features the device reports.
        let advertised = device_extension_names(&instance, physical_device);
        let mut enabled_extensions: Vec<String> = REQUIRED_DEVICE_EXTENSIONS
            .iter()
            .filter(|e| advertised.iter().any(|a| a == *e))
            .map(|e| e.to_string())
            .collect();
        // Another driver (TESSERA_E2E_DRIVER) may have no tensors: then none are enabled.
        let tensor_features = tensor_features.filter(|_| {
            other_driver().is_none() || advertised.iter().any(|a| a == ARM_TENSORS_EXTENSION_NAME)
        });
        if tensor_features.is_some() {
            enabled_extensions.push(ARM_TENSORS_EXTENSION_NAME.to_owned());
        }
        if data_graph {
            enabled_extensions.extend(
                [
                    "VK_ARM_data_graph",
                    "VK_KHR_maintenance5",
                    "VK_KHR_deferred_host_operations",
                ]
                .map(str::to_owned),
            );
        }
        let ext_c: Vec<CString> = enabled_extensions
            .iter()
            .map(|e| CString::new(e.as_str()).expect("no NUL"))
            .collect();
        let ext_ptrs: Vec<_> = ext_c.iter().map(|e| e.as_ptr()).collect();

        let mut s11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut s12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut s13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut supported = vk::PhysicalDeviceFeatures2::builder()
            .push_next(&mut s11)
            .push_next(&mut s12)
            .push_next(&mut s13);
        // SAFETY: the chain is made of valid, writable structs.
        unsafe { instance.get_physical_device_features2(physical_device, &mut supported) };
        let s10 = supported.features;
        let features = EnabledFeatures {
            timeline_semaphore: s12.timeline_semaphore == vk::TRUE,
            buffer_device_address: s12.buffer_device_address == vk::TRUE,
            host_query_reset: s12.host_query_reset == vk::TRUE,
            synchronization2: s13.synchronization2 == vk::TRUE,
            maintenance4: s13.maintenance4 == vk::TRUE,
            private_data: s13.private_data == vk::TRUE,
        };
        let mut e12 = vk::PhysicalDeviceVulkan12Features {
            timeline_semaphore: features.timeline_semaphore.into(),
            buffer_device_address: features.buffer_device_address.into(),
            host_query_reset: features.host_query_reset.into(),
            ..Default::default()
        };
        // Only the features a shader may need, and only when asked for and supported.
        let want = |b: vk::Bool32| vk::Bool32::from(shader_features && b == vk::TRUE);
        let e10 = vk::PhysicalDeviceFeatures {
            shader_float64: want(s10.shader_float64),
            shader_int64: want(s10.shader_int64),
            shader_int16: want(s10.shader_int16),
            ..Default::default()
        };
        let mut e11 = vk::PhysicalDeviceVulkan11Features {
            storage_buffer_16bit_access: want(s11.storage_buffer_16bit_access),
            uniform_and_storage_buffer_16bit_access: want(
                s11.uniform_and_storage_buffer_16bit_access,
            ),
            storage_push_constant16: want(s11.storage_push_constant16),
            ..Default::default()
        };
        e12.storage_buffer_8bit_access = want(s12.storage_buffer_8bit_access);
        e12.uniform_and_storage_buffer_8bit_access =
            want(s12.uniform_and_storage_buffer_8bit_access);
        e12.storage_push_constant8 = want(s12.storage_push_constant8);
        e12.shader_float16 = want(s12.shader_float16);
        e12.shader_int8 = want(s12.shader_int8);
        e12.vulkan_memory_model = want(s12.vulkan_memory_model);
        e12.scalar_block_layout = want(s12.scalar_block_layout);
        e12.uniform_buffer_standard_layout = want(s12.uniform_buffer_standard_layout);
        e12.shader_subgroup_extended_types = want(s12.shader_subgroup_extended_types);
        let mut e13 = vk::PhysicalDeviceVulkan13Features {
            synchronization2: features.synchronization2.into(),
            maintenance4: features.maintenance4.into(),
            private_data: features.private_data.into(),
            ..Default::default()
        };
        // Both structs end in 4 bytes of tail padding. Give the driver zeros
        // there, so a driver that (wrongly) reads padding cannot make every
        // test flaky; `tests/device.rs` checks that padding is ignored.
        zero_tail_padding(
            &mut e12,
            std::mem::offset_of!(
                vk::PhysicalDeviceVulkan12Features,
                subgroup_broadcast_dynamic_id
            ) + 4,
        );
        zero_tail_padding(
            &mut e13,
            std::mem::offset_of!(vk::PhysicalDeviceVulkan13Features, maintenance4) + 4,
        );
        let priorities = vec![1.0f32; queue_count as usize];
        let queue_info = [vk::DeviceQueueCreateInfo::builder()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let mut tensors = tensor_features.map(|f| vk::PhysicalDeviceTensorFeaturesARM {
            s_type: vk::StructureType::PHYSICAL_DEVICE_TENSOR_FEATURES_ARM,
            next: std::ptr::null_mut(),
            ..f
        });
        let mut info = vk::DeviceCreateInfo::builder()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut e12)
            .push_next(&mut e13);
        if shader_features {
            info = info.enabled_features(&e10).push_next(&mut e11);
        }
        if let Some(t) = tensors.as_mut() {
            info = info.push_next(t);
        }
        let has = |name: &str| enabled_extensions.iter().any(|e| e == name);
        // The optional extensions' features, as far as the device reports them (another
        // driver, under TESSERA_E2E_DRIVER, may lack some).
        let mut bf16_supported = vk::PhysicalDeviceShaderBfloat16FeaturesKHR::default();
        let mut fp8_supported = vk::PhysicalDeviceShaderFloat8FeaturesEXT::default();
        let mut vector_supported = vk::PhysicalDeviceCooperativeVectorFeaturesNV::default();
        let mut matrix_supported = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        {
            let mut query = vk::PhysicalDeviceFeatures2::builder();
            if has("VK_KHR_shader_bfloat16") {
                query = query.push_next(&mut bf16_supported);
            }
            if has("VK_EXT_shader_float8") {
                query = query.push_next(&mut fp8_supported);
            }
            if has("VK_NV_cooperative_vector") {
                query = query.push_next(&mut vector_supported);
            }
            if has("VK_KHR_cooperative_matrix") {
                query = query.push_next(&mut matrix_supported);
            }
            // SAFETY: the chain is made of valid, writable structs of enabled extensions.
            unsafe { instance.get_physical_device_features2(physical_device, &mut query) };
        }
        let mut bf16 = vk::PhysicalDeviceShaderBfloat16FeaturesKHR {
            shader_b_float16_type: bf16_supported.shader_b_float16_type,
            shader_b_float_16dot_product: bf16_supported.shader_b_float_16dot_product,
            shader_b_float16_cooperative_matrix: bf16_supported.shader_b_float16_cooperative_matrix,
            ..Default::default()
        };
        let mut fp8 = vk::PhysicalDeviceShaderFloat8FeaturesEXT {
            shader_float8: fp8_supported.shader_float8,
            ..Default::default()
        };
        if shader_features && has("VK_KHR_shader_bfloat16") {
            info = info.push_next(&mut bf16);
        }
        if shader_features && has("VK_EXT_shader_float8") {
            info = info.push_next(&mut fp8);
        }
        let mut coop_vector = vk::PhysicalDeviceCooperativeVectorFeaturesNV {
            cooperative_vector: vector_supported.cooperative_vector,
            cooperative_vector_training: vector_supported.cooperative_vector_training,
            ..Default::default()
        };
        if shader_features && has("VK_NV_cooperative_vector") {
            info = info.push_next(&mut coop_vector);
        }
        let mut coop_matrix = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR {
            cooperative_matrix: matrix_supported.cooperative_matrix,
            cooperative_matrix_robust_buffer_access: matrix_supported
                .cooperative_matrix_robust_buffer_access,
            ..Default::default()
        };
        if shader_features && has("VK_KHR_cooperative_matrix") {
            info = info.push_next(&mut coop_matrix);
        }
        let mut graph_features = vk::PhysicalDeviceDataGraphFeaturesARM {
            data_graph: vk::TRUE,
            data_graph_shader_module: vk::TRUE,
            data_graph_specialization_constants: vk::TRUE,
            data_graph_update_after_bind: vk::TRUE,
            ..Default::default()
        };
        let mut m5 = vk::PhysicalDeviceMaintenance5Features {
            maintenance5: vk::TRUE,
            ..Default::default()
        };
        if data_graph {
            info = info.push_next(&mut graph_features).push_next(&mut m5);
        }
        let guard = loader_device_lock();
        // SAFETY: `info` and its chain outlive the call.
        let created = unsafe { instance.create_device(physical_device, &info, None) };
        drop(guard);
        let device = match created {
            Ok(device) => device,
            Err(e) => {
                // SAFETY: no child of the instance is alive.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        // SAFETY: the queues were requested at device creation.
        let queues = (0..queue_count)
            .map(|i| unsafe { device.get_device_queue(queue_family, i) })
            .collect();

        let memory_type = find_memory_type(
            &memory_properties,
            !0,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )
        .expect("a HOST_VISIBLE | HOST_COHERENT memory type");

        Ok(Self {
            entry,
            instance,
            physical_device,
            device,
            queue_family,
            queues,
            memory_type,
            properties,
            memory_properties,
            enabled_extensions,
            features,
            owned: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn own(&self, object: Owned) {
        self.owned.lock().expect("owned list").push(object);
    }

    /// The first queue.
    pub fn queue(&self) -> vk::Queue {
        self.queues[0]
    }

    /// Creates a buffer (owned by the context). Panics on failure.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> vk::Buffer {
        let info = vk::BufferCreateInfo::builder()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { self.device.create_buffer(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateBuffer({size}) failed: {e:?}"));
        self.own(Owned::Buffer(buffer));
        buffer
    }

    /// A TRANSFER_SRC | TRANSFER_DST | STORAGE buffer.
    pub fn transfer_buffer(&self, size: u64) -> vk::Buffer {
        self.buffer(
            size,
            vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::STORAGE_BUFFER,
        )
    }

    /// Allocates `size` bytes of `self.memory_type` (owned by the context).
    pub fn memory(&self, size: u64) -> vk::DeviceMemory {
        self.memory_with(size, vk::MemoryAllocateFlags::empty())
    }

    /// Allocates memory with `VkMemoryAllocateFlagsInfo::flags` (e.g. DEVICE_ADDRESS).
    pub fn memory_with(&self, size: u64, flags: vk::MemoryAllocateFlags) -> vk::DeviceMemory {
        let mut flags_info = vk::MemoryAllocateFlagsInfo::builder().flags(flags);
        let mut info = vk::MemoryAllocateInfo::builder()
            .allocation_size(size)
            .memory_type_index(self.memory_type);
        if !flags.is_empty() {
            info = info.push_next(&mut flags_info);
        }
        // SAFETY: valid allocate info on a live device.
        let memory = unsafe { self.device.allocate_memory(&info, None) }
            .unwrap_or_else(|e| panic!("vkAllocateMemory({size}) failed: {e:?}"));
        self.own(Owned::Memory(memory));
        memory
    }

    /// A transfer buffer of `size` bytes bound to its own mapped memory.
    pub fn host_buffer(&self, size: u64) -> HostBuffer<'_> {
        let buffer = self.transfer_buffer(size);
        // SAFETY: `buffer` is a live buffer of this device.
        let reqs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        assert!(
            reqs.memory_type_bits & (1 << self.memory_type) != 0,
            "memory type {} not allowed for buffers (bits {:#x})",
            self.memory_type,
            reqs.memory_type_bits
        );
        let memory = self.memory(reqs.size.max(size));
        // SAFETY: fresh buffer and memory; offset 0 satisfies any alignment.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .unwrap_or_else(|e| panic!("vkBindBufferMemory failed: {e:?}"));
        // SAFETY: host-visible memory, not mapped yet.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap_or_else(|e| panic!("vkMapMemory failed: {e:?}"));
        assert!(!ptr.is_null(), "vkMapMemory returned NULL");
        HostBuffer {
            buffer,
            memory,
            size,
            ptr: ptr.cast(),
            _ctx: PhantomData,
        }
    }

    /// Creates a command pool on the context's queue family (owned).
    pub fn command_pool(&self, flags: vk::CommandPoolCreateFlags) -> vk::CommandPool {
        let info = vk::CommandPoolCreateInfo::builder()
            .flags(flags)
            .queue_family_index(self.queue_family);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { self.device.create_command_pool(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateCommandPool failed: {e:?}"));
        self.own(Owned::CommandPool(pool));
        pool
    }

    /// Allocates `count` command buffers of `level` from `pool`.
    pub fn command_buffers(
        &self,
        pool: vk::CommandPool,
        level: vk::CommandBufferLevel,
        count: u32,
    ) -> Vec<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::builder()
            .command_pool(pool)
            .level(level)
            .command_buffer_count(count);
        // SAFETY: `pool` is a live pool of this device.
        unsafe { self.device.allocate_command_buffers(&info) }
            .unwrap_or_else(|e| panic!("vkAllocateCommandBuffers failed: {e:?}"))
    }

    /// Allocates one primary command buffer from `pool`.
    pub fn command_buffer(&self, pool: vk::CommandPool) -> vk::CommandBuffer {
        self.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 1)[0]
    }

    /// `vkBeginCommandBuffer` with `flags`, panicking on failure.
    pub fn begin(&self, cb: vk::CommandBuffer, flags: vk::CommandBufferUsageFlags) {
        let info = vk::CommandBufferBeginInfo::builder().flags(flags);
        // SAFETY: `cb` is a primary command buffer of this device.
        unsafe { self.device.begin_command_buffer(cb, &info) }
            .unwrap_or_else(|e| panic!("vkBeginCommandBuffer failed: {e:?}"));
    }

    /// `vkEndCommandBuffer`, panicking on failure.
    pub fn end(&self, cb: vk::CommandBuffer) {
        // SAFETY: `cb` is a command buffer of this device.
        unsafe { self.device.end_command_buffer(cb) }
            .unwrap_or_else(|e| panic!("vkEndCommandBuffer failed: {e:?}"));
    }

    /// Creates a fence (owned).
    pub fn fence(&self, signaled: bool) -> vk::Fence {
        let flags = if signaled {
            vk::FenceCreateFlags::SIGNALED
        } else {
            vk::FenceCreateFlags::empty()
        };
        let info = vk::FenceCreateInfo::builder().flags(flags);
        // SAFETY: valid create info on a live device.
        let fence = unsafe { self.device.create_fence(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateFence failed: {e:?}"));
        self.own(Owned::Fence(fence));
        fence
    }

    /// Creates a binary semaphore (owned).
    pub fn semaphore(&self) -> vk::Semaphore {
        let info = vk::SemaphoreCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let semaphore = unsafe { self.device.create_semaphore(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateSemaphore failed: {e:?}"));
        self.own(Owned::Semaphore(semaphore));
        semaphore
    }

    /// Creates a timeline semaphore with `initial` value (owned).
    pub fn timeline_semaphore(&self, initial: u64) -> vk::Semaphore {
        let mut type_info = vk::SemaphoreTypeCreateInfo::builder()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(initial);
        let info = vk::SemaphoreCreateInfo::builder().push_next(&mut type_info);
        // SAFETY: valid create info chain on a live device.
        let semaphore = unsafe { self.device.create_semaphore(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateSemaphore(TIMELINE) failed: {e:?}"));
        self.own(Owned::Semaphore(semaphore));
        semaphore
    }

    /// Creates an event (owned).
    pub fn event(&self) -> vk::Event {
        let info = vk::EventCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let event = unsafe { self.device.create_event(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateEvent failed: {e:?}"));
        self.own(Owned::Event(event));
        event
    }

    /// Creates a TIMESTAMP query pool with `count` queries (owned).
    pub fn timestamp_pool(&self, count: u32) -> vk::QueryPool {
        let info = vk::QueryPoolCreateInfo::builder()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { self.device.create_query_pool(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateQueryPool failed: {e:?}"));
        self.own(Owned::QueryPool(pool));
        pool
    }

    /// Creates a private data slot (owned).
    pub fn private_data_slot(&self) -> vk::PrivateDataSlot {
        let info = vk::PrivateDataSlotCreateInfo::builder();
        // SAFETY: valid create info on a live device.
        let slot = unsafe { self.device.create_private_data_slot(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreatePrivateDataSlot failed: {e:?}"));
        self.own(Owned::PrivateDataSlot(slot));
        slot
    }

    /// `vkQueueSubmit` of `cbs` (no semaphores) signalling `fence`.
    pub fn submit(
        &self,
        queue: vk::Queue,
        cbs: &[vk::CommandBuffer],
        fence: vk::Fence,
    ) -> VkResult<()> {
        let submit = vk::SubmitInfo::builder().command_buffers(cbs);
        // SAFETY: `cbs` are executable command buffers of this device.
        unsafe { self.device.queue_submit(queue, &[submit], fence) }
    }

    /// Waits for `fence`, panicking if it does not signal within [`WAIT_TIMEOUT_NS`].
    pub fn wait(&self, fence: vk::Fence) {
        // SAFETY: `fence` is a live fence of this device.
        let result = unsafe { self.device.wait_for_fences(&[fence], true, WAIT_TIMEOUT_NS) };
        assert_eq!(
            result,
            Ok(vk::SuccessCode::SUCCESS),
            "vkWaitForFences did not report the fence signalled"
        );
    }

    /// Records `record` into a fresh one-time-submit primary command buffer,
    /// submits it on queue 0, and waits for it.
    pub fn run(&self, record: impl FnOnce(&Device, vk::CommandBuffer)) {
        self.run_on(self.queue(), record);
    }

    /// Like [`Ctx::run`] on a chosen queue.
    pub fn run_on(&self, queue: vk::Queue, record: impl FnOnce(&Device, vk::CommandBuffer)) {
        let pool = self.command_pool(vk::CommandPoolCreateFlags::TRANSIENT);
        let cb = self.command_buffer(pool);
        self.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        record(&self.device, cb);
        self.end(cb);
        let fence = self.fence(false);
        self.submit(queue, &[cb], fence)
            .unwrap_or_else(|e| panic!("vkQueueSubmit failed: {e:?}"));
        self.wait(fence);
    }

    /// Buffer device address of `buffer` (needs the feature and usage bit).
    pub fn device_address(&self, buffer: vk::Buffer) -> vk::DeviceAddress {
        let info = vk::BufferDeviceAddressInfo::builder().buffer(buffer);
        // SAFETY: `buffer` is bound to memory allocated with DEVICE_ADDRESS.
        unsafe { self.device.get_buffer_device_address(&info) }
    }

    /// Destroys the device and instance immediately, without
    /// `vkDeviceWaitIdle` and without destroying child objects first: the
    /// "application tears down with work still pending" scenario. The
    /// driver must neither crash nor hang. Child objects are leaked.
    pub fn destroy_without_waiting(self) {
        let this = std::mem::ManuallyDrop::new(self);
        let _guard = loader_device_lock();
        // SAFETY: `this` is never used again and its `Drop` never runs, so
        // the device and instance are destroyed exactly once.
        unsafe {
            this.device.destroy_device(None);
            this.instance.destroy_instance(None);
        }
    }

    /// Looks a device command up with `vkGetDeviceProcAddr`.
    pub fn device_proc_addr(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        let _guard = loader_device_lock();
        // SAFETY: `device` is a live device of `instance`.
        unsafe {
            self.instance
                .get_device_proc_addr(self.device.handle(), name)
        }
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        let owned = std::mem::take(self.owned.get_mut().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: the device waits for all its work before objects are
        // destroyed in reverse creation order; nothing else uses them after.
        unsafe {
            let _ = self.device.device_wait_idle();
            for object in owned.into_iter().rev() {
                match object {
                    Owned::Buffer(b) => self.device.destroy_buffer(b, None),
                    Owned::Memory(m) => self.device.free_memory(m, None),
                    Owned::CommandPool(p) => self.device.destroy_command_pool(p, None),
                    Owned::Fence(f) => self.device.destroy_fence(f, None),
                    Owned::Semaphore(s) => self.device.destroy_semaphore(s, None),
                    Owned::Event(e) => self.device.destroy_event(e, None),
                    Owned::QueryPool(q) => self.device.destroy_query_pool(q, None),
                    Owned::PrivateDataSlot(s) => self.device.destroy_private_data_slot(s, None),
                    Owned::Tensor(t) => self.device.destroy_tensor_arm(t, None),
                    Owned::TensorView(v) => self.device.destroy_tensor_view_arm(v, None),
                }
            }
            let _guard = loader_device_lock();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
