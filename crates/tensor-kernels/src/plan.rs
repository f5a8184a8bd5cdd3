//! The planner: validation, normalisation and kernel selection (safe code).
//!
//! [`CopyPlan::new`] does all the work that does not depend on the buffers:
//!
//! 1. validate rank, lengths, element size, extents (everything must fit in
//!    `isize`) and that destination elements never share a byte;
//! 2. drop size-1 dimensions, stably sort the rest by decreasing destination
//!    stride (the copy is a bijection over coordinates, so any permutation
//!    applied to both layouts is valid), and merge neighbours that are
//!    contiguous in both layouts;
//! 3. classify the result into a [`KernelKind`], choose SIMD variants with
//!    run-time CPU feature detection, and decide how many threads to use.
//!
//! The result is a `kernels::Exec`, which the unsafe kernels execute
//! without further checks. Invariant handed to them: the normalised
//! geometry addresses exactly the bytes of the original layouts, and the
//! destination elements are pairwise disjoint.

use crate::error::PlanError;
use crate::kernels::{Exec, Geometry, Inner, MEDIUM_ROW_MAX};
use crate::{MAX_RANK, simd};

/// Which kernel a [`CopyPlan`] executes (for tests, benchmarks and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// Both layouts are one contiguous block: a single `memcpy`
    /// (split into byte ranges across threads when large).
    Memcpy,
    /// Contiguous rows longer than 64 bytes: inline 64-byte moves (the last
    /// one overlapping) up to 512 bytes, one `copy_nonoverlapping` each
    /// beyond.
    LongRows,
    /// Contiguous rows longer than 64 bytes into a large destination, with
    /// AVX2 non-temporal stores for whole destination cache lines.
    /// Scalar twin: [`KernelKind::LongRows`].
    StreamRows,
    /// A single contiguous block into a large destination, with AVX2
    /// non-temporal stores (split across threads like `Memcpy`).
    /// Scalar twin: [`KernelKind::Memcpy`].
    MemcpyStream,
    /// Contiguous rows of 1..=64 bytes: one fixed-size unaligned move for
    /// 1, 2, 4, 8, 16, 32 and 64 bytes, two overlapping fixed moves otherwise.
    ShortRows,
    /// The innermost dimension is strided on at least one side: an element
    /// loop specialised per element size.
    Elements,
    /// Destination-contiguous, source-strided 4- or 8-byte elements gathered
    /// with AVX2 `vpgather`. Scalar twin: [`KernelKind::Elements`].
    GatherAvx2,
}

/// Tuning knobs for [`CopyPlan::with_options`]; [`Default`] is what
/// [`CopyPlan::new`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// Allow SIMD kernels (still subject to run-time CPU detection).
    /// `false` forces the scalar twins.
    pub simd: bool,
    /// Upper bound on worker threads; 0 means
    /// [`std::thread::available_parallelism`].
    pub max_threads: usize,
    /// Payload size in bytes from which a copy is split across threads.
    pub parallel_threshold: u64,
    /// Destination size in bytes from which a fully contiguous copy uses
    /// non-temporal stores ([`KernelKind::MemcpyStream`]); `u64::MAX`
    /// disables it.
    pub stream_threshold: u64,
    /// Destination extent in bytes from which long rows use non-temporal
    /// stores ([`KernelKind::StreamRows`]); `u64::MAX` disables it.
    pub stream_rows_threshold: u64,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            simd: true,
            max_threads: 0,
            parallel_threshold: 1 << 20,
            // Measured on a 2-core KVM guest (Xeon, AVX-512): streaming
            // stores beat `memcpy` by ~1.5x for 64 MiB packed copies, while
            // for padded rows (partial destination lines) they were no
            // faster than `memcpy` per row, so row streaming is opt-in.
            stream_threshold: 32 << 20,
            stream_rows_threshold: u64::MAX,
        }
    }
}

/// A validated, normalised tensor copy, ready to be executed any number of
/// times on any buffers of sufficient size.
#[derive(Debug, Clone)]
pub struct CopyPlan {
    pub(crate) elem_size: usize,
    pub(crate) src_extent: u64,
    pub(crate) dst_extent: u64,
    pub(crate) bytes: u64,
    pub(crate) kind: KernelKind,
    pub(crate) exec: Exec,
}

