//! `VK_ARM_tensors`: tensors, tensor views, their memory requirements and binding, the tensor
//! copy command, external-memory queries and descriptor capture data.

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::cmd::{Command, TensorCopy};
use tessera_runtime::tensor::{Tensor, TensorDesc, TensorView, Tiling, format_features};
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, deref_mut, find, slice, write};
use crate::entry::buffer::write_requirements2;
use crate::entry::command::command_buffer;
use crate::entry::device::{Device, device};
use crate::entry::memory::memory;
use crate::entry::physical_device::PhysicalDevice;
use crate::handle::{self, Object, RawHandle};

impl Object for Tensor {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_TENSOR_ARM;
    const NAME: &'static str = "VkTensorARM";
}

impl Object for TensorView {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_TENSOR_VIEW_ARM;
    const NAME: &'static str = "VkTensorViewARM";
}

/// Looks up a tensor handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn tensor(tensor: VkTensorARM) -> Result<Arc<Tensor>> {
    handle::get::<Tensor>(tensor.raw())
}

fn require_tensors(dev: &Device) -> Result<()> {
    ensure!(
        dev.features.tensors,
        "VUID-vkCreateTensorARM-tensors-09832",
        "the tensors feature (VK_ARM_tensors) was not enabled at device creation"
    );
    Ok(())
}

