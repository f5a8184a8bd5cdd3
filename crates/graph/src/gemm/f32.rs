//! Float32 GEMM for MATMUL and CONV2D: `C[r][j] = init[r][j] + Σ_k A[r][k]·B[k][j]` in float32.
//! TOSA lets float dot products sum in any order (the compliance check bounds the error of any
//! order), so the kernels sum each block of K in their own order and add the blocks in turn.
//!
//! `B` is packed once into a [`PackedF32`] (at pipeline creation for constant weights): panels of
//! `NR` columns, K-major, columns past `n` zero. `A` is never packed or copied: the kernels
//! broadcast its elements straight from [`Rows`] (a matrix's rows, or a convolution's padded
//! input image read as runs of taps: an implicit GEMM, no im2col).
//!
//! A kernel holds an `MR × NR` block of C in registers and streams K: per step two vector loads
//! of B, `MR` broadcasts of A and `2·MR` fused multiply-adds. Kernels, chosen per CPU
//! ([`Isa::detect`]): AVX-512F 8 × 32, AVX2 + FMA 6 × 16, portable 4 × 16. Blocking: K in
//! equal blocks of at most 32 KiB of a panel (which stays in the L1 cache while a row block's
//! groups pass over it), rows in blocks of `16·MR` (their A data stays in L2 while every panel
//! passes over them).
//!
//! Invariants: every read is inside the slices given (rows and panels are checked before the
//! unsafe kernels run); each result element is written by one kernel block per K block.

use super::{Aligned, Rows, Seg, segments};

/// Elements of B in a K block of one panel (32 KiB: the L1 data cache of the CPUs we run on,
/// which a panel's block stays in while every row group of a row block passes over it).
const PANEL_BLOCK: usize = 8192;

/// Which kernel a CPU runs (and so how a [`PackedF32`] is laid out: `NR` columns per panel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// AVX-512F: 8 rows × 32 columns.
    Avx512,
    /// AVX2 with FMA: 6 rows × 16 columns.
    Avx2,
    /// Plain Rust (what the compiler makes of it): 4 rows × 16 columns.
    Portable,
}

impl Isa {
    /// The fastest kernel this CPU has.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Columns per panel.
    pub fn nr(self) -> usize {
        match self {
            Isa::Avx512 => 32,
            Isa::Avx2 | Isa::Portable => 16,
        }
    }

    /// Rows per kernel block.
    pub fn mr(self) -> usize {
        match self {
            Isa::Avx512 => 8,
            Isa::Avx2 => 6,
            Isa::Portable => 4,
        }
    }
}

/// `B` (`k × n`) packed for one [`Isa`]'s kernel: panel `p` holds columns `p·NR..p·NR+NR`,
/// row by row (`data[(p·k + kk)·NR + j] = B[kk][p·NR + j]`), zeros past column `n`. The
/// elements are `D`'s: an owned [`Aligned`] buffer (weights packed at pipeline creation) or a
/// slice of a run's scratch memory (a right-hand side packed at dispatch).
#[derive(Debug, Clone)]
pub struct PackedF32<D = Aligned<f32>> {
    k: usize,
    n: usize,
    isa: Isa,
    data: D,
}

