//! The proc-addr tables: every command we implement, by name, with its dispatch level.
//!
//! Each entry is checked at compile time against the `vulkan-headers` PFN type of its name, so a
//! signature that drifts from the official headers does not build. KHR/EXT aliases of promoted
//! commands point at the core function. A name that is absent here resolves to NULL.

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::LazyLock;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::entry::{
    buffer, command, descriptor, device, instance, memory, physical_device, pipeline, query, queue,
    sampler, sync, tensor, unsupported,
};

/// The dispatch level a command belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Callable with no instance (`vkCreateInstance`, enumeration of instance extensions/layers/version).
    Global,
    /// Dispatched on a `VkInstance`.
    Instance,
    /// Dispatched on a `VkPhysicalDevice`.
    PhysicalDevice,
    /// Dispatched on a `VkDevice`, `VkQueue` or `VkCommandBuffer`.
    Device,
}

type Table = HashMap<&'static [u8], (Scope, NonNullPFN_vkVoidFunction)>;

/// One table entry; the `let` checks the function's type against the header's PFN type.
macro_rules! entry {
    ($scope:ident, $name:ident => $f:path) => {
        paste::paste! {{
            let f: [<NonNullPFN_ $name>] = $f;
            (
                stringify!($name).as_bytes(),
                (
                    Scope::$scope,
                    // SAFETY: function pointers all have the same size; callers cast the pointer back
                    // to the command's PFN type before calling it, as the Vulkan ABI requires.
                    unsafe { std::mem::transmute::<[<NonNullPFN_ $name>], NonNullPFN_vkVoidFunction>(f) },
                ),
            )
        }}
    };
}

