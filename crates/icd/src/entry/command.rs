//! Command pools, command buffers and the transfer, synchronisation and query commands recorded
//! into them. Each `vkCmd*` hands its converted arguments to the command buffer's
//! [`Recorder`], which checks the command's rules and records it.

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::buffer::Buffer;
use tessera_runtime::cmd::{CommandBuffer, CommandPool, Recorder, check_update_size};
use tessera_runtime::device::Device;
use tessera_runtime::query::QueryPool;
use tessera_runtime::sync::Event;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{array, bytes, write_handle};
use crate::handle::{self, RawHandle};

pub(crate) unsafe fn create_command_pool(
    device: Arc<Device>,
    info: vk::CommandPoolCreateInfo,
    out: *mut VkCommandPool,
) -> Result<VkResult> {
    let pool = Arc::new(device.create_command_pool(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pCommandPool", handle::insert(pool))? };
    Ok(VK_SUCCESS)
}

pub(crate) fn destroy_command_pool(
    _device: Arc<Device>,
    pool: Option<Arc<CommandPool>>,
) -> Result<()> {
    if let Some(pool) = pool {
        pool.destroy().iter().for_each(handle::forget);
    }
    Ok(())
}

pub(crate) fn reset_command_pool(
    _device: Arc<Device>,
    pool: Arc<CommandPool>,
    _flags: VkCommandPoolResetFlags,
) -> Result<VkResult> {
    pool.reset().map(|()| VK_SUCCESS)
}

pub(crate) fn trim_command_pool(
    _device: Arc<Device>,
    _pool: Arc<CommandPool>,
    _flags: VkCommandPoolTrimFlags,
) -> Result<()> {
    // Nothing is cached per pool: there is nothing to trim.
    Ok(())
}

pub(crate) unsafe fn allocate_command_buffers(
    _device: Arc<Device>,
    info: vk::CommandBufferAllocateInfo,
    out: *mut VkCommandBuffer,
) -> Result<VkResult> {
    ensure!(
        !out.is_null(),
        "VUID-vkAllocateCommandBuffers-pCommandBuffers-parameter",
        "pCommandBuffers is NULL"
    );
    let buffers = info.command_pool.allocate_buffers(&info)?;
    for (i, cb) in buffers.into_iter().enumerate() {
        // SAFETY: `commandBufferCount` writable elements per the spec.
        unsafe {
            out.add(i)
                .write(VkCommandBuffer::from_raw(handle::insert_dispatchable(cb)))
        };
    }
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn free_command_buffers(
    _device: Arc<Device>,
    pool: Arc<CommandPool>,
    count: u32,
    buffers: *const VkCommandBuffer,
) -> Result<()> {
    // SAFETY: `commandBufferCount` handles per the spec (VK_NULL_HANDLE entries are skipped).
    let handles = unsafe {
        array(
            buffers,
            count as usize,
            false,
            "VUID-vkFreeCommandBuffers-pCommandBuffers-00048",
        )?
    };
    for h in handles.iter().filter(|h| !h.is_null()) {
        let cb = handle::lookup::<CommandBuffer>(
            h.raw(),
            "VUID-vkFreeCommandBuffers-pCommandBuffers-00048",
        )?;
        pool.free(&cb)?;
        handle::forget(&cb);
    }
    Ok(())
}

pub(crate) fn begin_command_buffer(
    cb: Arc<CommandBuffer>,
    info: vk::CommandBufferBeginInfo,
) -> Result<VkResult> {
    cb.begin_with(&info).map(|()| VK_SUCCESS)
}

pub(crate) fn end_command_buffer(cb: Arc<CommandBuffer>) -> Result<VkResult> {
    cb.end().map(|()| VK_SUCCESS)
}

pub(crate) fn reset_command_buffer(
    cb: Arc<CommandBuffer>,
    _flags: VkCommandBufferResetFlags,
) -> Result<VkResult> {
    cb.reset(false).map(|()| VK_SUCCESS)
}

pub(crate) fn cmd_copy_buffer(
    rec: &mut Recorder,
    src: Arc<Buffer>,
    dst: Arc<Buffer>,
    regions: Vec<vk::BufferCopy>,
) -> Result<()> {
    rec.copy_buffer(src, dst, &regions)
}

pub(crate) fn cmd_copy_buffer2(rec: &mut Recorder, info: vk::CopyBufferInfo2) -> Result<()> {
    rec.copy_buffer2(info)
}

pub(crate) fn cmd_fill_buffer(
    rec: &mut Recorder,
    dst: Arc<Buffer>,
    offset: VkDeviceSize,
    size: VkDeviceSize,
    data: u32,
) -> Result<()> {
    rec.fill_buffer(dst, offset, size, data)
}

pub(crate) unsafe fn cmd_update_buffer(
    rec: &mut Recorder,
    dst: Arc<Buffer>,
    offset: VkDeviceSize,
    size: VkDeviceSize,
    data: *const c_void,
) -> Result<()> {
    // The size is checked before anything is read.
    let len = check_update_size(size)?;
    // SAFETY: `dataSize` readable bytes per the spec (bounded above).
    let data = unsafe {
        bytes(
            data.cast(),
            len,
            false,
            "VUID-vkCmdUpdateBuffer-pData-parameter",
        )?
    };
    rec.update_buffer(dst, offset, data.to_vec())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn cmd_pipeline_barrier(
    rec: &mut Recorder,
    _src: VkPipelineStageFlags,
    _dst: VkPipelineStageFlags,
    _flags: VkDependencyFlags,
    _memory: Vec<vk::MemoryBarrier>,
    buffers: Vec<vk::BufferMemoryBarrier>,
    images: Vec<vk::ImageMemoryBarrier>,
) -> Result<()> {
    rec.pipeline_barrier(&buffers, &images)
}

pub(crate) fn cmd_pipeline_barrier2(rec: &mut Recorder, info: vk::DependencyInfo) -> Result<()> {
    rec.pipeline_barrier2(&info)
}

pub(crate) fn cmd_set_event(
    rec: &mut Recorder,
    event: Arc<Event>,
    _stage: VkPipelineStageFlags,
) -> Result<()> {
    rec.set_event(event, true, None)
}

pub(crate) fn cmd_set_event2(
    rec: &mut Recorder,
    event: Arc<Event>,
    info: vk::DependencyInfo,
) -> Result<()> {
    rec.set_event(event, true, Some(&info))
}

pub(crate) fn cmd_reset_event(
    rec: &mut Recorder,
    event: Arc<Event>,
    _stage: VkPipelineStageFlags,
) -> Result<()> {
    rec.set_event(event, false, None)
}

pub(crate) fn cmd_reset_event2(
    rec: &mut Recorder,
    event: Arc<Event>,
    _stage: VkPipelineStageFlags2,
) -> Result<()> {
    rec.set_event(event, false, None)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn cmd_wait_events(
    rec: &mut Recorder,
    events: Vec<Arc<Event>>,
    _src: VkPipelineStageFlags,
    _dst: VkPipelineStageFlags,
    _memory: Vec<vk::MemoryBarrier>,
    buffers: Vec<vk::BufferMemoryBarrier>,
    images: Vec<vk::ImageMemoryBarrier>,
) -> Result<()> {
    rec.wait_events(events, &buffers, &images)
}

pub(crate) fn cmd_wait_events2(
    rec: &mut Recorder,
    events: Vec<Arc<Event>>,
    infos: Vec<vk::DependencyInfo>,
) -> Result<()> {
    rec.wait_events2(events, &infos)
}

pub(crate) fn cmd_execute_commands(
    rec: &mut Recorder,
    secondaries: Vec<Arc<CommandBuffer>>,
) -> Result<()> {
    rec.execute_commands(&secondaries)
}

pub(crate) fn cmd_reset_query_pool(
    rec: &mut Recorder,
    pool: Arc<QueryPool>,
    first: u32,
    count: u32,
) -> Result<()> {
    rec.reset_query_pool(pool, first, count)
}

pub(crate) fn cmd_write_timestamp(
    rec: &mut Recorder,
    _stage: VkPipelineStageFlagBits,
    pool: Arc<QueryPool>,
    query: u32,
) -> Result<()> {
    rec.write_timestamp(pool, query)
}

pub(crate) fn cmd_write_timestamp2(
    rec: &mut Recorder,
    _stage: VkPipelineStageFlags2,
    pool: Arc<QueryPool>,
    query: u32,
) -> Result<()> {
    rec.write_timestamp(pool, query)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn cmd_copy_query_pool_results(
    rec: &mut Recorder,
    pool: Arc<QueryPool>,
    first: u32,
    count: u32,
    dst: Arc<Buffer>,
    offset: VkDeviceSize,
    stride: VkDeviceSize,
    flags: VkQueryResultFlags,
) -> Result<()> {
    rec.copy_query_pool_results(pool, first, count, dst, offset, stride, flags)
}

pub(crate) fn cmd_set_device_mask(rec: &mut Recorder, mask: u32) -> Result<()> {
    rec.set_device_mask(mask)
}
