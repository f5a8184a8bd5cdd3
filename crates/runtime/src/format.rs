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

macro_rules! formats {
    ($($name:ident = $vk:expr, $size:expr;)*) => {
        /// Every tensor format, in `VkFormat` order.
        pub const TENSOR_FORMATS: &[TensorFormat] = &[
            $(TensorFormat { vk: $vk, name: stringify!($name), size: $size },)*
        ];
    };
}

formats! {
    R8_UNORM = 9, 1;
    R8_SNORM = 10, 1;
    R8_USCALED = 11, 1;
    R8_SSCALED = 12, 1;
    R8_UINT = 13, 1;
    R8_SINT = 14, 1;
    R16_UNORM = 70, 2;
    R16_SNORM = 71, 2;
    R16_USCALED = 72, 2;
    R16_SSCALED = 73, 2;
    R16_UINT = 74, 2;
    R16_SINT = 75, 2;
    R16_SFLOAT = 76, 2;
    R32_UINT = 98, 4;
    R32_SINT = 99, 4;
    R32_SFLOAT = 100, 4;
    R64_UINT = 110, 8;
    R64_SINT = 111, 8;
    R64_SFLOAT = 112, 8;
    R8_BOOL_ARM = 1_000_460_000, 1;
    R16_SFLOAT_FPENCODING_BFLOAT16_ARM = 1_000_460_001, 2;
    R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM = 1_000_460_002, 1;
    R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM = 1_000_460_003, 1;
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
        let u8f = tensor_format(13).unwrap();
        let bool8 = tensor_format(1_000_460_000).unwrap();
        let f32f = tensor_format(100).unwrap();
        assert_eq!(u8f.name, "R8_UINT");
        assert!(u8f.compatible(bool8));
        assert!(!u8f.compatible(f32f));
        assert!(
            tensor_format(37).is_none(),
            "R8G8B8A8_UNORM is not a tensor format"
        );
        assert!(tensor_format(0).is_none());
    }
}