impl PackedF32 {
    /// `b` packed for `isa` into a buffer of its own: element `(kk, j)` of `B` is
    /// `b[kk·rs + j·cs]`.
    ///
    /// # Errors
    /// When the size overflows, the memory cannot be had, or `b` is too short.
    pub fn new(
        isa: Isa,
        b: &[f32],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
    ) -> Result<PackedF32, &'static str> {
        let len = PackedF32::len(isa, k, n).ok_or("float GEMM: the packed matrix is too large")?;
        let mut data = Aligned::zeroed(len)?;
        Self::pack_panels(data.as_mut_slice(), 0, k, n, isa.nr(), b, rs, cs)?;
        Ok(PackedF32 { k, n, isa, data })
    }

    /// Elements of a `k × n` matrix packed for `isa` (whole panels), if that fits `usize`.
    pub fn len(isa: Isa, k: usize, n: usize) -> Option<usize> {
        n.div_ceil(isa.nr())
            .checked_mul(isa.nr())
            .and_then(|c| c.checked_mul(k))
    }

    /// The matrix as a borrowed view, what [`sgemm`] takes.
    pub fn view(&self) -> PackedF32<&[f32]> {
        PackedF32 {
            k: self.k,
            n: self.n,
            isa: self.isa,
            data: self.data.as_slice(),
        }
    }

    /// Writes panels `first..` of `b` (`k × n`, element `(kk, j)` at `b[kk·rs + j·cs]`) into
    /// `dst`, whole panels of `k·nr` elements, every element of them (zeros past column `n`),
    /// so `dst` need not be cleared first.
    ///
    /// # Errors
    /// When `b` is too short for `k × n`.
    #[allow(clippy::too_many_arguments)]
    pub fn pack_panels(
        dst: &mut [f32],
        first: usize,
        k: usize,
        n: usize,
        nr: usize,
        b: &[f32],
        rs: usize,
        cs: usize,
    ) -> Result<(), &'static str> {
        if k > 0 && n > 0 && (k - 1) * rs + (n - 1) * cs >= b.len() {
            return Err("float GEMM: B is shorter than its shape");
        }
        if k == 0 || nr == 0 {
            return Ok(());
        }
        for (q, panel) in dst.chunks_exact_mut(k * nr).enumerate() {
            let c0 = (first + q) * nr;
            let cols = nr.min(n.saturating_sub(c0));
            match (cs, cols, nr) {
                // Whole rows of a row-major B: fixed-size copies (a call to memmove per row
                // of 16 costs more than the copy).
                (1, 16, 16) => copy_rows::<16>(panel, b, c0, rs),
                (1, 32, 32) => copy_rows::<32>(panel, b, c0, rs),
                _ => {
                    for (kk, row) in panel.chunks_exact_mut(nr).enumerate() {
                        for (j, d) in row[..cols].iter_mut().enumerate() {
                            *d = b[kk * rs + (c0 + j) * cs];
                        }
                        row[cols..].fill(0.0);
                    }
                }
            }
        }
        Ok(())
    }
}

impl<'a> PackedF32<&'a [f32]> {
    /// A view of `data`, already filled by [`PackedF32::pack_panels`] as a `k × n` matrix for
    /// `isa`.
    ///
    /// # Errors
    /// When `data` is not [`PackedF32::len`] elements.
    pub fn from_panels(
        isa: Isa,
        k: usize,
        n: usize,
        data: &'a [f32],
    ) -> Result<PackedF32<&'a [f32]>, &'static str> {
        if PackedF32::len(isa, k, n) != Some(data.len()) {
            return Err("float GEMM: packed panels of the wrong size");
        }
        Ok(PackedF32 { k, n, isa, data })
    }
}

impl<D> PackedF32<D> {
    /// The kernel the matrix is packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Rows (K).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Panels of [`Isa::nr`] columns.
    pub fn panels(&self) -> usize {
        self.n.div_ceil(self.isa.nr())
    }
}

/// Copies `NR` columns from `c0` of each row of a row-major `b` (row stride `rs`) into the
/// panel's rows.
fn copy_rows<const NR: usize>(panel: &mut [f32], b: &[f32], c0: usize, rs: usize) {
    for (kk, row) in panel.chunks_exact_mut(NR).enumerate() {
        let at = kk * rs + c0;
        if let (Ok(dst), Some(Ok(src))) = (
            <&mut [f32; NR]>::try_from(row),
            b.get(at..at + NR).map(<&[f32; NR]>::try_from),
        ) {
            *dst = *src;
        }
    }
}

/// What a result starts from before the products are added.
#[derive(Debug, Clone, Copy)]
pub enum Init<'a> {
    /// Zero.
    Zero,
    /// `bias[j]` for column `j` (`n` values, or one for every column).
    Bias(&'a [f32]),
}