/// Reads and validates a `VkTensorCreateInfoARM` into a tensor (not yet registered).
///
/// # Safety
/// `info` must be valid per the spec, with its description and arrays.
unsafe fn read_create_info(dev: &Device, info: &VkTensorCreateInfoARM) -> Result<Tensor> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_TENSOR_CREATE_INFO_ARM,
        "VUID-VkTensorCreateInfoARM-sType-sType",
    )?;
    // SAFETY: valid per the spec (null rejected).
    let desc = unsafe { deref(info.pDescription, "pDescription")? };
    check_stype(
        desc.sType,
        VK_STRUCTURE_TYPE_TENSOR_DESCRIPTION_ARM,
        "VUID-VkTensorDescriptionARM-sType-sType",
    )?;
    let tiling = match desc.tiling {
        VK_TENSOR_TILING_OPTIMAL_ARM => Tiling::Optimal,
        VK_TENSOR_TILING_LINEAR_ARM => Tiling::Linear,
        other => {
            return Err(Error::invalid(
                "VUID-VkTensorDescriptionARM-tiling-parameter",
                format!("tiling {other} is not a VkTensorTilingARM value Tessera supports"),
            ));
        }
    };
    // SAFETY: `dimensionCount` values per the spec.
    let dims = unsafe { slice(desc.pDimensions, desc.dimensionCount, "pDimensions")? };
    let strides = if desc.pStrides.is_null() {
        None
    } else {
        // SAFETY: non-null, `dimensionCount` values per the spec.
        Some(unsafe { slice(desc.pStrides, desc.dimensionCount, "pStrides")? })
    };
    if info.sharingMode == VK_SHARING_MODE_CONCURRENT {
        ensure!(
            info.queueFamilyIndexCount > 1,
            "VUID-VkTensorCreateInfoARM-sharingMode-09723",
            "CONCURRENT sharing needs more than one queue family index (got {})",
            info.queueFamilyIndexCount
        );
        // SAFETY: `queueFamilyIndexCount` values per the spec.
        let families = unsafe {
            slice(
                info.pQueueFamilyIndices,
                info.queueFamilyIndexCount,
                "pQueueFamilyIndices",
            )?
        };
        let unique = families
            .iter()
            .enumerate()
            .all(|(i, f)| !families[..i].contains(f));
        ensure!(
            unique && families.iter().all(|f| *f == 0),
            "VUID-VkTensorCreateInfoARM-sharingMode-09725",
            "pQueueFamilyIndices {families:?} must be unique indices of existing queue families (there is one, 0)"
        );
    } else {
        ensure!(
            info.sharingMode == VK_SHARING_MODE_EXCLUSIVE,
            "VUID-VkTensorCreateInfoARM-sharingMode-parameter",
            "sharingMode {} is not a VkSharingMode",
            info.sharingMode
        );
    }
    // SAFETY: a valid chain per the spec.
    let external = unsafe {
        find::<VkExternalMemoryTensorCreateInfoARM>(
            info.pNext,
            VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_TENSOR_CREATE_INFO_ARM,
        )
    };
    if let Some(ext) = external {
        ensure!(
            ext.handleTypes == 0,
            "VUID-VkTensorCreateInfoARM-pNext-09864",
            "external memory handle types {:#x} are not supported for tensors",
            ext.handleTypes
        );
    }
    let desc = TensorDesc::new(
        tiling,
        desc.format,
        dims,
        strides,
        desc.usage,
        dev.features.tensor_non_packed,
    )?;
    Tensor::new(desc, info.flags)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateTensorARM(
    device: VkDevice,
    pCreateInfo: *const VkTensorCreateInfoARM,
    _pAllocator: *const VkAllocationCallbacks,
    pTensor: *mut VkTensorARM,
) -> VkResult {
    boundary::result("vkCreateTensorARM", || {
        let dev = self::device(device)?;
        require_tensors(&dev)?;
        // SAFETY: valid per the spec (null rejected).
        let tensor = unsafe { read_create_info(&dev, deref(pCreateInfo, "pCreateInfo")?)? };
        let h = handle::insert(Arc::new(tensor));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pTensor, "pTensor", VkTensorARM::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyTensorARM(
    _device: VkDevice,
    tensor: VkTensorARM,
    _pAllocator: *const VkAllocationCallbacks,
) {
    // Views and recorded commands hold their own references, so the tensor's description stays
    // valid for them; its memory belongs to the VkDeviceMemory.
    boundary::void("vkDestroyTensorARM", || {
        handle::remove::<Tensor>(tensor.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateTensorViewARM(
    device: VkDevice,
    pCreateInfo: *const VkTensorViewCreateInfoARM,
    _pAllocator: *const VkAllocationCallbacks,
    pView: *mut VkTensorViewARM,
) -> VkResult {
    boundary::result("vkCreateTensorViewARM", || {
        let dev = self::device(device)?;
        require_tensors(&dev)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_TENSOR_VIEW_CREATE_INFO_ARM,
            "VUID-VkTensorViewCreateInfoARM-sType-sType",
        )?;
        ensure!(
            info.flags == 0,
            "VUID-VkTensorViewCreateInfoARM-flags-09745",
            "view flags {:#x}: descriptor-buffer capture/replay is not supported",
            info.flags
        );
        let view = TensorView::new(tensor(info.tensor)?, info.format, format_features)?;
        let h = handle::insert(Arc::new(view));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pView, "pView", VkTensorViewARM::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyTensorViewARM(
    _device: VkDevice,
    tensorView: VkTensorViewARM,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyTensorViewARM", || {
        handle::remove::<TensorView>(tensorView.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetTensorMemoryRequirementsARM(
    device: VkDevice,
    pInfo: *const VkTensorMemoryRequirementsInfoARM,
    pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    boundary::void("vkGetTensorMemoryRequirementsARM", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_TENSOR_MEMORY_REQUIREMENTS_INFO_ARM,
            "VUID-VkTensorMemoryRequirementsInfoARM-sType-sType",
        )?;
        let req = tensor(info.tensor)?.requirements();
        // SAFETY: valid per the spec.
        unsafe { write_requirements2(pMemoryRequirements, req) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceTensorMemoryRequirementsARM(
    device: VkDevice,
    pInfo: *const VkDeviceTensorMemoryRequirementsARM,
    pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    boundary::void("vkGetDeviceTensorMemoryRequirementsARM", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DEVICE_TENSOR_MEMORY_REQUIREMENTS_ARM,
            "VUID-VkDeviceTensorMemoryRequirementsARM-sType-sType",
        )?;
        // SAFETY: valid per the spec (null rejected).
        let tensor = unsafe { read_create_info(&dev, deref(info.pCreateInfo, "pCreateInfo")?)? };
        // SAFETY: valid per the spec.
        unsafe { write_requirements2(pMemoryRequirements, tensor.requirements()) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkBindTensorMemoryARM(
    device: VkDevice,
    bindInfoCount: u32,
    pBindInfos: *const VkBindTensorMemoryInfoARM,
) -> VkResult {
    boundary::result("vkBindTensorMemoryARM", || {
        self::device(device)?;
        // SAFETY: `bindInfoCount` structs per the spec.
        let infos = unsafe { slice(pBindInfos, bindInfoCount, "pBindInfos")? };
        ensure!(
            !infos.is_empty(),
            "VUID-vkBindTensorMemoryARM-bindInfoCount-arraylength",
            "bindInfoCount is 0"
        );
        for info in infos {
            check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_BIND_TENSOR_MEMORY_INFO_ARM,
                "VUID-VkBindTensorMemoryInfoARM-sType-sType",
            )?;
            tensor(info.tensor)?.bind(memory(info.memory)?, info.memoryOffset)?;
        }
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdCopyTensorARM(
    commandBuffer: VkCommandBuffer,
    pCopyTensorInfo: *const VkCopyTensorInfoARM,
) {
    boundary::void("vkCmdCopyTensorARM", || {
        command_buffer(commandBuffer)?.record("vkCmdCopyTensorARM", || {
            // SAFETY: valid per the spec (null rejected).
            let info = unsafe { deref(pCopyTensorInfo, "pCopyTensorInfo")? };
            check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_COPY_TENSOR_INFO_ARM,
                "VUID-VkCopyTensorInfoARM-sType-sType",
            )?;
            ensure!(
                info.regionCount > 0,
                "VUID-VkCopyTensorInfoARM-regionCount-arraylength",
                "regionCount is 0"
            );
            // SAFETY: `regionCount` structs per the spec.
            let regions = unsafe { slice(info.pRegions, info.regionCount, "pRegions")? };
            // SAFETY: each region is valid per the spec.
            let regions = regions
                .iter()
                .map(|r| unsafe { read_region(r) })
                .collect::<Result<Vec<_>>>()?;
            Command::copy_tensor(tensor(info.srcTensor)?, tensor(info.dstTensor)?, regions)
        });
        Ok(())
    })
}

/// Reads a `VkTensorCopyARM`.
///
/// # Safety
/// `r` must be valid per the spec (its arrays hold `dimensionCount` values when non-null).
unsafe fn read_region(r: &VkTensorCopyARM) -> Result<TensorCopy> {
    check_stype(
        r.sType,
        VK_STRUCTURE_TYPE_TENSOR_COPY_ARM,
        "VUID-VkTensorCopyARM-sType-sType",
    )?;
    let any = !r.pSrcOffset.is_null() || !r.pDstOffset.is_null() || !r.pExtent.is_null();
    ensure!(
        r.dimensionCount > 0 || !any,
        "VUID-VkTensorCopyARM-dimensionCount-09955",
        "dimensionCount is 0 but an offset or extent array is given"
    );
    let read = |p: *const u64, what: &'static str| -> Result<Option<Vec<u64>>> {
        if p.is_null() {
            return Ok(None);
        }
        // SAFETY: non-null with `dimensionCount` values (caller contract).
        Ok(Some(unsafe { slice(p, r.dimensionCount, what)? }.to_vec()))
    };
    Ok(TensorCopy {
        dimension_count: r.dimensionCount,
        src_offset: read(r.pSrcOffset, "pSrcOffset")?,
        dst_offset: read(r.pDstOffset, "pDstOffset")?,
        extent: read(r.pExtent, "pExtent")?,
    })
}

/// Checks the tensor barriers chained to a `VkDependencyInfo`: either one
/// `VkTensorMemoryBarrierARM` or a `VkTensorDependencyInfoARM`, naming live, bound tensors with
/// valid queue family indices. The executor's in-order queue honours them without extra work.
///
/// # Safety
/// `p_next` must be the valid chain of a `VkDependencyInfo`.
pub unsafe fn check_tensor_barriers(p_next: *const c_void) -> Result<()> {
    // SAFETY: caller contract.
    let single = unsafe {
        find::<VkTensorMemoryBarrierARM>(p_next, VK_STRUCTURE_TYPE_TENSOR_MEMORY_BARRIER_ARM)
    };
    // SAFETY: caller contract.
    let info = unsafe {
        find::<VkTensorDependencyInfoARM>(p_next, VK_STRUCTURE_TYPE_TENSOR_DEPENDENCY_INFO_ARM)
    };
    let barriers: &[VkTensorMemoryBarrierARM] = match (single, info) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid(
                "VUID-VkDependencyInfo-pNext-09754",
                "both a VkTensorDependencyInfoARM and a VkTensorMemoryBarrierARM are chained",
            ));
        }
        (Some(b), None) => std::slice::from_ref(b),
        (None, Some(i)) => {
            ensure!(
                i.tensorMemoryBarrierCount > 0,
                "VUID-VkTensorDependencyInfoARM-tensorMemoryBarrierCount-arraylength",
                "tensorMemoryBarrierCount is 0"
            );
            // SAFETY: `tensorMemoryBarrierCount` structs per the spec.
            unsafe {
                slice(
                    i.pTensorMemoryBarriers,
                    i.tensorMemoryBarrierCount,
                    "pTensorMemoryBarriers",
                )?
            }
        }
        (None, None) => &[],
    };
    for b in barriers {
        check_stype(
            b.sType,
            VK_STRUCTURE_TYPE_TENSOR_MEMORY_BARRIER_ARM,
            "VUID-VkTensorMemoryBarrierARM-sType-sType",
        )?;
        tensor(b.tensor)?.bound("VUID-VkTensorMemoryBarrierARM-tensor-09758")?;
        let valid =
            |f: u32| f == VK_QUEUE_FAMILY_IGNORED || f == 0 || f == VK_QUEUE_FAMILY_EXTERNAL;
        ensure!(
            valid(b.srcQueueFamilyIndex) && valid(b.dstQueueFamilyIndex),
            "VUID-VkTensorMemoryBarrierARM-tensor-09756",
            "queue family indices {} / {} are neither VK_QUEUE_FAMILY_IGNORED nor a queue family",
            b.srcQueueFamilyIndex,
            b.dstQueueFamilyIndex
        );
    }
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPhysicalDeviceExternalTensorPropertiesARM(
    physicalDevice: VkPhysicalDevice,
    pExternalTensorInfo: *const VkPhysicalDeviceExternalTensorInfoARM,
    pExternalTensorProperties: *mut VkExternalTensorPropertiesARM,
) {
    boundary::void("vkGetPhysicalDeviceExternalTensorPropertiesARM", || {
        handle::get::<PhysicalDevice>(physicalDevice.raw())?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pExternalTensorInfo, "pExternalTensorInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_TENSOR_INFO_ARM,
            "VUID-VkPhysicalDeviceExternalTensorInfoARM-sType-sType",
        )?;
        // SAFETY: valid per the spec.
        let props = unsafe { deref_mut(pExternalTensorProperties, "pExternalTensorProperties")? };
        check_stype(
            props.sType,
            VK_STRUCTURE_TYPE_EXTERNAL_TENSOR_PROPERTIES_ARM,
            "VUID-VkExternalTensorPropertiesARM-sType-sType",
        )?;
        // No external memory handle type can be exported or imported for tensors.
        props.externalMemoryProperties = VkExternalMemoryProperties {
            externalMemoryFeatures: 0,
            exportFromImportedHandleTypes: 0,
            compatibleHandleTypes: 0,
        };
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetTensorOpaqueCaptureDescriptorDataARM(
    device: VkDevice,
    _pInfo: *const VkTensorCaptureDescriptorDataInfoARM,
    _pData: *mut c_void,
) -> VkResult {
    boundary::result("vkGetTensorOpaqueCaptureDescriptorDataARM", || {
        self::device(device)?;
        Err(Error::invalid(
            "VUID-vkGetTensorOpaqueCaptureDescriptorDataARM-descriptorBufferCaptureReplay-09702",
            "descriptorBufferCaptureReplay and descriptorBufferTensorDescriptors are not supported (no VK_EXT_descriptor_buffer)",
        ))
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetTensorViewOpaqueCaptureDescriptorDataARM(
    device: VkDevice,
    _pInfo: *const VkTensorViewCaptureDescriptorDataInfoARM,
    _pData: *mut c_void,
) -> VkResult {
    boundary::result("vkGetTensorViewOpaqueCaptureDescriptorDataARM", || {
        self::device(device)?;
        Err(Error::invalid(
            "VUID-vkGetTensorViewOpaqueCaptureDescriptorDataARM-descriptorBufferCaptureReplay-09706",
            "descriptorBufferCaptureReplay and descriptorBufferTensorDescriptors are not supported (no VK_EXT_descriptor_buffer)",
        ))
    })
}

/// Handles `VkMemoryDedicatedAllocateInfoTensorARM` at allocation: the size must be the tensor's
/// and the memory records which tensor it is dedicated to.
///
/// # Safety
/// `p_next` must be the valid chain of a `VkMemoryAllocateInfo`.
pub unsafe fn dedicated_tensor(
    p_next: *const c_void,
    allocation_size: u64,
) -> Result<Option<usize>> {
    // SAFETY: caller contract.
    let Some(info) = (unsafe {
        find::<VkMemoryDedicatedAllocateInfoTensorARM>(
            p_next,
            VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO_TENSOR_ARM,
        )
    }) else {
        return Ok(None);
    };
    let t = tensor(info.tensor)?;
    let size = t.requirements().size;
    ensure!(
        allocation_size == size,
        "VUID-VkMemoryDedicatedAllocateInfoTensorARM-allocationSize-09710",
        "allocationSize {allocation_size} differs from the tensor's memory requirement {size}"
    );
    Ok(Some(Arc::as_ptr(&t) as usize))
}
