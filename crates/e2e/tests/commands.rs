//! Transfer commands executed on the queue (results checked through
//! mappings), barriers, secondary command buffers, events recorded in
//! command buffers, and the command-buffer life cycle.

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::KhrCopyCommands2ExtensionDeviceCommands;

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn barrier(device: &Device, cb: vk::CommandBuffer) {
    let memory = vk::MemoryBarrier::builder()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE);
    // SAFETY: recording state.
    unsafe {
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[memory],
            &[] as &[vk::BufferMemoryBarrier],
            &[] as &[vk::ImageMemoryBarrier],
        )
    };
}

#[test]
fn copy_buffer_regions() {
    let ctx = Ctx::new();
    let src = ctx.host_buffer(256);
    let dst = ctx.host_buffer(256);
    let data = pattern(256, 1);
    src.write(0, &data);
    dst.fill(0);
    ctx.run(|device, cb| {
        let regions = [
            vk::BufferCopy::builder()
                .src_offset(16)
                .dst_offset(32)
                .size(64),
            vk::BufferCopy::builder()
                .src_offset(200)
                .dst_offset(0)
                .size(8),
        ];
        // SAFETY: recording state; regions are in range.
        unsafe { device.cmd_copy_buffer(cb, src.buffer, dst.buffer, &regions) };
    });
    let out = dst.read();
    assert_eq!(&out[32..96], &data[16..80]);
    assert_eq!(&out[0..8], &data[200..208]);
    assert!(out[8..32].iter().all(|&b| b == 0), "untouched bytes");
    assert!(out[96..].iter().all(|&b| b == 0), "untouched bytes");
}

#[test]
fn copy_buffer2_and_khr_alias() {
    let ctx = Ctx::new();
    let src = ctx.host_buffer(128);
    let dst = ctx.host_buffer(128);
    let data = pattern(128, 9);
    src.write(0, &data);
    dst.fill(0);
    ctx.run(|device, cb| {
        let r1 = [vk::BufferCopy2::builder()
            .src_offset(0)
            .dst_offset(64)
            .size(32)];
        let r2 = [vk::BufferCopy2::builder()
            .src_offset(64)
            .dst_offset(0)
            .size(16)];
        let info1 = vk::CopyBufferInfo2::builder()
            .src_buffer(src.buffer)
            .dst_buffer(dst.buffer)
            .regions(&r1);
        let info2 = vk::CopyBufferInfo2::builder()
            .src_buffer(src.buffer)
            .dst_buffer(dst.buffer)
            .regions(&r2);
        // SAFETY: recording state; regions are in range.
        unsafe {
            device.cmd_copy_buffer2(cb, &info1);
            device.cmd_copy_buffer2_khr(cb, &info2);
        }
    });
    let out = dst.read();
    assert_eq!(&out[64..96], &data[0..32], "vkCmdCopyBuffer2");
    assert_eq!(&out[0..16], &data[64..80], "vkCmdCopyBuffer2KHR");
    assert!(out[16..64].iter().all(|&b| b == 0));
}

#[test]
fn fill_buffer_ranges_and_whole_size() {
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(64);
    let other = ctx.host_buffer(64);
    buf.fill(0);
    other.fill(0);
    ctx.run(|device, cb| {
        // SAFETY: recording state; offsets and sizes are multiples of 4.
        unsafe {
            device.cmd_fill_buffer(cb, buf.buffer, 4, 8, 0x1122_3344);
            device.cmd_fill_buffer(cb, buf.buffer, 32, vk::WHOLE_SIZE, 0xCAFE_F00D);
            device.cmd_fill_buffer(cb, other.buffer, 0, vk::WHOLE_SIZE, 0x0101_0101);
        }
    });
    let words = buf.read_u32s();
    assert_eq!(words[0], 0);
    assert_eq!(&words[1..3], &[0x1122_3344; 2]);
    assert!(words[3..8].iter().all(|&w| w == 0));
    assert!(words[8..].iter().all(|&w| w == 0xCAFE_F00D), "{words:x?}");
    assert!(other.read().iter().all(|&b| b == 1));
}

#[test]
fn update_buffer_inline_data() {
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(256);
    buf.fill(0xEE);
    let data = pattern(100, 3);
    ctx.run(|device, cb| {
        // SAFETY: recording state; 100 bytes (multiple of 4) at offset 8.
        unsafe { device.cmd_update_buffer(cb, buf.buffer, 8, &data) };
    });
    let out = buf.read();
    assert_eq!(&out[8..108], &data[..]);
    assert!(out[..8].iter().all(|&b| b == 0xEE));
    assert!(out[108..].iter().all(|&b| b == 0xEE));
}