/// The interface functions the loader may ask `vk_icdGetInstanceProcAddr(NULL, …)` for (interface 7).
fn loader_interface() -> [(&'static [u8], NonNullPFN_vkVoidFunction); 3] {
    type Negotiate = unsafe extern "system" fn(*mut u32) -> VkResult;
    type ProcAddr =
        unsafe extern "system" fn(VkInstance, *const std::ffi::c_char) -> PFN_vkVoidFunction;
    let negotiate: Negotiate = crate::vk_icdNegotiateLoaderICDInterfaceVersion;
    let gipa: ProcAddr = crate::vk_icdGetInstanceProcAddr;
    let gpdpa: ProcAddr = crate::vk_icdGetPhysicalDeviceProcAddr;
    // SAFETY: as in `entry!`: the loader casts each pointer back to its true type.
    unsafe {
        [
            (
                b"vk_icdNegotiateLoaderICDInterfaceVersion",
                std::mem::transmute::<Negotiate, NonNullPFN_vkVoidFunction>(negotiate),
            ),
            (
                b"vk_icdGetInstanceProcAddr",
                std::mem::transmute::<ProcAddr, NonNullPFN_vkVoidFunction>(gipa),
            ),
            (
                b"vk_icdGetPhysicalDeviceProcAddr",
                std::mem::transmute::<ProcAddr, NonNullPFN_vkVoidFunction>(gpdpa),
            ),
        ]
    }
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let entries = [
        entry!(Global, vkCreateInstance => instance::vkCreateInstance),
        entry!(Global, vkEnumerateInstanceExtensionProperties => instance::vkEnumerateInstanceExtensionProperties),
        entry!(Global, vkEnumerateInstanceLayerProperties => instance::vkEnumerateInstanceLayerProperties),
        entry!(Global, vkEnumerateInstanceVersion => instance::vkEnumerateInstanceVersion),
        entry!(Instance, vkDestroyInstance => instance::vkDestroyInstance),
        entry!(Instance, vkEnumeratePhysicalDevices => instance::vkEnumeratePhysicalDevices),
        entry!(Instance, vkEnumeratePhysicalDeviceGroups => instance::vkEnumeratePhysicalDeviceGroups),
        entry!(Instance, vkGetInstanceProcAddr => instance::vkGetInstanceProcAddr),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFeatures => physical_device::vkGetPhysicalDeviceFeatures),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFeatures2 => physical_device::vkGetPhysicalDeviceFeatures2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceProperties => physical_device::vkGetPhysicalDeviceProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceProperties2 => physical_device::vkGetPhysicalDeviceProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFormatProperties => physical_device::vkGetPhysicalDeviceFormatProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFormatProperties2 => physical_device::vkGetPhysicalDeviceFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceImageFormatProperties => physical_device::vkGetPhysicalDeviceImageFormatProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceImageFormatProperties2 => physical_device::vkGetPhysicalDeviceImageFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceSparseImageFormatProperties => physical_device::vkGetPhysicalDeviceSparseImageFormatProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceSparseImageFormatProperties2 => physical_device::vkGetPhysicalDeviceSparseImageFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceQueueFamilyProperties => physical_device::vkGetPhysicalDeviceQueueFamilyProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceQueueFamilyProperties2 => physical_device::vkGetPhysicalDeviceQueueFamilyProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceMemoryProperties => physical_device::vkGetPhysicalDeviceMemoryProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceMemoryProperties2 => physical_device::vkGetPhysicalDeviceMemoryProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceExternalBufferProperties => physical_device::vkGetPhysicalDeviceExternalBufferProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceExternalFenceProperties => physical_device::vkGetPhysicalDeviceExternalFenceProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceExternalSemaphoreProperties => physical_device::vkGetPhysicalDeviceExternalSemaphoreProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceToolProperties => physical_device::vkGetPhysicalDeviceToolProperties),
        entry!(PhysicalDevice, vkEnumerateDeviceExtensionProperties => physical_device::vkEnumerateDeviceExtensionProperties),
        entry!(PhysicalDevice, vkEnumerateDeviceLayerProperties => physical_device::vkEnumerateDeviceLayerProperties),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFeatures2KHR => physical_device::vkGetPhysicalDeviceFeatures2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceProperties2KHR => physical_device::vkGetPhysicalDeviceProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceFormatProperties2KHR => physical_device::vkGetPhysicalDeviceFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceImageFormatProperties2KHR => physical_device::vkGetPhysicalDeviceImageFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceSparseImageFormatProperties2KHR => physical_device::vkGetPhysicalDeviceSparseImageFormatProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceQueueFamilyProperties2KHR => physical_device::vkGetPhysicalDeviceQueueFamilyProperties2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceMemoryProperties2KHR => physical_device::vkGetPhysicalDeviceMemoryProperties2),
        entry!(PhysicalDevice, vkCreateDevice => device::vkCreateDevice),
        entry!(Device, vkDestroyDevice => device::vkDestroyDevice),
        entry!(Device, vkGetDeviceProcAddr => device::vkGetDeviceProcAddr),
        entry!(Device, vkGetDeviceQueue => device::vkGetDeviceQueue),
        entry!(Device, vkGetDeviceQueue2 => device::vkGetDeviceQueue2),
        entry!(Device, vkDeviceWaitIdle => device::vkDeviceWaitIdle),
        entry!(Device, vkGetDeviceGroupPeerMemoryFeatures => device::vkGetDeviceGroupPeerMemoryFeatures),
        entry!(Device, vkCreatePrivateDataSlot => device::vkCreatePrivateDataSlot),
        entry!(Device, vkDestroyPrivateDataSlot => device::vkDestroyPrivateDataSlot),
        entry!(Device, vkSetPrivateData => device::vkSetPrivateData),
        entry!(Device, vkGetPrivateData => device::vkGetPrivateData),
        entry!(Device, vkCreatePrivateDataSlotEXT => device::vkCreatePrivateDataSlot),
        entry!(Device, vkDestroyPrivateDataSlotEXT => device::vkDestroyPrivateDataSlot),
        entry!(Device, vkSetPrivateDataEXT => device::vkSetPrivateData),
        entry!(Device, vkGetPrivateDataEXT => device::vkGetPrivateData),
        entry!(Device, vkAllocateMemory => memory::vkAllocateMemory),
        entry!(Device, vkFreeMemory => memory::vkFreeMemory),
        entry!(Device, vkMapMemory => memory::vkMapMemory),
        entry!(Device, vkUnmapMemory => memory::vkUnmapMemory),
        entry!(Device, vkMapMemory2 => memory::vkMapMemory2),
        entry!(Device, vkUnmapMemory2 => memory::vkUnmapMemory2),
        entry!(Device, vkFlushMappedMemoryRanges => memory::vkFlushMappedMemoryRanges),
        entry!(Device, vkInvalidateMappedMemoryRanges => memory::vkInvalidateMappedMemoryRanges),
        entry!(Device, vkGetDeviceMemoryCommitment => memory::vkGetDeviceMemoryCommitment),
        entry!(Device, vkGetDeviceMemoryOpaqueCaptureAddress => memory::vkGetDeviceMemoryOpaqueCaptureAddress),
        entry!(Device, vkMapMemory2KHR => memory::vkMapMemory2),
        entry!(Device, vkUnmapMemory2KHR => memory::vkUnmapMemory2),
        entry!(Device, vkGetDeviceMemoryOpaqueCaptureAddressKHR => memory::vkGetDeviceMemoryOpaqueCaptureAddress),
        entry!(Device, vkCreateBuffer => buffer::vkCreateBuffer),
        entry!(Device, vkDestroyBuffer => buffer::vkDestroyBuffer),
        entry!(Device, vkGetBufferMemoryRequirements => buffer::vkGetBufferMemoryRequirements),
        entry!(Device, vkGetBufferMemoryRequirements2 => buffer::vkGetBufferMemoryRequirements2),
        entry!(Device, vkGetDeviceBufferMemoryRequirements => buffer::vkGetDeviceBufferMemoryRequirements),
        entry!(Device, vkBindBufferMemory => buffer::vkBindBufferMemory),
        entry!(Device, vkBindBufferMemory2 => buffer::vkBindBufferMemory2),
        entry!(Device, vkGetBufferDeviceAddress => buffer::vkGetBufferDeviceAddress),
        entry!(Device, vkGetBufferOpaqueCaptureAddress => buffer::vkGetBufferOpaqueCaptureAddress),
        entry!(Device, vkGetBufferMemoryRequirements2KHR => buffer::vkGetBufferMemoryRequirements2),
        entry!(Device, vkGetDeviceBufferMemoryRequirementsKHR => buffer::vkGetDeviceBufferMemoryRequirements),
        entry!(Device, vkBindBufferMemory2KHR => buffer::vkBindBufferMemory2),
        entry!(Device, vkGetBufferDeviceAddressKHR => buffer::vkGetBufferDeviceAddress),
        entry!(Device, vkGetBufferOpaqueCaptureAddressKHR => buffer::vkGetBufferOpaqueCaptureAddress),
        entry!(Device, vkCreateCommandPool => command::vkCreateCommandPool),
        entry!(Device, vkDestroyCommandPool => command::vkDestroyCommandPool),
        entry!(Device, vkResetCommandPool => command::vkResetCommandPool),
        entry!(Device, vkTrimCommandPool => command::vkTrimCommandPool),
        entry!(Device, vkAllocateCommandBuffers => command::vkAllocateCommandBuffers),
        entry!(Device, vkFreeCommandBuffers => command::vkFreeCommandBuffers),
        entry!(Device, vkBeginCommandBuffer => command::vkBeginCommandBuffer),
        entry!(Device, vkEndCommandBuffer => command::vkEndCommandBuffer),
        entry!(Device, vkResetCommandBuffer => command::vkResetCommandBuffer),
        entry!(Device, vkCmdCopyBuffer => command::vkCmdCopyBuffer),
        entry!(Device, vkCmdCopyBuffer2 => command::vkCmdCopyBuffer2),
        entry!(Device, vkCmdFillBuffer => command::vkCmdFillBuffer),
        entry!(Device, vkCmdUpdateBuffer => command::vkCmdUpdateBuffer),
        entry!(Device, vkCmdPipelineBarrier => command::vkCmdPipelineBarrier),
        entry!(Device, vkCmdPipelineBarrier2 => command::vkCmdPipelineBarrier2),
        entry!(Device, vkCmdSetEvent => command::vkCmdSetEvent),
        entry!(Device, vkCmdSetEvent2 => command::vkCmdSetEvent2),
        entry!(Device, vkCmdResetEvent => command::vkCmdResetEvent),
        entry!(Device, vkCmdResetEvent2 => command::vkCmdResetEvent2),
        entry!(Device, vkCmdWaitEvents => command::vkCmdWaitEvents),
        entry!(Device, vkCmdWaitEvents2 => command::vkCmdWaitEvents2),
        entry!(Device, vkCmdExecuteCommands => command::vkCmdExecuteCommands),
        entry!(Device, vkCmdResetQueryPool => command::vkCmdResetQueryPool),
        entry!(Device, vkCmdWriteTimestamp => command::vkCmdWriteTimestamp),
        entry!(Device, vkCmdWriteTimestamp2 => command::vkCmdWriteTimestamp2),
        entry!(Device, vkCmdCopyQueryPoolResults => command::vkCmdCopyQueryPoolResults),
        entry!(Device, vkCmdSetDeviceMask => command::vkCmdSetDeviceMask),
        entry!(Device, vkTrimCommandPoolKHR => command::vkTrimCommandPool),
        entry!(Device, vkCmdCopyBuffer2KHR => command::vkCmdCopyBuffer2),
        entry!(Device, vkCmdPipelineBarrier2KHR => command::vkCmdPipelineBarrier2),
        entry!(Device, vkCmdSetEvent2KHR => command::vkCmdSetEvent2),
        entry!(Device, vkCmdResetEvent2KHR => command::vkCmdResetEvent2),
        entry!(Device, vkCmdWaitEvents2KHR => command::vkCmdWaitEvents2),
        entry!(Device, vkCmdWriteTimestamp2KHR => command::vkCmdWriteTimestamp2),
        entry!(PhysicalDevice, vkGetPhysicalDeviceExternalTensorPropertiesARM => tensor::vkGetPhysicalDeviceExternalTensorPropertiesARM),
        entry!(Device, vkCreateTensorARM => tensor::vkCreateTensorARM),
        entry!(Device, vkDestroyTensorARM => tensor::vkDestroyTensorARM),
        entry!(Device, vkCreateTensorViewARM => tensor::vkCreateTensorViewARM),
        entry!(Device, vkDestroyTensorViewARM => tensor::vkDestroyTensorViewARM),
        entry!(Device, vkGetTensorMemoryRequirementsARM => tensor::vkGetTensorMemoryRequirementsARM),
        entry!(Device, vkGetDeviceTensorMemoryRequirementsARM => tensor::vkGetDeviceTensorMemoryRequirementsARM),
        entry!(Device, vkBindTensorMemoryARM => tensor::vkBindTensorMemoryARM),
        entry!(Device, vkCmdCopyTensorARM => tensor::vkCmdCopyTensorARM),
        entry!(Device, vkGetTensorOpaqueCaptureDescriptorDataARM => tensor::vkGetTensorOpaqueCaptureDescriptorDataARM),
        entry!(Device, vkGetTensorViewOpaqueCaptureDescriptorDataARM => tensor::vkGetTensorViewOpaqueCaptureDescriptorDataARM),
        entry!(Device, vkQueueSubmit => queue::vkQueueSubmit),
        entry!(Device, vkQueueSubmit2 => queue::vkQueueSubmit2),
        entry!(Device, vkQueueWaitIdle => queue::vkQueueWaitIdle),
        entry!(Device, vkQueueSubmit2KHR => queue::vkQueueSubmit2),
        entry!(Device, vkCreateFence => sync::vkCreateFence),
        entry!(Device, vkDestroyFence => sync::vkDestroyFence),
        entry!(Device, vkResetFences => sync::vkResetFences),
        entry!(Device, vkGetFenceStatus => sync::vkGetFenceStatus),
        entry!(Device, vkWaitForFences => sync::vkWaitForFences),
        entry!(Device, vkCreateSemaphore => sync::vkCreateSemaphore),
        entry!(Device, vkDestroySemaphore => sync::vkDestroySemaphore),
        entry!(Device, vkGetSemaphoreCounterValue => sync::vkGetSemaphoreCounterValue),
        entry!(Device, vkWaitSemaphores => sync::vkWaitSemaphores),
        entry!(Device, vkSignalSemaphore => sync::vkSignalSemaphore),
        entry!(Device, vkCreateEvent => sync::vkCreateEvent),
        entry!(Device, vkDestroyEvent => sync::vkDestroyEvent),
        entry!(Device, vkGetEventStatus => sync::vkGetEventStatus),
        entry!(Device, vkSetEvent => sync::vkSetEvent),
        entry!(Device, vkResetEvent => sync::vkResetEvent),
        entry!(Device, vkGetSemaphoreCounterValueKHR => sync::vkGetSemaphoreCounterValue),
        entry!(Device, vkWaitSemaphoresKHR => sync::vkWaitSemaphores),
        entry!(Device, vkSignalSemaphoreKHR => sync::vkSignalSemaphore),
        entry!(Device, vkCreateQueryPool => query::vkCreateQueryPool),
        entry!(Device, vkDestroyQueryPool => query::vkDestroyQueryPool),
        entry!(Device, vkGetQueryPoolResults => query::vkGetQueryPoolResults),
        entry!(Device, vkResetQueryPool => query::vkResetQueryPool),
        entry!(Device, vkResetQueryPoolEXT => query::vkResetQueryPool),
        entry!(Device, vkCmdBeginRenderPass => unsupported::vkCmdBeginRenderPass),
        entry!(Device, vkCmdBeginRenderPass2 => unsupported::vkCmdBeginRenderPass2),
        entry!(Device, vkCmdBeginRendering => unsupported::vkCmdBeginRendering),
        entry!(Device, vkCmdBindIndexBuffer => unsupported::vkCmdBindIndexBuffer),
        entry!(Device, vkCmdBindVertexBuffers => unsupported::vkCmdBindVertexBuffers),
        entry!(Device, vkCmdBindVertexBuffers2 => unsupported::vkCmdBindVertexBuffers2),
        entry!(Device, vkCmdClearAttachments => unsupported::vkCmdClearAttachments),
        entry!(Device, vkCmdDraw => unsupported::vkCmdDraw),
        entry!(Device, vkCmdDrawIndexed => unsupported::vkCmdDrawIndexed),
        entry!(Device, vkCmdDrawIndexedIndirect => unsupported::vkCmdDrawIndexedIndirect),
        entry!(Device, vkCmdDrawIndexedIndirectCount => unsupported::vkCmdDrawIndexedIndirectCount),
        entry!(Device, vkCmdDrawIndirect => unsupported::vkCmdDrawIndirect),
        entry!(Device, vkCmdDrawIndirectCount => unsupported::vkCmdDrawIndirectCount),
        entry!(Device, vkCmdEndRenderPass => unsupported::vkCmdEndRenderPass),
        entry!(Device, vkCmdEndRenderPass2 => unsupported::vkCmdEndRenderPass2),
        entry!(Device, vkCmdEndRendering => unsupported::vkCmdEndRendering),
        entry!(Device, vkCmdNextSubpass => unsupported::vkCmdNextSubpass),
        entry!(Device, vkCmdNextSubpass2 => unsupported::vkCmdNextSubpass2),
        entry!(Device, vkCmdSetBlendConstants => unsupported::vkCmdSetBlendConstants),
        entry!(Device, vkCmdSetCullMode => unsupported::vkCmdSetCullMode),
        entry!(Device, vkCmdSetDepthBias => unsupported::vkCmdSetDepthBias),
        entry!(Device, vkCmdSetDepthBiasEnable => unsupported::vkCmdSetDepthBiasEnable),
        entry!(Device, vkCmdSetDepthBounds => unsupported::vkCmdSetDepthBounds),
        entry!(Device, vkCmdSetDepthBoundsTestEnable => unsupported::vkCmdSetDepthBoundsTestEnable),
        entry!(Device, vkCmdSetDepthCompareOp => unsupported::vkCmdSetDepthCompareOp),
        entry!(Device, vkCmdSetDepthTestEnable => unsupported::vkCmdSetDepthTestEnable),
        entry!(Device, vkCmdSetDepthWriteEnable => unsupported::vkCmdSetDepthWriteEnable),
        entry!(Device, vkCmdSetFrontFace => unsupported::vkCmdSetFrontFace),
        entry!(Device, vkCmdSetLineWidth => unsupported::vkCmdSetLineWidth),
        entry!(Device, vkCmdSetPrimitiveRestartEnable => unsupported::vkCmdSetPrimitiveRestartEnable),
        entry!(Device, vkCmdSetPrimitiveTopology => unsupported::vkCmdSetPrimitiveTopology),
        entry!(Device, vkCmdSetRasterizerDiscardEnable => unsupported::vkCmdSetRasterizerDiscardEnable),
        entry!(Device, vkCmdSetScissor => unsupported::vkCmdSetScissor),
        entry!(Device, vkCmdSetScissorWithCount => unsupported::vkCmdSetScissorWithCount),
        entry!(Device, vkCmdSetStencilCompareMask => unsupported::vkCmdSetStencilCompareMask),
        entry!(Device, vkCmdSetStencilOp => unsupported::vkCmdSetStencilOp),
        entry!(Device, vkCmdSetStencilReference => unsupported::vkCmdSetStencilReference),
        entry!(Device, vkCmdSetStencilTestEnable => unsupported::vkCmdSetStencilTestEnable),
        entry!(Device, vkCmdSetStencilWriteMask => unsupported::vkCmdSetStencilWriteMask),
        entry!(Device, vkCmdSetViewport => unsupported::vkCmdSetViewport),
        entry!(Device, vkCmdSetViewportWithCount => unsupported::vkCmdSetViewportWithCount),
        entry!(Device, vkCmdBeginQuery => unsupported::vkCmdBeginQuery),
        entry!(Device, vkCmdEndQuery => unsupported::vkCmdEndQuery),
        entry!(Device, vkCmdBlitImage => unsupported::vkCmdBlitImage),
        entry!(Device, vkCmdBlitImage2 => unsupported::vkCmdBlitImage2),
        entry!(Device, vkCmdClearColorImage => unsupported::vkCmdClearColorImage),
        entry!(Device, vkCmdClearDepthStencilImage => unsupported::vkCmdClearDepthStencilImage),
        entry!(Device, vkCmdCopyBufferToImage => unsupported::vkCmdCopyBufferToImage),
        entry!(Device, vkCmdCopyBufferToImage2 => unsupported::vkCmdCopyBufferToImage2),
        entry!(Device, vkCmdCopyImage => unsupported::vkCmdCopyImage),
        entry!(Device, vkCmdCopyImage2 => unsupported::vkCmdCopyImage2),
        entry!(Device, vkCmdCopyImageToBuffer => unsupported::vkCmdCopyImageToBuffer),
        entry!(Device, vkCmdCopyImageToBuffer2 => unsupported::vkCmdCopyImageToBuffer2),
        entry!(Device, vkCmdResolveImage => unsupported::vkCmdResolveImage),
        entry!(Device, vkCmdResolveImage2 => unsupported::vkCmdResolveImage2),
        entry!(Device, vkCmdBindPipeline => pipeline::vkCmdBindPipeline),
        entry!(Device, vkCmdBindDescriptorSets => pipeline::vkCmdBindDescriptorSets),
        entry!(Device, vkCmdPushConstants => pipeline::vkCmdPushConstants),
        entry!(Device, vkCmdBindDescriptorSets2KHR => pipeline::vkCmdBindDescriptorSets2),
        entry!(Device, vkCmdPushConstants2KHR => pipeline::vkCmdPushConstants2),
        entry!(Device, vkCmdDispatch => pipeline::vkCmdDispatch),
        entry!(Device, vkCmdDispatchBase => pipeline::vkCmdDispatchBase),
        entry!(Device, vkCmdDispatchIndirect => pipeline::vkCmdDispatchIndirect),
        entry!(Device, vkCreateImage => unsupported::vkCreateImage),
        entry!(Device, vkCreateImageView => unsupported::vkCreateImageView),
        entry!(Device, vkBindImageMemory => unsupported::vkBindImageMemory),
        entry!(Device, vkBindImageMemory2 => unsupported::vkBindImageMemory2),
        entry!(Device, vkCreateBufferView => unsupported::vkCreateBufferView),
        entry!(Device, vkCreateRenderPass => unsupported::vkCreateRenderPass),
        entry!(Device, vkCreateRenderPass2 => unsupported::vkCreateRenderPass2),
        entry!(Device, vkCreateGraphicsPipelines => unsupported::vkCreateGraphicsPipelines),
        entry!(Device, vkCreateFramebuffer => unsupported::vkCreateFramebuffer),
        entry!(Device, vkCreateSampler => sampler::vkCreateSampler),
        entry!(Device, vkCreateSamplerYcbcrConversion => unsupported::vkCreateSamplerYcbcrConversion),
        entry!(Device, vkCreateComputePipelines => pipeline::vkCreateComputePipelines),
        entry!(Device, vkCreateDescriptorPool => descriptor::vkCreateDescriptorPool),
        entry!(Device, vkCreateDescriptorSetLayout => descriptor::vkCreateDescriptorSetLayout),
        entry!(Device, vkCreateDescriptorUpdateTemplate => descriptor::vkCreateDescriptorUpdateTemplate),
        entry!(Device, vkCreatePipelineCache => pipeline::vkCreatePipelineCache),
        entry!(Device, vkCreatePipelineLayout => descriptor::vkCreatePipelineLayout),
        entry!(Device, vkCreateShaderModule => pipeline::vkCreateShaderModule),
        entry!(Device, vkAllocateDescriptorSets => descriptor::vkAllocateDescriptorSets),
        entry!(Device, vkFreeDescriptorSets => descriptor::vkFreeDescriptorSets),
        entry!(Device, vkResetDescriptorPool => descriptor::vkResetDescriptorPool),
        entry!(Device, vkGetPipelineCacheData => pipeline::vkGetPipelineCacheData),
        entry!(Device, vkMergePipelineCaches => pipeline::vkMergePipelineCaches),
        entry!(Device, vkQueueBindSparse => unsupported::vkQueueBindSparse),
        entry!(Device, vkDestroyImage => unsupported::vkDestroyImage),
        entry!(Device, vkDestroyImageView => unsupported::vkDestroyImageView),
        entry!(Device, vkDestroyBufferView => unsupported::vkDestroyBufferView),
        entry!(Device, vkDestroyFramebuffer => unsupported::vkDestroyFramebuffer),
        entry!(Device, vkDestroyRenderPass => unsupported::vkDestroyRenderPass),
        entry!(Device, vkDestroySampler => sampler::vkDestroySampler),
        entry!(Device, vkDestroySamplerYcbcrConversion => unsupported::vkDestroySamplerYcbcrConversion),
        entry!(Device, vkDestroyPipeline => pipeline::vkDestroyPipeline),
        entry!(Device, vkDestroyPipelineCache => pipeline::vkDestroyPipelineCache),
        entry!(Device, vkDestroyPipelineLayout => descriptor::vkDestroyPipelineLayout),
        entry!(Device, vkDestroyShaderModule => pipeline::vkDestroyShaderModule),
        entry!(Device, vkDestroyDescriptorPool => descriptor::vkDestroyDescriptorPool),
        entry!(Device, vkDestroyDescriptorSetLayout => descriptor::vkDestroyDescriptorSetLayout),
        entry!(Device, vkDestroyDescriptorUpdateTemplate => descriptor::vkDestroyDescriptorUpdateTemplate),
        entry!(Device, vkGetImageMemoryRequirements => unsupported::vkGetImageMemoryRequirements),
        entry!(Device, vkGetImageMemoryRequirements2 => unsupported::vkGetImageMemoryRequirements2),
        entry!(Device, vkGetImageSparseMemoryRequirements => unsupported::vkGetImageSparseMemoryRequirements),
        entry!(Device, vkGetImageSparseMemoryRequirements2 => unsupported::vkGetImageSparseMemoryRequirements2),
        entry!(Device, vkGetImageSubresourceLayout => unsupported::vkGetImageSubresourceLayout),
        entry!(Device, vkGetDeviceImageMemoryRequirements => unsupported::vkGetDeviceImageMemoryRequirements),
        entry!(Device, vkGetDeviceImageSparseMemoryRequirements => unsupported::vkGetDeviceImageSparseMemoryRequirements),
        entry!(Device, vkGetRenderAreaGranularity => unsupported::vkGetRenderAreaGranularity),
        entry!(Device, vkUpdateDescriptorSets => descriptor::vkUpdateDescriptorSets),
        entry!(Device, vkUpdateDescriptorSetWithTemplate => descriptor::vkUpdateDescriptorSetWithTemplate),
        entry!(Device, vkGetDescriptorSetLayoutSupport => descriptor::vkGetDescriptorSetLayoutSupport),
        entry!(Device, vkCmdCopyImage2KHR => unsupported::vkCmdCopyImage2),
        entry!(Device, vkCmdCopyBufferToImage2KHR => unsupported::vkCmdCopyBufferToImage2),
        entry!(Device, vkCmdCopyImageToBuffer2KHR => unsupported::vkCmdCopyImageToBuffer2),
        entry!(Device, vkCmdBlitImage2KHR => unsupported::vkCmdBlitImage2),
        entry!(Device, vkCmdResolveImage2KHR => unsupported::vkCmdResolveImage2),
        entry!(Device, vkGetImageMemoryRequirements2KHR => unsupported::vkGetImageMemoryRequirements2),
        entry!(Device, vkGetImageSparseMemoryRequirements2KHR => unsupported::vkGetImageSparseMemoryRequirements2),
        entry!(Device, vkBindImageMemory2KHR => unsupported::vkBindImageMemory2),
        entry!(Device, vkGetDescriptorSetLayoutSupportKHR => descriptor::vkGetDescriptorSetLayoutSupport),
        entry!(Device, vkGetDeviceImageMemoryRequirementsKHR => unsupported::vkGetDeviceImageMemoryRequirements),
        entry!(Device, vkGetDeviceImageSparseMemoryRequirementsKHR => unsupported::vkGetDeviceImageSparseMemoryRequirements),
    ];
    entries.into_iter().collect()
});

