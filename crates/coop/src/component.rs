//! Component types (`VkComponentTypeKHR`, SPIR-V's cooperative-vector `ComponentType`): their
//! values, sizes, and how a stored component reads as a number and a number is stored.
//!
//! Floats read as `f32` (every f16, bfloat16 and float8 value is exactly an f32); integers as
//! `i64`. Storing rounds to nearest even; f16, bfloat16 and E5M2 overflow to infinity, E4M3 (no
//! infinity) to NaN; integers are truncated to their width (the caller saturates first where a
//! rule says so).

use half::{bf16, f16};

use crate::float;

/// A component type, with `VkComponentTypeKHR`'s values (SPIR-V uses the same numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComponentType {
    Float16,
    Float32,
    Float64,
    SInt8,
    SInt16,
    SInt32,
    SInt64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    BFloat16,
    /// Four signed 8-bit integers in a `u32`, lowest byte first (an input interpretation only).
    SInt8Packed,
    /// Four unsigned 8-bit integers in a `u32`, lowest byte first (an input interpretation only).
    UInt8Packed,
    FloatE4M3,
    FloatE5M2,
}

/// Every component type, for tables and tests.
pub const ALL: [ComponentType; 16] = {
    use ComponentType::*;
    [
        Float16,
        Float32,
        Float64,
        SInt8,
        SInt16,
        SInt32,
        SInt64,
        UInt8,
        UInt16,
        UInt32,
        UInt64,
        BFloat16,
        SInt8Packed,
        UInt8Packed,
        FloatE4M3,
        FloatE5M2,
    ]
};

impl ComponentType {
    /// The type with Vulkan/SPIR-V value `value`.
    pub fn from_raw(value: u32) -> Option<ComponentType> {
        ALL.into_iter().find(|t| t.raw() == value)
    }

    /// The Vulkan/SPIR-V value.
    pub fn raw(self) -> u32 {
        use ComponentType::*;
        match self {
            Float16 => 0,
            Float32 => 1,
            Float64 => 2,
            SInt8 => 3,
            SInt16 => 4,
            SInt32 => 5,
            SInt64 => 6,
            UInt8 => 7,
            UInt16 => 8,
            UInt32 => 9,
            UInt64 => 10,
            BFloat16 => 1_000_141_000,
            SInt8Packed => 1_000_491_000,
            UInt8Packed => 1_000_491_001,
            FloatE4M3 => 1_000_491_002,
            FloatE5M2 => 1_000_491_003,
        }
    }

