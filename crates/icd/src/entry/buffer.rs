//! `VkBuffer`: creation, memory requirements (1, 2 and device variants), binding (1 and 2) and
//! device addresses.

use std::sync::Arc;

use tessera_runtime::buffer::{Buffer, MemoryRequirements};
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::caps::ALL_MEMORY_TYPES;
use crate::conv::{chain_mut, check_stype, deref, deref_mut, find, slice, write};
use crate::entry::device::device;
use crate::entry::memory::memory;
use crate::handle::{self, Object, RawHandle};

impl Object for Buffer {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_BUFFER;
    const NAME: &'static str = "VkBuffer";
}

/// Looks up a buffer handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn buffer(buffer: VkBuffer) -> Result<Arc<Buffer>> {
    handle::get::<Buffer>(buffer.raw())
}

/// Validates a `VkBufferCreateInfo` and returns `(size, usage)`.
///
/// # Safety
/// `info` must be valid per the spec (its chain and queue family array too).
unsafe fn read_create_info(info: &VkBufferCreateInfo) -> Result<(u64, u64)> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        "VUID-VkBufferCreateInfo-sType-sType",
    )?;
    let sparse = VK_BUFFER_CREATE_SPARSE_BINDING_BIT
        | VK_BUFFER_CREATE_SPARSE_RESIDENCY_BIT
        | VK_BUFFER_CREATE_SPARSE_ALIASED_BIT;
    ensure!(
        info.flags & sparse == 0,
        "VUID-VkBufferCreateInfo-flags-00915",
        "sparse buffers are not supported (sparseBinding is VK_FALSE)"
    );
    ensure!(
        info.flags & VK_BUFFER_CREATE_PROTECTED_BIT == 0,
        "VUID-VkBufferCreateInfo-flags-01887",
        "protected memory is not supported"
    );
    if info.sharingMode == VK_SHARING_MODE_CONCURRENT {
        // SAFETY: `queueFamilyIndexCount` indices per the spec.
        let families = unsafe {
            slice(
                info.pQueueFamilyIndices,
                info.queueFamilyIndexCount,
                "pQueueFamilyIndices",
            )?
        };
        ensure!(
            families.iter().all(|f| *f == 0),
            "VUID-VkBufferCreateInfo-sharingMode-01419",
            "pQueueFamilyIndices names a queue family that does not exist"
        );
    }
    // SAFETY: a valid chain per the spec.
    let usage2 = unsafe {
        find::<VkBufferUsageFlags2CreateInfo>(
            info.pNext,
            VK_STRUCTURE_TYPE_BUFFER_USAGE_FLAGS_2_CREATE_INFO,
        )
    };
    let usage = usage2.map_or(u64::from(info.usage), |u| u.usage);
    Ok((info.size, usage))
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateBuffer(
    device: VkDevice,
    pCreateInfo: *const VkBufferCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pBuffer: *mut VkBuffer,
) -> VkResult {
    boundary::result("vkCreateBuffer", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let (size, usage) = unsafe { read_create_info(deref(pCreateInfo, "pCreateInfo")?)? };
        let h = handle::insert(Arc::new(Buffer::new(size, usage)?));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pBuffer, "pBuffer", VkBuffer::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyBuffer(
    _device: VkDevice,
    buffer: VkBuffer,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyBuffer", || {
        handle::remove::<Buffer>(buffer.raw()).map(|_| ())
    })
}

fn vk_requirements(req: MemoryRequirements) -> VkMemoryRequirements {
    VkMemoryRequirements {
        size: req.size,
        alignment: req.alignment,
        memoryTypeBits: ALL_MEMORY_TYPES,
    }
}

