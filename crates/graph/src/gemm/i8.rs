//! Exact int8 GEMM for the quantised convolutions: `C[m][n] = Σ_k (a[m][k] − za)·(b[k][n] − zb)`
//! in wrapping i32 arithmetic, which is the TOSA result modulo 2^32 (accumulator overflow is
//! unpredictable in TOSA; the reference kernels wrap the same way, so results are bit-exact).
//!
//! The products are computed as `(a + 128)·b` (u8 × s8, what AVX-512 VNNI's `vpdpbusd` sums four
//! at a time without saturating) and corrected with precomputed sums:
//! `Σ (a−za)(b−zb) = Σ (a+128)·b − (128+za)·Σ_k b − zb·Σ_k a + K·za·zb`
//! (the row sums `Σ_k a` only when `zb ≠ 0`).
//!
//! [`PackedB`] holds `b` in one of two layouts, chosen for the CPU when it is packed:
//! - [`Layout::U8`] (AVX-512 VNNI): 16-column panels of 4-row groups (64 bytes per group, lane
//!   `j` has `b[k..k+4][n0+j]`), K padded with zero rows to a multiple of 4, and the column sums.
//!   Rows of `a` come as `a + 128` bytes, read in place through [`Rows`] ([`gemm_u8`]:
//!   converted rows, or a convolution's converted, padded input image); the kernel runs 12 rows
//!   × 32 columns.
//! - [`Layout::I16`] (AVX2, and the portable loop): `b − zb` as i16 in 16-column panels of
//!   2-row pairs (lane `j` of a pair group holds `b[k][j], b[k+1][j]`), K padded to even. Rows of
//!   `a` come as `a − za` in i16, read in place through [`Rows`] ([`gemm_i16`]: converted rows,
//!   or a convolution's converted, padded input image); `vpmaddwd` multiplies the pairs exactly
//!   (each product is at most 255², the pair sum fits i32), so no correction terms are needed.
//!   The kernel runs 6 rows × 16 columns.
//!
//! Every kernel keeps its accumulators in registers; each finished block goes to the caller's
//! store function (which adds the bias, or rescales), so no i32 result is written twice.
//! Everything reads only inside the slices it is given.

use super::{Aligned, Rows, Seg, segments};

/// Columns per panel.
const NR: usize = 16;
/// Rows per kernel step of the [`Layout::U8`] kernel.
pub const MR: usize = 12;
/// Rows per kernel step of the [`Layout::I16`] kernel.
pub const MR16: usize = 6;

/// How a [`PackedB`] holds its matrix (and so how rows of `a` are given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Bytes in 4-row groups, for [`gemm_u8`] (AVX-512 VNNI).
    U8,
    /// `b − zb` as i16 in 2-row pairs, for [`gemm_i16`] (AVX2 or portable).
    I16,
}

impl Layout {
    /// The layout whose kernel this CPU runs fastest.
    pub fn for_this_cpu() -> Layout {
        if vnni_available() {
            Layout::U8
        } else {
            Layout::I16
        }
    }
}

/// `b` (`k × n`, element `(k, j)` at `b[k·rs + j·cs]`, zero point `zb`) packed for
/// [`gemm_u8`] or [`gemm_i16`], in the bytes of `D`: an owned [`Aligned`] buffer (weights
/// packed at pipeline creation) or a slice of a run's scratch memory (weights that are a
/// dispatch input).
#[derive(Debug, Clone)]
pub struct PackedB<D = Aligned<u8>> {
    k: usize,
    n: usize,
    zb: i32,
    /// K rounded up to the layout's group (4 or 2).
    kp: usize,
    layout: Layout,
    /// [`Layout::U8`]: panels of `kp/4` groups of 64 bytes, then `Σ_k b[k][j]` per column as
    /// i32. [`Layout::I16`]: panels of `kp/2` groups of 32 i16.
    data: D,
}

