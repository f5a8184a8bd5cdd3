//! x86_64 kernels: AVX2 non-temporal row streaming and AVX2 element
//! gathers.
//!
//! Callers (the planner) guarantee AVX2 is present before selecting any of
//! these; every `#[target_feature]` call below relies on that. Each kernel
//! reads and writes exactly its units' bytes: streaming only issues
//! non-temporal stores for 64-byte destination lines that lie entirely
//! inside a row (head and tail bytes use ordinary copies), and gathers read
//! exactly one element per lane. Non-temporal stores are fenced with
//! `sfence` at the end of every chunk, before the chunk's thread returns.

use std::arch::x86_64::*;
use std::ptr;

use crate::kernels::{Fixed, Geometry, Unit, run_range};

/// Long rows of `self.0` bytes with non-temporal stores.
#[derive(Debug, Clone, Copy)]
struct StreamRow(usize);

impl Unit for StreamRow {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        // SAFETY: the planner only selects this kernel when AVX2 is
        // available; the memory contract is forwarded.
        unsafe { stream_rows(self.0, src, ss, dst, ds, count) }
    }
}

/// Copies `count` rows of `len` bytes, streaming whole destination lines.
///
/// # Safety
/// AVX2 available; each row `k` (`src + k·ss`, `dst + k·ds`, `len`
/// bytes) valid and non-overlapping.
#[target_feature(enable = "avx2")]
unsafe fn stream_rows(
    len: usize,
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
    count: usize,
) {
    for k in 0..count {
        // SAFETY: row `k` lies within the caller-guaranteed memory.
        unsafe { stream_copy(src.add(k * ss), dst.add(k * ds), len) }
    }
}

/// Copies `len` bytes from `s` to `d`: ordinary copies for the bytes before
/// the first and after the last 64-byte-aligned destination line, two
/// non-temporal 32-byte stores per whole line in between.
///
/// # Safety
/// AVX2 available; `s` valid for reads and `d` for writes of `len`
/// bytes; the ranges do not overlap.
#[target_feature(enable = "avx2")]
unsafe fn stream_copy(s: *const u8, d: *mut u8, len: usize) {
    let head = ((d as usize).wrapping_neg() & 63).min(len);
    // SAFETY: every access stays within `[0, len)` of both ranges; the
    // streamed destination addresses are 64-byte aligned as
    // `_mm256_stream_si256` requires.
    unsafe {
        ptr::copy_nonoverlapping(s, d, head);
        let mut off = head;
        while off + 64 <= len {
            let a = _mm256_loadu_si256(s.add(off).cast::<__m256i>());
            let b = _mm256_loadu_si256(s.add(off + 32).cast::<__m256i>());
            _mm256_stream_si256(d.add(off).cast::<__m256i>(), a);
            _mm256_stream_si256(d.add(off + 32).cast::<__m256i>(), b);
            off += 64;
        }
        ptr::copy_nonoverlapping(s.add(off), d.add(off), len - off);
    }
}

