//! Compute shaders on tensors through the Khronos loader: submit + fence round trips of one
//! recorded dispatch per workload, each checked once against a CPU reference before timing.
//!
//! 1. `shader_tensor_add`: `c = a + b` on 4096×4096 R32_SFLOAT tensors (64 MiB per tensor), one
//!    invocation per element, 256-invocation workgroups.
//! 2. `shader_row_sum`: the sum of every row of a 4096×4096 R32_SFLOAT tensor into a buffer, one
//!    256-invocation workgroup per row (strided partial sums, then a shared-memory tree reduction
//!    with barriers).
//! 3. `shader_transpose`: a 4096×4096 R32_SFLOAT tensor into its transpose, 16×16 workgroups.
//! 4. `shader_tiny_groups`: 100 000 one-invocation workgroups (a 1000×100 grid), each writing one
//!    element of a rank-1 R32_UINT tensor.
//!
//! The GLSL (`GL_ARM_tensors`) sources and their committed SPIR-V are in `shaders/`
//! (`shaders/regen.sh` rebuilds them).
//!
//! The driver is Tessera by default (`cargo build --release -p tessera-icd` first). Set
//! `TESSERA_BENCH_ICD` to another ICD manifest to measure that driver instead; layers then come
//! from the usual loader variables, e.g. lavapipe with Arm's ML emulation layers:
//!
//! ```text
//! EL=$(python3 -c 'import emulation_layer, os; print(os.path.dirname(emulation_layer.__file__))')/deploy
//! TESSERA_BENCH_ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \
//! VK_LAYER_PATH=$EL/share/vulkan/explicit_layer.d LD_LIBRARY_PATH=$EL/lib \
//! VK_INSTANCE_LAYERS=VK_LAYER_ML_Tensor_Emulation \
//! cargo bench -p tessera-benches --bench shaders
//! ```
//!
//! Only the tensor layer is needed (and works): with `VK_LAYER_ML_Graph_Emulation` also enabled,
//! as the emulation layer's own instructions suggest, the graph layer's `vkCreateDevice` fails
//! with `ERROR_FEATURE_NOT_PRESENT` ("requires extension: VK_ARM_tensors") on this system's
//! loader and lavapipe, although the tensor layer below it advertises the extension.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::ArmTensorsExtensionDeviceCommands;
use tessera_e2e::*;

const TENSOR_ADD_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_tensor_add.spv");
const ROW_SUM_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_row_sum.spv");
const TRANSPOSE_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_transpose.spv");
const TINY_GROUPS_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_tiny_groups.spv");

/// Rows and columns of the 2D tensors (4096×4096 R32_SFLOAT: 64 MiB).
const N: i64 = 4096;
/// Workgroup grid of the tiny-groups case (100 000 workgroups; lavapipe allows 65 535 per axis).
const TINY_GRID: [u32; 2] = [1000, 100];

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The bench device.
struct Gpu(BenchGpu);

impl std::ops::Deref for Gpu {
    type Target = BenchGpu;
    fn deref(&self) -> &BenchGpu {
        &self.0
    }
}

fn open_gpu() -> Gpu {
    // Only what the shaders need, and only if reported (the emulation layer reports fewer
    // features than Tessera).
    let gpu = BenchGpu::open(|s| vk::PhysicalDeviceTensorFeaturesARM {
        shader_tensor_access: s.shader_tensor_access,
        ..Default::default()
    });
    eprintln!(
        "shaders: device {:?}, shaderTensorAccess {}",
        gpu.name,
        gpu.supported.shader_tensor_access == vk::TRUE
    );
    Gpu(gpu)
}

/// Host-visible, mapped memory bound to a tensor (with a view) or a buffer.
struct Mapped {
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    len: usize,
}

struct BoundTensor {
    tensor: vk::TensorARM,
    view: vk::TensorViewARM,
    mem: Mapped,
}

struct BoundBuffer {
    buffer: vk::Buffer,
    mem: Mapped,
}

/// What a binding of a kernel's set 0 holds.
#[derive(Clone, Copy)]
enum Binding {
    Tensor(vk::TensorViewARM),
    Buffer(vk::Buffer),
}

/// A compute pipeline with its one descriptor set, and a command buffer recording one dispatch.
struct Kernel {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    cb: vk::CommandBuffer,
}

impl Gpu {
    fn mapped(&self, reqs: vk::MemoryRequirements) -> Mapped {
        let (memory, ptr) = self.mapped_memory(reqs);
        Mapped {
            memory,
            ptr,
            len: reqs.size as usize,
        }
    }