/// `C[r][j] = init + Σ_k A[r][k]·B[k][j]` for the `m` rows of `a` (row `r` of C at
/// `c[r·ldc..]`), on the calling thread, with `b`'s kernel.
///
/// # Errors
/// When the kernel cannot run on this CPU, the runs do not make K, a row reads outside its
/// data, `c` is too short, or a bias has the wrong length.
pub fn sgemm(
    m: usize,
    a: &Rows<'_, f32>,
    b: &PackedF32<&[f32]>,
    init: Init<'_>,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), &'static str> {
    let (k, n) = (b.k, b.n);
    if m == 0 || n == 0 {
        return Ok(());
    }
    if (m - 1) * ldc + n > c.len() || ldc < n {
        return Err("float GEMM: the result is shorter than its shape");
    }
    if let Init::Bias(bias) = init
        && bias.len() != n
        && bias.len() != 1
    {
        return Err("float GEMM: a bias of the wrong length");
    }
    if a.runs.len() * a.run != k {
        return Err("float GEMM: runs that do not make K");
    }
    if !b.isa.available() {
        return Err("float GEMM: weights packed for a kernel this CPU lacks");
    }
    if PackedF32::len(b.isa, k, n) != Some(b.data.len()) {
        return Err("float GEMM: packed panels of the wrong size");
    }
    match b.isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => drive::<8, 32>(simd::kernel_avx512, m, a, b, init, c, ldc),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => drive::<6, 16>(simd::kernel_avx2, m, a, b, init, c, ldc),
        _ => drive::<4, 16>(kernel_portable, m, a, b, init, c, ldc),
    }
}

/// A kernel: for `i < MR`, `j < NR`, `C[i][j] = S[i][j] + Σ over segs, t: rows[i][seg.offset +
/// t] · panel[(s + t)·NR + j]`, where C's row `i` is the `NR` floats at `c + i·ldc`, `S` is
/// the row `init` (`NR` floats, the same for every row) or, when `init` is null, C itself, and
/// `s` counts the steps before (the panel pointer is at the block's first row of B). The sums
/// stay in registers; C is read (when `init` is null) and written once.
///
/// # Safety
/// Every `rows[i] + seg.offset + seg.len` is inside one allocation, as is `panel` for the
/// segments' total length times `NR`; `c + i·ldc .. + NR` for every `i < MR` is inside one
/// writable allocation that nothing else accesses during the call; `init` is null or `NR`
/// readable floats; the CPU has the kernel's features.
type Kernel<const MR: usize, const NR: usize> =
    unsafe fn(&[*const f32; MR], &[Seg], *const f32, *mut f32, usize, *const f32);

