//! Cooperative-vector matrix layouts (`VkCooperativeVectorMatrixLayoutNV`, SPIR-V's
//! `CooperativeVectorMatrixLayoutNV`): where element (row, column) of a matrix lives, how many
//! bytes a matrix takes, and what a stored element holds.
//!
//! Row- and column-major are the spec's (a stride in bytes between rows or columns). The two
//! optimal layouts are Tessera's:
//! - **training-optimal** is a tight row-major array of the component type (the spec lets an
//!   application treat it as an array of elements, so it has no padding);
//! - **inferencing-optimal** is what the matrix-vector kernels read fastest: a float matrix
//!   (f16, f32, bfloat16, float8) is stored as f32 values (already rounded to its type, so no
//!   conversion in the inner loop), an 8-bit integer matrix as i16 pairs along the columns (the
//!   operands of `vpmaddwd`), both in blocks of [`ROW_BLOCK`] rows: block `b` holds rows
//!   `8b..8b+8` column by column (f32: `[b][column][row % 8]`; i16: `[b][column / 2][row % 8]
//!   [column % 2]`). Padding rows and the odd column's partner are zero, and a zero-filled
//!   region is a matrix of zeros, as the spec requires of optimal layouts. Other types use the
//!   training-optimal array.

use crate::component::ComponentType;

/// Rows per block of the inferencing-optimal layout.
pub const ROW_BLOCK: usize = 8;

/// A matrix layout, with the Vulkan/SPIR-V values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixLayout {
    RowMajor,
    ColumnMajor,
    InferencingOptimal,
    TrainingOptimal,
}

impl MatrixLayout {
    pub fn from_raw(value: u32) -> Option<MatrixLayout> {
        Some(match value {
            0 => MatrixLayout::RowMajor,
            1 => MatrixLayout::ColumnMajor,
            2 => MatrixLayout::InferencingOptimal,
            3 => MatrixLayout::TrainingOptimal,
            _ => return None,
        })
    }

    pub fn raw(self) -> u32 {
        self as u32
    }

    /// Row- or column-major (the layouts with a stride).
    pub fn is_strided(self) -> bool {
        matches!(self, MatrixLayout::RowMajor | MatrixLayout::ColumnMajor)
    }
}

/// How one element of a matrix is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// As a component of the matrix's type.
    Component(ComponentType),
    /// As an f32 holding a value of the matrix's (float) type.
    F32,
    /// As an i16 holding a value of the matrix's (8-bit integer) type.
    I16,
}

impl Stored {
    pub fn bytes(self) -> usize {
        match self {
            Stored::Component(t) => t.bytes(),
            Stored::F32 => 4,
            Stored::I16 => 2,
        }
    }
}

/// A number read from or written to a matrix: floats exactly, integers as `i64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Float(f64),
    Int(i64),
}

/// A matrix's shape, type and layout: everything needed to address its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matrix {
    pub rows: u32,
    pub cols: u32,
    pub ty: ComponentType,
    pub layout: MatrixLayout,
    /// Bytes from one row (row-major) or column (column-major) to the next; ignored otherwise.
    pub stride: usize,
}

impl Matrix {
    /// How an element is stored.
    pub fn stored(&self) -> Stored {
        use ComponentType::*;
        match (self.layout, self.ty) {
            (
                MatrixLayout::InferencingOptimal,
                Float16 | Float32 | BFloat16 | FloatE4M3 | FloatE5M2,
            ) => Stored::F32,
            (MatrixLayout::InferencingOptimal, SInt8 | UInt8) => Stored::I16,
            _ => Stored::Component(self.ty),
        }
    }

    fn blocks(&self) -> usize {
        (self.rows as usize).div_ceil(ROW_BLOCK)
    }

    fn even_cols(&self) -> usize {
        (self.cols as usize).next_multiple_of(2)
    }

    /// Bytes the matrix takes: what the size query of `vkConvertCooperativeVectorMatrixNV`
    /// reports for a destination (`rows · stride` row-major, `cols · stride` column-major).
    pub fn size(&self) -> usize {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        match (self.layout, self.stored()) {
            (MatrixLayout::RowMajor, _) => rows * self.stride,
            (MatrixLayout::ColumnMajor, _) => cols * self.stride,
            (_, Stored::F32) => self.blocks() * ROW_BLOCK * cols * 4,
            (_, Stored::I16) => self.blocks() * ROW_BLOCK * self.even_cols() * 2,
            (_, Stored::Component(t)) => rows * cols * t.bytes(),
        }
    }

    /// The fewest bytes that hold every element (a strided matrix's last row or column need not
    /// be followed by a whole stride).
    pub fn footprint(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        let es = self.ty.bytes();
        match self.layout {
            MatrixLayout::RowMajor => {
                (self.rows as usize - 1) * self.stride + self.cols as usize * es
            }
            MatrixLayout::ColumnMajor => {
                (self.cols as usize - 1) * self.stride + self.rows as usize * es
            }
            _ => self.size(),
        }
    }

