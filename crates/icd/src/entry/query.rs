//! Query pools: timestamps (and occlusion pools, which a compute queue cannot use). The rules are
//! the runtime's ([`tessera_runtime::query`]).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::device::Device;
use tessera_runtime::query::QueryPool;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::write_handle;
use crate::handle;

pub(crate) unsafe fn create_query_pool(
    _device: Arc<Device>,
    info: vk::QueryPoolCreateInfo,
    out: *mut VkQueryPool,
) -> Result<VkResult> {
    let pool = Arc::new(QueryPool::create(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pQueryPool", handle::insert(pool))? };
    Ok(VK_SUCCESS)
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn get_query_pool_results(
    device: Arc<Device>,
    pool: Arc<QueryPool>,
    first: u32,
    count: u32,
    data_size: usize,
    data: *mut c_void,
    stride: VkDeviceSize,
    flags: VkQueryResultFlags,
) -> Result<VkResult> {
    ensure!(
        !data.is_null() || data_size == 0,
        "VUID-vkGetQueryPoolResults-pData-parameter",
        "pData is NULL"
    );
    let out: &mut [u8] = if data_size == 0 {
        &mut []
    } else {
        // SAFETY: non-null (checked) with `dataSize` writable bytes per the spec.
        unsafe { std::slice::from_raw_parts_mut(data.cast::<u8>(), data_size) }
    };
    let all = pool.results(
        device.hub(),
        first,
        count,
        stride,
        flags,
        data as usize,
        out,
    )?;
    Ok(if all { VK_SUCCESS } else { VK_NOT_READY })
}

pub(crate) fn reset_query_pool(
    _device: Arc<Device>,
    pool: Arc<QueryPool>,
    first: u32,
    count: u32,
) -> Result<()> {
    pool.host_reset(first, count)
}
