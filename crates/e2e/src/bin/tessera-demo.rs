//! `tessera-demo`: a minimal Vulkan compute-less "hello transfer" on Tessera.
//!
//! Through the real Khronos loader, it creates an instance, finds the
//! Tessera device, prints what it offers, then records fill + update + copy
//! with a barrier in one command buffer, submits it, waits on a fence and
//! checks the result. Then, with `VK_ARM_tensors`, it copies a 4 MiB
//! 64×64×256 R32_UINT tensor packed → padded → packed with
//! `vkCmdCopyTensorARM`, verifies every element and padding byte, and prints
//! the copy throughput. Prints `demo: OK` and exits 0 on success, exits 1
//! with a message on any mismatch.
//!
//! Run after `cargo build --release -p tessera-icd`:
//! `cargo run --release -p tessera-e2e --bin tessera-demo`.

use std::process::ExitCode;
use std::time::Instant;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

/// Tensor shape of the tensor part (4 MiB of R32_UINT).
const TENSOR_DIMS: [i64; 3] = [64, 64, 256];
/// Timed submits of the tensor copy command buffer.
const TENSOR_SUBMITS: u32 = 8;

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
    let ctx = Ctx::with_tensors();
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
    tensor_part(&ctx)
}

/// Copies a packed tensor to a padded one and back, verifies, and times it.
fn tensor_part(ctx: &Ctx) -> Result<(), String> {
    let format = vk::Format::R32_UINT;
    let elem = 4u64;
    let mut packed = TensorInfo::linear(format, &TENSOR_DIMS);
    let padded_strides = padded_strides(elem, &TENSOR_DIMS, 13 * elem);
    let mut padded = TensorInfo::linear(format, &TENSOR_DIMS).with_strides(&padded_strides);
    let a = ctx
        .try_tensor(&mut packed)
        .map_err(|e| format!("vkCreateTensorARM(packed): {e:?}"))?;
    let b = ctx
        .try_tensor(&mut padded)
        .map_err(|e| format!("vkCreateTensorARM(padded): {e:?}"))?;
    let c = ctx
        .try_tensor(&mut packed)
        .map_err(|e| format!("vkCreateTensorARM(packed): {e:?}"))?;
    let (ra, _) = ctx.tensor_requirements(a);
    let (rb, _) = ctx.tensor_requirements(b);
    let (off_b, off_c) = (ra.size, ra.size + rb.size);
    let memory = ctx.host_memory(off_c + ra.size);
    for (t, off) in [(a, 0), (b, off_b), (c, off_c)] {
        ctx.bind_tensor(t, memory.memory, off)
            .map_err(|e| format!("vkBindTensorMemoryARM at {off}: {e:?}"))?;
    }
    let count = TENSOR_DIMS.iter().product::<i64>() as usize;
    let values: Vec<u32> = (0..count as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5A5A_0000)
        .collect();
    memory.write(0, &u32_bytes(&values));
    memory.write(off_b, &vec![0xEE; rb.size as usize]);

    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    let barrier = vk::TensorMemoryBarrierARM {
        src_stage_mask: vk::PipelineStageFlags2::COPY,
        src_access_mask: vk::AccessFlags2::TRANSFER_WRITE,
        dst_stage_mask: vk::PipelineStageFlags2::COPY,
        dst_access_mask: vk::AccessFlags2::TRANSFER_READ,
        src_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
        dst_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
        tensor: b,
        ..Default::default()
    };
    let dep = vk::DependencyInfo {
        next: (&barrier as *const vk::TensorMemoryBarrierARM).cast(),
        ..Default::default()
    };
    cmd_copy_whole_tensor(&ctx.device, cb, a, b);
    // SAFETY: recording; the barrier names a bound tensor and outlives the call.
    unsafe { ctx.device.cmd_pipeline_barrier2(cb, &dep) };
    cmd_copy_whole_tensor(&ctx.device, cb, b, c);
    // SAFETY: `cb` is recording.
    unsafe { ctx.device.end_command_buffer(cb) }
        .map_err(|e| format!("vkEndCommandBuffer (tensor copies): {e:?}"))?;
    let fence = ctx.fence(false);
    let submit_wait = || -> Result<(), String> {
        ctx.submit(ctx.queue(), &[cb], fence)
            .map_err(|e| format!("vkQueueSubmit: {e:?}"))?;
        // SAFETY: live fence.
        let waited = unsafe { ctx.device.wait_for_fences(&[fence], true, WAIT_TIMEOUT_NS) };
        if waited != Ok(vk::SuccessCode::SUCCESS) {
            return Err(format!("vkWaitForFences: {waited:?}"));
        }
        // SAFETY: the fence has signalled.
        unsafe { ctx.device.reset_fences(&[fence]) }.map_err(|e| format!("vkResetFences: {e:?}"))
    };
    submit_wait()?;

    // Verify: C equals A; B holds A's elements at the padded strides and 0xEE in the padding.
    let bytes = memory.read();
    let src = &bytes[..count * 4];
    let out = &bytes[off_c as usize..off_c as usize + count * 4];
    if let Some(i) = (0..count).find(|&i| src[i * 4..i * 4 + 4] != out[i * 4..i * 4 + 4]) {
        return Err(format!(
            "tensor element {i}: packed -> padded -> packed mismatch"
        ));
    }
    let mut expected_b = vec![0xEEu8; rb.size as usize];
    for (i, o) in element_offsets(&TENSOR_DIMS, &padded_strides)
        .into_iter()
        .enumerate()
    {
        expected_b[o as usize..o as usize + 4].copy_from_slice(&src[i * 4..i * 4 + 4]);
    }
    if bytes[off_b as usize..(off_b + rb.size) as usize] != expected_b[..] {
        return Err("padded tensor holds wrong elements or padding bytes".into());
    }

    let start = Instant::now();
    for _ in 0..TENSOR_SUBMITS {
        submit_wait()?;
    }
    let secs = start.elapsed().as_secs_f64();
    let payload = 2 * count as u64 * elem * u64::from(TENSOR_SUBMITS);
    println!(
        "tensor copy:  {}x{}x{} R32_UINT ({} MiB) packed -> padded -> packed verified",
        TENSOR_DIMS[0],
        TENSOR_DIMS[1],
        TENSOR_DIMS[2],
        (count * 4) >> 20
    );
    println!(
        "tensor copy:  {:.2} GB/s over {TENSOR_SUBMITS} submits ({} copies of {} MiB)",
        payload as f64 / secs / 1e9,
        2 * TENSOR_SUBMITS,
        (count * 4) >> 20
    );
    Ok(())
}
