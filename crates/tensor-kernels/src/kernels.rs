//! Plan execution: the scalar kernels, the outer-dimension odometer and the
//! multi-threaded split. All scalar `unsafe` code of the crate lives here
//! (SIMD kernels live in `simd`).
//!
//! Execution model: a plan is an [`Inner`] kernel that copies one *unit* (a
//! contiguous row, or one element) plus a [`Geometry`] of loop dimensions
//! over those units. The units are numbered linearly (row-major over the loop
//! dimensions); a chunk `[start, end)` is executed by decoding `start` into
//! coordinates once and then running the innermost loop dimension as a
//! tight, monomorphised loop ([`Unit::run`]) with an odometer carrying into
//! the outer dimensions. Splitting a copy across threads is splitting the
//! linear unit range.
//!
//! Invariants (established by the planner, relied upon here): every unit
//! address `base + Σ coord·stride` plus the unit size lies within the
//! layout's extent, which fits in `isize`; distinct units write disjoint
//! destination bytes.

use std::ptr;

use crate::plan::CopyPlan;
use crate::{MAX_RANK, simd};

/// The kernel for one unit, chosen at plan time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    /// The whole copy is one block; units are bytes.
    Memcpy,
    /// As `Memcpy`, with AVX2 non-temporal stores.
    MemcpyStream,
    /// A `width`-byte move per unit (power of two, 1..=64): an element, or a
    /// short row of exactly `width` bytes.
    Fixed { width: usize },
    /// A short row of `width + tail` bytes (`0 < tail < width`), copied as
    /// two overlapping `width`-byte moves at offsets 0 and `tail`.
    Overlap { width: usize, tail: usize },
    /// A row of `64 < len <= MEDIUM_ROW_MAX` bytes copied inline as 64-byte
    /// moves, the last one overlapping its predecessor.
    MediumRows { len: usize },
    /// A row of `len > 64` bytes copied with `copy_nonoverlapping`.
    LongRows { len: usize },
    /// A row of `len > 64` bytes copied with AVX2 non-temporal stores.
    StreamRows { len: usize },
    /// AVX2 gather of `elem`-byte (4 or 8) elements into a contiguous
    /// destination.
    Gather { elem: usize },
}

/// Loop dimensions over units, outermost first.
#[derive(Debug, Clone)]
pub(crate) struct Geometry {
    rank: usize,
    dims: [u64; MAX_RANK],
    src: [usize; MAX_RANK],
    dst: [usize; MAX_RANK],
    units: u64,
}

impl Geometry {
    /// `dims` holds `(extent, src_stride, dst_stride)`, outermost first.
    pub(crate) fn new(dims: &[(u64, u64, u64)]) -> Self {
        assert!((1..=MAX_RANK).contains(&dims.len()));
        let mut g = Geometry {
            rank: dims.len(),
            dims: [1; MAX_RANK],
            src: [0; MAX_RANK],
            dst: [0; MAX_RANK],
            units: 1,
        };
        for (i, &(n, s, d)) in dims.iter().enumerate() {
            g.dims[i] = n;
            g.src[i] = s as usize;
            g.dst[i] = d as usize;
            g.units *= n;
        }
        g
    }

    pub(crate) fn units(&self) -> u64 {
        self.units
    }
}

/// A planned copy: kernel, geometry, thread count.
#[derive(Debug, Clone)]
pub(crate) struct Exec {
    inner: Inner,
    geo: Geometry,
    threads: usize,
}

/// Units per chunk are rounded up to a multiple of this for the memcpy
/// kernel, so that thread boundaries fall on cache-line multiples.
const MEMCPY_CHUNK_ALIGN: u64 = 4096;

impl Exec {
    pub(crate) fn new(inner: Inner, geo: Geometry, threads: usize) -> Self {
        Self {
            inner,
            geo,
            threads: threads.max(1),
        }
    }

    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Runs the plan on slices whose lengths the caller has checked against
    /// the plan's extents.
    pub(crate) fn run_slices(&self, src: &[u8], dst: &mut [u8]) {
        // Re-check here so the safety argument is local.
        let (s_need, d_need) = self.extents();
        assert!(src.len() as u64 >= s_need && dst.len() as u64 >= d_need);
        // SAFETY: the slices cover the extents the geometry addresses (checked
        // above), `&[u8]` and `&mut [u8]` cannot overlap, and the planner
        // guarantees disjoint destination units.
        unsafe { self.run(src.as_ptr(), dst.as_mut_ptr()) }
    }