/// One normalised dimension: extent and the two byte strides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dim {
    n: u64,
    src: u64,
    dst: u64,
}

/// Destinations with at most this many elements whose strides are not
/// nested get an exact (sort-based) overlap check instead of a rejection.
const EXACT_OVERLAP_LIMIT: u64 = 1 << 20;

impl CopyPlan {
    /// Plans a copy of `dims` (outermost first) of `elem_size`-byte elements
    /// from the `src_strides` layout to the `dst_strides` layout (byte
    /// strides), with default [`PlanOptions`].
    pub fn new(
        elem_size: usize,
        dims: &[u64],
        src_strides: &[u64],
        dst_strides: &[u64],
    ) -> Result<CopyPlan, PlanError> {
        Self::with_options(
            elem_size,
            dims,
            src_strides,
            dst_strides,
            &PlanOptions::default(),
        )
    }

    /// [`CopyPlan::new`] with explicit tuning knobs.
    pub fn with_options(
        elem_size: usize,
        dims: &[u64],
        src_strides: &[u64],
        dst_strides: &[u64],
        opts: &PlanOptions,
    ) -> Result<CopyPlan, PlanError> {
        let rank = dims.len();
        if rank == 0 {
            return Err(PlanError::RankZero);
        }
        if src_strides.len() != rank || dst_strides.len() != rank {
            return Err(PlanError::LengthMismatch {
                dims: rank,
                src_strides: src_strides.len(),
                dst_strides: dst_strides.len(),
            });
        }
        if rank > MAX_RANK {
            return Err(PlanError::RankTooLarge { rank });
        }
        if !elem_size.is_power_of_two() || elem_size > 16 {
            return Err(PlanError::BadElemSize(elem_size));
        }
        if let Some(index) = dims.iter().position(|&d| d == 0) {
            return Err(PlanError::ZeroDim { index });
        }
        let e = elem_size as u64;
        let bytes = dims
            .iter()
            .try_fold(e, |acc, &d| acc.checked_mul(d))
            .ok_or(PlanError::Overflow)?;
        let src_extent = extent(e, dims, src_strides)?;
        let dst_extent = extent(e, dims, dst_strides)?;
        if bytes > isize::MAX as u64 {
            return Err(PlanError::Overflow);
        }

        // Step 1: drop size-1 dimensions.
        let mut list: Vec<Dim> = (0..rank)
            .filter(|&i| dims[i] > 1)
            .map(|i| Dim {
                n: dims[i],
                src: src_strides[i],
                dst: dst_strides[i],
            })
            .collect();
        check_dst_disjoint(e, &list)?;
        if list.is_empty() {
            list.push(Dim {
                n: 1,
                src: e,
                dst: e,
            });
        }
        // Step 2: order by decreasing destination stride (stable).
        list.sort_by_key(|d| std::cmp::Reverse(d.dst));
        // Step 3: merge neighbours contiguous in both layouts.
        let mut merged: Vec<Dim> = Vec::with_capacity(list.len());
        for d in list {
            match merged.last_mut() {
                Some(prev) if prev.src == d.src * d.n && prev.dst == d.dst * d.n => {
                    *prev = Dim {
                        n: prev.n * d.n,
                        src: d.src,
                        dst: d.dst,
                    };
                }
                _ => merged.push(d),
            }
        }
        if merged.len() == 1 && merged[0].n == 1 {
            // A single element: its strides are irrelevant.
            merged[0].src = e;
            merged[0].dst = e;
        }

        // Step 4: classify.
        let inner = *merged.last().expect("at least one dimension");
        let avx2 = opts.simd && simd::avx2_available();
        let stream = avx2 && dst_extent >= opts.stream_threshold;
        let stream_rows = avx2 && dst_extent >= opts.stream_rows_threshold;
        let (kind, inner_kernel, loop_dims): (KernelKind, Inner, &[Dim]) =
            if merged.len() == 1 && inner.src == e && inner.dst == e {
                if stream {
                    (KernelKind::MemcpyStream, Inner::MemcpyStream, &[])
                } else {
                    (KernelKind::Memcpy, Inner::Memcpy, &[])
                }
            } else if inner.src == e && inner.dst == e {
                let row = (inner.n * e) as usize;
                let outer = &merged[..merged.len() - 1];
                if row > 64 {
                    if stream_rows {
                        (
                            KernelKind::StreamRows,
                            Inner::StreamRows { len: row },
                            outer,
                        )
                    } else {
                        let inner = if row <= MEDIUM_ROW_MAX {
                            Inner::MediumRows { len: row }
                        } else {
                            Inner::LongRows { len: row }
                        };
                        (KernelKind::LongRows, inner, outer)
                    }
                } else {
                    (KernelKind::ShortRows, short_row(row), outer)
                }
            } else if avx2
                && inner.dst == e
                && inner.src != 0
                && (e == 8 || (e == 4 && inner.src <= (i32::MAX / 7) as u64))
            {
                (
                    KernelKind::GatherAvx2,
                    Inner::Gather { elem: e as usize },
                    &merged[..],
                )
            } else {
                (
                    KernelKind::Elements,
                    Inner::Fixed { width: e as usize },
                    &merged[..],
                )
            };

        let geometry = match kind {
            KernelKind::Memcpy | KernelKind::MemcpyStream => Geometry::new(&[(bytes, 1, 1)]),
            _ => {
                let dims: Vec<(u64, u64, u64)> = if loop_dims.is_empty() {
                    vec![(1, 0, 0)]
                } else {
                    loop_dims.iter().map(|d| (d.n, d.src, d.dst)).collect()
                };
                Geometry::new(&dims)
            }
        };

        // Step 6: threads.
        let threads = if bytes >= opts.parallel_threshold {
            let max = if opts.max_threads == 0 {
                available_threads()
            } else {
                opts.max_threads
            };
            (max as u64).min(geometry.units()).max(1) as usize
        } else {
            1
        };

        Ok(CopyPlan {
            elem_size,
            src_extent,
            dst_extent,
            bytes,
            kind,
            exec: Exec::new(inner_kernel, geometry, threads),
        })
    }