    fn tensor(&self, format: vk::Format, dims: &[i64]) -> BoundTensor {
        let mut info = TensorInfo::new(
            vk::TensorTilingARM::LINEAR,
            format,
            dims,
            TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER,
        );
        let tensor = create_tensor(&self.device, &mut info).expect("vkCreateTensorARM");
        let (reqs, _) = tensor_requirements(&self.device, tensor);
        let mem = self.mapped(reqs);
        bind_tensor(&self.device, tensor, mem.memory, 0).expect("vkBindTensorMemoryARM");
        let mut view_info = vk::TensorViewCreateInfoARM {
            tensor,
            format,
            ..Default::default()
        };
        // `flags` is a 64-bit mask that vulkanalia declares as `u32` + padding: zero all of it.
        write_flags64(
            &mut view_info,
            std::mem::offset_of!(vk::TensorViewCreateInfoARM, flags),
            0,
        );
        // SAFETY: complete create info (flags 0) naming a bound tensor of this device.
        let view = unsafe { self.device.create_tensor_view_arm(&view_info, None) }
            .expect("vkCreateTensorViewARM");
        BoundTensor { tensor, view, mem }
    }

    fn buffer(&self, size: u64) -> BoundBuffer {
        let info = vk::BufferCreateInfo::builder()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { self.device.create_buffer(&info, None) }.expect("vkCreateBuffer");
        // SAFETY: live buffer.
        let reqs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let mem = self.mapped(reqs);
        // SAFETY: fresh buffer and memory; offset 0 satisfies any alignment.
        unsafe { self.device.bind_buffer_memory(buffer, mem.memory, 0) }
            .expect("vkBindBufferMemory");
        BoundBuffer { buffer, mem }
    }

    /// Builds the pipeline of `spv` with set 0 = `bindings` and records `dispatch` once.
    fn kernel(&self, spv: &[u8], bindings: &[Binding], groups: [u32; 3]) -> Kernel {
        let code = words(spv);
        let type_of = |b: &Binding| match b {
            Binding::Tensor(_) => vk::DescriptorType::TENSOR_ARM,
            Binding::Buffer(_) => vk::DescriptorType::STORAGE_BUFFER,
        };
        let layout_bindings: Vec<_> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                vk::DescriptorSetLayoutBinding::builder()
                    .binding(i as u32)
                    .descriptor_type(type_of(b))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let count = |t: vk::DescriptorType| bindings.iter().filter(|b| type_of(b) == t).count();
        let sizes: Vec<_> = [
            vk::DescriptorType::TENSOR_ARM,
            vk::DescriptorType::STORAGE_BUFFER,
        ]
        .into_iter()
        .filter(|&t| count(t) > 0)
        .map(|t| {
            vk::DescriptorPoolSize::builder()
                .type_(t)
                .descriptor_count(count(t) as u32)
        })
        .collect();
        // SAFETY: valid create infos on a live device; every pointer outlives its call.
        unsafe {
            let module = self
                .device
                .create_shader_module(
                    &vk::ShaderModuleCreateInfo::builder()
                        .code_size(code.len() * 4)
                        .code(&code),
                    None,
                )
                .expect("vkCreateShaderModule");
            let set_layout = self
                .device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::builder().bindings(&layout_bindings),
                    None,
                )
                .expect("vkCreateDescriptorSetLayout");
            let layouts = [set_layout];
            let layout = self
                .device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::builder().set_layouts(&layouts),
                    None,
                )
                .expect("vkCreatePipelineLayout");
            let stage = vk::PipelineShaderStageCreateInfo::builder()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(b"main\0");
            let pinfo = [vk::ComputePipelineCreateInfo::builder()
                .stage(stage)
                .layout(layout)];
            let pipeline = self
                .device
                .create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None)
                .expect("vkCreateComputePipelines")
                .0[0];
            let pool = self
                .device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::builder()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .expect("vkCreateDescriptorPool");
            let set = self
                .device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::builder()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .expect("vkAllocateDescriptorSets")[0];
            // Per-binding payloads, kept alive until the update.
            let views: Vec<[vk::TensorViewARM; 1]> = bindings
                .iter()
                .map(|b| match b {
                    Binding::Tensor(v) => [*v],
                    Binding::Buffer(_) => [vk::TensorViewARM::null()],
                })
                .collect();
            let tensor_writes: Vec<vk::WriteDescriptorSetTensorARM> = views
                .iter()
                .map(|v| vk::WriteDescriptorSetTensorARM {
                    tensor_view_count: 1,
                    tensor_views: v.as_ptr(),
                    ..Default::default()
                })
                .collect();
            let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
                .iter()
                .map(|b| {
                    let buffer = match b {
                        Binding::Buffer(buf) => *buf,
                        Binding::Tensor(_) => vk::Buffer::null(),
                    };
                    [vk::DescriptorBufferInfo {
                        buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    Binding::Tensor(_) => vk::WriteDescriptorSet {
                        next: (&tensor_writes[i] as *const vk::WriteDescriptorSetTensorARM).cast(),
                        dst_set: set,
                        dst_binding: i as u32,
                        descriptor_count: 1,
                        descriptor_type: vk::DescriptorType::TENSOR_ARM,
                        ..Default::default()
                    },
                    Binding::Buffer(_) => vk::WriteDescriptorSet {
                        dst_set: set,
                        dst_binding: i as u32,
                        descriptor_count: 1,
                        descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
                        buffer_info: buffer_infos[i].as_ptr(),
                        ..Default::default()
                    },
                })
                .collect();
            self.device
                .update_descriptor_sets(&writes, &[] as &[vk::CopyDescriptorSet]);

            let alloc = vk::CommandBufferAllocateInfo::builder()
                .command_pool(self.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cb = self
                .device
                .allocate_command_buffers(&alloc)
                .expect("vkAllocateCommandBuffers")[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .expect("vkBeginCommandBuffer");
            self.device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            self.device.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                &[set],
                &[],
            );
            self.device
                .cmd_dispatch(cb, groups[0], groups[1], groups[2]);
            self.device
                .end_command_buffer(cb)
                .expect("vkEndCommandBuffer");
            Kernel {
                module,
                set_layout,
                layout,
                pipeline,
                pool,
                cb,
            }
        }
    }

    fn submit_wait(&self, cb: vk::CommandBuffer) {
        let cbs = [cb];
        let submit = vk::SubmitInfo::builder().command_buffers(&cbs);
        // SAFETY: `cb` is executable and not pending; the fence is unsignalled.
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

    fn destroy_kernel(&self, k: Kernel) {
        // SAFETY: the device is idle (every submit is waited for); the objects are unused.
        unsafe {
            self.device.free_command_buffers(self.pool, &[k.cb]);
            self.device.destroy_pipeline(k.pipeline, None);
            self.device.destroy_descriptor_pool(k.pool, None);
            self.device.destroy_pipeline_layout(k.layout, None);
            self.device
                .destroy_descriptor_set_layout(k.set_layout, None);
            self.device.destroy_shader_module(k.module, None);
        }
    }

    fn destroy_tensor(&self, t: BoundTensor) {
        // SAFETY: the device is idle; the view and tensor are unused.
        unsafe {
            self.device.destroy_tensor_view_arm(t.view, None);
            self.device.destroy_tensor_arm(t.tensor, None);
            self.device.free_memory(t.mem.memory, None);
        }
    }

    fn destroy_buffer(&self, b: BoundBuffer) {
        // SAFETY: the device is idle; the buffer is unused.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.mem.memory, None);
        }
    }
}

