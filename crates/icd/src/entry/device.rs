//! `VkDevice`: creation (extension, feature and queue checks), queues, `vkGetDeviceProcAddr`,
//! wait-idle and private data.

use std::ffi::{CStr, c_char};
use std::sync::Arc;

use tessera_runtime::device::Device as RtDevice;
use tessera_runtime::private_data::PrivateDataSlot;
use tessera_runtime::queue::Queue as RtQueue;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::caps::{self, DEVICE_EXTENSIONS, is_listed};
use crate::conv::{self, chain, check_stype, deref, extension_names, slice, write};
use crate::dispatch::{self, Scope};
use crate::entry::physical_device::PhysicalDevice;
use crate::handle::{self, Object, RawHandle};

/// The features and extensions enabled at device creation that change what commands accept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnabledFeatures {
    /// `VkPhysicalDeviceTensorFeaturesARM::tensors` (with `VK_ARM_tensors`).
    pub tensors: bool,
    /// `VkPhysicalDeviceTensorFeaturesARM::tensorNonPacked`.
    pub tensor_non_packed: bool,
}

/// A logical device: the runtime device plus the handles of its queues.
#[derive(Debug)]
pub struct Device {
    /// What was enabled at creation.
    pub features: EnabledFeatures,
    /// The device extensions enabled at creation.
    pub extensions: Vec<&'static CStr>,
    /// The runtime device.
    pub rt: Arc<RtDevice>,
    /// Dispatchable handles of the queues, by index in family 0.
    pub queue_handles: Vec<u64>,
    /// `VkDeviceQueueCreateInfo::flags` the queues were created with.
    pub queue_flags: VkDeviceQueueCreateFlags,
}

impl Object for Device {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DEVICE;
    const NAME: &'static str = "VkDevice";
}

/// A queue: the runtime queue and the device it submits through.
#[derive(Debug)]
pub struct Queue {
    /// The owning runtime device.
    pub device: Arc<RtDevice>,
    /// The runtime queue.
    pub queue: Arc<RtQueue>,
}

impl Object for Queue {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_QUEUE;
    const NAME: &'static str = "VkQueue";
}

impl Object for PrivateDataSlot {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_PRIVATE_DATA_SLOT;
    const NAME: &'static str = "VkPrivateDataSlot";
}

/// Looks up a device handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn device(device: VkDevice) -> Result<Arc<Device>> {
    handle::get::<Device>(device.raw())
}

const FEATURES10_NAMES: &[&str] = &[
    "robustBufferAccess",
    "fullDrawIndexUint32",
    "imageCubeArray",
    "independentBlend",
    "geometryShader",
    "tessellationShader",
    "sampleRateShading",
    "dualSrcBlend",
    "logicOp",
    "multiDrawIndirect",
    "drawIndirectFirstInstance",
    "depthClamp",
    "depthBiasClamp",
    "fillModeNonSolid",
    "depthBounds",
    "wideLines",
    "largePoints",
    "alphaToOne",
    "multiViewport",
    "samplerAnisotropy",
    "textureCompressionETC2",
    "textureCompressionASTC_LDR",
    "textureCompressionBC",
    "occlusionQueryPrecise",
    "pipelineStatisticsQuery",
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderTessellationAndGeometryPointSize",
    "shaderImageGatherExtended",
    "shaderStorageImageExtendedFormats",
    "shaderStorageImageMultisample",
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
    "shaderUniformBufferArrayDynamicIndexing",
    "shaderSampledImageArrayDynamicIndexing",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderStorageImageArrayDynamicIndexing",
    "shaderClipDistance",
    "shaderCullDistance",
    "shaderFloat64",
    "shaderInt64",
    "shaderInt16",
    "shaderResourceResidency",
    "shaderResourceMinLod",
    "sparseBinding",
    "sparseResidencyBuffer",
    "sparseResidencyImage2D",
    "sparseResidencyImage3D",
    "sparseResidency2Samples",
    "sparseResidency4Samples",
    "sparseResidency8Samples",
    "sparseResidency16Samples",
    "sparseResidencyAliased",
    "variableMultisampleRate",
    "inheritedQueries",
];

