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
//! AVX-512 VNNI (12 rows × 32 columns per step) when the CPU has it, a portable loop otherwise.
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

/// Rows per kernel step.
const MR: usize = 12;

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
    let k = b.k;
    if m == 0 {
        return Ok(());
    }
    if (m - 1) * lda + k > a.len() {
        return Err("int8 GEMM operands out of range");
    }
    let mut u = vec![0u8; m * b.k4];
    for (i, row) in u.chunks_exact_mut(b.k4).enumerate() {
        for (d, &s) in row.iter_mut().zip(&a[i * lda..i * lda + k]) {
            *d = (s as u8) ^ 0x80;
        }
    }
    gemm_u8(m, &u, za, b, zb, c, ldc)
}

/// [`gemm_i8`] on rows already converted: `u` holds `m` rows of [`PackedB::k4`] bytes, each
/// `a + 128` (`a ⊕ 0x80`) for its first `k` bytes and 0 after.
///
/// # Errors
/// When `u` or `c` is too short for `m` rows.
pub fn gemm_u8(
    m: usize,
    u: &[u8],
    za: i32,
    b: &PackedB,
    zb: i32,
    c: &mut [i32],
    ldc: usize,
) -> Result<(), &'static str> {
    let (k, k4, n) = (b.k, b.k4, b.n);
    if m == 0 || n == 0 {
        return Ok(());
    }
    if m * k4 > u.len() || (m - 1) * ldc + n > c.len() {
        return Err("int8 GEMM operands out of range");
    }
    // −zb·Σ_k a + K·za·zb per row, with Σ_k a = Σ_k u − 128·k.
    let kzz = (k as i32).wrapping_mul(za).wrapping_mul(zb);
    let panels = n.div_ceil(NR);
    let mut r = 0;
    while r < m {
        let rows = MR.min(m - r);
        let block = &u[r * k4..(r + rows) * k4];
        let mut row_fix = [0i32; MR];
        for (i, fix) in row_fix.iter_mut().enumerate().take(rows) {
            let sum_u: u32 = block[i * k4..(i + 1) * k4]
                .iter()
                .map(|&v| u32::from(v))
                .sum();
            let sum_a = (sum_u as i32).wrapping_sub(128i32.wrapping_mul(k as i32));
            *fix = kzz.wrapping_sub(zb.wrapping_mul(sum_a));
        }
        let mut p = 0;
        while p < panels {
            let np = 2.min(panels - p);
            let mut acc = [[0i32; 2 * NR]; MR];
            dot_block(
                block,
                k4,
                rows,
                &b.data[p * k4 * NR..(p + np) * k4 * NR],
                np,
                &mut acc,
            );
            let cols = (np * NR).min(n - p * NR);
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
            p += np;
        }
        r += rows;
    }
    Ok(())
}

/// `acc[i][16q + j] = Σ_g Σ_t u[i·k4 + 4g + t] · panels[q·k4·16 + g·64 + 4j + t]` (u8 × s8) for
/// `rows` ≤ [`MR`] rows and `np` ≤ 2 consecutive panels.
fn dot_block(
    u: &[u8],
    k4: usize,
    rows: usize,
    panels: &[u8],
    np: usize,
    acc: &mut [[i32; 2 * NR]; MR],
) {
    if rows > MR || np > 2 || u.len() < rows * k4 || panels.len() < np * k4 * NR {
        return; // Not reached: `gemm_i8` passes whole blocks.
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512f")
        {
            // SAFETY: the CPU has the features; the lengths were checked above.
            unsafe { vnni::dot_block(u, k4, rows, panels, np, acc) };
            return;
        }
    }
    dot_block_portable(u, k4, rows, panels, np, acc);
}

/// [`dot_block`] without SIMD.
fn dot_block_portable(
    u: &[u8],
    k4: usize,
    rows: usize,
    panels: &[u8],
    np: usize,
    acc: &mut [[i32; 2 * NR]; MR],
) {
    for (i, row) in acc.iter_mut().enumerate().take(rows) {
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

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 VNNI; `rows ≤ 12`, `np ≤ 2`,
    /// `u.len() ≥ rows·k4` and `panels.len() ≥ np·k4·16` (checked by the caller).
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn dot_block(
        u: &[u8],
        k4: usize,
        rows: usize,
        panels: &[u8],
        np: usize,
        acc: &mut [[i32; 32]; 12],
    ) {
        let mut c0 = [_mm512_setzero_si512(); 12];
        let mut c1 = [_mm512_setzero_si512(); 12];
        let up = u.as_ptr();
        let p0 = panels.as_ptr();
        // The second panel, or the first again when there is one (its sums are then unused).
        let p1 = if np == 2 {
            p0.wrapping_add(k4 * 16)
        } else {
            p0
        };
        for g in 0..k4 / 4 {
            // SAFETY: `g·64 + 64 ≤ k4·16`, inside each panel (the caller's contract).
            let (b0, b1) = unsafe {
                (
                    _mm512_loadu_si512(p0.add(g * 64).cast()),
                    _mm512_loadu_si512(p1.add(g * 64).cast()),
                )
            };
            for i in 0..rows {
                // SAFETY: `i·k4 + 4g + 4 ≤ rows·k4 ≤ u.len()`.
                let a4 = unsafe { std::ptr::read_unaligned(up.add(i * k4 + 4 * g).cast::<i32>()) };
                let a = _mm512_set1_epi32(a4);
                c0[i] = _mm512_dpbusd_epi32(c0[i], a, b0);
                c1[i] = _mm512_dpbusd_epi32(c1[i], a, b1);
            }
        }
        for i in 0..rows {
            // SAFETY: each row of `acc` holds 32 i32: two stores of 16.
            unsafe {
                _mm512_storeu_si512(acc[i].as_mut_ptr().cast(), c0[i]);
                _mm512_storeu_si512(acc[i].as_mut_ptr().add(16).cast(), c1[i]);
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
        for rows in 1..=MR {
            for np in 1..=2 {
                let (mut a, mut b) = ([[0i32; 2 * NR]; MR], [[0i32; 2 * NR]; MR]);
                dot_block(&u, k4, rows, &panels, np, &mut a);
                dot_block_portable(&u, k4, rows, &panels, np, &mut b);
                for i in 0..rows {
                    assert_eq!(a[i][..np * NR], b[i][..np * NR], "{rows} rows, {np} panels");
                }
            }
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
            (25, 9, 48, 127, -128),
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
