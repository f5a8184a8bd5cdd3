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
//!   Rows of `a` come as `a + 128` bytes ([`gemm_u8`]); the kernel runs 12 rows × 32 columns.
//! - [`Layout::I16`] (AVX2, and the portable loop): `b − zb` as i16 in 16-column panels of
//!   2-row pairs (lane `j` of a pair group holds `b[k][j], b[k+1][j]`), K padded to even. Rows of
//!   `a` come as `a − za` in i16 ([`gemm_i16`]); `vpmaddwd` multiplies the pairs exactly (each
//!   product is at most 255², the pair sum fits i32), so no correction terms are needed. The
//!   kernel runs 6 rows × 16 columns.
//!
//! Every kernel keeps its accumulators in registers; each finished block goes to the caller's
//! store function (which adds the bias, or rescales), so no i32 result is written twice.
//! Everything reads only inside the slices it is given.

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
/// [`gemm_u8`] or [`gemm_i16`].
#[derive(Debug, Clone)]
pub struct PackedB {
    k: usize,
    n: usize,
    zb: i32,
    /// K rounded up to the layout's group (4 or 2).
    kp: usize,
    layout: Layout,
    /// [`Layout::U8`]: panels of `kp/4` groups of 64 bytes.
    bytes: Vec<u8>,
    /// [`Layout::U8`]: `Σ_k b[k][j]` per column.
    col_sums: Vec<i32>,
    /// [`Layout::I16`]: panels of `kp/2` groups of 32 i16.
    pairs: Vec<i16>,
}

impl PackedB {
    /// Packs `b` in the layout for this CPU.
    pub fn new(b: &[i8], k: usize, n: usize, rs: usize, cs: usize, zb: i32) -> PackedB {
        PackedB::with_layout(Layout::for_this_cpu(), b, k, n, rs, cs, zb)
    }

    /// Packs `b` in `layout`.
    pub fn with_layout(
        layout: Layout,
        b: &[i8],
        k: usize,
        n: usize,
        rs: usize,
        cs: usize,
        zb: i32,
    ) -> PackedB {
        let panels = n.div_ceil(NR);
        let mut packed = PackedB {
            k,
            n,
            zb,
            kp: 0,
            layout,
            bytes: Vec::new(),
            col_sums: Vec::new(),
            pairs: Vec::new(),
        };
        match layout {
            Layout::U8 => {
                let k4 = k.div_ceil(4) * 4;
                packed.kp = k4;
                packed.bytes = vec![0u8; panels * k4 * NR];
                packed.col_sums = vec![0i32; n];
                for j in 0..n {
                    let (p, lane) = (j / NR, j % NR);
                    for kk in 0..k {
                        let v = b[kk * rs + j * cs];
                        packed.col_sums[j] = packed.col_sums[j].wrapping_add(i32::from(v));
                        packed.bytes[(p * (k4 / 4) + kk / 4) * 64 + lane * 4 + kk % 4] = v as u8;
                    }
                }
            }
            Layout::I16 => {
                let k2 = k.div_ceil(2) * 2;
                packed.kp = k2;
                packed.pairs = vec![0i16; panels * k2 * NR];
                for j in 0..n {
                    let (p, lane) = (j / NR, j % NR);
                    for kk in 0..k {
                        // In −255..=255: int8 values and zero points.
                        let v = (i32::from(b[kk * rs + j * cs]) - zb) as i16;
                        packed.pairs[(p * (k2 / 2) + kk / 2) * 32 + lane * 2 + kk % 2] = v;
                    }
                }
            }
        }
        packed
    }

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
        match self.layout {
            Layout::U8 => MR,
            Layout::I16 => MR16,
        }
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
    b: &PackedB,
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
            gemm_u8(m, &u, za, b, store)
        }
        Layout::I16 => {
            let mut v = vec![0i16; m * kp];
            for (dst, row) in v.chunks_exact_mut(kp).zip(rows) {
                for (d, &s) in dst.iter_mut().zip(row) {
                    *d = (i32::from(s) - za) as i16;
                }
            }
            gemm_i16(m, &v, b, store)
        }
    }
}

