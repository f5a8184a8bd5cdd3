//! `VK_ARM_tensors` end to end, through the Khronos loader: discovery,
//! features, properties, format support, creation and its validation, memory
//! requirements and binding, views, barriers and `vkCmdCopyTensorARM`
//! (every format, ranks 1..8, the CTS shapes, padded strides, optimal
//! tiling, aliasing), with every copied byte checked against a host model.

use std::ffi::{CStr, c_void};

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::{ArmTensorsExtensionDeviceCommands, ArmTensorsExtensionInstanceCommands};

const VALIDATION_FAILED: vk::ErrorCode = vk::ErrorCode::VALIDATION_FAILED;
const LINEAR: vk::TensorTilingARM = vk::TensorTilingARM::LINEAR;
const OPTIMAL: vk::TensorTilingARM = vk::TensorTilingARM::OPTIMAL;
const ALIGNMENT: u64 = 64;

/// The device commands of the extension.
const DEVICE_COMMANDS: &[&CStr] = &[
    c"vkCreateTensorARM",
    c"vkDestroyTensorARM",
    c"vkCreateTensorViewARM",
    c"vkDestroyTensorViewARM",
    c"vkGetTensorMemoryRequirementsARM",
    c"vkBindTensorMemoryARM",
    c"vkGetDeviceTensorMemoryRequirementsARM",
    c"vkCmdCopyTensorARM",
    c"vkGetTensorOpaqueCaptureDescriptorDataARM",
    c"vkGetTensorViewOpaqueCaptureDescriptorDataARM",
];

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// The padding the CTS adds to every outer stride: 13 elements.
fn cts_padded(info: TensorInfo) -> TensorInfo {
    let strides = padded_strides(info.elem(), &info.dims, 13 * info.elem());
    info.with_strides(&strides)
}

// ---------------------------------------------------------------------------
// Discovery, features, properties, formats
// ---------------------------------------------------------------------------

#[test]
fn extension_is_advertised_at_spec_version_2() {
    let entry = entry();
    let instance = create_instance(&entry, &[]).expect("vkCreateInstance");
    let pd = tessera_physical_device(&instance);
    // SAFETY: `pd` belongs to `instance`.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd, None) }
        .expect("vkEnumerateDeviceExtensionProperties");
    let tensors = exts
        .iter()
        .find(|e| e.extension_name.to_string_lossy() == ARM_TENSORS_EXTENSION_NAME)
        .expect("VK_ARM_tensors is advertised");
    assert_eq!(tensors.spec_version, 2, "VK_ARM_tensors spec version");
    // SAFETY: no children are alive.
    unsafe { instance.destroy_instance(None) };
}

#[test]
fn tensor_commands_resolve_through_the_loader() {
    let ctx = Ctx::with_tensors();
    let instance = ctx.instance.handle();
    let mut missing = Vec::new();
    for name in DEVICE_COMMANDS {
        if ctx.device_proc_addr(name).is_none() {
            missing.push(format!("vkGetDeviceProcAddr({name:?})"));
        }
        if instance_proc_addr(instance, name).is_none() {
            missing.push(format!("vkGetInstanceProcAddr({name:?})"));
        }
    }
    let physical = c"vkGetPhysicalDeviceExternalTensorPropertiesARM";
    if instance_proc_addr(instance, physical).is_none() {
        missing.push(format!("vkGetInstanceProcAddr({physical:?})"));
    }
    assert!(missing.is_empty(), "NULL for {missing:?}");
    assert!(
        ctx.device_proc_addr(physical).is_none(),
        "a physical-device command must not resolve through vkGetDeviceProcAddr"
    );
}

#[test]
fn external_tensor_properties_are_empty() {
    let ctx = Ctx::with_tensors();
    let mut desc = TensorInfo::linear(vk::Format::R32_UINT, &[4, 16]);
    let description: *const vk::TensorDescriptionARM = desc.description();
    for handle_type in [
        vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD,
        vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT,
        vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
    ] {
        let mut info = vk::PhysicalDeviceExternalTensorInfoARM {
            description,
            handle_type,
            ..Default::default()
        };
        write_flags64(
            &mut info,
            std::mem::offset_of!(vk::PhysicalDeviceExternalTensorInfoARM, flags),
            0,
        );
        let junk = vk::ExternalMemoryProperties {
            external_memory_features: vk::ExternalMemoryFeatureFlags::all(),
            export_from_imported_handle_types: vk::ExternalMemoryHandleTypeFlags::all(),
            compatible_handle_types: vk::ExternalMemoryHandleTypeFlags::all(),
        };
        let mut props = vk::ExternalTensorPropertiesARM {
            external_memory_properties: junk,
            ..Default::default()
        };
        // SAFETY: `info` points at a complete description that outlives the call.
        unsafe {
            ctx.instance
                .get_physical_device_external_tensor_properties_arm(
                    ctx.physical_device,
                    &info,
                    &mut props,
                )
        };
        let p = props.external_memory_properties;
        assert!(
            p.external_memory_features.is_empty()
                && p.export_from_imported_handle_types.is_empty()
                && p.compatible_handle_types.is_empty(),
            "{handle_type:?}: expected all-zero VkExternalMemoryProperties, got {p:?}"
        );
    }
}

#[test]
fn tensor_features_and_properties() {
    let ctx = Ctx::with_tensors();
    let mut features = vk::PhysicalDeviceTensorFeaturesARM {
        tensor_non_packed: 7,
        shader_tensor_access: 7,
        shader_storage_tensor_array_dynamic_indexing: 7,
        shader_storage_tensor_array_non_uniform_indexing: 7,
        descriptor_binding_storage_tensor_update_after_bind: 7,
        tensors: 7,
        ..Default::default()
    };
    let mut f2 = vk::PhysicalDeviceFeatures2::builder().push_next(&mut features);
    // SAFETY: valid, writable chain.
    unsafe {
        ctx.instance
            .get_physical_device_features2(ctx.physical_device, &mut f2)
    };
    assert_eq!(features.tensors, vk::TRUE, "tensors");
    assert_eq!(features.tensor_non_packed, vk::TRUE, "tensorNonPacked");
    assert_eq!(
        features.shader_tensor_access,
        vk::TRUE,
        "shaderTensorAccess"
    );
    assert_eq!(
        features.shader_storage_tensor_array_dynamic_indexing,
        vk::TRUE
    );
    assert_eq!(
        features.shader_storage_tensor_array_non_uniform_indexing,
        vk::TRUE
    );
    assert_eq!(
        features.descriptor_binding_storage_tensor_update_after_bind,
        vk::TRUE
    );

    let mut props = vk::PhysicalDeviceTensorPropertiesARM::default();
    let mut p2 = vk::PhysicalDeviceProperties2::builder().push_next(&mut props);
    // SAFETY: valid, writable chain.
    unsafe {
        ctx.instance
            .get_physical_device_properties2(ctx.physical_device, &mut p2)
    };
    let heap = ctx.memory_properties.memory_types[ctx.memory_type as usize].heap_index;
    let heap_size = ctx.memory_properties.memory_heaps[heap as usize].size;
    assert_eq!(props.max_tensor_dimension_count, 8);
    assert_eq!(props.max_per_dimension_tensor_elements, (1 << 31) - 1);
    assert_eq!(
        props.max_tensor_size, heap_size,
        "maxTensorSize = heap size"
    );
    assert_eq!(props.max_tensor_elements, heap_size / 8);
    assert_eq!(props.max_tensor_stride, heap_size as i64);
    assert_eq!(props.max_tensor_shader_access_array_length, 256);
    assert_eq!(props.max_tensor_shader_access_size, 2048);
    assert_eq!(
        props.shader_tensor_supported_stages,
        vk::ShaderStageFlags::COMPUTE
    );
    assert!(props.max_tensor_elements >= 65536 && props.max_tensor_size >= 65536);
}

#[test]
fn every_tensor_feature_can_be_enabled() {
    let all = vk::PhysicalDeviceTensorFeaturesARM {
        tensor_non_packed: vk::TRUE,
        shader_tensor_access: vk::TRUE,
        shader_storage_tensor_array_dynamic_indexing: vk::TRUE,
        shader_storage_tensor_array_non_uniform_indexing: vk::TRUE,
        descriptor_binding_storage_tensor_update_after_bind: vk::TRUE,
        tensors: vk::TRUE,
        ..Default::default()
    };
    assert!(
        Ctx::with_tensor_features(all).is_ok(),
        "every tensor feature the device reports can be enabled"
    );
}