/// One contiguous byte range with non-temporal stores, then `sfence`.
///
/// # Safety
/// AVX2 available; `s`/`d` valid for `len` bytes, non-overlapping.
pub(crate) unsafe fn stream_block(s: *const u8, d: *mut u8, len: usize) {
    // SAFETY: forwarded contract.
    unsafe { stream_copy(s, d, len) };
    // SAFETY: SSE is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// Runs units `start..end` of a streaming-rows plan, then fences the
/// non-temporal stores.
///
/// # Safety
/// AVX2 available; as for `kernels::run_range` with rows of `len` bytes.
pub(crate) unsafe fn stream_rows_chunk(
    len: usize,
    g: &Geometry,
    src: *const u8,
    dst: *mut u8,
    start: u64,
    end: u64,
) {
    // SAFETY: forwarded contract.
    unsafe { run_range(StreamRow(len), g, src, dst, start, end) };
    // Make the weakly-ordered streaming stores globally visible before the
    // chunk is reported done (thread join / return to the caller).
    // SAFETY: SSE is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// Gather of 4-byte elements into a contiguous destination.
#[derive(Debug, Clone, Copy)]
struct Gather4;

impl Unit for Gather4 {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        debug_assert_eq!(ds, 4);
        // SAFETY: AVX2 checked by the planner (which also guarantees
        // `7·ss ≤ i32::MAX`); memory contract forwarded.
        unsafe { gather4(src, ss, dst, count) }
    }
}

/// Gather of 8-byte elements into a contiguous destination.
#[derive(Debug, Clone, Copy)]
struct Gather8;

impl Unit for Gather8 {
    #[inline(always)]
    unsafe fn run(self, src: *const u8, ss: usize, dst: *mut u8, ds: usize, count: usize) {
        debug_assert_eq!(ds, 8);
        // SAFETY: AVX2 checked by the planner; memory contract forwarded.
        unsafe { gather8(src, ss, dst, count) }
    }
}

/// `count` 4-byte elements from `src + k·ss` to `dst + 4k`, eight per
/// `vpgatherdd`.
///
/// # Safety
/// AVX2 available; `7·ss ≤ i32::MAX`; every element valid, ranges disjoint.
#[target_feature(enable = "avx2")]
unsafe fn gather4(src: *const u8, ss: usize, dst: *mut u8, count: usize) {
    let s = ss as i32;
    let idx = _mm256_setr_epi32(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
    let mut k = 0;
    while k + 8 <= count {
        // SAFETY: elements `k..k+8` exist, so every lane address
        // `src + (k+j)·ss` is readable for 4 bytes; the 32 destination bytes
        // are elements `k..k+8` of the contiguous destination run.
        unsafe {
            let v = _mm256_i32gather_epi32::<1>(src.add(k * ss).cast::<i32>(), idx);
            _mm256_storeu_si256(dst.add(k * 4).cast::<__m256i>(), v);
        }
        k += 8;
    }
    if k < count {
        // SAFETY: element `k` exists, so both pointers are in bounds; the
        // remaining elements follow the same contract.
        unsafe { Fixed::<4>.run(src.add(k * ss), ss, dst.add(k * 4), 4, count - k) }
    }
}

/// `count` 8-byte elements from `src + k·ss` to `dst + 8k`, four per
/// `vpgatherqq`.
///
/// # Safety
/// AVX2 available; every element valid, ranges disjoint.
#[target_feature(enable = "avx2")]
unsafe fn gather8(src: *const u8, ss: usize, dst: *mut u8, count: usize) {
    let s = ss as i64;
    let idx = _mm256_setr_epi64x(0, s, 2 * s, 3 * s);
    let mut k = 0;
    while k + 4 <= count {
        // SAFETY: elements `k..k+4` exist (so `3·ss` fits the extent and
        // thus `i64`); each lane reads one element, the store writes
        // elements `k..k+4` of the contiguous destination run.
        unsafe {
            let v = _mm256_i64gather_epi64::<1>(src.add(k * ss).cast::<i64>(), idx);
            _mm256_storeu_si256(dst.add(k * 8).cast::<__m256i>(), v);
        }
        k += 4;
    }
    if k < count {
        // SAFETY: element `k` exists; remaining elements follow the contract.
        unsafe { Fixed::<8>.run(src.add(k * ss), ss, dst.add(k * 8), 8, count - k) }
    }
}

/// Runs units (elements) `start..end` of a gather plan of `elem`-byte
/// elements.
///
/// # Safety
/// AVX2 available; as for `kernels::run_range` with `elem`-byte units, the
/// innermost loop dimension destination-contiguous.
pub(crate) unsafe fn gather_chunk(
    elem: usize,
    g: &Geometry,
    src: *const u8,
    dst: *mut u8,
    start: u64,
    end: u64,
) {
    // SAFETY: forwarded contract.
    unsafe {
        match elem {
            4 => run_range(Gather4, g, src, dst, start, end),
            8 => run_range(Gather8, g, src, dst, start, end),
            _ => unreachable!("gather of {elem}-byte elements"),
        }
    }
}
