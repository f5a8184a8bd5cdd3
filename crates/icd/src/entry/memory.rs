//! `VkDeviceMemory`: allocation, mapping, flush/invalidate, commitment and opaque capture
//! addresses (the rules are the runtime's, [`tessera_runtime::memory`]).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::Result;
use tessera_runtime::device::Device;
use tessera_runtime::memory::{DeviceMemory, check_mapped_ranges};
use tessera_runtime::vk::structs as vk;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{write, write_handle};
use crate::handle;

fn whole(size: VkDeviceSize) -> Option<u64> {
    (size != VK_WHOLE_SIZE).then_some(size)
}

pub(crate) unsafe fn allocate_memory(
    device: Arc<Device>,
    info: vk::MemoryAllocateInfo,
    out: *mut VkDeviceMemory,
) -> Result<VkResult> {
    let memory = Arc::new(device.allocate(&info)?);
    device.live_memory().insert(&memory);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pMemory", handle::insert(memory))? };
    Ok(VK_SUCCESS)
}

/// `vkFreeMemory`: the allocation stops being reachable through device addresses at once; its
/// bytes go when the last buffer, tensor or pending command holding it lets go.
pub(crate) fn free_memory(device: Arc<Device>, memory: Option<Arc<DeviceMemory>>) -> Result<()> {
    if let Some(memory) = memory {
        device.live_memory().remove(&memory);
    }
    Ok(())
}

unsafe fn write_mapping(ptr: *mut u8, out: *mut *mut c_void) -> Result<VkResult> {
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "ppData", ptr.cast::<c_void>())? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn map_memory(
    _device: Arc<Device>,
    memory: Arc<DeviceMemory>,
    offset: VkDeviceSize,
    size: VkDeviceSize,
    flags: VkMemoryMapFlags,
    out: *mut *mut c_void,
) -> Result<VkResult> {
    let ptr = memory.map2(flags, offset, whole(size))?;
    // SAFETY: forwarded.
    unsafe { write_mapping(ptr, out) }
}

pub(crate) unsafe fn map_memory2(
    _device: Arc<Device>,
    info: vk::MemoryMapInfo,
    out: *mut *mut c_void,
) -> Result<VkResult> {
    let ptr = info
        .memory
        .map2(info.flags, info.offset, whole(info.size))?;
    // SAFETY: forwarded.
    unsafe { write_mapping(ptr, out) }
}

pub(crate) fn unmap_memory(_device: Arc<Device>, memory: Arc<DeviceMemory>) -> Result<()> {
    memory.unmap()
}

pub(crate) fn unmap_memory2(_device: Arc<Device>, info: vk::MemoryUnmapInfo) -> Result<VkResult> {
    info.memory.unmap().map(|()| VK_SUCCESS)
}

pub(crate) fn flush_mapped_memory_ranges(
    _device: Arc<Device>,
    ranges: Vec<vk::MappedMemoryRange>,
) -> Result<VkResult> {
    // Host and device share one coherent memory: nothing to write back.
    check_mapped_ranges(&ranges).map(|()| VK_SUCCESS)
}

pub(crate) fn invalidate_mapped_memory_ranges(
    _device: Arc<Device>,
    ranges: Vec<vk::MappedMemoryRange>,
) -> Result<VkResult> {
    check_mapped_ranges(&ranges).map(|()| VK_SUCCESS)
}

pub(crate) unsafe fn get_device_memory_commitment(
    _device: Arc<Device>,
    memory: Arc<DeviceMemory>,
    out: *mut VkDeviceSize,
) -> Result<()> {
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pCommittedMemoryInBytes", memory.commitment()) }
}

pub(crate) fn get_device_memory_opaque_capture_address(
    _device: Arc<Device>,
    info: vk::DeviceMemoryOpaqueCaptureAddressInfo,
) -> Result<u64> {
    Ok(info.memory.opaque_capture_address())
}
