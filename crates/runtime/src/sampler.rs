//! Samplers: validated `VkSamplerCreateInfo` values. Tessera has no images, so nothing ever samples
//! through one; samplers exist so that applications (and the CTS) that create them work, and a
//! shader that uses one is still rejected at pipeline creation.

use vulkan_headers::vulkan::vulkan_core::*;

use crate::limits::MAX_SAMPLER_LOD_BIAS;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The parameters of a sampler that the rules below look at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerDesc {
    pub mag_filter: i32,
    pub min_filter: i32,
    /// `VK_SAMPLER_MIPMAP_MODE_NEAREST` is 0.
    pub mipmap_mode: i32,
    pub address_modes: [i32; 3],
    pub mip_lod_bias: f32,
    pub anisotropy: bool,
    pub compare: bool,
    pub min_lod: f32,
    pub max_lod: f32,
    pub unnormalized: bool,
    /// `VkSamplerReductionModeCreateInfo::reductionMode`, if chained (0 = weighted average).
    pub reduction_mode: Option<i32>,
}

/// A created sampler.
#[derive(Debug)]
pub struct Sampler {
    pub desc: SamplerDesc,
}

const MIRROR_CLAMP_TO_EDGE: i32 = VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;

const CLAMP_MODES: [i32; 2] = [
    VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
];

impl Sampler {
    /// `vkCreateSampler`.
    ///
    /// # Errors
    /// `NotSupported` for a Y′CbCr conversion (the feature is off); `Validation` naming the VUID
    /// broken otherwise.
    pub fn create(info: &vk::SamplerCreateInfo) -> Result<Sampler> {
        if info.sampler_ycbcr_conversion_info.is_some() {
            return Err(Error::NotSupported(
                "sampler Y'CbCr conversions (the samplerYcbcrConversion feature is off)".into(),
            ));
        }
        ensure!(
            info.flags == 0,
            "VUID-VkSamplerCreateInfo-flags-parameter",
            "sampler flags {:#x} need extensions Tessera does not have",
            info.flags
        );
        Sampler::new(SamplerDesc {
            mag_filter: info.mag_filter,
            min_filter: info.min_filter,
            mipmap_mode: info.mipmap_mode,
            address_modes: [
                info.address_mode_u,
                info.address_mode_v,
                info.address_mode_w,
            ],
            mip_lod_bias: info.mip_lod_bias,
            anisotropy: info.anisotropy_enable,
            compare: info.compare_enable,
            min_lod: info.min_lod,
            max_lod: info.max_lod,
            unnormalized: info.unnormalized_coordinates,
            reduction_mode: info
                .sampler_reduction_mode_create_info
                .as_ref()
                .map(|r| r.reduction_mode),
        })
    }

    /// Checks the `VkSamplerCreateInfo` rules that apply to this device.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn new(desc: SamplerDesc) -> Result<Sampler> {
        // NaNs fail both checks.
        let bias_ok = desc.mip_lod_bias.abs() <= MAX_SAMPLER_LOD_BIAS;
        let lods_ok = desc.max_lod >= desc.min_lod;
        ensure!(
            bias_ok,
            "VUID-VkSamplerCreateInfo-mipLodBias-01069",
            "|mipLodBias| {} exceeds maxSamplerLodBias {MAX_SAMPLER_LOD_BIAS}",
            desc.mip_lod_bias
        );
        ensure!(
            !desc.anisotropy,
            "VUID-VkSamplerCreateInfo-anisotropyEnable-01070",
            "anisotropyEnable needs the samplerAnisotropy feature, which Tessera does not have"
        );
        ensure!(
            !desc.address_modes.contains(&MIRROR_CLAMP_TO_EDGE),
            "VUID-VkSamplerCreateInfo-addressModeU-01079",
            "MIRROR_CLAMP_TO_EDGE needs the samplerMirrorClampToEdge feature, which Tessera does not have"
        );
        ensure!(
            desc.reduction_mode.is_none_or(|m| m == 0),
            "VUID-VkSamplerCreateInfo-pNext-06726",
            "a min/max reduction mode needs the samplerFilterMinmax feature, which Tessera does not have"
        );
        ensure!(
            lods_ok,
            "VUID-VkSamplerCreateInfo-maxLod-01973",
            "maxLod {} is less than minLod {}",
            desc.max_lod,
            desc.min_lod
        );
        if desc.unnormalized {
            ensure!(
                desc.min_filter == desc.mag_filter,
                "VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01072",
                "unnormalizedCoordinates needs minFilter == magFilter"
            );
            ensure!(
                desc.mipmap_mode == 0,
                "VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01073",
                "unnormalizedCoordinates needs mipmapMode NEAREST"
            );
            ensure!(
                desc.min_lod == 0.0 && desc.max_lod == 0.0,
                "VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01074",
                "unnormalizedCoordinates needs minLod and maxLod 0"
            );
            ensure!(
                desc.address_modes[..2]
                    .iter()
                    .all(|m| CLAMP_MODES.contains(m)),
                "VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01075",
                "unnormalizedCoordinates needs clamp-to-edge or clamp-to-border U and V addressing"
            );
            ensure!(
                !desc.compare,
                "VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01077",
                "unnormalizedCoordinates excludes compareEnable"
            );
        }
        Ok(Sampler { desc })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc() -> SamplerDesc {
        SamplerDesc {
            mag_filter: 0,
            min_filter: 0,
            mipmap_mode: 0,
            address_modes: [0; 3],
            mip_lod_bias: 0.0,
            anisotropy: false,
            compare: false,
            min_lod: 0.0,
            max_lod: 1000.0,
            unnormalized: false,
            reduction_mode: None,
        }
    }

    #[test]
    fn rules() {
        assert!(Sampler::new(desc()).is_ok());
        for bad in [
            SamplerDesc {
                mip_lod_bias: 100.0,
                ..desc()
            },
            SamplerDesc {
                anisotropy: true,
                ..desc()
            },
            SamplerDesc {
                min_lod: 2.0,
                max_lod: 1.0,
                ..desc()
            },
            SamplerDesc {
                unnormalized: true,
                ..desc()
            },
            SamplerDesc {
                address_modes: [0, 4, 0],
                ..desc()
            },
            SamplerDesc {
                reduction_mode: Some(1),
                ..desc()
            },
        ] {
            assert!(Sampler::new(bad).is_err(), "{bad:?}");
        }
        let unnormalized = SamplerDesc {
            unnormalized: true,
            max_lod: 0.0,
            address_modes: [2, 3, 0],
            ..desc()
        };
        assert!(Sampler::new(unnormalized).is_ok());
    }
}