/// The blocked loops around a kernel. Whole `MR × NR` blocks of C are summed straight into C;
/// edge blocks go through a tile on the stack.
#[allow(clippy::too_many_arguments)]
fn drive<const MR: usize, const NR: usize>(
    kernel: Kernel<MR, NR>,
    m: usize,
    a: &Rows<'_, f32>,
    b: &PackedF32<&[f32]>,
    init: Init<'_>,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), &'static str> {
    let (k, n) = (b.k, b.n);
    let panels = n.div_ceil(NR);
    // What column `j` starts from.
    let start_of = |j: usize| match init {
        Init::Bias(v) if v.len() == 1 => v[0],
        Init::Bias(v) => v[j],
        Init::Zero => 0.0,
    };
    if k == 0 {
        for r in 0..m {
            for (j, o) in c[r * ldc..r * ldc + n].iter_mut().enumerate() {
                *o = start_of(j);
            }
        }
        return Ok(());
    }
    // Rows per block: 16 kernel blocks (`groups` below).
    let mc = 16 * MR;
    // K blocks of equal size whose panel blocks fill the L1 cache at most.
    let blocks = k.div_ceil(PANEL_BLOCK / NR);
    let kcb = k.div_ceil(blocks);
    let mut segs = Vec::new();
    let mut tile = [[0f32; NR]; MR];
    let mut k0 = 0;
    while k0 < k {
        let kc = kcb.min(k - k0);
        segments(a.runs, a.run, k0, k0 + kc, &mut segs);
        let first = k0 == 0;
        let mut r0 = 0;
        while r0 < m {
            let rows_here = mc.min(m - r0);
            // Each group's row pointers, made once for every panel.
            let mut groups = [[std::ptr::null::<f32>(); MR]; 16];
            let mut g = 0;
            while g < rows_here {
                let rows = MR.min(rows_here - g);
                let starts = a.block_starts::<MR>(r0 + g, rows)?;
                groups[g / MR] = starts.map(|s| a.data[s..].as_ptr());
                g += rows;
            }
            for p in 0..panels {
                // SAFETY (for the kernel): panel `p`'s rows k0..k0+kc are inside `b.data`
                // (checked to hold `panels·k·NR` elements).
                let panel = &b.data[(p * k + k0) * NR..(p * k + k0 + kc) * NR];
                let (c0, cols) = (p * NR, NR.min(n - p * NR));
                // The panel's starting row (zeros past `n`), for the first K block.
                let mut start_row = [0f32; NR];
                for (j, s) in start_row.iter_mut().enumerate().take(cols) {
                    *s = start_of(c0 + j);
                }
                let start = if first {
                    start_row.as_ptr()
                } else {
                    std::ptr::null()
                };
                let mut g = 0;
                while g < rows_here {
                    let rows = MR.min(rows_here - g);
                    let ptrs = groups[g / MR];
                    let at = (r0 + g) * ldc + c0;
                    if rows == MR && cols == NR {
                        // A whole block: rows r0+g.. of C, columns c0..c0+NR (inside `c`: the
                        // slice below is bounds-checked).
                        let block = &mut c[at..at + (MR - 1) * ldc + NR];
                        // SAFETY: every row's runs were checked inside `a.data`
                        // (`block_starts`); `panel` holds `kc·NR` elements, the segments'
                        // total; `block` holds every row `i·ldc .. i·ldc + NR` and is borrowed
                        // mutably; `start` is null or the NR floats of `start_row`; `b.isa` (this
                        // kernel) was checked available.
                        unsafe {
                            kernel(&ptrs, &segs, panel.as_ptr(), block.as_mut_ptr(), ldc, start)
                        };
                    } else {
                        if !first {
                            for (i, t) in tile.iter_mut().enumerate().take(rows) {
                                let row = at + i * ldc;
                                t[..cols].copy_from_slice(&c[row..row + cols]);
                            }
                        }
                        // SAFETY: as above, with the tile (MR rows of NR, row stride NR) as C.
                        unsafe {
                            kernel(
                                &ptrs,
                                &segs,
                                panel.as_ptr(),
                                tile.as_mut_ptr().cast(),
                                NR,
                                start,
                            )
                        };
                        for (i, t) in tile.iter().enumerate().take(rows) {
                            let row = at + i * ldc;
                            c[row..row + cols].copy_from_slice(&t[..cols]);
                        }
                    }
                    g += rows;
                }
            }
            r0 += rows_here;
        }
        k0 += kc;
    }
    Ok(())
}

/// The portable kernel: 4 × 16, loops the compiler unrolls and vectorises.
///
/// # Safety
/// As [`Kernel`].
unsafe fn kernel_portable(
    rows: &[*const f32; 4],
    segs: &[Seg],
    panel: *const f32,
    c: *mut f32,
    ldc: usize,
    init: *const f32,
) {
    let mut acc = [[0f32; 16]; 4];
    for (i, acc) in acc.iter_mut().enumerate() {
        // SAFETY: `init` is null or 16 floats; C's row `i` holds 16 floats (the contract).
        let start = unsafe {
            if init.is_null() {
                &*c.add(i * ldc).cast::<[f32; 16]>()
            } else {
                &*init.cast::<[f32; 16]>()
            }
        };
        *acc = *start;
    }
    let mut bp = panel;
    for seg in segs {
        for t in 0..seg.len {
            // SAFETY: the caller's contract: `panel` has a row of 16 per step.
            let brow: &[f32; 16] = unsafe { &*bp.cast::<[f32; 16]>() };
            for (acc, &row) in acc.iter_mut().zip(rows) {
                // SAFETY: `seg.offset + t` is inside the row (the caller's contract).
                let x = unsafe { *row.add(seg.offset + t) };
                for (o, &w) in acc.iter_mut().zip(brow) {
                    *o = x.mul_add(w, *o);
                }
            }
            // SAFETY: stays inside (or one past) the panel.
            bp = unsafe { bp.add(16) };
        }
    }
    for (i, acc) in acc.iter().enumerate() {
        // SAFETY: C's row `i` holds 16 writable floats (the contract).
        unsafe { *c.add(i * ldc).cast::<[f32; 16]>() = *acc };
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::Seg;
    use std::arch::x86_64::*;

    /// AVX2 + FMA: 6 rows × 16 columns, the twelve accumulators in registers (the row loops
    /// have constant bounds and unroll).
    ///
    /// # Safety
    /// As [`super::Kernel`]; the CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn kernel_avx2(
        rows: &[*const f32; 6],
        segs: &[Seg],
        panel: *const f32,
        c: *mut f32,
        ldc: usize,
        init: *const f32,
    ) {
        let mut c0 = [_mm256_setzero_ps(); 6];
        let mut c1 = [_mm256_setzero_ps(); 6];
        for i in 0..6 {
            // SAFETY: `init` is null or 16 floats; C's row `i` holds 16 floats (the contract).
            unsafe {
                let s = if init.is_null() {
                    c.add(i * ldc).cast_const()
                } else {
                    init
                };
                c0[i] = _mm256_loadu_ps(s);
                c1[i] = _mm256_loadu_ps(s.add(8));
            }
        }
        let mut bp = panel;
        for seg in segs {
            let p = rows.map(|r| r.wrapping_add(seg.offset));
            for t in 0..seg.len {
                // SAFETY: the caller's contract: a row of 16 per step in the panel, and
                // `seg.offset + t` inside every row.
                unsafe {
                    let b0 = _mm256_loadu_ps(bp);
                    let b1 = _mm256_loadu_ps(bp.add(8));
                    bp = bp.add(16);
                    for i in 0..6 {
                        let x = _mm256_broadcast_ss(&*p[i].add(t));
                        c0[i] = _mm256_fmadd_ps(x, b0, c0[i]);
                        c1[i] = _mm256_fmadd_ps(x, b1, c1[i]);
                    }
                }
            }
        }
        for i in 0..6 {
            // SAFETY: C's row `i` holds 16 writable floats: two stores of 8.
            unsafe {
                _mm256_storeu_ps(c.add(i * ldc), c0[i]);
                _mm256_storeu_ps(c.add(i * ldc + 8), c1[i]);
            }
        }
    }

    /// AVX-512F: 8 rows × 32 columns, the sixteen accumulators in registers.
    ///
    /// # Safety
    /// As [`super::Kernel`]; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn kernel_avx512(
        rows: &[*const f32; 8],
        segs: &[Seg],
        panel: *const f32,
        c: *mut f32,
        ldc: usize,
        init: *const f32,
    ) {
        let mut c0 = [_mm512_setzero_ps(); 8];
        let mut c1 = [_mm512_setzero_ps(); 8];
        for i in 0..8 {
            // SAFETY: `init` is null or 32 floats; C's row `i` holds 32 floats (the contract).
            unsafe {
                let s = if init.is_null() {
                    c.add(i * ldc).cast_const()
                } else {
                    init
                };
                c0[i] = _mm512_loadu_ps(s);
                c1[i] = _mm512_loadu_ps(s.add(16));
            }
        }
        let mut bp = panel;
        for seg in segs {
            let p = rows.map(|r| r.wrapping_add(seg.offset));
            for t in 0..seg.len {
                // SAFETY: as in `kernel_avx2`, with rows of 32 in the panel.
                unsafe {
                    let b0 = _mm512_loadu_ps(bp);
                    let b1 = _mm512_loadu_ps(bp.add(16));
                    bp = bp.add(32);
                    for i in 0..8 {
                        let x = _mm512_set1_ps(*p[i].add(t));
                        c0[i] = _mm512_fmadd_ps(x, b0, c0[i]);
                        c1[i] = _mm512_fmadd_ps(x, b1, c1[i]);
                    }
                }
            }
        }
        for i in 0..8 {
            // SAFETY: C's row `i` holds 32 writable floats: two stores of 16.
            unsafe {
                _mm512_storeu_ps(c.add(i * ldc), c0[i]);
                _mm512_storeu_ps(c.add(i * ldc + 16), c1[i]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2654435761).max(1);
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // Few mantissa bits: every product and sum below is exact in float32.
                ((x % 64) as f32 - 32.0) / 8.0
            })
            .collect()
    }

    #[test]
    fn every_kernel_matches_a_plain_loop_for_edge_sizes_runs_and_k_blocks() {
        for isa in [Isa::Avx512, Isa::Avx2, Isa::Portable] {
            if !isa.available() {
                continue;
            }
            for (m, k, n, run) in [
                (1usize, 1usize, 1usize, 1usize),
                (7, 5, 17, 5),
                (13, 36, 33, 12),
                (25, 300, 40, 100),
                (97, 520, 16, 520),
                (6, 0, 5, 0),
            ] {
                let runs: Vec<usize> = (0..k.checked_div(run).unwrap_or(0))
                    .map(|s| s * (run + 3))
                    .collect();
                let row_len = runs.last().map_or(0, |&l| l + run) + 2;
                let data = values(m * row_len, 7);
                let rows = Rows {
                    runs: &runs,
                    run,
                    ..Rows::matrix(&data, row_len, 0)
                };
                let start = |r: usize| r * row_len;
                let bm = values(k * n, 11);
                let packed = PackedF32::new(isa, &bm, k, n, n, 1).unwrap();
                let bias = values(n, 3);
                let ldc = n + 3;
                let mut c = vec![f32::NAN; m * ldc];
                sgemm(m, &rows, &packed.view(), Init::Bias(&bias), &mut c, ldc).unwrap();
                for r in 0..m {
                    for j in 0..n {
                        let mut want = bias[j];
                        for s in 0..runs.len() {
                            for t in 0..run {
                                want += data[start(r) + runs[s] + t] * bm[(s * run + t) * n + j];
                            }
                        }
                        assert_eq!(c[r * ldc + j], want, "{isa:?} ({m},{k},{n}) [{r}][{j}]");
                    }
                    assert!(c[r * ldc + n..r * ldc + ldc].iter().all(|v| v.is_nan()));
                }
            }
        }
    }

    #[test]
    fn rows_outside_their_data_and_short_results_are_errors() {
        let b = PackedF32::new(Isa::Portable, &[1.0; 8], 2, 4, 4, 1).unwrap();
        let data = [1.0f32; 5];
        let rows = Rows::matrix(&data, 2, 2);
        let mut c = vec![0f32; 12];
        let b = b.view();
        assert!(sgemm(3, &rows, &b, Init::Zero, &mut c, 4).is_err());
        assert!(sgemm(2, &rows, &b, Init::Zero, &mut c[..7], 4).is_err());
        assert!(sgemm(2, &rows, &b, Init::Zero, &mut c, 4).is_ok());
        assert!(PackedF32::new(Isa::Portable, &[1.0; 7], 2, 4, 4, 1).is_err());
    }
}
