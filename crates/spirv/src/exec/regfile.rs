//! The typed register file of one lane group: one row per IR register, each row holding the
//! register's value for every lane at the register's own width (1, 2, 4 or 8 bytes per lane;
//! bools are one byte, 0 or 1). The layout is fixed per [`Program`](crate::Program) (the lane
//! group's size is static), so the JIT compiles row offsets in as constants.
//!
//! Invariants: every row starts at a multiple of [`ROW_ALIGN`] bytes and holds
//! `RegLayout::lanes` lanes, a multiple of [`LANE_PAD`], so a backend may read and write whole
//! 16-lane chunks of any row; lanes past the lane group's real lanes are padding that nothing
//! reads as a result.

use crate::ir::{Ir, Reg};

/// Runs `$body` with `$t` bound to the unsigned lane type of `$bytes` bytes.
macro_rules! by_bytes {
    ($bytes:expr, $t:ident => $body:expr) => {
        match $bytes {
            1 => {
                type $t = u8;
                $body
            }
            2 => {
                type $t = u16;
                $body
            }
            4 => {
                type $t = u32;
                $body
            }
            _ => {
                type $t = u64;
                $body
            }
        }
    };
}
pub(crate) use by_bytes;

/// Lanes of every row are a multiple of this (the widest chunk a backend processes at once).
pub const LANE_PAD: usize = 16;
/// Byte alignment of every row.
pub const ROW_ALIGN: usize = 64;

/// Where each register's row lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegLayout {
    /// Lanes per row (the lane group's lanes rounded up to [`LANE_PAD`]).
    pub lanes: usize,
    /// Byte offset of each register's row.
    pub offsets: Vec<usize>,
    /// Storage bytes per lane of each register.
    pub bytes: Vec<u8>,
    /// Total bytes of the register file.
    pub size: usize,
}

impl RegLayout {
    /// The layout of `ir`'s registers for a lane group of `lanes` lanes.
    pub fn new(ir: &Ir, lanes: usize) -> RegLayout {
        let lanes = lanes.max(1).next_multiple_of(LANE_PAD);
        let mut offsets = Vec::with_capacity(ir.reg_types.len());
        let mut bytes = Vec::with_capacity(ir.reg_types.len());
        let mut at = 0usize;
        for t in &ir.reg_types {
            let b = t.bytes();
            offsets.push(at);
            bytes.push(b as u8);
            at = (at + b * lanes).next_multiple_of(ROW_ALIGN);
        }
        RegLayout {
            lanes,
            offsets,
            bytes,
            size: at,
        }
    }

    /// The byte range of register `r`'s row.
    #[inline(always)]
    pub fn row(&self, r: Reg) -> std::ops::Range<usize> {
        let at = self.offsets[r as usize];
        at..at + usize::from(self.bytes[r as usize]) * self.lanes
    }
}

/// A lane value type: the unsigned integer of a row's width.
pub(crate) trait Lane: bytemuck::Pod + Copy + Default + Send + Sync + 'static {
    const BYTES: usize;
    fn get(self) -> u64;
    fn put(v: u64) -> Self;
}

macro_rules! lane {
    ($t:ty, $n:expr) => {
        impl Lane for $t {
            const BYTES: usize = $n;
            #[inline(always)]
            fn get(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn put(v: u64) -> Self {
                v as $t
            }
        }
    };
}
lane!(u8, 1);
lane!(u16, 2);
lane!(u32, 4);
lane!(u64, 8);

/// One worker's register file: rows laid out by a [`RegLayout`], in 64-byte aligned storage.
#[derive(Debug, Default)]
pub struct RegFile {
    /// Backing store as `u64`s so every row start (a multiple of 64 bytes) is aligned for any lane type.
    words: Vec<[u64; 8]>,
}

impl RegFile {
    /// Makes room for `layout` (contents unspecified until written).
    pub(crate) fn fit(&mut self, layout: &RegLayout) {
        let blocks = layout.size.div_ceil(64);
        if self.words.len() < blocks {
            self.words.resize(blocks, [0; 8]);
        }
    }

    /// The register file's bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.words)
    }

    /// The register file's bytes, mutably.
    #[inline(always)]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.words)
    }

    /// Base pointer (for compiled code, which indexes rows by `RegLayout::offsets`).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes_mut().as_mut_ptr()
    }
}

/// Typed access to rows of a register file with a layout.
pub(crate) struct Rows<'a> {
    pub(crate) layout: &'a RegLayout,
    pub(crate) file: &'a mut RegFile,
}

impl<'a> Rows<'a> {
    /// Row `r` as lanes of type `T` (whose width must be the register's; a mismatch is a
    /// lowering bug that `Ir::verify` rules out, and panics here rather than misreading).
    #[inline(always)]
    pub(crate) fn row<T: Lane>(&self, r: Reg) -> &[T] {
        bytemuck::cast_slice(&self.file.bytes()[self.layout.row(r)])
    }

    #[inline(always)]
    pub(crate) fn row_mut<T: Lane>(&mut self, r: Reg) -> &mut [T] {
        let range = self.layout.row(r);
        bytemuck::cast_slice_mut(&mut self.file.bytes_mut()[range])
    }

    /// `dst` mutably and `srcs` immutably, all of width `T`/`S`; `None` if `dst` is one of the
    /// sources (the caller then copies the sources first).
    #[inline(always)]
    pub(crate) fn split<D: Lane, S: Lane, const K: usize>(
        &mut self,
        dst: Reg,
        srcs: [Reg; K],
    ) -> Option<(&mut [D], [&[S]; K])> {
        if srcs.contains(&dst) {
            return None;
        }
        let d = self.layout.row(dst);
        let (lo, rest) = self.file.bytes_mut().split_at_mut(d.start);
        let (mid, hi) = rest.split_at_mut(d.end - d.start);
        let (lo, hi): (&[u8], &[u8]) = (lo, hi);
        let rows = srcs.map(|s| {
            let r = self.layout.row(s);
            let bytes = if r.start < d.start {
                &lo[r]
            } else {
                &hi[r.start - d.end..r.end - d.end]
            };
            bytemuck::cast_slice::<u8, S>(bytes)
        });
        Some((bytemuck::cast_slice_mut(mid), rows))
    }
}
