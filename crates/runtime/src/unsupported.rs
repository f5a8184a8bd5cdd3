//! Why Tessera cannot run a command it resolves (the rule each reason breaks): graphics (the
//! only queue family is compute | transfer), images (no format supports an image, as
//! `vkGetPhysicalDeviceImageFormatProperties` reports), texel buffers (no format has a texel
//! buffer feature), sparse binding, and commands of the part
//! of an extension that needs another Tessera does not implement. The ICD's generated entry
//! points of those commands report it.

use crate::Error;

/// Why a command is not executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Needs a graphics queue, render passes or rasterisation state.
    Graphics,
    /// Needs an image; no format supports images on this device.
    Image,
    /// Needs a texel buffer view; no format supports texel buffers on this device.
    TexelBuffer,
    /// Needs the sampler Y′CbCr conversion feature, which is not supported.
    Ycbcr,
    /// Needs sparse binding, which is not supported.
    Sparse,
    /// Belongs to the part of an extension that needs this other extension, which Tessera does
    /// not implement.
    Requires(&'static str),
}

impl Why {
    /// The error `command` fails with.
    pub fn error(self, command: &'static str) -> Error {
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
            Why::TexelBuffer => Error::invalid(
                "VUID-VkBufferViewCreateInfo-format-08778",
                format!(
                    "{command} needs a texel buffer view, but no format supports \
                     UNIFORM_TEXEL_BUFFER or STORAGE_TEXEL_BUFFER on this device"
                ),
            ),
            Why::Ycbcr => Error::invalid(
                "VUID-vkCreateSamplerYcbcrConversion-None-01648",
                "the samplerYcbcrConversion feature is not supported",
            ),
            Why::Sparse => Error::invalid(
                "VUID-vkQueueBindSparse-queuetype",
                "the queue family does not support VK_QUEUE_SPARSE_BINDING_BIT",
            ),
            Why::Requires(extension) => Error::NotSupported(format!(
                "{command} needs {extension}, which Tessera does not implement"
            )),
        }
    }
}
