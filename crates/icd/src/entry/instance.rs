//! `VkInstance`: creation, enumeration of the one physical device, and `vkGetInstanceProcAddr`.

use std::ffi::{CStr, c_char};
use std::sync::Arc;

use tessera_runtime::{Error, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::caps::{INSTANCE_EXTENSIONS, extension_properties, is_listed};
use crate::conv::{self, check_stype, deref, enumerate, enumerate_copy, extension_names, write};
use crate::dispatch::{self, Scope};
use crate::entry::physical_device::PhysicalDevice;
use crate::handle::{self, Object, RawHandle};
use crate::{boundary, init_logging};

/// An instance: the application's API version and our one physical device.
#[derive(Debug)]
pub struct Instance {
    /// `VkApplicationInfo::apiVersion` (1.0 when absent).
    pub api_version: u32,
    /// Handle of the physical device this instance enumerates.
    pub physical_device: u64,
}

impl Object for Instance {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_INSTANCE;
    const NAME: &'static str = "VkInstance";
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateInstance(
    pCreateInfo: *const VkInstanceCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pInstance: *mut VkInstance,
) -> VkResult {
    init_logging();
    boundary::result("vkCreateInstance", || {
        // SAFETY: valid or null per the spec (null is rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
            "VUID-VkInstanceCreateInfo-sType-sType",
        )?;
        if info.enabledLayerCount > 0 {
            return Err(Error::LayerNotPresent(
                "Tessera provides no layers (layers are the loader's business)".into(),
            ));
        }
        // SAFETY: the spec requires `enabledExtensionCount` valid strings.
        let names =
            unsafe { extension_names(info.ppEnabledExtensionNames, info.enabledExtensionCount)? };
        for name in names {
            if !is_listed(INSTANCE_EXTENSIONS, name) {
                return Err(Error::ExtensionNotPresent(format!(
                    "instance extension {name:?}"
                )));
            }
        }
        let api_version = if info.pApplicationInfo.is_null() {
            VK_API_VERSION_1_0
        } else {
            // SAFETY: non-null, valid per the spec.
            let app = unsafe { &*info.pApplicationInfo };
            check_stype(
                app.sType,
                VK_STRUCTURE_TYPE_APPLICATION_INFO,
                "VUID-VkApplicationInfo-sType-sType",
            )?;
            if app.apiVersion == 0 {
                VK_API_VERSION_1_0
            } else {
                app.apiVersion
            }
        };
        let physical_device = handle::insert_dispatchable(Arc::new(PhysicalDevice));
        let instance = handle::insert_dispatchable(Arc::new(Instance {
            api_version,
            physical_device,
        }));
        // SAFETY: valid out pointer per the spec (null is rejected).
        unsafe { write(pInstance, "pInstance", VkInstance::from_raw(instance))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyInstance(
    instance: VkInstance,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyInstance", || {
        if let Some(inst) = handle::remove::<Instance>(instance.raw())? {
            handle::remove::<PhysicalDevice>(inst.physical_device)?;
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumerateInstanceExtensionProperties(
    pLayerName: *const c_char,
    pPropertyCount: *mut u32,
    pProperties: *mut VkExtensionProperties,
) -> VkResult {
    boundary::result("vkEnumerateInstanceExtensionProperties", || {
        if !pLayerName.is_null() {
            return Err(Error::LayerNotPresent("Tessera provides no layers".into()));
        }
        let props: Vec<_> = INSTANCE_EXTENSIONS
            .iter()
            .map(|(n, v)| extension_properties(n, *v))
            .collect();
        // SAFETY: two-call contract of the spec.
        unsafe { enumerate_copy(pPropertyCount, pProperties, &props) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumerateInstanceLayerProperties(
    pPropertyCount: *mut u32,
    pProperties: *mut VkLayerProperties,
) -> VkResult {
    // SAFETY: two-call contract of the spec.
    boundary::result("vkEnumerateInstanceLayerProperties", || unsafe {
        enumerate_copy(pPropertyCount, pProperties, &[])
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumerateInstanceVersion(pApiVersion: *mut u32) -> VkResult {
    boundary::result("vkEnumerateInstanceVersion", || {
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pApiVersion, "pApiVersion", VK_API_VERSION_1_3)? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumeratePhysicalDevices(
    instance: VkInstance,
    pPhysicalDeviceCount: *mut u32,
    pPhysicalDevices: *mut VkPhysicalDevice,
) -> VkResult {
    boundary::result("vkEnumeratePhysicalDevices", || {
        let inst = handle::get::<Instance>(instance.raw())?;
        let devices = [VkPhysicalDevice::from_raw(inst.physical_device)];
        // SAFETY: two-call contract of the spec.
        unsafe { enumerate_copy(pPhysicalDeviceCount, pPhysicalDevices, &devices) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumeratePhysicalDeviceGroups(
    instance: VkInstance,
    pPhysicalDeviceGroupCount: *mut u32,
    pPhysicalDeviceGroupProperties: *mut VkPhysicalDeviceGroupProperties,
) -> VkResult {
    boundary::result("vkEnumeratePhysicalDeviceGroups", || {
        let inst = handle::get::<Instance>(instance.raw())?;
        // SAFETY: two-call contract of the spec; each element is a valid struct whose sType and
        // pNext we keep.
        unsafe {
            enumerate(
                pPhysicalDeviceGroupCount,
                pPhysicalDeviceGroupProperties,
                1,
                |_, group| {
                    group.physicalDeviceCount = 1;
                    group.physicalDevices =
                        [std::ptr::null_mut(); VK_MAX_DEVICE_GROUP_SIZE as usize];
                    group.physicalDevices[0] = VkPhysicalDevice::from_raw(inst.physical_device);
                    group.subsetAllocation = VK_FALSE;
                },
            )
        }
    })
}

/// `vkGetInstanceProcAddr`: with a null instance only the global commands (and the `vk_icd*`
/// interface functions); with an instance every command we implement, device-level ones included
/// (the loader builds trampolines for names it does not know from them).
///
/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetInstanceProcAddr(
    instance: VkInstance,
    pName: *const c_char,
) -> PFN_vkVoidFunction {
    boundary::value("vkGetInstanceProcAddr", None, || {
        // SAFETY: NUL-terminated per the spec (null is rejected).
        let name: &CStr = unsafe { conv::cstr(pName, "pName")? };
        if instance.is_null() {
            return Ok(dispatch::lookup(name, Scope::Global));
        }
        ensure!(
            handle::get::<Instance>(instance.raw()).is_ok(),
            "VUID-vkGetInstanceProcAddr-instance-parameter",
            "instance is not a valid VkInstance"
        );
        Ok(dispatch::lookup(name, Scope::Instance))
    })
}
