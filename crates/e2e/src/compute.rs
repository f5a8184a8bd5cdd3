//! Compute-pipeline helpers for the tests: shader modules, storage-buffer set layouts, pipeline
//! layouts with one push-constant range, compute pipelines with the workgroup width as
//! specialization constant 0, and [`BufferPipeline`], all of it bound to a [`Ctx`].

use crate::descriptors::{Descriptor, descriptor_set};
use crate::vulkanalia::prelude::v1_3::*;
use crate::{Ctx, VkResult};

/// SPIR-V words of a `.spv` file's bytes.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A compute pipeline whose set 0 holds storage buffers at bindings 0.., with its descriptor set.
#[derive(Debug)]
pub struct BufferPipeline {
    pub module: vk::ShaderModule,
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    pub pool: vk::DescriptorPool,
    pub set: vk::DescriptorSet,
}

/// See the module docs.
pub fn shader_module(ctx: &Ctx, code: &[u32]) -> vk::ShaderModule {
    let info = vk::ShaderModuleCreateInfo::builder()
        .code_size(code.len() * 4)
        .code(code);
    // SAFETY: valid create info on a live device.
    unsafe { ctx.device.create_shader_module(&info, None) }.expect("vkCreateShaderModule")
}

/// See the module docs.
pub fn storage_layout(ctx: &Ctx, bindings: u32) -> vk::DescriptorSetLayout {
    let b: Vec<_> = (0..bindings)
        .map(|i| {
            vk::DescriptorSetLayoutBinding::builder()
                .binding(i)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let info = vk::DescriptorSetLayoutCreateInfo::builder().bindings(&b);
    // SAFETY: valid create info on a live device.
    unsafe { ctx.device.create_descriptor_set_layout(&info, None) }
        .expect("vkCreateDescriptorSetLayout")
}

/// See the module docs.
pub fn pipeline_layout(
    ctx: &Ctx,
    set_layout: vk::DescriptorSetLayout,
    push: u32,
) -> vk::PipelineLayout {
    let range = [vk::PushConstantRange::builder()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(push)];
    let ranges: &[_] = if push == 0 { &[] } else { &range };
    let layouts = [set_layout];
    let info = vk::PipelineLayoutCreateInfo::builder()
        .set_layouts(&layouts)
        .push_constant_ranges(ranges);
    // SAFETY: valid create info on a live device.
    unsafe { ctx.device.create_pipeline_layout(&info, None) }.expect("vkCreatePipelineLayout")
}

/// See the module docs.
pub fn compute_pipeline(
    ctx: &Ctx,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    local_x: u32,
) -> VkResult<vk::Pipeline> {
    compute_pipeline_in(ctx, module, layout, local_x, vk::PipelineCache::null())
}

/// [`compute_pipeline`] created with pipeline cache `cache`.
pub fn compute_pipeline_in(
    ctx: &Ctx,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    local_x: u32,
    cache: vk::PipelineCache,
) -> VkResult<vk::Pipeline> {
    let entries = [vk::SpecializationMapEntry::builder()
        .constant_id(0)
        .offset(0)
        .size(4)];
    let data = local_x.to_le_bytes();
    let spec = vk::SpecializationInfo::builder()
        .map_entries(&entries)
        .data(&data);
    let stage = vk::PipelineShaderStageCreateInfo::builder()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(b"main\0")
        .specialization_info(&spec);
    let info = [vk::ComputePipelineCreateInfo::builder()
        .stage(stage)
        .layout(layout)];
    // SAFETY: valid create infos on a live device.
    unsafe { ctx.device.create_compute_pipelines(cache, &info, None) }.map(|(p, _)| p[0])
}

impl BufferPipeline {
    /// Builds the pipeline of `spv` (specialization constant 0 = `local_x`, `push` bytes of push
    /// constants) and a set with `buffers` at bindings 0, 1, …
    pub fn new(ctx: &Ctx, spv: &[u8], buffers: &[vk::Buffer], push: u32, local_x: u32) -> Self {
        Self::in_cache(ctx, spv, buffers, push, local_x, vk::PipelineCache::null())
    }

    /// [`Self::new`], the pipeline created with pipeline cache `cache`.
    pub fn in_cache(
        ctx: &Ctx,
        spv: &[u8],
        buffers: &[vk::Buffer],
        push: u32,
        local_x: u32,
        cache: vk::PipelineCache,
    ) -> Self {
        let module = shader_module(ctx, &words(spv));
        let set_layout = storage_layout(ctx, buffers.len() as u32);
        let layout = pipeline_layout(ctx, set_layout, push);
        let pipeline = compute_pipeline_in(ctx, module, layout, local_x, cache)
            .expect("vkCreateComputePipelines");
        let descriptors: Vec<(u32, Descriptor)> = buffers
            .iter()
            .enumerate()
            .map(|(i, &b)| (i as u32, Descriptor::Buffer(b)))
            .collect();
        let (pool, set) = descriptor_set(&ctx.device, set_layout, &descriptors)
            .expect("the storage buffer descriptor set");
        BufferPipeline {
            module,
            set_layout,
            layout,
            pipeline,
            pool,
            set,
        }
    }

    /// Binds the pipeline and its set and pushes `push` at offset 0 (if not empty).
    pub fn record(&self, device: &Device, cb: vk::CommandBuffer, push: &[u8]) {
        // SAFETY: recording state, live objects.
        unsafe {
            device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            device.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            if !push.is_empty() {
                device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
        }
    }

    /// Destroys the objects; the device must be idle.
    pub fn destroy(self, ctx: &Ctx) {
        // SAFETY: the device is idle (caller contract).
        unsafe {
            ctx.device.destroy_pipeline(self.pipeline, None);
            ctx.device.destroy_descriptor_pool(self.pool, None);
            ctx.device.destroy_pipeline_layout(self.layout, None);
            ctx.device
                .destroy_descriptor_set_layout(self.set_layout, None);
            ctx.device.destroy_shader_module(self.module, None);
        }
    }
}
