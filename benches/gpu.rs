//! The Vulkan plumbing the shader benchmarks (`shaders`, `cooperative`) share: a [`BenchGpu`]
//! with buffers, tensors and one-dispatch kernels on host-visible, mapped memory, and criterion
//! timing of a kernel's submit + fence wait.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::descriptors::{Descriptor, descriptor_set};
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::ArmTensorsExtensionDeviceCommands;
use tessera_e2e::*;

use crate::common;

pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The bench device.
pub struct Gpu(pub BenchGpu);

impl std::ops::Deref for Gpu {
    type Target = BenchGpu;
    fn deref(&self) -> &BenchGpu {
        &self.0
    }
}

/// Host-visible, mapped memory bound to a tensor (with a view) or a buffer.
pub struct Mapped {
    pub memory: vk::DeviceMemory,
    pub ptr: *mut u8,
    pub len: usize,
}

pub struct BoundTensor {
    pub tensor: vk::TensorARM,
    pub view: vk::TensorViewARM,
    pub mem: Mapped,
}

pub struct BoundBuffer {
    pub buffer: vk::Buffer,
    pub mem: Mapped,
}

/// A compute pipeline with its one descriptor set, and a command buffer recording one dispatch.
pub struct Kernel {
    pub module: vk::ShaderModule,
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    pub pool: vk::DescriptorPool,
    pub cb: vk::CommandBuffer,
}

impl Gpu {
    pub fn mapped(&self, reqs: vk::MemoryRequirements) -> Mapped {
        let (memory, ptr) = self.mapped_memory(reqs);
        Mapped {
            memory,
            ptr,
            len: reqs.size as usize,
        }
    }

    pub fn tensor(&self, format: vk::Format, dims: &[i64]) -> BoundTensor {
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

    pub fn buffer(&self, size: u64) -> BoundBuffer {
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
    pub fn kernel(&self, spv: &[u8], bindings: &[Descriptor], groups: [u32; 3]) -> Kernel {
        self.kernel_with(spv, bindings, groups, &[])
    }

    /// [`Gpu::kernel`] with 32-bit specialization constants: `constants[i]` is constant `i`.
    pub fn kernel_with(
        &self,
        spv: &[u8],
        bindings: &[Descriptor],
        groups: [u32; 3],
        constants: &[u32],
    ) -> Kernel {
        let code = words(spv);
        let entries: Vec<vk::SpecializationMapEntry> = (0..constants.len() as u32)
            .map(|i| vk::SpecializationMapEntry {
                constant_id: i,
                offset: 4 * i,
                size: 4,
            })
            .collect();
        let constant_bytes: Vec<u8> = constants.iter().flat_map(|c| c.to_le_bytes()).collect();
        let specialization = vk::SpecializationInfo::builder()
            .map_entries(&entries)
            .data(&constant_bytes);
        let layout_bindings: Vec<_> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                vk::DescriptorSetLayoutBinding::builder()
                    .binding(i as u32)
                    .descriptor_type(b.type_())
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
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
                .name(b"main\0")
                .specialization_info(&specialization);
            let pinfo = [vk::ComputePipelineCreateInfo::builder()
                .stage(stage)
                .layout(layout)];
            let pipeline = self
                .device
                .create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None)
                .expect("vkCreateComputePipelines")
                .0[0];
            let descriptors: Vec<(u32, Descriptor)> = bindings
                .iter()
                .enumerate()
                .map(|(i, &b)| (i as u32, b))
                .collect();
            let (pool, set) = descriptor_set(&self.device, set_layout, &descriptors)
                .expect("the kernel's descriptor set");

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

    pub fn submit_wait(&self, cb: vk::CommandBuffer) {
        let cbs = [cb];
        let submit = vk::SubmitInfo::builder().command_buffers(&cbs);
        // SAFETY: `cb` is executable and not pending; the fence is unsignalled.
        unsafe {
            self.device
                .queue_submit(self.queue, &[submit], self.fence)
                .expect("vkQueueSubmit");
            let waited = self
                .device
                .wait_for_fences(&[self.fence], true, WAIT_TIMEOUT_NS)
                .expect("vkWaitForFences");
            // VK_TIMEOUT is a success code: the work would still be running.
            assert_eq!(
                waited,
                vk::SuccessCode::SUCCESS,
                "the dispatch did not finish within {} s",
                WAIT_TIMEOUT_NS / 1_000_000_000
            );
            self.device
                .reset_fences(&[self.fence])
                .expect("vkResetFences");
        }
    }

    pub fn destroy_kernel(&self, k: Kernel) {
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

    pub fn destroy_tensor(&self, t: BoundTensor) {
        // SAFETY: the device is idle; the view and tensor are unused.
        unsafe {
            self.device.destroy_tensor_view_arm(t.view, None);
            self.device.destroy_tensor_arm(t.tensor, None);
            self.device.free_memory(t.mem.memory, None);
        }
    }

    pub fn destroy_buffer(&self, b: BoundBuffer) {
        // SAFETY: the device is idle; the buffer is unused.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.mem.memory, None);
        }
    }
}

/// Plain values that may be copied to and from mapped memory byte for byte.
pub trait Pod: Copy + Default {}
impl Pod for u8 {}
impl Pod for i8 {}
impl Pod for u16 {}
impl Pod for u32 {}
impl Pod for f32 {}

impl Mapped {
    /// Writes `values` from byte 0. Only while no device work uses the memory.
    pub fn write<T: Pod>(&self, values: &[T]) {
        let bytes = std::mem::size_of_val(values);
        assert!(bytes <= self.len, "write out of range");
        // SAFETY: the mapping holds `len` bytes (checked above), the device is idle, and `T` is
        // a plain value type.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), self.ptr, bytes) };
    }

    /// The first `n` values. Only while no device work writes the memory.
    pub fn read<T: Pod>(&self, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); n];
        let bytes = std::mem::size_of_val(out.as_slice());
        assert!(bytes <= self.len, "read out of range");
        // SAFETY: the mapping holds `len` bytes (checked above), the device is idle, and every
        // bit pattern is a valid `T`.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, out.as_mut_ptr().cast::<u8>(), bytes) };
        out
    }

    pub fn fill(&self, byte: u8) {
        // SAFETY: the mapping holds `len` bytes and the device is idle.
        unsafe { std::ptr::write_bytes(self.ptr, byte, self.len) };
    }
}

pub fn first_mismatch<T: PartialEq + Copy>(got: &[T], want: &[T]) -> Option<(usize, T, T)> {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| g != w)
        .map(|(i, (g, w))| (i, *g, *w))
}

pub fn group<'a>(
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

/// Times submit + fence wait of the kernel's recorded dispatch as `shader_<name>/<driver id>`
/// (`<driver label>_submit_wait`, or `<driver label>_<tag>_submit_wait` with
/// `TESSERA_BENCH_TAG`: `bench-compare`'s one-core run is `one_core`).
pub fn time(c: &mut Criterion, name: &str, throughput: Throughput, gpu: &Gpu, k: &Kernel) {
    let mut g = group(c, &format!("shader_{name}"), throughput);
    let tag = std::env::var("TESSERA_BENCH_TAG")
        .ok()
        .filter(|t| !t.is_empty())
        .map_or_else(String::new, |t| format!("_{t}"));
    g.bench_function(
        format!("{}{tag}_submit_wait", common::driver_label()),
        |b| b.iter(|| gpu.submit_wait(k.cb)),
    );
    g.finish();
}
