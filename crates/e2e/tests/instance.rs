//! Instance-level behaviour: enumeration, properties, features, queue
//! families, memory and format queries of the Tessera physical device.

use std::ptr;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

/// An instance plus the Tessera physical device (destroyed on drop).
struct Inst {
    _entry: Entry,
    instance: Instance,
    pd: vk::PhysicalDevice,
}

impl Inst {
    fn new() -> Self {
        let entry = entry();
        let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
        let pd = tessera_physical_device(&instance);
        Self {
            _entry: entry,
            instance,
            pd,
        }
    }
}

impl Drop for Inst {
    fn drop(&mut self) {
        // SAFETY: no child objects remain.
        unsafe { self.instance.destroy_instance(None) };
    }
}

#[test]
fn exactly_one_tessera_cpu_device() {
    let inst = Inst::new();
    // SAFETY: live instance and physical device.
    let (devices, props) = unsafe {
        (
            inst.instance
                .enumerate_physical_devices()
                .expect("enumerate"),
            inst.instance.get_physical_device_properties(inst.pd),
        )
    };
    assert_eq!(devices.len(), 1, "expected exactly one physical device");
    let name = device_name(&props);
    assert!(name.starts_with("Tessera"), "device name {name:?}");
    assert_eq!(props.device_type, vk::PhysicalDeviceType::CPU);
    assert!(
        props.api_version >= API_1_3,
        "apiVersion {:#x}",
        props.api_version
    );
    assert_eq!(vk::version_major(props.api_version), 1);
    assert_eq!(vk::version_minor(props.api_version), 3);
    assert_ne!(props.vendor_id, 0, "vendorID must be non-zero");
}