    /// Bytes from the first source element to one past the last byte read:
    /// `Σ (dims[i]−1)·src_strides[i] + elem_size`.
    pub fn src_extent(&self) -> u64 {
        self.src_extent
    }

    /// Bytes from the first destination element to one past the last byte
    /// written: `Σ (dims[i]−1)·dst_strides[i] + elem_size`.
    pub fn dst_extent(&self) -> u64 {
        self.dst_extent
    }

    /// Payload bytes: `elem_size · Π dims`.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The element size the plan was made for.
    pub fn elem_size(&self) -> usize {
        self.elem_size
    }

    /// The kernel the planner chose.
    pub fn kernel(&self) -> KernelKind {
        self.kind
    }

    /// Number of threads the copy will be split across (1 = calling thread).
    pub fn threads(&self) -> usize {
        self.exec.threads()
    }

    /// Safe wrapper around [`CopyPlan::execute_raw`]: checks that `src`
    /// holds at least [`src_extent`](Self::src_extent) bytes and `dst` at
    /// least [`dst_extent`](Self::dst_extent) bytes. Offsets are relative to
    /// the start of each slice.
    pub fn execute(&self, src: &[u8], dst: &mut [u8]) -> Result<(), PlanError> {
        if (src.len() as u64) < self.src_extent {
            return Err(PlanError::SrcTooSmall {
                needed: self.src_extent,
                len: src.len(),
            });
        }
        if (dst.len() as u64) < self.dst_extent {
            return Err(PlanError::DstTooSmall {
                needed: self.dst_extent,
                len: dst.len(),
            });
        }
        self.exec.run_slices(src, dst);
        Ok(())
    }
}

