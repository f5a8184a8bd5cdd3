//! `tessera-demo`: a minimal Vulkan compute-less "hello transfer" on Tessera.
//!
//! Through the real Khronos loader, it creates an instance, finds the
//! Tessera device, prints what it offers, then records fill + update + copy
//! with a barrier in one command buffer, submits it, waits on a fence and
//! checks the result. Then, with `VK_ARM_tensors`, it copies a 4 MiB
//! 64×64×256 R32_UINT tensor packed → padded → packed with
//! `vkCmdCopyTensorARM`, verifies every element and padding byte, and prints
//! the copy throughput. Finally it runs a small ML-style compute shader on
//! tensors, a dense layer `y = relu(W·x + b)` (`shaders/dense_relu.comp`,
//! GLSL `GL_ARM_tensors`), checks `y` against a CPU reference and prints the
//! dispatch time. Prints `demo: OK` and exits 0 on success, exits 1 with a
//! message on any mismatch.
//!
//! Run after `cargo build --release -p tessera-icd`:
//! `cargo run --release -p tessera-e2e --bin tessera-demo`.

use std::process::ExitCode;
use std::time::Instant;

use tessera_e2e::descriptors::{Descriptor, descriptor_set};
use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

/// Tensor shape of the tensor part (4 MiB of R32_UINT).
const TENSOR_DIMS: [i64; 3] = [64, 64, 256];
/// Timed submits of the tensor copy command buffer.
const TENSOR_SUBMITS: u32 = 8;
/// The dense layer's SPIR-V (`y = relu(W·x + b)`).
const DENSE_RELU_SPV: &[u8] = include_bytes!("../../../../spirv-tests/shaders/dense_relu.spv");
/// Dense layer shape: W is `DENSE_ROWS`×`DENSE_COLS`.
const DENSE_ROWS: i64 = 512;
const DENSE_COLS: i64 = 1024;
/// Timed submits of the dense layer.
const DENSE_SUBMITS: u32 = 8;

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
    tensor_part(&ctx)?;
    shader_part(&ctx)
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

/// Deterministic floats in [-1, 1) (a small LCG), as an ML layer's weights or inputs.
fn floats(count: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..count)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

