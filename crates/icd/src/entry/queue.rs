//! `vkQueueSubmit`, `vkQueueSubmit2` and `vkQueueWaitIdle`: submissions arrive as owned mirrors
//! and are checked and handed to the queue's worker thread by the runtime.

use std::sync::Arc;

use tessera_runtime::Result;
use tessera_runtime::queue::Queue;
use tessera_runtime::sync::Fence;
use tessera_runtime::vk::structs as vk;
use vulkan_headers::vulkan::vulkan_core::*;

pub(crate) fn queue_submit(
    queue: Arc<Queue>,
    submits: Vec<vk::SubmitInfo>,
    fence: Option<Arc<Fence>>,
) -> Result<VkResult> {
    queue.submit_infos(&submits, fence).map(|()| VK_SUCCESS)
}

pub(crate) fn queue_submit2(
    queue: Arc<Queue>,
    submits: Vec<vk::SubmitInfo2>,
    fence: Option<Arc<Fence>>,
) -> Result<VkResult> {
    queue.submit_infos2(&submits, fence).map(|()| VK_SUCCESS)
}

pub(crate) fn queue_wait_idle(queue: Arc<Queue>) -> Result<VkResult> {
    queue.wait_idle().map(|()| VK_SUCCESS)
}
