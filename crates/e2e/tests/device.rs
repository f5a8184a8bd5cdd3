//! Logical device creation (accepted and rejected requests), queues,
//! private data and `vkGetDeviceProcAddr`.

use std::ffi::CStr;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

/// Instance + Tessera physical device, for tests that create devices themselves.
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

    /// Creates a device with `info`, destroying it again on success.
    fn try_device(&self, info: &vk::DeviceCreateInfo) -> VkResult<()> {
        let _guard = loader_device_lock();
        // SAFETY: `info` is a complete create info whose pointers outlive the call.
        let device = unsafe { self.instance.create_device(self.pd, info, None) }?;
        // SAFETY: the device has no children and no work.
        unsafe {
            device.device_wait_idle().expect("vkDeviceWaitIdle");
            device.destroy_device(None);
        }
        Ok(())
    }
}

impl Drop for Inst {
    fn drop(&mut self) {
        // SAFETY: every device was destroyed.
        unsafe { self.instance.destroy_instance(None) };
    }
}

static PRIORITIES: [f32; 4] = [1.0; 4];

fn queue_info(family: u32, count: usize) -> vk::DeviceQueueCreateInfoBuilder<'static> {
    vk::DeviceQueueCreateInfo::builder()
        .queue_family_index(family)
        .queue_priorities(&PRIORITIES[..count])
}

#[test]
fn create_device_with_scenario_runner_feature_chain() {
    let inst = Inst::new();
    // The feature set Arm's scenario-runner asks for, as a
    // VkPhysicalDeviceFeatures2 chain with pEnabledFeatures = NULL.
    let mut f11 = vk::PhysicalDeviceVulkan11Features::builder().storage_buffer_16bit_access(true);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::builder()
        .shader_int8(true)
        .storage_buffer_8bit_access(true)
        .host_query_reset(true)
        .vulkan_memory_model(true)
        .timeline_semaphore(true)
        .buffer_device_address(true);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::builder()
        .synchronization2(true)
        .maintenance4(true)
        .pipeline_creation_cache_control(true);
    let base = vk::PhysicalDeviceFeatures::builder()
        .shader_int16(true)
        .shader_int64(true)
        .build();
    let mut f2 = vk::PhysicalDeviceFeatures2::builder().features(base);
    let queues = [queue_info(0, 1)];
    let info = vk::DeviceCreateInfo::builder()
        .queue_create_infos(&queues)
        .push_next(&mut f2)
        .push_next(&mut f11)
        .push_next(&mut f12)
        .push_next(&mut f13);
    assert!(info.enabled_features.is_null());
    assert_eq!(inst.try_device(&info), Ok(()));
}

#[test]
fn create_device_with_enabled_features_pointer_and_extensions() {
    let inst = Inst::new();
    let base = vk::PhysicalDeviceFeatures::builder()
        .robust_buffer_access(true)
        .shader_int64(true)
        .shader_float64(true);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::builder()
        .timeline_semaphore(true)
        .buffer_device_address(true);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::builder()
        .synchronization2(true)
        .maintenance4(true)
        .private_data(true);
    let ext_names: Vec<_> = [
        c"VK_KHR_synchronization2",
        c"VK_KHR_timeline_semaphore",
        c"VK_KHR_buffer_device_address",
        c"VK_KHR_maintenance4",
        c"VK_KHR_copy_commands2",
        c"VK_KHR_map_memory2",
    ]
    .iter()
    .map(|c| c.as_ptr())
    .collect();
    let queues = [queue_info(0, 4)];
    let info = vk::DeviceCreateInfo::builder()
        .queue_create_infos(&queues)
        .enabled_features(&base)
        .enabled_extension_names(&ext_names)
        .push_next(&mut f12)
        .push_next(&mut f13);
    assert_eq!(inst.try_device(&info), Ok(()));
}

#[test]
fn unknown_extension_is_rejected() {
    let inst = Inst::new();
    let names = [c"VK_TESSERA_does_not_exist".as_ptr()];
    let queues = [queue_info(0, 1)];
    let info = vk::DeviceCreateInfo::builder()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names);
    assert_eq!(
        inst.try_device(&info),
        Err(vk::ErrorCode::EXTENSION_NOT_PRESENT)
    );
}

