//! Vulkan 1.3 core commands that Tessera resolves but does not execute: graphics (the only queue
//! family is compute | transfer), images (no format supports an image, as
//! `vkGetPhysicalDeviceImageFormatProperties` reports) and sparse binding.
//!
//! A `vkCmd*` here makes the command buffer's recording fail (`vkEndCommandBuffer` returns the
//! error); a `VkResult` command returns an error; a `void` command logs one. None reads its pointer
//! arguments, so none can crash. The signatures were generated once from the `vulkan-headers` PFN
//! types and are checked against them at compile time by the dispatch table.

#![allow(non_snake_case)]

use tessera_runtime::Error;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::entry::command::command_buffer;
use crate::handle::RawHandle;

/// Why a command is not executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Needs a graphics queue, render passes or rasterisation state.
    Graphics,
    /// Needs an image; no format supports images on this device.
    Image,
    /// Needs the sampler Y′CbCr conversion feature, which is not supported.
    Ycbcr,
    /// Needs sparse binding, which is not supported.
    Sparse,
}

impl Why {
    fn error(self, command: &'static str) -> Error {
        match self {
            Why::Graphics if command.starts_with("vkCmd") => Error::invalid(
                "VUID-vkCmd*-commandBuffer-cmdpool",
                format!(
                    "{command} needs a graphics queue; Tessera's only queue family is COMPUTE | TRANSFER"
                ),
            ),
            Why::Graphics => Error::NotSupported(format!(
                "{command} needs graphics, and Tessera's only queue family is COMPUTE | TRANSFER"
            )),
            Why::Image => Error::invalid(
                "VUID-VkImageCreateInfo-imageCreateMaxMipLevels-02251",
                format!("{command} needs an image, but no format supports images on this device"),
            ),
            Why::Ycbcr => Error::invalid(
                "VUID-vkCreateSamplerYcbcrConversion-None-01648",
                "the samplerYcbcrConversion feature is not supported",
            ),
            Why::Sparse => Error::invalid(
                "VUID-vkQueueBindSparse-queuetype",
                "the queue family does not support VK_QUEUE_SPARSE_BINDING_BIT",
            ),
        }
    }
}

fn unsupported_cmd(command_buffer_handle: VkCommandBuffer, command: &'static str, why: Why) {
    boundary::void(command, || {
        command_buffer(command_buffer_handle)?.record_error(command, why.error(command));
        Ok(())
    })
}

fn unsupported_result(command: &'static str, why: Why) -> VkResult {
    boundary::result(command, || Err(why.error(command)))
}

fn unsupported_void(command: &'static str, why: Why) {
    boundary::void(command, || Err(why.error(command)))
}

fn unsupported_destroy(command: &'static str, handle: u64, type_name: &'static str) {
    boundary::void(command, || {
        if handle == 0 {
            return Ok(());
        }
        Err(Error::invalid(
            "VUID-*-parameter (handle)",
            format!("{handle:#x} is not a valid {type_name}: Tessera never creates one"),
        ))
    })
}

/// `vkCmdBeginRenderPass`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBeginRenderPass(
    commandBuffer: VkCommandBuffer,
    _pRenderPassBegin: *const VkRenderPassBeginInfo,
    _contents: VkSubpassContents,
) {
    unsupported_cmd(commandBuffer, "vkCmdBeginRenderPass", Why::Graphics);
}

/// `vkCmdBeginRenderPass2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBeginRenderPass2(
    commandBuffer: VkCommandBuffer,
    _pRenderPassBegin: *const VkRenderPassBeginInfo,
    _pSubpassBeginInfo: *const VkSubpassBeginInfo,
) {
    unsupported_cmd(commandBuffer, "vkCmdBeginRenderPass2", Why::Graphics);
}

/// `vkCmdBeginRendering`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBeginRendering(
    commandBuffer: VkCommandBuffer,
    _pRenderingInfo: *const VkRenderingInfo,
) {
    unsupported_cmd(commandBuffer, "vkCmdBeginRendering", Why::Graphics);
}