/// Writes requirements into a `VkMemoryRequirements2` and its chain.
///
/// # Safety
/// `out` must be a valid `VkMemoryRequirements2` with a valid output chain.
pub(crate) unsafe fn write_requirements2(
    out: *mut VkMemoryRequirements2,
    req: MemoryRequirements,
) -> Result<()> {
    // SAFETY: caller contract.
    let out = unsafe { deref_mut(out, "pMemoryRequirements")? };
    check_stype(
        out.sType,
        VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
        "VUID-VkMemoryRequirements2-sType-sType",
    )?;
    out.memoryRequirements = vk_requirements(req);
    // SAFETY: caller contract.
    for (stype, p) in unsafe { chain_mut(out.pNext) } {
        if stype == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS {
            // SAFETY: the sType names a VkMemoryDedicatedRequirements.
            let d = unsafe { &mut *p.cast::<VkMemoryDedicatedRequirements>() };
            d.prefersDedicatedAllocation = VK_FALSE;
            d.requiresDedicatedAllocation = VK_FALSE;
        }
    }
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetBufferMemoryRequirements(
    device: VkDevice,
    buffer: VkBuffer,
    pMemoryRequirements: *mut VkMemoryRequirements,
) {
    boundary::void("vkGetBufferMemoryRequirements", || {
        self::device(device)?;
        let req = self::buffer(buffer)?.requirements();
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pMemoryRequirements,
                "pMemoryRequirements",
                vk_requirements(req),
            )
        }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetBufferMemoryRequirements2(
    device: VkDevice,
    pInfo: *const VkBufferMemoryRequirementsInfo2,
    pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    boundary::void("vkGetBufferMemoryRequirements2", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2,
            "VUID-VkBufferMemoryRequirementsInfo2-sType-sType",
        )?;
        let req = self::buffer(info.buffer)?.requirements();
        // SAFETY: valid per the spec.
        unsafe { write_requirements2(pMemoryRequirements, req) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceBufferMemoryRequirements(
    device: VkDevice,
    pInfo: *const VkDeviceBufferMemoryRequirements,
    pMemoryRequirements: *mut VkMemoryRequirements2,
) {
    boundary::void("vkGetDeviceBufferMemoryRequirements", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS,
            "VUID-VkDeviceBufferMemoryRequirements-sType-sType",
        )?;
        // SAFETY: valid per the spec.
        let (size, usage) = unsafe { read_create_info(deref(info.pCreateInfo, "pCreateInfo")?)? };
        Buffer::new(size, usage)?;
        // SAFETY: valid per the spec.
        unsafe { write_requirements2(pMemoryRequirements, Buffer::requirements_for(size)) }
    })
}

fn bind(buffer: VkBuffer, memory: VkDeviceMemory, offset: u64) -> Result<()> {
    self::buffer(buffer)?.bind(self::memory(memory)?, offset)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkBindBufferMemory(
    device: VkDevice,
    buffer: VkBuffer,
    memory: VkDeviceMemory,
    memoryOffset: VkDeviceSize,
) -> VkResult {
    boundary::result("vkBindBufferMemory", || {
        self::device(device)?;
        bind(buffer, memory, memoryOffset)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkBindBufferMemory2(
    device: VkDevice,
    bindInfoCount: u32,
    pBindInfos: *const VkBindBufferMemoryInfo,
) -> VkResult {
    boundary::result("vkBindBufferMemory2", || {
        self::device(device)?;
        // SAFETY: `bindInfoCount` valid structs per the spec.
        let infos = unsafe { slice(pBindInfos, bindInfoCount, "pBindInfos")? };
        let mut first_error: Option<Error> = None;
        for info in infos {
            let result = check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO,
                "VUID-VkBindBufferMemoryInfo-sType-sType",
            )
            .and_then(|()| bind(info.buffer, info.memory, info.memoryOffset));
            // SAFETY: a valid chain per the spec.
            let status = unsafe {
                find::<VkBindMemoryStatus>(info.pNext, VK_STRUCTURE_TYPE_BIND_MEMORY_STATUS)
            };
            if let Some(status) = status
                && !status.pResult.is_null()
            {
                let code = result
                    .as_ref()
                    .map_or_else(boundary::vk_result, |()| VK_SUCCESS);
                // SAFETY: pResult is a valid VkResult pointer per the spec.
                unsafe { status.pResult.write(code) };
            }
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(VK_SUCCESS),
        }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetBufferDeviceAddress(
    device: VkDevice,
    pInfo: *const VkBufferDeviceAddressInfo,
) -> VkDeviceAddress {
    boundary::value("vkGetBufferDeviceAddress", 0, || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
            "VUID-VkBufferDeviceAddressInfo-sType-sType",
        )?;
        self::buffer(info.buffer)?.device_address()
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetBufferOpaqueCaptureAddress(
    device: VkDevice,
    pInfo: *const VkBufferDeviceAddressInfo,
) -> u64 {
    boundary::value("vkGetBufferOpaqueCaptureAddress", 0, || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        self::buffer(info.buffer)?;
        // bufferDeviceAddressCaptureReplay is not supported.
        Ok(0)
    })
}