#[test]
fn fill_update_copy_with_barriers_v1_and_v2() {
    let ctx = Ctx::new();
    let a = ctx.host_buffer(64);
    let b = ctx.host_buffer(64);
    a.fill(0);
    b.fill(0);
    ctx.run(|device, cb| {
        let barrier2 = [vk::MemoryBarrier2::builder()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)];
        let buffer_barrier2 = [vk::BufferMemoryBarrier2::builder()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(b.buffer)
            .offset(0)
            .size(vk::WHOLE_SIZE)];
        let dep = vk::DependencyInfo::builder().memory_barriers(&barrier2);
        let dep_buffer = vk::DependencyInfo::builder().buffer_memory_barriers(&buffer_barrier2);
        // SAFETY: recording state; all ranges are in bounds.
        unsafe {
            device.cmd_fill_buffer(cb, a.buffer, 0, 64, 0x5555_5555);
            barrier(device, cb);
            device.cmd_update_buffer(cb, a.buffer, 0, &u32_bytes(&[1, 2, 3, 4]));
            device.cmd_pipeline_barrier2(cb, &dep);
            device.cmd_copy_buffer(
                cb,
                a.buffer,
                b.buffer,
                &[vk::BufferCopy::builder().size(64)],
            );
            device.cmd_pipeline_barrier2(cb, &dep_buffer);
        }
    });
    let words = b.read_u32s();
    assert_eq!(&words[..4], &[1, 2, 3, 4]);
    assert!(words[4..].iter().all(|&w| w == 0x5555_5555));
}

#[test]
fn secondary_command_buffers_executed_from_two_primaries() {
    let ctx = Ctx::new();
    let a = ctx.host_buffer(64);
    let b = ctx.host_buffer(64);
    let c = ctx.host_buffer(64);
    for buf in [&a, &b, &c] {
        buf.fill(0);
    }
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let secondary = ctx.command_buffers(pool, vk::CommandBufferLevel::SECONDARY, 1)[0];
    let primaries = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 2);

    let inheritance = vk::CommandBufferInheritanceInfo::builder();
    let begin = vk::CommandBufferBeginInfo::builder()
        .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE)
        .inheritance_info(&inheritance);
    // SAFETY: recording a secondary (A -> B copy) and two primaries that use it.
    unsafe {
        ctx.device
            .begin_command_buffer(secondary, &begin)
            .expect("begin secondary");
        ctx.device.cmd_copy_buffer(
            secondary,
            a.buffer,
            b.buffer,
            &[vk::BufferCopy::builder().size(64)],
        );
        ctx.device
            .end_command_buffer(secondary)
            .expect("end secondary");

        for (i, &p) in primaries.iter().enumerate() {
            ctx.begin(p, vk::CommandBufferUsageFlags::empty());
            ctx.device.cmd_fill_buffer(
                p,
                a.buffer,
                0,
                vk::WHOLE_SIZE,
                0x1111_1111 * (i as u32 + 1),
            );
            barrier(&ctx.device, p);
            ctx.device.cmd_execute_commands(p, &[secondary]);
            if i == 0 {
                barrier(&ctx.device, p);
                ctx.device.cmd_copy_buffer(
                    p,
                    b.buffer,
                    c.buffer,
                    &[vk::BufferCopy::builder().size(64)],
                );
            }
            ctx.end(p);
        }
    }
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &primaries, fence).expect("submit");
    ctx.wait(fence);
    assert!(
        c.read_u32s().iter().all(|&w| w == 0x1111_1111),
        "first primary's secondary copied A=0x11111111 to B (then C)"
    );
    assert!(
        b.read_u32s().iter().all(|&w| w == 0x2222_2222),
        "second primary's secondary copied A=0x22222222 to B"
    );
}

#[test]
fn command_buffer_life_cycle() {
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(16);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    let fence = ctx.fence(false);
    let value = |v: u32| {
        ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
        // SAFETY: recording state.
        unsafe { ctx.device.cmd_fill_buffer(cb, buf.buffer, 0, 16, v) };
        ctx.end(cb);
    };
    let submit_and_wait = || {
        // SAFETY: `fence` is not in use by pending work.
        unsafe { ctx.device.reset_fences(&[fence]) }.expect("reset fence");
        ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
        ctx.wait(fence);
    };

    // Initial -> recording -> executable -> pending -> executable.
    value(1);
    submit_and_wait();
    assert_eq!(buf.read_u32s(), [1; 4]);
    // Still executable: submitting again runs the same commands.
    buf.fill(0);
    submit_and_wait();
    assert_eq!(buf.read_u32s(), [1; 4], "re-submission");

    // vkResetCommandBuffer -> initial; record something else.
    // SAFETY: `cb` is not pending.
    unsafe {
        ctx.device
            .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
    }
    .expect("vkResetCommandBuffer");
    value(2);
    submit_and_wait();
    assert_eq!(buf.read_u32s(), [2; 4]);

    // Implicit reset by vkBeginCommandBuffer (pool has RESET_COMMAND_BUFFER).
    value(3);
    submit_and_wait();
    assert_eq!(buf.read_u32s(), [3; 4]);

    // vkResetCommandPool resets every command buffer of the pool.
    // SAFETY: no command buffer of `pool` is pending.
    unsafe {
        ctx.device
            .reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
    }
    .expect("vkResetCommandPool");
    // SAFETY: after the pool reset the command buffer is in the initial state.
    let ended = unsafe { ctx.device.end_command_buffer(cb) };
    assert_eq!(
        ended,
        Err(vk::ErrorCode::VALIDATION_FAILED),
        "after vkResetCommandPool the command buffer is no longer executable/recording"
    );
    value(4);
    submit_and_wait();
    assert_eq!(buf.read_u32s(), [4; 4]);
}

