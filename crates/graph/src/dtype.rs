//! TOSA element types ([`DType`]) and how their values are held while a graph runs.
//!
//! The reference executor computes on widened values: integers as `i64` (every TOSA integer
//! type, i48 included, fits), floats as `f64` (every TOSA float type converts exactly) and bools
//! as `bool`. Each operator rounds or wraps to its declared output type, so a sequence of
//! operators gives what TOSA's pseudocode gives; float results are correctly rounded where the
//! spec asks for 0.5 ulp and more precise than required elsewhere (dot products accumulate in
//! f64). Memory holds the types' own encodings (signless integers read as signed, as TOSA says).

use tessera_spirv::alu;

/// A TOSA element type as the `TOSA.001000.1` instruction set encodes it in SPIR-V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `OpTypeBool`, one byte in memory (0 or 1).
    Bool,
    /// `OpTypeInt 8`.
    I8,
    /// `OpTypeInt 16`.
    I16,
    /// `OpTypeInt 32`.
    I32,
    /// TOSA's int48, in `OpTypeInt 64` containers (`R64_SINT` tensors).
    I48,
    /// `OpTypeFloat 16`.
    F16,
    /// `OpTypeFloat 16 BFloat16KHR`.
    Bf16,
    /// `OpTypeFloat 32`.
    F32,
    /// `OpTypeFloat 8 Float8E4M3EXT`.
    Fp8E4m3,
    /// `OpTypeFloat 8 Float8E5M2EXT`.
    Fp8E5m2,
}

impl DType {
    /// Bytes of one element in memory.
    pub fn bytes(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::Fp8E4m3 | DType::Fp8E5m2 => 1,
            DType::I16 | DType::F16 | DType::Bf16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I48 => 8,
        }
    }

    /// TOSA's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I48 => "i48",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F32 => "f32",
            DType::Fp8E4m3 => "fp8e4m3",
            DType::Fp8E5m2 => "fp8e5m2",
        }
    }

    /// Whether values are integers (not bools, not floats).
    pub fn is_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I48)
    }

    /// Whether values are floats.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16 | DType::Bf16 | DType::F32 | DType::Fp8E4m3 | DType::Fp8E5m2
        )
    }

    /// Bits of an integer type (48 for i48).
    pub fn int_bits(self) -> u32 {
        match self {
            DType::I8 => 8,
            DType::I16 => 16,
            DType::I32 => 32,
            DType::I48 => 48,
            _ => 0,
        }
    }

    /// The smallest and largest signed value of an integer type.
    pub fn int_range(self) -> (i64, i64) {
        let bits = self.int_bits().max(1);
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    }

    /// The `tessera_spirv::alu` float width code of a float type.
    fn float_code(self) -> u8 {
        match self {
            DType::F16 => 16,
            DType::Bf16 => alu::W_BF16,
            DType::Fp8E4m3 => alu::W_E4M3,
            DType::Fp8E5m2 => alu::W_E5M2,
            _ => 32,
        }
    }

    /// `v` rounded to this float type (to nearest, ties to even; fp8 conversions are OCP's
    /// non-saturating ones), as an f64 that the type represents exactly.
    pub fn round_float(self, v: f64) -> f64 {
        let w = self.float_code();
        alu::f_get(w, alu::f_put(w, v))
    }

    /// `v` wrapped to this integer type's width (two's complement), sign-extended.
    pub fn wrap_int(self, v: i64) -> i64 {
        let bits = self.int_bits();
        if bits == 0 || bits >= 64 {
            return v;
        }
        let shift = 64 - bits;
        (v << shift) >> shift
    }

    /// `v` clipped to this integer type's signed range.
    pub fn clip_int(self, v: i64) -> i64 {
        let (lo, hi) = self.int_range();
        v.clamp(lo, hi)
    }
}

/// Element values of a tensor while a graph runs (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Bools.
    Bool(Vec<bool>),
    /// Integers of any width, sign-extended.
    Int(Vec<i64>),
    /// Floats of any width, exactly.
    Float(Vec<f64>),
}

