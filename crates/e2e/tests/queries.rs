//! Timestamp query pools: reset (device and host), writes (v1 and v2),
//! result retrieval with WAIT / WITH_AVAILABILITY / NOT_READY, and copies of
//! results into a buffer.

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

fn results_u64(
    ctx: &Ctx,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    flags: vk::QueryResultFlags,
    words_per_query: usize,
) -> (VkResult<vk::SuccessCode>, Vec<u64>) {
    let stride = 8 * words_per_query;
    let mut bytes = vec![0u8; stride * count as usize];
    // SAFETY: `bytes` holds `count` results of `stride` bytes.
    let r = unsafe {
        ctx.device.get_query_pool_results(
            pool,
            first,
            count,
            &mut bytes,
            stride as u64,
            flags | vk::QueryResultFlags::_64,
        )
    };
    let words = bytes
        .chunks_exact(8)
        .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect();
    (r, words)
}

#[test]
fn timestamps_v1_and_v2_are_monotonic() {
    let ctx = Ctx::new();
    let pool = ctx.timestamp_pool(4);
    let scratch = ctx.host_buffer(1 << 20);
    ctx.run(|device, cb| {
        // SAFETY: recording state; queries are reset before being written.
        unsafe {
            device.cmd_reset_query_pool(cb, pool, 0, 4);
            device.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, pool, 0);
            device.cmd_fill_buffer(cb, scratch.buffer, 0, vk::WHOLE_SIZE, 1);
            device.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, 1);
            device.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::TOP_OF_PIPE, pool, 2);
            device.cmd_fill_buffer(cb, scratch.buffer, 0, vk::WHOLE_SIZE, 2);
            device.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::BOTTOM_OF_PIPE, pool, 3);
        }
    });
    let (r, t) = results_u64(&ctx, pool, 0, 4, vk::QueryResultFlags::WAIT, 1);
    assert_eq!(r, Ok(vk::SuccessCode::SUCCESS));
    assert!(t[1] >= t[0], "vkCmdWriteTimestamp: {} then {}", t[0], t[1]);
    assert!(t[3] >= t[2], "vkCmdWriteTimestamp2: {} then {}", t[2], t[3]);
    assert!(t.iter().any(|&v| v != 0), "timestamps are all zero: {t:?}");

    let (r, tv) = results_u64(
        &ctx,
        pool,
        0,
        4,
        vk::QueryResultFlags::WAIT | vk::QueryResultFlags::WITH_AVAILABILITY,
        2,
    );
    assert_eq!(r, Ok(vk::SuccessCode::SUCCESS));
    for q in 0..4 {
        assert_eq!(tv[2 * q], t[q], "value of query {q} with availability");
        assert_ne!(tv[2 * q + 1], 0, "query {q} is available");
    }
}

#[test]
fn unwritten_query_is_not_ready() {
    let ctx = Ctx::new();
    assert!(ctx.features.host_query_reset, "hostQueryReset");
    let pool = ctx.timestamp_pool(2);
    // SAFETY: host reset of an idle pool.
    unsafe { ctx.device.reset_query_pool(pool, 0, 2) };
    let (r, _) = results_u64(&ctx, pool, 0, 2, vk::QueryResultFlags::empty(), 1);
    assert_eq!(
        r,
        Ok(vk::SuccessCode::NOT_READY),
        "no WAIT, nothing written"
    );
    let (r, words) = results_u64(&ctx, pool, 0, 2, vk::QueryResultFlags::WITH_AVAILABILITY, 2);
    assert_eq!(r, Ok(vk::SuccessCode::NOT_READY));
    assert_eq!(words[1], 0, "query 0 unavailable");
    assert_eq!(words[3], 0, "query 1 unavailable");

    // Write only query 1: query 0 stays unavailable.
    ctx.run(|device, cb| {
        // SAFETY: recording state; query 1 was reset on the host.
        unsafe {
            device.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::BOTTOM_OF_PIPE, pool, 1)
        };
    });
    let (r, words) = results_u64(&ctx, pool, 0, 2, vk::QueryResultFlags::WITH_AVAILABILITY, 2);
    assert_eq!(r, Ok(vk::SuccessCode::NOT_READY), "query 0 still unwritten");
    assert_eq!(words[1], 0, "query 0 unavailable");
    assert_ne!(words[3], 0, "query 1 available");
    let (r, _) = results_u64(&ctx, pool, 1, 1, vk::QueryResultFlags::empty(), 1);
    assert_eq!(r, Ok(vk::SuccessCode::SUCCESS), "query 1 alone is ready");

    // Host reset makes it unavailable again.
    // SAFETY: the pool is idle.
    unsafe { ctx.device.reset_query_pool(pool, 0, 2) };
    let (r, _) = results_u64(&ctx, pool, 1, 1, vk::QueryResultFlags::empty(), 1);
    assert_eq!(r, Ok(vk::SuccessCode::NOT_READY), "after vkResetQueryPool");
}

#[test]
fn copy_query_pool_results_into_buffer() {
    let ctx = Ctx::new();
    let pool = ctx.timestamp_pool(3);
    let out = ctx.host_buffer(3 * 16);
    out.fill(0);
    ctx.run(|device, cb| {
        // SAFETY: recording state; queries reset before use; destination in range.
        unsafe {
            device.cmd_reset_query_pool(cb, pool, 0, 3);
            for q in 0..3 {
                device.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, q);
            }
            device.cmd_copy_query_pool_results(
                cb,
                pool,
                0,
                3,
                out.buffer,
                0,
                16,
                vk::QueryResultFlags::_64
                    | vk::QueryResultFlags::WAIT
                    | vk::QueryResultFlags::WITH_AVAILABILITY,
            );
        }
    });
    let (r, t) = results_u64(&ctx, pool, 0, 3, vk::QueryResultFlags::WAIT, 1);
    assert_eq!(r, Ok(vk::SuccessCode::SUCCESS));
    let copied: Vec<u64> = out
        .read()
        .chunks_exact(8)
        .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect();
    for q in 0..3 {
        assert_eq!(copied[2 * q], t[q], "copied value of query {q}");
        assert_ne!(copied[2 * q + 1], 0, "copied availability of query {q}");
    }
    assert!(t[1] >= t[0] && t[2] >= t[1], "{t:?}");
}
