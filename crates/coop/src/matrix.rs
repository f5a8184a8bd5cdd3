//! Cooperative matrices (`SPV_KHR_cooperative_matrix`): matrix types, how the 32 invocations of
//! a subgroup hold one, and `OpCooperativeMatrixMulAddKHR`'s arithmetic as a scalar reference
//! (what the interpreter runs; `product` has the kernels compiled shaders run, equal bit for
//! bit).
//!
//! # How a subgroup holds a matrix
//! A subgroup's invocations form two halves of [`HALF`] (invocations `16h..16h+16`, `h` = 0, 1),
//! which is how compiled code runs them (one chunk each). Component `i` of invocation `16h + j`
//! holds row-major element:
//! - `A` (`M × K`) and accumulators (`M × N`): `h·(R·C/2) + 16i + j` (`R × C` the matrix): half
//!   `h` holds rows `h·R/2 .. (h+1)·R/2`, the rows of a product it computes itself;
//! - `B` (`K × N`): `16i + j` in both halves: each half holds the whole of `B` (the spec lets an
//!   implementation spread elements as it likes; AMD's wave32 does the same), and only the
//!   first half stores it.
//!
//! So a multiply-add needs nothing from the other half: each half multiplies its rows of `A`
//! by `B` and adds its rows of `C`. Each component is 16 consecutive row-major elements, so the
//! components of a half are its part of the matrix, row-major, in order.
//!
//! # Arithmetic
//! Floats: each result element is `C[i][j]` in f32 plus `A[i][k]·B[k][j]` for `k` ascending, one
//! fused multiply-add per step (f16, bfloat16 and float8 products are exact in f32), rounded once
//! to the result type. Integers: `A` and `B` (and `C`) extended by the operands' signedness
//! bits; without saturation the result is the low bits of the exact sum; with it, the exact sum
//! of products plus `C`, clamped to the result type (signed per the result's bit).

use crate::component::ComponentType;

/// Invocations of a subgroup.
pub const SUBGROUP: usize = 32;
/// Invocations of a half (a chunk of compiled code).
pub const HALF: usize = 16;

/// `CooperativeMatrixUse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Use {
    A,
    B,
    Accumulator,
}

impl Use {
    pub fn from_raw(v: u32) -> Option<Use> {
        Some(match v {
            0 => Use::A,
            1 => Use::B,
            2 => Use::Accumulator,
            _ => return None,
        })
    }
}

/// A cooperative matrix type (subgroup scope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatrixType {
    pub elem: ComponentType,
    pub rows: u32,
    pub cols: u32,
    pub usage: Use,
}

impl MatrixType {
    /// Why a subgroup cannot hold this matrix as the module docs say, if it cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        let (r, c) = (self.rows as usize, self.cols as usize);
        if r == 0 || c == 0 || r > 256 || c > 256 {
            return Err("rows and columns must be between 1 and 256");
        }
        if self.elem.is_packed() {
            return Err("packed component types are for cooperative vectors");
        }
        match self.usage {
            Use::B if !(r * c).is_multiple_of(HALF) => {
                Err("a B matrix needs a multiple of 16 elements")
            }
            Use::A | Use::Accumulator
                if !r.is_multiple_of(2) || !(r * c).is_multiple_of(SUBGROUP) =>
            {
                Err(
                    "an A or accumulator matrix needs an even row count and a multiple of 32 elements",
                )
            }
            _ => Ok(()),
        }
    }

    /// Components per invocation (`OpCooperativeMatrixLengthKHR`).
    pub fn length(&self) -> u32 {
        let n = self.rows * self.cols;
        match self.usage {
            Use::B => n / HALF as u32,
            _ => n / SUBGROUP as u32,
        }
    }

    /// The row-major index of the element that component `i` of invocation `lane` (0..32 in
    /// its subgroup) holds.
    pub fn element(&self, lane: usize, i: usize) -> usize {
        let (h, j) = (lane / HALF % 2, lane % HALF);
        let half = match self.usage {
            Use::B => 0,
            _ => h * (self.rows * self.cols) as usize / 2,
        };
        half + i * HALF + j
    }

    /// Whether invocation `lane` stores its components (every element is stored once).
    pub fn stores(&self, lane: usize) -> bool {
        self.usage != Use::B || lane % SUBGROUP < HALF
    }

    /// Rows a half holds (`rows / 2` for A and accumulators, all of them for B).
    pub fn half_rows(&self) -> usize {
        match self.usage {
            Use::B => self.rows as usize,
            _ => self.rows as usize / 2,
        }
    }
}

/// `CooperativeMatrixOperands` bits.
pub mod operands {
    pub const A_SIGNED: u32 = 0x1;
    pub const B_SIGNED: u32 = 0x2;
    pub const C_SIGNED: u32 = 0x4;
    pub const RESULT_SIGNED: u32 = 0x8;
    pub const SATURATING: u32 = 0x10;
}

/// One multiply-add's static form: `D (M × N) = A (M × K) · B (K × N) + C`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MulAdd {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a: ComponentType,
    pub b: ComponentType,
    pub c: ComponentType,
    pub result: ComponentType,
    /// `CooperativeMatrixOperands` (signedness bits and saturation).
    pub operands: u32,
}

/// Reads raw component bits as f32 (float types) or i64 (integers, signed as `signed` says).
pub(crate) fn float(ty: ComponentType, bits: u64) -> f32 {
    ty.float_of(bits) as f32
}