#[test]
fn tensor_format_properties() {
    let ctx = Ctx::with_tensors();
    let query = |format: vk::Format| {
        let mut t = vk::TensorFormatPropertiesARM {
            optimal_tiling_tensor_features: vk::FormatFeatureFlags2::all(),
            linear_tiling_tensor_features: vk::FormatFeatureFlags2::all(),
            ..Default::default()
        };
        let mut p = vk::FormatProperties2::builder().push_next(&mut t);
        // SAFETY: valid, writable chain.
        unsafe {
            ctx.instance
                .get_physical_device_format_properties2(ctx.physical_device, format, &mut p)
        };
        (
            t.optimal_tiling_tensor_features.bits(),
            t.linear_tiling_tensor_features.bits(),
        )
    };
    assert_eq!(TENSOR_FORMATS.len(), 23);
    // Formats with a SPIR-V element type (bool, integers, IEEE floats, bfloat16 and float8 through
    // VK_KHR_shader_bfloat16 / VK_EXT_shader_float8) also have TENSOR_SHADER.
    let shader_formats = [
        vk::Format::R8_BOOL_ARM,
        vk::Format::R8_UINT,
        vk::Format::R8_SINT,
        vk::Format::R16_UINT,
        vk::Format::R16_SINT,
        vk::Format::R16_SFLOAT,
        vk::Format::R32_UINT,
        vk::Format::R32_SINT,
        vk::Format::R32_SFLOAT,
        vk::Format::R64_UINT,
        vk::Format::R64_SINT,
        vk::Format::R64_SFLOAT,
        vk::Format::R16_SFLOAT_FPENCODING_BFLOAT16_ARM,
        vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM,
        vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM,
    ];
    for (format, _) in TENSOR_FORMATS {
        // TENSOR_SHADER (bit 39) and TENSOR_DATA_GRAPH (bit 48, for Arm's graph layer).
        let shader = if shader_formats.contains(format) {
            (1u64 << 39) | (1u64 << 48)
        } else {
            0
        };
        assert_eq!(
            query(*format),
            (0xC000 | shader, 0xC000 | shader),
            "{format:?}: TRANSFER_SRC|TRANSFER_DST (+TENSOR_SHADER) for both tilings"
        );
    }
    for format in [
        vk::Format::UNDEFINED,
        vk::Format::R8G8B8A8_UNORM,
        vk::Format::R8_SRGB,
        vk::Format::R32G32_SFLOAT,
        vk::Format::D32_SFLOAT,
        vk::Format::BC1_RGB_UNORM_BLOCK,
    ] {
        assert_eq!(query(format), (0, 0), "{format:?} is not a tensor format");
    }
}

// ---------------------------------------------------------------------------
// Creation, requirements, validation
// ---------------------------------------------------------------------------

#[test]
fn memory_requirements() {
    let ctx = Ctx::with_tensors();
    let cases: Vec<TensorInfo> = vec![
        TensorInfo::linear(vk::Format::R8_UINT, &[1]),
        TensorInfo::linear(vk::Format::R8_UINT, &[71693]),
        TensorInfo::linear(vk::Format::R16_SFLOAT, &[263, 269]),
        TensorInfo::optimal(vk::Format::R32_SFLOAT, &[37, 43, 47]),
        TensorInfo::linear(vk::Format::R64_UINT, &[13, 17, 19, 23]),
        cts_padded(TensorInfo::linear(vk::Format::R32_UINT, &[3, 5, 7])),
        cts_padded(TensorInfo::linear(vk::Format::R8_BOOL_ARM, &[2, 3])),
        TensorInfo::linear(vk::Format::R16_UINT, &[1, 1, 1, 1, 1, 1, 1, 3]),
        TensorInfo::linear(vk::Format::R32_UINT, &[2, 2]).with_strides(&[4096, 4]),
    ];
    for mut info in cases {
        let tensor = ctx.tensor(&mut info);
        let (reqs, dedicated) = ctx.tensor_requirements(tensor);
        let expected = round_up(info.footprint(), ALIGNMENT);
        assert_eq!(
            reqs.size, expected,
            "size of {:?} {:?}",
            info.dims, info.strides
        );
        assert_eq!(reqs.alignment, ALIGNMENT, "alignment");
        assert_eq!(reqs.memory_type_bits, 1, "memoryTypeBits");
        assert_ne!(reqs.memory_type_bits & (1 << ctx.memory_type), 0);
        assert_eq!(dedicated.prefers_dedicated_allocation, vk::FALSE);
        assert_eq!(dedicated.requires_dedicated_allocation, vk::FALSE);

        // The device-level query answers the same for the same create info.
        let raw = info.raw();
        let dev_info = vk::DeviceTensorMemoryRequirementsARM {
            create_info: raw,
            ..Default::default()
        };
        let mut dev_dedicated = vk::MemoryDedicatedRequirements {
            prefers_dedicated_allocation: vk::TRUE,
            requires_dedicated_allocation: vk::TRUE,
            ..Default::default()
        };
        let mut out = vk::MemoryRequirements2::builder().push_next(&mut dev_dedicated);
        // SAFETY: `dev_info` points at a complete create info.
        unsafe {
            ctx.device
                .get_device_tensor_memory_requirements_arm(&dev_info, &mut out)
        };
        let dev_reqs = out.memory_requirements;
        assert_eq!(
            (dev_reqs.size, dev_reqs.alignment, dev_reqs.memory_type_bits),
            (reqs.size, reqs.alignment, reqs.memory_type_bits),
            "vkGetDeviceTensorMemoryRequirementsARM equals the object query"
        );
        assert_eq!(dev_dedicated.prefers_dedicated_allocation, vk::FALSE);
        assert_eq!(dev_dedicated.requires_dedicated_allocation, vk::FALSE);
    }
}

/// Each case mutates a valid linear R32_UINT [4, 6] description; creation
/// must fail with VALIDATION_FAILED.
#[test]
fn invalid_tensor_descriptions_fail_validation() {
    let ctx = Ctx::with_tensors();
    let external = vk::ExternalMemoryTensorCreateInfoARM {
        handle_types: vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD,
        ..Default::default()
    };
    let external_ptr: *const c_void =
        (&external as *const vk::ExternalMemoryTensorCreateInfoARM).cast();
    type Edit = Box<dyn Fn(&mut TensorInfo)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("dimensionCount 0", Box::new(|i| i.dims.clear())),
        (
            "dimensionCount 0 with a dimensions pointer",
            Box::new(|i| i.dimension_count = Some(0)),
        ),
        ("dimensionCount 9", Box::new(|i| i.dims = vec![1; 9])),
        ("a zero dimension", Box::new(|i| i.dims[1] = 0)),
        ("a negative dimension", Box::new(|i| i.dims[0] = -4)),
        (
            "a dimension above maxPerDimensionTensorElements",
            Box::new(|i| i.dims = vec![1 << 31]),
        ),
        (
            "more than maxTensorElements",
            Box::new(|i| i.dims = vec![1 << 30, 1 << 30, 1 << 30]),
        ),
        (
            "format R8G8B8A8_UNORM",
            Box::new(|i| i.format = vk::Format::R8G8B8A8_UNORM),
        ),
        (
            "format UNDEFINED",
            Box::new(|i| i.format = vk::Format::UNDEFINED),
        ),
        ("usage 0", Box::new(|i| i.usage = 0)),
        ("usage bit 0", Box::new(|i| i.usage |= 1)),
        ("usage bit 40", Box::new(|i| i.usage |= 1 << 40)),
        (
            "innermost stride is not the element size",
            Box::new(|i| i.strides = Some(vec![48, 8])),
        ),
        (
            "stride not a multiple of the element size",
            Box::new(|i| i.strides = Some(vec![26, 4])),
        ),
        (
            "overlapping strides",
            Box::new(|i| i.strides = Some(vec![20, 4])),
        ),
        (
            "negative stride",
            Box::new(|i| i.strides = Some(vec![-24, 4])),
        ),
        ("zero stride", Box::new(|i| i.strides = Some(vec![0, 4]))),
        (
            "optimal tiling with strides",
            Box::new(|i| {
                i.tiling = OPTIMAL;
                i.strides = Some(vec![24, 4]);
            }),
        ),
        (
            "IMAGE_ALIASING with linear tiling",
            Box::new(|i| i.usage |= TENSOR_USAGE_IMAGE_ALIASING),
        ),
        (
            "IMAGE_ALIASING without the format feature",
            Box::new(|i| {
                i.tiling = OPTIMAL;
                i.dims = vec![4, 4];
                i.usage |= TENSOR_USAGE_IMAGE_ALIASING;
            }),
        ),
        (
            "PROTECTED create flag",
            Box::new(|i| i.flags = TENSOR_CREATE_PROTECTED),
        ),
        ("create flag bit 40", Box::new(|i| i.flags = 1 << 40)),
        (
            "CONCURRENT sharing with one queue family",
            Box::new(|i| {
                i.sharing_mode = vk::SharingMode::CONCURRENT;
                i.queue_families = vec![0];
            }),
        ),
        (
            "CONCURRENT sharing with a repeated queue family",
            Box::new(|i| {
                i.sharing_mode = vk::SharingMode::CONCURRENT;
                i.queue_families = vec![0, 0];
            }),
        ),
        (
            "external memory handle types",
            Box::new(move |i| i.next = external_ptr),
        ),
    ];
    for (what, edit) in cases {
        let mut info = TensorInfo::linear(vk::Format::R32_UINT, &[4, 6]);
        edit(&mut info);
        assert_eq!(
            ctx.try_tensor(&mut info),
            Err(VALIDATION_FAILED),
            "creating a tensor with {what}"
        );
    }
}