/// Runs the dense layer `y = relu(W·x + b)` as a compute shader on tensors, checks it against a
/// CPU reference and times it.
fn shader_part(ctx: &Ctx) -> Result<(), String> {
    let format = vk::Format::R32_SFLOAT;
    let (rows, cols) = (DENSE_ROWS as usize, DENSE_COLS as usize);
    let w = floats(rows * cols, 1);
    let x = floats(cols, 2);
    let b = floats(rows, 3);
    // CPU reference, in the shader's order: acc = b; acc += w·x over k; relu.
    let reference: Vec<f32> = (0..rows)
        .map(|r| {
            let dot = w[r * cols..(r + 1) * cols]
                .iter()
                .zip(&x)
                .fold(b[r], |acc, (wv, xv)| acc + wv * xv);
            dot.max(0.0)
        })
        .collect();

    // Four tensors (W, x, b, y) in one allocation.
    let usage = TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER;
    let shapes: [&[i64]; 4] = [
        &[DENSE_ROWS, DENSE_COLS],
        &[DENSE_COLS],
        &[DENSE_ROWS],
        &[DENSE_ROWS],
    ];
    let mut tensors = Vec::new();
    let mut offsets = Vec::new();
    let mut end = 0u64;
    for dims in shapes {
        let mut info = TensorInfo::new(vk::TensorTilingARM::LINEAR, format, dims, usage);
        let t = ctx
            .try_tensor(&mut info)
            .map_err(|e| format!("vkCreateTensorARM({dims:?}): {e:?}"))?;
        let (reqs, _) = ctx.tensor_requirements(t);
        let offset = end.next_multiple_of(reqs.alignment.max(1));
        tensors.push(t);
        offsets.push(offset);
        end = offset + reqs.size;
    }
    let memory = ctx.host_memory(end);
    let mut views = Vec::new();
    for (&t, &offset) in tensors.iter().zip(&offsets) {
        ctx.bind_tensor(t, memory.memory, offset)
            .map_err(|e| format!("vkBindTensorMemoryARM at {offset}: {e:?}"))?;
        views.push(
            ctx.try_tensor_view(t, format, 0)
                .map_err(|e| format!("vkCreateTensorViewARM: {e:?}"))?,
        );
    }
    let f32_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    memory.write(offsets[0], &f32_bytes(&w));
    memory.write(offsets[1], &f32_bytes(&x));
    memory.write(offsets[2], &f32_bytes(&b));
    memory.write(offsets[3], &vec![0xEE; rows * 4]);

    let code: Vec<u32> = DENSE_RELU_SPV
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let bindings: Vec<_> = (0..4)
        .map(|i| {
            vk::DescriptorSetLayoutBinding::builder()
                .binding(i)
                .descriptor_type(vk::DescriptorType::TENSOR_ARM)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let device = &ctx.device;
    // SAFETY: valid create infos on a live device; every pointer outlives its call, and the
    // objects are destroyed below after the device has finished with them.
    let (module, set_layout, layout, pipeline) = unsafe {
        let module = device
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::builder()
                    .code_size(code.len() * 4)
                    .code(&code),
                None,
            )
            .map_err(|e| format!("vkCreateShaderModule: {e:?}"))?;
        let set_layout = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::builder().bindings(&bindings),
                None,
            )
            .map_err(|e| format!("vkCreateDescriptorSetLayout: {e:?}"))?;
        let layouts = [set_layout];
        let layout = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::builder().set_layouts(&layouts),
                None,
            )
            .map_err(|e| format!("vkCreatePipelineLayout: {e:?}"))?;
        let stage = vk::PipelineShaderStageCreateInfo::builder()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(b"main\0");
        let info = [vk::ComputePipelineCreateInfo::builder()
            .stage(stage)
            .layout(layout)];
        let pipeline = device
            .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
            .map_err(|e| format!("vkCreateComputePipelines: {e:?}"))?
            .0[0];
        (module, set_layout, layout, pipeline)
    };
    let descriptors: Vec<(u32, Descriptor)> = views
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as u32, Descriptor::Tensor(v)))
        .collect();
    let (pool, set) = descriptor_set(device, set_layout, &descriptors)
        .map_err(|e| format!("the descriptor set: {e:?}"))?;
    let cmd_pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(cmd_pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
    // SAFETY: `cb` is recording; the pipeline, layout and set are live.
    unsafe {
        device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        device.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
        device.cmd_dispatch(cb, (rows as u32).div_ceil(64), 1, 1);
    }
    ctx.end(cb);
    let fence = ctx.fence(false);
    let submit_wait = || -> Result<(), String> {
        ctx.submit(ctx.queue(), &[cb], fence)
            .map_err(|e| format!("vkQueueSubmit: {e:?}"))?;
        // SAFETY: live fence.
        let waited = unsafe { device.wait_for_fences(&[fence], true, WAIT_TIMEOUT_NS) };
        if waited != Ok(vk::SuccessCode::SUCCESS) {
            return Err(format!("vkWaitForFences: {waited:?}"));
        }
        // SAFETY: the fence has signalled.
        unsafe { device.reset_fences(&[fence]) }.map_err(|e| format!("vkResetFences: {e:?}"))
    };
    submit_wait()?;

    let bytes = memory.read();
    let out = &bytes[offsets[3] as usize..offsets[3] as usize + rows * 4];
    let y: Vec<f32> = out
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Same operation order as the shader; the tolerance only covers a driver contracting
    // `acc + w * v` into a fused multiply-add.
    if let Some((i, (got, want))) = y
        .iter()
        .zip(&reference)
        .enumerate()
        .find(|(_, (g, w))| (*g - *w).abs() > 1e-4 * w.abs().max(1.0))
    {
        return Err(format!(
            "dense layer y[{i}]: got {got}, CPU reference {want}"
        ));
    }
    let active = reference.iter().filter(|&&v| v > 0.0).count();

    let start = Instant::now();
    for _ in 0..DENSE_SUBMITS {
        submit_wait()?;
    }
    let secs = start.elapsed().as_secs_f64() / f64::from(DENSE_SUBMITS);
    println!(
        "dense layer:  y = relu(W·x + b), W {rows}x{cols} R32_SFLOAT tensor: {rows} outputs match the CPU reference ({active} > 0)"
    );
    println!(
        "dense layer:  {:.3} ms per dispatch ({:.2} GFLOP/s) over {DENSE_SUBMITS} submits",
        secs * 1e3,
        2.0 * (rows * cols) as f64 / secs / 1e9
    );
    // SAFETY: the device is idle (every submit was waited for); the objects are unused.
    unsafe {
        device.destroy_pipeline(pipeline, None);
        device.destroy_descriptor_pool(pool, None);
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_set_layout(set_layout, None);
        device.destroy_shader_module(module, None);
    }
    Ok(())
}
