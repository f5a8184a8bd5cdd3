//! Client side of `VK_NV_cooperative_vector`: matrix conversion on the host through the loader
//! (`vkConvertCooperativeVectorMatrixNV`, with its size query), for tests and benches.

use crate::vulkanalia::prelude::v1_3::*;
use crate::vulkanalia::vk::NvCooperativeVectorExtensionDeviceCommands;

/// One matrix's shape, types and layouts for [`convert_matrix`].
#[derive(Debug, Clone, Copy)]
pub struct MatrixConversion {
    pub rows: u32,
    pub cols: u32,
    pub src_type: vk::ComponentTypeKHR,
    pub dst_type: vk::ComponentTypeKHR,
    pub src_layout: vk::CooperativeVectorMatrixLayoutNV,
    pub src_stride: usize,
    pub dst_layout: vk::CooperativeVectorMatrixLayoutNV,
    pub dst_stride: usize,
}

fn info(
    c: &MatrixConversion,
    src: &[u8],
    dst: *mut u8,
    dst_size: &mut usize,
) -> vk::ConvertCooperativeVectorMatrixInfoNV {
    vk::ConvertCooperativeVectorMatrixInfoNV {
        src_size: src.len(),
        src_data: vk::DeviceOrHostAddressConstKHR {
            host_address: src.as_ptr().cast(),
        },
        dst_size,
        dst_data: vk::DeviceOrHostAddressKHR {
            host_address: dst.cast(),
        },
        src_component_type: c.src_type,
        dst_component_type: c.dst_type,
        num_rows: c.rows,
        num_columns: c.cols,
        src_layout: c.src_layout,
        src_stride: c.src_stride,
        dst_layout: c.dst_layout,
        dst_stride: c.dst_stride,
        ..Default::default()
    }
}

/// The bytes the converted matrix takes (the size query: `dstData` NULL).
pub fn converted_size(device: &Device, c: &MatrixConversion) -> Result<usize, vk::ErrorCode> {
    let mut size = 0usize;
    let query = info(c, &[], std::ptr::null_mut(), &mut size);
    // SAFETY: a valid info; the size query reads no matrix.
    unsafe { device.convert_cooperative_vector_matrix_nv(&query) }?;
    Ok(size)
}

/// Converts `src` on the host: the converted matrix, `converted_size` bytes.
pub fn convert_matrix(
    device: &Device,
    c: &MatrixConversion,
    src: &[u8],
) -> Result<Vec<u8>, vk::ErrorCode> {
    let mut size = converted_size(device, c)?;
    let mut out = vec![0u8; size];
    let run = info(c, src, out.as_mut_ptr(), &mut size);
    // SAFETY: `src` and `out` are live, `out` holds `size` bytes.
    unsafe { device.convert_cooperative_vector_matrix_nv(&run) }?;
    out.truncate(size);
    Ok(out)
}