#[test]
fn valid_edge_descriptions_are_accepted() {
    let ctx = Ctx::with_tensors();
    let external = vk::ExternalMemoryTensorCreateInfoARM::default();
    let mut cases = vec![
        TensorInfo::linear(vk::Format::R8_UINT, &[1, 2, 1, 2, 1, 2, 1, 2]),
        TensorInfo::optimal(vk::Format::R64_SFLOAT, &[(1 << 31) - 1]),
        TensorInfo::new(LINEAR, vk::Format::R32_SINT, &[8], TENSOR_USAGE_SHADER),
        TensorInfo::new(
            LINEAR,
            vk::Format::R16_UINT,
            &[8],
            TENSOR_USAGE_TRANSFER_SRC,
        ),
        TensorInfo::linear(vk::Format::R32_UINT, &[4, 6]).with_strides(&[24, 4]),
        TensorInfo::linear(vk::Format::R32_UINT, &[4, 6]).with_strides(&[28, 4]),
        TensorInfo::linear(vk::Format::R32_UINT, &[4, 6]).with_strides(&[1 << 20, 4]),
    ];
    let mut mutable = TensorInfo::linear(vk::Format::R8_BOOL_ARM, &[5]);
    mutable.flags = TENSOR_CREATE_MUTABLE_FORMAT;
    cases.push(mutable);
    let mut ext = TensorInfo::linear(vk::Format::R8_UINT, &[5]);
    ext.next = (&external as *const vk::ExternalMemoryTensorCreateInfoARM).cast();
    cases.push(ext);
    for mut info in cases {
        assert!(
            ctx.try_tensor(&mut info).is_ok(),
            "creating {:?} {:?} {:?} usage {:#x} flags {:#x}",
            info.tiling,
            info.format,
            info.dims,
            info.usage,
            info.flags
        );
    }
}

#[test]
fn tensors_need_the_tensors_feature() {
    let ctx = Ctx::with_tensor_features(vk::PhysicalDeviceTensorFeaturesARM::default())
        .expect("a device with VK_ARM_tensors but no tensor features");
    let mut info = TensorInfo::linear(vk::Format::R32_UINT, &[4]);
    assert_eq!(ctx.try_tensor(&mut info), Err(VALIDATION_FAILED));
}

#[test]
fn non_packed_tensors_need_tensor_non_packed() {
    let ctx = Ctx::with_tensor_features(vk::PhysicalDeviceTensorFeaturesARM {
        tensors: vk::TRUE,
        ..Default::default()
    })
    .expect("a device with tensors only");
    let mut padded = cts_padded(TensorInfo::linear(vk::Format::R32_UINT, &[3, 5]));
    assert_eq!(ctx.try_tensor(&mut padded), Err(VALIDATION_FAILED));
    // Explicit packed strides and NULL strides are fine without the feature.
    let mut packed = TensorInfo::linear(vk::Format::R32_UINT, &[3, 5]).with_strides(&[20, 4]);
    assert!(ctx.try_tensor(&mut packed).is_ok());
    let mut null = TensorInfo::linear(vk::Format::R32_UINT, &[3, 5]);
    assert!(ctx.try_tensor(&mut null).is_ok());
    let mut optimal = TensorInfo::optimal(vk::Format::R32_UINT, &[3, 5]);
    assert!(ctx.try_tensor(&mut optimal).is_ok());
}

#[test]
fn bind_validation() {
    let ctx = Ctx::with_tensors();
    let mut info = TensorInfo::linear(vk::Format::R32_UINT, &[16, 16]); // 1024 bytes
    let memory = ctx.memory(4096);

    let t = ctx.tensor(&mut info);
    assert_eq!(
        ctx.bind_tensor(t, memory, 32),
        Err(VALIDATION_FAILED),
        "misaligned offset"
    );
    assert_eq!(
        ctx.bind_tensor(t, memory, 3136),
        Err(VALIDATION_FAILED),
        "does not fit"
    );
    assert_eq!(
        ctx.bind_tensor(t, memory, 4096),
        Err(VALIDATION_FAILED),
        "offset at the end"
    );
    assert_eq!(
        ctx.bind_tensor(t, memory, 1 << 40),
        Err(VALIDATION_FAILED),
        "offset far out"
    );
    let small = ctx.memory(512);
    assert_eq!(
        ctx.bind_tensor(t, small, 0),
        Err(VALIDATION_FAILED),
        "memory too small"
    );
    // The failed binds left the tensor unbound: a valid bind still works, once.
    ctx.bind_tensor(t, memory, 3072)
        .expect("bind at the last fitting offset");
    assert_eq!(
        ctx.bind_tensor(t, memory, 0),
        Err(VALIDATION_FAILED),
        "bind twice"
    );

    // Several tensors in one call.
    let a = ctx.tensor(&mut info);
    let b = ctx.tensor(&mut info);
    let infos = [
        vk::BindTensorMemoryInfoARM::builder()
            .tensor(a)
            .memory(memory)
            .memory_offset(0),
        vk::BindTensorMemoryInfoARM::builder()
            .tensor(b)
            .memory(memory)
            .memory_offset(1024),
    ];
    // SAFETY: valid handles of this device.
    unsafe { ctx.device.bind_tensor_memory_arm(&infos) }.expect("batched bind");
}

#[test]
fn dedicated_allocations() {
    let ctx = Ctx::with_tensors();
    let mut info = TensorInfo::linear(vk::Format::R16_UINT, &[10, 10]); // 200 -> 256 bytes
    let t = ctx.tensor(&mut info);
    let other = ctx.tensor(&mut info);
    let size = ctx.tensor_requirements(t).0.size;
    assert_eq!(size, 256);
    let allocate = |tensor: vk::TensorARM, size: u64| {
        let mut dedicated = vk::MemoryDedicatedAllocateInfoTensorARM::builder().tensor(tensor);
        let info = vk::MemoryAllocateInfo::builder()
            .allocation_size(size)
            .memory_type_index(ctx.memory_type)
            .push_next(&mut dedicated);
        // SAFETY: a complete allocate info; the driver validates the tensor.
        unsafe { ctx.device.allocate_memory(&info, None) }
    };
    assert_eq!(
        allocate(t, 512),
        Err(VALIDATION_FAILED),
        "allocationSize != requirement"
    );
    assert_eq!(
        allocate(t, 128),
        Err(VALIDATION_FAILED),
        "allocationSize < requirement"
    );
    let memory = allocate(t, size).expect("dedicated allocation of the right size");
    assert_eq!(
        ctx.bind_tensor(other, memory, 0),
        Err(VALIDATION_FAILED),
        "binding another tensor to a dedicated allocation"
    );
    assert_eq!(
        ctx.bind_tensor(t, memory, 64),
        Err(VALIDATION_FAILED),
        "non-zero offset into a dedicated allocation"
    );
    ctx.bind_tensor(t, memory, 0)
        .expect("binding the dedicated tensor");
    // SAFETY: nothing uses the memory any more (the tensor is not used again).
    unsafe { ctx.device.free_memory(memory, None) };
}

