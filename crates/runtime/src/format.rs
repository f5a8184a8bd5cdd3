//! The tensor formats: element size, format-compatibility class and which accesses each supports.
//!
//! Only one-component formats are tensor formats. Formats in the same compatibility class have the
//! same element size; a mutable-format view may reinterpret a tensor as any format of its class.

/// A supported tensor format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorFormat {
    /// The `VkFormat` value.
    pub vk: i32,
    /// The `VK_FORMAT_*` name without the prefix.
    pub name: &'static str,
    /// Element size in bytes (also the compatibility class: 8, 16, 32 or 64 bits).
    pub size: u32,
}

impl TensorFormat {
    /// Whether views of one format may reinterpret the other (same compatibility class).
    pub fn compatible(&self, other: &TensorFormat) -> bool {
        self.size == other.size
    }
}

use vulkan_headers::vulkan::vulkan_core::*;

use crate::vk::abi::*;

macro_rules! formats {
    ($($name:ident = $vk:expr, $size:expr;)*) => {
        /// Every tensor format, in `VkFormat` order.
        pub const TENSOR_FORMATS: &[TensorFormat] = &[
            $(TensorFormat { vk: $vk, name: stringify!($name), size: $size },)*
        ];
    };
}

formats! {
    R8_UNORM = VK_FORMAT_R8_UNORM, 1;
    R8_SNORM = VK_FORMAT_R8_SNORM, 1;
    R8_USCALED = VK_FORMAT_R8_USCALED, 1;
    R8_SSCALED = VK_FORMAT_R8_SSCALED, 1;
    R8_UINT = VK_FORMAT_R8_UINT, 1;
    R8_SINT = VK_FORMAT_R8_SINT, 1;
    R16_UNORM = VK_FORMAT_R16_UNORM, 2;
    R16_SNORM = VK_FORMAT_R16_SNORM, 2;
    R16_USCALED = VK_FORMAT_R16_USCALED, 2;
    R16_SSCALED = VK_FORMAT_R16_SSCALED, 2;
    R16_UINT = VK_FORMAT_R16_UINT, 2;
    R16_SINT = VK_FORMAT_R16_SINT, 2;
    R16_SFLOAT = VK_FORMAT_R16_SFLOAT, 2;
    R32_UINT = VK_FORMAT_R32_UINT, 4;
    R32_SINT = VK_FORMAT_R32_SINT, 4;
    R32_SFLOAT = VK_FORMAT_R32_SFLOAT, 4;
    R64_UINT = VK_FORMAT_R64_UINT, 8;
    R64_SINT = VK_FORMAT_R64_SINT, 8;
    R64_SFLOAT = VK_FORMAT_R64_SFLOAT, 8;
    R8_BOOL_ARM = VK_FORMAT_R8_BOOL_ARM, 1;
    R16_SFLOAT_FPENCODING_BFLOAT16_ARM = VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM, 2;
    R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM = VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM, 1;
    R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM = VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM, 1;
}

/// The tensor format with `VkFormat` value `vk`, if it is one.
pub fn tensor_format(vk: i32) -> Option<&'static TensorFormat> {
    TENSOR_FORMATS.iter().find(|f| f.vk == vk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_classes() {
        let u8f = tensor_format(VK_FORMAT_R8_UINT).unwrap();
        let bool8 = tensor_format(VK_FORMAT_R8_BOOL_ARM).unwrap();
        let f32f = tensor_format(VK_FORMAT_R32_SFLOAT).unwrap();
        assert_eq!(u8f.name, "R8_UINT");
        assert!(u8f.compatible(bool8));
        assert!(!u8f.compatible(f32f));
        assert!(
            tensor_format(VK_FORMAT_R8G8B8A8_UNORM).is_none(),
            "R8G8B8A8_UNORM is not a tensor format"
        );
        assert!(tensor_format(VK_FORMAT_UNDEFINED).is_none());
    }
}
