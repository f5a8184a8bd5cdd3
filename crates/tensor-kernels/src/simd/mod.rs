//! Architecture-specific kernels, selected once at plan time.
//!
//! Each SIMD kernel has a scalar twin in `kernels` computing the same bytes:
//!
//! | SIMD kernel (x86_64)                 | scalar twin              |
//! |--------------------------------------|--------------------------|
//! | `StreamRows` (AVX2 NT stores)        | `LongRows` (`memcpy`)    |
//! | `MemcpyStream` (AVX2 NT stores)      | `Memcpy`                 |
//! | `GatherAvx2` (`vpgather`)            | `Elements` (`Fixed<E>`)  |
//!
//! [`avx2_available`] is the only detection point; the planner never
//! selects a SIMD kernel when it returns `false`,
//! so on other architectures
//! the entry points are unreachable. Invariant: every kernel here touches
//! exactly the bytes of the units it is given (no over-reads, no writes to
//! gaps).

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{gather_chunk, stream_block, stream_rows_chunk};

/// Whether the AVX2 kernels may be used on this CPU.
pub(crate) fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod fallback {
    use crate::kernels::Geometry;

    /// Never selected off x86_64 (see [`super::avx2_available`]).
    ///
    /// # Safety
    /// Never callable; panics.
    pub(crate) unsafe fn stream_rows_chunk(
        _len: usize,
        _g: &Geometry,
        _src: *const u8,
        _dst: *mut u8,
        _start: u64,
        _end: u64,
    ) {
        unreachable!("AVX2 kernel selected without AVX2")
    }

    /// Never selected off x86_64 (see [`super::avx2_available`]).
    ///
    /// # Safety
    /// Never callable; panics.
    pub(crate) unsafe fn stream_block(_s: *const u8, _d: *mut u8, _len: usize) {
        unreachable!("AVX2 kernel selected without AVX2")
    }

    /// Never selected off x86_64 (see [`super::avx2_available`]).
    ///
    /// # Safety
    /// Never callable; panics.
    pub(crate) unsafe fn gather_chunk(
        _elem: usize,
        _g: &Geometry,
        _src: *const u8,
        _dst: *mut u8,
        _start: u64,
        _end: u64,
    ) {
        unreachable!("AVX2 kernel selected without AVX2")
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use fallback::{gather_chunk, stream_block, stream_rows_chunk};
