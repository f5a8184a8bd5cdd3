//! Command pools, command buffers and the transfer, synchronisation and query commands recorded
//! into them.

use std::ffi::c_void;
use std::sync::Arc;

use parking_lot::Mutex;
use tessera_runtime::cmd::{BufferCopy, Command, CommandBuffer, CommandPool, Level, UsageFlags};
use tessera_runtime::sync::Event;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, slice, write};
use crate::entry::buffer::buffer;
use crate::entry::device::device;
use crate::entry::query::{query_pool, result_flags};
use crate::entry::sync::event;
use crate::handle::{self, Object, RawHandle};

/// A command pool and the handles of the command buffers allocated from it.
#[derive(Debug)]
pub struct CommandPoolObj {
    /// The runtime pool.
    pub pool: CommandPool,
    /// Live command-buffer handles (freed with the pool).
    pub handles: Mutex<Vec<u64>>,
}

impl Object for CommandPoolObj {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_COMMAND_POOL;
    const NAME: &'static str = "VkCommandPool";
}

impl Object for CommandBuffer {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_COMMAND_BUFFER;
    const NAME: &'static str = "VkCommandBuffer";
}

/// Looks up a command buffer handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn command_buffer(cb: VkCommandBuffer) -> Result<Arc<CommandBuffer>> {
    handle::get::<CommandBuffer>(cb.raw())
}

fn pool(pool: VkCommandPool) -> Result<Arc<CommandPoolObj>> {
    handle::get::<CommandPoolObj>(pool.raw())
}

