//! `OpCooperativeVectorMatrixMulNV` / `MatrixMulAddNV`: the form of one product ([`MatVec`]),
//! the input conversion its interpretation asks for, and the arithmetic, which is the same in
//! the scalar reference ([`MatVec::reference`], what the interpreter runs per lane) and in the
//! lane-batched SIMD kernels (`batch`, what compiled shaders run per chunk of lanes).
//!
//! Arithmetic (both paths, bit for bit): a float product sums `W[m][k]·x[k]` in f32 from 0, `k`
//! ascending, each step one fused multiply-add, then adds the bias in f32 and rounds once to the
//! result type (f16 and float8 products are exact in f32, so this is the exact sum rounded
//! twice at most: what the CTS's exact checks expect). An integer product sums in i32 with
//! wrapping, bias included.
//!
//! Input conversion (the spec's): integer to integer saturates, float to integer rounds to
//! nearest even and saturates, integer to float and float to float round to nearest even; a
//! packed interpretation reads byte `k % 4` of component `k / 4`, lowest byte first.

use crate::component::ComponentType;
use crate::layout::{Matrix, MatrixLayout, Number};

/// One matrix-vector product's static form (the operands that must be constants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatVec {
    /// Result components.
    pub m: u32,
    /// Logical input components.
    pub k: u32,
    /// The input vector's component type (an integer's signedness as the
    /// `MatrixBSignedComponents` operand says).
    pub input: ComponentType,
    pub interpretation: ComponentType,
    pub matrix: ComponentType,
    pub layout: MatrixLayout,
    pub transpose: bool,
    /// The bias's interpretation (`MatrixMulAdd` only).
    pub bias: Option<ComponentType>,
    /// The result's component type (an integer's signedness as `MatrixResultSignedComponents`
    /// says).
    pub result: ComponentType,
}