impl PackedB {
    /// Packs `b` in the layout for this CPU.
    ///
    /// # Errors
    /// As [`PackedB::with_layout`].
    pub fn new(
        b: &[i8],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
        zb: i32,
    ) -> Result<PackedB, &'static str> {
        PackedB::with_layout(Layout::for_this_cpu(), b, k, n, rs, cs, zb)
    }

    /// Packs `b` in `layout` into a buffer of its own.
    ///
    /// # Errors
    /// When `b` is shorter than its shape, or the packed matrix is too large for memory.
    pub fn with_layout(
        layout: Layout,
        b: &[i8],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
        zb: i32,
    ) -> Result<PackedB, &'static str> {
        let len = PackedB::len(layout, k, n).ok_or("int8 GEMM: the packed matrix is too large")?;
        let mut data = Aligned::zeroed(len)?;
        let kp = pack(layout, data.as_mut_slice(), b, k, n, rs, cs, zb)?;
        Ok(PackedB {
            k,
            n,
            zb,
            kp,
            layout,
            data,
        })
    }

    /// Bytes of a `k × n` matrix packed in `layout`, if that fits `usize`.
    pub fn len(layout: Layout, k: usize, n: usize) -> Option<usize> {
        let panels = n.div_ceil(NR);
        match layout {
            Layout::U8 => k
                .div_ceil(4)
                .checked_mul(4 * NR)?
                .checked_mul(panels)?
                .checked_add(n.checked_mul(4)?),
            Layout::I16 => k.div_ceil(2).checked_mul(4 * NR)?.checked_mul(panels),
        }
    }

    /// The matrix as a borrowed view, what the GEMMs take.
    pub fn view(&self) -> PackedB<&[u8]> {
        PackedB {
            k: self.k,
            n: self.n,
            zb: self.zb,
            kp: self.kp,
            layout: self.layout,
            data: self.data.as_slice(),
        }
    }
}

impl<'a> PackedB<&'a [u8]> {
    /// Packs `b` in `layout` into `dst` ([`PackedB::len`] bytes, 4-byte aligned; every byte is
    /// written).
    ///
    /// # Errors
    /// When `dst` has the wrong size or alignment, or `b` is shorter than its shape.
    #[allow(clippy::too_many_arguments)]
    pub fn pack_into(
        layout: Layout,
        dst: &'a mut [u8],
        b: &[i8],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
        zb: i32,
    ) -> Result<PackedB<&'a [u8]>, &'static str> {
        if PackedB::len(layout, k, n) != Some(dst.len())
            || !(dst.as_ptr() as usize).is_multiple_of(4)
        {
            return Err("int8 GEMM: packing space of the wrong size or alignment");
        }
        dst.fill(0);
        let kp = pack(layout, dst, b, k, n, rs, cs, zb)?;
        Ok(PackedB {
            k,
            n,
            zb,
            kp,
            layout,
            data: dst,
        })
    }
}

/// Writes `b` packed in `layout` into the zeroed `dst` ([`PackedB::len`] bytes, 4-byte
/// aligned); returns K rounded up to the layout's group.
#[allow(clippy::too_many_arguments)]
fn pack(
    layout: Layout,
    dst: &mut [u8],
    b: &[i8],
    k: usize,
    n: usize,
    rs: usize,
    cs: usize,
    zb: i32,
) -> Result<usize, &'static str> {
    if k > 0 && n > 0 && (k - 1) * rs + (n - 1) * cs >= b.len() {
        return Err("int8 GEMM: B is shorter than its shape");
    }
    let panels = n.div_ceil(NR);
    match layout {
        Layout::U8 => {
            let k4 = k.div_ceil(4) * 4;
            let (bytes, sums) = dst.split_at_mut(panels * k4 * NR);
            let sums: &mut [i32] = bytemuck::try_cast_slice_mut(sums)
                .map_err(|_| "int8 GEMM: misaligned packing space")?;
            for (j, sum) in sums.iter_mut().enumerate().take(n) {
                let (p, lane) = (j / NR, j % NR);
                for kk in 0..k {
                    let v = b[kk * rs + j * cs];
                    *sum = sum.wrapping_add(i32::from(v));
                    bytes[(p * (k4 / 4) + kk / 4) * 64 + lane * 4 + kk % 4] = v as u8;
                }
            }
            Ok(k4)
        }
        Layout::I16 => {
            let k2 = k.div_ceil(2) * 2;
            let pairs: &mut [i16] = bytemuck::try_cast_slice_mut(dst)
                .map_err(|_| "int8 GEMM: misaligned packing space")?;
            for j in 0..n {
                let (p, lane) = (j / NR, j % NR);
                for kk in 0..k {
                    // In −255..=255: int8 values and zero points.
                    let v = (i32::from(b[kk * rs + j * cs]) - zb) as i16;
                    pairs[(p * (k2 / 2) + kk / 2) * 32 + lane * 2 + kk % 2] = v;
                }
            }
            Ok(k2)
        }
    }
}