/// Runs a `vkCmd*` body: looks the command buffer up and reports a bad handle.
fn cmd(name: &'static str, cb: VkCommandBuffer, f: impl FnOnce(&CommandBuffer)) {
    boundary::void(name, || {
        let cb = command_buffer(cb)?;
        f(&cb);
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateCommandPool(
    device: VkDevice,
    pCreateInfo: *const VkCommandPoolCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pCommandPool: *mut VkCommandPool,
) -> VkResult {
    boundary::result("vkCreateCommandPool", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            "VUID-VkCommandPoolCreateInfo-sType-sType",
        )?;
        ensure!(
            info.flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT == 0,
            "VUID-VkCommandPoolCreateInfo-flags-02860",
            "protected memory is not supported"
        );
        ensure!(
            info.queueFamilyIndex == 0,
            "VUID-vkCreateCommandPool-queueFamilyIndex-01937",
            "queueFamilyIndex {} does not exist",
            info.queueFamilyIndex
        );
        let resettable = info.flags & VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT != 0;
        let obj = CommandPoolObj {
            pool: CommandPool::new(resettable),
            handles: Mutex::new(Vec::new()),
        };
        let h = handle::insert(Arc::new(obj));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pCommandPool, "pCommandPool", VkCommandPool::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyCommandPool(
    _device: VkDevice,
    commandPool: VkCommandPool,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyCommandPool", || {
        if let Some(pool) = handle::remove::<CommandPoolObj>(commandPool.raw())? {
            for h in pool.handles.lock().drain(..) {
                handle::remove::<CommandBuffer>(h)?;
            }
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetCommandPool(
    device: VkDevice,
    commandPool: VkCommandPool,
    _flags: VkCommandPoolResetFlags,
) -> VkResult {
    boundary::result("vkResetCommandPool", || {
        self::device(device)?;
        pool(commandPool)?.pool.reset()?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkTrimCommandPool(
    device: VkDevice,
    commandPool: VkCommandPool,
    _flags: VkCommandPoolTrimFlags,
) {
    boundary::void("vkTrimCommandPool", || {
        self::device(device)?;
        pool(commandPool).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkAllocateCommandBuffers(
    device: VkDevice,
    pAllocateInfo: *const VkCommandBufferAllocateInfo,
    pCommandBuffers: *mut VkCommandBuffer,
) -> VkResult {
    boundary::result("vkAllocateCommandBuffers", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pAllocateInfo, "pAllocateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            "VUID-VkCommandBufferAllocateInfo-sType-sType",
        )?;
        let level = match info.level {
            VK_COMMAND_BUFFER_LEVEL_PRIMARY => Level::Primary,
            VK_COMMAND_BUFFER_LEVEL_SECONDARY => Level::Secondary,
            other => {
                return Err(Error::invalid(
                    "VUID-VkCommandBufferAllocateInfo-level-parameter",
                    format!("level {other} is not a VkCommandBufferLevel"),
                ));
            }
        };
        ensure!(
            info.commandBufferCount > 0,
            "VUID-VkCommandBufferAllocateInfo-commandBufferCount-arraylength",
            "commandBufferCount is 0"
        );
        ensure!(
            !pCommandBuffers.is_null(),
            "VUID-vkAllocateCommandBuffers-pCommandBuffers-parameter",
            "pCommandBuffers is NULL"
        );
        let pool = pool(info.commandPool)?;
        let mut handles = pool.handles.lock();
        for i in 0..info.commandBufferCount as usize {
            let h = handle::insert_dispatchable(pool.pool.allocate(level));
            handles.push(h);
            // SAFETY: `commandBufferCount` writable elements per the spec.
            unsafe { pCommandBuffers.add(i).write(VkCommandBuffer::from_raw(h)) };
        }
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkFreeCommandBuffers(
    _device: VkDevice,
    commandPool: VkCommandPool,
    commandBufferCount: u32,
    pCommandBuffers: *const VkCommandBuffer,
) {
    boundary::void("vkFreeCommandBuffers", || {
        let pool = pool(commandPool)?;
        // SAFETY: `commandBufferCount` handles per the spec.
        let cbs = unsafe { slice(pCommandBuffers, commandBufferCount, "pCommandBuffers")? };
        let mut handles = pool.handles.lock();
        for cb in cbs.iter().filter(|cb| !cb.is_null()) {
            ensure!(
                handles.contains(&cb.raw()),
                "VUID-vkFreeCommandBuffers-pCommandBuffers-parent",
                "command buffer {:#x} was not allocated from this pool",
                cb.raw()
            );
            if let Some(obj) = handle::remove::<CommandBuffer>(cb.raw())? {
                ensure!(
                    !obj.is_pending(),
                    "VUID-vkFreeCommandBuffers-pCommandBuffers-00047",
                    "a freed command buffer is still pending (it will finish first)"
                );
                pool.pool.free(&obj);
            }
            handles.retain(|h| *h != cb.raw());
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkBeginCommandBuffer(
    commandBuffer: VkCommandBuffer,
    pBeginInfo: *const VkCommandBufferBeginInfo,
) -> VkResult {
    boundary::result("vkBeginCommandBuffer", || {
        let cb = command_buffer(commandBuffer)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pBeginInfo, "pBeginInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
            "VUID-VkCommandBufferBeginInfo-sType-sType",
        )?;
        if cb.level() == Level::Secondary {
            ensure!(
                info.flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT == 0,
                "VUID-VkCommandBufferBeginInfo-flags-09123",
                "RENDER_PASS_CONTINUE needs a graphics queue"
            );
            ensure!(
                !info.pInheritanceInfo.is_null(),
                "VUID-vkBeginCommandBuffer-commandBuffer-00051",
                "a secondary command buffer needs pInheritanceInfo"
            );
        }
        let usage = UsageFlags {
            one_time_submit: info.flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT != 0,
            simultaneous_use: info.flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT != 0,
        };
        cb.begin(usage)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEndCommandBuffer(commandBuffer: VkCommandBuffer) -> VkResult {
    boundary::result("vkEndCommandBuffer", || {
        command_buffer(commandBuffer)?.end()?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetCommandBuffer(
    commandBuffer: VkCommandBuffer,
    _flags: VkCommandBufferResetFlags,
) -> VkResult {
    boundary::result("vkResetCommandBuffer", || {
        command_buffer(commandBuffer)?.reset(false)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdCopyBuffer(
    commandBuffer: VkCommandBuffer,
    srcBuffer: VkBuffer,
    dstBuffer: VkBuffer,
    regionCount: u32,
    pRegions: *const VkBufferCopy,
) {
    cmd("vkCmdCopyBuffer", commandBuffer, |cb| {
        cb.record("vkCmdCopyBuffer", || {
            // SAFETY: `regionCount` structs per the spec.
            let regions = unsafe { slice(pRegions, regionCount, "pRegions")? };
            let regions = regions
                .iter()
                .map(|r| BufferCopy {
                    src_offset: r.srcOffset,
                    dst_offset: r.dstOffset,
                    size: r.size,
                })
                .collect();
            Command::copy_buffer(buffer(srcBuffer)?, buffer(dstBuffer)?, regions)
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdCopyBuffer2(
    commandBuffer: VkCommandBuffer,
    pCopyBufferInfo: *const VkCopyBufferInfo2,
) {
    cmd("vkCmdCopyBuffer2", commandBuffer, |cb| {
        cb.record("vkCmdCopyBuffer2", || {
            // SAFETY: valid per the spec.
            let info = unsafe { deref(pCopyBufferInfo, "pCopyBufferInfo")? };
            check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2,
                "VUID-VkCopyBufferInfo2-sType-sType",
            )?;
            // SAFETY: `regionCount` structs per the spec.
            let regions = unsafe { slice(info.pRegions, info.regionCount, "pRegions")? };
            let regions = regions
                .iter()
                .map(|r| {
                    check_stype(
                        r.sType,
                        VK_STRUCTURE_TYPE_BUFFER_COPY_2,
                        "VUID-VkBufferCopy2-sType-sType",
                    )?;
                    Ok(BufferCopy {
                        src_offset: r.srcOffset,
                        dst_offset: r.dstOffset,
                        size: r.size,
                    })
                })
                .collect::<Result<_>>()?;
            Command::copy_buffer(buffer(info.srcBuffer)?, buffer(info.dstBuffer)?, regions)
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdFillBuffer(
    commandBuffer: VkCommandBuffer,
    dstBuffer: VkBuffer,
    dstOffset: VkDeviceSize,
    size: VkDeviceSize,
    data: u32,
) {
    cmd("vkCmdFillBuffer", commandBuffer, |cb| {
        cb.record("vkCmdFillBuffer", || {
            let size = (size != VK_WHOLE_SIZE).then_some(size);
            Command::fill_buffer(buffer(dstBuffer)?, dstOffset, size, data)
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdUpdateBuffer(
    commandBuffer: VkCommandBuffer,
    dstBuffer: VkBuffer,
    dstOffset: VkDeviceSize,
    dataSize: VkDeviceSize,
    pData: *const c_void,
) {
    cmd("vkCmdUpdateBuffer", commandBuffer, |cb| {
        cb.record("vkCmdUpdateBuffer", || {
            ensure!(
                dataSize <= crate::caps::UPDATE_BUFFER_MAX,
                "VUID-vkCmdUpdateBuffer-dataSize-00037",
                "dataSize {dataSize} exceeds 65536"
            );
            // SAFETY: `dataSize` readable bytes per the spec (bounded above).
            let data = unsafe { slice(pData.cast::<u8>(), dataSize as u32, "pData")? };
            Command::update_buffer(buffer(dstBuffer)?, dstOffset, data.to_vec())
        })
    })
}

/// Checks the barriers of a dependency: buffers must be live, ranges inside them, and no image
/// barrier can be valid (no image can exist).
fn check_barriers(
    buffers: impl Iterator<Item = (VkBuffer, u64, u64)>,
    image_barriers: u32,
    vuid_image: &'static str,
) -> Result<()> {
    for (b, offset, size) in buffers {
        let buf = buffer(b)?;
        ensure!(
            offset < buf.size(),
            "VUID-VkBufferMemoryBarrier2-offset-01187",
            "barrier offset {offset} is not less than the buffer size {}",
            buf.size()
        );
        if size != VK_WHOLE_SIZE {
            buf.check_range(offset, size, "VUID-VkBufferMemoryBarrier2-size-01189")?;
        }
    }
    ensure!(
        image_barriers == 0,
        vuid_image,
        "image memory barriers name images, and no image can exist"
    );
    Ok(())
}

/// Checks the buffer and image barriers of `vkCmdPipelineBarrier` / `vkCmdWaitEvents`.
///
/// # Safety
/// `barriers` must hold `count` valid structs (or be null with `count == 0`).
unsafe fn check_v1_barriers(
    count: u32,
    barriers: *const VkBufferMemoryBarrier,
    image_barriers: u32,
) -> Result<()> {
    // SAFETY: caller contract.
    let bufs = unsafe { slice(barriers, count, "pBufferMemoryBarriers")? };
    check_barriers(
        bufs.iter().map(|b| (b.buffer, b.offset, b.size)),
        image_barriers,
        "VUID-VkImageMemoryBarrier-image-parameter",
    )
}

/// Validates a `VkDependencyInfo`.
///
/// # Safety
/// `info` must be null or valid per the spec.
unsafe fn check_dependency_info(info: *const VkDependencyInfo) -> Result<()> {
    // SAFETY: caller contract.
    let info = unsafe { deref(info, "pDependencyInfo")? };
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        "VUID-VkDependencyInfo-sType-sType",
    )?;
    // SAFETY: counts and arrays per the spec.
    let bufs = unsafe {
        slice(
            info.pBufferMemoryBarriers,
            info.bufferMemoryBarrierCount,
            "pBufferMemoryBarriers",
        )?
    };
    for b in bufs {
        check_stype(
            b.sType,
            VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
            "VUID-VkBufferMemoryBarrier2-sType-sType",
        )?;
    }
    check_barriers(
        bufs.iter().map(|b| (b.buffer, b.offset, b.size)),
        info.imageMemoryBarrierCount,
        "VUID-VkImageMemoryBarrier2-image-parameter",
    )?;
    // SAFETY: the chain of a valid VkDependencyInfo.
    unsafe { crate::entry::tensor::check_tensor_barriers(info.pNext) }
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdPipelineBarrier(
    commandBuffer: VkCommandBuffer,
    _srcStageMask: VkPipelineStageFlags,
    _dstStageMask: VkPipelineStageFlags,
    _dependencyFlags: VkDependencyFlags,
    _memoryBarrierCount: u32,
    _pMemoryBarriers: *const VkMemoryBarrier,
    bufferMemoryBarrierCount: u32,
    pBufferMemoryBarriers: *const VkBufferMemoryBarrier,
    imageMemoryBarrierCount: u32,
    _pImageMemoryBarriers: *const VkImageMemoryBarrier,
) {
    cmd("vkCmdPipelineBarrier", commandBuffer, |cb| {
        // The executor runs a queue's commands in order on one thread: a barrier has nothing to do
        // at execution, but its arguments are still checked.
        cb.record_check("vkCmdPipelineBarrier", || {
            // SAFETY: counts and arrays per the spec.
            unsafe {
                check_v1_barriers(
                    bufferMemoryBarrierCount,
                    pBufferMemoryBarriers,
                    imageMemoryBarrierCount,
                )
            }
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdPipelineBarrier2(
    commandBuffer: VkCommandBuffer,
    pDependencyInfo: *const VkDependencyInfo,
) {
    cmd("vkCmdPipelineBarrier2", commandBuffer, |cb| {
        // SAFETY: valid per the spec.
        cb.record_check("vkCmdPipelineBarrier2", || unsafe {
            check_dependency_info(pDependencyInfo)
        })
    })
}

fn set_event(
    name: &'static str,
    commandBuffer: VkCommandBuffer,
    ev: VkEvent,
    set: bool,
    check: impl FnOnce() -> Result<()>,
) {
    cmd(name, commandBuffer, |cb| {
        cb.record(name, || {
            check()?;
            Ok(Command::SetEvent {
                event: event(ev)?,
                set,
            })
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdSetEvent(
    commandBuffer: VkCommandBuffer,
    event: VkEvent,
    _stageMask: VkPipelineStageFlags,
) {
    set_event("vkCmdSetEvent", commandBuffer, event, true, || Ok(()))
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdSetEvent2(
    commandBuffer: VkCommandBuffer,
    event: VkEvent,
    pDependencyInfo: *const VkDependencyInfo,
) {
    // SAFETY: valid per the spec.
    set_event("vkCmdSetEvent2", commandBuffer, event, true, || unsafe {
        check_dependency_info(pDependencyInfo)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdResetEvent(
    commandBuffer: VkCommandBuffer,
    event: VkEvent,
    _stageMask: VkPipelineStageFlags,
) {
    set_event("vkCmdResetEvent", commandBuffer, event, false, || Ok(()))
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdResetEvent2(
    commandBuffer: VkCommandBuffer,
    event: VkEvent,
    _stageMask: VkPipelineStageFlags2,
) {
    set_event("vkCmdResetEvent2", commandBuffer, event, false, || Ok(()))
}

fn events(p_events: *const VkEvent, count: u32) -> Result<Box<[Arc<Event>]>> {
    // SAFETY: `count` handles per the spec (the callers' contract).
    let handles = unsafe { slice(p_events, count, "pEvents")? };
    ensure!(
        !handles.is_empty(),
        "VUID-vkCmdWaitEvents-eventCount-arraylength",
        "eventCount is 0"
    );
    handles.iter().map(|e| event(*e)).collect()
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdWaitEvents(
    commandBuffer: VkCommandBuffer,
    eventCount: u32,
    pEvents: *const VkEvent,
    _srcStageMask: VkPipelineStageFlags,
    _dstStageMask: VkPipelineStageFlags,
    _memoryBarrierCount: u32,
    _pMemoryBarriers: *const VkMemoryBarrier,
    bufferMemoryBarrierCount: u32,
    pBufferMemoryBarriers: *const VkBufferMemoryBarrier,
    imageMemoryBarrierCount: u32,
    _pImageMemoryBarriers: *const VkImageMemoryBarrier,
) {
    cmd("vkCmdWaitEvents", commandBuffer, |cb| {
        cb.record("vkCmdWaitEvents", || {
            // SAFETY: counts and arrays per the spec.
            unsafe {
                check_v1_barriers(
                    bufferMemoryBarrierCount,
                    pBufferMemoryBarriers,
                    imageMemoryBarrierCount,
                )
            }?;
            Ok(Command::WaitEvents {
                events: events(pEvents, eventCount)?,
            })
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdWaitEvents2(
    commandBuffer: VkCommandBuffer,
    eventCount: u32,
    pEvents: *const VkEvent,
    pDependencyInfos: *const VkDependencyInfo,
) {
    cmd("vkCmdWaitEvents2", commandBuffer, |cb| {
        cb.record("vkCmdWaitEvents2", || {
            for i in 0..eventCount as usize {
                ensure!(
                    !pDependencyInfos.is_null(),
                    "VUID-vkCmdWaitEvents2-pDependencyInfos-parameter",
                    "pDependencyInfos is NULL"
                );
                // SAFETY: `eventCount` structs per the spec.
                unsafe { check_dependency_info(pDependencyInfos.add(i))? };
            }
            Ok(Command::WaitEvents {
                events: events(pEvents, eventCount)?,
            })
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdExecuteCommands(
    commandBuffer: VkCommandBuffer,
    commandBufferCount: u32,
    pCommandBuffers: *const VkCommandBuffer,
) {
    cmd("vkCmdExecuteCommands", commandBuffer, |cb| {
        cb.record("vkCmdExecuteCommands", || {
            ensure!(
                cb.level() == Level::Primary,
                "VUID-vkCmdExecuteCommands-bufferlevel",
                "vkCmdExecuteCommands is recorded into a secondary command buffer"
            );
            // SAFETY: `commandBufferCount` handles per the spec.
            let secondaries =
                unsafe { slice(pCommandBuffers, commandBufferCount, "pCommandBuffers")? };
            ensure!(
                !secondaries.is_empty(),
                "VUID-vkCmdExecuteCommands-commandBufferCount-arraylength",
                "commandBufferCount is 0"
            );
            let recordings = secondaries
                .iter()
                .map(|s| command_buffer(*s)?.secondary_recording())
                .collect::<Result<_>>()?;
            Ok(Command::ExecuteCommands { recordings })
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdResetQueryPool(
    commandBuffer: VkCommandBuffer,
    queryPool: VkQueryPool,
    firstQuery: u32,
    queryCount: u32,
) {
    cmd("vkCmdResetQueryPool", commandBuffer, |cb| {
        cb.record("vkCmdResetQueryPool", || {
            Command::reset_queries(query_pool(queryPool)?, firstQuery, queryCount)
        })
    })
}

fn write_timestamp(
    name: &'static str,
    commandBuffer: VkCommandBuffer,
    pool: VkQueryPool,
    query: u32,
) {
    cmd(name, commandBuffer, |cb| {
        cb.record(name, || Command::write_timestamp(query_pool(pool)?, query))
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdWriteTimestamp(
    commandBuffer: VkCommandBuffer,
    _pipelineStage: VkPipelineStageFlagBits,
    queryPool: VkQueryPool,
    query: u32,
) {
    write_timestamp("vkCmdWriteTimestamp", commandBuffer, queryPool, query)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdWriteTimestamp2(
    commandBuffer: VkCommandBuffer,
    _stage: VkPipelineStageFlags2,
    queryPool: VkQueryPool,
    query: u32,
) {
    write_timestamp("vkCmdWriteTimestamp2", commandBuffer, queryPool, query)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdCopyQueryPoolResults(
    commandBuffer: VkCommandBuffer,
    queryPool: VkQueryPool,
    firstQuery: u32,
    queryCount: u32,
    dstBuffer: VkBuffer,
    dstOffset: VkDeviceSize,
    stride: VkDeviceSize,
    flags: VkQueryResultFlags,
) {
    cmd("vkCmdCopyQueryPoolResults", commandBuffer, |cb| {
        cb.record("vkCmdCopyQueryPoolResults", || {
            Command::copy_query_results(
                query_pool(queryPool)?,
                firstQuery,
                queryCount,
                buffer(dstBuffer)?,
                dstOffset,
                stride,
                result_flags(flags)?,
            )
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdSetDeviceMask(commandBuffer: VkCommandBuffer, deviceMask: u32) {
    cmd("vkCmdSetDeviceMask", commandBuffer, |cb| {
        cb.record_check("vkCmdSetDeviceMask", || {
            ensure!(
                deviceMask != 0,
                "VUID-vkCmdSetDeviceMask-deviceMask-00109",
                "deviceMask is 0"
            );
            ensure!(
                deviceMask == 1,
                "VUID-vkCmdSetDeviceMask-deviceMask-00108",
                "deviceMask {deviceMask:#x} names devices beyond the one in the group"
            );
            Ok(())
        })
    })
}
