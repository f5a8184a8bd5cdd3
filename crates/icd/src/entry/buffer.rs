//! `VkBuffer`: creation, memory requirements (1, 2 and device variants), binding (1 and 2) and
//! device addresses (the rules are the runtime's, [`tessera_runtime::buffer`]).

use std::sync::Arc;

use tessera_runtime::buffer::Buffer;
use tessera_runtime::device::Device;
use tessera_runtime::memory::{DeviceMemory, MemoryRequirements};
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref_mut, find, write, write_handle};
use crate::generated::{read, write as w};
use crate::handle;

pub(crate) unsafe fn create_buffer(
    device: Arc<Device>,
    info: vk::BufferCreateInfo,
    out: *mut VkBuffer,
) -> Result<VkResult> {
    let buffer = Arc::new(device.create_buffer(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pBuffer", handle::insert(buffer))? };
    Ok(VK_SUCCESS)
}

/// Writes requirements into a `VkMemoryRequirements2` and its chain.
///
/// # Safety
/// `out` must be a valid `VkMemoryRequirements2` with a valid output chain.
pub(crate) unsafe fn write_requirements2(
    out: *mut VkMemoryRequirements2,
    req: MemoryRequirements,
) -> Result<()> {
    // SAFETY: caller contract.
    let dst = unsafe { deref_mut(out, "pMemoryRequirements")? };
    check_stype(
        dst.sType,
        VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
        "VUID-VkMemoryRequirements2-sType-sType",
    )?;
    // SAFETY: caller contract.
    unsafe { w::write_memory_requirements2(dst, &req.vk2()) };
    Ok(())
}

pub(crate) unsafe fn get_buffer_memory_requirements(
    _device: Arc<Device>,
    buffer: Arc<Buffer>,
    out: *mut VkMemoryRequirements,
) -> Result<()> {
    let req = w::to_vk_memory_requirements(&buffer.requirements().vk());
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pMemoryRequirements", req) }
}

pub(crate) unsafe fn get_buffer_memory_requirements2(
    _device: Arc<Device>,
    info: vk::BufferMemoryRequirementsInfo2,
    out: *mut VkMemoryRequirements2,
) -> Result<()> {
    // SAFETY: forwarded.
    unsafe { write_requirements2(out, info.buffer.requirements()) }
}

pub(crate) unsafe fn get_device_buffer_memory_requirements(
    device: Arc<Device>,
    info: vk::DeviceBufferMemoryRequirements,
    out: *mut VkMemoryRequirements2,
) -> Result<()> {
    let buffer = device.create_buffer(&info.create_info)?;
    // SAFETY: forwarded.
    unsafe { write_requirements2(out, buffer.requirements()) }
}

pub(crate) fn bind_buffer_memory(
    _device: Arc<Device>,
    buffer: Arc<Buffer>,
    memory: Arc<DeviceMemory>,
    offset: VkDeviceSize,
) -> Result<VkResult> {
    buffer.bind(memory, offset).map(|()| VK_SUCCESS)
}

/// `vkBindBufferMemory2`: each binding is tried, its result written to a chained
/// `VkBindMemoryStatus` (an output pointer in an input chain, so read here rather than mirrored).
pub(crate) unsafe fn bind_buffer_memory2(
    _device: Arc<Device>,
    count: u32,
    infos: *const VkBindBufferMemoryInfo,
) -> Result<VkResult> {
    // SAFETY: `count` structs per the spec.
    let infos = unsafe {
        crate::conv::array(
            infos,
            count as usize,
            false,
            "VUID-vkBindBufferMemory2-pBindInfos-parameter",
        )?
    };
    let mut first_error: Option<Error> = None;
    for raw in infos {
        // SAFETY: a valid struct per the spec.
        let result = unsafe { read::read_bind_buffer_memory_info(raw) }
            .and_then(|info| info.buffer.bind(info.memory, info.memory_offset));
        // SAFETY: a valid chain per the spec.
        let status =
            unsafe { find::<VkBindMemoryStatus>(raw.pNext, VK_STRUCTURE_TYPE_BIND_MEMORY_STATUS) };
        if let Some(status) = status
            && !status.pResult.is_null()
        {
            let code = result
                .as_ref()
                .map_or_else(boundary::vk_result, |()| VK_SUCCESS);
            // SAFETY: pResult is a valid VkResult pointer per the spec.
            unsafe { status.pResult.write(code) };
        }
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(VK_SUCCESS), Err)
}

pub(crate) fn get_buffer_device_address(
    _device: Arc<Device>,
    info: vk::BufferDeviceAddressInfo,
) -> Result<VkDeviceAddress> {
    info.buffer.device_address()
}

pub(crate) fn get_buffer_opaque_capture_address(
    _device: Arc<Device>,
    info: vk::BufferDeviceAddressInfo,
) -> Result<u64> {
    // bufferDeviceAddressCaptureReplay is not supported: no address can be replayed.
    let _ = info.buffer;
    Ok(0)
}
