//! The proc-addr queries, answered from the generated table ([`crate::generated::dispatch`]):
//! every command name we resolve, its dispatch level, what enables it and its function (checked
//! against the header's PFN type at compile time). A name that is absent resolves to NULL.

use std::ffi::CStr;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::generated::dispatch::ENTRIES;

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

/// What makes a command available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// A core version `(major, minor)`.
    Core(u32, u32),
    /// The extension that adds it.
    Extension(&'static str),
}

/// One command of the table.
#[derive(Debug)]
pub struct Entry {
    /// Its name.
    pub name: &'static str,
    /// Its dispatch level.
    pub scope: Scope,
    /// What enables it.
    pub requirement: Requirement,
    /// The function, to be cast back to the command's PFN type.
    pub function: NonNullPFN_vkVoidFunction,
}

/// The table entry of `name`.
pub fn find(name: &[u8]) -> Option<&'static Entry> {
    ENTRIES
        .binary_search_by(|e| e.name.as_bytes().cmp(name))
        .ok()
        .map(|i| &ENTRIES[i])
}

/// The interface functions the loader may ask `vk_icdGetInstanceProcAddr(NULL, …)` for (interface 7).
fn loader_interface(name: &[u8]) -> PFN_vkVoidFunction {
    type Negotiate = unsafe extern "system" fn(*mut u32) -> VkResult;
    type ProcAddr =
        unsafe extern "system" fn(VkInstance, *const std::ffi::c_char) -> PFN_vkVoidFunction;
    let negotiate: Negotiate = crate::vk_icdNegotiateLoaderICDInterfaceVersion;
    let gipa: ProcAddr = crate::vk_icdGetInstanceProcAddr;
    let gpdpa: ProcAddr = crate::vk_icdGetPhysicalDeviceProcAddr;
    // SAFETY: function pointers have one representation; the loader casts each pointer back to
    // its true type before calling it.
    unsafe {
        match name {
            b"vk_icdNegotiateLoaderICDInterfaceVersion" => Some(std::mem::transmute::<
                Negotiate,
                NonNullPFN_vkVoidFunction,
            >(negotiate)),
            b"vk_icdGetInstanceProcAddr" => Some(std::mem::transmute::<
                ProcAddr,
                NonNullPFN_vkVoidFunction,
            >(gipa)),
            b"vk_icdGetPhysicalDeviceProcAddr" => Some(std::mem::transmute::<
                ProcAddr,
                NonNullPFN_vkVoidFunction,
            >(gpdpa)),
            _ => None,
        }
    }
}

/// Resolves `name` as a proc-addr query of the given kind would:
/// - [`Scope::Global`]: `vkGetInstanceProcAddr(NULL, name)`: global commands, `vkGetInstanceProcAddr`
///   and the loader interface functions;
/// - [`Scope::Instance`]: `vkGetInstanceProcAddr(instance, name)`: every command;
/// - [`Scope::PhysicalDevice`]: `vk_icdGetPhysicalDeviceProcAddr`: physical-device commands only;
/// - [`Scope::Device`]: `vkGetDeviceProcAddr`: device commands only (the caller checks what the
///   device enabled, see [`Entry::requirement`]).
pub fn lookup(name: &CStr, query: Scope) -> PFN_vkVoidFunction {
    let bytes = name.to_bytes();
    if query == Scope::Global
        && let Some(f) = loader_interface(bytes)
    {
        return Some(f);
    }
    let entry = find(bytes)?;
    let visible = match query {
        Scope::Global => entry.scope == Scope::Global || bytes == b"vkGetInstanceProcAddr",
        Scope::Instance => true,
        Scope::PhysicalDevice | Scope::Device => entry.scope == query,
    };
    visible.then_some(entry.function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(ENTRIES.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn extension_commands_name_an_advertised_extension() {
        for e in ENTRIES {
            if let Requirement::Extension(ext) = e.requirement {
                use tessera_runtime::vk::extensions::{DEVICE_EXTENSIONS, INSTANCE_EXTENSIONS};
                let known = DEVICE_EXTENSIONS.iter().any(|x| x.name == ext)
                    || INSTANCE_EXTENSIONS.iter().any(|x| x.name == ext);
                assert!(known, "{}: {ext} is not advertised", e.name);
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

    /// Every core command up to Vulkan 1.3 resolves.
    #[test]
    fn every_core_command_resolves() {
        let missing: Vec<_> = crate::generated::core_commands::CORE_COMMANDS
            .iter()
            .filter(|(major, minor, _)| (*major, *minor) <= (1, 3))
            .flat_map(|(_, _, names)| names.iter())
            .filter(|name| find(name.as_bytes()).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "core commands without an entry point: {missing:?}"
        );
    }
}