#[test]
fn tensor_view_rules() {
    let ctx = Ctx::with_tensors();
    let memory = ctx.memory(4096);
    let mut transfer = TensorInfo::linear(vk::Format::R32_UINT, &[8]);
    let t = ctx.tensor(&mut transfer);
    ctx.bind_tensor(t, memory, 0).unwrap();
    assert_eq!(
        ctx.try_tensor_view(t, vk::Format::R32_UINT, 0),
        Err(VALIDATION_FAILED),
        "view of a tensor without SHADER usage"
    );
    let mut shader = TensorInfo::new(
        LINEAR,
        vk::Format::R32_UINT,
        &[8],
        TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER,
    );
    let unbound = ctx.tensor(&mut shader);
    // Accepted with a warning (VUID-VkTensorViewCreateInfoARM-tensor-09749): Arm's graph layer
    // creates views before binding; the view reads as out of bounds until the tensor is bound.
    assert!(
        ctx.try_tensor_view(unbound, vk::Format::R32_UINT, 0)
            .is_ok(),
        "view of an unbound tensor"
    );
    let s = ctx.tensor(&mut shader);
    ctx.bind_tensor(s, memory, 1024).unwrap();
    assert!(
        ctx.try_tensor_view(s, vk::Format::R32_UINT, 0).is_ok(),
        "view of a bound SHADER tensor in its own format"
    );
    let mut unorm = TensorInfo::new(
        LINEAR,
        vk::Format::R8_UNORM,
        &[8],
        TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER,
    );
    let u = ctx.tensor(&mut unorm);
    ctx.bind_tensor(u, memory, 2048).unwrap();
    assert_eq!(
        ctx.try_tensor_view(u, vk::Format::R8_UNORM, 0),
        Err(VALIDATION_FAILED),
        "R8_UNORM has no TENSOR_SHADER (VUID-VkTensorViewCreateInfoARM-usage-09748)"
    );
    assert_eq!(
        ctx.try_tensor_view(s, vk::Format::R32_SFLOAT, 0),
        Err(VALIDATION_FAILED),
        "another format without MUTABLE_FORMAT"
    );
}

#[test]
fn opaque_capture_descriptor_data_is_not_supported() {
    let ctx = Ctx::with_tensors();
    let mut info = TensorInfo::linear(vk::Format::R8_UINT, &[8]);
    let t = ctx.tensor(&mut info);
    let mut data = [0u8; 256];
    let tinfo = vk::TensorCaptureDescriptorDataInfoARM::builder().tensor(t);
    // SAFETY: `data` is large enough for any capture data.
    let r = unsafe {
        ctx.device
            .get_tensor_opaque_capture_descriptor_data_arm(&tinfo, data.as_mut_ptr().cast())
    };
    assert_eq!(r, Err(VALIDATION_FAILED));
    let vinfo = vk::TensorViewCaptureDescriptorDataInfoARM::builder();
    // SAFETY: as above.
    let r = unsafe {
        ctx.device
            .get_tensor_view_opaque_capture_descriptor_data_arm(&vinfo, data.as_mut_ptr().cast())
    };
    assert_eq!(r, Err(VALIDATION_FAILED));
}

#[test]
fn destroying_null_and_live_tensors() {
    let ctx = Ctx::with_tensors();
    let mut info = TensorInfo::linear(vk::Format::R8_UINT, &[8]);
    let t = create_tensor(&ctx.device, &mut info).unwrap();
    // SAFETY: VK_NULL_HANDLE is allowed; `t` is unused and destroyed once.
    unsafe {
        ctx.device.destroy_tensor_arm(vk::TensorARM::null(), None);
        ctx.device
            .destroy_tensor_view_arm(vk::TensorViewARM::null(), None);
        ctx.device.destroy_tensor_arm(t, None);
    }
}

// ---------------------------------------------------------------------------
// Copies: a host model of the whole allocation
// ---------------------------------------------------------------------------

/// A tensor placed in an allocation.
struct Placed {
    info: TensorInfo,
    offset: u64,
    tensor: vk::TensorARM,
}

impl Placed {
    fn offsets(&self) -> Vec<u64> {
        element_offsets(&self.info.dims, &self.info.effective_strides())
            .into_iter()
            .map(|o| o + self.offset)
            .collect()
    }
}

/// The allocation after copying `src` to `dst` as if every source element
/// were read before any destination element is written.
fn model_copy(before: &[u8], src: &Placed, dst: &Placed) -> Vec<u8> {
    let elem = src.info.elem() as usize;
    let values: Vec<&[u8]> = src
        .offsets()
        .into_iter()
        .map(|o| &before[o as usize..o as usize + elem])
        .collect();
    let mut after = before.to_vec();
    for (o, v) in dst.offsets().into_iter().zip(values) {
        after[o as usize..o as usize + elem].copy_from_slice(v);
    }
    after
}

fn describe(p: &Placed) -> String {
    format!(
        "{:?} {:?} {:?} strides {:?} at {}",
        p.info.tiling,
        p.info.format,
        p.info.dims,
        p.info.effective_strides(),
        p.offset
    )
}

fn assert_same(got: &[u8], want: &[u8], what: &str) {
    if got != want {
        let first = got.iter().zip(want).position(|(a, b)| a != b).unwrap();
        let diffs = got.iter().zip(want).filter(|(a, b)| a != b).count();
        panic!(
            "{what}: {diffs} bytes differ, first at byte {first}: got {:#04x}, want {:#04x}",
            got[first], want[first]
        );
    }
}

/// Which `VkTensorCopyARM` form to record.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Region {
    /// `dimensionCount = 0`, NULL pointers.
    Whole,
    /// `dimensionCount = rank`, zero offsets and `pExtent = dims`.
    Explicit,
}

/// A device-side scratch allocation for copy cases, freed on drop.
struct Scratch<'a> {
    ctx: &'a Ctx,
    memory: vk::DeviceMemory,
    size: u64,
    ptr: *mut u8,
    tensors: Vec<vk::TensorARM>,
}

