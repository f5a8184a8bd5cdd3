//! Wrong input returns an error instead of crashing: memory, buffers,
//! binding and the command-buffer state machine.

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

const VALIDATION_FAILED: vk::ErrorCode = vk::ErrorCode::VALIDATION_FAILED;

fn allocate(ctx: &Ctx, size: u64, type_index: u32) -> VkResult<vk::DeviceMemory> {
    let info = vk::MemoryAllocateInfo::builder()
        .allocation_size(size)
        .memory_type_index(type_index);
    // SAFETY: structurally valid create info; the driver must reject bad values.
    unsafe { ctx.device.allocate_memory(&info, None) }
}

#[test]
fn zero_sized_allocation_fails_validation() {
    let ctx = Ctx::new();
    assert_eq!(allocate(&ctx, 0, ctx.memory_type), Err(VALIDATION_FAILED));
}

#[test]
fn allocation_larger_than_heap_is_out_of_device_memory() {
    let ctx = Ctx::new();
    let heap = ctx.memory_properties.memory_types[ctx.memory_type as usize].heap_index;
    let heap_size = ctx.memory_properties.memory_heaps[heap as usize].size;
    let size = heap_size.saturating_mul(2).max(heap_size + 1);
    assert_eq!(
        allocate(&ctx, size, ctx.memory_type),
        Err(vk::ErrorCode::OUT_OF_DEVICE_MEMORY),
        "allocating {size} bytes from a {heap_size}-byte heap"
    );
}

#[test]
fn memory_type_index_out_of_range_fails_validation() {
    let ctx = Ctx::new();
    let count = ctx.memory_properties.memory_type_count;
    assert_eq!(allocate(&ctx, 4096, count), Err(VALIDATION_FAILED));
    assert_eq!(allocate(&ctx, 4096, 31), Err(VALIDATION_FAILED));
}