/// `vkCmdBindIndexBuffer`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBindIndexBuffer(
    commandBuffer: VkCommandBuffer,
    _buffer: VkBuffer,
    _offset: VkDeviceSize,
    _indexType: VkIndexType,
) {
    unsupported_cmd(commandBuffer, "vkCmdBindIndexBuffer", Why::Graphics);
}

/// `vkCmdBindVertexBuffers`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBindVertexBuffers(
    commandBuffer: VkCommandBuffer,
    _firstBinding: u32,
    _bindingCount: u32,
    _pBuffers: *const VkBuffer,
    _pOffsets: *const VkDeviceSize,
) {
    unsupported_cmd(commandBuffer, "vkCmdBindVertexBuffers", Why::Graphics);
}

/// `vkCmdBindVertexBuffers2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBindVertexBuffers2(
    commandBuffer: VkCommandBuffer,
    _firstBinding: u32,
    _bindingCount: u32,
    _pBuffers: *const VkBuffer,
    _pOffsets: *const VkDeviceSize,
    _pSizes: *const VkDeviceSize,
    _pStrides: *const VkDeviceSize,
) {
    unsupported_cmd(commandBuffer, "vkCmdBindVertexBuffers2", Why::Graphics);
}

/// `vkCmdClearAttachments`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdClearAttachments(
    commandBuffer: VkCommandBuffer,
    _attachmentCount: u32,
    _pAttachments: *const VkClearAttachment,
    _rectCount: u32,
    _pRects: *const VkClearRect,
) {
    unsupported_cmd(commandBuffer, "vkCmdClearAttachments", Why::Graphics);
}

/// `vkCmdDraw`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDraw(
    commandBuffer: VkCommandBuffer,
    _vertexCount: u32,
    _instanceCount: u32,
    _firstVertex: u32,
    _firstInstance: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdDraw", Why::Graphics);
}

/// `vkCmdDrawIndexed`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDrawIndexed(
    commandBuffer: VkCommandBuffer,
    _indexCount: u32,
    _instanceCount: u32,
    _firstIndex: u32,
    _vertexOffset: i32,
    _firstInstance: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdDrawIndexed", Why::Graphics);
}

/// `vkCmdDrawIndexedIndirect`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDrawIndexedIndirect(
    commandBuffer: VkCommandBuffer,
    _buffer: VkBuffer,
    _offset: VkDeviceSize,
    _drawCount: u32,
    _stride: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdDrawIndexedIndirect", Why::Graphics);
}

/// `vkCmdDrawIndexedIndirectCount`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDrawIndexedIndirectCount(
    commandBuffer: VkCommandBuffer,
    _buffer: VkBuffer,
    _offset: VkDeviceSize,
    _countBuffer: VkBuffer,
    _countBufferOffset: VkDeviceSize,
    _maxDrawCount: u32,
    _stride: u32,
) {
    unsupported_cmd(
        commandBuffer,
        "vkCmdDrawIndexedIndirectCount",
        Why::Graphics,
    );
}

/// `vkCmdDrawIndirect`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDrawIndirect(
    commandBuffer: VkCommandBuffer,
    _buffer: VkBuffer,
    _offset: VkDeviceSize,
    _drawCount: u32,
    _stride: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdDrawIndirect", Why::Graphics);
}

/// `vkCmdDrawIndirectCount`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdDrawIndirectCount(
    commandBuffer: VkCommandBuffer,
    _buffer: VkBuffer,
    _offset: VkDeviceSize,
    _countBuffer: VkBuffer,
    _countBufferOffset: VkDeviceSize,
    _maxDrawCount: u32,
    _stride: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdDrawIndirectCount", Why::Graphics);
}

/// `vkCmdEndRenderPass`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdEndRenderPass(commandBuffer: VkCommandBuffer) {
    unsupported_cmd(commandBuffer, "vkCmdEndRenderPass", Why::Graphics);
}