    /// Bytes of one stored component (a packed type: its `u32`).
    pub fn bytes(self) -> usize {
        use ComponentType::*;
        match self {
            SInt8 | UInt8 | FloatE4M3 | FloatE5M2 => 1,
            Float16 | BFloat16 | SInt16 | UInt16 => 2,
            Float32 | SInt32 | UInt32 | SInt8Packed | UInt8Packed => 4,
            Float64 | SInt64 | UInt64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        use ComponentType::*;
        matches!(
            self,
            Float16 | Float32 | Float64 | BFloat16 | FloatE4M3 | FloatE5M2
        )
    }

    pub fn is_signed_int(self) -> bool {
        use ComponentType::*;
        matches!(self, SInt8 | SInt16 | SInt32 | SInt64 | SInt8Packed)
    }

    pub fn is_packed(self) -> bool {
        matches!(
            self,
            ComponentType::SInt8Packed | ComponentType::UInt8Packed
        )
    }

    /// Floats narrower than 16 bits, or 16-bit ones other than binary16: what
    /// `vkConvertCooperativeVectorMatrixNV` converts to and from f32/f16.
    pub fn is_low_precision_float(self) -> bool {
        matches!(
            self,
            ComponentType::FloatE4M3 | ComponentType::FloatE5M2 | ComponentType::BFloat16
        )
    }

    /// The range of an integer type, as `(min, max)`.
    pub fn int_range(self) -> Option<(i64, i64)> {
        use ComponentType::*;
        Some(match self {
            SInt8 | SInt8Packed => (-128, 127),
            UInt8 | UInt8Packed => (0, 255),
            SInt16 => (-32768, 32767),
            UInt16 => (0, 65535),
            SInt32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
            UInt32 => (0, i64::from(u32::MAX)),
            SInt64 => (i64::MIN, i64::MAX),
            UInt64 => (0, i64::MAX),
            _ => return None,
        })
    }

    /// The float a stored float component holds (`bits` zero-extended). Not for integers.
    pub fn float_of(self, bits: u64) -> f64 {
        use ComponentType::*;
        match self {
            Float16 => f64::from(f16::from_bits(bits as u16).to_f32()),
            Float32 => f64::from(f32::from_bits(bits as u32)),
            BFloat16 => f64::from(bf16::from_bits(bits as u16).to_f32()),
            FloatE4M3 => float::fp8_decode(bits as u8, false),
            FloatE5M2 => float::fp8_decode(bits as u8, true),
            _ => f64::from_bits(bits),
        }
    }

    /// The bits of `value` rounded to this float type (see the module docs).
    pub fn float_bits(self, value: f64) -> u64 {
        use ComponentType::*;
        match self {
            Float16 => u64::from(float::f16_bits(value)),
            Float32 => u64::from((value as f32).to_bits()),
            BFloat16 => u64::from(float::bf16_bits(value)),
            FloatE4M3 => u64::from(float::fp8_encode(value, false)),
            FloatE5M2 => u64::from(float::fp8_encode(value, true)),
            _ => value.to_bits(),
        }
    }

    /// The integer a stored integer component holds (`bits` zero-extended). Not for floats.
    pub fn int_of(self, bits: u64) -> i64 {
        let width = 8 * self.bytes() as u32;
        if self.is_signed_int() && width < 64 {
            ((bits << (64 - width)) as i64) >> (64 - width)
        } else if width < 64 {
            (bits & ((1u64 << width) - 1)) as i64
        } else {
            bits as i64
        }
    }

    /// The low bits of `value` at this integer type's width.
    pub fn int_bits(self, value: i64) -> u64 {
        let width = 8 * self.bytes() as u32;
        if width < 64 {
            (value as u64) & ((1u64 << width) - 1)
        } else {
            value as u64
        }
    }

    /// Reads one component from little-endian `bytes` (at least [`Self::bytes`] of them).
    pub fn load(self, bytes: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        let n = self.bytes().min(bytes.len());
        word[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(word)
    }

    /// Writes the low [`Self::bytes`] bytes of `bits` into `bytes`.
    pub fn store(self, bits: u64, bytes: &mut [u8]) {
        let n = self.bytes().min(bytes.len());
        bytes[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_round_trip() {
        for t in ALL {
            assert_eq!(ComponentType::from_raw(t.raw()), Some(t));
        }
        assert_eq!(ComponentType::from_raw(11), None);
    }

    #[test]
    fn integers_extend_by_signedness() {
        assert_eq!(ComponentType::SInt8.int_of(0xff), -1);
        assert_eq!(ComponentType::UInt8.int_of(0xff), 255);
        assert_eq!(
            ComponentType::SInt32.int_of(0x8000_0000),
            i64::from(i32::MIN)
        );
        assert_eq!(ComponentType::SInt16.int_bits(-2), 0xfffe);
    }

    #[test]
    fn floats_round_and_overflow_by_type() {
        assert_eq!(ComponentType::Float16.float_bits(65520.0), 0x7c00);
        assert_eq!(ComponentType::FloatE5M2.float_bits(61440.0), 0x7c);
        assert!(
            ComponentType::FloatE4M3
                .float_of(ComponentType::FloatE4M3.float_bits(465.0))
                .is_nan()
        );
        assert_eq!(ComponentType::FloatE4M3.float_bits(464.0), 0x7e);
        assert_eq!(ComponentType::BFloat16.float_of(0x3f80), 1.0);
    }
}