pub(crate) fn int(ty: ComponentType, bits: u64, signed: bool) -> i64 {
    let width = 8 * ty.bytes() as u32;
    let bits = if width < 64 {
        bits & ((1 << width) - 1)
    } else {
        bits
    };
    if signed && width < 64 && bits >> (width - 1) & 1 == 1 {
        bits as i64 - (1i64 << width)
    } else {
        bits as i64
    }
}

impl MulAdd {
    pub fn is_float(&self) -> bool {
        self.a.is_float()
    }

    pub(crate) fn signed(&self, bit: u32) -> bool {
        self.operands & bit != 0
    }

    /// Checks the types of a form a kernel computes.
    pub fn check(&self) -> Result<(), &'static str> {
        let floats = [self.a, self.b, self.c, self.result].map(ComponentType::is_float);
        if floats.iter().any(|&f| f != floats[0]) {
            return Err("A, B, C and the result must be all floats or all integers");
        }
        if !self.m.is_multiple_of(2) || self.m == 0 || self.n == 0 || self.k == 0 {
            return Err("M must be even and M, N, K not 0");
        }
        if floats[0] && self.operands & operands::SATURATING != 0 {
            return Err("saturating accumulation is for integers");
        }
        Ok(())
    }

    /// One half's product (see the module docs): `a` holds its `m/2 × k` rows of A, `b` all of
    /// B (`k × n`), `c` its rows of C; returns its rows of the result. Raw component bits,
    /// row-major.
    pub fn reference(&self, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
        let (rows, n, k) = (self.m as usize / 2, self.n as usize, self.k as usize);
        let mut out = vec![0u64; rows * n];
        for i in 0..rows {
            for j in 0..n {
                let bits = if self.is_float() {
                    let mut acc = float(self.c, c[i * n + j]);
                    for kk in 0..k {
                        acc =
                            float(self.a, a[i * k + kk]).mul_add(float(self.b, b[kk * n + j]), acc);
                    }
                    self.result.float_bits(f64::from(acc))
                } else {
                    let mut sum = 0i64;
                    for kk in 0..k {
                        let x = int(self.a, a[i * k + kk], self.signed(operands::A_SIGNED));
                        let y = int(self.b, b[kk * n + j], self.signed(operands::B_SIGNED));
                        sum = sum.wrapping_add(x.wrapping_mul(y));
                    }
                    let cv = int(self.c, c[i * n + j], self.signed(operands::C_SIGNED));
                    let total = sum.wrapping_add(cv);
                    if self.signed(operands::SATURATING) {
                        let width = 8 * self.result.bytes() as u32;
                        let (lo, hi) = if self.signed(operands::RESULT_SIGNED) {
                            (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
                        } else {
                            (0, (1i128 << width) - 1)
                        };
                        let exact = i128::from(sum) + i128::from(cv);
                        exact.clamp(lo, hi) as i64 as u64
                    } else {
                        total as u64
                    }
                };
                out[i * n + j] = self.result.int_bits_raw(bits);
            }
        }
        out
    }
}

impl ComponentType {
    /// `bits` cut to this type's width.
    pub(crate) fn int_bits_raw(self, bits: u64) -> u64 {
        let width = 8 * self.bytes() as u32;
        if width < 64 {
            bits & ((1 << width) - 1)
        } else {
            bits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_is_held_and_stored_once() {
        for (rows, cols, usage) in [
            (16, 16, Use::A),
            (16, 8, Use::Accumulator),
            (8, 8, Use::B),
            (32, 16, Use::B),
            (16, 32, Use::A),
        ] {
            let t = MatrixType {
                elem: ComponentType::Float16,
                rows,
                cols,
                usage,
            };
            t.check().unwrap();
            let mut stored = vec![0; (rows * cols) as usize];
            let mut held = vec![0; (rows * cols) as usize];
            for lane in 0..SUBGROUP {
                for i in 0..t.length() as usize {
                    let e = t.element(lane, i);
                    held[e] += 1;
                    if t.stores(lane) {
                        stored[e] += 1;
                    }
                }
            }
            assert!(stored.iter().all(|&s| s == 1), "{t:?}");
            let copies = if usage == Use::B { 2 } else { 1 };
            assert!(held.iter().all(|&h| h == copies), "{t:?}");
            // A half's components are its rows, row-major.
            if usage != Use::B {
                for lane in 0..HALF {
                    assert_eq!(t.element(lane, 0), lane);
                    assert_eq!(t.element(lane + HALF, 0), (rows * cols / 2) as usize + lane);
                }
            }
        }
    }

    #[test]
    fn saturating_and_wrapping_integers() {
        use ComponentType::*;
        let form = MulAdd {
            m: 2,
            n: 1,
            k: 2,
            a: SInt8,
            b: SInt8,
            c: SInt32,
            result: SInt32,
            operands: 0xf,
        };
        let a = [0x7f, 0x7f];
        let b = [0x7f, 0x7f];
        let c = [0x7fff_ff00];
        let wrap = form.reference(&a, &b, &c);
        assert_eq!(wrap[0] as u32, 0x7fff_ff00u32.wrapping_add(2 * 127 * 127));
        let sat = MulAdd {
            operands: 0x1f,
            ..form
        }
        .reference(&a, &b, &c);
        assert_eq!(sat[0] as u32, i32::MAX as u32);
        let unsigned = MulAdd {
            a: UInt8,
            b: UInt8,
            c: UInt32,
            result: UInt32,
            operands: 0,
            ..form
        };
        assert_eq!(
            unsigned.reference(&[0xff, 0xff], &[0xff, 1], &[1])[0],
            255 * 255 + 255 + 1
        );
    }
}