/// `vkCmdEndRenderPass2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdEndRenderPass2(
    commandBuffer: VkCommandBuffer,
    _pSubpassEndInfo: *const VkSubpassEndInfo,
) {
    unsupported_cmd(commandBuffer, "vkCmdEndRenderPass2", Why::Graphics);
}

/// `vkCmdEndRendering`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdEndRendering(commandBuffer: VkCommandBuffer) {
    unsupported_cmd(commandBuffer, "vkCmdEndRendering", Why::Graphics);
}

/// `vkCmdNextSubpass`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdNextSubpass(
    commandBuffer: VkCommandBuffer,
    _contents: VkSubpassContents,
) {
    unsupported_cmd(commandBuffer, "vkCmdNextSubpass", Why::Graphics);
}

/// `vkCmdNextSubpass2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdNextSubpass2(
    commandBuffer: VkCommandBuffer,
    _pSubpassBeginInfo: *const VkSubpassBeginInfo,
    _pSubpassEndInfo: *const VkSubpassEndInfo,
) {
    unsupported_cmd(commandBuffer, "vkCmdNextSubpass2", Why::Graphics);
}

/// `vkCmdSetBlendConstants`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetBlendConstants(
    commandBuffer: VkCommandBuffer,
    _blendConstants: *const f32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetBlendConstants", Why::Graphics);
}

/// `vkCmdSetCullMode`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetCullMode(
    commandBuffer: VkCommandBuffer,
    _cullMode: VkCullModeFlags,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetCullMode", Why::Graphics);
}

/// `vkCmdSetDepthBias`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthBias(
    commandBuffer: VkCommandBuffer,
    _depthBiasConstantFactor: f32,
    _depthBiasClamp: f32,
    _depthBiasSlopeFactor: f32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthBias", Why::Graphics);
}

/// `vkCmdSetDepthBiasEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthBiasEnable(
    commandBuffer: VkCommandBuffer,
    _depthBiasEnable: VkBool32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthBiasEnable", Why::Graphics);
}

/// `vkCmdSetDepthBounds`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthBounds(
    commandBuffer: VkCommandBuffer,
    _minDepthBounds: f32,
    _maxDepthBounds: f32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthBounds", Why::Graphics);
}

/// `vkCmdSetDepthBoundsTestEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthBoundsTestEnable(
    commandBuffer: VkCommandBuffer,
    _depthBoundsTestEnable: VkBool32,
) {
    unsupported_cmd(
        commandBuffer,
        "vkCmdSetDepthBoundsTestEnable",
        Why::Graphics,
    );
}

/// `vkCmdSetDepthCompareOp`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthCompareOp(
    commandBuffer: VkCommandBuffer,
    _depthCompareOp: VkCompareOp,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthCompareOp", Why::Graphics);
}

/// `vkCmdSetDepthTestEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthTestEnable(
    commandBuffer: VkCommandBuffer,
    _depthTestEnable: VkBool32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthTestEnable", Why::Graphics);
}

/// `vkCmdSetDepthWriteEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetDepthWriteEnable(
    commandBuffer: VkCommandBuffer,
    _depthWriteEnable: VkBool32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetDepthWriteEnable", Why::Graphics);
}

/// `vkCmdSetFrontFace`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetFrontFace(
    commandBuffer: VkCommandBuffer,
    _frontFace: VkFrontFace,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetFrontFace", Why::Graphics);
}

/// `vkCmdSetLineWidth`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetLineWidth(commandBuffer: VkCommandBuffer, _lineWidth: f32) {
    unsupported_cmd(commandBuffer, "vkCmdSetLineWidth", Why::Graphics);
}

/// `vkCmdSetPrimitiveRestartEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetPrimitiveRestartEnable(
    commandBuffer: VkCommandBuffer,
    _primitiveRestartEnable: VkBool32,
) {
    unsupported_cmd(
        commandBuffer,
        "vkCmdSetPrimitiveRestartEnable",
        Why::Graphics,
    );
}