    /// Byte offset of element (`row`, `col`), both in range.
    pub fn offset(&self, row: usize, col: usize) -> usize {
        let cols = self.cols as usize;
        match (self.layout, self.stored()) {
            (MatrixLayout::RowMajor, s) => row * self.stride + col * s.bytes(),
            (MatrixLayout::ColumnMajor, s) => col * self.stride + row * s.bytes(),
            (_, Stored::F32) => {
                (((row / ROW_BLOCK) * cols + col) * ROW_BLOCK + row % ROW_BLOCK) * 4
            }
            (_, Stored::I16) => {
                let pairs = self.even_cols() / 2;
                ((((row / ROW_BLOCK) * pairs + col / 2) * ROW_BLOCK + row % ROW_BLOCK) * 2
                    + col % 2)
                    * 2
            }
            (_, Stored::Component(t)) => (row * cols + col) * t.bytes(),
        }
    }

    /// Element (`row`, `col`) of `bytes` (which must hold [`Self::footprint`] bytes).
    pub fn read(&self, bytes: &[u8], row: usize, col: usize) -> Number {
        let at = self.offset(row, col);
        let stored = self.stored();
        let raw = match bytes.get(at..at + stored.bytes()) {
            Some(b) => ComponentType::UInt64.load(b),
            None => 0,
        };
        decode(stored, self.ty, raw)
    }

    /// Writes `value`, rounded or truncated to the matrix's type, as element (`row`, `col`).
    pub fn write(&self, bytes: &mut [u8], row: usize, col: usize, value: Number) {
        let at = self.offset(row, col);
        let stored = self.stored();
        let bits = encode(stored, self.ty, value);
        if let Some(b) = bytes.get_mut(at..at + stored.bytes()) {
            b.copy_from_slice(&bits.to_le_bytes()[..stored.bytes()]);
        }
    }
}

/// The number an element stored as `stored` (`raw` zero-extended) holds, for a matrix of `ty`.
pub fn decode(stored: Stored, ty: ComponentType, raw: u64) -> Number {
    match stored {
        Stored::F32 => Number::Float(f64::from(f32::from_bits(raw as u32))),
        Stored::I16 => Number::Int(i64::from(raw as u16 as i16)),
        Stored::Component(t) if t.is_float() => Number::Float(t.float_of(raw)),
        Stored::Component(_) => Number::Int(ty.int_of(raw)),
    }
}

/// The bits that store `value` as `stored` in a matrix of `ty` (floats rounded to `ty`,
/// integers truncated to `ty`'s width).
pub fn encode(stored: Stored, ty: ComponentType, value: Number) -> u64 {
    let as_float = |v: Number| match v {
        Number::Float(f) => f,
        Number::Int(i) => i as f64,
    };
    let as_int = |v: Number| match v {
        Number::Int(i) => i,
        Number::Float(f) => f as i64,
    };
    if ty.is_float() {
        let bits = ty.float_bits(as_float(value));
        match stored {
            Stored::F32 => u64::from((ty.float_of(bits) as f32).to_bits()),
            _ => bits,
        }
    } else {
        let v = ty.int_of(ty.int_bits(as_int(value)));
        match stored {
            Stored::I16 => u64::from(v as i16 as u16),
            _ => ty.int_bits(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: u32, cols: u32, ty: ComponentType, layout: MatrixLayout) -> Matrix {
        let stride = match layout {
            MatrixLayout::RowMajor => cols as usize * ty.bytes(),
            MatrixLayout::ColumnMajor => rows as usize * ty.bytes(),
            _ => 0,
        };
        Matrix {
            rows,
            cols,
            ty,
            layout,
            stride,
        }
    }

    #[test]
    fn every_element_has_its_own_bytes() {
        use MatrixLayout::*;
        for ty in [
            ComponentType::Float16,
            ComponentType::SInt8,
            ComponentType::UInt32,
        ] {
            for layout in [RowMajor, ColumnMajor, InferencingOptimal, TrainingOptimal] {
                for (rows, cols) in [(1, 1), (7, 13), (16, 8), (9, 3)] {
                    let m = matrix(rows, cols, ty, layout);
                    let width = m.stored().bytes();
                    let mut seen = vec![false; m.size()];
                    for r in 0..rows as usize {
                        for c in 0..cols as usize {
                            let at = m.offset(r, c);
                            assert!(at + width <= m.footprint(), "{m:?} ({r}, {c})");
                            for s in &mut seen[at..at + width] {
                                assert!(!*s, "{m:?} ({r}, {c}) overlaps");
                                *s = true;
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn optimal_sizes() {
        let m = matrix(
            64,
            64,
            ComponentType::Float16,
            MatrixLayout::InferencingOptimal,
        );
        assert_eq!(m.size(), 64 * 64 * 4);
        let m = matrix(9, 3, ComponentType::SInt8, MatrixLayout::InferencingOptimal);
        assert_eq!(m.size(), 16 * 4 * 2);
        let m = matrix(
            64,
            64,
            ComponentType::Float16,
            MatrixLayout::TrainingOptimal,
        );
        assert_eq!(m.size(), 8192);
    }

    #[test]
    fn stored_values_round_to_the_type() {
        let m = matrix(
            2,
            2,
            ComponentType::FloatE4M3,
            MatrixLayout::InferencingOptimal,
        );
        let mut bytes = vec![0; m.size()];
        m.write(&mut bytes, 1, 1, Number::Float(0.3));
        assert_eq!(m.read(&bytes, 1, 1), Number::Float(0.3125));
        let m = matrix(2, 2, ComponentType::SInt8, MatrixLayout::InferencingOptimal);
        let mut bytes = vec![0; m.size()];
        m.write(&mut bytes, 0, 1, Number::Int(-3));
        assert_eq!(m.read(&bytes, 0, 1), Number::Int(-3));
    }
}
