//! `vkCmdCopyTensorARM` through the Khronos loader: submit + fence round
//! trips of whole-tensor copies, each group next to a single-threaded
//! `copy_from_slice` of the same payload so the ratio to memcpy can be read
//! from one run.
//!
//! 1. `tensor_packed_64MiB`: R32_UINT 4096×4096 packed → packed.
//! 2. `tensor_padded_rank4`: R32_UINT 64×64×64×64 packed → padded (13·4 bytes
//!    of padding on every outer stride, as the CTS does).
//! 3. `tensor_rows_{1,2,4,16,64}B`: R8_UINT `[N, row]` packed → padded (13
//!    bytes of padding on the outer stride), 32 MiB payload.
//!
//! The driver is Tessera by default (`cargo build --release -p tessera-icd`
//! first). Set `TESSERA_BENCH_ICD` to another ICD manifest to measure that
//! driver instead; layers then come from the usual loader variables, e.g.
//! Mesa 25's lavapipe (as `cargo xtask bench-compare` fetches it) with Arm's
//! ML emulation layers, as in `shaders.rs`:
//!
//! ```text
//! TESSERA_BENCH_ICD=$PWD/target/lavapipe25/lvp_icd.json \
//! LD_LIBRARY_PATH=$PWD/target/lavapipe25/root/usr/lib/x86_64-linux-gnu:$EL/lib \
//! VK_LAYER_PATH=$EL/share/vulkan/explicit_layer.d/VkLayer_Graph.json:$EL/share/vulkan/explicit_layer.d/VkLayer_Tensor.json \
//! VK_INSTANCE_LAYERS=VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation \
//! cargo bench -p tessera-benches --bench tensor_vulkan
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::ArmTensorsExtensionDeviceCommands;
use tessera_e2e::*;

/// The bench device, and whether the driver supports non-packed tensors.
struct Gpu {
    base: BenchGpu,
    non_packed: bool,
}

impl std::ops::Deref for Gpu {
    type Target = BenchGpu;
    fn deref(&self) -> &BenchGpu {
        &self.base
    }
}

fn open_gpu() -> Gpu {
    let base = BenchGpu::open(|s| vk::PhysicalDeviceTensorFeaturesARM {
        tensor_non_packed: s.tensor_non_packed,
        ..Default::default()
    });
    let non_packed = base.supported.tensor_non_packed == vk::TRUE;
    eprintln!(
        "tensor_vulkan: device {:?}, tensorNonPacked {non_packed}",
        base.name
    );
    Gpu { base, non_packed }
}

/// A tensor with its own mapped memory.
struct BoundTensor {
    tensor: vk::TensorARM,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    footprint: usize,
}

impl Gpu {
    fn bound_tensor(&self, mut info: TensorInfo) -> BoundTensor {
        let tensor = create_tensor(&self.device, &mut info).expect("vkCreateTensorARM");
        let (reqs, _) = tensor_requirements(&self.device, tensor);
        let (memory, ptr) = self.mapped_memory(reqs);
        bind_tensor(&self.device, tensor, memory, 0).expect("vkBindTensorMemoryARM");
        BoundTensor {
            tensor,
            memory,
            ptr,
            footprint: info.footprint() as usize,
        }
    }

    fn bytes(&self, t: &BoundTensor) -> &[u8] {
        // SAFETY: `ptr` maps at least `footprint` bytes; no device work runs
        // while the slice is used.
        unsafe { std::slice::from_raw_parts(t.ptr, t.footprint) }
    }

    fn destroy(&self, t: BoundTensor) {
        // SAFETY: the device is idle (every submit is waited for).
        unsafe {
            self.device.destroy_tensor_arm(t.tensor, None);
            self.device.free_memory(t.memory, None);
        }
    }

    fn submit_wait(&self, cb: vk::CommandBuffer) {
        let cbs = [cb];
        let submit = vk::SubmitInfo::builder().command_buffers(&cbs);
        // SAFETY: `cb` is executable; the fence is unsignalled.
        unsafe {
            self.device
                .queue_submit(self.queue, &[submit], self.fence)
                .expect("vkQueueSubmit");
            self.device
                .wait_for_fences(&[self.fence], true, WAIT_TIMEOUT_NS)
                .expect("vkWaitForFences");
            self.device
                .reset_fences(&[self.fence])
                .expect("vkResetFences");
        }
    }
}