impl<'a> Scratch<'a> {
    fn new(ctx: &'a Ctx, size: u64) -> Self {
        let info = vk::MemoryAllocateInfo::builder()
            .allocation_size(size)
            .memory_type_index(ctx.memory_type);
        // SAFETY: complete allocate info on a live device.
        let memory = unsafe { ctx.device.allocate_memory(&info, None) }.expect("vkAllocateMemory");
        // SAFETY: host-visible, unmapped memory.
        let ptr = unsafe {
            ctx.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .expect("vkMapMemory");
        Self {
            ctx,
            memory,
            size,
            ptr: ptr.cast(),
            tensors: Vec::new(),
        }
    }

    fn place(&mut self, mut info: TensorInfo, offset: u64) -> Placed {
        let tensor = create_tensor(&self.ctx.device, &mut info)
            .unwrap_or_else(|e| panic!("vkCreateTensorARM {:?}: {e:?}", info.dims));
        self.tensors.push(tensor);
        let (reqs, _) = self.ctx.tensor_requirements(tensor);
        assert_eq!(reqs.size, round_up(info.footprint(), ALIGNMENT));
        self.ctx
            .bind_tensor(tensor, self.memory, offset)
            .unwrap_or_else(|e| panic!("bind at {offset}: {e:?}"));
        Placed {
            info,
            offset,
            tensor,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        // SAFETY: `ptr` maps `size` bytes that no device work touches now.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) }.to_vec()
    }

    fn fill(&self, seed: u32) {
        let data = pattern_bytes(self.size as usize, seed);
        // SAFETY: writes exactly the mapped range.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr, data.len()) };
    }

    /// Fills the memory, copies `src` to `dst`, and checks every byte of the
    /// allocation against the model.
    fn copy_and_check(&self, src: &Placed, dst: &Placed, region: Region, seed: u32) {
        self.fill(seed);
        let before = self.bytes();
        let want = model_copy(&before, src, dst);
        let rank = src.info.dims.len();
        let zeros = vec![0u64; rank];
        let extent: Vec<u64> = src.info.dims.iter().map(|d| *d as u64).collect();
        let regions = match region {
            Region::Whole => vec![vk::TensorCopyARM::default()],
            Region::Explicit => vec![vk::TensorCopyARM {
                dimension_count: rank as u32,
                src_offset: zeros.as_ptr(),
                dst_offset: zeros.as_ptr(),
                extent: extent.as_ptr(),
                ..Default::default()
            }],
        };
        self.ctx
            .run(|d, cb| cmd_copy_tensor_regions(d, cb, src.tensor, dst.tensor, &regions));
        assert_same(
            &self.bytes(),
            &want,
            &format!("copy {} -> {} ({region:?})", describe(src), describe(dst)),
        );
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        // SAFETY: `Ctx::run` waited for all work; nothing uses these any more.
        unsafe {
            for t in self.tensors.drain(..) {
                self.ctx.device.destroy_tensor_arm(t, None);
            }
            self.ctx.device.free_memory(self.memory, None);
        }
    }
}

/// Copies `src` → `dst`, both in one allocation, `dst` after `src` (with a
/// gap), and checks the result.
fn copy_case(ctx: &Ctx, src: TensorInfo, dst: TensorInfo, region: Region, seed: u32) {
    let src_size = round_up(src.footprint(), ALIGNMENT);
    let dst_size = round_up(dst.footprint(), ALIGNMENT);
    let dst_offset = src_size + 128;
    let mut scratch = Scratch::new(ctx, dst_offset + dst_size + 192);
    let s = scratch.place(src, 64);
    let d = scratch.place(dst, dst_offset + 64);
    scratch.copy_and_check(&s, &d, region, seed);
}

fn shape_for_rank(rank: usize) -> Vec<i64> {
    [3, 2, 5, 1, 4, 2, 3, 2][..rank].to_vec()
}

#[test]
fn copy_every_format_and_rank() {
    let ctx = Ctx::with_tensors();
    let mut seed = 1;
    for (format, _) in TENSOR_FORMATS {
        for rank in 1..=8 {
            let dims = shape_for_rank(rank);
            let packed = TensorInfo::linear(*format, &dims);
            let padded = cts_padded(TensorInfo::linear(*format, &dims));
            let region = if rank % 2 == 0 {
                Region::Whole
            } else {
                Region::Explicit
            };
            copy_case(&ctx, packed.clone(), padded.clone(), region, seed);
            copy_case(&ctx, padded, packed, region, seed + 1);
            seed += 2;
        }
    }
}

#[test]
fn copy_cts_shapes() {
    let ctx = Ctx::with_tensors();
    let shapes: &[&[i64]] = &[&[71693], &[263, 269], &[37, 43, 47], &[13, 17, 19, 23]];
    let formats = [
        vk::Format::R8_UINT,
        vk::Format::R16_SFLOAT,
        vk::Format::R32_SINT,
        vk::Format::R64_UINT,
    ];
    let mut seed = 100;
    for dims in shapes {
        for format in formats {
            let packed = TensorInfo::linear(format, dims);
            let padded = cts_padded(TensorInfo::linear(format, dims));
            copy_case(&ctx, packed.clone(), packed.clone(), Region::Whole, seed);
            copy_case(
                &ctx,
                packed.clone(),
                padded.clone(),
                Region::Explicit,
                seed + 1,
            );
            copy_case(&ctx, padded, packed, Region::Whole, seed + 2);
            seed += 3;
        }
    }
}

#[test]
fn copy_shapes_with_unit_dimensions() {
    let ctx = Ctx::with_tensors();
    let shapes: &[&[i64]] = &[
        &[1],
        &[1, 1, 1],
        &[1, 7, 1, 5],
        &[5, 1],
        &[1, 1, 1, 1, 1, 1, 1, 1],
        &[2, 1, 3, 1, 1, 4],
        &[1, 1, 1, 1, 1, 1, 1, 9],
        &[9, 1, 1, 1, 1, 1, 1, 1],
    ];
    let mut seed = 300;
    for dims in shapes {
        for format in [vk::Format::R8_SINT, vk::Format::R64_SFLOAT] {
            let packed = TensorInfo::linear(format, dims);
            let padded = cts_padded(TensorInfo::linear(format, dims));
            copy_case(&ctx, packed.clone(), padded.clone(), Region::Whole, seed);
            copy_case(
                &ctx,
                padded.clone(),
                packed.clone(),
                Region::Explicit,
                seed + 1,
            );
            copy_case(&ctx, padded.clone(), padded, Region::Whole, seed + 2);
            seed += 3;
        }
    }
}

#[test]
fn copy_between_formats_of_the_same_size() {
    let ctx = Ctx::with_tensors();
    let pairs = [
        (vk::Format::R32_UINT, vk::Format::R32_SFLOAT),
        (
            vk::Format::R8_BOOL_ARM,
            vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM,
        ),
        (
            vk::Format::R16_SFLOAT_FPENCODING_BFLOAT16_ARM,
            vk::Format::R16_UNORM,
        ),
        (vk::Format::R64_SINT, vk::Format::R64_SFLOAT),
    ];
    for (i, (a, b)) in pairs.into_iter().enumerate() {
        let dims = [7, 11];
        let src = TensorInfo::linear(a, &dims);
        let dst = cts_padded(TensorInfo::linear(b, &dims));
        copy_case(&ctx, src, dst, Region::Whole, 500 + i as u32);
    }
}

#[test]
fn optimal_tiling_round_trip() {
    let ctx = Ctx::with_tensors();
    for (i, dims) in [
        &[37i64, 43, 47][..],
        &[13, 17, 19, 23],
        &[71693],
        &[1, 3, 1, 2],
    ]
    .into_iter()
    .enumerate()
    {
        let format = vk::Format::R16_UINT;
        let padded = cts_padded(TensorInfo::linear(format, dims));
        let opt = TensorInfo::optimal(format, dims);
        let packed = TensorInfo::linear(format, dims);
        let sizes: Vec<u64> = [&padded, &opt, &opt, &packed]
            .iter()
            .map(|t| round_up(t.footprint(), ALIGNMENT))
            .collect();
        let mut offsets = vec![0u64];
        for s in &sizes[..3] {
            offsets.push(offsets.last().unwrap() + s);
        }
        let total = offsets[3] + sizes[3];
        let mut scratch = Scratch::new(&ctx, total);
        let a = scratch.place(padded, offsets[0]);
        let b = scratch.place(opt.clone(), offsets[1]);
        let c = scratch.place(opt, offsets[2]);
        let d = scratch.place(packed, offsets[3]);
        scratch.fill(700 + i as u32);
        let before = scratch.bytes();
        ctx.run(|dev, cb| {
            let barrier = vk::MemoryBarrier2::builder()
                .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ);
            let dep = vk::DependencyInfo::builder().memory_barriers(std::slice::from_ref(&barrier));
            cmd_copy_whole_tensor(dev, cb, a.tensor, b.tensor);
            // SAFETY: recording command buffer.
            unsafe { dev.cmd_pipeline_barrier2(cb, &dep) };
            cmd_copy_whole_tensor(dev, cb, b.tensor, c.tensor);
            // SAFETY: as above.
            unsafe { dev.cmd_pipeline_barrier2(cb, &dep) };
            cmd_copy_whole_tensor(dev, cb, c.tensor, d.tensor);
        });
        let after = scratch.bytes();
        let elem = a.info.elem() as usize;
        let src: Vec<u8> = a
            .offsets()
            .iter()
            .flat_map(|o| before[*o as usize..*o as usize + elem].to_vec())
            .collect();
        let end: Vec<u8> = d
            .offsets()
            .iter()
            .flat_map(|o| after[*o as usize..*o as usize + elem].to_vec())
            .collect();
        assert_same(
            &end,
            &src,
            &format!("{dims:?} linear -> optimal -> optimal -> linear"),
        );
        // Optimal tensors are packed row-major: the bytes in memory equal the packed copy.
        let n = d.info.footprint() as usize;
        assert_same(
            &after[b.offset as usize..b.offset as usize + n],
            &after[d.offset as usize..d.offset as usize + n],
            "optimal layout = packed row-major",
        );
        // The padded source is untouched.
        let a_end = (a.offset + a.info.footprint()) as usize;
        assert_same(&after[..a_end], &before[..a_end], "source");
    }
}

#[test]
fn tensors_at_non_zero_offsets_in_a_shared_allocation() {
    let ctx = Ctx::with_tensors();
    let dims = [37i64, 43, 5];
    let mut scratch = Scratch::new(&ctx, 4 << 20);
    let format = vk::Format::R32_UINT;
    let _first = scratch.place(TensorInfo::linear(format, &[16]), 0);
    let src = scratch.place(TensorInfo::linear(format, &dims), 2048);
    let dst = scratch.place(
        cts_padded(TensorInfo::linear(format, &dims)),
        2048 + (1 << 20),
    );
    let opt = scratch.place(TensorInfo::optimal(format, &dims), (3 << 20) - 64 * 3);
    scratch.copy_and_check(&src, &dst, Region::Whole, 800);
    scratch.copy_and_check(&dst, &opt, Region::Explicit, 801);
    scratch.copy_and_check(&opt, &src, Region::Whole, 802);
}

#[test]
fn copy_onto_itself_is_identity() {
    let ctx = Ctx::with_tensors();
    for (i, info) in [
        TensorInfo::linear(vk::Format::R8_UINT, &[263, 269]),
        cts_padded(TensorInfo::linear(vk::Format::R32_UINT, &[13, 17, 19])),
        TensorInfo::optimal(vk::Format::R64_UINT, &[37, 43]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut scratch = Scratch::new(&ctx, round_up(info.footprint(), ALIGNMENT) + 128);
        let t = scratch.place(info, 64);
        scratch.copy_and_check(&t, &t, Region::Whole, 900 + i as u32);
    }
}

#[test]
fn copy_between_overlapping_aliases() {
    let ctx = Ctx::with_tensors();
    let format = vk::Format::R32_UINT;
    let dims = [37i64, 43, 7];
    let packed = TensorInfo::linear(format, &dims);
    let padded = cts_padded(TensorInfo::linear(format, &dims));
    let size = round_up(padded.footprint(), ALIGNMENT) * 2 + 4096;
    // Destination after the source, before it, and the same range with other strides.
    for (seed, (src_info, src_off, dst_info, dst_off)) in (1000..).zip([
        (packed.clone(), 0, packed.clone(), 64),
        (packed.clone(), 640, packed.clone(), 0),
        (packed.clone(), 0, padded.clone(), 128),
        (padded.clone(), 192, packed.clone(), 0),
        (packed.clone(), 0, padded.clone(), 0),
        (padded.clone(), 0, packed.clone(), 0),
    ]) {
        let mut scratch = Scratch::new(&ctx, size);
        let s = scratch.place(src_info, src_off);
        let d = scratch.place(dst_info, dst_off);
        scratch.copy_and_check(&s, &d, Region::Whole, seed);
    }
}

/// The documented layout, seen through VkBuffers bound to the same memory:
/// data written with vkCmdCopyBuffer into a buffer aliasing the source
/// tensor is copied tensor to tensor and read back through a buffer aliasing
/// the destination, all in one command buffer.
#[test]
fn buffers_aliasing_tensors_see_the_layout() {
    let ctx = Ctx::with_tensors();
    let format = vk::Format::R16_UINT;
    let dims = [13i64, 17, 19];
    let cases = [
        (
            TensorInfo::linear(format, &dims),
            cts_padded(TensorInfo::linear(format, &dims)),
        ),
        (
            cts_padded(TensorInfo::linear(format, &dims)),
            TensorInfo::optimal(format, &dims),
        ),
        (
            TensorInfo::optimal(format, &dims),
            cts_padded(TensorInfo::linear(format, &dims)),
        ),
    ];
    for (i, (src_info, dst_info)) in cases.into_iter().enumerate() {
        let src_size = src_info.footprint();
        let dst_size = dst_info.footprint();
        let memory = ctx.memory(1 << 20);
        let (src_off, dst_off) = (4096, 4096 + round_up(src_size, 4096));
        let src_t = ctx.tensor(&mut src_info.clone());
        let dst_t = ctx.tensor(&mut dst_info.clone());
        ctx.bind_tensor(src_t, memory, src_off).unwrap();
        ctx.bind_tensor(dst_t, memory, dst_off).unwrap();
        let src_b = ctx.buffer_on(memory, src_off, src_size);
        let dst_b = ctx.buffer_on(memory, dst_off, dst_size);

        let staging = ctx.host_buffer(src_size);
        let src_bytes = pattern_bytes(src_size as usize, 1100 + i as u32);
        staging.write(0, &src_bytes);
        let dst_init = pattern_bytes(dst_size as usize, 1200 + i as u32);
        let dst_staging = ctx.host_buffer(dst_size);
        dst_staging.write(0, &dst_init);
        let readback = ctx.host_buffer(dst_size);

        ctx.run(|d, cb| {
            let barrier = vk::MemoryBarrier2::builder()
                .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .dst_access_mask(
                    vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE,
                );
            let dep = vk::DependencyInfo::builder().memory_barriers(std::slice::from_ref(&barrier));
            // SAFETY: recording; every range lies inside its buffer.
            unsafe {
                d.cmd_copy_buffer(
                    cb,
                    staging.buffer,
                    src_b,
                    &[vk::BufferCopy::builder().size(src_size)],
                );
                d.cmd_copy_buffer(
                    cb,
                    dst_staging.buffer,
                    dst_b,
                    &[vk::BufferCopy::builder().size(dst_size)],
                );
                d.cmd_pipeline_barrier2(cb, &dep);
            }
            cmd_copy_whole_tensor(d, cb, src_t, dst_t);
            // SAFETY: as above.
            unsafe {
                d.cmd_pipeline_barrier2(cb, &dep);
                d.cmd_copy_buffer(
                    cb,
                    dst_b,
                    readback.buffer,
                    &[vk::BufferCopy::builder().size(dst_size)],
                );
            }
        });

        let elem = 2usize;
        let mut want = dst_init.clone();
        let src_offsets = element_offsets(&dims, &src_info.effective_strides());
        let dst_offsets = element_offsets(&dims, &dst_info.effective_strides());
        for (s, d) in src_offsets.iter().zip(&dst_offsets) {
            want[*d as usize..*d as usize + elem]
                .copy_from_slice(&src_bytes[*s as usize..*s as usize + elem]);
        }
        assert_same(
            &readback.read(),
            &want,
            &format!(
                "{:?} strides {:?} -> {:?} strides {:?} through aliasing buffers",
                src_info.tiling,
                src_info.effective_strides(),
                dst_info.tiling,
                dst_info.effective_strides()
            ),
        );
    }
}

// ---------------------------------------------------------------------------
// Copy validation (sticky, reported by vkEndCommandBuffer) and barriers
// ---------------------------------------------------------------------------

#[test]
fn invalid_copies_fail_at_end_command_buffer() {
    let ctx = Ctx::with_tensors();
    let memory = ctx.memory(1 << 20);
    let mut next_offset = 0u64;
    let mut bound = |info: TensorInfo| {
        let mut info = info;
        let t = ctx.tensor(&mut info);
        ctx.bind_tensor(t, memory, next_offset).unwrap();
        next_offset += round_up(info.footprint(), 4096);
        t
    };
    let f = vk::Format::R32_UINT;
    let a = bound(TensorInfo::linear(f, &[4, 6]));
    let b = bound(TensorInfo::linear(f, &[4, 6]));
    let rank3 = bound(TensorInfo::linear(f, &[4, 6, 1]));
    let other_shape = bound(TensorInfo::linear(f, &[6, 4]));
    let half = bound(TensorInfo::linear(vk::Format::R16_UINT, &[4, 6]));
    let no_src = bound(TensorInfo::new(
        LINEAR,
        f,
        &[4, 6],
        TENSOR_USAGE_TRANSFER_DST,
    ));
    let no_dst = bound(TensorInfo::new(
        LINEAR,
        f,
        &[4, 6],
        TENSOR_USAGE_TRANSFER_SRC,
    ));
    let unbound = ctx.tensor(&mut TensorInfo::linear(f, &[4, 6]));
    let destroyed = create_tensor(&ctx.device, &mut TensorInfo::linear(f, &[4, 6])).unwrap();
    ctx.bind_tensor(destroyed, memory, 1 << 19).unwrap();
    // SAFETY: the tensor is not used by any command buffer.
    unsafe { ctx.device.destroy_tensor_arm(destroyed, None) };

    let zeros = [0u64; 2];
    let one = [0u64, 1];
    let dims = [4u64, 6];
    let small = [4u64, 5];
    let region = |count: u32, src: &[u64], dst: &[u64], extent: &[u64]| vk::TensorCopyARM {
        dimension_count: count,
        src_offset: if src.is_empty() {
            std::ptr::null()
        } else {
            src.as_ptr()
        },
        dst_offset: if dst.is_empty() {
            std::ptr::null()
        } else {
            dst.as_ptr()
        },
        extent: if extent.is_empty() {
            std::ptr::null()
        } else {
            extent.as_ptr()
        },
        ..Default::default()
    };
    let whole = vk::TensorCopyARM::default();
    let cases: Vec<(&str, vk::TensorARM, vk::TensorARM, Vec<vk::TensorCopyARM>)> = vec![
        ("regionCount 0", a, b, vec![]),
        ("regionCount 2", a, b, vec![whole, whole]),
        ("rank mismatch", a, rank3, vec![whole]),
        ("shape mismatch", a, other_shape, vec![whole]),
        (
            "non-zero src offset",
            a,
            b,
            vec![region(2, &one, &zeros, &dims)],
        ),
        (
            "non-zero dst offset",
            a,
            b,
            vec![region(2, &zeros, &one, &dims)],
        ),
        (
            "extent != dims",
            a,
            b,
            vec![region(2, &zeros, &zeros, &small)],
        ),
        (
            "region dimensionCount 1",
            a,
            b,
            vec![region(1, &zeros, &zeros, &dims)],
        ),
        (
            "region dimensionCount 3",
            a,
            b,
            vec![region(3, &[0; 3], &[0; 3], &[4, 6, 1])],
        ),
        (
            "dimensionCount 0 with an extent",
            a,
            b,
            vec![region(0, &[], &[], &dims)],
        ),
        (
            "dimensionCount 0 with an offset",
            a,
            b,
            vec![region(0, &zeros, &[], &[])],
        ),
        ("src without TRANSFER_SRC", no_src, b, vec![whole]),
        ("dst without TRANSFER_DST", a, no_dst, vec![whole]),
        ("unbound src", unbound, b, vec![whole]),
        ("unbound dst", a, unbound, vec![whole]),
        ("destroyed src", destroyed, b, vec![whole]),
        ("destroyed dst", a, destroyed, vec![whole]),
        ("different element sizes", a, half, vec![whole]),
    ];
    for (what, src, dst, regions) in cases {
        let result = ctx.record_only(|d, cb| {
            cmd_copy_tensor_regions(d, cb, src, dst, &regions);
            // A later valid command does not clear the error.
            cmd_copy_whole_tensor(d, cb, a, b);
        });
        assert_eq!(
            result,
            Err(VALIDATION_FAILED),
            "vkEndCommandBuffer after a copy with {what}"
        );
    }
    // Positive controls: the same recording with valid copies ends fine.
    let ok = ctx.record_only(|d, cb| {
        cmd_copy_whole_tensor(d, cb, a, b);
        cmd_copy_tensor_regions(d, cb, a, b, &[region(2, &zeros, &zeros, &dims)]);
        cmd_copy_tensor_regions(d, cb, a, b, &[region(2, &[], &[], &[])]);
        cmd_copy_tensor_regions(d, cb, a, a, &[whole]);
        cmd_copy_tensor_regions(d, cb, no_dst, no_src, &[whole]);
    });
    assert_eq!(ok, Ok(()));
}

fn tensor_barrier(tensor: vk::TensorARM) -> vk::TensorMemoryBarrierARM {
    vk::TensorMemoryBarrierARM {
        src_stage_mask: vk::PipelineStageFlags2::COPY,
        src_access_mask: vk::AccessFlags2::TRANSFER_WRITE,
        dst_stage_mask: vk::PipelineStageFlags2::COPY,
        dst_access_mask: vk::AccessFlags2::TRANSFER_READ,
        src_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
        dst_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
        tensor,
        ..Default::default()
    }
}

fn barrier2(d: &Device, cb: vk::CommandBuffer, next: *const c_void) {
    let dep = vk::DependencyInfo {
        next,
        ..Default::default()
    };
    // SAFETY: recording command buffer; `next` is a valid chain for the call.
    unsafe { d.cmd_pipeline_barrier2(cb, &dep) };
}

#[test]
fn tensor_barriers() {
    let ctx = Ctx::with_tensors();
    let format = vk::Format::R32_UINT;
    let dims = [29i64, 31];
    let mut scratch = Scratch::new(&ctx, 64 << 10);
    let a = scratch.place(TensorInfo::linear(format, &dims), 0);
    let b = scratch.place(cts_padded(TensorInfo::linear(format, &dims)), 8192);
    let c = scratch.place(TensorInfo::optimal(format, &dims), 24576);
    let e = scratch.place(TensorInfo::linear(format, &dims), 40960);
    let unbound = ctx.tensor(&mut TensorInfo::linear(format, &dims));

    // A single VkTensorMemoryBarrierARM chained to VkDependencyInfo, and a
    // VkTensorDependencyInfoARM with two barriers, between dependent copies.
    scratch.fill(1300);
    let before = scratch.bytes();
    let single = tensor_barrier(b.tensor);
    let pair = [tensor_barrier(c.tensor), tensor_barrier(b.tensor)];
    let info = vk::TensorDependencyInfoARM {
        tensor_memory_barrier_count: 2,
        tensor_memory_barriers: pair.as_ptr(),
        ..Default::default()
    };
    ctx.run(|d, cb| {
        cmd_copy_whole_tensor(d, cb, a.tensor, b.tensor);
        barrier2(d, cb, (&single as *const vk::TensorMemoryBarrierARM).cast());
        cmd_copy_whole_tensor(d, cb, b.tensor, c.tensor);
        barrier2(d, cb, (&info as *const vk::TensorDependencyInfoARM).cast());
        cmd_copy_whole_tensor(d, cb, c.tensor, e.tensor);
    });
    let after = scratch.bytes();
    let mut want = model_copy(&before, &a, &b);
    want = model_copy(&want, &b, &c);
    want = model_copy(&want, &c, &e);
    assert_same(&after, &want, "copies chained by tensor barriers");

    // Both structures chained: VUID-VkDependencyInfo-pNext-09754.
    let barrier = tensor_barrier(b.tensor);
    let both = vk::TensorDependencyInfoARM {
        next: (&barrier as *const vk::TensorMemoryBarrierARM).cast(),
        tensor_memory_barrier_count: 1,
        tensor_memory_barriers: pair.as_ptr(),
        ..Default::default()
    };
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&both as *const vk::TensorDependencyInfoARM).cast()
        )),
        Err(VALIDATION_FAILED),
        "VkTensorDependencyInfoARM and VkTensorMemoryBarrierARM both chained"
    );
    // A barrier naming an unbound tensor, directly and in an array.
    let bad = tensor_barrier(unbound);
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&bad as *const vk::TensorMemoryBarrierARM).cast()
        )),
        Err(VALIDATION_FAILED),
        "barrier on an unbound tensor"
    );
    let bad_pair = [tensor_barrier(a.tensor), tensor_barrier(unbound)];
    let bad_info = vk::TensorDependencyInfoARM {
        tensor_memory_barrier_count: 2,
        tensor_memory_barriers: bad_pair.as_ptr(),
        ..Default::default()
    };
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&bad_info as *const vk::TensorDependencyInfoARM).cast()
        )),
        Err(VALIDATION_FAILED),
        "VkTensorDependencyInfoARM naming an unbound tensor"
    );
    // Positive control.
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&single as *const vk::TensorMemoryBarrierARM).cast()
        )),
        Ok(())
    );
}