impl Mapped {
    /// Writes `values` from byte 0. Only while no device work uses the memory.
    fn write_u32s(&self, values: &[u32]) {
        assert!(values.len() * 4 <= self.len, "write out of range");
        // SAFETY: the mapping holds `len` bytes (checked above) and the device is idle.
        unsafe {
            std::ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), self.ptr, values.len() * 4)
        };
    }

    /// The first `n` 32-bit words. Only while no device work writes the memory.
    fn read_u32s(&self, n: usize) -> Vec<u32> {
        assert!(n * 4 <= self.len, "read out of range");
        let mut out = vec![0u32; n];
        // SAFETY: the mapping holds `len` bytes (checked above) and the device is idle.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, out.as_mut_ptr().cast::<u8>(), n * 4) };
        out
    }

    fn fill(&self, byte: u8) {
        // SAFETY: the mapping holds `len` bytes and the device is idle.
        unsafe { std::ptr::write_bytes(self.ptr, byte, self.len) };
    }
}

/// Float32 values that are small integers (sums stay exact), as bits.
fn small_floats(count: usize, seed: u32) -> Vec<u32> {
    pattern_bytes(count, seed)
        .into_iter()
        .map(|b| f32::from(b % 16).to_bits())
        .collect()
}

fn first_mismatch(got: &[u32], want: impl Iterator<Item = u32>) -> Option<(usize, u32, u32)> {
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| *g != w)
        .map(|(i, (g, w))| (i, *g, w))
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    throughput: Throughput,
) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(throughput);
    g
}

/// Times submit + fence wait of the kernel's recorded dispatch.
fn time(g: &mut BenchmarkGroup<'_, WallTime>, gpu: &Gpu, k: &Kernel) {
    // Separate ids per driver, so criterion compares runs of the same driver only.
    let id = if std::env::var_os("TESSERA_BENCH_ICD").is_some() {
        "bench_icd_submit_wait"
    } else {
        "tessera_submit_wait"
    };
    g.bench_function(id, |b| b.iter(|| gpu.submit_wait(k.cb)));
}