#[test]
fn one_time_submit_then_rerecord() {
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(16);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    for round in 1..=3u32 {
        ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: recording state.
        unsafe { ctx.device.cmd_fill_buffer(cb, buf.buffer, 0, 16, round) };
        ctx.end(cb);
        let fence = ctx.fence(false);
        ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
        ctx.wait(fence);
        assert_eq!(buf.read_u32s(), [round; 4], "round {round}");
    }
}

#[test]
fn free_and_reallocate_command_buffers() {
    let ctx = Ctx::new();
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cbs = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 8);
    assert_eq!(cbs.len(), 8);
    assert!(cbs.iter().all(|cb| !cb.is_null()));
    // SAFETY: none of them is pending.
    unsafe { ctx.device.free_command_buffers(pool, &cbs) };
    let buf = ctx.host_buffer(4);
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    // SAFETY: recording state.
    unsafe { ctx.device.cmd_fill_buffer(cb, buf.buffer, 0, 4, 99) };
    ctx.end(cb);
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
    ctx.wait(fence);
    assert_eq!(buf.read_u32s(), [99]);
}

#[test]
fn events_from_command_buffers_and_host() {
    let ctx = Ctx::new();
    let event = ctx.event();
    let event2 = ctx.event();
    // SAFETY: host operations on live events.
    unsafe {
        assert_eq!(
            ctx.device.get_event_status(event),
            Ok(vk::SuccessCode::EVENT_RESET),
            "events are created unsignalled"
        );
        ctx.device.set_event(event).expect("vkSetEvent");
        assert_eq!(
            ctx.device.get_event_status(event),
            Ok(vk::SuccessCode::EVENT_SET)
        );
        ctx.device.reset_event(event).expect("vkResetEvent");
        assert_eq!(
            ctx.device.get_event_status(event),
            Ok(vk::SuccessCode::EVENT_RESET)
        );
    }

    // Device-side set (v1 and v2).
    let buf = ctx.host_buffer(16);
    buf.fill(0);
    ctx.run(|device, cb| {
        let dep = vk::DependencyInfo::builder();
        // SAFETY: recording state.
        unsafe {
            device.cmd_fill_buffer(cb, buf.buffer, 0, 16, 5);
            device.cmd_set_event(cb, event, vk::PipelineStageFlags::TRANSFER);
            device.cmd_set_event2(cb, event2, &dep);
            // Wait on both (each with the matching API version).
            device.cmd_wait_events(
                cb,
                &[event],
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                &[] as &[vk::MemoryBarrier],
                &[] as &[vk::BufferMemoryBarrier],
                &[] as &[vk::ImageMemoryBarrier],
            );
            device.cmd_wait_events2(cb, &[event2], &[dep]);
            device.cmd_fill_buffer(cb, buf.buffer, 4, 4, 6);
        }
    });
    // SAFETY: host queries on live events.
    unsafe {
        assert_eq!(
            ctx.device.get_event_status(event),
            Ok(vk::SuccessCode::EVENT_SET),
            "vkCmdSetEvent"
        );
        assert_eq!(
            ctx.device.get_event_status(event2),
            Ok(vk::SuccessCode::EVENT_SET),
            "vkCmdSetEvent2"
        );
    }
    assert_eq!(buf.read_u32s(), [5, 6, 5, 5]);

    // Device-side reset (v1 and v2).
    ctx.run(|device, cb| {
        // SAFETY: recording state.
        unsafe {
            device.cmd_reset_event(cb, event, vk::PipelineStageFlags::TRANSFER);
            device.cmd_reset_event2(cb, event2, vk::PipelineStageFlags2::ALL_TRANSFER);
        }
    });
    // SAFETY: host queries on live events.
    unsafe {
        assert_eq!(
            ctx.device.get_event_status(event),
            Ok(vk::SuccessCode::EVENT_RESET),
            "vkCmdResetEvent"
        );
        assert_eq!(
            ctx.device.get_event_status(event2),
            Ok(vk::SuccessCode::EVENT_RESET),
            "vkCmdResetEvent2"
        );
    }
}