/// [`gemm_i8`] on rows already converted for [`Layout::U8`]: `u` holds `m` rows of
/// [`PackedB::row_len`] bytes, each `a + 128` (`a ⊕ 0x80`) for its first `k` bytes and 0 after.
/// Rows are stored in order of [`MR`]-row blocks, all columns of a block before the next.
///
/// # Errors
/// When `b` is not [`Layout::U8`] or `u` is too short for `m` rows.
pub fn gemm_u8(
    m: usize,
    u: &[u8],
    za: i32,
    b: &PackedB,
    store: &mut Store<'_>,
) -> Result<(), &'static str> {
    let (k, k4, n, zb) = (b.k, b.kp, b.n, b.zb);
    if b.layout != Layout::U8 {
        return Err("int8 GEMM: weights packed for the i16 kernel");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if m * k4 > u.len() {
        return Err("int8 GEMM operands out of range");
    }
    // −(128+za)·Σ_k b per column; −zb·Σ_k a + K·za·zb per row, with Σ_k a = Σ_k u − 128·k.
    let col_fix: Vec<i32> = b
        .col_sums
        .iter()
        .map(|&s| 128i32.wrapping_add(za).wrapping_mul(s).wrapping_neg())
        .collect();
    let kzz = (k as i32).wrapping_mul(za).wrapping_mul(zb);
    let panels = n.div_ceil(NR);
    let simd = vnni_available();
    let mut tail = Vec::new();
    let mut r = 0;
    while r < m {
        let rows = MR.min(m - r);
        let mut block = &u[r * k4..(r + rows) * k4];
        if rows < MR {
            // The kernels always run MR rows: pad the last block with zero rows.
            tail.clear();
            tail.extend_from_slice(block);
            tail.resize(MR * k4, 0);
            block = &tail;
        }
        let mut row_fix = [kzz; MR];
        if zb != 0 {
            for (fix, row) in row_fix.iter_mut().zip(block.chunks_exact(k4)).take(rows) {
                let sum_u = row.iter().fold(0u32, |s, &v| s.wrapping_add(u32::from(v)));
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
                block,
                k4,
                &b.bytes[p * k4 * NR..(p + np) * k4 * NR],
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

/// [`gemm_i8`] on rows already converted for [`Layout::I16`]: `v` holds `m` rows of
/// [`PackedB::row_len`] i16, each `a − za` for its first `k` elements and 0 after. Rows are
/// stored in order of [`MR16`]-row blocks, all columns of a block before the next.
///
/// # Errors
/// When `b` is not [`Layout::I16`] or `v` is too short for `m` rows.
pub fn gemm_i16(
    m: usize,
    v: &[i16],
    b: &PackedB,
    store: &mut Store<'_>,
) -> Result<(), &'static str> {
    let (k2, n) = (b.kp, b.n);
    if b.layout != Layout::I16 {
        return Err("int8 GEMM: weights packed for the VNNI kernel");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if m * k2 > v.len() {
        return Err("int8 GEMM operands out of range");
    }
    let simd = avx2_available();
    let panels = n.div_ceil(NR);
    let mut tail = Vec::new();
    let mut r = 0;
    while r < m {
        let rows = MR16.min(m - r);
        let mut block = &v[r * k2..(r + rows) * k2];
        if rows < MR16 {
            tail.clear();
            tail.extend_from_slice(block);
            tail.resize(MR16 * k2, 0);
            block = &tail;
        }
        for p in 0..panels {
            let mut acc = [[0i32; NR]; MR16];
            dot_block_i16(
                simd,
                block,
                k2,
                &b.pairs[p * k2 * NR..(p + 1) * k2 * NR],
                &mut acc,
            );
            let (c0, cols) = (p * NR, NR.min(n - p * NR));
            for (i, row) in acc.iter().enumerate().take(rows) {
                store(r + i, c0, &row[..cols]);
            }
        }
        r += rows;
    }
    Ok(())
}

/// An implicit-GEMM view of [`Layout::I16`] rows (a convolution reading its converted,
/// zero-padded input image in place, with no im2col copy): row `r`'s K elements are the runs
/// `image[row_start(r) + offset .. + run]` for each `offset` of `runs`, in order.
pub struct Gathered<'a> {
    /// The converted image (`a − za`, padding 0).
    pub image: &'a [i16],
    /// Where each row's first run starts, less its offset.
    pub row_start: &'a (dyn Fn(usize) -> usize + Sync),
    /// Each run's offset from its row's start.
    pub runs: &'a [usize],
    /// Elements per run (even: the kernel reads pairs).
    pub run: usize,
}

impl std::fmt::Debug for Gathered<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gathered")
            .field("image", &self.image.len())
            .field("runs", &self.runs)
            .field("run", &self.run)
            .finish()
    }
}

/// [`gemm_i16`] on [`Gathered`] rows: the same results, stored in the same order.
///
/// # Errors
/// When `b` is not [`Layout::I16`], the runs do not make `b`'s K, a run is odd, or a row reads
/// outside the image.
pub fn gemm_i16_gathered(
    m: usize,
    a: &Gathered<'_>,
    b: &PackedB,
    mut store: impl FnMut(usize, usize, &[i32]),
) -> Result<(), &'static str> {
    let (k2, n) = (b.kp, b.n);
    if b.layout != Layout::I16 {
        return Err("int8 GEMM: weights packed for the VNNI kernel");
    }
    if !a.run.is_multiple_of(2) || a.runs.len() * a.run != b.k || b.k != k2 {
        return Err("int8 GEMM: runs that do not make K in pairs");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let last = a.runs.iter().copied().max().unwrap_or(0) + a.run;
    let simd = avx2_available();
    let panels = n.div_ceil(NR);
    let pairs = a.run / 2;
    let mut r = 0;
    while r < m {
        let rows = MR16.min(m - r);
        let mut starts = [0usize; MR16];
        for (i, s) in starts.iter_mut().enumerate() {
            // Rows past the end repeat the block's first row (their results are dropped).
            *s = (a.row_start)(r + if i < rows { i } else { 0 });
            if s.checked_add(last).is_none_or(|end| end > a.image.len()) {
                return Err("int8 GEMM: a row reads outside the image");
            }
        }
        for p in 0..panels {
            let panel = &b.pairs[p * k2 * NR..(p + 1) * k2 * NR];
            let mut acc = [[0i32; NR]; MR16];
            for (s, &offset) in a.runs.iter().enumerate() {
                let group = s * pairs;
                let rows_at = starts.map(|st| st + offset);
                dot_runs_i16(
                    simd,
                    a.image,
                    &rows_at,
                    pairs,
                    &panel[group * 32..(group + pairs) * 32],
                    &mut acc,
                );
            }
            let (c0, cols) = (p * NR, NR.min(n - p * NR));
            for (i, row) in acc.iter().enumerate().take(rows) {
                store(r + i, c0, &row[..cols]);
            }
        }
        r += rows;
    }
    Ok(())
}

/// `acc[i][j] += Σ_g Σ_t image[rows[i] + 2g + t] · panel[g·32 + 2j + t]` for `pairs` pairs.
fn dot_runs_i16(
    simd: bool,
    image: &[i16],
    rows: &[usize; MR16],
    pairs: usize,
    panel: &[i16],
    acc: &mut [[i32; NR]; MR16],
) {
    if panel.len() < pairs * 32 || rows.iter().any(|&r| r + 2 * pairs > image.len()) {
        return; // Not reached: `gemm_i16_gathered` checks every row.
    }
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` says the CPU has AVX2; the bounds were checked above.
        unsafe { simd::dot_runs_i16(image, rows, pairs, panel, acc) };
        return;
    }
    let _ = simd;
    for (row, &start) in acc.iter_mut().zip(rows) {
        for g in 0..pairs {
            let (x0, x1) = (image[start + 2 * g], image[start + 2 * g + 1]);
            let grp = &panel[g * 32..g * 32 + 32];
            for (j, out) in row.iter_mut().enumerate() {
                let s = i32::from(x0) * i32::from(grp[2 * j])
                    + i32::from(x1) * i32::from(grp[2 * j + 1]);
                *out = out.wrapping_add(s);
            }
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

/// `acc[i][16q + j] = Σ_g Σ_t u[i·k4 + 4g + t] · panels[q·k4·16 + g·64 + 4j + t]` (u8 × s8) for
/// the [`MR`] rows of `u` and `np` ≤ 2 consecutive panels.
fn dot_block_u8(
    simd: bool,
    u: &[u8],
    k4: usize,
    panels: &[u8],
    np: usize,
    acc: &mut [[i32; 2 * NR]; MR],
) {
    if np == 0 || np > 2 || u.len() < MR * k4 || panels.len() < np * k4 * NR {
        return; // Not reached: `gemm_u8` passes whole blocks.
    }
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` says the CPU has the features; the lengths were checked above.
        unsafe {
            if np == 2 {
                simd::dot_block_u8::<2>(u, k4, panels, acc)
            } else {
                simd::dot_block_u8::<1>(u, k4, panels, acc)
            }
        };
        return;
    }
    let _ = simd;
    for (i, row) in acc.iter_mut().enumerate() {
        let ur = &u[i * k4..(i + 1) * k4];
        for q in 0..np {
            let panel = &panels[q * k4 * NR..(q + 1) * k4 * NR];
            for g in 0..k4 / 4 {
                let grp = &panel[g * 64..g * 64 + 64];
                for j in 0..NR {
                    let mut s = 0i32;
                    for t in 0..4 {
                        s += i32::from(ur[4 * g + t]) * i32::from(grp[4 * j + t] as i8);
                    }
                    row[q * NR + j] = row[q * NR + j].wrapping_add(s);
                }
            }
        }
    }
}