fn check_features10(requested: &VkPhysicalDeviceFeatures, what: &str) -> Result<()> {
    let words = std::mem::size_of::<VkPhysicalDeviceFeatures>() / 4;
    let supported = caps::features10();
    // SAFETY: VkPhysicalDeviceFeatures is a plain array of `words` VkBool32s.
    let (req, sup) = unsafe {
        (
            std::slice::from_raw_parts(
                (requested as *const VkPhysicalDeviceFeatures).cast::<u32>(),
                words,
            ),
            std::slice::from_raw_parts(
                (&supported as *const VkPhysicalDeviceFeatures).cast::<u32>(),
                words,
            ),
        )
    };
    for (i, (r, s)) in req.iter().zip(sup).enumerate() {
        if *r != 0 && *s == 0 {
            let name = FEATURES10_NAMES.get(i).copied().unwrap_or("?");
            return Err(Error::FeatureNotPresent(format!(
                "{what}.{name} is not supported"
            )));
        }
    }
    Ok(())
}

/// Compares a requested feature struct with what we support, word by word.
///
/// # Safety
/// `p` must point to a valid structure of the type `stype` names.
unsafe fn check_feature_struct(stype: VkStructureType, p: *const VkBaseInStructure) -> Result<()> {
    if stype == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 {
        // SAFETY: the sType names a VkPhysicalDeviceFeatures2.
        let f2 = unsafe { &*p.cast::<VkPhysicalDeviceFeatures2>() };
        return check_features10(&f2.features, "VkPhysicalDeviceFeatures2::features");
    }
    let mut supported = [0u64; 64];
    supported[0] = stype as u32 as u64;
    // SAFETY: `supported` is zeroed, 512 bytes, larger than any feature struct we know, and starts
    // with the sType; `fill_features` writes only within the struct `stype` names.
    let Some(size) = (unsafe { caps::fill_features(stype, supported.as_mut_ptr().cast()) }) else {
        tracing::debug!(
            "vkCreateDevice: structure {stype} in pNext is not a feature struct we know; ignored"
        );
        return Ok(());
    };
    let words = size / 4;
    // SAFETY: the requested struct has `size` bytes (its sType names it), and `supported` holds
    // the same struct.
    let (req, sup) = unsafe {
        (
            std::slice::from_raw_parts(p.cast::<u32>(), words),
            std::slice::from_raw_parts(supported.as_ptr().cast::<u32>(), words),
        )
    };
    // Skip the sType/pNext header (4 words).
    for i in 4..words {
        if req[i] != 0 && sup[i] == 0 {
            return Err(Error::FeatureNotPresent(format!(
                "member #{} of the feature structure with sType {stype} is not supported",
                i - 4
            )));
        }
    }
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateDevice(
    physicalDevice: VkPhysicalDevice,
    pCreateInfo: *const VkDeviceCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pDevice: *mut VkDevice,
) -> VkResult {
    boundary::result("vkCreateDevice", || {
        handle::get::<PhysicalDevice>(physicalDevice.raw())?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
            "VUID-VkDeviceCreateInfo-sType-sType",
        )?;
        // SAFETY: the spec requires `enabledExtensionCount` valid strings.
        let names =
            unsafe { extension_names(info.ppEnabledExtensionNames, info.enabledExtensionCount)? };
        let tensors_enabled = names.contains(&VK_ARM_TENSORS_EXTENSION_NAME);
        let extensions: Vec<&'static CStr> = DEVICE_EXTENSIONS
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| names.contains(n))
            .collect();
        for name in names {
            if !is_listed(DEVICE_EXTENSIONS, name) {
                return Err(Error::ExtensionNotPresent(format!(
                    "device extension {name:?}"
                )));
            }
        }
        // SAFETY: a valid input chain per the spec.
        let links = unsafe { chain(info.pNext) };
        let has_features2 = links
            .iter()
            .any(|(s, _)| *s == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
        if !info.pEnabledFeatures.is_null() {
            ensure!(
                !has_features2,
                "VUID-VkDeviceCreateInfo-pNext-00373",
                "pEnabledFeatures is not NULL while VkPhysicalDeviceFeatures2 is chained"
            );
            // SAFETY: non-null, valid per the spec.
            check_features10(unsafe { &*info.pEnabledFeatures }, "pEnabledFeatures")?;
        }
        let mut features = EnabledFeatures::default();
        for (stype, p) in &links {
            // SAFETY: each link is the struct its sType names.
            unsafe { check_feature_struct(*stype, *p)? };
            if *stype == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_FEATURES_ARM {
                ensure!(
                    tensors_enabled,
                    "VUID-VkDeviceCreateInfo-pNext-pNext",
                    "VkPhysicalDeviceTensorFeaturesARM is chained but VK_ARM_tensors is not enabled"
                );
                // SAFETY: the sType names a VkPhysicalDeviceTensorFeaturesARM.
                let t = unsafe { &*p.cast::<VkPhysicalDeviceTensorFeaturesARM>() };
                features.tensors = t.tensors != VK_FALSE;
                features.tensor_non_packed = t.tensorNonPacked != VK_FALSE;
            }
        }
        // SAFETY: `queueCreateInfoCount` valid structs per the spec.
        let queue_infos = unsafe {
            slice(
                info.pQueueCreateInfos,
                info.queueCreateInfoCount,
                "pQueueCreateInfos",
            )?
        };
        ensure!(
            !queue_infos.is_empty(),
            "VUID-VkDeviceCreateInfo-queueCreateInfoCount-arraylength",
            "queueCreateInfoCount is 0"
        );
        ensure!(
            queue_infos.len() == 1,
            "VUID-VkDeviceCreateInfo-queueFamilyIndex-02802",
            "{} VkDeviceQueueCreateInfo for the one queue family",
            queue_infos.len()
        );
        let q = &queue_infos[0];
        check_stype(
            q.sType,
            VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
            "VUID-VkDeviceQueueCreateInfo-sType-sType",
        )?;
        ensure!(
            q.queueFamilyIndex == 0,
            "VUID-VkDeviceQueueCreateInfo-queueFamilyIndex-00381",
            "queueFamilyIndex {} does not exist (there is one family, 0)",
            q.queueFamilyIndex
        );
        ensure!(
            q.flags == 0,
            "VUID-VkDeviceQueueCreateInfo-flags-06449",
            "queue create flags {:#x}: protected memory is not supported",
            q.flags
        );
        // SAFETY: `queueCount` floats per the spec.
        let priorities = unsafe { slice(q.pQueuePriorities, q.queueCount, "pQueuePriorities")? };
        ensure!(
            priorities.iter().all(|p| (0.0..=1.0).contains(p)),
            "VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383",
            "a queue priority is outside [0, 1]"
        );
        let rt = Arc::new(RtDevice::new(q.queueCount)?);
        let queue_handles = rt
            .queues()
            .iter()
            .map(|queue| {
                handle::insert_dispatchable(Arc::new(Queue {
                    device: rt.clone(),
                    queue: queue.clone(),
                }))
            })
            .collect();
        let dev = handle::insert_dispatchable(Arc::new(Device {
            features,
            extensions,
            rt,
            queue_handles,
            queue_flags: q.flags,
        }));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pDevice, "pDevice", VkDevice::from_raw(dev))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyDevice(
    device: VkDevice,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyDevice", || {
        let Some(dev) = handle::remove::<Device>(device.raw())? else {
            return Ok(());
        };
        for q in &dev.queue_handles {
            handle::remove::<Queue>(*q)?;
        }
        dev.rt.destroy();
        Ok(())
    })
}