/// Shapes and sizes that reach each of the driver's copy kernels: element
/// loops and gathers (outer dimension strided once unit dimensions are
/// dropped), short rows, long rows, multi-threaded splits (≥ 1 MiB) and the
/// streaming memcpy (≥ 32 MiB packed).
#[test]
fn copies_large_and_degenerate_shapes() {
    let ctx = Ctx::with_tensors();
    let mut seed = 1400;
    let cases: &[(vk::Format, &[i64])] = &[
        (vk::Format::R32_UINT, &[1000, 1]),
        (vk::Format::R64_UINT, &[333, 1, 1]),
        (vk::Format::R16_UINT, &[4096, 1]),
        (vk::Format::R8_UINT, &[777, 1]),
        (vk::Format::R32_SFLOAT, &[1024, 1031]),
        (vk::Format::R8_UINT, &[262_144, 5]),
        (vk::Format::R16_UINT, &[64, 64, 64, 3]),
        (vk::Format::R64_SINT, &[3, 1, 70_001]),
    ];
    for (format, dims) in cases {
        let packed = TensorInfo::linear(*format, dims);
        let padded = cts_padded(TensorInfo::linear(*format, dims));
        copy_case(&ctx, packed.clone(), padded.clone(), Region::Whole, seed);
        copy_case(&ctx, padded, packed, Region::Whole, seed + 1);
        seed += 2;
    }

    // 40 MiB packed -> packed (and optimal): compared directly.
    let dims = [2560i64, 4096];
    let info = TensorInfo::linear(vk::Format::R32_UINT, &dims);
    let size = info.footprint();
    let mut scratch = Scratch::new(&ctx, 2 * size + 64);
    let s = scratch.place(info.clone(), 0);
    let d = scratch.place(TensorInfo::optimal(vk::Format::R32_UINT, &dims), size + 64);
    scratch.fill(seed);
    let before = scratch.bytes();
    ctx.run(|dev, cb| cmd_copy_whole_tensor(dev, cb, s.tensor, d.tensor));
    let after = scratch.bytes();
    assert_same(
        &after[..size as usize],
        &before[..size as usize],
        "40 MiB source",
    );
    assert_same(
        &after[(size + 64) as usize..],
        &before[..size as usize],
        "40 MiB packed copy",
    );
}