impl<D> PackedB<D> {
    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The layout (which of [`gemm_u8`] and [`gemm_i16`] takes it).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Elements per converted row of `a`: K rounded up to a multiple of 4 ([`Layout::U8`]) or
    /// 2 ([`Layout::I16`]).
    pub fn row_len(&self) -> usize {
        self.kp
    }

    /// Rows per kernel step: converted row buffers are best a multiple of this long.
    pub fn block_rows(&self) -> usize {
        self.layout.block_rows()
    }
}

impl Layout {
    /// Rows per kernel step of this layout's kernel.
    pub fn block_rows(self) -> usize {
        match self {
            Layout::U8 => MR,
            Layout::I16 => MR16,
        }
    }

    /// Elements per converted row of `a` for a K of `k`.
    pub fn row_len(self, k: usize) -> usize {
        match self {
            Layout::U8 => k.div_ceil(4) * 4,
            Layout::I16 => k.div_ceil(2) * 2,
        }
    }
}

impl PackedB<&[u8]> {
    /// The [`Layout::U8`] panels and column sums, if the data holds them.
    fn u8_parts(&self) -> Option<(&[u8], &[i32])> {
        let panels = self.n.div_ceil(NR);
        let (bytes, sums) = self.data.split_at_checked(panels * self.kp * NR)?;
        let sums = bytemuck::try_cast_slice(sums).ok()?;
        (self.layout == Layout::U8 && sums.len() == self.n).then_some((bytes, sums))
    }

    /// The [`Layout::I16`] panels, if the data holds them.
    fn i16_panels(&self) -> Option<&[i16]> {
        let pairs: &[i16] = bytemuck::try_cast_slice(self.data).ok()?;
        let want = self.n.div_ceil(NR) * self.kp * NR;
        (self.layout == Layout::I16 && pairs.len() == want).then_some(pairs)
    }
}

/// Receives finished results: `store(row, first column, values)` with up to 32 consecutive
/// columns of one row.
pub type Store<'a> = dyn FnMut(usize, usize, &[i32]) + 'a;

/// `Σ_k (a[m][k] − za)(b[k][j] − zb)` for `m` rows of `a` (`k` elements each, row stride
/// `lda`), wrapping, handed to `store` block by block (either layout).
///
/// # Errors
/// When `a` is too short for `m` rows.
pub fn gemm_i8(
    m: usize,
    a: &[i8],
    lda: usize,
    za: i32,
    b: &PackedB<&[u8]>,
    store: &mut Store<'_>,
) -> Result<(), &'static str> {
    let (k, kp) = (b.k, b.kp);
    if m == 0 {
        return Ok(());
    }
    if (m - 1) * lda + k > a.len() {
        return Err("int8 GEMM operands out of range");
    }
    let rows = (0..m).map(|i| &a[i * lda..i * lda + k]);
    match b.layout {
        Layout::U8 => {
            let mut u = vec![0u8; m * kp];
            for (dst, row) in u.chunks_exact_mut(kp).zip(rows) {
                for (d, &s) in dst.iter_mut().zip(row) {
                    *d = (s as u8) ^ 0x80;
                }
            }
            let rows = Rows::matrix(&u, kp, kp);
            gemm_u8(m, &rows, za, b, store)
        }
        Layout::I16 => {
            let mut v = vec![0i16; m * kp];
            for (dst, row) in v.chunks_exact_mut(kp).zip(rows) {
                for (d, &s) in dst.iter_mut().zip(row) {
                    *d = (i32::from(s) - za) as i16;
                }
            }
            let rows = Rows::matrix(&v, kp, kp);
            gemm_i16(m, &rows, b, store)
        }
    }
}

