//! `VkDevice`: creation, queues, `vkGetDeviceProcAddr`, wait-idle and private data.

use std::ffi::CStr;
use std::sync::Arc;

use tessera_runtime::device::Device;
use tessera_runtime::physical_device::PhysicalDevice;
use tessera_runtime::private_data::PrivateDataSlot;
use tessera_runtime::queue::Queue;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{write, write_handle};
use crate::dispatch::{self, Requirement, Scope};
use crate::handle;

pub(crate) unsafe fn create_device(
    pd: Arc<PhysicalDevice>,
    info: vk::DeviceCreateInfo,
    out: *mut VkDevice,
) -> Result<VkResult> {
    let device = Device::create(&pd, &info)?;
    for queue in device.queues() {
        handle::insert_dispatchable(queue.clone());
    }
    let queues = device.queues().to_vec();
    // SAFETY: a valid out pointer per the spec.
    let written = unsafe { write_handle(out, "pDevice", handle::insert_dispatchable(device)) };
    if written.is_err() {
        queues.iter().for_each(handle::forget);
    }
    written.map(|()| VK_SUCCESS)
}

pub(crate) fn destroy_device(device: Option<Arc<Device>>) -> Result<()> {
    if let Some(device) = device {
        device.queues().iter().for_each(handle::forget);
        device.destroy();
    }
    Ok(())
}

/// `vkGetDeviceProcAddr`: device-level commands only (NULL for instance-level names and for the
/// commands of extensions the device did not enable).
pub(crate) fn get_device_proc_addr(device: Arc<Device>, name: &CStr) -> Result<PFN_vkVoidFunction> {
    if let Some(entry) = dispatch::find(name.to_bytes())
        && let Requirement::Extension(ext) = entry.requirement
        && !device.is_extension_enabled(ext)
    {
        return Ok(None);
    }
    Ok(dispatch::lookup(name, Scope::Device))
}

unsafe fn write_queue(queue: Arc<Queue>, out: *mut VkQueue) -> Result<()> {
    let h = handle::handle_of(&queue).ok_or_else(|| {
        Error::invalid(
            "VUID-vkGetDeviceQueue-device-parameter",
            "the device's queues are gone",
        )
    })?;
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pQueue", h) }
}

pub(crate) unsafe fn get_device_queue(
    device: Arc<Device>,
    family: u32,
    index: u32,
    out: *mut VkQueue,
) -> Result<()> {
    // SAFETY: forwarded.
    unsafe { write_queue(device.queue(family, index, 0)?, out) }
}

pub(crate) unsafe fn get_device_queue2(
    device: Arc<Device>,
    info: vk::DeviceQueueInfo2,
    out: *mut VkQueue,
) -> Result<()> {
    let queue = device.queue(info.queue_family_index, info.queue_index, info.flags)?;
    // SAFETY: forwarded.
    unsafe { write_queue(queue, out) }
}

pub(crate) fn device_wait_idle(device: Arc<Device>) -> Result<VkResult> {
    device.wait_idle().map(|()| VK_SUCCESS)
}

pub(crate) unsafe fn get_device_group_peer_memory_features(
    device: Arc<Device>,
    heap: u32,
    local: u32,
    remote: u32,
    out: *mut VkPeerMemoryFeatureFlags,
) -> Result<()> {
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pPeerMemoryFeatures", 0)? };
    device.peer_memory_features(heap, local, remote)
}

pub(crate) unsafe fn create_private_data_slot(
    device: Arc<Device>,
    _info: vk::PrivateDataSlotCreateInfo,
    out: *mut VkPrivateDataSlot,
) -> Result<VkResult> {
    let slot = Arc::new(device.create_private_data_slot()?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pPrivateDataSlot", handle::insert(slot))? };
    Ok(VK_SUCCESS)
}

pub(crate) fn set_private_data(
    _device: Arc<Device>,
    object_type: VkObjectType,
    object: u64,
    slot: Arc<PrivateDataSlot>,
    data: u64,
) -> Result<VkResult> {
    slot.set(
        object_type,
        object,
        data,
        handle::is_live(object, object_type),
    )?;
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_private_data(
    _device: Arc<Device>,
    object_type: VkObjectType,
    object: u64,
    slot: Arc<PrivateDataSlot>,
    out: *mut u64,
) -> Result<()> {
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pData", slot.get(object_type, object)) }
}
