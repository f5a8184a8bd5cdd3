//! Shader modules, pipeline caches, compute pipelines, and the commands that bind them and
//! dispatch (the rules are the runtime's, [`tessera_runtime::pipeline`] and the command
//! buffer's [`Recorder`]).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::buffer::Buffer;
use tessera_runtime::cmd::Recorder;
use tessera_runtime::descriptor::{DescriptorSet, PipelineLayout};
use tessera_runtime::device::Device;
use tessera_runtime::pipeline::{ComputePipeline, Pipeline, PipelineCache, ShaderModule};
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{deref_mut, write_handle};
use crate::handle;

pub(crate) unsafe fn create_shader_module(
    _device: Arc<Device>,
    info: vk::ShaderModuleCreateInfo,
    out: *mut VkShaderModule,
) -> Result<VkResult> {
    let module = Arc::new(ShaderModule::new(info.code)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pShaderModule", handle::insert(module))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn create_pipeline_cache(
    device: Arc<Device>,
    info: vk::PipelineCacheCreateInfo,
    out: *mut VkPipelineCache,
) -> Result<VkResult> {
    let cache = Arc::new(PipelineCache::create(&device, &info));
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pPipelineCache", handle::insert(cache))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_pipeline_cache_data(
    _device: Arc<Device>,
    cache: Arc<PipelineCache>,
    size: *mut usize,
    data: *mut c_void,
) -> Result<VkResult> {
    // SAFETY: a valid pointer per the spec (null rejected).
    let size = unsafe { deref_mut(size, "pDataSize")? };
    if data.is_null() {
        *size = cache.data().len();
        return Ok(VK_SUCCESS);
    }
    // At most `*size` bytes, whole entries only (the runtime's rule).
    let (bytes, complete) = cache.data_within(*size);
    // SAFETY: `*pDataSize` writable bytes at `pData` per the spec, and `bytes` is no longer.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len()) };
    *size = bytes.len();
    Ok(if complete { VK_SUCCESS } else { VK_INCOMPLETE })
}

pub(crate) fn merge_pipeline_caches(
    _device: Arc<Device>,
    dst: Arc<PipelineCache>,
    sources: Vec<Arc<PipelineCache>>,
) -> Result<VkResult> {
    dst.merge(&sources).map(|()| VK_SUCCESS)
}

pub(crate) unsafe fn create_compute_pipelines(
    device: Arc<Device>,
    cache: Option<Arc<PipelineCache>>,
    _count: u32,
    infos: Vec<vk::ComputePipelineCreateInfo>,
    out: *mut VkPipeline,
) -> Result<VkResult> {
    if out.is_null() && !infos.is_empty() {
        return Err(Error::invalid(
            "VUID-vkCreateComputePipelines-pPipelines-parameter",
            "pPipelines is NULL",
        ));
    }
    let mut first_error = None;
    for (i, info) in infos.iter().enumerate() {
        let handle = match ComputePipeline::create(&device, info, cache.as_ref()) {
            Ok(p) => {
                handle::insert(Arc::new(Pipeline::Compute(Arc::new(p)))) as usize as VkPipeline
            }
            Err(e) => {
                boundary::log_error("vkCreateComputePipelines", &e);
                first_error.get_or_insert(e);
                std::ptr::null_mut()
            }
        };
        // SAFETY: `createInfoCount` writable handles per the spec; failed ones are NULL.
        unsafe { out.add(i).write(handle) };
    }
    first_error.map_or(Ok(VK_SUCCESS), Err)
}

pub(crate) fn cmd_bind_pipeline(
    rec: &mut Recorder,
    bind_point: VkPipelineBindPoint,
    pipeline: Arc<Pipeline>,
) -> Result<()> {
    rec.bind_pipeline(bind_point, pipeline)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn cmd_bind_descriptor_sets(
    rec: &mut Recorder,
    bind_point: VkPipelineBindPoint,
    layout: Arc<PipelineLayout>,
    first_set: u32,
    sets: Vec<Arc<DescriptorSet>>,
    offsets: &[u32],
) -> Result<()> {
    let sets: Vec<_> = sets.into_iter().map(Some).collect();
    rec.bind_descriptor_sets(bind_point, layout, first_set, &sets, offsets)
}

pub(crate) fn cmd_bind_descriptor_sets2(
    rec: &mut Recorder,
    info: vk::BindDescriptorSetsInfo,
) -> Result<()> {
    rec.bind_descriptor_sets2(&info)
}

pub(crate) fn cmd_push_constants(
    rec: &mut Recorder,
    layout: Arc<PipelineLayout>,
    stages: VkShaderStageFlags,
    offset: u32,
    values: &[u8],
) -> Result<()> {
    rec.push_constants(&layout, stages, offset, values)
}

pub(crate) fn cmd_push_constants2(rec: &mut Recorder, info: vk::PushConstantsInfo) -> Result<()> {
    rec.push_constants2(&info)
}

pub(crate) fn cmd_dispatch(rec: &mut Recorder, x: u32, y: u32, z: u32) -> Result<()> {
    rec.dispatch([0; 3], [x, y, z])
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn cmd_dispatch_base(
    rec: &mut Recorder,
    bx: u32,
    by: u32,
    bz: u32,
    x: u32,
    y: u32,
    z: u32,
) -> Result<()> {
    rec.dispatch([bx, by, bz], [x, y, z])
}

pub(crate) fn cmd_dispatch_indirect(
    rec: &mut Recorder,
    buffer: Arc<Buffer>,
    offset: VkDeviceSize,
) -> Result<()> {
    rec.dispatch_indirect(buffer, offset)
}