/// [`gemm_i8`] on rows already converted for [`Layout::U8`]: row `r` of `a` is `a + 128`
/// (`a ⊕ 0x80`) for its first `k` elements and 0 after, [`PackedB::row_len`] bytes in all, read
/// in place through [`Rows`] (runs whose length is a multiple of 4: a converted im2col row is
/// one run, a convolution's converted, padded input image one run per kernel row, its padding
/// `za ⊕ 0x80`). Rows are stored in order of [`MR`]-row blocks, all columns of a block before
/// the next.
///
/// # Errors
/// When `b` is not [`Layout::U8`], the runs do not make `b`'s padded K in groups of 4, or a row
/// reads outside its data.
pub fn gemm_u8(
    m: usize,
    a: &Rows<'_, u8>,
    za: i32,
    b: &PackedB<&[u8]>,
    mut store: impl FnMut(usize, usize, &[i32]),
) -> Result<(), &'static str> {
    let (k, k4, n, zb) = (b.k, b.kp, b.n, b.zb);
    let Some((packed, col_sums)) = b.u8_parts() else {
        return Err("int8 GEMM: weights not packed for the VNNI kernel");
    };
    if !a.run.is_multiple_of(4) || a.runs.len() * a.run != k4 {
        return Err("int8 GEMM: runs that do not make K in groups of 4");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    // −(128+za)·Σ_k b per column; −zb·Σ_k a + K·za·zb per row, with Σ_k a = Σ_k u − 128·k.
    let col_fix: Vec<i32> = col_sums
        .iter()
        .map(|&s| 128i32.wrapping_add(za).wrapping_mul(s).wrapping_neg())
        .collect();
    let kzz = (k as i32).wrapping_mul(za).wrapping_mul(zb);
    let panels = n.div_ceil(NR);
    let simd = vnni_available();
    let mut segs = Vec::new();
    segments(a.runs, a.run, 0, k4, &mut segs);
    let mut r = 0;
    while r < m {
        let rows = MR.min(m - r);
        let starts = a.block_starts::<MR>(r, rows)?;
        let mut row_fix = [kzz; MR];
        if zb != 0 {
            for (fix, &start) in row_fix.iter_mut().zip(&starts).take(rows) {
                let sum_u = segs
                    .iter()
                    .flat_map(|s| &a.data[start + s.offset..start + s.offset + s.len])
                    .fold(0u32, |s, &v| s.wrapping_add(u32::from(v)));
                let sum_a = (sum_u as i32).wrapping_sub(128i32.wrapping_mul(k as i32));
                *fix = kzz.wrapping_sub(zb.wrapping_mul(sum_a));
            }
        }
        let mut p = 0;
        while p < panels {
            let np = 2.min(panels - p);
            let mut acc = [[0i32; 2 * NR]; MR];
            dot_block_u8(
                simd,
                a.data,
                &starts,
                &segs,
                &packed[p * k4 * NR..(p + np) * k4 * NR],
                np,
                &mut acc,
            );
            let (c0, cols) = (p * NR, (np * NR).min(n - p * NR));
            let fix = &col_fix[c0..c0 + cols];
            let mut vals = [0i32; 2 * NR];
            for (i, row) in acc.iter().enumerate().take(rows) {
                for ((v, &a), &f) in vals.iter_mut().zip(&row[..cols]).zip(fix) {
                    *v = a.wrapping_add(f).wrapping_add(row_fix[i]);
                }
                store(r + i, c0, &vals[..cols]);
            }
            p += np;
        }
        r += rows;
    }
    Ok(())
}

