//! Query pools: timestamps (and occlusion pools, which a compute queue cannot use).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::query::{QueryKind, QueryPool, ResultFlags};
use tessera_runtime::sync::WaitOutcome;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, write};
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for QueryPool {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_QUERY_POOL;
    const NAME: &'static str = "VkQueryPool";
}

/// Looks up a query pool handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn query_pool(pool: VkQueryPool) -> Result<Arc<QueryPool>> {
    handle::get::<QueryPool>(pool.raw())
}

/// Decodes `VkQueryResultFlags`.
///
/// # Errors
/// `Validation` for unknown bits.
pub fn result_flags(flags: VkQueryResultFlags) -> Result<ResultFlags> {
    let known = VK_QUERY_RESULT_64_BIT
        | VK_QUERY_RESULT_WAIT_BIT
        | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT
        | VK_QUERY_RESULT_PARTIAL_BIT;
    ensure!(
        flags & !known == 0,
        "VUID-vkGetQueryPoolResults-flags-parameter",
        "unsupported query result flags {:#x}",
        flags & !known
    );
    Ok(ResultFlags {
        wide: flags & VK_QUERY_RESULT_64_BIT != 0,
        wait: flags & VK_QUERY_RESULT_WAIT_BIT != 0,
        with_availability: flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT != 0,
        partial: flags & VK_QUERY_RESULT_PARTIAL_BIT != 0,
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateQueryPool(
    device: VkDevice,
    pCreateInfo: *const VkQueryPoolCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pQueryPool: *mut VkQueryPool,
) -> VkResult {
    boundary::result("vkCreateQueryPool", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            "VUID-VkQueryPoolCreateInfo-sType-sType",
        )?;
        let kind = match info.queryType {
            VK_QUERY_TYPE_TIMESTAMP => QueryKind::Timestamp,
            VK_QUERY_TYPE_OCCLUSION => QueryKind::Occlusion,
            VK_QUERY_TYPE_PIPELINE_STATISTICS => {
                return Err(Error::invalid(
                    "VUID-VkQueryPoolCreateInfo-queryType-00791",
                    "pipelineStatisticsQuery is not supported",
                ));
            }
            other => {
                return Err(Error::invalid(
                    "VUID-VkQueryPoolCreateInfo-queryType-parameter",
                    format!("query type {other} needs an extension Tessera does not support"),
                ));
            }
        };
        let h = handle::insert(Arc::new(QueryPool::new(kind, info.queryCount)?));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pQueryPool, "pQueryPool", VkQueryPool::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyQueryPool(
    _device: VkDevice,
    queryPool: VkQueryPool,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyQueryPool", || {
        handle::remove::<QueryPool>(queryPool.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetQueryPoolResults(
    device: VkDevice,
    queryPool: VkQueryPool,
    firstQuery: u32,
    queryCount: u32,
    dataSize: usize,
    pData: *mut c_void,
    stride: VkDeviceSize,
    flags: VkQueryResultFlags,
) -> VkResult {
    boundary::result("vkGetQueryPoolResults", || {
        let dev = self::device(device)?;
        let pool = query_pool(queryPool)?;
        let flags = result_flags(flags)?;
        pool.check_range(
            firstQuery,
            queryCount,
            "VUID-vkGetQueryPoolResults-firstQuery-09436",
        )?;
        let word = if flags.wide { 8 } else { 4 };
        ensure!(
            stride % word == 0,
            "VUID-vkGetQueryPoolResults-flags-02828",
            "stride {stride} is not a multiple of {word}"
        );
        ensure!(
            (pData as usize) % word as usize == 0,
            "VUID-vkGetQueryPoolResults-flags-02828",
            "pData is not {word}-byte aligned"
        );
        if flags.wait {
            let ready = || (firstQuery..firstQuery + queryCount).all(|q| pool.is_available(q));
            if dev.rt.hub().wait_until(None, ready) == WaitOutcome::Shutdown {
                return Err(Error::DeviceLost(
                    "the device was destroyed during the wait".into(),
                ));
            }
        }
        ensure!(
            !pData.is_null() || dataSize == 0,
            "VUID-vkGetQueryPoolResults-pData-parameter",
            "pData is NULL"
        );
        let out: &mut [u8] = if dataSize == 0 {
            &mut []
        } else {
            // SAFETY: non-null (checked) with `dataSize` writable bytes per the spec.
            unsafe { std::slice::from_raw_parts_mut(pData.cast::<u8>(), dataSize) }
        };
        let all = pool.write_results(firstQuery, queryCount, stride, flags, out)?;
        Ok(if all { VK_SUCCESS } else { VK_NOT_READY })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetQueryPool(
    device: VkDevice,
    queryPool: VkQueryPool,
    firstQuery: u32,
    queryCount: u32,
) {
    boundary::void("vkResetQueryPool", || {
        self::device(device)?;
        let pool = query_pool(queryPool)?;
        pool.check_range(
            firstQuery,
            queryCount,
            "VUID-vkResetQueryPool-firstQuery-09436",
        )?;
        pool.reset(firstQuery, queryCount);
        Ok(())
    })
}
