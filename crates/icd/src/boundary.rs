//! The wrapper every entry point runs in: catches panics, maps [`Error`] to `VkResult`, logs.
//!
//! Log levels: application errors (`Validation`, out of memory) are `warn`; answers that are
//! part of normal probing (`VK_ERROR_FORMAT_NOT_SUPPORTED`, feature or extension not present, a
//! full descriptor pool) are
//! `info`/`debug`; internal failures (`DeviceLost`, panics) are `error`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use tessera_runtime::Error;
use tessera_runtime::cmd::{CommandBuffer, Recorder};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::handle::{self, RawHandle};

/// The `VkResult` for an error.
pub fn vk_result(err: &Error) -> VkResult {
    match err {
        Error::Validation { .. } => VK_ERROR_VALIDATION_FAILED,
        Error::OutOfHostMemory(_) => VK_ERROR_OUT_OF_HOST_MEMORY,
        Error::OutOfDeviceMemory(_) => VK_ERROR_OUT_OF_DEVICE_MEMORY,
        Error::FeatureNotPresent(_) => VK_ERROR_FEATURE_NOT_PRESENT,
        Error::ExtensionNotPresent(_) => VK_ERROR_EXTENSION_NOT_PRESENT,
        Error::LayerNotPresent(_) => VK_ERROR_LAYER_NOT_PRESENT,
        Error::OutOfPoolMemory(_) => VK_ERROR_OUT_OF_POOL_MEMORY,
        Error::FormatNotSupported(_) => VK_ERROR_FORMAT_NOT_SUPPORTED,
        Error::DeviceLost(_) => VK_ERROR_DEVICE_LOST,
        Error::NotSupported(_) => VK_ERROR_UNKNOWN,
    }
}

/// Logs `err` as the failure of `command` at the level its kind calls for.
pub fn log_error(command: &'static str, err: &Error) {
    match err {
        Error::Validation { .. }
        | Error::OutOfHostMemory(_)
        | Error::OutOfDeviceMemory(_)
        | Error::NotSupported(_) => {
            tracing::warn!(command, "{err}")
        }
        Error::FeatureNotPresent(_)
        | Error::ExtensionNotPresent(_)
        | Error::LayerNotPresent(_)
        | Error::OutOfPoolMemory(_) => {
            tracing::info!(command, "{err}")
        }
        Error::FormatNotSupported(_) => tracing::debug!(command, "{err}"),
        Error::DeviceLost(_) => tracing::error!(command, "{err}"),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Runs a `VkResult`-returning entry point.
pub fn result(command: &'static str, f: impl FnOnce() -> Result<VkResult, Error>) -> VkResult {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(code)) => code,
        Ok(Err(err)) => {
            log_error(command, &err);
            vk_result(&err)
        }
        Err(payload) => {
            tracing::error!(
                command,
                "internal error (panic caught): {}",
                panic_message(&*payload)
            );
            VK_ERROR_UNKNOWN
        }
    }
}

/// Runs a `void` entry point; errors can only be logged.
pub fn void(command: &'static str, f: impl FnOnce() -> Result<(), Error>) {
    value(command, (), f)
}

/// Runs an entry point that returns a value (`default` on error).
pub fn value<T>(command: &'static str, default: T, f: impl FnOnce() -> Result<T, Error>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(err)) => {
            log_error(command, &err);
            default
        }
        Err(payload) => {
            tracing::error!(
                command,
                "internal error (panic caught): {}",
                panic_message(&*payload)
            );
            default
        }
    }
}

/// Runs a `vkCmd*` entry point: looks the command buffer up (a bad handle can only be logged)
/// and records through it; an error becomes the buffer's sticky recording error, which
/// `vkEndCommandBuffer` returns.
pub fn command(
    name: &'static str,
    command_buffer: VkCommandBuffer,
    f: impl FnOnce(&mut Recorder<'_>) -> Result<(), Error>,
) {
    void(name, || {
        let cb = handle::lookup::<CommandBuffer>(
            command_buffer.raw(),
            "VUID-vkCmd*-commandBuffer-parameter",
        )?;
        cb.record(name, f);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_unknown() {
        assert_eq!(result("test", || panic!("boom")), VK_ERROR_UNKNOWN);
        assert_eq!(value("test", 7u32, || panic!("boom")), 7);
    }

    #[test]
    fn errors_map_to_codes() {
        assert_eq!(
            result("test", || Err(Error::invalid("VUID-x", "y"))),
            VK_ERROR_VALIDATION_FAILED
        );
        assert_eq!(
            result("test", || Err(Error::OutOfDeviceMemory("x".into()))),
            VK_ERROR_OUT_OF_DEVICE_MEMORY
        );
        assert_eq!(result("test", || Ok(VK_INCOMPLETE)), VK_INCOMPLETE);
    }
}