    /// Bytes the geometry reads / writes from the base pointers, recomputed
    /// from the normalised form (equal to the plan's extents).
    fn extents(&self) -> (u64, u64) {
        let (us, ud) = match self.inner {
            Inner::Memcpy | Inner::MemcpyStream => (1, 1),
            Inner::Fixed { width } => (width as u64, width as u64),
            Inner::Overlap { width, tail } => ((width + tail) as u64, (width + tail) as u64),
            Inner::MediumRows { len } | Inner::LongRows { len } | Inner::StreamRows { len } => {
                (len as u64, len as u64)
            }
            Inner::Gather { elem } => (elem as u64, elem as u64),
        };
        let g = &self.geo;
        let mut s = us;
        let mut d = ud;
        for i in 0..g.rank {
            s += (g.dims[i] - 1) * g.src[i] as u64;
            d += (g.dims[i] - 1) * g.dst[i] as u64;
        }
        (s, d)
    }

    /// Executes the whole plan, splitting across threads if planned so.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of the plan's
    /// extents, and the two ranges must not overlap.
    pub(crate) unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let units = self.geo.units;
        if self.threads <= 1 {
            // SAFETY: forwarded caller contract; `0..units` is the whole range.
            unsafe { self.run_chunk(src, dst, 0, units) };
            return;
        }
        let mut chunk = units.div_ceil(self.threads as u64);
        if matches!(self.inner, Inner::Memcpy | Inner::MemcpyStream) {
            chunk = chunk.next_multiple_of(MEMCPY_CHUNK_ALIGN);
        }
        let ptrs = SendPtrs { src, dst };
        let tasks = units.div_ceil(chunk) as usize;
        let task = |i: usize| {
            let start = i as u64 * chunk;
            let end = (start + chunk).min(units);
            if start < end {
                let (src, dst) = ptrs.get();
                // SAFETY: forwarded caller contract; the chunks are disjoint unit ranges, and
                // distinct units write disjoint destination bytes (checked by the planner), so
                // tasks never write the same byte; sources are only read.
                unsafe { self.run_chunk(src, dst, start, end) }
            }
        };
        // The copy kernels do not panic; should one, the pool has caught it on its thread and
        // the other chunks still ran, so there is nothing better to do than carry on.
        let _ = tessera_workers::global().run(tasks, &task);
    }

    /// Executes units `start..end`.
    ///
    /// # Safety
    /// As for [`Exec::run`]; additionally `start <= end <= units`.
    unsafe fn run_chunk(&self, src: *const u8, dst: *mut u8, start: u64, end: u64) {
        let g = &self.geo;
        // SAFETY: (all arms) forwarded contract of `run_chunk`; each unit
        // kernel touches exactly the unit's bytes, which lie within the
        // extents by the geometry invariant.
        unsafe {
            match self.inner {
                Inner::Memcpy => {
                    let (a, n) = (start as usize, (end - start) as usize);
                    ptr::copy_nonoverlapping(src.add(a), dst.add(a), n);
                }
                Inner::MemcpyStream => {
                    let (a, n) = (start as usize, (end - start) as usize);
                    simd::stream_block(src.add(a), dst.add(a), n);
                }
                Inner::Fixed { width } => match width {
                    1 => run_range(Fixed::<1>, g, src, dst, start, end),
                    2 => run_range(Fixed::<2>, g, src, dst, start, end),
                    4 => run_range(Fixed::<4>, g, src, dst, start, end),
                    8 => run_range(Fixed::<8>, g, src, dst, start, end),
                    16 => run_range(Fixed::<16>, g, src, dst, start, end),
                    32 => run_range(Fixed::<32>, g, src, dst, start, end),
                    64 => run_range(Fixed::<64>, g, src, dst, start, end),
                    _ => unreachable!("fixed width {width}"),
                },
                Inner::Overlap { width, tail } => match width {
                    1 => run_range(Overlap::<1>(tail), g, src, dst, start, end),
                    2 => run_range(Overlap::<2>(tail), g, src, dst, start, end),
                    4 => run_range(Overlap::<4>(tail), g, src, dst, start, end),
                    8 => run_range(Overlap::<8>(tail), g, src, dst, start, end),
                    16 => run_range(Overlap::<16>(tail), g, src, dst, start, end),
                    32 => run_range(Overlap::<32>(tail), g, src, dst, start, end),
                    _ => unreachable!("overlap width {width}"),
                },
                Inner::MediumRows { len } => run_range(MediumRow(len), g, src, dst, start, end),
                Inner::LongRows { len } => run_range(LongRow(len), g, src, dst, start, end),
                Inner::StreamRows { len } => simd::stream_rows_chunk(len, g, src, dst, start, end),
                Inner::Gather { elem } => simd::gather_chunk(elem, g, src, dst, start, end),
            }
        }
    }
}