fn group<'a>(c: &'a mut Criterion, name: &str, payload: u64) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(payload));
    g
}

/// Benchmarks `src` → `dst` (same shape) in a group of its own, with a
/// memcpy baseline of the same payload.
fn copy_group(c: &mut Criterion, gpu: &Gpu, name: &str, src: TensorInfo, dst: TensorInfo) {
    if dst.strides.is_some() && !gpu.non_packed {
        eprintln!("{name}: skipped, {} lacks tensorNonPacked", gpu.name);
        return;
    }
    let elem = src.elem() as usize;
    let dims = src.dims.clone();
    let count: i64 = dims.iter().product();
    let payload = count as u64 * elem as u64;
    let src_strides = src.effective_strides();
    let dst_strides = dst.effective_strides();
    let s = gpu.bound_tensor(src);
    let d = gpu.bound_tensor(dst);
    let data = pattern_bytes(s.footprint, 0x7E);
    // SAFETY: the mapping holds `footprint` bytes; the device is idle.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), s.ptr, data.len()) };

    let alloc = vk::CommandBufferAllocateInfo::builder()
        .command_pool(gpu.pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: live pool; the command buffer is recorded once and reused.
    let cb = unsafe { gpu.device.allocate_command_buffers(&alloc) }.expect("command buffer")[0];
    // SAFETY: fresh primary command buffer.
    unsafe {
        gpu.device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .expect("vkBeginCommandBuffer");
    }
    cmd_copy_whole_tensor(&gpu.device, cb, s.tensor, d.tensor);
    // SAFETY: recording command buffer.
    unsafe { gpu.device.end_command_buffer(cb) }.expect("vkEndCommandBuffer");

    // Check once that the copy really happens, element by element.
    gpu.submit_wait(cb);
    let out = gpu.bytes(&d);
    let bad = element_offsets(&dims, &src_strides)
        .into_iter()
        .zip(element_offsets(&dims, &dst_strides))
        .position(|(so, dof)| {
            let (so, dof) = (so as usize, dof as usize);
            data[so..so + elem] != out[dof..dof + elem]
        });
    assert_eq!(bad, None, "{name}: first wrong element on {}", gpu.name);

    let host_src = pattern_bytes(payload as usize, 0x3C);
    let mut host_dst = vec![0u8; payload as usize];
    let mut g = group(c, name, payload);
    g.bench_function("vkCmdCopyTensorARM_submit_wait", |b| {
        b.iter(|| gpu.submit_wait(cb))
    });
    g.bench_function("memcpy_copy_from_slice", |b| {
        b.iter(|| {
            host_dst.copy_from_slice(black_box(&host_src));
            black_box(&mut host_dst);
        })
    });
    g.finish();
    // SAFETY: the command buffer is idle.
    unsafe { gpu.device.free_command_buffers(gpu.pool, &[cb]) };
    gpu.destroy(s);
    gpu.destroy(d);
}

fn tensor_copies(c: &mut Criterion) {
    let gpu = open_gpu();
    let r32 = vk::Format::R32_UINT;

    let dims = [4096i64, 4096];
    copy_group(
        c,
        &gpu,
        "tensor_packed_64MiB",
        TensorInfo::linear(r32, &dims),
        TensorInfo::linear(r32, &dims),
    );

    let dims = [64i64, 64, 64, 64];
    copy_group(
        c,
        &gpu,
        "tensor_padded_rank4",
        TensorInfo::linear(r32, &dims),
        TensorInfo::linear(r32, &dims).with_strides(&padded_strides(4, &dims, 13 * 4)),
    );

    for row in [1i64, 2, 4, 16, 64] {
        let dims = [(32 << 20) / row, row];
        copy_group(
            c,
            &gpu,
            &format!("tensor_rows_{row}B"),
            TensorInfo::linear(vk::Format::R8_UINT, &dims),
            TensorInfo::linear(vk::Format::R8_UINT, &dims)
                .with_strides(&padded_strides(1, &dims, 13)),
        );
    }
}

criterion_group!(benches, tensor_copies);
criterion_main!(benches);
