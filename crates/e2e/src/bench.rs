//! A device for the benchmarks: Tessera by default, or any ICD named by `TESSERA_BENCH_ICD`
//! (e.g. lavapipe with Arm's ML emulation layers, whose layers come from the usual loader
//! variables), so the same bench measures both drivers in one session.

use std::ffi::CString;

use vulkanalia::loader::{LIBRARY, LibloadingLoader};
use vulkanalia::prelude::v1_3::*;

use crate::{
    ARM_TENSORS_EXTENSION_NAME, create_instance, device_extension_names, device_name,
    find_memory_type, setup_env, zero_tail_padding,
};

/// `VK_ARM_data_graph`.
pub const DATA_GRAPH_EXTENSION_NAME: &str = "VK_ARM_data_graph";
/// `VK_KHR_cooperative_matrix`.
pub const COOPERATIVE_MATRIX_EXTENSION_NAME: &str = "VK_KHR_cooperative_matrix";
/// `VK_NV_cooperative_vector`.
pub const COOPERATIVE_VECTOR_EXTENSION_NAME: &str = "VK_NV_cooperative_vector";

/// A device with `VK_ARM_tensors` and synchronization2 (and, from [`BenchGpu::open_data_graph`],
/// `VK_ARM_data_graph`), one compute queue, a command pool and a fence, on whichever driver the
/// environment selects. Dropping it destroys everything.
///
/// The shader arithmetic and storage features that shaders of the benches and of the
/// `spirv-tests` corpus use are enabled where the driver reports them: `shaderInt8/16/64`,
/// `shaderFloat16/64`, 8- and 16-bit storage, `vulkanMemoryModel`, and `VK_KHR_shader_bfloat16`,
/// `VK_EXT_shader_float8`, `VK_KHR_cooperative_matrix` and `VK_NV_cooperative_vector` (with
/// their features) when advertised.
pub struct BenchGpu {
    _entry: Entry,
    /// The instance.
    pub instance: Instance,
    /// The device.
    pub device: Device,
    /// Queue 0 of the first compute family.
    pub queue: vk::Queue,
    /// The physical device's memory properties.
    pub memory_properties: vk::PhysicalDeviceMemoryProperties,
    /// A command pool on the queue's family.
    pub pool: vk::CommandPool,
    /// An unsignalled fence.
    pub fence: vk::Fence,
    /// The device name.
    pub name: String,
    /// The tensor features the driver reports (what the bench may enable).
    pub supported: vk::PhysicalDeviceTensorFeaturesARM,
    /// The subgroup size (`VkPhysicalDeviceSubgroupProperties::subgroupSize`).
    pub subgroup_size: u32,
    /// Whether `VK_ARM_tensors` is enabled (always, but for [`BenchGpu::open_any`] on a driver
    /// without it).
    pub tensors: bool,
    /// The device extensions enabled (`VK_ARM_tensors`, the optional shader types and, for
    /// [`BenchGpu::open_data_graph`], `VK_ARM_data_graph` and its dependencies).
    pub extensions: Vec<String>,
}