/// `Σ (d_i − 1)·s_i + e`, checked to fit in `isize`.
fn extent(e: u64, dims: &[u64], strides: &[u64]) -> Result<u64, PlanError> {
    let mut acc = e;
    for (&d, &s) in dims.iter().zip(strides) {
        acc = (d - 1)
            .checked_mul(s)
            .and_then(|x| x.checked_add(acc))
            .ok_or(PlanError::Overflow)?;
    }
    if acc > isize::MAX as u64 {
        return Err(PlanError::Overflow);
    }
    Ok(acc)
}

/// Fails unless the destination elements (size `e`) of the non-unit
/// dimensions `dims` are pairwise disjoint.
///
/// Fast path: sorted by increasing stride, each stride must be at least the
/// extent of all smaller dimensions (the nested layouts Vulkan allows).
/// Otherwise small tensors get an exact check by enumerating and sorting all
/// element offsets; large non-nested ones are rejected conservatively.
fn check_dst_disjoint(e: u64, dims: &[Dim]) -> Result<(), PlanError> {
    let mut sorted: Vec<(u64, u64)> = dims.iter().map(|d| (d.dst, d.n)).collect();
    sorted.sort_unstable();
    let mut ext = e;
    let mut nested = true;
    for &(s, n) in &sorted {
        if s < ext {
            nested = false;
            break;
        }
        // Cannot overflow: bounded by the already-checked dst extent.
        ext += (n - 1) * s;
    }
    if nested {
        return Ok(());
    }
    let count: u64 = dims.iter().map(|d| d.n).product();
    if count > EXACT_OVERLAP_LIMIT {
        return Err(PlanError::DstOverlap);
    }
    let mut offsets = Vec::with_capacity(count as usize);
    let mut coord = vec![0u64; dims.len()];
    loop {
        offsets.push(coord.iter().zip(dims).map(|(c, d)| c * d.dst).sum::<u64>());
        let mut i = dims.len();
        loop {
            if i == 0 {
                offsets.sort_unstable();
                return if offsets.windows(2).all(|w| w[1] - w[0] >= e) {
                    Ok(())
                } else {
                    Err(PlanError::DstOverlap)
                };
            }
            i -= 1;
            coord[i] += 1;
            if coord[i] < dims[i].n {
                break;
            }
            coord[i] = 0;
        }
    }
}

/// The short-row kernel for a row of `row` bytes (1..=64).
fn short_row(row: usize) -> Inner {
    debug_assert!((1..=64).contains(&row));
    if row.is_power_of_two() {
        Inner::Fixed { width: row }
    } else {
        let width = 1usize << (usize::BITS - 1 - row.leading_zeros());
        Inner::Overlap {
            width,
            tail: row - width,
        }
    }
}

/// `available_parallelism`, cached (it reads cgroup files on Linux).
fn available_threads() -> usize {
    tessera_workers::global().threads()
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn merges_packed_into_memcpy() {
        let p = CopyPlan::new(4, &[3, 5, 7], &[140, 28, 4], &[140, 28, 4]).unwrap();
        assert_eq!(p.kernel(), KernelKind::Memcpy);
        assert_eq!(p.bytes(), 420);
        assert_eq!(p.src_extent(), 420);
    }

    #[test]
    fn short_row_widths() {
        assert_eq!(short_row(1), Inner::Fixed { width: 1 });
        assert_eq!(short_row(3), Inner::Overlap { width: 2, tail: 1 });
        assert_eq!(
            short_row(63),
            Inner::Overlap {
                width: 32,
                tail: 31
            }
        );
        assert_eq!(short_row(64), Inner::Fixed { width: 64 });
    }

    #[test]
    fn overlap_detection() {
        let d = |n, dst| Dim { n, src: 0, dst };
        assert!(check_dst_disjoint(1, &[d(3, 2), d(2, 5)]).is_ok());
        // Injective but interleaved: {0,2,4} + {0,3}.
        assert!(check_dst_disjoint(1, &[d(3, 2), d(2, 3)]).is_ok());
        assert!(check_dst_disjoint(2, &[d(3, 2), d(2, 3)]).is_err());
        assert!(check_dst_disjoint(4, &[d(4, 2)]).is_err());
        assert!(check_dst_disjoint(4, &[d(4, 0)]).is_err());
    }
}
