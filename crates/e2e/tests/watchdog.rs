//! The dispatch watchdog through the loader: a shader that never terminates is stopped after
//! `TESSERA_DISPATCH_TIMEOUT` seconds and loses the device, and destroying a device while such a
//! shader runs returns instead of hanging. In a test binary of its own because it sets the
//! environment variable, which the driver reads when a device is created.

use std::sync::mpsc;
use std::time::Duration;

use tessera_e2e::compute::BufferPipeline;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::*;

const FOREVER_SPV: &[u8] = include_bytes!("../../../spirv-tests/shaders/forever.spv");

/// Records and submits `forever.comp` (4 workgroups of 4) on `ctx`, signalling `fence`.
fn submit_forever(ctx: &Ctx, buf: vk::Buffer, fence: vk::Fence) -> BufferPipeline {
    let p = BufferPipeline::new(ctx, FOREVER_SPV, &[buf], 0, 4);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    p.record(&ctx.device, cb, &[]);
    // SAFETY: recording state with the pipeline and set bound.
    unsafe { ctx.device.cmd_dispatch(cb, 4, 1, 1) };
    ctx.end(cb);
    ctx.submit(ctx.queue(), &[cb], fence)
        .expect("vkQueueSubmit");
    p
}

#[test]
fn endless_shaders_are_stopped() {
    // SAFETY: the only test of this binary; no other thread reads the environment meanwhile.
    unsafe { std::env::set_var("TESSERA_DISPATCH_TIMEOUT", "0.5") };
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(4 * 17);
    buf.fill(0);
    let fence = ctx.fence(false);
    let p = submit_forever(&ctx, buf.buffer, fence);
    // SAFETY: live fence.
    let waited = unsafe { ctx.device.wait_for_fences(&[fence], true, 60_000_000_000) };
    assert!(
        matches!(waited, Ok(_) | Err(vk::ErrorCode::DEVICE_LOST)),
        "{waited:?}"
    );
    // SAFETY: live device.
    let idle = unsafe { ctx.device.device_wait_idle() };
    assert_eq!(idle.err(), Some(vk::ErrorCode::DEVICE_LOST));
    assert!(
        buf.read_u32s()[1..].iter().any(|&n| n > 0),
        "the shader ran before it was stopped"
    );
    // A lost device refuses new work.
    let fence2 = ctx.fence(false);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    ctx.end(cb);
    assert_eq!(
        ctx.submit(ctx.queue(), &[cb], fence2).err(),
        Some(vk::ErrorCode::DEVICE_LOST)
    );
    p.destroy(&ctx);
    drop(ctx);

    // No time limit: only destroying the device stops the shader.
    // SAFETY: as above; the first device and its threads are gone.
    unsafe { std::env::set_var("TESSERA_DISPATCH_TIMEOUT", "0") };
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(4 * 17);
    buf.fill(0);
    let fence = ctx.fence(false);
    let _p = submit_forever(&ctx, buf.buffer, fence);
    // SAFETY: live fence.
    let status = unsafe { ctx.device.wait_for_fences(&[fence], true, 200_000_000) };
    assert_eq!(status, Ok(vk::SuccessCode::TIMEOUT));
    let (tx, rx) = mpsc::channel();
    let destroyer = std::thread::spawn(move || {
        ctx.destroy_without_waiting();
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("vkDestroyDevice must stop a running shader instead of waiting for it");
    destroyer.join().expect("destroy thread");
}