/// `vkCmdSetPrimitiveTopology`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetPrimitiveTopology(
    commandBuffer: VkCommandBuffer,
    _primitiveTopology: VkPrimitiveTopology,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetPrimitiveTopology", Why::Graphics);
}

/// `vkCmdSetRasterizerDiscardEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetRasterizerDiscardEnable(
    commandBuffer: VkCommandBuffer,
    _rasterizerDiscardEnable: VkBool32,
) {
    unsupported_cmd(
        commandBuffer,
        "vkCmdSetRasterizerDiscardEnable",
        Why::Graphics,
    );
}

/// `vkCmdSetScissor`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetScissor(
    commandBuffer: VkCommandBuffer,
    _firstScissor: u32,
    _scissorCount: u32,
    _pScissors: *const VkRect2D,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetScissor", Why::Graphics);
}

/// `vkCmdSetScissorWithCount`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetScissorWithCount(
    commandBuffer: VkCommandBuffer,
    _scissorCount: u32,
    _pScissors: *const VkRect2D,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetScissorWithCount", Why::Graphics);
}

/// `vkCmdSetStencilCompareMask`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetStencilCompareMask(
    commandBuffer: VkCommandBuffer,
    _faceMask: VkStencilFaceFlags,
    _compareMask: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetStencilCompareMask", Why::Graphics);
}

/// `vkCmdSetStencilOp`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetStencilOp(
    commandBuffer: VkCommandBuffer,
    _faceMask: VkStencilFaceFlags,
    _failOp: VkStencilOp,
    _passOp: VkStencilOp,
    _depthFailOp: VkStencilOp,
    _compareOp: VkCompareOp,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetStencilOp", Why::Graphics);
}

/// `vkCmdSetStencilReference`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetStencilReference(
    commandBuffer: VkCommandBuffer,
    _faceMask: VkStencilFaceFlags,
    _reference: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetStencilReference", Why::Graphics);
}

/// `vkCmdSetStencilTestEnable`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetStencilTestEnable(
    commandBuffer: VkCommandBuffer,
    _stencilTestEnable: VkBool32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetStencilTestEnable", Why::Graphics);
}

/// `vkCmdSetStencilWriteMask`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetStencilWriteMask(
    commandBuffer: VkCommandBuffer,
    _faceMask: VkStencilFaceFlags,
    _writeMask: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetStencilWriteMask", Why::Graphics);
}

/// `vkCmdSetViewport`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetViewport(
    commandBuffer: VkCommandBuffer,
    _firstViewport: u32,
    _viewportCount: u32,
    _pViewports: *const VkViewport,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetViewport", Why::Graphics);
}

/// `vkCmdSetViewportWithCount`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdSetViewportWithCount(
    commandBuffer: VkCommandBuffer,
    _viewportCount: u32,
    _pViewports: *const VkViewport,
) {
    unsupported_cmd(commandBuffer, "vkCmdSetViewportWithCount", Why::Graphics);
}

/// `vkCmdBeginQuery`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBeginQuery(
    commandBuffer: VkCommandBuffer,
    _queryPool: VkQueryPool,
    _query: u32,
    _flags: VkQueryControlFlags,
) {
    unsupported_cmd(commandBuffer, "vkCmdBeginQuery", Why::Graphics);
}

/// `vkCmdEndQuery`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdEndQuery(
    commandBuffer: VkCommandBuffer,
    _queryPool: VkQueryPool,
    _query: u32,
) {
    unsupported_cmd(commandBuffer, "vkCmdEndQuery", Why::Graphics);
}

/// `vkCmdBlitImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBlitImage(
    commandBuffer: VkCommandBuffer,
    _srcImage: VkImage,
    _srcImageLayout: VkImageLayout,
    _dstImage: VkImage,
    _dstImageLayout: VkImageLayout,
    _regionCount: u32,
    _pRegions: *const VkImageBlit,
    _filter: VkFilter,
) {
    unsupported_cmd(commandBuffer, "vkCmdBlitImage", Why::Image);
}