/// `vkGetDeviceProcAddr`: device-level commands only (NULL for instance-level names and for the
/// commands of extensions the device did not enable).
///
/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceProcAddr(
    device: VkDevice,
    pName: *const c_char,
) -> PFN_vkVoidFunction {
    boundary::value("vkGetDeviceProcAddr", None, || {
        let dev = self::device(device)?;
        // SAFETY: NUL-terminated per the spec (null rejected).
        let name: &CStr = unsafe { conv::cstr(pName, "pName")? };
        if let Some(entry) = dispatch::find(name.to_bytes())
            && let dispatch::Requirement::Extension(ext) = entry.requirement
            && !dev
                .extensions
                .iter()
                .any(|e| e.to_bytes() == ext.as_bytes())
        {
            return Ok(None);
        }
        Ok(dispatch::lookup(name, Scope::Device))
    })
}

fn queue_handle(
    dev: &Device,
    family: u32,
    index: u32,
    flags: VkDeviceQueueCreateFlags,
) -> Result<VkQueue> {
    ensure!(
        family == 0,
        "VUID-vkGetDeviceQueue-queueFamilyIndex-00384",
        "queueFamilyIndex {family} was not requested at device creation"
    );
    ensure!(
        flags == dev.queue_flags,
        "VUID-VkDeviceQueueInfo2-flags-06225",
        "flags {flags:#x} differ from the queue's create flags"
    );
    let h = dev.queue_handles.get(index as usize).ok_or_else(|| {
        Error::invalid(
            "VUID-vkGetDeviceQueue-queueIndex-00385",
            format!(
                "queueIndex {index} is not less than the {} queues created",
                dev.queue_handles.len()
            ),
        )
    })?;
    Ok(VkQueue::from_raw(*h))
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceQueue(
    device: VkDevice,
    queueFamilyIndex: u32,
    queueIndex: u32,
    pQueue: *mut VkQueue,
) {
    boundary::void("vkGetDeviceQueue", || {
        let dev = self::device(device)?;
        let q = queue_handle(&dev, queueFamilyIndex, queueIndex, 0)?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pQueue, "pQueue", q) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceQueue2(
    device: VkDevice,
    pQueueInfo: *const VkDeviceQueueInfo2,
    pQueue: *mut VkQueue,
) {
    boundary::void("vkGetDeviceQueue2", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pQueueInfo, "pQueueInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2,
            "VUID-VkDeviceQueueInfo2-sType-sType",
        )?;
        let q = queue_handle(&dev, info.queueFamilyIndex, info.queueIndex, info.flags)?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pQueue, "pQueue", q) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDeviceWaitIdle(device: VkDevice) -> VkResult {
    boundary::result("vkDeviceWaitIdle", || {
        self::device(device)?.rt.wait_idle()?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceGroupPeerMemoryFeatures(
    device: VkDevice,
    heapIndex: u32,
    localDeviceIndex: u32,
    remoteDeviceIndex: u32,
    pPeerMemoryFeatures: *mut VkPeerMemoryFeatureFlags,
) {
    boundary::void("vkGetDeviceGroupPeerMemoryFeatures", || {
        self::device(device)?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pPeerMemoryFeatures, "pPeerMemoryFeatures", 0)? };
        ensure!(
            heapIndex < 1,
            "VUID-vkGetDeviceGroupPeerMemoryFeatures-heapIndex-00691",
            "heapIndex {heapIndex} >= 1"
        );
        Err(Error::invalid(
            "VUID-vkGetDeviceGroupPeerMemoryFeatures-localDeviceIndex-00692",
            format!(
                "the device group has one device; local {localDeviceIndex} / remote {remoteDeviceIndex} are not two of its devices"
            ),
        ))
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreatePrivateDataSlot(
    device: VkDevice,
    pCreateInfo: *const VkPrivateDataSlotCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pPrivateDataSlot: *mut VkPrivateDataSlot,
) -> VkResult {
    boundary::result("vkCreatePrivateDataSlot", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_PRIVATE_DATA_SLOT_CREATE_INFO,
            "VUID-VkPrivateDataSlotCreateInfo-sType-sType",
        )?;
        let h = handle::insert(Arc::new(PrivateDataSlot::default()));
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pPrivateDataSlot,
                "pPrivateDataSlot",
                VkPrivateDataSlot::from_raw(h),
            )?
        };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyPrivateDataSlot(
    _device: VkDevice,
    privateDataSlot: VkPrivateDataSlot,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyPrivateDataSlot", || {
        handle::remove::<PrivateDataSlot>(privateDataSlot.raw()).map(|_| ())
    })
}

fn check_private_object(object_type: VkObjectType, object_handle: u64) -> Result<()> {
    ensure!(
        handle::is_live(object_handle, object_type),
        "VUID-vkSetPrivateData-objectHandle-04016",
        "objectHandle {object_handle:#x} is not a live object of type {object_type}"
    );
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkSetPrivateData(
    device: VkDevice,
    objectType: VkObjectType,
    objectHandle: u64,
    privateDataSlot: VkPrivateDataSlot,
    data: u64,
) -> VkResult {
    boundary::result("vkSetPrivateData", || {
        self::device(device)?;
        check_private_object(objectType, objectHandle)?;
        handle::get::<PrivateDataSlot>(privateDataSlot.raw())?.set(objectType, objectHandle, data);
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPrivateData(
    device: VkDevice,
    objectType: VkObjectType,
    objectHandle: u64,
    privateDataSlot: VkPrivateDataSlot,
    pData: *mut u64,
) {
    boundary::void("vkGetPrivateData", || {
        self::device(device)?;
        let value =
            handle::get::<PrivateDataSlot>(privateDataSlot.raw())?.get(objectType, objectHandle);
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pData, "pData", value) }
    })
}
