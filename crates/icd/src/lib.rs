//! Tessera's Vulkan ICD: the shared library the Khronos loader (or an application such as ncnn)
//! loads.
//!
//! This is the only crate with `extern "system"` functions and raw pointers, and it is the FFI edge
//! only: every rule about the objects themselves is the runtime's. Its contract:
//! - exports exactly `vk_icdNegotiateLoaderICDInterfaceVersion`, `vk_icdGetInstanceProcAddr` and
//!   `vk_icdGetPhysicalDeviceProcAddr` (loader interface 7, see `../shared/docs/icd-interface.md`);
//!   every Vulkan command is reached through the generated proc-addr table ([`dispatch`]);
//! - every entry point ([`generated::entrypoints`]) runs behind [`boundary`]: its arguments are
//!   converted into owned values (the runtime's mirrors of the registry's structs) with the
//!   implicit checks (`sType`, null pointers, array lengths, enum values, flag bits, handles), the
//!   hand-written implementation in [`entry`] calls the runtime and writes the results, a panic is
//!   caught and becomes `VK_ERROR_UNKNOWN`, and every [`tessera_runtime::Error`] becomes a
//!   `VkResult` plus a `tracing` line that names the rule broken;
//! - handles are checked against a registry ([`handle`]), so a stale or bogus handle is an error,
//!   not a wild pointer; dispatchable handles carry the loader's slot in their first word.
//!
//! Logging goes to stderr, filtered by `TESSERA_LOG` (default `warn`), unless the host process
//! already installed a `tracing` subscriber.

pub mod boundary;
pub mod conv;
pub mod dispatch;
pub mod entry;
pub mod generated;
pub mod handle;

use std::ffi::{CStr, c_char};
use std::sync::Once;

use vulkan_headers::vulkan::vulkan_core::*;

/// The loader interface version we implement.
pub const LOADER_INTERFACE_VERSION: u32 = 7;

/// Installs the stderr log subscriber once (no-op when the host has its own).
pub fn init_logging() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let filter = tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    });
}

/// Loader ↔ driver interface negotiation: we answer `min(offered, 7)`.
///
/// # Safety
/// `p_supported_version` must be null or point to a writable `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn vk_icdNegotiateLoaderICDInterfaceVersion(
    p_supported_version: *mut u32,
) -> VkResult {
    init_logging();
    boundary::result("vk_icdNegotiateLoaderICDInterfaceVersion", || {
        // SAFETY: the caller passes a valid pointer or null (checked by `deref_mut`).
        let version = unsafe { conv::deref_mut(p_supported_version, "pSupportedVersion")? };
        *version = (*version).min(LOADER_INTERFACE_VERSION);
        Ok(VK_SUCCESS)
    })
}

/// The loader's `vkGetInstanceProcAddr`.
///
/// # Safety
/// `p_name` must be null or a NUL-terminated string; `instance` null or one of our instances.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn vk_icdGetInstanceProcAddr(
    instance: VkInstance,
    p_name: *const c_char,
) -> PFN_vkVoidFunction {
    init_logging();
    // SAFETY: forwarded caller contract.
    unsafe { generated::entrypoints::vkGetInstanceProcAddr(instance, p_name) }
}

/// The loader's physical-device proc-addr query: physical-device-level commands only.
///
/// # Safety
/// `p_name` must be null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn vk_icdGetPhysicalDeviceProcAddr(
    instance: VkInstance,
    p_name: *const c_char,
) -> PFN_vkVoidFunction {
    init_logging();
    let _ = instance;
    boundary::value("vk_icdGetPhysicalDeviceProcAddr", None, || {
        // SAFETY: the caller passes a NUL-terminated string or null.
        let name: &CStr = unsafe { entry::instance::proc_name(p_name)? };
        Ok(dispatch::lookup(name, dispatch::Scope::PhysicalDevice))
    })
}