/// [`gemm_i8`] on rows already converted for [`Layout::I16`]: row `r` of `a` is `a − za` for
/// its first `k` elements and 0 after, [`PackedB::row_len`] elements in all (runs of even
/// length; a converted im2col row is one run, a convolution's padded image one run per kernel
/// row). Rows are stored in order of [`MR16`]-row blocks, all columns of a block before the
/// next.
///
/// # Errors
/// When `b` is not [`Layout::I16`], the runs do not make `b`'s padded K in pairs, or a row reads
/// outside its data.
pub fn gemm_i16(
    m: usize,
    a: &Rows<'_, i16>,
    b: &PackedB<&[u8]>,
    mut store: impl FnMut(usize, usize, &[i32]),
) -> Result<(), &'static str> {
    let (k2, n) = (b.kp, b.n);
    let Some(pairs) = b.i16_panels() else {
        return Err("int8 GEMM: weights not packed for the i16 kernel");
    };
    if !a.run.is_multiple_of(2) || a.runs.len() * a.run != k2 {
        return Err("int8 GEMM: runs that do not make K in pairs");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let simd = avx2_available();
    let panels = n.div_ceil(NR);
    let mut segs = Vec::new();
    segments(a.runs, a.run, 0, k2, &mut segs);
    let mut r = 0;
    while r < m {
        let rows = MR16.min(m - r);
        let starts = a.block_starts::<MR16>(r, rows)?;
        for p in 0..panels {
            let panel = &pairs[p * k2 * NR..(p + 1) * k2 * NR];
            let mut acc = [[0i32; NR]; MR16];
            dot_i16(simd, a.data, &starts, &segs, panel, &mut acc);
            let (c0, cols) = (p * NR, NR.min(n - p * NR));
            for (i, row) in acc.iter().enumerate().take(rows) {
                store(r + i, c0, &row[..cols]);
            }
        }
        r += rows;
    }
    Ok(())
}

/// `acc[i][j] = Σ over segs, pairs g: Σ_t data[rows[i] + seg.offset + 2g + t] ·
/// panel[(s + g)·32 + 2j + t]` (i16 × i16, exact pair sums, wrapping accumulation), `s`
/// counting the pairs of the segments before.
fn dot_i16(
    simd: bool,
    data: &[i16],
    rows: &[usize; MR16],
    segs: &[Seg],
    panel: &[i16],
    acc: &mut [[i32; NR]; MR16],
) {
    let k: usize = segs.iter().map(|s| s.len).sum();
    let fits = segs.iter().all(|s| {
        s.len.is_multiple_of(2) && rows.iter().all(|&r| r + s.offset + s.len <= data.len())
    });
    if panel.len() < k * NR || !fits {
        return; // Not reached: `gemm_i16` checks every row and run.
    }
    #[cfg(target_arch = "x86_64")]
    if simd {
        let ptrs = rows.map(|r| data[r..].as_ptr());
        // SAFETY: `simd` says the CPU has AVX2; every segment of every row and the panel's
        // `k·16` elements were checked above.
        unsafe { simd::dot_i16(&ptrs, segs, panel.as_ptr(), acc) };
        return;
    }
    let _ = simd;
    let mut g = 0;
    for seg in segs {
        for t in (0..seg.len).step_by(2) {
            let grp = &panel[g * 32..g * 32 + 32];
            for (row, &start) in acc.iter_mut().zip(rows) {
                let at = start + seg.offset + t;
                let (x0, x1) = (i32::from(data[at]), i32::from(data[at + 1]));
                for (j, out) in row.iter_mut().enumerate() {
                    let s = x0 * i32::from(grp[2 * j]) + x1 * i32::from(grp[2 * j + 1]);
                    *out = out.wrapping_add(s);
                }
            }
            g += 1;
        }
    }
}