impl std::fmt::Debug for BenchGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchGpu")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl BenchGpu {
    /// Opens the device, enabling the tensor features `enable` picks from the reported ones
    /// (`tensors` is always enabled).
    pub fn open(
        enable: impl FnOnce(&vk::PhysicalDeviceTensorFeaturesARM) -> vk::PhysicalDeviceTensorFeaturesARM,
    ) -> BenchGpu {
        Self::open_with(enable, false, true)
    }

    /// [`BenchGpu::open`] on a driver that may have no `VK_ARM_tensors` (a GPU's, for the
    /// cooperative benches): the first device with it, else the first device, without tensors
    /// ([`BenchGpu::tensors`] says which).
    pub fn open_any() -> BenchGpu {
        Self::open_with(
            |_| vk::PhysicalDeviceTensorFeaturesARM::default(),
            false,
            false,
        )
    }

    /// [`BenchGpu::open`] plus `VK_ARM_data_graph` (and `VK_KHR_maintenance5` and
    /// `VK_KHR_deferred_host_operations`, where advertised) with the features `dataGraph`,
    /// `dataGraphShaderModule` and `maintenance5` (where reported), on a queue family with
    /// both COMPUTE and DATA_GRAPH_ARM.
    ///
    /// # Panics
    /// When the driver (or layer) has no `VK_ARM_data_graph`, does not report `dataGraph`, or
    /// has no such queue family.
    pub fn open_data_graph(
        enable: impl FnOnce(&vk::PhysicalDeviceTensorFeaturesARM) -> vk::PhysicalDeviceTensorFeaturesARM,
    ) -> BenchGpu {
        Self::open_with(enable, true, true)
    }

    fn open_with(
        enable: impl FnOnce(&vk::PhysicalDeviceTensorFeaturesARM) -> vk::PhysicalDeviceTensorFeaturesARM,
        data_graph: bool,
        need_tensors: bool,
    ) -> BenchGpu {
        match std::env::var_os("TESSERA_BENCH_ICD") {
            Some(manifest) => {
                for key in ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"] {
                    // SAFETY: single-threaded, before the loader is loaded.
                    unsafe { std::env::set_var(key, &manifest) };
                }
            }
            None => setup_env(),
        }
        // SAFETY: loading the system Vulkan loader runs only its initialisers.
        let loader = unsafe { LibloadingLoader::new(LIBRARY) }.expect("load the Vulkan loader");
        // SAFETY: the loader exports vkGetInstanceProcAddr.
        let entry = unsafe { Entry::new(loader) }.expect("Vulkan entry points");
        let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
        // SAFETY: live instance.
        let devices = unsafe { instance.enumerate_physical_devices() }.expect("physical devices");
        let pd = devices
            .iter()
            .copied()
            .find(|&pd| {
                let names = device_extension_names(&instance, pd);
                names.iter().any(|e| e == ARM_TENSORS_EXTENSION_NAME)
                    && (!data_graph || names.iter().any(|e| e == DATA_GRAPH_EXTENSION_NAME))
            })
            .or_else(|| devices.first().copied().filter(|_| !need_tensors))
            .unwrap_or_else(|| {
                panic!(
                    "a physical device with VK_ARM_tensors{} (is the emulation layer enabled?)",
                    if data_graph {
                        " and VK_ARM_data_graph"
                    } else {
                        ""
                    }
                )
            });
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::builder().push_next(&mut subgroup);
        // SAFETY: `pd` belongs to `instance`; valid, writable chain.
        unsafe { instance.get_physical_device_properties2(pd, &mut props2) };
        let subgroup_size = subgroup.subgroup_size;
        // SAFETY: `pd` belongs to `instance`.
        let (props, memory_properties, families) = unsafe {
            (
                instance.get_physical_device_properties(pd),
                instance.get_physical_device_memory_properties(pd),
                instance.get_physical_device_queue_family_properties(pd),
            )
        };
        let wanted = if data_graph {
            vk::QueueFlags::COMPUTE | vk::QueueFlags::DATA_GRAPH_ARM
        } else {
            vk::QueueFlags::COMPUTE
        };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(wanted))
            .unwrap_or_else(|| panic!("a queue family with {wanted:?}"))
            as u32;
        let advertised = device_extension_names(&instance, pd);
        let tensors = advertised.iter().any(|e| e == ARM_TENSORS_EXTENSION_NAME);
        let mut supported = vk::PhysicalDeviceTensorFeaturesARM::default();
        let mut s11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut s12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::builder()
            .push_next(&mut s11)
            .push_next(&mut s12);
        if tensors {
            f2 = f2.push_next(&mut supported);
        }
        // SAFETY: valid, writable chain.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        let s10 = f2.features;
        supported.next = std::ptr::null_mut();
        let mut enabled = vk::PhysicalDeviceTensorFeaturesARM {
            tensors: vk::TRUE,
            next: std::ptr::null_mut(),
            ..enable(&supported)
        };
        let mut sync2 = vk::PhysicalDeviceVulkan13Features {
            synchronization2: vk::TRUE,
            ..Default::default()
        };
        zero_tail_padding(
            &mut sync2,
            std::mem::offset_of!(vk::PhysicalDeviceVulkan13Features, maintenance4) + 4,
        );
        // The shader features, where reported.
        let e10 = vk::PhysicalDeviceFeatures {
            shader_float64: s10.shader_float64,
            shader_int64: s10.shader_int64,
            shader_int16: s10.shader_int16,
            ..Default::default()
        };
        let mut e11 = vk::PhysicalDeviceVulkan11Features {
            storage_buffer_16bit_access: s11.storage_buffer_16bit_access,
            uniform_and_storage_buffer_16bit_access: s11.uniform_and_storage_buffer_16bit_access,
            storage_push_constant16: s11.storage_push_constant16,
            ..Default::default()
        };
        let mut e12 = vk::PhysicalDeviceVulkan12Features {
            storage_buffer_8bit_access: s12.storage_buffer_8bit_access,
            uniform_and_storage_buffer_8bit_access: s12.uniform_and_storage_buffer_8bit_access,
            storage_push_constant8: s12.storage_push_constant8,
            shader_float16: s12.shader_float16,
            shader_int8: s12.shader_int8,
            vulkan_memory_model: s12.vulkan_memory_model,
            ..Default::default()
        };
        zero_tail_padding(
            &mut e12,
            std::mem::offset_of!(
                vk::PhysicalDeviceVulkan12Features,
                subgroup_broadcast_dynamic_id
            ) + 4,
        );
        let mut extensions = if tensors {
            vec![ARM_TENSORS_EXTENSION_NAME.to_owned()]
        } else {
            Vec::new()
        };
        if data_graph {
            extensions.push(DATA_GRAPH_EXTENSION_NAME.to_owned());
            for dep in ["VK_KHR_maintenance5", "VK_KHR_deferred_host_operations"] {
                if advertised.iter().any(|e| e == dep) {
                    extensions.push(dep.to_owned());
                }
            }
        }
        for optional in [
            "VK_KHR_shader_bfloat16",
            "VK_EXT_shader_float8",
            COOPERATIVE_MATRIX_EXTENSION_NAME,
            COOPERATIVE_VECTOR_EXTENSION_NAME,
        ] {
            if advertised.iter().any(|e| e == optional) {
                extensions.push(optional.to_owned());
            }
        }
        let has = |name: &str| extensions.iter().any(|e| e == name);
        // What the two optional extensions report (queried only when advertised).
        let mut bf16 = vk::PhysicalDeviceShaderBfloat16FeaturesKHR::default();
        let mut fp8 = vk::PhysicalDeviceShaderFloat8FeaturesEXT::default();
        let mut coopmat = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        let mut coopvec = vk::PhysicalDeviceCooperativeVectorFeaturesNV::default();
        {
            let mut query = vk::PhysicalDeviceFeatures2::builder();
            if has("VK_KHR_shader_bfloat16") {
                query = query.push_next(&mut bf16);
            }
            if has("VK_EXT_shader_float8") {
                query = query.push_next(&mut fp8);
            }
            if has(COOPERATIVE_MATRIX_EXTENSION_NAME) {
                query = query.push_next(&mut coopmat);
            }
            if has(COOPERATIVE_VECTOR_EXTENSION_NAME) {
                query = query.push_next(&mut coopvec);
            }
            // SAFETY: valid, writable chain.
            unsafe { instance.get_physical_device_features2(pd, &mut query) };
        }
        bf16.next = std::ptr::null_mut();
        fp8.next = std::ptr::null_mut();
        coopmat.next = std::ptr::null_mut();
        coopvec.next = std::ptr::null_mut();
        // The data graph features, where reported.
        let mut graph_supported = vk::PhysicalDeviceDataGraphFeaturesARM::default();
        let mut m5_supported = vk::PhysicalDeviceMaintenance5Features::default();
        if data_graph {
            let mut query = vk::PhysicalDeviceFeatures2::builder().push_next(&mut graph_supported);
            if has("VK_KHR_maintenance5") {
                query = query.push_next(&mut m5_supported);
            }
            // SAFETY: valid, writable chain.
            unsafe { instance.get_physical_device_features2(pd, &mut query) };
            assert_eq!(
                graph_supported.data_graph,
                vk::TRUE,
                "the driver reports VK_ARM_data_graph but not its dataGraph feature"
            );
        }
        let mut graph_enabled = vk::PhysicalDeviceDataGraphFeaturesARM {
            data_graph: vk::TRUE,
            data_graph_shader_module: graph_supported.data_graph_shader_module,
            ..Default::default()
        };
        let mut m5_enabled = vk::PhysicalDeviceMaintenance5Features {
            maintenance5: m5_supported.maintenance5,
            ..Default::default()
        };
        let ext_c: Vec<CString> = extensions
            .iter()
            .map(|e| CString::new(e.as_str()).expect("no NUL in an extension name"))
            .collect();
        let ext_ptrs: Vec<_> = ext_c.iter().map(|e| e.as_ptr()).collect();
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::builder()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut info = vk::DeviceCreateInfo::builder()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&ext_ptrs)
            .enabled_features(&e10)
            .push_next(&mut sync2)
            .push_next(&mut e11)
            .push_next(&mut e12);
        if tensors {
            info = info.push_next(&mut enabled);
        }
        if has("VK_KHR_shader_bfloat16") {
            info = info.push_next(&mut bf16);
        }
        if has("VK_EXT_shader_float8") {
            info = info.push_next(&mut fp8);
        }
        if has(COOPERATIVE_MATRIX_EXTENSION_NAME) {
            info = info.push_next(&mut coopmat);
        }
        if has(COOPERATIVE_VECTOR_EXTENSION_NAME) {
            info = info.push_next(&mut coopvec);
        }
        if data_graph {
            info = info.push_next(&mut graph_enabled);
            if has("VK_KHR_maintenance5") {
                info = info.push_next(&mut m5_enabled);
            }
        }
        // SAFETY: `info` and its chain outlive the call.
        let device = unsafe { instance.create_device(pd, &info, None) }.expect("vkCreateDevice");
        // SAFETY: the queue was requested above.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::builder().queue_family_index(family);
        // SAFETY: valid create infos on a live device.
        let (pool, fence) = unsafe {
            (
                device.create_command_pool(&pool_info, None).expect("pool"),
                device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
                    .expect("fence"),
            )
        };
        BenchGpu {
            _entry: entry,
            instance,
            device,
            queue,
            memory_properties,
            pool,
            fence,
            name: device_name(&props),
            supported,
            subgroup_size,
            tensors,
            extensions,
        }
    }

    /// Allocates host-visible, host-coherent memory for `reqs` and maps all of it.
    ///
    /// # Panics
    /// When no such memory type exists or allocation or mapping fails (benchmark set-up).
    pub fn mapped_memory(&self, reqs: vk::MemoryRequirements) -> (vk::DeviceMemory, *mut u8) {
        let ty = find_memory_type(
            &self.memory_properties,
            reqs.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )
        .expect("a host-visible, host-coherent memory type");
        let alloc = vk::MemoryAllocateInfo::builder()
            .allocation_size(reqs.size)
            .memory_type_index(ty);
        // SAFETY: valid allocate info on a live device; the new memory is host-visible and not
        // mapped yet.
        unsafe {
            let memory = self
                .device
                .allocate_memory(&alloc, None)
                .expect("vkAllocateMemory");
            let ptr = self
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .expect("vkMapMemory")
                .cast();
            (memory, ptr)
        }
    }
}

impl Drop for BenchGpu {
    fn drop(&mut self) {
        // SAFETY: everything the benches created from the device was destroyed; the pool and
        // fence are idle.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
