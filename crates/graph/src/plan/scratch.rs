//! A node's scratch memory during a run: the buffers a fast kernel needs besides its operands
//! and results (a right-hand side packed at dispatch, a convolution's padded input image, im2col
//! rows). Their sizes are known at planning, so the plan places each node's scratch in the run's
//! arena (the session's TRANSIENT memory) like a value that lives only while its node runs; a
//! dispatch allocates nothing for them.
//!
//! Invariants: a kernel takes its pieces with [`Scratch::take`] in the order its planning
//! function added them to a [`ScratchSize`]; each piece starts on a [`SCRATCH_ALIGNMENT`]
//! boundary (in absolute address, whatever the arena's own alignment), and a piece that does not
//! fit is an error, never a read or write outside the scratch.

use crate::error::{GraphError, Result};

/// Where every piece starts: a cache line.
pub(super) const SCRATCH_ALIGNMENT: usize = 64;

/// The bytes a node's pieces need, summed at planning in the order the kernel takes them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct ScratchSize(usize);

impl ScratchSize {
    /// Adds a piece of `len` elements of `T` (with room to align its start).
    pub(super) fn add<T>(self, len: usize) -> Result<ScratchSize> {
        len.checked_mul(size_of::<T>())
            .and_then(|b| b.checked_add(SCRATCH_ALIGNMENT))
            .and_then(|b| b.checked_add(self.0))
            .map(ScratchSize)
            .ok_or_else(|| GraphError::new("Tessera", "a kernel's scratch memory is too large"))
    }

    /// This size and then `other`'s.
    pub(super) fn then(self, other: ScratchSize) -> Result<ScratchSize> {
        self.0
            .checked_add(other.0)
            .map(ScratchSize)
            .ok_or_else(|| GraphError::new("Tessera", "a kernel's scratch memory is too large"))
    }

    /// `count` times this size (per-task pieces).
    pub(super) fn times(self, count: usize) -> Result<ScratchSize> {
        self.0
            .checked_mul(count)
            .map(ScratchSize)
            .ok_or_else(|| GraphError::new("Tessera", "a kernel's scratch memory is too large"))
    }

    /// Bytes.
    pub(super) fn bytes(self) -> usize {
        self.0
    }
}

/// A node's scratch bytes, handed out piece by piece.
pub(super) struct Scratch<'a> {
    rest: &'a mut [u8],
}

impl<'a> Scratch<'a> {
    pub(super) fn new(bytes: &'a mut [u8]) -> Scratch<'a> {
        Scratch { rest: bytes }
    }

    /// The next `len` elements of `T`, starting on a [`SCRATCH_ALIGNMENT`] boundary. Their
    /// contents are whatever the memory held.
    ///
    /// # Errors
    /// When they do not fit in what is left (the planning size missed a piece: an internal
    /// error).
    pub(super) fn take<T: bytemuck::Pod>(&mut self, len: usize) -> Result<&'a mut [T]> {
        let rest = std::mem::take(&mut self.rest);
        let pad = rest.as_ptr().align_offset(SCRATCH_ALIGNMENT);
        let fits = len
            .checked_mul(size_of::<T>())
            .and_then(|b| b.checked_add(pad))
            .filter(|&end| end <= rest.len());
        let Some(end) = fits else {
            return Err(GraphError::new(
                "Tessera",
                format!(
                    "internal error: a kernel's scratch piece of {len}×{} bytes does not fit in the {} bytes left",
                    size_of::<T>(),
                    rest.len()
                ),
            ));
        };
        let (piece, tail) = rest.split_at_mut(end);
        self.rest = tail;
        bytemuck::try_cast_slice_mut(&mut piece[pad..])
            .map_err(|_| GraphError::new("Tessera", "internal error: a misaligned scratch piece"))
    }

    /// The rest, cut into `count` parts of `each` bytes (one per pool task).
    pub(super) fn split(self, count: usize, each: usize) -> Result<Vec<&'a mut [u8]>> {
        let total = count.checked_mul(each);
        if total.is_none_or(|t| t > self.rest.len()) {
            return Err(GraphError::new(
                "Tessera",
                "internal error: per-task scratch larger than the node's",
            ));
        }
        if each == 0 {
            return Ok((0..count).map(|_| <&mut [u8]>::default()).collect());
        }
        Ok(self.rest.chunks_exact_mut(each).take(count).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_aligned_disjoint_and_within_the_planned_size() {
        let size = ScratchSize::default()
            .add::<f32>(10)
            .and_then(|s| s.add::<u8>(3))
            .and_then(|s| s.add::<i16>(100))
            .unwrap();
        // Any start offset: the pieces still fit.
        let mut words = vec![0u64; size.bytes() / 8 + 2];
        for skew in [0usize, 1, 3, 8, 13] {
            let bytes =
                &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[skew..skew + size.bytes()];
            let mut s = Scratch::new(bytes);
            let a = s.take::<f32>(10).unwrap();
            let b = s.take::<u8>(3).unwrap();
            let c = s.take::<i16>(100).unwrap();
            for p in [
                a.as_ptr() as usize,
                b.as_ptr() as usize,
                c.as_ptr() as usize,
            ] {
                assert_eq!(p % SCRATCH_ALIGNMENT, 0);
            }
            assert!((a.as_ptr() as usize + 40) <= b.as_ptr() as usize);
            assert!((b.as_ptr() as usize + 3) <= c.as_ptr() as usize);
            a.fill(1.0);
            b.fill(2);
            c.fill(3);
            assert!(s.take::<u8>(65).is_err());
        }
    }

    #[test]
    fn split_gives_equal_parts_or_an_error() {
        let mut bytes = [0u8; 100];
        let parts = Scratch::new(&mut bytes).split(3, 30).unwrap();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [30, 30, 30]
        );
        assert!(Scratch::new(&mut bytes).split(4, 30).is_err());
        assert_eq!(Scratch::new(&mut bytes).split(2, 0).unwrap().len(), 2);
    }
}