#[test]
fn copy_between_separate_allocations() {
    let ctx = Ctx::with_tensors();
    let dims = [37i64, 43, 47];
    let format = vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM;
    let mut a = Scratch::new(&ctx, 128 << 10);
    let mut b = Scratch::new(&ctx, 128 << 10);
    let s = a.place(cts_padded(TensorInfo::linear(format, &dims)), 0);
    let d = b.place(TensorInfo::optimal(format, &dims), 4096);
    a.fill(1500);
    b.fill(1501);
    let (a0, b0) = (a.bytes(), b.bytes());
    ctx.run(|dev, cb| cmd_copy_whole_tensor(dev, cb, s.tensor, d.tensor));
    assert_same(&a.bytes(), &a0, "source allocation");
    let mut want = b0.clone();
    for (so, dof) in s.offsets().into_iter().zip(d.offsets()) {
        want[dof as usize] = a0[so as usize];
    }
    assert_same(&b.bytes(), &want, "destination allocation");
}

#[test]
fn copies_in_secondary_command_buffers() {
    let ctx = Ctx::with_tensors();
    let dims = [13i64, 17, 19];
    let format = vk::Format::R32_UINT;
    let mut scratch = Scratch::new(&ctx, 64 << 10);
    let s = scratch.place(TensorInfo::linear(format, &dims), 0);
    let d = scratch.place(cts_padded(TensorInfo::linear(format, &dims)), 32 << 10);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let secondary = ctx.command_buffers(pool, vk::CommandBufferLevel::SECONDARY, 2);
    let inheritance = vk::CommandBufferInheritanceInfo::builder();
    let begin = vk::CommandBufferBeginInfo::builder().inheritance_info(&inheritance);
    // SAFETY: fresh secondary command buffers of this device.
    unsafe {
        ctx.device
            .begin_command_buffer(secondary[0], &begin)
            .unwrap();
        cmd_copy_whole_tensor(&ctx.device, secondary[0], s.tensor, d.tensor);
        ctx.device.end_command_buffer(secondary[0]).unwrap();
        // An invalid copy in a secondary is reported by its vkEndCommandBuffer.
        ctx.device
            .begin_command_buffer(secondary[1], &begin)
            .unwrap();
        cmd_copy_tensor_regions(&ctx.device, secondary[1], s.tensor, d.tensor, &[]);
        assert_eq!(
            ctx.device.end_command_buffer(secondary[1]),
            Err(VALIDATION_FAILED)
        );
    }
    scratch.fill(1600);
    let before = scratch.bytes();
    let want = model_copy(&before, &s, &d);
    // SAFETY: recording primary; the secondary is executable.
    ctx.run(|dev, cb| unsafe { dev.cmd_execute_commands(cb, &secondary[..1]) });
    assert_same(&scratch.bytes(), &want, "copy recorded in a secondary");
}

