//! `tessera-demo`: a minimal Vulkan compute-less "hello transfer" on Tessera.
//!
//! Through the real Khronos loader, it creates an instance, finds the
//! Tessera device, prints what it offers, then records fill + update + copy
//! with a barrier in one command buffer, submits it, waits on a fence and
//! checks the result. Prints `demo: OK` and exits 0 on success, exits 1
//! with a message on any mismatch.
//!
//! Run after `cargo build --release -p tessera-icd`:
//! `cargo run --release -p tessera-e2e --bin tessera-demo`.

use std::process::ExitCode;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

const WORDS: usize = 64;
const SIZE: u64 = (WORDS * 4) as u64;

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("demo: OK");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("demo: FAILED: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let ctx = Ctx::new();
    let props = &ctx.properties;
    println!("device:       {}", device_name(props));
    println!(
        "apiVersion:   {}.{}.{}",
        vk::version_major(props.api_version),
        vk::version_minor(props.api_version),
        vk::version_patch(props.api_version)
    );
    println!("type:         {:?}", props.device_type);
    // SAFETY: live physical device of `ctx.instance`.
    let families = unsafe {
        ctx.instance
            .get_physical_device_queue_family_properties(ctx.physical_device)
    };
    for (i, f) in families.iter().enumerate() {
        println!(
            "queue family {i}: {:?} x{} (timestamp bits {})",
            f.queue_flags, f.queue_count, f.timestamp_valid_bits
        );
    }
    let mem = &ctx.memory_properties;
    for (i, heap) in mem.memory_heaps[..mem.memory_heap_count as usize]
        .iter()
        .enumerate()
    {
        println!("memory heap {i}: {} MiB {:?}", heap.size >> 20, heap.flags);
    }
    for (i, ty) in mem.memory_types[..mem.memory_type_count as usize]
        .iter()
        .enumerate()
    {
        println!(
            "memory type {i}: heap {} {:?}",
            ty.heap_index, ty.property_flags
        );
    }

    let src = ctx.host_buffer(SIZE);
    let dst = ctx.host_buffer(SIZE);
    src.fill(0);
    dst.fill(0xFF);
    let header: Vec<u32> = (0..8).map(|i| 1000 + i).collect();

    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    let barrier = vk::MemoryBarrier::builder()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
    // SAFETY: recording state; every range lies inside the 256-byte buffers.
    unsafe {
        ctx.device
            .cmd_fill_buffer(cb, src.buffer, 0, vk::WHOLE_SIZE, 0xC0FF_EE00);
        ctx.device
            .cmd_update_buffer(cb, src.buffer, 0, &u32_bytes(&header));
        ctx.device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[] as &[vk::BufferMemoryBarrier],
            &[] as &[vk::ImageMemoryBarrier],
        );
        ctx.device.cmd_copy_buffer(
            cb,
            src.buffer,
            dst.buffer,
            &[vk::BufferCopy::builder().size(SIZE)],
        );
    }
    ctx.end(cb);
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &[cb], fence)
        .map_err(|e| format!("vkQueueSubmit: {e:?}"))?;
    // SAFETY: live fence.
    let waited = unsafe { ctx.device.wait_for_fences(&[fence], true, WAIT_TIMEOUT_NS) };
    if waited != Ok(vk::SuccessCode::SUCCESS) {
        return Err(format!("vkWaitForFences: {waited:?}"));
    }

    let words = dst.read_u32s();
    for (i, &w) in words.iter().enumerate() {
        let expected = if i < header.len() {
            header[i]
        } else {
            0xC0FF_EE00
        };
        if w != expected {
            return Err(format!(
                "word {i}: expected {expected:#010x}, got {w:#010x}"
            ));
        }
    }
    println!("copied {SIZE} bytes: fill + update + copy verified");
    Ok(())
}