/// `vkCmdBlitImage2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdBlitImage2(
    commandBuffer: VkCommandBuffer,
    _pBlitImageInfo: *const VkBlitImageInfo2,
) {
    unsupported_cmd(commandBuffer, "vkCmdBlitImage2", Why::Image);
}

/// `vkCmdClearColorImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdClearColorImage(
    commandBuffer: VkCommandBuffer,
    _image: VkImage,
    _imageLayout: VkImageLayout,
    _pColor: *const VkClearColorValue,
    _rangeCount: u32,
    _pRanges: *const VkImageSubresourceRange,
) {
    unsupported_cmd(commandBuffer, "vkCmdClearColorImage", Why::Image);
}

/// `vkCmdClearDepthStencilImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdClearDepthStencilImage(
    commandBuffer: VkCommandBuffer,
    _image: VkImage,
    _imageLayout: VkImageLayout,
    _pDepthStencil: *const VkClearDepthStencilValue,
    _rangeCount: u32,
    _pRanges: *const VkImageSubresourceRange,
) {
    unsupported_cmd(commandBuffer, "vkCmdClearDepthStencilImage", Why::Image);
}

/// `vkCmdCopyBufferToImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyBufferToImage(
    commandBuffer: VkCommandBuffer,
    _srcBuffer: VkBuffer,
    _dstImage: VkImage,
    _dstImageLayout: VkImageLayout,
    _regionCount: u32,
    _pRegions: *const VkBufferImageCopy,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyBufferToImage", Why::Image);
}

/// `vkCmdCopyBufferToImage2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyBufferToImage2(
    commandBuffer: VkCommandBuffer,
    _pCopyBufferToImageInfo: *const VkCopyBufferToImageInfo2,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyBufferToImage2", Why::Image);
}

/// `vkCmdCopyImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyImage(
    commandBuffer: VkCommandBuffer,
    _srcImage: VkImage,
    _srcImageLayout: VkImageLayout,
    _dstImage: VkImage,
    _dstImageLayout: VkImageLayout,
    _regionCount: u32,
    _pRegions: *const VkImageCopy,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyImage", Why::Image);
}

/// `vkCmdCopyImage2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyImage2(
    commandBuffer: VkCommandBuffer,
    _pCopyImageInfo: *const VkCopyImageInfo2,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyImage2", Why::Image);
}

/// `vkCmdCopyImageToBuffer`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyImageToBuffer(
    commandBuffer: VkCommandBuffer,
    _srcImage: VkImage,
    _srcImageLayout: VkImageLayout,
    _dstBuffer: VkBuffer,
    _regionCount: u32,
    _pRegions: *const VkBufferImageCopy,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyImageToBuffer", Why::Image);
}

/// `vkCmdCopyImageToBuffer2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdCopyImageToBuffer2(
    commandBuffer: VkCommandBuffer,
    _pCopyImageToBufferInfo: *const VkCopyImageToBufferInfo2,
) {
    unsupported_cmd(commandBuffer, "vkCmdCopyImageToBuffer2", Why::Image);
}

/// `vkCmdResolveImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdResolveImage(
    commandBuffer: VkCommandBuffer,
    _srcImage: VkImage,
    _srcImageLayout: VkImageLayout,
    _dstImage: VkImage,
    _dstImageLayout: VkImageLayout,
    _regionCount: u32,
    _pRegions: *const VkImageResolve,
) {
    unsupported_cmd(commandBuffer, "vkCmdResolveImage", Why::Image);
}

/// `vkCmdResolveImage2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCmdResolveImage2(
    commandBuffer: VkCommandBuffer,
    _pResolveImageInfo: *const VkResolveImageInfo2,
) {
    unsupported_cmd(commandBuffer, "vkCmdResolveImage2", Why::Image);
}