/// A form no kernel computes (the runtime checks the device's property list first; this is the
/// arithmetic's own rule).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cooperative vector product {0:?}: {1}")]
pub struct FormError(pub MatVec, pub &'static str);

impl MatVec {
    /// Whether the product is computed in floats (else in 32-bit integers).
    pub fn is_float(&self) -> bool {
        self.interpretation.is_float()
    }

    /// Components the input vector must have.
    pub fn input_len(&self) -> u32 {
        if self.interpretation.is_packed() {
            self.k.div_ceil(4)
        } else {
            self.k
        }
    }

    /// The stored matrix (`M × K`, or `K × M` when transposed) with `stride` for strided layouts.
    pub fn stored(&self, stride: usize) -> Matrix {
        let (rows, cols) = if self.transpose {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        };
        Matrix {
            rows,
            cols,
            ty: self.matrix,
            layout: self.layout,
            stride,
        }
    }

    /// Checks that the types fit one of the two arithmetics.
    pub fn check(&self) -> Result<(), FormError> {
        use ComponentType::*;
        let fail = |why| Err(FormError(*self, why));
        let float =
            |t: ComponentType| matches!(t, Float16 | Float32 | BFloat16 | FloatE4M3 | FloatE5M2);
        let byte = |t: ComponentType| matches!(t, SInt8 | UInt8);
        if self.m == 0 || self.k == 0 {
            return fail("M and K must not be 0");
        }
        if self.input.is_packed() || self.matrix.is_packed() || self.result.is_packed() {
            return fail("only the input interpretation may be packed");
        }
        if self.interpretation.is_packed() && self.input != UInt32 {
            return fail("a packed interpretation needs a uint32 input");
        }
        if self.is_float() {
            if !float(self.interpretation) || !float(self.matrix) {
                return fail("a float interpretation needs a float matrix");
            }
            if !matches!(self.result, Float16 | Float32) || self.bias.is_some_and(|b| !float(b)) {
                return fail("a float product has an f16 or f32 result and a float bias");
            }
            if !(self.input.is_float() || self.input.int_range().is_some()) {
                return fail("unsupported input type");
            }
        } else {
            let interp = match self.interpretation {
                SInt8Packed => SInt8,
                UInt8Packed => UInt8,
                t => t,
            };
            if !byte(interp) || !byte(self.matrix) {
                return fail("an integer product has 8-bit interpretation and matrix");
            }
            if !matches!(self.result, SInt32 | UInt32)
                || self.bias.is_some_and(|b| !matches!(b, SInt32 | UInt32))
            {
                return fail("an integer product has a 32-bit integer result and bias");
            }
            if !(self.input.is_float()
                || self.input.int_range().is_some()
                || self.input.is_packed())
            {
                return fail("unsupported input type");
            }
        }
        Ok(())
    }

    /// Logical input element `k` of `input` (the vector's components, raw bits) after the
    /// interpretation's conversion.
    pub fn input_value(&self, input: &[u64], k: usize) -> Number {
        use ComponentType::*;
        match self.interpretation {
            SInt8Packed | UInt8Packed => {
                let word = input.get(k / 4).copied().unwrap_or(0);
                let byte = (word >> (8 * (k % 4))) as u8;
                Number::Int(if self.interpretation == SInt8Packed {
                    i64::from(byte as i8)
                } else {
                    i64::from(byte)
                })
            }
            interp => {
                let raw = input.get(k).copied().unwrap_or(0);
                let value = if self.input.is_float() {
                    Number::Float(self.input.float_of(raw))
                } else {
                    Number::Int(self.input.int_of(raw))
                };
                convert_input(value, interp)
            }
        }
    }

    /// One lane's product: `input` holds its components (raw bits), `element(r, c)` reads the
    /// stored matrix, `bias(m)` the bias. Returns the result components' bits.
    pub fn reference(
        &self,
        input: &[u64],
        element: impl Fn(usize, usize) -> Number,
        bias: impl Fn(usize) -> Number,
    ) -> Vec<u64> {
        let (m, k) = (self.m as usize, self.k as usize);
        let x: Vec<Number> = (0..k).map(|i| self.input_value(input, i)).collect();
        let w = |row: usize, col: usize| {
            if self.transpose {
                element(col, row)
            } else {
                element(row, col)
            }
        };
        (0..m)
            .map(|row| {
                if self.is_float() {
                    let mut acc = 0f32;
                    for (col, xv) in x.iter().enumerate() {
                        acc = as_f32(w(row, col)).mul_add(as_f32(*xv), acc);
                    }
                    if self.bias.is_some() {
                        acc += as_f32(bias(row));
                    }
                    self.result.float_bits(f64::from(acc))
                } else {
                    let mut acc = 0i32;
                    for (col, xv) in x.iter().enumerate() {
                        acc = acc.wrapping_add(as_i32(w(row, col)).wrapping_mul(as_i32(*xv)));
                    }
                    if self.bias.is_some() {
                        acc = acc.wrapping_add(as_i32(bias(row)));
                    }
                    self.result.int_bits(i64::from(acc))
                }
            })
            .collect()
    }
}

pub(crate) fn as_f32(n: Number) -> f32 {
    match n {
        Number::Float(f) => f as f32,
        Number::Int(i) => i as f32,
    }
}

pub(crate) fn as_i32(n: Number) -> i32 {
    match n {
        Number::Int(i) => i as i32,
        Number::Float(f) => f as i32,
    }
}

/// `value` converted to interpretation `to` by the spec's rules (see the module docs).
pub fn convert_input(value: Number, to: ComponentType) -> Number {
    if to.is_float() {
        let f = match value {
            Number::Float(f) => f,
            Number::Int(i) => i as f64,
        };
        Number::Float(to.float_of(to.float_bits(f)))
    } else {
        let (lo, hi) = to.int_range().unwrap_or((i64::MIN, i64::MAX));
        let i = match value {
            Number::Int(i) => i,
            Number::Float(f) if f.is_nan() => 0,
            Number::Float(f) => {
                let r = f.round_ties_even();
                if r <= lo as f64 {
                    lo
                } else if r >= hi as f64 {
                    hi
                } else {
                    r as i64
                }
            }
        };
        Number::Int(i.clamp(lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComponentType::*;

    fn form(
        input: ComponentType,
        interp: ComponentType,
        matrix: ComponentType,
        result: ComponentType,
    ) -> MatVec {
        MatVec {
            m: 3,
            k: 5,
            input,
            interpretation: interp,
            matrix,
            layout: MatrixLayout::RowMajor,
            transpose: false,
            bias: Some(result),
            result,
        }
    }

    #[test]
    fn input_conversions_saturate_and_round() {
        let f = form(Float32, SInt8, SInt8, SInt32);
        let raw: Vec<u64> = [2.5f32, -3.5, 300.0, -1000.0, f32::NAN]
            .iter()
            .map(|x| u64::from(x.to_bits()))
            .collect();
        let got: Vec<Number> = (0..5).map(|k| f.input_value(&raw, k)).collect();
        assert_eq!(got, [2, -4, 127, -128, 0].map(Number::Int));
        let p = MatVec {
            input: UInt32,
            interpretation: SInt8Packed,
            ..f
        };
        let raw = [0x80ff_7f01u64, 0xdead_be02];
        let got: Vec<Number> = (0..5).map(|k| p.input_value(&raw, k)).collect();
        assert_eq!(got, [1, 127, -1, -128, 2].map(Number::Int));
        let u = MatVec {
            input: SInt32,
            interpretation: UInt8,
            ..f
        };
        assert_eq!(
            u.input_value(&[(-5i64) as u64 & 0xffff_ffff], 0),
            Number::Int(0)
        );
    }

    #[test]
    fn reference_sums_then_rounds_once() {
        let f = form(Float16, Float16, Float16, Float16);
        f.check().unwrap();
        let one = u64::from(half::f16::from_f32(1.0).to_bits());
        let out = f.reference(
            &[one; 5],
            |r, c| Number::Float((r * 5 + c) as f64 * 0.5),
            |_| Number::Float(0.25),
        );
        let want: Vec<u64> = (0..3)
            .map(|r| {
                let s: f32 = (0..5).map(|c| (r * 5 + c) as f32 * 0.5).sum::<f32>() + 0.25;
                u64::from(half::f16::from_f32(s).to_bits())
            })
            .collect();
        assert_eq!(out, want);
        let i = form(SInt8, SInt8, SInt8, SInt32);
        let out = i.reference(
            &[0xff; 5],
            |_, _| Number::Int(-128),
            |_| Number::Int(i64::from(i32::MAX)),
        );
        assert_eq!(out[0], u64::from((i32::MAX).wrapping_add(640) as u32));
        assert!(form(Float16, SInt8, Float16, SInt32).check().is_err());
    }
}
