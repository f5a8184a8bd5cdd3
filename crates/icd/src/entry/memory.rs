//! `VkDeviceMemory`: allocation, mapping, flush/invalidate (no-ops on coherent memory, but the
//! ranges are checked), commitment and opaque capture addresses.

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::memory::DeviceMemory;
use tessera_runtime::{Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, slice, write};
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for DeviceMemory {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DEVICE_MEMORY;
    const NAME: &'static str = "VkDeviceMemory";
}

/// Looks up a memory handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn memory(memory: VkDeviceMemory) -> Result<Arc<DeviceMemory>> {
    handle::get::<DeviceMemory>(memory.raw())
}

fn whole(size: VkDeviceSize) -> Option<u64> {
    (size != VK_WHOLE_SIZE).then_some(size)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkAllocateMemory(
    device: VkDevice,
    pAllocateInfo: *const VkMemoryAllocateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pMemory: *mut VkDeviceMemory,
) -> VkResult {
    boundary::result("vkAllocateMemory", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pAllocateInfo, "pAllocateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            "VUID-VkMemoryAllocateInfo-sType-sType",
        )?;
        // Chained VkMemoryAllocateFlagsInfo (device address), VkMemoryDedicatedAllocateInfo and
        // VkMemoryPriorityAllocateInfo need nothing special: every allocation can do all of it.
        // SAFETY: a valid chain per the spec.
        let dedicated =
            unsafe { crate::entry::tensor::dedicated_tensor(info.pNext, info.allocationSize)? };
        let mem = dev
            .rt
            .allocate_memory(info.allocationSize, info.memoryTypeIndex)?;
        if let Some(key) = dedicated {
            mem.set_dedicated_to(key);
        }
        let h = handle::insert(Arc::new(mem));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pMemory, "pMemory", VkDeviceMemory::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkFreeMemory(
    _device: VkDevice,
    memory: VkDeviceMemory,
    _pAllocator: *const VkAllocationCallbacks,
) {
    // Buffers still bound keep the allocation alive until they are destroyed.
    boundary::void("vkFreeMemory", || {
        handle::remove::<DeviceMemory>(memory.raw()).map(|_| ())
    })
}

fn map(
    memory: VkDeviceMemory,
    offset: u64,
    size: u64,
    pp_data: *mut *mut c_void,
) -> Result<VkResult> {
    let mem = self::memory(memory)?;
    let ptr = mem.map(offset, whole(size))?;
    // SAFETY: valid out pointer per the spec.
    unsafe { write(pp_data, "ppData", ptr.cast::<c_void>())? };
    Ok(VK_SUCCESS)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkMapMemory(
    device: VkDevice,
    memory: VkDeviceMemory,
    offset: VkDeviceSize,
    size: VkDeviceSize,
    flags: VkMemoryMapFlags,
    ppData: *mut *mut c_void,
) -> VkResult {
    boundary::result("vkMapMemory", || {
        self::device(device)?;
        ensure!(
            flags == 0,
            "VUID-vkMapMemory-flags-zerobitmask",
            "flags {flags:#x} must be 0"
        );
        map(memory, offset, size, ppData)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkMapMemory2(
    device: VkDevice,
    pMemoryMapInfo: *const VkMemoryMapInfo,
    ppData: *mut *mut c_void,
) -> VkResult {
    boundary::result("vkMapMemory2", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pMemoryMapInfo, "pMemoryMapInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_MEMORY_MAP_INFO,
            "VUID-VkMemoryMapInfo-sType-sType",
        )?;
        ensure!(
            info.flags == 0,
            "VUID-VkMemoryMapInfo-flags-09569",
            "flags {:#x}: no map flags are supported (VK_EXT_map_memory_placed is not)",
            info.flags
        );
        map(info.memory, info.offset, info.size, ppData)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkUnmapMemory(device: VkDevice, memory: VkDeviceMemory) {
    boundary::void("vkUnmapMemory", || {
        self::device(device)?;
        self::memory(memory)?.unmap()
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkUnmapMemory2(
    device: VkDevice,
    pMemoryUnmapInfo: *const VkMemoryUnmapInfo,
) -> VkResult {
    boundary::result("vkUnmapMemory2", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pMemoryUnmapInfo, "pMemoryUnmapInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_MEMORY_UNMAP_INFO,
            "VUID-VkMemoryUnmapInfo-sType-sType",
        )?;
        self::memory(info.memory)?.unmap()?;
        Ok(VK_SUCCESS)
    })
}

/// Checks flush/invalidate ranges: the memory must be mapped and each range inside the mapping.
fn check_ranges(ranges: &[VkMappedMemoryRange]) -> Result<()> {
    for r in ranges {
        check_stype(
            r.sType,
            VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
            "VUID-VkMappedMemoryRange-sType-sType",
        )?;
        let mem = self::memory(r.memory)?;
        let Some(mapped) = mem.mapped_range() else {
            return Err(tessera_runtime::Error::invalid(
                "VUID-VkMappedMemoryRange-memory-00684",
                "memory is not currently host mapped",
            ));
        };
        ensure!(
            r.offset >= mapped.offset,
            "VUID-VkMappedMemoryRange-size-00685",
            "range offset {} is before the mapped offset {}",
            r.offset,
            mapped.offset
        );
        if r.size != VK_WHOLE_SIZE {
            ensure!(
                r.offset
                    .checked_add(r.size)
                    .is_some_and(|end| end <= mapped.offset + mapped.size),
                "VUID-VkMappedMemoryRange-size-00685",
                "range [{}, +{}) exceeds the mapped range",
                r.offset,
                r.size
            );
        }
    }
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkFlushMappedMemoryRanges(
    device: VkDevice,
    memoryRangeCount: u32,
    pMemoryRanges: *const VkMappedMemoryRange,
) -> VkResult {
    boundary::result("vkFlushMappedMemoryRanges", || {
        self::device(device)?;
        // SAFETY: `memoryRangeCount` valid structs per the spec.
        check_ranges(unsafe { slice(pMemoryRanges, memoryRangeCount, "pMemoryRanges")? })?;
        // Host and device share one coherent memory: nothing to write back.
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkInvalidateMappedMemoryRanges(
    device: VkDevice,
    memoryRangeCount: u32,
    pMemoryRanges: *const VkMappedMemoryRange,
) -> VkResult {
    boundary::result("vkInvalidateMappedMemoryRanges", || {
        self::device(device)?;
        // SAFETY: `memoryRangeCount` valid structs per the spec.
        check_ranges(unsafe { slice(pMemoryRanges, memoryRangeCount, "pMemoryRanges")? })?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceMemoryCommitment(
    device: VkDevice,
    memory: VkDeviceMemory,
    pCommittedMemoryInBytes: *mut VkDeviceSize,
) {
    boundary::void("vkGetDeviceMemoryCommitment", || {
        self::device(device)?;
        let size = self::memory(memory)?.size();
        // VUID-vkGetDeviceMemoryCommitment-memory-00690 asks for a LAZILY_ALLOCATED memory type,
        // which Tessera does not have; every byte of an allocation is committed, so say so.
        tracing::debug!(
            "vkGetDeviceMemoryCommitment on memory that is not lazily allocated: {size} bytes"
        );
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pCommittedMemoryInBytes, "pCommittedMemoryInBytes", size) }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDeviceMemoryOpaqueCaptureAddress(
    device: VkDevice,
    pInfo: *const VkDeviceMemoryOpaqueCaptureAddressInfo,
) -> u64 {
    boundary::value("vkGetDeviceMemoryOpaqueCaptureAddress", 0, || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pInfo, "pInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DEVICE_MEMORY_OPAQUE_CAPTURE_ADDRESS_INFO,
            "VUID-VkDeviceMemoryOpaqueCaptureAddressInfo-sType-sType",
        )?;
        self::memory(info.memory)?;
        // bufferDeviceAddressCaptureReplay is not supported: no address can be replayed.
        Ok(0)
    })
}