/// Raw base pointers that may be sent to the worker threads of one copy.
#[derive(Clone, Copy)]
struct SendPtrs {
    src: *const u8,
    dst: *mut u8,
}

// SAFETY: the pointers are only dereferenced inside `Exec::run`'s pool job,
// which returns before `run` does, so it outlives no borrow of the caller's buffers; each thread reads
// the (shared, read-only) source and writes a disjoint set of destination
// bytes (distinct units never share a destination byte), so sending them is
// free of data races.
unsafe impl Send for SendPtrs {}
// SAFETY: as for `Send`: the pool's tasks share one `SendPtrs` by reference and only copy the
// two addresses out of it.
unsafe impl Sync for SendPtrs {}

impl SendPtrs {
    /// Accessor so closures capture the whole (`Send`) struct, not its fields.
    fn get(self) -> (*const u8, *mut u8) {
        (self.src, self.dst)
    }
}

/// A kernel for a run of units along one loop dimension.
pub(crate) trait Unit: Copy {
    /// Copies `count` units; unit `k` is read at `src + k·ss` and written at
    /// `dst + k·ds`.
    ///
    /// # Safety
    /// Every unit read/written must lie within valid, non-overlapping
    /// source/destination memory.
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize);
}

/// One unaligned `W`-byte move per unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fixed<const W: usize>;

impl<const W: usize> Unit for Fixed<W> {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        for k in 0..count {
            // SAFETY: unit `k` lies within the caller-guaranteed memory;
            // unaligned accesses are used throughout.
            unsafe {
                let v = ptr::read_unaligned(src.add(k * ss).cast::<[u8; W]>());
                ptr::write_unaligned(dst.add(k * ds).cast::<[u8; W]>(), v);
            }
        }
    }
}

/// Two overlapping `W`-byte moves per unit, at offsets 0 and `self.0`,
/// covering a row of `W + self.0` bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Overlap<const W: usize>(usize);

impl<const W: usize> Unit for Overlap<W> {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        let tail = self.0;
        for k in 0..count {
            // SAFETY: the row `[0, W + tail)` of unit `k` lies within the
            // caller-guaranteed memory, and so do both `W`-byte halves.
            unsafe {
                let s = src.add(k * ss);
                let d = dst.add(k * ds);
                let a = ptr::read_unaligned(s.cast::<[u8; W]>());
                let b = ptr::read_unaligned(s.add(tail).cast::<[u8; W]>());
                ptr::write_unaligned(d.cast::<[u8; W]>(), a);
                ptr::write_unaligned(d.add(tail).cast::<[u8; W]>(), b);
            }
        }
    }
}

/// Rows longer than this use a `memcpy` call per row instead of inline
/// 64-byte moves.
pub(crate) const MEDIUM_ROW_MAX: usize = 512;

/// Inline 64-byte moves per unit covering a row of `self.0` bytes
/// (`64 < self.0 <= MEDIUM_ROW_MAX`); the last move ends at the row end and
/// may overlap the previous one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MediumRow(usize);

