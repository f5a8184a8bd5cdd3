//! Exact int8 GEMM for the quantised convolutions: `C[m][n] = Σ_k (a[m][k] − za)·(b[k][n] − zb)`
//! in wrapping i32 arithmetic, which is the TOSA result modulo 2^32 (accumulator overflow is
//! unpredictable in TOSA; the reference kernels wrap the same way, so results are bit-exact).
//!
//! The products are computed as `(a + 128)·b` (u8 × s8, what AVX-512 VNNI's `vpdpbusd` sums four
//! at a time without saturating) and corrected with precomputed sums:
//! `Σ (a−za)(b−zb) = Σ (a+128)·b − (128+za)·Σ_k b − zb·Σ_k a + K·za·zb`.
//!
//! [`PackedB`] holds `b` in 16-column panels of 4-row groups (64 bytes per group, lane `j` has
//! `b[k..k+4][n0+j]`), K padded with zero rows to a multiple of 4, and its column sums. Kernels:
//! AVX-512 VNNI (6 rows × 32 columns per step) when the CPU has it, a portable loop otherwise.
//! Both read only inside the slices they are given.

/// Columns per panel.
const NR: usize = 16;

/// `b` (`k × n`, element `(k, j)` at `b[k·rs + j·cs]`) packed for [`gemm_i8`].
#[derive(Debug, Clone)]
pub struct PackedB {
    k: usize,
    k4: usize,
    n: usize,
    /// Panels of `k4/4` groups of 64 bytes.
    data: Vec<u8>,
    /// `Σ_k b[k][j]` per column.
    col_sums: Vec<i32>,
}

impl PackedB {
    /// Packs `b`.
    pub fn new(b: &[i8], k: usize, n: usize, rs: usize, cs: usize) -> PackedB {
        let k4 = k.div_ceil(4) * 4;
        let panels = n.div_ceil(NR);
        let mut data = vec![0u8; panels * k4 * NR];
        let mut col_sums = vec![0i32; n];
        for j in 0..n {
            let (p, lane) = (j / NR, j % NR);
            for kk in 0..k {
                let v = b[kk * rs + j * cs];
                col_sums[j] = col_sums[j].wrapping_add(i32::from(v));
                let group = kk / 4;
                data[(p * (k4 / 4) + group) * 64 + lane * 4 + kk % 4] = v as u8;
            }
        }
        PackedB {
            k,
            k4,
            n,
            data,
            col_sums,
        }
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }
}

/// `c[m][j] (row stride ldc) = Σ_k (a[m][k] − za)(b[k][j] − zb) + c[m][j]` for `m` rows of `a`
/// (`k` elements each, row stride `lda`), wrapping. `c` must hold the bias (or zeros).
///
/// # Errors
/// When `a` or `c` is too short for `m` rows.
#[allow(clippy::too_many_arguments)]
pub fn gemm_i8(
    m: usize,
    a: &[i8],
    lda: usize,
    za: i32,
    b: &PackedB,
    zb: i32,
    c: &mut [i32],
    ldc: usize,
) -> Result<(), &'static str> {
    let (k, n) = (b.k, b.n);
    if m == 0 || n == 0 {
        return Ok(());
    }
    if (m - 1) * lda + k > a.len() || (m - 1) * ldc + n > c.len() {
        return Err("int8 GEMM operands out of range");
    }
    // Per-row corrections: −zb·Σ_k a, plus the constant K·za·zb.
    let kzz = (k as i32).wrapping_mul(za).wrapping_mul(zb);
    // a + 128 as u8 (x ⊕ 0x80), rows padded to k4 with zeros: a row at a time, in a scratch.
    let mut urow = vec![0u8; b.k4 * 6];
    let mut r = 0;
    while r < m {
        let rows = 6.min(m - r);
        let mut row_fix = [0i32; 6];
        for i in 0..rows {
            let src = &a[(r + i) * lda..(r + i) * lda + k];
            let dst = &mut urow[i * b.k4..(i + 1) * b.k4];
            let mut sum = 0i32;
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = (s as u8) ^ 0x80;
                sum = sum.wrapping_add(i32::from(s));
            }
            dst[k..].fill(0);
            row_fix[i] = kzz.wrapping_sub(zb.wrapping_mul(sum));
        }
        for p in 0..n.div_ceil(NR) {
            let cols = NR.min(n - p * NR);
            let mut acc = [[0i32; NR]; 6];
            dot_block(
                &urow,
                b.k4,
                rows,
                &b.data[p * b.k4 * NR..(p + 1) * b.k4 * NR],
                &mut acc,
            );
            for i in 0..rows {
                let crow = &mut c[(r + i) * ldc + p * NR..(r + i) * ldc + p * NR + cols];
                for (j, out) in crow.iter_mut().enumerate() {
                    // (a+128)·b sums: remove the 128 offset and za: −(128+za)·Σ_k b.
                    let colfix = (128i32.wrapping_add(za)).wrapping_mul(b.col_sums[p * NR + j]);
                    *out = out
                        .wrapping_add(acc[i][j])
                        .wrapping_sub(colfix)
                        .wrapping_add(row_fix[i]);
                }
            }
        }
        r += rows;
    }
    Ok(())
}