/// `vkCreateImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateImage(
    _device: VkDevice,
    _pCreateInfo: *const VkImageCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pImage: *mut VkImage,
) -> VkResult {
    unsupported_result("vkCreateImage", Why::Image)
}

/// `vkCreateImageView`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateImageView(
    _device: VkDevice,
    _pCreateInfo: *const VkImageViewCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pView: *mut VkImageView,
) -> VkResult {
    unsupported_result("vkCreateImageView", Why::Image)
}

/// `vkBindImageMemory`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkBindImageMemory(
    _device: VkDevice,
    _image: VkImage,
    _memory: VkDeviceMemory,
    _memoryOffset: VkDeviceSize,
) -> VkResult {
    unsupported_result("vkBindImageMemory", Why::Image)
}

/// `vkBindImageMemory2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkBindImageMemory2(
    _device: VkDevice,
    _bindInfoCount: u32,
    _pBindInfos: *const VkBindImageMemoryInfo,
) -> VkResult {
    unsupported_result("vkBindImageMemory2", Why::Image)
}

/// `vkCreateBufferView`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateBufferView(
    _device: VkDevice,
    _pCreateInfo: *const VkBufferViewCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pView: *mut VkBufferView,
) -> VkResult {
    unsupported_result("vkCreateBufferView", Why::Image)
}

/// `vkCreateRenderPass`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateRenderPass(
    _device: VkDevice,
    _pCreateInfo: *const VkRenderPassCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pRenderPass: *mut VkRenderPass,
) -> VkResult {
    unsupported_result("vkCreateRenderPass", Why::Graphics)
}

/// `vkCreateRenderPass2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateRenderPass2(
    _device: VkDevice,
    _pCreateInfo: *const VkRenderPassCreateInfo2,
    _pAllocator: *const VkAllocationCallbacks,
    _pRenderPass: *mut VkRenderPass,
) -> VkResult {
    unsupported_result("vkCreateRenderPass2", Why::Graphics)
}

/// `vkCreateGraphicsPipelines`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateGraphicsPipelines(
    _device: VkDevice,
    _pipelineCache: VkPipelineCache,
    _createInfoCount: u32,
    _pCreateInfos: *const VkGraphicsPipelineCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pPipelines: *mut VkPipeline,
) -> VkResult {
    unsupported_result("vkCreateGraphicsPipelines", Why::Graphics)
}

/// `vkCreateFramebuffer`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateFramebuffer(
    _device: VkDevice,
    _pCreateInfo: *const VkFramebufferCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pFramebuffer: *mut VkFramebuffer,
) -> VkResult {
    unsupported_result("vkCreateFramebuffer", Why::Graphics)
}

/// `vkCreateSamplerYcbcrConversion`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkCreateSamplerYcbcrConversion(
    _device: VkDevice,
    _pCreateInfo: *const VkSamplerYcbcrConversionCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    _pYcbcrConversion: *mut VkSamplerYcbcrConversion,
) -> VkResult {
    unsupported_result("vkCreateSamplerYcbcrConversion", Why::Ycbcr)
}

/// `vkQueueBindSparse`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkQueueBindSparse(
    _queue: VkQueue,
    _bindInfoCount: u32,
    _pBindInfo: *const VkBindSparseInfo,
    _fence: VkFence,
) -> VkResult {
    unsupported_result("vkQueueBindSparse", Why::Sparse)
}

/// `vkDestroyImage`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroyImage(
    _device: VkDevice,
    image: VkImage,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy("vkDestroyImage", image.raw(), "VkImage");
}

/// `vkDestroyImageView`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroyImageView(
    _device: VkDevice,
    imageView: VkImageView,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy("vkDestroyImageView", imageView.raw(), "VkImageView");
}

/// `vkDestroyBufferView`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroyBufferView(
    _device: VkDevice,
    bufferView: VkBufferView,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy("vkDestroyBufferView", bufferView.raw(), "VkBufferView");
}