/// The device extension that provides `name`, when it is an extension command (or the
/// KHR/EXT alias of a promoted one): `vkGetDeviceProcAddr` returns NULL for it unless the device
/// enabled that extension.
pub fn device_extension_of(name: &[u8]) -> Option<&'static CStr> {
    let name = std::str::from_utf8(name).ok()?;
    let by_suffix: &[(&CStr, &[&str])] = &[
        (
            VK_ARM_TENSORS_EXTENSION_NAME,
            &[
                "vkCreateTensorARM",
                "vkDestroyTensorARM",
                "vkCreateTensorViewARM",
                "vkDestroyTensorViewARM",
                "vkGetTensorMemoryRequirementsARM",
                "vkGetDeviceTensorMemoryRequirementsARM",
                "vkBindTensorMemoryARM",
                "vkCmdCopyTensorARM",
                "vkGetTensorOpaqueCaptureDescriptorDataARM",
                "vkGetTensorViewOpaqueCaptureDescriptorDataARM",
            ],
        ),
        (
            VK_EXT_PRIVATE_DATA_EXTENSION_NAME,
            &[
                "vkCreatePrivateDataSlotEXT",
                "vkDestroyPrivateDataSlotEXT",
                "vkSetPrivateDataEXT",
                "vkGetPrivateDataEXT",
            ],
        ),
        (
            VK_KHR_MAP_MEMORY_2_EXTENSION_NAME,
            &["vkMapMemory2KHR", "vkUnmapMemory2KHR"],
        ),
        (
            VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME,
            &[
                "vkGetBufferDeviceAddressKHR",
                "vkGetBufferOpaqueCaptureAddressKHR",
                "vkGetDeviceMemoryOpaqueCaptureAddressKHR",
            ],
        ),
        (
            VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME,
            &[
                "vkGetBufferMemoryRequirements2KHR",
                "vkGetImageMemoryRequirements2KHR",
                "vkGetImageSparseMemoryRequirements2KHR",
            ],
        ),
        (
            VK_KHR_MAINTENANCE_4_EXTENSION_NAME,
            &[
                "vkGetDeviceBufferMemoryRequirementsKHR",
                "vkGetDeviceImageMemoryRequirementsKHR",
                "vkGetDeviceImageSparseMemoryRequirementsKHR",
            ],
        ),
        (
            VK_KHR_BIND_MEMORY_2_EXTENSION_NAME,
            &["vkBindBufferMemory2KHR", "vkBindImageMemory2KHR"],
        ),
        (
            VK_KHR_MAINTENANCE_1_EXTENSION_NAME,
            &["vkTrimCommandPoolKHR"],
        ),
        (
            VK_KHR_MAINTENANCE_6_EXTENSION_NAME,
            &["vkCmdBindDescriptorSets2KHR", "vkCmdPushConstants2KHR"],
        ),
        (
            VK_KHR_MAINTENANCE_3_EXTENSION_NAME,
            &["vkGetDescriptorSetLayoutSupportKHR"],
        ),
        (
            VK_KHR_COPY_COMMANDS_2_EXTENSION_NAME,
            &[
                "vkCmdCopyBuffer2KHR",
                "vkCmdCopyImage2KHR",
                "vkCmdCopyBufferToImage2KHR",
                "vkCmdCopyImageToBuffer2KHR",
                "vkCmdBlitImage2KHR",
                "vkCmdResolveImage2KHR",
            ],
        ),
        (
            VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME,
            &[
                "vkCmdPipelineBarrier2KHR",
                "vkCmdSetEvent2KHR",
                "vkCmdResetEvent2KHR",
                "vkCmdWaitEvents2KHR",
                "vkCmdWriteTimestamp2KHR",
                "vkQueueSubmit2KHR",
            ],
        ),
        (
            VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME,
            &[
                "vkGetSemaphoreCounterValueKHR",
                "vkWaitSemaphoresKHR",
                "vkSignalSemaphoreKHR",
            ],
        ),
        (
            VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME,
            &["vkResetQueryPoolEXT"],
        ),
    ];
    by_suffix
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(ext, _)| *ext)
}