fn vnni_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `acc[i][16q + j] = Σ over segs, groups g: Σ_t data[rows[i] + seg.offset + 4g + t] ·
/// panels[q·K·16 + (s + g)·64 + 4j + t]` (u8 × s8) for the [`MR`] rows and `np` ≤ 2
/// consecutive panels, `K` the segments' total length and `s` counting the groups of the
/// segments before.
fn dot_block_u8(
    simd: bool,
    data: &[u8],
    rows: &[usize; MR],
    segs: &[Seg],
    panels: &[u8],
    np: usize,
    acc: &mut [[i32; 2 * NR]; MR],
) {
    let k4: usize = segs.iter().map(|s| s.len).sum();
    let fits = segs.iter().all(|s| {
        s.len.is_multiple_of(4) && rows.iter().all(|&r| r + s.offset + s.len <= data.len())
    });
    if np == 0 || np > 2 || panels.len() < np * k4 * NR || !fits {
        return; // Not reached: `gemm_u8` checks every row and run and passes whole panels.
    }
    #[cfg(target_arch = "x86_64")]
    if simd {
        let ptrs = rows.map(|r| data[r..].as_ptr());
        // SAFETY: `simd` says the CPU has the features; every segment of every row and the
        // panels' `np·k4·16` bytes were checked above.
        unsafe {
            if np == 2 {
                simd::dot_block_u8::<2>(&ptrs, segs, panels.as_ptr(), k4, acc)
            } else {
                simd::dot_block_u8::<1>(&ptrs, segs, panels.as_ptr(), k4, acc)
            }
        };
        return;
    }
    let _ = simd;
    for (row, &start) in acc.iter_mut().zip(rows) {
        let mut g = 0;
        for seg in segs {
            let ur = &data[start + seg.offset..start + seg.offset + seg.len];
            for (t, u4) in ur.chunks_exact(4).enumerate() {
                for q in 0..np {
                    let grp = &panels[q * k4 * NR + (g + t) * 64..][..64];
                    for j in 0..NR {
                        let mut s = 0i32;
                        for (tt, &u) in u4.iter().enumerate() {
                            s += i32::from(u) * i32::from(grp[4 * j + tt] as i8);
                        }
                        row[q * NR + j] = row[q * NR + j].wrapping_add(s);
                    }
                }
            }
            g += seg.len / 4;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{MR, MR16, NR, Seg};
    use std::arch::x86_64::*;

    /// [`super::dot_block_u8`] for `NP` panels: 12 rows × 16·`NP` columns, the accumulators in
    /// registers across every segment (the row loops have constant bounds and unroll).
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 VNNI; `NP` is 1 or 2; `rows[i] + seg.offset +
    /// seg.len` is inside one allocation for every row and segment, segment lengths are
    /// multiples of 4 summing to `k4`, and `panels` holds `NP·k4·16` bytes (checked by the
    /// caller).
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn dot_block_u8<const NP: usize>(
        rows: &[*const u8; MR],
        segs: &[Seg],
        panels: *const u8,
        k4: usize,
        acc: &mut [[i32; 2 * NR]; MR],
    ) {
        let mut c0 = [_mm512_setzero_si512(); MR];
        let mut c1 = [_mm512_setzero_si512(); MR];
        let mut p0 = panels;
        let mut p1 = panels.wrapping_add(k4 * 16);
        for seg in segs {
            let ptrs = rows.map(|r| r.wrapping_add(seg.offset));
            for g in 0..seg.len / 4 {
                // SAFETY: 64 bytes per group of 4 K elements inside each of the NP panels,
                // and `seg.offset + 4g + 4 ≤ seg.offset + seg.len` inside every row (the
                // caller's contract).
                unsafe {
                    let b0 = _mm512_loadu_si512(p0.cast());
                    let b1 = if NP == 2 {
                        _mm512_loadu_si512(p1.cast())
                    } else {
                        b0
                    };
                    for i in 0..MR {
                        let a4 = std::ptr::read_unaligned(ptrs[i].add(4 * g).cast::<i32>());
                        let a = _mm512_set1_epi32(a4);
                        c0[i] = _mm512_dpbusd_epi32(c0[i], a, b0);
                        if NP == 2 {
                            c1[i] = _mm512_dpbusd_epi32(c1[i], a, b1);
                        }
                    }
                }
                p0 = p0.wrapping_add(64);
                p1 = p1.wrapping_add(64);
            }
        }
        for i in 0..MR {
            // SAFETY: each row of `acc` holds 32 i32: two stores of 16.
            unsafe {
                _mm512_storeu_si512(acc[i].as_mut_ptr().cast(), c0[i]);
                if NP == 2 {
                    _mm512_storeu_si512(acc[i].as_mut_ptr().add(16).cast(), c1[i]);
                }
            }
        }
    }

    /// [`super::dot_i16`]: 6 rows × 16 columns with `vpmaddwd` (exact: no pair sum reaches
    /// its saturating case, −32768·−32768 twice) and wrapping `vpaddd`, the 12 accumulators in
    /// registers across every segment.
    ///
    /// # Safety
    /// The CPU must have AVX2; `rows[i] + seg.offset + seg.len` is inside one allocation for
    /// every row and segment, segment lengths are even, and `panel` holds 16 elements per K
    /// element of the segments (checked by the caller).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot_i16(
        rows: &[*const i16; MR16],
        segs: &[Seg],
        panel: *const i16,
        acc: &mut [[i32; NR]; MR16],
    ) {
        let mut c0 = [_mm256_setzero_si256(); MR16];
        let mut c1 = [_mm256_setzero_si256(); MR16];
        let mut pp = panel;
        for seg in segs {
            let p = rows.map(|r| r.wrapping_add(seg.offset));
            for g in 0..seg.len / 2 {
                // SAFETY: the caller's contract: 32 panel elements per pair, and `seg.offset +
                // 2g + 2 ≤ seg.offset + seg.len` inside every row.
                unsafe {
                    let b0 = _mm256_loadu_si256(pp.cast());
                    let b1 = _mm256_loadu_si256(pp.add(16).cast());
                    pp = pp.add(32);
                    for i in 0..MR16 {
                        let pair = std::ptr::read_unaligned(p[i].add(2 * g).cast::<i32>());
                        let a = _mm256_set1_epi32(pair);
                        c0[i] = _mm256_add_epi32(c0[i], _mm256_madd_epi16(a, b0));
                        c1[i] = _mm256_add_epi32(c1[i], _mm256_madd_epi16(a, b1));
                    }
                }
            }
        }
        for i in 0..MR16 {
            // SAFETY: each row of `acc` holds 16 i32: two stores of 8.
            unsafe {
                _mm256_storeu_si256(acc[i].as_mut_ptr().cast(), c0[i]);
                _mm256_storeu_si256(acc[i].as_mut_ptr().add(8).cast(), c1[i]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_into_dirty_scratch_matches_an_owned_packing() {
        for layout in [Layout::U8, Layout::I16] {
            for (k, n) in [(1usize, 1usize), (7, 17), (33, 40)] {
                let b: Vec<i8> = (0..k * n).map(|i| (i * 31 % 256) as u8 as i8).collect();
                let owned = PackedB::with_layout(layout, &b, k, n, n, 1, -3).unwrap();
                let len = PackedB::len(layout, k, n).unwrap();
                let mut words = vec![u32::MAX; len.div_ceil(4)];
                let dst = &mut bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..len];
                let view = PackedB::pack_into(layout, dst, &b, k, n, n, 1, -3).unwrap();
                assert_eq!(view.data, owned.view().data, "{layout:?} {k}×{n}");
                assert_eq!((view.kp, view.n, view.zb), (owned.kp, owned.n, owned.zb));
            }
        }
        let mut short = [0u8; 8];
        assert!(PackedB::pack_into(Layout::U8, &mut short, &[1; 4], 2, 2, 2, 1, 0).is_err());
    }

    #[test]
    fn the_simd_and_portable_blocks_agree() {
        // Two segments of each row (of 28 and 12 bytes) in a 60-byte stride.
        let u: Vec<u8> = (0..MR * 60).map(|i| (i * 37 % 256) as u8).collect();
        let useg = [
            Seg { offset: 4, len: 28 },
            Seg {
                offset: 40,
                len: 12,
            },
        ];
        let urows = std::array::from_fn(|i| i * 60);
        let panels: Vec<u8> = (0..2 * 40 * 16).map(|i| (i * 91 % 256) as u8).collect();
        for np in 1..=2 {
            let (mut a, mut b) = ([[0i32; 2 * NR]; MR], [[0i32; 2 * NR]; MR]);
            dot_block_u8(vnni_available(), &u, &urows, &useg, &panels, np, &mut a);
            dot_block_u8(false, &u, &urows, &useg, &panels, np, &mut b);
            assert!(b.iter().any(|row| row.iter().any(|&v| v != 0)));
            for i in 0..MR {
                assert_eq!(a[i][..np * NR], b[i][..np * NR], "{np} panels");
            }
        }
        // Two segments of each row (of 38 and 12 elements) in a 70-element stride.
        let v: Vec<i16> = (0..MR16 * 70)
            .map(|i| (i * 37 % 511) as i16 - 255)
            .collect();
        let segs = [
            Seg { offset: 2, len: 38 },
            Seg {
                offset: 50,
                len: 12,
            },
        ];
        let panel: Vec<i16> = (0..50 * 16).map(|i| (i * 91 % 511) as i16 - 255).collect();
        let rows = [0, 70, 140, 210, 280, 350];
        let (mut a, mut b) = ([[0i32; NR]; MR16], [[0i32; NR]; MR16]);
        dot_i16(avx2_available(), &v, &rows, &segs, &panel, &mut a);
        dot_i16(false, &v, &rows, &segs, &panel, &mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn matches_a_plain_loop_for_every_edge_size_and_zero_point() {
        let mut x = 12345u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as i8
        };
        for layout in [Layout::U8, Layout::I16] {
            for (m, k, n, za, zb) in [
                (1, 1, 1, 0, 0),
                (25, 9, 48, 127, -128),
                (7, 5, 17, -128, 0),
                (13, 36, 33, 5, -3),
                (6, 288, 32, -128, 2),
                (30, 20, 16, 3, 0),
                (5, 3, 40, -128, -128),
            ] {
                let a: Vec<i8> = (0..m * k).map(|_| next()).collect();
                let b: Vec<i8> = (0..k * n).map(|_| next()).collect();
                let packed = PackedB::with_layout(layout, &b, k, n, n, 1, zb).unwrap();
                let mut c = vec![0i32; m * n];
                let mut seen = vec![0u8; m * n];
                gemm_i8(m, &a, k, za, &packed.view(), &mut |r, j0, v| {
                    for (j, &x) in v.iter().enumerate() {
                        c[r * n + j0 + j] = x;
                        seen[r * n + j0 + j] += 1;
                    }
                })
                .unwrap();
                assert!(seen.iter().all(|&s| s == 1), "every result stored once");
                for i in 0..m {
                    for j in 0..n {
                        let mut want = 0i32;
                        for kk in 0..k {
                            want +=
                                (i32::from(a[i * k + kk]) - za) * (i32::from(b[kk * n + j]) - zb);
                        }
                        assert_eq!(c[i * n + j], want, "{layout:?} ({m},{k},{n}) [{i}][{j}]");
                    }
                }
            }
        }
    }
}