impl Values {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` zeros (false, 0, +0.0) of `dtype`'s kind.
    pub fn zeros(dtype: DType, n: usize) -> Values {
        if dtype == DType::Bool {
            Values::Bool(vec![false; n])
        } else if dtype.is_int() {
            Values::Int(vec![0; n])
        } else {
            Values::Float(vec![0.0; n])
        }
    }

    /// Decodes `n` packed elements of `dtype` from `bytes` (little-endian), or `None` when
    /// `bytes` is shorter than that.
    pub fn decode(dtype: DType, bytes: &[u8], n: usize) -> Option<Values> {
        let size = dtype.bytes();
        let bytes = bytes.get(..n.checked_mul(size)?)?;
        let raw = |i: usize| {
            let mut w = [0u8; 8];
            w[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
            u64::from_le_bytes(w)
        };
        Some(match dtype {
            DType::Bool => Values::Bool((0..n).map(|i| raw(i) != 0).collect()),
            DType::I8 => Values::Int((0..n).map(|i| i64::from(raw(i) as u8 as i8)).collect()),
            DType::I16 => Values::Int((0..n).map(|i| i64::from(raw(i) as u16 as i16)).collect()),
            DType::I32 => Values::Int((0..n).map(|i| i64::from(raw(i) as u32 as i32)).collect()),
            // Values in i48 containers are sign-extended 64-bit integers.
            DType::I48 => Values::Int((0..n).map(|i| raw(i) as i64).collect()),
            _ => {
                let w = dtype.float_code();
                Values::Float((0..n).map(|i| alu::f_get(w, raw(i))).collect())
            }
        })
    }

    /// Encodes the elements as packed little-endian `dtype` values (each rounded or wrapped to
    /// the type; the executor keeps them exact already).
    pub fn encode(&self, dtype: DType) -> Vec<u8> {
        let size = dtype.bytes();
        let mut out = Vec::with_capacity(self.len() * size);
        let mut push = |bits: u64| out.extend_from_slice(&bits.to_le_bytes()[..size]);
        match self {
            Values::Bool(v) => v.iter().for_each(|&b| push(u64::from(b))),
            Values::Int(v) => v.iter().for_each(|&x| push(x as u64)),
            Values::Float(v) => {
                let w = dtype.float_code();
                v.iter().for_each(|&x| push(alu::f_put(w, x)))
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_round_trip_sign_extended() {
        let bytes = [0x80u8, 0x7f, 0xff, 0x00];
        let v = Values::decode(DType::I8, &bytes, 4).unwrap();
        assert_eq!(v, Values::Int(vec![-128, 127, -1, 0]));
        assert_eq!(v.encode(DType::I8), bytes);
        let v = Values::decode(DType::I16, &[0x00, 0x80, 0x01, 0x00], 2).unwrap();
        assert_eq!(v, Values::Int(vec![-32768, 1]));
        assert_eq!(Values::decode(DType::I32, &[0; 7], 2), None);
    }

    #[test]
    fn floats_round_to_their_type() {
        assert_eq!(DType::F16.round_float(1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(DType::F32.round_float(0.1), f64::from(0.1f32));
        // e4m3 has no infinity: out of range is NaN; e5m2 overflows to infinity.
        assert!(DType::Fp8E4m3.round_float(1e6).is_nan());
        assert_eq!(DType::Fp8E5m2.round_float(1e6), f64::INFINITY);
        let v = Values::Float(vec![1.5, -2.0]);
        assert_eq!(v.encode(DType::F16), [0x00, 0x3e, 0x00, 0xc0]);
    }

    #[test]
    fn wraps_and_clips() {
        assert_eq!(DType::I8.wrap_int(200), -56);
        assert_eq!(DType::I8.clip_int(200), 127);
        assert_eq!(DType::I48.wrap_int(1 << 47), -(1 << 47));
        assert_eq!(DType::I32.clip_int(i64::MIN), i64::from(i32::MIN));
    }
}