fn shaders(c: &mut Criterion) {
    let gpu = open_gpu();
    let f32_ = vk::Format::R32_SFLOAT;
    let dims = [N, N];
    let count = (N * N) as usize;
    let bytes = count as u64 * 4;
    let name = &gpu.name;

    // 1. c = a + b.
    {
        let a = gpu.tensor(f32_, &dims);
        let b = gpu.tensor(f32_, &dims);
        let out = gpu.tensor(f32_, &dims);
        let va = small_floats(count, 1);
        let vb = small_floats(count, 2);
        a.mem.write_u32s(&va);
        b.mem.write_u32s(&vb);
        out.mem.fill(0xEE);
        let k = gpu.kernel(
            TENSOR_ADD_SPV,
            &[
                Binding::Tensor(a.view),
                Binding::Tensor(b.view),
                Binding::Tensor(out.view),
            ],
            [(N / 256) as u32, N as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let want = va
            .iter()
            .zip(&vb)
            .map(|(x, y)| (f32::from_bits(*x) + f32::from_bits(*y)).to_bits());
        let bad = first_mismatch(&out.mem.read_u32s(count), want);
        assert_eq!(bad, None, "tensor_add on {name}: (index, got, want)");
        let mut g = group(c, "shader_tensor_add", Throughput::Bytes(3 * bytes));
        time(&mut g, &gpu, &k);
        g.finish();
        gpu.destroy_kernel(k);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    // 2. Row sums.
    {
        let src = gpu.tensor(f32_, &dims);
        let sums = gpu.buffer(N as u64 * 4);
        let values = small_floats(count, 3);
        src.mem.write_u32s(&values);
        sums.mem.fill(0xEE);
        let k = gpu.kernel(
            ROW_SUM_SPV,
            &[Binding::Tensor(src.view), Binding::Buffer(sums.buffer)],
            [N as u32, 1, 1],
        );
        gpu.submit_wait(k.cb);
        let want = values.chunks_exact(N as usize).map(|row| {
            // Small integers: every partial sum is exact, so any order gives this value.
            row.iter()
                .map(|&v| f32::from_bits(v))
                .sum::<f32>()
                .to_bits()
        });
        let bad = first_mismatch(&sums.mem.read_u32s(N as usize), want);
        assert_eq!(bad, None, "row_sum on {name}: (row, got, want)");
        let mut g = group(c, "shader_row_sum", Throughput::Bytes(bytes));
        time(&mut g, &gpu, &k);
        g.finish();
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(src);
        gpu.destroy_buffer(sums);
    }

    // 3. Transpose.
    {
        let src = gpu.tensor(f32_, &dims);
        let dst = gpu.tensor(f32_, &dims);
        let values: Vec<u32> = (0..count as u32).map(|i| (i as f32).to_bits()).collect();
        src.mem.write_u32s(&values);
        dst.mem.fill(0xEE);
        let k = gpu.kernel(
            TRANSPOSE_SPV,
            &[Binding::Tensor(src.view), Binding::Tensor(dst.view)],
            [(N / 16) as u32, (N / 16) as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let n = N as usize;
        let want = (0..count).map(|i| values[(i % n) * n + i / n]);
        let bad = first_mismatch(&dst.mem.read_u32s(count), want);
        assert_eq!(bad, None, "transpose on {name}: (index, got, want)");
        let mut g = group(c, "shader_transpose", Throughput::Bytes(2 * bytes));
        time(&mut g, &gpu, &k);
        g.finish();
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(src);
        gpu.destroy_tensor(dst);
    }

    // 4. 100 000 one-invocation workgroups.
    {
        let n = (TINY_GRID[0] * TINY_GRID[1]) as usize;
        let dst = gpu.tensor(vk::Format::R32_UINT, &[n as i64]);
        dst.mem.fill(0xEE);
        let k = gpu.kernel(
            TINY_GROUPS_SPV,
            &[Binding::Tensor(dst.view)],
            [TINY_GRID[0], TINY_GRID[1], 1],
        );
        gpu.submit_wait(k.cb);
        let want = (0..n as u32).map(|i| i * 3 + 1);
        let bad = first_mismatch(&dst.mem.read_u32s(n), want);
        assert_eq!(bad, None, "tiny_groups on {name}: (index, got, want)");
        let mut g = group(c, "shader_tiny_groups", Throughput::Elements(n as u64));
        time(&mut g, &gpu, &k);
        g.finish();
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(dst);
    }
}

criterion_group!(benches, shaders);
criterion_main!(benches);