#[test]
fn enumerate_physical_devices_two_call_idiom() {
    let inst = Inst::new();
    let enumerate = inst.instance.commands().enumerate_physical_devices;
    let handle = inst.instance.handle();
    let mut count = 0u32;
    // SAFETY: count query with a NULL array.
    let r = unsafe { enumerate(handle, &mut count, ptr::null_mut()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(count, 1);

    let mut devices = [vk::PhysicalDevice::null(); 2];
    let mut short = 0u32;
    // SAFETY: `devices` has room for `short` (0) handles.
    let r = unsafe { enumerate(handle, &mut short, devices.as_mut_ptr()) };
    assert_eq!(r, vk::Result::INCOMPLETE, "array of 0 for 1 device");
    assert_eq!(short, 0);

    let mut full = 2u32;
    // SAFETY: `devices` has room for 2 handles.
    let r = unsafe { enumerate(handle, &mut full, devices.as_mut_ptr()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(full, 1);
    assert_eq!(devices[0], inst.pd);
}

#[test]
fn physical_device_groups() {
    let inst = Inst::new();
    // SAFETY: live instance.
    let groups = unsafe { inst.instance.enumerate_physical_device_groups() }.expect("groups");
    assert_eq!(groups.len(), 1, "one device group");
    assert_eq!(groups[0].physical_device_count, 1);
    assert_eq!(groups[0].physical_devices[0], inst.pd);

    let raw = inst.instance.commands().enumerate_physical_device_groups;
    let mut count = 0;
    // SAFETY: count query with a NULL array.
    let r = unsafe { raw(inst.instance.handle(), &mut count, ptr::null_mut()) };
    assert_eq!((r, count), (vk::Result::SUCCESS, 1));
}

#[test]
fn instance_extensions_include_properties2() {
    let entry = entry();
    // SAFETY: global command.
    let exts = unsafe { entry.enumerate_instance_extension_properties(None) }.expect("exts");
    let names: Vec<String> = exts
        .iter()
        .map(|e| e.extension_name.to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "VK_KHR_get_physical_device_properties2"),
        "instance extensions: {names:?}"
    );

    // Two-call idiom through the raw command (the loader merges lists).
    let raw = entry.commands().enumerate_instance_extension_properties;
    let mut count = 0;
    // SAFETY: count query with a NULL array.
    let r = unsafe { raw(ptr::null(), &mut count, ptr::null_mut()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(count as usize, names.len());
    let mut short = vec![vk::ExtensionProperties::default(); count as usize];
    let mut short_count = count - 1;
    // SAFETY: `short` has room for `short_count` entries.
    let r = unsafe { raw(ptr::null(), &mut short_count, short.as_mut_ptr()) };
    assert_eq!(r, vk::Result::INCOMPLETE);
    assert_eq!(short_count, count - 1);
}

#[test]
fn device_extensions_listed_with_two_call_idiom() {
    let inst = Inst::new();
    let names = device_extension_names(&inst.instance, inst.pd);
    for wanted in REQUIRED_DEVICE_EXTENSIONS {
        assert!(
            names.iter().any(|n| n == wanted),
            "{wanted} missing from {names:?}"
        );
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "duplicate extensions: {names:?}");

    let raw = inst
        .instance
        .commands()
        .enumerate_device_extension_properties;
    let mut count = 0;
    // SAFETY: count query with a NULL array.
    let r = unsafe { raw(inst.pd, ptr::null(), &mut count, ptr::null_mut()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(count as usize, names.len());
    let mut props = vec![vk::ExtensionProperties::default(); count as usize];
    let mut short = count - 1;
    // SAFETY: `props` has room for `short` entries.
    let r = unsafe { raw(inst.pd, ptr::null(), &mut short, props.as_mut_ptr()) };
    assert_eq!(r, vk::Result::INCOMPLETE);
    assert_eq!(short, count - 1);
    assert!(
        props[..short as usize]
            .iter()
            .all(|p| p.spec_version > 0 && !p.extension_name.to_string_lossy().is_empty())
    );
    let mut full = count;
    // SAFETY: `props` has room for `full` entries.
    let r = unsafe { raw(inst.pd, ptr::null(), &mut full, props.as_mut_ptr()) };
    assert_eq!((r, full), (vk::Result::SUCCESS, count));
}

#[test]
fn properties2_chain_reports_limits() {
    let inst = Inst::new();
    let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut p13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::builder()
        .push_next(&mut p11)
        .push_next(&mut p12)
        .push_next(&mut p13);
    // SAFETY: valid, writable output chain.
    let props1 = unsafe {
        inst.instance
            .get_physical_device_properties2(inst.pd, &mut props2);
        inst.instance.get_physical_device_properties(inst.pd)
    };
    let props = props2.properties;
    assert_eq!(device_name(&props), device_name(&props1));
    assert_eq!(props.api_version, props1.api_version);
    assert_eq!(props.device_type, vk::PhysicalDeviceType::CPU);

    assert!(
        p11.max_memory_allocation_size > 1 << 30,
        "maxMemoryAllocationSize {}",
        p11.max_memory_allocation_size
    );
    assert_ne!(p11.subgroup_size, 0, "subgroupSize");
    assert_ne!(p11.max_per_set_descriptors, 0, "maxPerSetDescriptors");
    assert!(
        p12.max_timeline_semaphore_value_difference >= (1 << 31) - 1,
        "maxTimelineSemaphoreValueDifference {}",
        p12.max_timeline_semaphore_value_difference
    );
    assert_eq!(p12.driver_name.to_string_lossy(), "Tessera");
    let cv = p12.conformance_version;
    assert_eq!(
        (cv.major, cv.minor, cv.subminor, cv.patch),
        (0, 0, 0, 0),
        "not a conformant driver"
    );
    assert_ne!(p13.max_compute_workgroup_subgroups, 0);
    assert_ne!(p13.max_subgroup_size, 0);
    assert!(p13.min_subgroup_size <= p13.max_subgroup_size);
    assert!(p13.max_buffer_size > 1 << 30, "maxBufferSize");

    let limits = props.limits;
    assert!(limits.max_compute_work_group_count[0] >= 1_000_000);
    assert!(limits.max_compute_work_group_count[1] >= 65_535);
    assert!(limits.max_compute_work_group_count[2] >= 65_535);
    assert!(limits.max_storage_buffer_range >= (1 << 31) - 1);
    assert!(limits.timestamp_period > 0.0);
    assert!(limits.max_compute_work_group_invocations >= 128);
    assert!(limits.max_bound_descriptor_sets >= 4);
    assert!(limits.non_coherent_atom_size.is_power_of_two());
}

/// Queries `T` (a property struct) once over 0x00 bytes and once over 0xFF bytes: every member
/// must be written, so both results are the same (the CTS's "initialization" check).
fn query_both_patterns<T: Copy + vk::ExtendsPhysicalDeviceProperties2 + vk::Cast<Target = T>>(
    inst: &Inst,
    make: impl Fn() -> T,
) -> (Vec<u8>, Vec<u8>) {
    let mut out = Vec::new();
    for fill in [0x00u8, 0xFF] {
        let mut v = make();
        let (s_type_next, size) = (16, std::mem::size_of::<T>());
        // SAFETY: `T` is a plain C struct; bytes after sType/pNext are overwritten with a pattern
        // the driver must replace, then read back as bytes.
        unsafe {
            let bytes = std::slice::from_raw_parts_mut((&mut v as *mut T).cast::<u8>(), size);
            bytes[s_type_next..].fill(fill);
        }
        let mut props2 = vk::PhysicalDeviceProperties2::builder().push_next(&mut v);
        // SAFETY: valid, writable output chain.
        unsafe {
            inst.instance
                .get_physical_device_properties2(inst.pd, &mut props2)
        };
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts((&v as *const T).cast::<u8>(), size) };
        out.push(bytes[16..].to_vec());
    }
    (out.remove(0), out.remove(0))
}

#[test]
fn aggregate_properties_write_every_member() {
    let inst = Inst::new();
    let (a, b) = query_both_patterns(&inst, vk::PhysicalDeviceVulkan11Properties::default);
    assert_eq!(a, b, "VkPhysicalDeviceVulkan11Properties");
    let (a, b) = query_both_patterns(&inst, vk::PhysicalDeviceVulkan12Properties::default);
    assert_eq!(a, b, "VkPhysicalDeviceVulkan12Properties");
    let (a, b) = query_both_patterns(&inst, vk::PhysicalDeviceVulkan13Properties::default);
    assert_eq!(a, b, "VkPhysicalDeviceVulkan13Properties");
}

/// Structs promoted to 1.2/1.3 report what the aggregate structs report.
#[test]
fn promoted_structs_match_the_aggregates() {
    let inst = Inst::new();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut di = vk::PhysicalDeviceDescriptorIndexingFeatures::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::builder()
        .push_next(&mut f12)
        .push_next(&mut di);
    // SAFETY: valid, writable output chain.
    unsafe {
        inst.instance
            .get_physical_device_features2(inst.pd, &mut f2)
    };
    assert_eq!(di.runtime_descriptor_array, f12.runtime_descriptor_array);
    assert_eq!(
        di.descriptor_binding_partially_bound,
        f12.descriptor_binding_partially_bound
    );
    assert_eq!(
        di.descriptor_binding_storage_buffer_update_after_bind,
        f12.descriptor_binding_storage_buffer_update_after_bind
    );
    let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut p13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut dip = vk::PhysicalDeviceDescriptorIndexingProperties::default();
    let mut dsr = vk::PhysicalDeviceDepthStencilResolveProperties::default();
    let mut idp = vk::PhysicalDeviceShaderIntegerDotProductProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::builder()
        .push_next(&mut p12)
        .push_next(&mut p13)
        .push_next(&mut dip)
        .push_next(&mut dsr)
        .push_next(&mut idp);
    // SAFETY: valid, writable output chain.
    unsafe {
        inst.instance
            .get_physical_device_properties2(inst.pd, &mut p2)
    };
    assert_eq!(
        dip.max_update_after_bind_descriptors_in_all_pools,
        p12.max_update_after_bind_descriptors_in_all_pools
    );
    assert_eq!(
        dip.max_descriptor_set_update_after_bind_storage_buffers,
        p12.max_descriptor_set_update_after_bind_storage_buffers
    );
    assert_eq!(dsr.independent_resolve, p12.independent_resolve);
    assert_eq!(
        idp.integer_dot_product_8bit_signed_accelerated,
        p13.integer_dot_product_8bit_signed_accelerated
    );
}

#[test]
fn driver_properties_name_tessera() {
    let inst = Inst::new();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::builder().push_next(&mut driver);
    // SAFETY: valid, writable output chain.
    unsafe {
        inst.instance
            .get_physical_device_properties2(inst.pd, &mut props2)
    };
    assert_eq!(driver.driver_name.to_string_lossy(), "Tessera");
    let cv = driver.conformance_version;
    assert_eq!((cv.major, cv.minor, cv.subminor, cv.patch), (0, 0, 0, 0));
}

#[test]
fn features2_chain_reports_compute_features() {
    let inst = Inst::new();
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::builder()
        .push_next(&mut f11)
        .push_next(&mut f12)
        .push_next(&mut f13);
    // SAFETY: valid, writable output chain.
    let f1 = unsafe {
        inst.instance
            .get_physical_device_features2(inst.pd, &mut f2);
        inst.instance.get_physical_device_features(inst.pd)
    };
    let f = f2.features;
    assert_eq!(f, f1, "vkGetPhysicalDeviceFeatures and Features2 disagree");
    let on = |v: vk::Bool32| v == vk::TRUE;
    let required = [
        ("robustBufferAccess", f.robust_buffer_access),
        ("shaderInt64", f.shader_int64),
        ("shaderInt16", f.shader_int16),
        ("shaderFloat64", f.shader_float64),
        ("storageBuffer16BitAccess", f11.storage_buffer_16bit_access),
        ("shaderInt8", f12.shader_int8),
        ("shaderFloat16", f12.shader_float16),
        ("storageBuffer8BitAccess", f12.storage_buffer_8bit_access),
        (
            "uniformAndStorageBuffer8BitAccess",
            f12.uniform_and_storage_buffer_8bit_access,
        ),
        ("hostQueryReset", f12.host_query_reset),
        ("timelineSemaphore", f12.timeline_semaphore),
        ("bufferDeviceAddress", f12.buffer_device_address),
        ("vulkanMemoryModel", f12.vulkan_memory_model),
        (
            "vulkanMemoryModelDeviceScope",
            f12.vulkan_memory_model_device_scope,
        ),
        ("synchronization2", f13.synchronization2),
        ("maintenance4", f13.maintenance4),
        (
            "pipelineCreationCacheControl",
            f13.pipeline_creation_cache_control,
        ),
        ("privateData", f13.private_data),
    ];
    let missing: Vec<_> = required
        .iter()
        .filter(|(_, v)| !on(*v))
        .map(|(n, _)| *n)
        .collect();
    assert!(missing.is_empty(), "features not reported: {missing:?}");

    let graphics = [
        ("geometryShader", f.geometry_shader),
        ("tessellationShader", f.tessellation_shader),
        ("sparseBinding", f.sparse_binding),
    ];
    let present: Vec<_> = graphics
        .iter()
        .filter(|(_, v)| on(*v))
        .map(|(n, _)| *n)
        .collect();
    assert!(
        present.is_empty(),
        "unsupported features reported: {present:?}"
    );
}

#[test]
fn single_compute_transfer_queue_family() {
    let inst = Inst::new();
    // SAFETY: live physical device.
    let families = unsafe {
        inst.instance
            .get_physical_device_queue_family_properties(inst.pd)
    };
    assert_eq!(families.len(), 1, "exactly one queue family");
    let f = families[0];
    assert!(
        f.queue_flags
            .contains(vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER),
        "flags {:?}",
        f.queue_flags
    );
    assert!(!f.queue_flags.contains(vk::QueueFlags::GRAPHICS));
    assert!(f.queue_count >= 2, "queueCount {}", f.queue_count);
    assert_eq!(f.timestamp_valid_bits, 64);
    let g = f.min_image_transfer_granularity;
    assert_eq!((g.width, g.height, g.depth), (1, 1, 1));

    // The command is void: a short array is just truncated.
    let raw = inst
        .instance
        .commands()
        .get_physical_device_queue_family_properties;
    let mut props = [vk::QueueFamilyProperties::default(); 2];
    let mut zero = 0;
    // SAFETY: `props` has room for `zero` (0) entries.
    unsafe { raw(inst.pd, &mut zero, props.as_mut_ptr()) };
    assert_eq!(zero, 0);
    assert_eq!(
        props[0].queue_count, 0,
        "nothing written into a 0-sized array"
    );
    let mut two = 2;
    // SAFETY: `props` has room for 2 entries.
    unsafe { raw(inst.pd, &mut two, props.as_mut_ptr()) };
    assert_eq!(two, 1);
    assert_eq!(props[0], f);

    // SAFETY: live physical device.
    let families2 = unsafe {
        inst.instance
            .get_physical_device_queue_family_properties2(inst.pd)
    };
    assert_eq!(families2.len(), 1);
    assert_eq!(families2[0].queue_family_properties, f);
}

#[test]
fn memory_heap_and_types() {
    let inst = Inst::new();
    // SAFETY: live physical device.
    let mem = unsafe { inst.instance.get_physical_device_memory_properties(inst.pd) };
    assert!(mem.memory_heap_count >= 1);
    let heaps = &mem.memory_heaps[..mem.memory_heap_count as usize];
    assert!(
        heaps
            .iter()
            .any(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL) && h.size > 0),
        "a DEVICE_LOCAL heap: {heaps:?}"
    );
    let types = &mem.memory_types[..mem.memory_type_count as usize];
    assert!(!types.is_empty());
    for t in types {
        assert!(t.heap_index < mem.memory_heap_count);
    }
    let all = vk::MemoryPropertyFlags::DEVICE_LOCAL
        | vk::MemoryPropertyFlags::HOST_VISIBLE
        | vk::MemoryPropertyFlags::HOST_COHERENT
        | vk::MemoryPropertyFlags::HOST_CACHED;
    assert!(
        find_memory_type(&mem, !0, all).is_some(),
        "a DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED type: {types:?}"
    );

    let mut mem2 = vk::PhysicalDeviceMemoryProperties2::default();
    // SAFETY: valid, writable output struct.
    unsafe {
        inst.instance
            .get_physical_device_memory_properties2(inst.pd, &mut mem2)
    };
    let m2 = mem2.memory_properties;
    assert_eq!(m2.memory_type_count, mem.memory_type_count);
    assert_eq!(m2.memory_heap_count, mem.memory_heap_count);
    assert_eq!(&m2.memory_types[..types.len()], types);
    assert_eq!(&m2.memory_heaps[..heaps.len()], heaps);
}

#[test]
fn format_properties_are_empty_for_now() {
    let inst = Inst::new();
    for format in [
        vk::Format::R8G8B8A8_UNORM,
        vk::Format::R32_SFLOAT,
        vk::Format::R32G32B32A32_SFLOAT,
        vk::Format::D32_SFLOAT,
    ] {
        // SAFETY: live physical device.
        let p = unsafe {
            inst.instance
                .get_physical_device_format_properties(inst.pd, format)
        };
        assert_eq!(p, vk::FormatProperties::default(), "{format:?}");

        let mut p3 = vk::FormatProperties3 {
            linear_tiling_features: vk::FormatFeatureFlags2::all(),
            optimal_tiling_features: vk::FormatFeatureFlags2::all(),
            buffer_features: vk::FormatFeatureFlags2::all(),
            ..Default::default()
        };
        let mut p2 = vk::FormatProperties2::builder().push_next(&mut p3);
        // SAFETY: valid, writable output chain.
        unsafe {
            inst.instance
                .get_physical_device_format_properties2(inst.pd, format, &mut p2)
        };
        assert_eq!(p2.format_properties, vk::FormatProperties::default());
        assert!(p3.linear_tiling_features.is_empty(), "{format:?}");
        assert!(p3.optimal_tiling_features.is_empty(), "{format:?}");
        assert!(p3.buffer_features.is_empty(), "{format:?}");
    }
}

#[test]
fn image_format_properties_not_supported() {
    let inst = Inst::new();
    // SAFETY: live physical device; valid enum arguments.
    let r = unsafe {
        inst.instance.get_physical_device_image_format_properties(
            inst.pd,
            vk::Format::R8G8B8A8_UNORM,
            vk::ImageType::_2D,
            vk::ImageTiling::OPTIMAL,
            vk::ImageUsageFlags::TRANSFER_DST,
            vk::ImageCreateFlags::empty(),
        )
    };
    assert_eq!(r, Err(vk::ErrorCode::FORMAT_NOT_SUPPORTED));
}

#[test]
fn tool_properties_enumerate() {
    let inst = Inst::new();
    // SAFETY: live physical device.
    let tools = unsafe { inst.instance.get_physical_device_tool_properties(inst.pd) }
        .expect("vkGetPhysicalDeviceToolProperties");
    let raw = inst.instance.commands().get_physical_device_tool_properties;
    let mut count = 0;
    // SAFETY: count query with a NULL array.
    let r = unsafe { raw(inst.pd, &mut count, ptr::null_mut()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(count as usize, tools.len());
}