/// `acc[i][j] = Σ_g Σ_t v[i·k2 + 2g + t] · panel[g·32 + 2j + t]` (i16 × i16, exact pair sums,
/// wrapping accumulation) for the [`MR16`] rows of `v` and one panel.
fn dot_block_i16(simd: bool, v: &[i16], k2: usize, panel: &[i16], acc: &mut [[i32; NR]; MR16]) {
    if v.len() < MR16 * k2 || panel.len() < k2 * NR {
        return; // Not reached: `gemm_i16` passes whole blocks.
    }
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` says the CPU has AVX2; the lengths were checked above.
        unsafe { simd::dot_block_i16(v, k2, panel, acc) };
        return;
    }
    let _ = simd;
    for (i, row) in acc.iter_mut().enumerate() {
        let vr = &v[i * k2..(i + 1) * k2];
        for g in 0..k2 / 2 {
            let grp = &panel[g * 32..g * 32 + 32];
            for (j, out) in row.iter_mut().enumerate() {
                let s = i32::from(vr[2 * g]) * i32::from(grp[2 * j])
                    + i32::from(vr[2 * g + 1]) * i32::from(grp[2 * j + 1]);
                *out = out.wrapping_add(s);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{MR, MR16, NR};
    use std::arch::x86_64::*;

    /// [`super::dot_block_u8`] for `NP` panels: 12 rows × 16·`NP` columns, the accumulators in
    /// registers (the row loops have constant bounds and unroll).
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 VNNI; `NP` is 1 or 2, `u.len() ≥ 12·k4` and
    /// `panels.len() ≥ NP·k4·16` (checked by the caller).
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn dot_block_u8<const NP: usize>(
        u: &[u8],
        k4: usize,
        panels: &[u8],
        acc: &mut [[i32; 2 * NR]; MR],
    ) {
        let mut c0 = [_mm512_setzero_si512(); MR];
        let mut c1 = [_mm512_setzero_si512(); MR];
        let up = u.as_ptr();
        let p0 = panels.as_ptr();
        let p1 = p0.wrapping_add(k4 * 16);
        for g in 0..k4 / 4 {
            // SAFETY: `g·64 + 64 ≤ k4·16`, inside each of the NP panels (the caller's contract).
            let b0 = unsafe { _mm512_loadu_si512(p0.add(g * 64).cast()) };
            let b1 = if NP == 2 {
                // SAFETY: as above, in the second panel.
                unsafe { _mm512_loadu_si512(p1.add(g * 64).cast()) }
            } else {
                b0
            };
            for i in 0..MR {
                // SAFETY: `i·k4 + 4g + 4 ≤ 12·k4 ≤ u.len()`.
                let a4 = unsafe { std::ptr::read_unaligned(up.add(i * k4 + 4 * g).cast::<i32>()) };
                let a = _mm512_set1_epi32(a4);
                c0[i] = _mm512_dpbusd_epi32(c0[i], a, b0);
                if NP == 2 {
                    c1[i] = _mm512_dpbusd_epi32(c1[i], a, b1);
                }
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

    /// [`super::dot_runs_i16`]: [`dot_block_i16`]'s loop on six row addresses, adding to
    /// `acc`.
    ///
    /// # Safety
    /// The CPU must have AVX2; `rows[i] + 2·pairs ≤ image.len()` for every row and
    /// `panel.len() ≥ 32·pairs` (checked by the caller).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot_runs_i16(
        image: &[i16],
        rows: &[usize; MR16],
        pairs: usize,
        panel: &[i16],
        acc: &mut [[i32; NR]; MR16],
    ) {
        let mut c0 = [_mm256_setzero_si256(); MR16];
        let mut c1 = [_mm256_setzero_si256(); MR16];
        let base = image.as_ptr();
        let ptrs = rows.map(|r| base.wrapping_add(r));
        let pp = panel.as_ptr();
        for g in 0..pairs {
            // SAFETY: `g·32 + 32 ≤ 32·pairs ≤ panel.len()`.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_si256(pp.add(g * 32).cast()),
                    _mm256_loadu_si256(pp.add(g * 32 + 16).cast()),
                )
            };
            for i in 0..MR16 {
                // SAFETY: `rows[i] + 2g + 2 ≤ rows[i] + 2·pairs ≤ image.len()`.
                let pair = unsafe { std::ptr::read_unaligned(ptrs[i].add(2 * g).cast::<i32>()) };
                let a = _mm256_set1_epi32(pair);
                c0[i] = _mm256_add_epi32(c0[i], _mm256_madd_epi16(a, b0));
                c1[i] = _mm256_add_epi32(c1[i], _mm256_madd_epi16(a, b1));
            }
        }
        for i in 0..MR16 {
            // SAFETY: each row of `acc` holds 16 i32: two loads and stores of 8.
            unsafe {
                let p = acc[i].as_mut_ptr();
                let (s0, s1) = (
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(8).cast()),
                );
                _mm256_storeu_si256(p.cast(), _mm256_add_epi32(s0, c0[i]));
                _mm256_storeu_si256(p.add(8).cast(), _mm256_add_epi32(s1, c1[i]));
            }
        }
    }

    /// [`super::dot_block_i16`]: 6 rows × 16 columns with `vpmaddwd` (exact: no pair sum
    /// reaches its saturating case, −32768·−32768 twice) and wrapping `vpaddd`, the 12
    /// accumulators in registers.
    ///
    /// # Safety
    /// The CPU must have AVX2; `v.len() ≥ 6·k2` and `panel.len() ≥ k2·16` (checked by the
    /// caller).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot_block_i16(
        v: &[i16],
        k2: usize,
        panel: &[i16],
        acc: &mut [[i32; NR]; MR16],
    ) {
        let mut c0 = [_mm256_setzero_si256(); MR16];
        let mut c1 = [_mm256_setzero_si256(); MR16];
        let vp = v.as_ptr();
        let pp = panel.as_ptr();
        for g in 0..k2 / 2 {
            // SAFETY: `g·32 + 32 ≤ k2·16 ≤ panel.len()`.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_si256(pp.add(g * 32).cast()),
                    _mm256_loadu_si256(pp.add(g * 32 + 16).cast()),
                )
            };
            for i in 0..MR16 {
                // SAFETY: `i·k2 + 2g + 2 ≤ 6·k2 ≤ v.len()`.
                let pair =
                    unsafe { std::ptr::read_unaligned(vp.add(i * k2 + 2 * g).cast::<i32>()) };
                let a = _mm256_set1_epi32(pair);
                c0[i] = _mm256_add_epi32(c0[i], _mm256_madd_epi16(a, b0));
                c1[i] = _mm256_add_epi32(c1[i], _mm256_madd_epi16(a, b1));
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
    fn the_simd_and_portable_blocks_agree() {
        let k4 = 40;
        let u: Vec<u8> = (0..MR * k4).map(|i| (i * 37 % 256) as u8).collect();
        let panels: Vec<u8> = (0..2 * k4 * 16).map(|i| (i * 91 % 256) as u8).collect();
        for np in 1..=2 {
            let (mut a, mut b) = ([[0i32; 2 * NR]; MR], [[0i32; 2 * NR]; MR]);
            dot_block_u8(vnni_available(), &u, k4, &panels, np, &mut a);
            dot_block_u8(false, &u, k4, &panels, np, &mut b);
            for i in 0..MR {
                assert_eq!(a[i][..np * NR], b[i][..np * NR], "{np} panels");
            }
        }
        let k2 = 38;
        let v: Vec<i16> = (0..MR16 * k2)
            .map(|i| (i * 37 % 511) as i16 - 255)
            .collect();
        let panel: Vec<i16> = (0..k2 * 16).map(|i| (i * 91 % 511) as i16 - 255).collect();
        let (mut a, mut b) = ([[0i32; NR]; MR16], [[0i32; NR]; MR16]);
        dot_block_i16(avx2_available(), &v, k2, &panel, &mut a);
        dot_block_i16(false, &v, k2, &panel, &mut b);
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
                let packed = PackedB::with_layout(layout, &b, k, n, n, 1, zb);
                let mut c = vec![0i32; m * n];
                let mut seen = vec![0u8; m * n];
                gemm_i8(m, &a, k, za, &packed, &mut |r, j0, v| {
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