#[test]
fn bad_mappings_fail_validation() {
    let ctx = Ctx::new();
    let memory = ctx.memory(4096);
    // SAFETY: `memory` is host visible; the invalid calls must be rejected.
    unsafe {
        assert_eq!(
            ctx.device
                .map_memory(memory, 8192, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map(|_| ()),
            Err(VALIDATION_FAILED),
            "map offset beyond the allocation"
        );
        ctx.device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .expect("first map");
        assert_eq!(
            ctx.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map(|_| ()),
            Err(VALIDATION_FAILED),
            "map of already-mapped memory"
        );
        ctx.device.unmap_memory(memory);
        let ptr = ctx
            .device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .expect("map after unmap");
        assert!(!ptr.is_null());
        ctx.device.unmap_memory(memory);
    }
}

#[test]
fn bad_binds_fail_validation() {
    let ctx = Ctx::new();
    let buffer = ctx.transfer_buffer(1024);
    // SAFETY: live buffer.
    let reqs = unsafe { ctx.device.get_buffer_memory_requirements(buffer) };
    assert!(reqs.alignment > 1);
    let memory = ctx.memory(reqs.size + reqs.alignment);
    // SAFETY: the invalid binds must be rejected without binding anything.
    unsafe {
        assert_eq!(
            ctx.device
                .bind_buffer_memory(buffer, memory, reqs.alignment * 2),
            Err(VALIDATION_FAILED),
            "offset + size beyond the allocation"
        );
        assert_eq!(
            ctx.device.bind_buffer_memory(buffer, memory, 1),
            Err(VALIDATION_FAILED),
            "misaligned offset"
        );
        let info = [vk::BindBufferMemoryInfo::builder()
            .buffer(buffer)
            .memory(memory)
            .memory_offset(reqs.alignment / 2)];
        assert_eq!(
            ctx.device.bind_buffer_memory2(&info),
            Err(VALIDATION_FAILED),
            "misaligned offset via vkBindBufferMemory2"
        );
        // The buffer is still unbound, so a valid bind succeeds.
        ctx.device
            .bind_buffer_memory(buffer, memory, reqs.alignment)
            .expect("valid bind after the rejected ones");
    }
}

#[test]
fn zero_sized_buffer_fails_validation() {
    let ctx = Ctx::new();
    let info = vk::BufferCreateInfo::builder()
        .size(0)
        .usage(vk::BufferUsageFlags::TRANSFER_DST)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: structurally valid create info; size 0 must be rejected.
    let r = unsafe { ctx.device.create_buffer(&info, None) };
    assert_eq!(r, Err(VALIDATION_FAILED));
}

#[test]
fn command_buffer_state_errors() {
    let ctx = Ctx::new();
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    let fence = ctx.fence(false);
    let begin = vk::CommandBufferBeginInfo::builder();
    // SAFETY: `cb` belongs to this device; the invalid transitions must be rejected.
    unsafe {
        assert_eq!(
            ctx.device.end_command_buffer(cb),
            Err(VALIDATION_FAILED),
            "vkEndCommandBuffer on an initial-state command buffer"
        );
        ctx.device.begin_command_buffer(cb, &begin).expect("begin");
        assert_eq!(
            ctx.device.begin_command_buffer(cb, &begin),
            Err(VALIDATION_FAILED),
            "vkBeginCommandBuffer on a recording command buffer"
        );
        assert_eq!(
            ctx.submit(ctx.queue(), &[cb], fence),
            Err(VALIDATION_FAILED),
            "vkQueueSubmit of a command buffer that is still recording"
        );
        // The rejected submit must not have signalled (or consumed) the fence.
        assert_eq!(
            ctx.device.get_fence_status(fence),
            Ok(vk::SuccessCode::NOT_READY)
        );
        ctx.device.end_command_buffer(cb).expect("end");
        assert_eq!(
            ctx.device.end_command_buffer(cb),
            Err(VALIDATION_FAILED),
            "vkEndCommandBuffer on an executable command buffer"
        );
        ctx.submit(ctx.queue(), &[cb], fence)
            .expect("the ended command buffer submits");
    }
    ctx.wait(fence);
}

#[test]
fn out_of_range_copy_is_a_sticky_recording_error() {
    let ctx = Ctx::new();
    let src = ctx.host_buffer(64);
    let dst = ctx.host_buffer(64);
    dst.fill(0xAB);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    let region = vk::BufferCopy::builder()
        .src_offset(32)
        .dst_offset(0)
        .size(64);
    // SAFETY: recording state; the bad region must be caught, not executed.
    unsafe {
        ctx.device
            .cmd_copy_buffer(cb, src.buffer, dst.buffer, &[region]);
        ctx.device.cmd_fill_buffer(cb, dst.buffer, 0, 4, 7);
        assert_eq!(
            ctx.device.end_command_buffer(cb),
            Err(VALIDATION_FAILED),
            "copy region past the end of the source buffer"
        );
        // After a reset the command buffer is usable again.
        ctx.device
            .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
            .expect("reset");
    }
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    // SAFETY: recording state, in-range fill.
    unsafe { ctx.device.cmd_fill_buffer(cb, dst.buffer, 0, 4, 7) };
    ctx.end(cb);
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
    ctx.wait(fence);
    assert_eq!(dst.read_u32s()[0], 7);
    assert!(dst.read()[4..].iter().all(|&b| b == 0xAB));
}

#[test]
fn graphics_command_is_a_sticky_recording_error() {
    let ctx = Ctx::new();
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    // SAFETY: a graphics command on a compute-only device must be recorded
    // as an error and reported by vkEndCommandBuffer, not executed.
    unsafe {
        ctx.device.cmd_draw(cb, 3, 1, 0, 0);
        assert_eq!(
            ctx.device.end_command_buffer(cb),
            Err(VALIDATION_FAILED),
            "vkCmdDraw on a compute-only queue family"
        );
    }
}

/// Samplers are created and destroyed (nothing can sample through them: there are no images);
/// parameters that break a rule give `VK_ERROR_VALIDATION_FAILED`.
#[test]
fn samplers_are_validated_objects() {
    let ctx = Ctx::new();
    let good = vk::SamplerCreateInfo::builder()
        .mag_filter(vk::Filter::LINEAR)
        .min_filter(vk::Filter::LINEAR)
        .max_lod(4.0);
    // SAFETY: valid create info on a live device.
    let s = unsafe { ctx.device.create_sampler(&good, None) }.expect("vkCreateSampler");
    // SAFETY: `s` is not in use.
    unsafe { ctx.device.destroy_sampler(s, None) };
    // SAFETY: destroying VK_NULL_HANDLE is allowed.
    unsafe { ctx.device.destroy_sampler(vk::Sampler::null(), None) };
    let bad = [
        vk::SamplerCreateInfo::builder().min_lod(2.0).max_lod(1.0),
        vk::SamplerCreateInfo::builder().mip_lod_bias(1000.0),
        vk::SamplerCreateInfo::builder()
            .anisotropy_enable(true)
            .max_anisotropy(4.0),
        vk::SamplerCreateInfo::builder()
            .unnormalized_coordinates(true)
            .max_lod(1.0),
    ];
    for (i, info) in bad.iter().enumerate() {
        // SAFETY: valid structure; the values break rules the driver checks.
        let r = unsafe { ctx.device.create_sampler(info, None) };
        assert_eq!(r.err(), Some(vk::ErrorCode::VALIDATION_FAILED), "case {i}");
    }
}
