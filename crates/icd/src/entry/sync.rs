//! Fences, semaphores (binary and timeline) and events, with the host-side waits and signals (the
//! rules are the runtime's, [`tessera_runtime::sync`]).

use std::sync::Arc;

use tessera_runtime::Result;
use tessera_runtime::device::Device;
use tessera_runtime::sync::{Event, Fence, Semaphore};
use tessera_runtime::vk::structs as vk;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{write, write_handle};
use crate::handle;

pub(crate) unsafe fn create_fence(
    device: Arc<Device>,
    info: vk::FenceCreateInfo,
    out: *mut VkFence,
) -> Result<VkResult> {
    let fence = Arc::new(device.create_fence(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pFence", handle::insert(fence))? };
    Ok(VK_SUCCESS)
}

pub(crate) fn reset_fences(_device: Arc<Device>, fences: Vec<Arc<Fence>>) -> Result<VkResult> {
    fences.iter().for_each(|f| f.reset());
    Ok(VK_SUCCESS)
}

pub(crate) fn get_fence_status(device: Arc<Device>, fence: Arc<Fence>) -> Result<VkResult> {
    device.fence_status(&fence)
}

pub(crate) fn wait_for_fences(
    device: Arc<Device>,
    fences: Vec<Arc<Fence>>,
    wait_all: bool,
    timeout: u64,
) -> Result<VkResult> {
    device.wait_for_fences(&fences, wait_all, timeout)
}

pub(crate) unsafe fn create_semaphore(
    device: Arc<Device>,
    info: vk::SemaphoreCreateInfo,
    out: *mut VkSemaphore,
) -> Result<VkResult> {
    let semaphore = Arc::new(device.create_semaphore(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pSemaphore", handle::insert(semaphore))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_semaphore_counter_value(
    _device: Arc<Device>,
    semaphore: Arc<Semaphore>,
    out: *mut u64,
) -> Result<VkResult> {
    let value = semaphore.counter_value()?;
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pValue", value)? };
    Ok(VK_SUCCESS)
}

pub(crate) fn wait_semaphores(
    device: Arc<Device>,
    info: vk::SemaphoreWaitInfo,
    timeout: u64,
) -> Result<VkResult> {
    device.wait_semaphores(&info, timeout)
}

pub(crate) fn signal_semaphore(
    _device: Arc<Device>,
    info: vk::SemaphoreSignalInfo,
) -> Result<VkResult> {
    info.semaphore.host_signal(info.value).map(|()| VK_SUCCESS)
}

pub(crate) unsafe fn create_event(
    device: Arc<Device>,
    info: vk::EventCreateInfo,
    out: *mut VkEvent,
) -> Result<VkResult> {
    let event = Arc::new(device.create_event(&info));
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pEvent", handle::insert(event))? };
    Ok(VK_SUCCESS)
}

pub(crate) fn get_event_status(_device: Arc<Device>, event: Arc<Event>) -> Result<VkResult> {
    Ok(if event.host_status()? {
        VK_EVENT_SET
    } else {
        VK_EVENT_RESET
    })
}

pub(crate) fn set_event(_device: Arc<Device>, event: Arc<Event>) -> Result<VkResult> {
    event.host_store(true).map(|()| VK_SUCCESS)
}

pub(crate) fn reset_event(_device: Arc<Device>, event: Arc<Event>) -> Result<VkResult> {
    event.host_store(false).map(|()| VK_SUCCESS)
}
