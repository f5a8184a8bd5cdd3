//! Samplers (`vkCreateSampler`, `vkDestroySampler`): validated objects with nothing to sample
//! (see `tessera_runtime::sampler`).

use std::sync::Arc;

use tessera_runtime::sampler::{Sampler, SamplerDesc};
use tessera_runtime::{Error, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, find, write};
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for Sampler {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_SAMPLER;
    const NAME: &'static str = "VkSampler";
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateSampler(
    device: VkDevice,
    pCreateInfo: *const VkSamplerCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pSampler: *mut VkSampler,
) -> VkResult {
    boundary::result("vkCreateSampler", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            "VUID-VkSamplerCreateInfo-sType-sType",
        )?;
        // SAFETY: a valid chain per the spec.
        let ycbcr = unsafe {
            find::<VkSamplerYcbcrConversionInfo>(
                info.pNext,
                VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO,
            )
        };
        if ycbcr.is_some() {
            return Err(Error::NotSupported(
                "sampler Y'CbCr conversions (the samplerYcbcrConversion feature is off)".into(),
            ));
        }
        // SAFETY: a valid chain per the spec.
        let reduction = unsafe {
            find::<VkSamplerReductionModeCreateInfo>(
                info.pNext,
                VK_STRUCTURE_TYPE_SAMPLER_REDUCTION_MODE_CREATE_INFO,
            )
        };
        ensure!(
            info.flags == 0,
            "VUID-VkSamplerCreateInfo-flags-parameter",
            "sampler flags {:#x} need extensions Tessera does not have",
            info.flags
        );
        let desc = SamplerDesc {
            mag_filter: info.magFilter,
            min_filter: info.minFilter,
            mipmap_mode: info.mipmapMode,
            address_modes: [info.addressModeU, info.addressModeV, info.addressModeW],
            mip_lod_bias: info.mipLodBias,
            anisotropy: info.anisotropyEnable != VK_FALSE,
            compare: info.compareEnable != VK_FALSE,
            min_lod: info.minLod,
            max_lod: info.maxLod,
            unnormalized: info.unnormalizedCoordinates != VK_FALSE,
            reduction_mode: reduction.map(|r| r.reductionMode),
        };
        let h = handle::insert(Arc::new(Sampler::new(desc)?));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pSampler, "pSampler", VkSampler::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroySampler(
    _device: VkDevice,
    sampler: VkSampler,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroySampler", || {
        handle::remove::<Sampler>(sampler.raw()).map(|_| ())
    })
}
