//! Why Tessera cannot run a command it resolves, and the bodies of the generated entry points of
//! those commands (`crate::generated::unsupported`): graphics (the only queue family is
//! compute | transfer), images (no format supports an image, as
//! `vkGetPhysicalDeviceImageFormatProperties` reports), sparse binding, and commands of an
//! extension that needs another we do not implement.
//!
//! A `vkCmd*` makes the command buffer's recording fail (`vkEndCommandBuffer` returns the
//! error); a `VkResult` command returns an error; other commands log one. None reads its pointer
//! arguments, so none can crash.

use tessera_runtime::Error;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;

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
    /// Belongs to the part of an extension that needs this other extension, which Tessera does
    /// not implement.
    Requires(&'static str),
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
            Why::Requires(extension) => Error::NotSupported(format!(
                "{command} needs {extension}, which Tessera does not implement"
            )),
        }
    }
}

/// The body of an unsupported `vkCmd*`: the recording fails with the reason.
pub fn unsupported_cmd(command_buffer: VkCommandBuffer, command: &'static str, why: Why) {
    boundary::command(command, command_buffer, |_| Err(why.error(command)))
}

/// The body of an unsupported command that returns `VkResult`.
pub fn unsupported_result(command: &'static str, why: Why) -> VkResult {
    boundary::result(command, || Err(why.error(command)))
}

/// The body of an unsupported `void` command: the error is logged.
pub fn unsupported_void(command: &'static str, why: Why) {
    boundary::void(command, || Err(why.error(command)))
}

/// The body of an unsupported command that returns a value: `default`, with the error logged.
pub fn unsupported_value<T>(command: &'static str, why: Why, default: T) -> T {
    boundary::value(command, default, || Err(why.error(command)))
}

/// The body of `vkDestroy*` for a handle type Tessera never creates: `VK_NULL_HANDLE` is fine,
/// anything else is an error.
pub fn unsupported_destroy(command: &'static str, handle: u64, type_name: &'static str) {
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
