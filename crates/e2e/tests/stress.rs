//! Many small submissions: 10 000 command buffers, each filling 4 bytes at a
//! distinct offset, submitted in batches with a single fence at the end.

use std::time::Instant;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

const COMMAND_BUFFERS: u32 = 10_000;
const PER_SUBMIT_INFO: usize = 50;
const SUBMIT_INFOS_PER_CALL: usize = 10;

fn value(i: u32) -> u32 {
    i ^ 0xA5A5_0000
}

#[test]
fn ten_thousand_small_command_buffers() {
    let ctx = Ctx::with_queues(2);
    let buf = ctx.host_buffer(4 * u64::from(COMMAND_BUFFERS));
    buf.fill(0xFF);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cbs = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, COMMAND_BUFFERS);
    let start = Instant::now();
    for (i, &cb) in cbs.iter().enumerate() {
        ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: recording state; each fill is a distinct in-range word.
        unsafe {
            ctx.device
                .cmd_fill_buffer(cb, buf.buffer, 4 * i as u64, 4, value(i as u32))
        };
        ctx.end(cb);
    }
    let recorded = start.elapsed();

    let fence = ctx.fence(false);
    let calls: Vec<&[vk::CommandBuffer]> = cbs
        .chunks(PER_SUBMIT_INFO * SUBMIT_INFOS_PER_CALL)
        .collect();
    for (n, call) in calls.iter().enumerate() {
        let submits: Vec<_> = call
            .chunks(PER_SUBMIT_INFO)
            .map(|batch| vk::SubmitInfo::builder().command_buffers(batch))
            .collect();
        let last = n + 1 == calls.len();
        // Alternate queues so both execute work concurrently. The fence
        // covers the last call's queue; vkQueueWaitIdle drains the other.
        let queue = ctx.queues[n % 2];
        let f = if last { fence } else { vk::Fence::null() };
        // SAFETY: executable command buffers, each submitted once.
        unsafe { ctx.device.queue_submit(queue, &submits, f) }
            .unwrap_or_else(|e| panic!("vkQueueSubmit #{n} failed: {e:?}"));
    }
    ctx.wait(fence);
    // SAFETY: live queues.
    unsafe {
        ctx.device.queue_wait_idle(ctx.queues[0]).expect("idle 0");
        ctx.device.queue_wait_idle(ctx.queues[1]).expect("idle 1");
    }
    let elapsed = start.elapsed();
    eprintln!(
        "{COMMAND_BUFFERS} command buffers: recorded in {recorded:?}, executed by {elapsed:?}"
    );

    let words = buf.read_u32s();
    let wrong: Vec<_> = words
        .iter()
        .enumerate()
        .filter(|&(i, &w)| w != value(i as u32))
        .take(10)
        .collect();
    assert!(wrong.is_empty(), "wrong words (index, value): {wrong:x?}");
}
