//! `VK_NV_cooperative_vector` and `VK_KHR_cooperative_matrix`: the property lists and the
//! matrix conversions (the rules and the arithmetic are the runtime's,
//! [`tessera_runtime::cooperative`]).

use std::sync::Arc;

use tessera_runtime::cmd::{Command, Recorder};
use tessera_runtime::cooperative::{self, Conversion, DeviceConversion};
use tessera_runtime::device::Device;
use tessera_runtime::physical_device::PhysicalDevice;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{deref_mut, enumerate};
use crate::generated::write as w;

pub(crate) unsafe fn get_physical_device_cooperative_vector_properties_nv(
    _pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkCooperativeVectorPropertiesNV,
) -> Result<VkResult> {
    let list = cooperative::vector_properties();
    // SAFETY: the two-call contract of the spec; each element is a valid struct whose sType and
    // pNext are kept.
    unsafe {
        enumerate(count, out, list.len(), |i, slot| {
            w::write_cooperative_vector_properties_nv(slot, &list[i])
        })
    }
}

/// Whether `[a, a + a_len)` and `[b, b + b_len)` share a byte.
fn overlaps(a: usize, a_len: usize, b: usize, b_len: usize) -> bool {
    a < b.saturating_add(b_len) && b < a.saturating_add(a_len) && a_len > 0 && b_len > 0
}

pub(crate) unsafe fn convert_cooperative_vector_matrix_nv(
    _device: Arc<Device>,
    info: vk::ConvertCooperativeVectorMatrixInfoNV,
) -> Result<VkResult> {
    // SAFETY: pDstSize must point to a size_t (VUID-VkConvertCooperativeVectorMatrixInfoNV-pDstSize-parameter).
    let dst_size = unsafe { deref_mut(info.dst_size as *mut usize, "pDstSize")? };
    if info.dst_data == 0 {
        *dst_size = Conversion::for_size_query(&info)?.dst_size();
        return Ok(VK_SUCCESS);
    }
    let conversion = Conversion::new(&info)?;
    let needed = conversion.dst_size();
    ensure!(
        info.src_data != 0,
        "VUID-vkConvertCooperativeVectorMatrixNV-pInfo-10073",
        "srcData.hostAddress is NULL but dstData.hostAddress is not"
    );
    if *dst_size < needed {
        // "no bytes will be written, and VK_INCOMPLETE will be returned"
        return Ok(VK_INCOMPLETE);
    }
    conversion.check_src_size("VUID-vkConvertCooperativeVectorMatrixNV-pInfo-10074")?;
    let (src, dst) = (info.src_data as usize, info.dst_data as usize);
    let src_len = conversion.src.footprint();
    ensure!(
        !overlaps(src, src_len, dst, needed),
        "VUID-vkConvertCooperativeVectorMatrixNV-pInfo-10076",
        "the source and destination memory overlap"
    );
    // SAFETY: the application's host memory: srcData holds srcSize bytes (at least the
    // footprint, checked above) and dstData holds *pDstSize bytes (at least `needed`); the two
    // ranges do not overlap (checked above), and the spec gives the command sole access to
    // them for the call.
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts(src as *const u8, src_len),
            std::slice::from_raw_parts_mut(dst as *mut u8, needed),
        )
    };
    conversion.run(src, dst);
    *dst_size = needed;
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn cmd_convert_cooperative_vector_matrix_nv(
    rec: &mut Recorder,
    infos: Vec<vk::ConvertCooperativeVectorMatrixInfoNV>,
) -> Result<()> {
    let mut list = Vec::with_capacity(infos.len());
    for info in &infos {
        let conversion = Conversion::new(info)?;
        if info.dst_size == 0 {
            return Err(Error::invalid(
                "VUID-VkConvertCooperativeVectorMatrixInfoNV-pDstSize-parameter",
                "pDstSize is NULL",
            ));
        }
        // SAFETY: pDstSize points to a size_t (checked non-null; the implicit valid usage).
        let capacity = unsafe { *(info.dst_size as *const usize) };
        list.push(DeviceConversion {
            conversion,
            src: info.src_data,
            dst: info.dst_data,
            dst_capacity: capacity,
        });
    }
    cooperative::check_device_conversions(&list)?;
    rec.push(Command::ConvertCooperativeVectorMatrix {
        conversions: list.into_boxed_slice(),
    });
    Ok(())
}

pub(crate) unsafe fn get_physical_device_cooperative_matrix_properties_khr(
    _pd: Arc<PhysicalDevice>,
    count: *mut u32,
    out: *mut VkCooperativeMatrixPropertiesKHR,
) -> Result<VkResult> {
    let list = cooperative::matrix_properties();
    // SAFETY: the two-call contract of the spec; each element is a valid struct whose sType and
    // pNext are kept.
    unsafe {
        enumerate(count, out, list.len(), |i, slot| {
            w::write_cooperative_matrix_properties_khr(slot, &list[i])
        })
    }
}
