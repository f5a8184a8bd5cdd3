//! `VkPhysicalDevice`: the queries that describe the one CPU device (values in [`crate::caps`]).

use std::ffi::c_char;

use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use tessera_runtime::format::tensor_format;
use tessera_runtime::tensor::{Tiling, format_features};

use crate::boundary;
use crate::caps::{self, DEVICE_EXTENSIONS, extension_properties};
use crate::conv::{chain_mut, check_stype, deref_mut, enumerate, enumerate_copy, write};
use crate::handle::{self, Object, RawHandle};

/// The physical device (all it knows is in [`crate::caps`]).
#[derive(Debug)]
pub struct PhysicalDevice;

impl Object for PhysicalDevice {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_PHYSICAL_DEVICE;
    const NAME: &'static str = "VkPhysicalDevice";
}

fn check(physical_device: VkPhysicalDevice) -> Result<()> {
    handle::get::<PhysicalDevice>(physical_device.raw()).map(|_| ())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceFeatures(
    physicalDevice: VkPhysicalDevice,
    pFeatures: *mut VkPhysicalDeviceFeatures,
) {
    boundary::void("vkGetPhysicalDeviceFeatures", || {
        check(physicalDevice)?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pFeatures, "pFeatures", caps::features10()) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceFeatures2(
    physicalDevice: VkPhysicalDevice,
    pFeatures: *mut VkPhysicalDeviceFeatures2,
) {
    boundary::void("vkGetPhysicalDeviceFeatures2", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let features = unsafe { deref_mut(pFeatures, "pFeatures")? };
        check_stype(
            features.sType,
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
            "VUID-VkPhysicalDeviceFeatures2-sType-sType",
        )?;
        features.features = caps::features10();
        // SAFETY: a valid output chain per the spec; each link is the struct its sType names.
        for (stype, p) in unsafe { chain_mut(features.pNext) } {
            // SAFETY: as above.
            if unsafe { caps::fill_features(stype, p) }.is_none() {
                tracing::debug!(
                    "vkGetPhysicalDeviceFeatures2: unknown structure {stype} left untouched"
                );
            }
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceProperties(
    physicalDevice: VkPhysicalDevice,
    pProperties: *mut VkPhysicalDeviceProperties,
) {
    boundary::void("vkGetPhysicalDeviceProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pProperties, "pProperties", caps::properties()) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceProperties2(
    physicalDevice: VkPhysicalDevice,
    pProperties: *mut VkPhysicalDeviceProperties2,
) {
    boundary::void("vkGetPhysicalDeviceProperties2", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props = unsafe { deref_mut(pProperties, "pProperties")? };
        check_stype(
            props.sType,
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
            "VUID-VkPhysicalDeviceProperties2-sType-sType",
        )?;
        props.properties = caps::properties();
        // SAFETY: a valid output chain per the spec.
        for (stype, p) in unsafe { chain_mut(props.pNext) } {
            // SAFETY: each link is the struct its sType names.
            if !unsafe { caps::fill_properties(stype, p) } {
                tracing::debug!(
                    "vkGetPhysicalDeviceProperties2: unknown structure {stype} left untouched"
                );
            }
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceFormatProperties(
    physicalDevice: VkPhysicalDevice,
    _format: VkFormat,
    pFormatProperties: *mut VkFormatProperties,
) {
    boundary::void("vkGetPhysicalDeviceFormatProperties", || {
        check(physicalDevice)?;
        // No format supports images or texel buffers yet.
        let none = VkFormatProperties {
            linearTilingFeatures: 0,
            optimalTilingFeatures: 0,
            bufferFeatures: 0,
        };
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pFormatProperties, "pFormatProperties", none) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceFormatProperties2(
    physicalDevice: VkPhysicalDevice,
    format: VkFormat,
    pFormatProperties: *mut VkFormatProperties2,
) {
    boundary::void("vkGetPhysicalDeviceFormatProperties2", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props = unsafe { deref_mut(pFormatProperties, "pFormatProperties")? };
        check_stype(
            props.sType,
            VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2,
            "VUID-VkFormatProperties2-sType-sType",
        )?;
        props.formatProperties = VkFormatProperties {
            linearTilingFeatures: 0,
            optimalTilingFeatures: 0,
            bufferFeatures: 0,
        };
        // SAFETY: a valid output chain per the spec.
        for (stype, p) in unsafe { chain_mut(props.pNext) } {
            if stype == VK_STRUCTURE_TYPE_TENSOR_FORMAT_PROPERTIES_ARM {
                // SAFETY: the sType names a VkTensorFormatPropertiesARM.
                let t = unsafe { &mut *p.cast::<VkTensorFormatPropertiesARM>() };
                let (optimal, linear) = match tensor_format(format) {
                    Some(f) => (
                        format_features(f, Tiling::Optimal),
                        format_features(f, Tiling::Linear),
                    ),
                    None => (0, 0),
                };
                t.optimalTilingTensorFeatures = optimal;
                t.linearTilingTensorFeatures = linear;
            }
            if stype == VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_3 {
                // SAFETY: the sType names a VkFormatProperties3.
                let p3 = unsafe { &mut *p.cast::<VkFormatProperties3>() };
                p3.linearTilingFeatures = 0;
                p3.optimalTilingFeatures = 0;
                p3.bufferFeatures = 0;
            }
        }
        Ok(())
    })
}

fn no_images() -> Error {
    Error::FormatNotSupported("Tessera supports no image formats".into())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceImageFormatProperties(
    physicalDevice: VkPhysicalDevice,
    _format: VkFormat,
    _type: VkImageType,
    _tiling: VkImageTiling,
    _usage: VkImageUsageFlags,
    _flags: VkImageCreateFlags,
    _pImageFormatProperties: *mut VkImageFormatProperties,
) -> VkResult {
    boundary::result("vkGetPhysicalDeviceImageFormatProperties", || {
        check(physicalDevice)?;
        Err(no_images())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceImageFormatProperties2(
    physicalDevice: VkPhysicalDevice,
    _pImageFormatInfo: *const VkPhysicalDeviceImageFormatInfo2,
    _pImageFormatProperties: *mut VkImageFormatProperties2,
) -> VkResult {
    boundary::result("vkGetPhysicalDeviceImageFormatProperties2", || {
        check(physicalDevice)?;
        Err(no_images())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceSparseImageFormatProperties(
    physicalDevice: VkPhysicalDevice,
    _format: VkFormat,
    _type: VkImageType,
    _samples: VkSampleCountFlagBits,
    _usage: VkImageUsageFlags,
    _tiling: VkImageTiling,
    pPropertyCount: *mut u32,
    _pProperties: *mut VkSparseImageFormatProperties,
) {
    boundary::void("vkGetPhysicalDeviceSparseImageFormatProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid count pointer per the spec.
        unsafe { write(pPropertyCount, "pPropertyCount", 0) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceSparseImageFormatProperties2(
    physicalDevice: VkPhysicalDevice,
    _pFormatInfo: *const VkPhysicalDeviceSparseImageFormatInfo2,
    pPropertyCount: *mut u32,
    _pProperties: *mut VkSparseImageFormatProperties2,
) {
    boundary::void("vkGetPhysicalDeviceSparseImageFormatProperties2", || {
        check(physicalDevice)?;
        // SAFETY: valid count pointer per the spec.
        unsafe { write(pPropertyCount, "pPropertyCount", 0) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceQueueFamilyProperties(
    physicalDevice: VkPhysicalDevice,
    pQueueFamilyPropertyCount: *mut u32,
    pQueueFamilyProperties: *mut VkQueueFamilyProperties,
) {
    boundary::void("vkGetPhysicalDeviceQueueFamilyProperties", || {
        check(physicalDevice)?;
        let families = [caps::queue_family_properties()];
        // SAFETY: two-call contract of the spec (a short array is simply filled).
        unsafe { enumerate_copy(pQueueFamilyPropertyCount, pQueueFamilyProperties, &families) }
            .map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceQueueFamilyProperties2(
    physicalDevice: VkPhysicalDevice,
    pQueueFamilyPropertyCount: *mut u32,
    pQueueFamilyProperties: *mut VkQueueFamilyProperties2,
) {
    boundary::void("vkGetPhysicalDeviceQueueFamilyProperties2", || {
        check(physicalDevice)?;
        // SAFETY: two-call contract; elements are valid structs whose sType/pNext we keep.
        unsafe {
            enumerate(
                pQueueFamilyPropertyCount,
                pQueueFamilyProperties,
                1,
                |_, p| {
                    p.queueFamilyProperties = caps::queue_family_properties();
                },
            )
        }
        .map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceMemoryProperties(
    physicalDevice: VkPhysicalDevice,
    pMemoryProperties: *mut VkPhysicalDeviceMemoryProperties,
) {
    boundary::void("vkGetPhysicalDeviceMemoryProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pMemoryProperties,
                "pMemoryProperties",
                caps::memory_properties(),
            )
        }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceMemoryProperties2(
    physicalDevice: VkPhysicalDevice,
    pMemoryProperties: *mut VkPhysicalDeviceMemoryProperties2,
) {
    boundary::void("vkGetPhysicalDeviceMemoryProperties2", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props = unsafe { deref_mut(pMemoryProperties, "pMemoryProperties")? };
        check_stype(
            props.sType,
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
            "VUID-VkPhysicalDeviceMemoryProperties2-sType-sType",
        )?;
        props.memoryProperties = caps::memory_properties();
        Ok(())
    })
}

const NO_EXTERNAL_MEMORY: VkExternalMemoryProperties = VkExternalMemoryProperties {
    externalMemoryFeatures: 0,
    exportFromImportedHandleTypes: 0,
    compatibleHandleTypes: 0,
};

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceExternalBufferProperties(
    physicalDevice: VkPhysicalDevice,
    _pExternalBufferInfo: *const VkPhysicalDeviceExternalBufferInfo,
    pExternalBufferProperties: *mut VkExternalBufferProperties,
) {
    boundary::void("vkGetPhysicalDeviceExternalBufferProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props = unsafe { deref_mut(pExternalBufferProperties, "pExternalBufferProperties")? };
        // No external memory handle types are supported.
        props.externalMemoryProperties = NO_EXTERNAL_MEMORY;
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceExternalFenceProperties(
    physicalDevice: VkPhysicalDevice,
    _pExternalFenceInfo: *const VkPhysicalDeviceExternalFenceInfo,
    pExternalFenceProperties: *mut VkExternalFenceProperties,
) {
    boundary::void("vkGetPhysicalDeviceExternalFenceProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props = unsafe { deref_mut(pExternalFenceProperties, "pExternalFenceProperties")? };
        props.exportFromImportedHandleTypes = 0;
        props.compatibleHandleTypes = 0;
        props.externalFenceFeatures = 0;
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceExternalSemaphoreProperties(
    physicalDevice: VkPhysicalDevice,
    _pExternalSemaphoreInfo: *const VkPhysicalDeviceExternalSemaphoreInfo,
    pExternalSemaphoreProperties: *mut VkExternalSemaphoreProperties,
) {
    boundary::void("vkGetPhysicalDeviceExternalSemaphoreProperties", || {
        check(physicalDevice)?;
        // SAFETY: valid struct per the spec.
        let props =
            unsafe { deref_mut(pExternalSemaphoreProperties, "pExternalSemaphoreProperties")? };
        props.exportFromImportedHandleTypes = 0;
        props.compatibleHandleTypes = 0;
        props.externalSemaphoreFeatures = 0;
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceToolProperties(
    physicalDevice: VkPhysicalDevice,
    pToolCount: *mut u32,
    pToolProperties: *mut VkPhysicalDeviceToolProperties,
) -> VkResult {
    boundary::result("vkGetPhysicalDeviceToolProperties", || {
        check(physicalDevice)?;
        // SAFETY: two-call contract of the spec; there are no tools.
        unsafe { enumerate(pToolCount, pToolProperties, 0, |_, _| {}) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumerateDeviceExtensionProperties(
    physicalDevice: VkPhysicalDevice,
    pLayerName: *const c_char,
    pPropertyCount: *mut u32,
    pProperties: *mut VkExtensionProperties,
) -> VkResult {
    boundary::result("vkEnumerateDeviceExtensionProperties", || {
        check(physicalDevice)?;
        if !pLayerName.is_null() {
            return Err(Error::LayerNotPresent("Tessera provides no layers".into()));
        }
        let props: Vec<_> = DEVICE_EXTENSIONS
            .iter()
            .map(|(n, v)| extension_properties(n, *v))
            .collect();
        // SAFETY: two-call contract of the spec.
        unsafe { enumerate_copy(pPropertyCount, pProperties, &props) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkEnumerateDeviceLayerProperties(
    physicalDevice: VkPhysicalDevice,
    pPropertyCount: *mut u32,
    pProperties: *mut VkLayerProperties,
) -> VkResult {
    boundary::result("vkEnumerateDeviceLayerProperties", || {
        check(physicalDevice)?;
        // SAFETY: two-call contract of the spec.
        unsafe { enumerate_copy(pPropertyCount, pProperties, &[]) }
    })
}
