//! The bodies of the generated entry points of the commands Tessera resolves but cannot run
//! (`crate::generated::unsupported`); why each cannot is the runtime's
//! [`tessera_runtime::unsupported::Why`].
//!
//! A `vkCmd*` makes the command buffer's recording fail (`vkEndCommandBuffer` returns the
//! error); a `VkResult` command returns an error; other commands log one. None reads its pointer
//! arguments, so none can crash.

use tessera_runtime::Error;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;

pub use tessera_runtime::unsupported::Why;

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