#[test]
fn tensor_barriers_in_events_and_queue_family_checks() {
    let ctx = Ctx::with_tensors();
    let format = vk::Format::R16_SINT;
    let dims = [23i64, 29];
    let mut scratch = Scratch::new(&ctx, 16 << 10);
    let a = scratch.place(TensorInfo::linear(format, &dims), 0);
    let b = scratch.place(cts_padded(TensorInfo::linear(format, &dims)), 4096);
    let c = scratch.place(TensorInfo::optimal(format, &dims), 8192);
    let single = tensor_barrier(b.tensor);
    let dep = vk::DependencyInfo {
        next: (&single as *const vk::TensorMemoryBarrierARM).cast(),
        ..Default::default()
    };
    let event = ctx.event();

    // vkCmdSetEvent2 + vkCmdWaitEvents2 carrying the tensor barrier.
    scratch.fill(1700);
    let before = scratch.bytes();
    ctx.run(|d, cb| {
        cmd_copy_whole_tensor(d, cb, a.tensor, b.tensor);
        // SAFETY: recording; `dep` and its chain outlive the calls.
        unsafe {
            d.cmd_set_event2(cb, event, &dep);
            d.cmd_wait_events2(cb, &[event], std::slice::from_ref(&dep));
        }
        cmd_copy_whole_tensor(d, cb, b.tensor, c.tensor);
    });
    let want = model_copy(&model_copy(&before, &a, &b), &b, &c);
    assert_same(&scratch.bytes(), &want, "copies ordered by an event");

    // Both tensor structures chained, in the event commands.
    let pair = [tensor_barrier(a.tensor)];
    let both = vk::TensorDependencyInfoARM {
        next: (&single as *const vk::TensorMemoryBarrierARM).cast(),
        tensor_memory_barrier_count: 1,
        tensor_memory_barriers: pair.as_ptr(),
        ..Default::default()
    };
    let bad_dep = vk::DependencyInfo {
        next: (&both as *const vk::TensorDependencyInfoARM).cast(),
        ..Default::default()
    };
    assert_eq!(
        // SAFETY: recording; the chain outlives the call.
        ctx.record_only(|d, cb| unsafe { d.cmd_set_event2(cb, event, &bad_dep) }),
        Err(VALIDATION_FAILED),
        "vkCmdSetEvent2 with both tensor structures"
    );
    assert_eq!(
        // SAFETY: as above.
        ctx.record_only(|d, cb| unsafe {
            d.cmd_wait_events2(cb, &[event], std::slice::from_ref(&bad_dep))
        }),
        Err(VALIDATION_FAILED),
        "vkCmdWaitEvents2 with both tensor structures"
    );

    // Queue family indices: IGNORED/IGNORED and 0/0 are fine, a family that
    // does not exist is not.
    let mut same = tensor_barrier(a.tensor);
    same.src_queue_family_index = 0;
    same.dst_queue_family_index = 0;
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&same as *const vk::TensorMemoryBarrierARM).cast()
        )),
        Ok(())
    );
    let mut bogus = tensor_barrier(a.tensor);
    bogus.src_queue_family_index = 7;
    bogus.dst_queue_family_index = 0;
    assert_eq!(
        ctx.record_only(|d, cb| barrier2(
            d,
            cb,
            (&bogus as *const vk::TensorMemoryBarrierARM).cast()
        )),
        Err(VALIDATION_FAILED),
        "queue family 7 does not exist"
    );
}

/// Offsets above 4 GiB and strides above 2 GiB: no 32-bit truncation
/// anywhere. Needs a 4.3 GiB allocation (skipped on hosts with a heap under
/// 8 GiB).
#[test]
fn strides_and_offsets_beyond_32_bits() {
    let ctx = Ctx::with_tensors();
    let heap = ctx.memory_properties.memory_heaps[0].size;
    if heap < 8 << 30 {
        eprintln!("skipped: heap of {heap} bytes is under 8 GiB");
        return;
    }
    let format = vk::Format::R32_UINT;
    let dims = [2i64, 16];
    let big = [(1i64 << 31) + 64, 4];
    let wide = TensorInfo::linear(format, &dims).with_strides(&big);
    let packed = TensorInfo::linear(format, &dims);
    let packed_off = (1u64 << 32) + (1 << 20);
    let total = packed_off + 2 * 4096;
    let memory = ctx.host_memory(total);
    let w = ctx.tensor(&mut wide.clone());
    let p = ctx.tensor(&mut packed.clone());
    let p2 = ctx.tensor(&mut packed.clone());
    ctx.bind_tensor(w, memory.memory, 0).unwrap();
    ctx.bind_tensor(p, memory.memory, packed_off).unwrap();
    ctx.bind_tensor(p2, memory.memory, packed_off + 4096)
        .unwrap();

    let wide_offsets = element_offsets(&dims, &big);
    let values = pattern_bytes(wide_offsets.len() * 4, 1800);
    for (i, o) in wide_offsets.iter().enumerate() {
        memory.write(*o, &values[i * 4..i * 4 + 4]);
    }
    memory.write(packed_off, &[0xCD; 8192]);
    ctx.run(|d, cb| {
        cmd_copy_whole_tensor(d, cb, w, p);
        let barrier = vk::MemoryBarrier2::builder()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ);
        let dep = vk::DependencyInfo::builder().memory_barriers(std::slice::from_ref(&barrier));
        // SAFETY: recording command buffer.
        unsafe { d.cmd_pipeline_barrier2(cb, &dep) };
        // And back: the 0xCD packed tensor over the wide one's elements.
        cmd_copy_whole_tensor(d, cb, p2, w);
    });
    // SAFETY: the mapping covers `total` bytes; the device is idle.
    let read = |off: u64, len: usize| unsafe {
        std::slice::from_raw_parts(memory.ptr().add(off as usize), len).to_vec()
    };
    let mut want = values.clone();
    want.extend_from_slice(&[0xCD; 8192 - 128]);
    assert_same(
        &read(packed_off, 8192),
        &want,
        "wide (2 GiB strides) -> packed at 4 GiB",
    );
    for row in 0..2u64 {
        let start = row * big[0] as u64;
        assert_eq!(read(start, 64), vec![0xCD; 64], "wide row {row}");
        if start > 0 {
            assert_eq!(read(start - 64, 64), vec![0; 64], "before wide row {row}");
        }
        assert_eq!(read(start + 64, 64), vec![0; 64], "after wide row {row}");
    }
}

/// `vkGetDeviceProcAddr` must return NULL for the commands of a device
/// extension that was not enabled ("any other case" row of the spec's
/// vkGetDeviceProcAddr table; CTS `api.version_check.entry_points`).
#[test]

fn tensor_commands_are_null_on_devices_without_the_extension() {
    let ctx = Ctx::new();
    assert!(
        !ctx.enabled_extensions
            .iter()
            .any(|e| e == ARM_TENSORS_EXTENSION_NAME)
    );
    let resolved: Vec<_> = DEVICE_COMMANDS
        .iter()
        .filter(|name| ctx.device_proc_addr(name).is_some())
        .collect();
    assert!(
        resolved.is_empty(),
        "vkGetDeviceProcAddr resolved {resolved:?} on a device without VK_ARM_tensors"
    );
}
