//! Cooperative-vector matrix layouts (`VkCooperativeVectorMatrixLayoutNV`, SPIR-V's
//! `CooperativeVectorMatrixLayoutNV`): where element (row, column) of a matrix lives, how many
//! bytes a matrix takes, and what a stored element holds.
//!
//! Row- and column-major are the spec's (a stride in bytes between rows or columns). Both optimal
//! layouts are a tight row-major array of the component type, zero-padded to a multiple of 64
//! bytes: the spec lets an application treat a training-optimal matrix as an array of elements,
//! and applications (the CTS among them) lay out their buffers assuming the optimal size is no
//! larger than the 16-byte-aligned packed one rounded up to 64 bytes, as NVIDIA's driver reports
//! it. What the kernels read fastest (f32 or i16-pair blocks) is made from it once
//! per dispatch and matrix, in the kernels' own memory (`batch`). A zero-filled region is a matrix
//! of zeros, as the spec requires of optimal layouts.

use crate::component::ComponentType;

/// What an optimal-layout matrix's size is a multiple of. Applications pack matrices at
/// 64-byte-aligned offsets and size their buffers as if the optimal sizes kept that alignment
/// (the CTS's `cooperative_vector.matmul` writes past its buffer otherwise), as NVIDIA's do.
pub const OPTIMAL_ALIGNMENT: usize = 64;

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

/// A number read from or written to a matrix: floats exactly, integers as `i64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Float(f64),
    Int(i64),
}

/// A matrix's shape, type and layout: everything needed to address its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Matrix {
    pub rows: u32,
    pub cols: u32,
    pub ty: ComponentType,
    pub layout: MatrixLayout,
    /// Bytes from one row (row-major) or column (column-major) to the next; ignored otherwise.
    pub stride: usize,
}

impl Matrix {
    /// The byte step between rows (first) and between columns (second).
    pub fn steps(&self) -> (usize, usize) {
        let es = self.ty.bytes();
        match self.layout {
            MatrixLayout::RowMajor => (self.stride, es),
            MatrixLayout::ColumnMajor => (es, self.stride),
            _ => (self.cols as usize * es, es),
        }
    }

    /// Bytes the matrix takes: what the size query of `vkConvertCooperativeVectorMatrixNV`
    /// reports for a destination (`rows · stride` row-major, `cols · stride` column-major, the
    /// elements rounded up to [`OPTIMAL_ALIGNMENT`] for the optimal layouts).
    pub fn size(&self) -> usize {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        match self.layout {
            MatrixLayout::RowMajor => rows * self.stride,
            MatrixLayout::ColumnMajor => cols * self.stride,
            _ => (rows * cols * self.ty.bytes()).next_multiple_of(OPTIMAL_ALIGNMENT),
        }
    }

    /// The fewest bytes that hold every element (a strided matrix's last row or column need not
    /// be followed by a whole stride).
    pub fn footprint(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        // The last element is the farthest in every layout.
        self.offset(self.rows as usize - 1, self.cols as usize - 1) + self.ty.bytes()
    }

    /// Byte offset of element (`row`, `col`), both in range.
    pub fn offset(&self, row: usize, col: usize) -> usize {
        let (r, c) = self.steps();
        row * r + col * c
    }

    /// Element (`row`, `col`) of `bytes` (0 where `bytes` is too short).
    pub fn read(&self, bytes: &[u8], row: usize, col: usize) -> Number {
        let at = self.offset(row, col);
        let raw = match bytes.get(at..at + self.ty.bytes()) {
            Some(b) => ComponentType::UInt64.load(b),
            None => 0,
        };
        decode(self.ty, raw)
    }

    /// Writes `value`, rounded or truncated to the matrix's type, as element (`row`, `col`).
    pub fn write(&self, bytes: &mut [u8], row: usize, col: usize, value: Number) {
        let at = self.offset(row, col);
        let n = self.ty.bytes();
        if let Some(b) = bytes.get_mut(at..at + n) {
            b.copy_from_slice(&encode(self.ty, value).to_le_bytes()[..n]);
        }
    }
}

/// The number a component of type `ty` (its bits zero-extended in `raw`) holds.
pub fn decode(ty: ComponentType, raw: u64) -> Number {
    if ty.is_float() {
        Number::Float(ty.float_of(raw))
    } else {
        Number::Int(ty.int_of(raw))
    }
}

/// The bits of `value` as a component of type `ty` (floats rounded to nearest even, integers
/// truncated to the width).
pub fn encode(ty: ComponentType, value: Number) -> u64 {
    match value {
        Number::Float(f) if ty.is_float() => ty.float_bits(f),
        Number::Int(i) if ty.is_float() => ty.float_bits(i as f64),
        Number::Int(i) => ty.int_bits(i),
        Number::Float(f) => ty.int_bits(f as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: u32, cols: u32, ty: ComponentType, layout: MatrixLayout) -> Matrix {
        let stride = match layout {
            MatrixLayout::RowMajor => cols as usize * ty.bytes() + 4,
            MatrixLayout::ColumnMajor => rows as usize * ty.bytes() + 8,
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
                    let width = ty.bytes();
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
                    assert!(m.footprint() <= m.size());
                }
            }
        }
    }

    #[test]
    fn optimal_layouts_are_packed_and_padded_to_64_bytes() {
        for layout in [
            MatrixLayout::InferencingOptimal,
            MatrixLayout::TrainingOptimal,
        ] {
            let m = matrix(64, 64, ComponentType::Float16, layout);
            assert_eq!(m.size(), 8192);
            let m = matrix(21, 35, ComponentType::SInt8, layout);
            assert_eq!(m.size(), (21 * 35usize).next_multiple_of(64));
            assert_eq!(m.footprint(), 21 * 35);
        }
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
