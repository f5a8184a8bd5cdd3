//! Submission benchmarks for the Tessera ICD, through the Khronos loader.
//!
//! 1. `empty_submit`: one empty command buffer, `vkQueueSubmit` +
//!    `vkWaitForFences` + `vkResetFences` — the fixed cost of a round trip.
//! 2. `copy_4mib`: `vkCmdCopyBuffer` of 4 MiB through submit + fence, next to
//!    a plain `copy_from_slice` of 4 MiB in the same group, so the ratio
//!    (driver overhead over memcpy) can be read directly.
//!
//! Needs `cargo build --release -p tessera-icd` first.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::*;

const COPY_BYTES: u64 = 4 << 20;

fn submit_and_wait(ctx: &Ctx, cb: vk::CommandBuffer, fence: vk::Fence) {
    ctx.submit(ctx.queue(), &[cb], fence)
        .expect("vkQueueSubmit");
    ctx.wait(fence);
    // SAFETY: the fence has signalled, so no pending work uses it.
    unsafe { ctx.device.reset_fences(&[fence]) }.expect("vkResetFences");
}

fn empty_submit(c: &mut Criterion) {
    let ctx = Ctx::new();
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    ctx.end(cb);
    let fence = ctx.fence(false);
    let mut group = c.benchmark_group("submit");
    group
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    group.bench_function("empty_submit_wait_reset", |b| {
        b.iter(|| submit_and_wait(&ctx, cb, fence))
    });
    group.finish();
}

fn copy_4mib(c: &mut Criterion) {
    let ctx = Ctx::new();
    let src = ctx.host_buffer(COPY_BYTES);
    let dst = ctx.host_buffer(COPY_BYTES);
    src.fill(0x3C);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    // SAFETY: recording state; both buffers are COPY_BYTES long.
    unsafe {
        ctx.device.cmd_copy_buffer(
            cb,
            src.buffer,
            dst.buffer,
            &[vk::BufferCopy::builder().size(COPY_BYTES)],
        )
    };
    ctx.end(cb);
    let fence = ctx.fence(false);

    // Check once that the copy really happens.
    submit_and_wait(&ctx, cb, fence);
    assert!(dst.read().iter().all(|&b| b == 0x3C), "copy result");

    let host_src = vec![0x5Au8; COPY_BYTES as usize];
    let mut host_dst = vec![0u8; COPY_BYTES as usize];

    let mut group = c.benchmark_group("copy_4mib");
    group
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20)
        .throughput(Throughput::Bytes(COPY_BYTES));
    group.bench_function("vkCmdCopyBuffer_submit_wait", |b| {
        b.iter(|| submit_and_wait(&ctx, cb, fence))
    });
    group.bench_function("memcpy_copy_from_slice", |b| {
        b.iter(|| {
            host_dst.copy_from_slice(black_box(&host_src));
            black_box(&mut host_dst);
        })
    });
    group.finish();
}

criterion_group!(benches, empty_submit, copy_4mib);
criterion_main!(benches);
