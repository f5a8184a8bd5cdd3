//! `VkInstance`: creation, enumeration of its physical device, and `vkGetInstanceProcAddr`.

use std::ffi::{CStr, c_char};
use std::sync::Arc;

use tessera_runtime::instance::{self, Instance};
use tessera_runtime::physical_device::PhysicalDevice;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{enumerate, enumerate_copy, extension_properties, write_handle};
use crate::dispatch::{self, Scope};
use crate::handle;
use crate::init_logging;

pub(crate) unsafe fn create_instance(
    info: vk::InstanceCreateInfo,
    out: *mut VkInstance,
) -> Result<VkResult> {
    init_logging();
    let instance = Instance::new(&info)?;
    let physical = instance.physical_device().clone();
    // SAFETY: a valid out pointer per the spec (null is rejected).
    unsafe { write_handle(out, "pInstance", handle::insert_dispatchable(instance))? };
    handle::insert_dispatchable(physical);
    Ok(VK_SUCCESS)
}

pub(crate) fn destroy_instance(instance: Option<Arc<Instance>>) -> Result<()> {
    if let Some(instance) = instance {
        handle::forget::<PhysicalDevice>(instance.physical_device());
    }
    Ok(())
}

pub(crate) unsafe fn enumerate_instance_extension_properties(
    layer: Option<&CStr>,
    count: *mut u32,
    out: *mut VkExtensionProperties,
) -> Result<VkResult> {
    let props: Vec<_> = instance::extensions(layer)?
        .iter()
        .map(|e| extension_properties(e.name, e.spec_version))
        .collect();
    // SAFETY: the two-call contract of the spec.
    unsafe { enumerate_copy(count, out, &props) }
}

pub(crate) unsafe fn enumerate_instance_layer_properties(
    count: *mut u32,
    out: *mut VkLayerProperties,
) -> Result<VkResult> {
    // SAFETY: the two-call contract of the spec; Tessera provides no layers.
    unsafe { enumerate_copy(count, out, &[]) }
}

pub(crate) unsafe fn enumerate_instance_version(out: *mut u32) -> Result<VkResult> {
    // SAFETY: a valid out pointer per the spec.
    unsafe { crate::conv::write(out, "pApiVersion", instance::API_VERSION)? };
    Ok(VK_SUCCESS)
}

fn physical_device_handle(instance: &Instance) -> Result<VkPhysicalDevice> {
    handle::handle_of(instance.physical_device())
        .map(|h| h as usize as VkPhysicalDevice)
        .ok_or_else(|| {
            Error::invalid(
                "VUID-vkEnumeratePhysicalDevices-instance-parameter",
                "the instance's physical device is gone",
            )
        })
}

pub(crate) unsafe fn enumerate_physical_devices(
    instance: Arc<Instance>,
    count: *mut u32,
    out: *mut VkPhysicalDevice,
) -> Result<VkResult> {
    let devices = [physical_device_handle(&instance)?];
    // SAFETY: the two-call contract of the spec.
    unsafe { enumerate_copy(count, out, &devices) }
}

pub(crate) unsafe fn enumerate_physical_device_groups(
    instance: Arc<Instance>,
    count: *mut u32,
    out: *mut VkPhysicalDeviceGroupProperties,
) -> Result<VkResult> {
    let device = physical_device_handle(&instance)?;
    // SAFETY: the two-call contract of the spec; each element is a valid struct whose sType and
    // pNext are kept.
    unsafe {
        enumerate(count, out, 1, |_, group| {
            group.physicalDeviceCount = 1;
            group.physicalDevices = [std::ptr::null_mut(); VK_MAX_DEVICE_GROUP_SIZE as usize];
            group.physicalDevices[0] = device;
            group.subsetAllocation = VK_FALSE;
        })
    }
}

/// `vkGetInstanceProcAddr`: with a null instance only the global commands (and the `vk_icd*`
/// interface functions); with an instance every command we implement, device-level ones included
/// (the loader builds trampolines for names it does not know from them).
pub(crate) fn get_instance_proc_addr(
    instance: Option<Arc<Instance>>,
    name: &CStr,
) -> Result<PFN_vkVoidFunction> {
    let scope = if instance.is_some() {
        Scope::Instance
    } else {
        Scope::Global
    };
    Ok(dispatch::lookup(name, scope))
}

/// The name argument of the proc-addr queries that are not generated (`vk_icd*`).
///
/// # Safety
/// `p` must be null or a NUL-terminated string.
pub(crate) unsafe fn proc_name<'a>(p: *const c_char) -> Result<&'a CStr> {
    // SAFETY: caller contract.
    unsafe { crate::conv::cstr_param(p, "VUID-vkGetInstanceProcAddr-pName-parameter") }
}
