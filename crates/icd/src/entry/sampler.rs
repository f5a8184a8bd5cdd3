//! Samplers (`vkCreateSampler`): validated objects with nothing to sample (see
//! [`tessera_runtime::sampler`]).

use std::sync::Arc;

use tessera_runtime::Result;
use tessera_runtime::device::Device;
use tessera_runtime::sampler::Sampler;
use tessera_runtime::vk::structs as vk;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::write_handle;
use crate::handle;

pub(crate) unsafe fn create_sampler(
    _device: Arc<Device>,
    info: vk::SamplerCreateInfo,
    out: *mut VkSampler,
) -> Result<VkResult> {
    let sampler = Arc::new(Sampler::create(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pSampler", handle::insert(sampler))? };
    Ok(VK_SUCCESS)
}