/// `vkDestroyFramebuffer`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroyFramebuffer(
    _device: VkDevice,
    framebuffer: VkFramebuffer,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy("vkDestroyFramebuffer", framebuffer.raw(), "VkFramebuffer");
}

/// `vkDestroyRenderPass`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroyRenderPass(
    _device: VkDevice,
    renderPass: VkRenderPass,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy("vkDestroyRenderPass", renderPass.raw(), "VkRenderPass");
}

/// `vkDestroySamplerYcbcrConversion`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkDestroySamplerYcbcrConversion(
    _device: VkDevice,
    ycbcrConversion: VkSamplerYcbcrConversion,
    _pAllocator: *const VkAllocationCallbacks,
) {
    unsupported_destroy(
        "vkDestroySamplerYcbcrConversion",
        ycbcrConversion.raw(),
        "VkSamplerYcbcrConversion",
    );
}

/// `vkGetImageMemoryRequirements`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetImageMemoryRequirements(
    _device: VkDevice,
    _image: VkImage,
    _pMemoryRequirements: *mut VkMemoryRequirements,
) {
    unsupported_void("vkGetImageMemoryRequirements", Why::Image);
}

/// `vkGetImageMemoryRequirements2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetImageMemoryRequirements2(
    _device: VkDevice,
    _pInfo: *const VkImageMemoryRequirementsInfo2,
    _pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    unsupported_void("vkGetImageMemoryRequirements2", Why::Image);
}

/// `vkGetImageSparseMemoryRequirements`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetImageSparseMemoryRequirements(
    _device: VkDevice,
    _image: VkImage,
    _pSparseMemoryRequirementCount: *mut u32,
    _pSparseMemoryRequirements: *mut VkSparseImageMemoryRequirements,
) {
    unsupported_void("vkGetImageSparseMemoryRequirements", Why::Image);
}

/// `vkGetImageSparseMemoryRequirements2`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetImageSparseMemoryRequirements2(
    _device: VkDevice,
    _pInfo: *const VkImageSparseMemoryRequirementsInfo2,
    _pSparseMemoryRequirementCount: *mut u32,
    _pSparseMemoryRequirements: *mut VkSparseImageMemoryRequirements2,
) {
    unsupported_void("vkGetImageSparseMemoryRequirements2", Why::Image);
}

/// `vkGetImageSubresourceLayout`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetImageSubresourceLayout(
    _device: VkDevice,
    _image: VkImage,
    _pSubresource: *const VkImageSubresource,
    _pLayout: *mut VkSubresourceLayout,
) {
    unsupported_void("vkGetImageSubresourceLayout", Why::Image);
}

/// `vkGetDeviceImageMemoryRequirements`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetDeviceImageMemoryRequirements(
    _device: VkDevice,
    _pInfo: *const VkDeviceImageMemoryRequirements,
    _pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    unsupported_void("vkGetDeviceImageMemoryRequirements", Why::Image);
}

/// `vkGetDeviceImageSparseMemoryRequirements`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetDeviceImageSparseMemoryRequirements(
    _device: VkDevice,
    _pInfo: *const VkDeviceImageMemoryRequirements,
    _pSparseMemoryRequirementCount: *mut u32,
    _pSparseMemoryRequirements: *mut VkSparseImageMemoryRequirements2,
) {
    unsupported_void("vkGetDeviceImageSparseMemoryRequirements", Why::Image);
}

/// `vkGetRenderAreaGranularity`: not executed by Tessera (see [`Why`]).
///
/// # Safety
/// Callable with any arguments; pointers are not read.
pub unsafe extern "system" fn vkGetRenderAreaGranularity(
    _device: VkDevice,
    _renderPass: VkRenderPass,
    _pGranularity: *mut VkExtent2D,
) {
    unsupported_void("vkGetRenderAreaGranularity", Why::Graphics);
}