/// `acc[i][j] = Σ_g Σ_t u[i·k4 + 4g + t] · panel[g·64 + 4j + t]` (u8 × s8) for `rows` rows.
fn dot_block(u: &[u8], k4: usize, rows: usize, panel: &[u8], acc: &mut [[i32; NR]; 6]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512f")
        {
            // SAFETY: the CPU has the features; the kernel reads `u[..rows·k4]` and
            // `panel[..k4·16]` only (the lengths are checked there).
            unsafe { vnni::dot_block(u, k4, rows, panel, acc) };
            return;
        }
    }
    dot_block_portable(u, k4, rows, panel, acc);
}

/// [`dot_block`] without SIMD.
fn dot_block_portable(u: &[u8], k4: usize, rows: usize, panel: &[u8], acc: &mut [[i32; NR]; 6]) {
    for (i, row) in acc.iter_mut().enumerate().take(rows) {
        let ur = &u[i * k4..(i + 1) * k4];
        for g in 0..k4 / 4 {
            let grp = &panel[g * 64..g * 64 + 64];
            for (j, out) in row.iter_mut().enumerate() {
                let mut s = 0i32;
                for t in 0..4 {
                    s += i32::from(ur[4 * g + t]) * i32::from(grp[4 * j + t] as i8);
                }
                *out = out.wrapping_add(s);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 VNNI.
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn dot_block(
        u: &[u8],
        k4: usize,
        rows: usize,
        panel: &[u8],
        acc: &mut [[i32; 16]; 6],
    ) {
        if rows > 6 || u.len() < rows * k4 || panel.len() < k4 * 16 {
            return; // Not reached: `dot_block`'s callers pass whole blocks.
        }
        let mut c = [_mm512_setzero_si512(); 6];
        for g in 0..k4 / 4 {
            // SAFETY: `g·64 + 64 ≤ k4·16 ≤ panel.len()`.
            let bv = unsafe { _mm512_loadu_si512(panel.as_ptr().add(g * 64).cast()) };
            for (i, ci) in c.iter_mut().enumerate().take(rows) {
                let o = i * k4 + 4 * g;
                let a4 = i32::from_le_bytes([u[o], u[o + 1], u[o + 2], u[o + 3]]);
                *ci = _mm512_dpbusd_epi32(*ci, _mm512_set1_epi32(a4), bv);
            }
        }
        for i in 0..rows {
            let mut out = [0i32; 16];
            // SAFETY: `out` holds 16 i32.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), c[i]) };
            acc[i] = out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simd_and_portable_blocks_agree() {
        let k4 = 40;
        let u: Vec<u8> = (0..6 * k4).map(|i| (i * 37 % 256) as u8).collect();
        let panel: Vec<u8> = (0..k4 * 16).map(|i| (i * 91 % 256) as u8).collect();
        for rows in 1..=6 {
            let (mut a, mut b) = ([[0i32; NR]; 6], [[0i32; NR]; 6]);
            dot_block(&u, k4, rows, &panel, &mut a);
            dot_block_portable(&u, k4, rows, &panel, &mut b);
            assert_eq!(a, b, "{rows} rows");
        }
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
        for (m, k, n, za, zb) in [
            (1, 1, 1, 0, 0),
            (7, 5, 17, -128, 0),
            (13, 36, 33, 5, -3),
            (6, 288, 32, -128, 2),
        ] {
            let a: Vec<i8> = (0..m * k).map(|_| next()).collect();
            let b: Vec<i8> = (0..k * n).map(|_| next()).collect();
            let packed = PackedB::new(&b, k, n, n, 1);
            let mut c = vec![7i32; m * n];
            gemm_i8(m, &a, k, za, &packed, zb, &mut c, n).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let mut want = 7i32;
                    for kk in 0..k {
                        want += (i32::from(a[i * k + kk]) - za) * (i32::from(b[kk * n + j]) - zb);
                    }
                    assert_eq!(c[i * n + j], want, "({m},{k},{n}) [{i}][{j}]");
                }
            }
        }
    }
}
