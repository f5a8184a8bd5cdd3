//! `VK_ARM_tensors`: tensors, tensor views, their memory requirements and binding, the tensor
//! copy command, and descriptor capture data (the rules are the runtime's,
//! [`tessera_runtime::tensor`]).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::Result;
use tessera_runtime::cmd::Recorder;
use tessera_runtime::device::Device;
use tessera_runtime::tensor::{Tensor, TensorView, opaque_capture_descriptor_data};
use tessera_runtime::vk::structs as vk;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::write_handle;
use crate::entry::buffer::write_requirements2;
use crate::handle;

pub(crate) unsafe fn create_tensor_arm(
    device: Arc<Device>,
    info: vk::TensorCreateInfoARM,
    out: *mut VkTensorARM,
) -> Result<VkResult> {
    let tensor = Arc::new(Tensor::create(&device, &info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pTensor", handle::insert(tensor))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn create_tensor_view_arm(
    device: Arc<Device>,
    info: vk::TensorViewCreateInfoARM,
    out: *mut VkTensorViewARM,
) -> Result<VkResult> {
    let view = Arc::new(TensorView::create(&device, &info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pView", handle::insert(view))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_tensor_memory_requirements_arm(
    _device: Arc<Device>,
    info: vk::TensorMemoryRequirementsInfoARM,
    out: *mut VkMemoryRequirements2,
) -> Result<()> {
    // SAFETY: forwarded.
    unsafe { write_requirements2(out, info.tensor.requirements()) }
}

pub(crate) unsafe fn get_device_tensor_memory_requirements_arm(
    device: Arc<Device>,
    info: vk::DeviceTensorMemoryRequirementsARM,
    out: *mut VkMemoryRequirements2,
) -> Result<()> {
    let tensor = Tensor::describe(&device, &info.create_info)?;
    // SAFETY: forwarded.
    unsafe { write_requirements2(out, tensor.requirements()) }
}

pub(crate) fn bind_tensor_memory_arm(
    _device: Arc<Device>,
    infos: Vec<vk::BindTensorMemoryInfoARM>,
) -> Result<VkResult> {
    for info in infos {
        info.tensor.bind(info.memory, info.memory_offset)?;
    }
    Ok(VK_SUCCESS)
}

pub(crate) fn cmd_copy_tensor_arm(rec: &mut Recorder, info: vk::CopyTensorInfoARM) -> Result<()> {
    rec.copy_tensor(&info)
}

pub(crate) fn get_tensor_opaque_capture_descriptor_data_arm(
    _device: Arc<Device>,
    _info: vk::TensorCaptureDescriptorDataInfoARM,
    _data: *mut c_void,
) -> Result<VkResult> {
    opaque_capture_descriptor_data(false).map(|()| VK_SUCCESS)
}

pub(crate) fn get_tensor_view_opaque_capture_descriptor_data_arm(
    _device: Arc<Device>,
    _info: vk::TensorViewCaptureDescriptorDataInfoARM,
    _data: *mut c_void,
) -> Result<VkResult> {
    opaque_capture_descriptor_data(true).map(|()| VK_SUCCESS)
}