/// Every command name we implement, with its scope (for tests and tools).
pub fn commands() -> impl Iterator<Item = (&'static str, Scope)> {
    TABLE
        .iter()
        .map(|(n, (s, _))| (std::str::from_utf8(n).unwrap_or("?"), *s))
}

/// Resolves `name` as a proc-addr query of the given kind would:
/// - [`Scope::Global`]: `vkGetInstanceProcAddr(NULL, name)`: global commands, `vkGetInstanceProcAddr`
///   and the loader interface functions;
/// - [`Scope::Instance`]: `vkGetInstanceProcAddr(instance, name)`: every command;
/// - [`Scope::PhysicalDevice`]: `vk_icdGetPhysicalDeviceProcAddr`: physical-device commands only;
/// - [`Scope::Device`]: `vkGetDeviceProcAddr`: device commands only.
pub fn lookup(name: &CStr, query: Scope) -> PFN_vkVoidFunction {
    let bytes = name.to_bytes();
    if query == Scope::Global {
        if let Some((_, f)) = loader_interface().into_iter().find(|(n, _)| *n == bytes) {
            return Some(f);
        }
        if bytes == b"vkGetInstanceProcAddr" {
            return TABLE.get(bytes).map(|(_, f)| *f);
        }
    }
    let (scope, f) = TABLE.get(bytes)?;
    let visible = match query {
        Scope::Global => *scope == Scope::Global,
        Scope::Instance => true,
        Scope::PhysicalDevice | Scope::Device => *scope == query,
    };
    visible.then_some(*f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_extension_alias_names_an_advertised_extension() {
        for (name, scope) in commands() {
            let is_alias = name.ends_with("KHR") || name.ends_with("EXT") || name.ends_with("ARM");
            if scope == Scope::Device && is_alias {
                let ext = device_extension_of(name.as_bytes())
                    .unwrap_or_else(|| panic!("{name} has no extension in device_extension_of"));
                assert!(
                    crate::caps::is_listed(crate::caps::DEVICE_EXTENSIONS, ext),
                    "{ext:?} is not advertised"
                );
            }
        }
    }

    #[test]
    fn scopes_are_respected() {
        assert!(lookup(c"vkCreateInstance", Scope::Global).is_some());
        assert!(lookup(c"vk_icdNegotiateLoaderICDInterfaceVersion", Scope::Global).is_some());
        assert!(lookup(c"vkGetInstanceProcAddr", Scope::Global).is_some());
        assert!(lookup(c"vkCreateBuffer", Scope::Global).is_none());
        assert!(lookup(c"vkCreateBuffer", Scope::Instance).is_some());
        assert!(lookup(c"vkCreateBuffer", Scope::Device).is_some());
        assert!(lookup(c"vkCreateBuffer", Scope::PhysicalDevice).is_none());
        assert!(lookup(c"vkGetPhysicalDeviceProperties", Scope::PhysicalDevice).is_some());
        assert!(lookup(c"vkGetPhysicalDeviceProperties", Scope::Device).is_none());
        assert!(lookup(c"vkQueueSubmit2KHR", Scope::Device).is_some());
        assert!(lookup(c"vkDoesNotExist", Scope::Instance).is_none());
    }

    /// Every Vulkan 1.0–1.3 core command resolves.
    #[test]
    fn every_core_command_resolves() {
        let core_1_4_only = [
            "vkCmdBindDescriptorSets2",
            "vkCmdBindIndexBuffer2",
            "vkCmdPushConstants2",
            "vkCmdPushDescriptorSet",
            "vkCmdPushDescriptorSet2",
            "vkCmdPushDescriptorSetWithTemplate",
            "vkCmdPushDescriptorSetWithTemplate2",
            "vkCmdSetLineStipple",
            "vkCmdSetRenderingAttachmentLocations",
            "vkCmdSetRenderingInputAttachmentIndices",
            "vkCopyImageToImage",
            "vkCopyImageToMemory",
            "vkCopyMemoryToImage",
            "vkGetDeviceImageSubresourceLayout",
            "vkGetImageSubresourceLayout2",
            "vkGetRenderingAreaGranularity",
            "vkTransitionImageLayout",
        ];
        let missing: Vec<_> = CORE_COMMANDS
            .split_whitespace()
            .filter(|name| !core_1_4_only.contains(name) && !TABLE.contains_key(name.as_bytes()))
            .collect();
        assert!(
            missing.is_empty(),
            "core commands without an entry point: {missing:?}"
        );
    }

    /// The Vulkan 1.0–1.4 core commands, as the official headers declare them.
    const CORE_COMMANDS: &str = "
vkAllocateCommandBuffers
vkAllocateDescriptorSets
vkAllocateMemory
vkBeginCommandBuffer
vkBindBufferMemory
vkBindBufferMemory2
vkBindImageMemory
vkBindImageMemory2
vkCmdBeginQuery
vkCmdBeginRenderPass
vkCmdBeginRenderPass2
vkCmdBeginRendering
vkCmdBindDescriptorSets
vkCmdBindDescriptorSets2
vkCmdBindIndexBuffer
vkCmdBindIndexBuffer2
vkCmdBindPipeline
vkCmdBindVertexBuffers
vkCmdBindVertexBuffers2
vkCmdBlitImage
vkCmdBlitImage2
vkCmdClearAttachments
vkCmdClearColorImage
vkCmdClearDepthStencilImage
vkCmdCopyBuffer
vkCmdCopyBuffer2
vkCmdCopyBufferToImage
vkCmdCopyBufferToImage2
vkCmdCopyImage
vkCmdCopyImage2
vkCmdCopyImageToBuffer
vkCmdCopyImageToBuffer2
vkCmdCopyQueryPoolResults
vkCmdDispatch
vkCmdDispatchBase
vkCmdDispatchIndirect
vkCmdDraw
vkCmdDrawIndexed
vkCmdDrawIndexedIndirect
vkCmdDrawIndexedIndirectCount
vkCmdDrawIndirect
vkCmdDrawIndirectCount
vkCmdEndQuery
vkCmdEndRenderPass
vkCmdEndRenderPass2
vkCmdEndRendering
vkCmdExecuteCommands
vkCmdFillBuffer
vkCmdNextSubpass
vkCmdNextSubpass2
vkCmdPipelineBarrier
vkCmdPipelineBarrier2
vkCmdPushConstants
vkCmdPushConstants2
vkCmdPushDescriptorSet
vkCmdPushDescriptorSet2
vkCmdPushDescriptorSetWithTemplate
vkCmdPushDescriptorSetWithTemplate2
vkCmdResetEvent
vkCmdResetEvent2
vkCmdResetQueryPool
vkCmdResolveImage
vkCmdResolveImage2
vkCmdSetBlendConstants
vkCmdSetCullMode
vkCmdSetDepthBias
vkCmdSetDepthBiasEnable
vkCmdSetDepthBounds
vkCmdSetDepthBoundsTestEnable
vkCmdSetDepthCompareOp
vkCmdSetDepthTestEnable
vkCmdSetDepthWriteEnable
vkCmdSetDeviceMask
vkCmdSetEvent
vkCmdSetEvent2
vkCmdSetFrontFace
vkCmdSetLineStipple
vkCmdSetLineWidth
vkCmdSetPrimitiveRestartEnable
vkCmdSetPrimitiveTopology
vkCmdSetRasterizerDiscardEnable
vkCmdSetRenderingAttachmentLocations
vkCmdSetRenderingInputAttachmentIndices
vkCmdSetScissor
vkCmdSetScissorWithCount
vkCmdSetStencilCompareMask
vkCmdSetStencilOp
vkCmdSetStencilReference
vkCmdSetStencilTestEnable
vkCmdSetStencilWriteMask
vkCmdSetViewport
vkCmdSetViewportWithCount
vkCmdUpdateBuffer
vkCmdWaitEvents
vkCmdWaitEvents2
vkCmdWriteTimestamp
vkCmdWriteTimestamp2
vkCopyImageToImage
vkCopyImageToMemory
vkCopyMemoryToImage
vkCreateBuffer
vkCreateBufferView
vkCreateCommandPool
vkCreateComputePipelines
vkCreateDescriptorPool
vkCreateDescriptorSetLayout
vkCreateDescriptorUpdateTemplate
vkCreateDevice
vkCreateEvent
vkCreateFence
vkCreateFramebuffer
vkCreateGraphicsPipelines
vkCreateImage
vkCreateImageView
vkCreateInstance
vkCreatePipelineCache
vkCreatePipelineLayout
vkCreatePrivateDataSlot
vkCreateQueryPool
vkCreateRenderPass
vkCreateRenderPass2
vkCreateSampler
vkCreateSamplerYcbcrConversion
vkCreateSemaphore
vkCreateShaderModule
vkDestroyBuffer
vkDestroyBufferView
vkDestroyCommandPool
vkDestroyDescriptorPool
vkDestroyDescriptorSetLayout
vkDestroyDescriptorUpdateTemplate
vkDestroyDevice
vkDestroyEvent
vkDestroyFence
vkDestroyFramebuffer
vkDestroyImage
vkDestroyImageView
vkDestroyInstance
vkDestroyPipeline
vkDestroyPipelineCache
vkDestroyPipelineLayout
vkDestroyPrivateDataSlot
vkDestroyQueryPool
vkDestroyRenderPass
vkDestroySampler
vkDestroySamplerYcbcrConversion
vkDestroySemaphore
vkDestroyShaderModule
vkDeviceWaitIdle
vkEndCommandBuffer
vkEnumerateDeviceExtensionProperties
vkEnumerateDeviceLayerProperties
vkEnumerateInstanceExtensionProperties
vkEnumerateInstanceLayerProperties
vkEnumerateInstanceVersion
vkEnumeratePhysicalDeviceGroups
vkEnumeratePhysicalDevices
vkFlushMappedMemoryRanges
vkFreeCommandBuffers
vkFreeDescriptorSets
vkFreeMemory
vkGetBufferDeviceAddress
vkGetBufferMemoryRequirements
vkGetBufferMemoryRequirements2
vkGetBufferOpaqueCaptureAddress
vkGetDescriptorSetLayoutSupport
vkGetDeviceBufferMemoryRequirements
vkGetDeviceGroupPeerMemoryFeatures
vkGetDeviceImageMemoryRequirements
vkGetDeviceImageSparseMemoryRequirements
vkGetDeviceImageSubresourceLayout
vkGetDeviceMemoryCommitment
vkGetDeviceMemoryOpaqueCaptureAddress
vkGetDeviceProcAddr
vkGetDeviceQueue
vkGetDeviceQueue2
vkGetEventStatus
vkGetFenceStatus
vkGetImageMemoryRequirements
vkGetImageMemoryRequirements2
vkGetImageSparseMemoryRequirements
vkGetImageSparseMemoryRequirements2
vkGetImageSubresourceLayout
vkGetImageSubresourceLayout2
vkGetInstanceProcAddr
vkGetPhysicalDeviceExternalBufferProperties
vkGetPhysicalDeviceExternalFenceProperties
vkGetPhysicalDeviceExternalSemaphoreProperties
vkGetPhysicalDeviceFeatures
vkGetPhysicalDeviceFeatures2
vkGetPhysicalDeviceFormatProperties
vkGetPhysicalDeviceFormatProperties2
vkGetPhysicalDeviceImageFormatProperties
vkGetPhysicalDeviceImageFormatProperties2
vkGetPhysicalDeviceMemoryProperties
vkGetPhysicalDeviceMemoryProperties2
vkGetPhysicalDeviceProperties
vkGetPhysicalDeviceProperties2
vkGetPhysicalDeviceQueueFamilyProperties
vkGetPhysicalDeviceQueueFamilyProperties2
vkGetPhysicalDeviceSparseImageFormatProperties
vkGetPhysicalDeviceSparseImageFormatProperties2
vkGetPhysicalDeviceToolProperties
vkGetPipelineCacheData
vkGetPrivateData
vkGetQueryPoolResults
vkGetRenderAreaGranularity
vkGetRenderingAreaGranularity
vkGetSemaphoreCounterValue
vkInvalidateMappedMemoryRanges
vkMapMemory
vkMapMemory2
vkMergePipelineCaches
vkQueueBindSparse
vkQueueSubmit
vkQueueSubmit2
vkQueueWaitIdle
vkResetCommandBuffer
vkResetCommandPool
vkResetDescriptorPool
vkResetEvent
vkResetFences
vkResetQueryPool
vkSetEvent
vkSetPrivateData
vkSignalSemaphore
vkTransitionImageLayout
vkTrimCommandPool
vkUnmapMemory
vkUnmapMemory2
vkUpdateDescriptorSetWithTemplate
vkUpdateDescriptorSets
vkWaitForFences
vkWaitSemaphores
";
}
