//! `VkPhysicalDevice`: the queries that describe the one CPU device (its values are the
//! runtime's, [`tessera_runtime::physical_device`]).

use std::ffi::CStr;
use std::sync::Arc;

use tessera_runtime::physical_device::PhysicalDevice;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{
    chain_mut, check_stype, deref_mut, enumerate, enumerate_copy, extension_properties, write,
};
use crate::generated::{caps, write as w};

pub(crate) unsafe fn get_physical_device_features(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceFeatures,
) -> Result<()> {
    let features = w::to_vk_physical_device_features(&pd.features().vulkan10);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pFeatures", features) }
}

/// Writes every structure of an output chain that the feature or property family knows.
///
/// # Safety
/// `p_next` must be a valid output chain.
unsafe fn write_chain(
    p_next: *mut std::ffi::c_void,
    command: &str,
    mut write_one: impl FnMut(VkStructureType, *mut VkBaseOutStructure) -> bool,
) {
    // SAFETY: caller contract.
    for (stype, p) in unsafe { chain_mut(p_next) } {
        if !write_one(stype, p) {
            tracing::debug!("{command}: unknown structure {stype} left untouched");
        }
    }
}

pub(crate) unsafe fn get_physical_device_features2(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceFeatures2,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let out = unsafe { deref_mut(out, "pFeatures")? };
    check_stype(
        out.sType,
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        "VUID-VkPhysicalDeviceFeatures2-sType-sType",
    )?;
    out.features = w::to_vk_physical_device_features(&pd.features().vulkan10);
    // SAFETY: a valid output chain per the spec; each link is the struct its sType names.
    unsafe {
        write_chain(out.pNext, "vkGetPhysicalDeviceFeatures2", |s, p| {
            caps::write_features(s, p, pd.features())
        })
    };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_properties(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceProperties,
) -> Result<()> {
    let props = w::to_vk_physical_device_properties(&pd.properties().vulkan10);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pProperties", props) }
}

pub(crate) unsafe fn get_physical_device_properties2(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceProperties2,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let out = unsafe { deref_mut(out, "pProperties")? };
    check_stype(
        out.sType,
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        "VUID-VkPhysicalDeviceProperties2-sType-sType",
    )?;
    out.properties = w::to_vk_physical_device_properties(&pd.properties().vulkan10);
    // SAFETY: a valid output chain per the spec; each link is the struct its sType names.
    unsafe {
        write_chain(out.pNext, "vkGetPhysicalDeviceProperties2", |s, p| {
            caps::write_properties(s, p, pd.properties())
        })
    };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_format_properties(
    pd: Arc<PhysicalDevice>,
    format: VkFormat,
    out: *mut VkFormatProperties,
) -> Result<()> {
    let props = w::to_vk_format_properties(&pd.format_properties(format).format_properties);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pFormatProperties", props) }
}

pub(crate) unsafe fn get_physical_device_format_properties2(
    pd: Arc<PhysicalDevice>,
    format: VkFormat,
    out: *mut VkFormatProperties2,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let dst = unsafe { deref_mut(out, "pFormatProperties")? };
    check_stype(
        dst.sType,
        VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2,
        "VUID-VkFormatProperties2-sType-sType",
    )?;
    // SAFETY: as above.
    unsafe { w::write_format_properties2(dst, &pd.format_properties(format)) };
    Ok(())
}

pub(crate) fn get_physical_device_image_format_properties(
    pd: Arc<PhysicalDevice>,
    _format: VkFormat,
    _ty: VkImageType,
    _tiling: VkImageTiling,
    _usage: VkImageUsageFlags,
    _flags: VkImageCreateFlags,
    _out: *mut VkImageFormatProperties,
) -> Result<VkResult> {
    pd.image_format_properties().map(|()| VK_SUCCESS)
}

pub(crate) fn get_physical_device_image_format_properties2(
    pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceImageFormatInfo2,
    _out: *mut VkImageFormatProperties2,
) -> Result<VkResult> {
    pd.image_format_properties().map(|()| VK_SUCCESS)
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn get_physical_device_sparse_image_format_properties(
    _pd: Arc<PhysicalDevice>,
    _format: VkFormat,
    _ty: VkImageType,
    _samples: VkSampleCountFlagBits,
    _usage: VkImageUsageFlags,
    _tiling: VkImageTiling,
    count: *mut u32,
    _out: *mut VkSparseImageFormatProperties,
) -> Result<()> {
    // SAFETY: a valid count pointer per the spec; no format supports sparse images.
    unsafe { write(count, "pPropertyCount", 0) }
}

pub(crate) unsafe fn get_physical_device_sparse_image_format_properties2(
    _pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceSparseImageFormatInfo2,
    count: *mut u32,
    _out: *mut VkSparseImageFormatProperties2,
) -> Result<()> {
    // SAFETY: a valid count pointer per the spec; no format supports sparse images.
    unsafe { write(count, "pPropertyCount", 0) }
}

pub(crate) unsafe fn get_physical_device_queue_family_properties(
    pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkQueueFamilyProperties,
) -> Result<()> {
    let families: Vec<_> = pd
        .queue_families()
        .iter()
        .map(w::to_vk_queue_family_properties)
        .collect();
    // SAFETY: the two-call contract of the spec (a short array is simply filled).
    unsafe { enumerate_copy(count, out, &families) }.map(|_| ())
}

pub(crate) unsafe fn get_physical_device_queue_family_properties2(
    pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkQueueFamilyProperties2,
) -> Result<()> {
    let families = pd.queue_families();
    // SAFETY: the two-call contract; elements are valid structs whose sType/pNext are kept.
    unsafe {
        enumerate(count, out, families.len(), |i, p| {
            let family = vk::QueueFamilyProperties2 {
                queue_family_properties: families[i].clone(),
            };
            w::write_queue_family_properties2(p, &family)
        })
    }
    .map(|_| ())
}

pub(crate) unsafe fn get_physical_device_memory_properties(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceMemoryProperties,
) -> Result<()> {
    let props = w::to_vk_physical_device_memory_properties(pd.memory_properties());
    // SAFETY: a valid out pointer per the spec.
    unsafe { write(out, "pMemoryProperties", props) }
}

pub(crate) unsafe fn get_physical_device_memory_properties2(
    pd: Arc<PhysicalDevice>,
    out: *mut VkPhysicalDeviceMemoryProperties2,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let dst = unsafe { deref_mut(out, "pMemoryProperties")? };
    check_stype(
        dst.sType,
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
        "VUID-VkPhysicalDeviceMemoryProperties2-sType-sType",
    )?;
    let props = vk::PhysicalDeviceMemoryProperties2 {
        memory_properties: pd.memory_properties().clone(),
    };
    // SAFETY: as above.
    unsafe { w::write_physical_device_memory_properties2(dst, &props) };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_external_buffer_properties(
    pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceExternalBufferInfo,
    out: *mut VkExternalBufferProperties,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let dst = unsafe { deref_mut(out, "pExternalBufferProperties")? };
    let props = vk::ExternalBufferProperties {
        external_memory_properties: pd.external_memory_properties(),
    };
    // SAFETY: as above.
    unsafe { w::write_external_buffer_properties(dst, &props) };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_external_fence_properties(
    _pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceExternalFenceInfo,
    out: *mut VkExternalFenceProperties,
) -> Result<()> {
    // SAFETY: a valid struct per the spec; no external fence handle type is supported.
    let dst = unsafe { deref_mut(out, "pExternalFenceProperties")? };
    // SAFETY: as above.
    unsafe { w::write_external_fence_properties(dst, &Default::default()) };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_external_semaphore_properties(
    _pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceExternalSemaphoreInfo,
    out: *mut VkExternalSemaphoreProperties,
) -> Result<()> {
    // SAFETY: a valid struct per the spec; no external semaphore handle type is supported.
    let dst = unsafe { deref_mut(out, "pExternalSemaphoreProperties")? };
    // SAFETY: as above.
    unsafe { w::write_external_semaphore_properties(dst, &Default::default()) };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_external_tensor_properties_arm(
    pd: Arc<PhysicalDevice>,
    _info: vk::PhysicalDeviceExternalTensorInfoARM,
    out: *mut VkExternalTensorPropertiesARM,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let dst = unsafe { deref_mut(out, "pExternalTensorProperties")? };
    check_stype(
        dst.sType,
        VK_STRUCTURE_TYPE_EXTERNAL_TENSOR_PROPERTIES_ARM,
        "VUID-VkExternalTensorPropertiesARM-sType-sType",
    )?;
    let props = vk::ExternalTensorPropertiesARM {
        external_memory_properties: pd.external_memory_properties(),
    };
    // SAFETY: as above.
    unsafe { w::write_external_tensor_properties_arm(dst, &props) };
    Ok(())
}

pub(crate) unsafe fn get_physical_device_tool_properties(
    _pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkPhysicalDeviceToolProperties,
) -> Result<VkResult> {
    // SAFETY: the two-call contract of the spec; there are no tools.
    unsafe { enumerate(count, out, 0, |_, _| {}) }
}

pub(crate) unsafe fn enumerate_device_extension_properties(
    pd: Arc<PhysicalDevice>,
    layer: Option<&CStr>,
    count: *mut u32,
    out: *mut VkExtensionProperties,
) -> Result<VkResult> {
    if layer.is_some() {
        return Err(Error::LayerNotPresent("Tessera provides no layers".into()));
    }
    let props: Vec<_> = pd
        .extensions()
        .iter()
        .map(|e| extension_properties(e.name, e.spec_version))
        .collect();
    // SAFETY: the two-call contract of the spec.
    unsafe { enumerate_copy(count, out, &props) }
}

pub(crate) unsafe fn enumerate_device_layer_properties(
    _pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkLayerProperties,
) -> Result<VkResult> {
    // SAFETY: the two-call contract of the spec.
    unsafe { enumerate_copy(count, out, &[]) }
}
