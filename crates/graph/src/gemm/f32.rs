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
/// row by row (`data[(p·k + kk)·NR + j] = B[kk][p·NR + j]`), zeros past column `n`.
#[derive(Debug, Clone)]
pub struct PackedF32 {
    k: usize,
    n: usize,
    isa: Isa,
    data: Aligned<f32>,
}

impl PackedF32 {
    /// A zeroed `k × n` matrix for `isa`, to fill with [`PackedF32::pack_panels`] (a caller
    /// can fill disjoint panels from several threads through [`PackedF32::panels_mut`]).
    ///
    /// # Errors
    /// When the size overflows or the memory cannot be had.
    pub fn zeroed(isa: Isa, k: usize, n: usize) -> Result<PackedF32, &'static str> {
        let len = n
            .div_ceil(isa.nr())
            .checked_mul(isa.nr())
            .and_then(|c| c.checked_mul(k))
            .ok_or("float GEMM: the packed matrix is too large")?;
        let data = Aligned::zeroed(len)?;
        Ok(PackedF32 { k, n, isa, data })
    }

    /// `b` packed for `isa`: element `(kk, j)` of `B` is `b[kk·rs + j·cs]`.
    ///
    /// # Errors
    /// As [`PackedF32::zeroed`]; when `b` is too short.
    pub fn new(
        isa: Isa,
        b: &[f32],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
    ) -> Result<PackedF32, &'static str> {
        let mut packed = PackedF32::zeroed(isa, k, n)?;
        let (nr, panels) = (isa.nr(), packed.panels());
        Self::pack_panels(packed.data.as_mut_slice(), 0, k, n, nr, b, rs, cs)?;
        debug_assert_eq!(packed.data.as_slice().len(), panels * k * nr);
        Ok(packed)
    }

    /// Writes panels `first..` of `b` (`k × n`, element `(kk, j)` at `b[kk·rs + j·cs]`) into
    /// `dst`, whole panels of `k·nr` elements as [`PackedF32::panels_mut`] cuts them.
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
                    }
                }
            }
        }
        Ok(())
    }

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

    /// The packed elements, and how many make a panel (`k·nr`), to fill with
    /// [`PackedF32::pack_panels`].
    pub fn panels_mut(&mut self) -> (&mut [f32], usize) {
        let len = self.k * self.isa.nr();
        (self.data.as_mut_slice(), len)
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
    b: &PackedF32,
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
    match b.isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => drive::<8, 32>(simd::kernel_avx512, m, a, b, init, c, ldc),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => drive::<6, 16>(simd::kernel_avx2, m, a, b, init, c, ldc),
        _ => drive::<4, 16>(kernel_portable, m, a, b, init, c, ldc),
    }
}

/// A kernel: `tile[i][j] = Σ over segs, t: rows[i][seg.offset + t] · panel[(s + t)·NR + j]`
/// where `s` counts the steps before (the panel pointer is at the block's first row of B).
///
/// # Safety
/// Every `rows[i] + seg.offset + seg.len` is inside one allocation, as is `panel` for the
/// segments' total length times `NR`; the CPU has the kernel's features.
type Kernel<const MR: usize, const NR: usize> =
    unsafe fn(&[*const f32; MR], &[Seg], *const f32, &mut [[f32; NR]; MR]);

/// The blocked loops around a kernel.
#[allow(clippy::too_many_arguments)]
fn drive<const MR: usize, const NR: usize>(
    kernel: Kernel<MR, NR>,
    m: usize,
    a: &Rows<'_, f32>,
    b: &PackedF32,
    init: Init<'_>,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), &'static str> {
    let (k, n) = (b.k, b.n);
    let panels = n.div_ceil(NR);
    // What each column starts from, padded to whole panels.
    let mut start_row = vec![0f32; panels * NR];
    if let Init::Bias(v) = init {
        for (j, s) in start_row[..n].iter_mut().enumerate() {
            *s = if v.len() == 1 { v[0] } else { v[j] };
        }
    }
    if k == 0 {
        for r in 0..m {
            c[r * ldc..r * ldc + n].copy_from_slice(&start_row[..n]);
        }
        return Ok(());
    }
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
            for p in 0..panels {
                // SAFETY (for the kernel): panel `p`'s rows k0..k0+kc are inside `b.data`
                // (`PackedF32` holds `panels·k·NR` elements).
                let panel = &b.data.as_slice()[(p * k + k0) * NR..(p * k + k0 + kc) * NR];
                let (c0, cols) = (p * NR, NR.min(n - p * NR));
                let mut g = 0;
                while g < rows_here {
                    let rows = MR.min(rows_here - g);
                    let starts = a.block_starts::<MR>(r0 + g, rows)?;
                    let ptrs = starts.map(|s| a.data[s..].as_ptr());
                    // SAFETY: every row's runs were checked inside `a.data` (`block_starts`); `panel`
                    // holds `kc·NR` elements, the segments' total; `b.isa` (this kernel) was
                    // checked available.
                    unsafe { kernel(&ptrs, &segs, panel.as_ptr(), &mut tile) };
                    for (i, t) in tile.iter().enumerate().take(rows) {
                        let at = (r0 + g + i) * ldc + c0;
                        let out = &mut c[at..at + cols];
                        if first {
                            for ((o, &v), &s) in out.iter_mut().zip(t).zip(&start_row[c0..]) {
                                *o = s + v;
                            }
                        } else {
                            for (o, &v) in out.iter_mut().zip(t) {
                                *o += v;
                            }
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
    tile: &mut [[f32; 16]; 4],
) {
    let mut acc = [[0f32; 16]; 4];
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
    *tile = acc;
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
        tile: &mut [[f32; 16]; 6],
    ) {
        let mut c0 = [_mm256_setzero_ps(); 6];
        let mut c1 = [_mm256_setzero_ps(); 6];
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
            // SAFETY: each row of `tile` holds 16 floats: two stores of 8.
            unsafe {
                _mm256_storeu_ps(tile[i].as_mut_ptr(), c0[i]);
                _mm256_storeu_ps(tile[i].as_mut_ptr().add(8), c1[i]);
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
        tile: &mut [[f32; 32]; 8],
    ) {
        let mut c0 = [_mm512_setzero_ps(); 8];
        let mut c1 = [_mm512_setzero_ps(); 8];
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
            // SAFETY: each row of `tile` holds 32 floats: two stores of 16.
            unsafe {
                _mm512_storeu_ps(tile[i].as_mut_ptr(), c0[i]);
                _mm512_storeu_ps(tile[i].as_mut_ptr().add(16), c1[i]);
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
                sgemm(m, &rows, &packed, Init::Bias(&bias), &mut c, ldc).unwrap();
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
        assert!(sgemm(3, &rows, &b, Init::Zero, &mut c, 4).is_err());
        assert!(sgemm(2, &rows, &b, Init::Zero, &mut c[..7], 4).is_err());
        assert!(sgemm(2, &rows, &b, Init::Zero, &mut c, 4).is_ok());
        assert!(PackedF32::new(Isa::Portable, &[1.0; 7], 2, 4, 4, 1).is_err());
    }
}