impl Unit for MediumRow {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        let len = self.0;
        debug_assert!(len > 64);
        for k in 0..count {
            // SAFETY: every 64-byte move lies within `[0, len)` of row `k`,
            // which lies within the caller-guaranteed memory.
            unsafe {
                let s = src.add(k * ss);
                let d = dst.add(k * ds);
                let mut off = 0;
                while off + 64 < len {
                    let v = ptr::read_unaligned(s.add(off).cast::<[u8; 64]>());
                    ptr::write_unaligned(d.add(off).cast::<[u8; 64]>(), v);
                    off += 64;
                }
                let v = ptr::read_unaligned(s.add(len - 64).cast::<[u8; 64]>());
                ptr::write_unaligned(d.add(len - 64).cast::<[u8; 64]>(), v);
            }
        }
    }
}

/// A `copy_nonoverlapping` of `self.0` bytes per unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LongRow(pub(crate) usize);

impl Unit for LongRow {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        for k in 0..count {
            // SAFETY: row `k` lies within the caller-guaranteed,
            // non-overlapping memory.
            unsafe { ptr::copy_nonoverlapping(src.add(k * ss), dst.add(k * ds), self.0) };
        }
    }
}

/// Runs units `start..end` of `g` with kernel `u`: decode `start` into
/// coordinates once, then alternate a tight run along the innermost loop
/// dimension with an odometer step over the outer ones.
///
/// # Safety
/// `src`/`dst` valid for the geometry's extents (with `u`'s unit size),
/// non-overlapping; `start <= end <= g.units`.
#[inline(always)]
pub(crate) unsafe fn run_range<U: Unit>(
    u: U,
    g: &Geometry,
    src: *const u8,
    dst: *mut u8,
    start: u64,
    end: u64,
) {
    debug_assert!(start <= end && end <= g.units);
    if start >= end {
        return;
    }
    let last = g.rank - 1;
    let mut coord = [0u64; MAX_RANK];
    let mut rem = start;
    let mut so = 0usize;
    let mut dof = 0usize;
    for i in (0..g.rank).rev() {
        coord[i] = rem % g.dims[i];
        rem /= g.dims[i];
        so += coord[i] as usize * g.src[i];
        dof += coord[i] as usize * g.dst[i];
    }
    let (ss, ds) = (g.src[last], g.dst[last]);
    let mut left = end - start;
    loop {
        let n = left.min(g.dims[last] - coord[last]);
        // SAFETY: `so`/`dof` are the offsets of the unit at `coord`, and the
        // `n` units along the innermost dimension all exist (n ≤ remaining
        // extent), so they lie within the caller-guaranteed memory.
        unsafe { u.run(src.add(so), ss, dst.add(dof), ds, n as usize) };
        left -= n;
        if left == 0 {
            return;
        }
        // Odometer: the innermost dimension wrapped; carry outwards.
        so -= coord[last] as usize * ss;
        dof -= coord[last] as usize * ds;
        coord[last] = 0;
        let mut i = last;
        loop {
            // `left > 0` guarantees an outer dimension can still advance.
            i -= 1;
            coord[i] += 1;
            so += g.src[i];
            dof += g.dst[i];
            if coord[i] < g.dims[i] {
                break;
            }
            so -= coord[i] as usize * g.src[i];
            dof -= coord[i] as usize * g.dst[i];
            coord[i] = 0;
        }
    }
}

/// Public raw entry point lives here so that `plan` stays free of `unsafe`.
impl CopyPlan {
    /// Executes the copy on raw pointers. Offsets are relative to `src` and
    /// `dst`, which need no particular alignment.
    ///
    /// # Safety
    /// `src` must be valid for reads of [`src_extent`](Self::src_extent)
    /// bytes, `dst` valid for writes of [`dst_extent`](Self::dst_extent)
    /// bytes, and the two ranges must not overlap. No alignment is assumed.
    pub unsafe fn execute_raw(&self, src: *const u8, dst: *mut u8) {
        // SAFETY: forwarded caller contract; the geometry's extents equal
        // `src_extent`/`dst_extent`.
        unsafe { self.exec.run(src, dst) }
    }
}