#[test]
fn unsupported_features_are_rejected() {
    let inst = Inst::new();
    let queues = [queue_info(0, 1)];
    for (name, features) in [
        (
            "geometryShader",
            vk::PhysicalDeviceFeatures::builder()
                .geometry_shader(true)
                .build(),
        ),
        (
            "sparseBinding",
            vk::PhysicalDeviceFeatures::builder()
                .sparse_binding(true)
                .build(),
        ),
    ] {
        let info = vk::DeviceCreateInfo::builder()
            .queue_create_infos(&queues)
            .enabled_features(&features);
        assert_eq!(
            inst.try_device(&info),
            Err(vk::ErrorCode::FEATURE_NOT_PRESENT),
            "{name} via pEnabledFeatures"
        );
        // The same through a VkPhysicalDeviceFeatures2 chain.
        let mut f2 = vk::PhysicalDeviceFeatures2::builder().features(features);
        let info = vk::DeviceCreateInfo::builder()
            .queue_create_infos(&queues)
            .push_next(&mut f2);
        assert_eq!(
            inst.try_device(&info),
            Err(vk::ErrorCode::FEATURE_NOT_PRESENT),
            "{name} via VkPhysicalDeviceFeatures2"
        );
    }
}

#[test]
fn bad_queue_requests_are_rejected() {
    let inst = Inst::new();
    // SAFETY: live physical device.
    let family = unsafe {
        inst.instance
            .get_physical_device_queue_family_properties(inst.pd)
    }[0];

    let queues = [queue_info(1, 1)];
    let info = vk::DeviceCreateInfo::builder().queue_create_infos(&queues);
    assert_eq!(
        inst.try_device(&info),
        Err(vk::ErrorCode::VALIDATION_FAILED),
        "queue family index 1 does not exist"
    );

    let priorities = vec![1.0f32; family.queue_count as usize + 1];
    let queues = [vk::DeviceQueueCreateInfo::builder()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::builder().queue_create_infos(&queues);
    assert_eq!(
        inst.try_device(&info),
        Err(vk::ErrorCode::VALIDATION_FAILED),
        "queueCount {} > {}",
        priorities.len(),
        family.queue_count
    );
}

#[test]
fn get_device_queue_for_every_index() {
    let inst = Inst::new();
    // SAFETY: live physical device.
    let count = unsafe {
        inst.instance
            .get_physical_device_queue_family_properties(inst.pd)
    }[0]
    .queue_count
    .min(PRIORITIES.len() as u32);
    drop(inst);

    let ctx = Ctx::with_queues(count);
    let mut seen = Vec::new();
    for i in 0..count {
        let q = ctx.queues[i as usize];
        assert!(!q.is_null(), "queue {i} is NULL");
        let info = vk::DeviceQueueInfo2::builder()
            .queue_family_index(ctx.queue_family)
            .queue_index(i);
        // SAFETY: the queue was requested at device creation.
        let (q1, q2) = unsafe {
            (
                ctx.device.get_device_queue(ctx.queue_family, i),
                ctx.device.get_device_queue2(&info),
            )
        };
        assert_eq!(q1, q, "vkGetDeviceQueue is stable for index {i}");
        assert_eq!(q2, q, "vkGetDeviceQueue2 agrees for index {i}");
        // SAFETY: `q` is a queue of this device.
        unsafe { ctx.device.queue_wait_idle(q) }.expect("vkQueueWaitIdle");
        seen.push(q);
    }
    seen.sort_by_key(|q| q.as_raw());
    seen.dedup();
    assert_eq!(seen.len(), count as usize, "queue handles are distinct");
    // SAFETY: live device.
    unsafe { ctx.device.device_wait_idle() }.expect("vkDeviceWaitIdle");
}

#[test]
fn private_data_round_trips() {
    let ctx = Ctx::new();
    assert!(ctx.features.private_data, "privateData feature");
    let slot = ctx.private_data_slot();
    let other = ctx.private_data_slot();
    let buffer = ctx.transfer_buffer(64);
    let fence = ctx.fence(false);
    let unset_fence = ctx.fence(false);
    // SAFETY: live objects of this device; the slots are live.
    unsafe {
        ctx.device
            .set_private_data(
                vk::ObjectType::BUFFER,
                buffer.as_raw(),
                slot,
                0xDEAD_BEEF_1234,
            )
            .expect("vkSetPrivateData(buffer)");
        ctx.device
            .set_private_data(vk::ObjectType::FENCE, fence.as_raw(), slot, 42)
            .expect("vkSetPrivateData(fence)");
        ctx.device
            .set_private_data(vk::ObjectType::FENCE, fence.as_raw(), other, 7)
            .expect("vkSetPrivateData(fence, other slot)");

        let get = |ty, handle, slot| ctx.device.get_private_data(ty, handle, slot);
        assert_eq!(
            get(vk::ObjectType::BUFFER, buffer.as_raw(), slot),
            0xDEAD_BEEF_1234
        );
        assert_eq!(get(vk::ObjectType::FENCE, fence.as_raw(), slot), 42);
        assert_eq!(get(vk::ObjectType::FENCE, fence.as_raw(), other), 7);
        assert_eq!(get(vk::ObjectType::BUFFER, buffer.as_raw(), other), 0);
        assert_eq!(get(vk::ObjectType::FENCE, unset_fence.as_raw(), slot), 0);

        ctx.device
            .set_private_data(vk::ObjectType::FENCE, fence.as_raw(), slot, 43)
            .expect("overwrite");
        assert_eq!(get(vk::ObjectType::FENCE, fence.as_raw(), slot), 43);
    }
}

/// Vulkan 1.0–1.3 core device commands, compute and graphics alike.
const CORE_DEVICE_COMMANDS: &[&CStr] = &[
    c"vkDestroyDevice",
    c"vkGetDeviceQueue",
    c"vkQueueSubmit",
    c"vkQueueWaitIdle",
    c"vkDeviceWaitIdle",
    c"vkAllocateMemory",
    c"vkFreeMemory",
    c"vkMapMemory",
    c"vkUnmapMemory",
    c"vkFlushMappedMemoryRanges",
    c"vkInvalidateMappedMemoryRanges",
    c"vkGetDeviceMemoryCommitment",
    c"vkBindBufferMemory",
    c"vkBindImageMemory",
    c"vkGetBufferMemoryRequirements",
    c"vkGetImageMemoryRequirements",
    c"vkGetImageSparseMemoryRequirements",
    c"vkQueueBindSparse",
    c"vkCreateFence",
    c"vkDestroyFence",
    c"vkResetFences",
    c"vkGetFenceStatus",
    c"vkWaitForFences",
    c"vkCreateSemaphore",
    c"vkDestroySemaphore",
    c"vkCreateEvent",
    c"vkDestroyEvent",
    c"vkGetEventStatus",
    c"vkSetEvent",
    c"vkResetEvent",
    c"vkCreateQueryPool",
    c"vkDestroyQueryPool",
    c"vkGetQueryPoolResults",
    c"vkCreateBuffer",
    c"vkDestroyBuffer",
    c"vkCreateBufferView",
    c"vkDestroyBufferView",
    c"vkCreateImage",
    c"vkDestroyImage",
    c"vkGetImageSubresourceLayout",
    c"vkCreateImageView",
    c"vkDestroyImageView",
    c"vkCreateShaderModule",
    c"vkDestroyShaderModule",
    c"vkCreatePipelineCache",
    c"vkDestroyPipelineCache",
    c"vkGetPipelineCacheData",
    c"vkMergePipelineCaches",
    c"vkCreateGraphicsPipelines",
    c"vkCreateComputePipelines",
    c"vkDestroyPipeline",
    c"vkCreatePipelineLayout",
    c"vkDestroyPipelineLayout",
    c"vkCreateSampler",
    c"vkDestroySampler",
    c"vkCreateDescriptorSetLayout",
    c"vkDestroyDescriptorSetLayout",
    c"vkCreateDescriptorPool",
    c"vkDestroyDescriptorPool",
    c"vkResetDescriptorPool",
    c"vkAllocateDescriptorSets",
    c"vkFreeDescriptorSets",
    c"vkUpdateDescriptorSets",
    c"vkCreateFramebuffer",
    c"vkDestroyFramebuffer",
    c"vkCreateRenderPass",
    c"vkDestroyRenderPass",
    c"vkGetRenderAreaGranularity",
    c"vkCreateCommandPool",
    c"vkDestroyCommandPool",
    c"vkResetCommandPool",
    c"vkAllocateCommandBuffers",
    c"vkFreeCommandBuffers",
    c"vkBeginCommandBuffer",
    c"vkEndCommandBuffer",
    c"vkResetCommandBuffer",
    c"vkCmdBindPipeline",
    c"vkCmdSetViewport",
    c"vkCmdSetScissor",
    c"vkCmdSetLineWidth",
    c"vkCmdSetDepthBias",
    c"vkCmdSetBlendConstants",
    c"vkCmdSetDepthBounds",
    c"vkCmdSetStencilCompareMask",
    c"vkCmdSetStencilWriteMask",
    c"vkCmdSetStencilReference",
    c"vkCmdBindDescriptorSets",
    c"vkCmdBindIndexBuffer",
    c"vkCmdBindVertexBuffers",
    c"vkCmdDraw",
    c"vkCmdDrawIndexed",
    c"vkCmdDrawIndirect",
    c"vkCmdDrawIndexedIndirect",
    c"vkCmdDispatch",
    c"vkCmdDispatchIndirect",
    c"vkCmdCopyBuffer",
    c"vkCmdCopyImage",
    c"vkCmdBlitImage",
    c"vkCmdCopyBufferToImage",
    c"vkCmdCopyImageToBuffer",
    c"vkCmdUpdateBuffer",
    c"vkCmdFillBuffer",
    c"vkCmdClearColorImage",
    c"vkCmdClearDepthStencilImage",
    c"vkCmdClearAttachments",
    c"vkCmdResolveImage",
    c"vkCmdSetEvent",
    c"vkCmdResetEvent",
    c"vkCmdWaitEvents",
    c"vkCmdPipelineBarrier",
    c"vkCmdBeginQuery",
    c"vkCmdEndQuery",
    c"vkCmdResetQueryPool",
    c"vkCmdWriteTimestamp",
    c"vkCmdCopyQueryPoolResults",
    c"vkCmdPushConstants",
    c"vkCmdBeginRenderPass",
    c"vkCmdNextSubpass",
    c"vkCmdEndRenderPass",
    c"vkCmdExecuteCommands",
    // 1.1
    c"vkBindBufferMemory2",
    c"vkBindImageMemory2",
    c"vkGetDeviceGroupPeerMemoryFeatures",
    c"vkCmdSetDeviceMask",
    c"vkCmdDispatchBase",
    c"vkGetImageMemoryRequirements2",
    c"vkGetBufferMemoryRequirements2",
    c"vkGetImageSparseMemoryRequirements2",
    c"vkTrimCommandPool",
    c"vkGetDeviceQueue2",
    c"vkCreateSamplerYcbcrConversion",
    c"vkDestroySamplerYcbcrConversion",
    c"vkCreateDescriptorUpdateTemplate",
    c"vkDestroyDescriptorUpdateTemplate",
    c"vkUpdateDescriptorSetWithTemplate",
    c"vkGetDescriptorSetLayoutSupport",
    // 1.2
    c"vkCmdDrawIndirectCount",
    c"vkCmdDrawIndexedIndirectCount",
    c"vkCreateRenderPass2",
    c"vkCmdBeginRenderPass2",
    c"vkCmdNextSubpass2",
    c"vkCmdEndRenderPass2",
    c"vkResetQueryPool",
    c"vkGetSemaphoreCounterValue",
    c"vkWaitSemaphores",
    c"vkSignalSemaphore",
    c"vkGetBufferDeviceAddress",
    c"vkGetBufferOpaqueCaptureAddress",
    c"vkGetDeviceMemoryOpaqueCaptureAddress",
    // 1.3
    c"vkCreatePrivateDataSlot",
    c"vkDestroyPrivateDataSlot",
    c"vkSetPrivateData",
    c"vkGetPrivateData",
    c"vkCmdSetEvent2",
    c"vkCmdResetEvent2",
    c"vkCmdWaitEvents2",
    c"vkCmdPipelineBarrier2",
    c"vkCmdWriteTimestamp2",
    c"vkQueueSubmit2",
    c"vkCmdCopyBuffer2",
    c"vkCmdCopyImage2",
    c"vkCmdCopyBufferToImage2",
    c"vkCmdCopyImageToBuffer2",
    c"vkCmdBlitImage2",
    c"vkCmdResolveImage2",
    c"vkCmdBeginRendering",
    c"vkCmdEndRendering",
    c"vkCmdSetCullMode",
    c"vkCmdSetFrontFace",
    c"vkCmdSetPrimitiveTopology",
    c"vkCmdSetViewportWithCount",
    c"vkCmdSetScissorWithCount",
    c"vkCmdBindVertexBuffers2",
    c"vkCmdSetDepthTestEnable",
    c"vkCmdSetDepthWriteEnable",
    c"vkCmdSetDepthCompareOp",
    c"vkCmdSetDepthBoundsTestEnable",
    c"vkCmdSetStencilTestEnable",
    c"vkCmdSetStencilOp",
    c"vkCmdSetRasterizerDiscardEnable",
    c"vkCmdSetDepthBiasEnable",
    c"vkCmdSetPrimitiveRestartEnable",
    c"vkGetDeviceBufferMemoryRequirements",
    c"vkGetDeviceImageMemoryRequirements",
    c"vkGetDeviceImageSparseMemoryRequirements",
];

#[test]
fn device_proc_addr_resolves_all_core_commands() {
    let ctx = Ctx::new();
    let missing: Vec<_> = CORE_DEVICE_COMMANDS
        .iter()
        .filter(|name| ctx.device_proc_addr(name).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "vkGetDeviceProcAddr returned NULL for {missing:?}"
    );
}

#[test]
fn device_proc_addr_resolves_extension_aliases() {
    let ctx = Ctx::new();
    // (alias, the advertised extension that provides it)
    let aliases: &[(&CStr, &str)] = &[
        (c"vkQueueSubmit2KHR", "VK_KHR_synchronization2"),
        (c"vkCmdPipelineBarrier2KHR", "VK_KHR_synchronization2"),
        (c"vkCmdWriteTimestamp2KHR", "VK_KHR_synchronization2"),
        (
            c"vkGetBufferDeviceAddressKHR",
            "VK_KHR_buffer_device_address",
        ),
        (c"vkMapMemory2KHR", "VK_KHR_map_memory2"),
        (c"vkUnmapMemory2KHR", "VK_KHR_map_memory2"),
        (c"vkCmdCopyBuffer2KHR", "VK_KHR_copy_commands2"),
        (
            c"vkGetSemaphoreCounterValueKHR",
            "VK_KHR_timeline_semaphore",
        ),
        (c"vkWaitSemaphoresKHR", "VK_KHR_timeline_semaphore"),
        (c"vkSignalSemaphoreKHR", "VK_KHR_timeline_semaphore"),
        (c"vkResetQueryPoolEXT", "VK_EXT_host_query_reset"),
        (
            c"vkGetDeviceBufferMemoryRequirementsKHR",
            "VK_KHR_maintenance4",
        ),
    ];
    let mut missing = Vec::new();
    for (name, ext) in aliases {
        assert!(
            ctx.enabled_extensions.iter().any(|e| e == ext),
            "{ext} is not advertised, so {name:?} cannot be enabled"
        );
        if ctx.device_proc_addr(name).is_none() {
            missing.push(*name);
        }
    }
    assert!(
        missing.is_empty(),
        "vkGetDeviceProcAddr returned NULL for {missing:?}"
    );
}

#[test]
fn device_proc_addr_rejects_unknown_and_instance_commands() {
    let ctx = Ctx::new();
    for name in [
        c"vkDoesNotExist",
        c"vkGetPhysicalDeviceProperties",
        c"vkEnumeratePhysicalDevices",
        c"vkCreateInstance",
    ] {
        assert!(
            ctx.device_proc_addr(name).is_none(),
            "vkGetDeviceProcAddr({name:?}) must be NULL"
        );
    }
}

/// Fills the bytes after `end` (the end of the last member) up to the size of
/// `T` with 0xFF, as an uninitialised stack struct in C or Rust may have them.
fn poison_tail_padding<T>(value: &mut T, end: usize) {
    let size = std::mem::size_of::<T>();
    assert!(size > end, "no tail padding to poison");
    // SAFETY: the written range lies inside `*value`, and only covers padding
    // bytes that carry no field.
    unsafe { std::ptr::write_bytes((value as *mut T).cast::<u8>().add(end), 0xFF, size - end) };
}

#[test]
fn feature_struct_tail_padding_is_ignored() {
    let inst = Inst::new();
    // VkPhysicalDeviceVulkan12Features (47 VkBool32) and ...13Features (15)
    // both end with 4 bytes of tail padding, which the spec leaves undefined.
    let mut f12 = vk::PhysicalDeviceVulkan12Features {
        timeline_semaphore: vk::TRUE,
        ..Default::default()
    };
    let mut f13 = vk::PhysicalDeviceVulkan13Features {
        synchronization2: vk::TRUE,
        ..Default::default()
    };
    poison_tail_padding(
        &mut f12,
        std::mem::offset_of!(
            vk::PhysicalDeviceVulkan12Features,
            subgroup_broadcast_dynamic_id
        ) + 4,
    );
    poison_tail_padding(
        &mut f13,
        std::mem::offset_of!(vk::PhysicalDeviceVulkan13Features, maintenance4) + 4,
    );
    let queues = [queue_info(0, 1)];
    let info = vk::DeviceCreateInfo::builder()
        .queue_create_infos(&queues)
        .push_next(&mut f12)
        .push_next(&mut f13);
    assert_eq!(
        inst.try_device(&info),
        Ok(()),
        "vkCreateDevice must only read the declared VkBool32 members, not tail padding"
    );
}
