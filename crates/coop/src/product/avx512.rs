//! The AVX-512 kernels of [`super::HalfProduct`] for results 16 columns wide (`N = 16`, every
//! listed 16×16 form): one 512-bit register holds a whole row of the accumulator, so a half's
//! rows (8 of them) stay in registers for the whole of `K`.
//!
//! - floats ([`float_rows`]): per step of `k`, row `k` of `B` is read from its component and
//!   widened to f32 in one instruction (no staging), `A[i][k]` is broadcast and fused into row
//!   `i`: the reference's order (`C` first, `k` ascending, one FMA per step), so the same bits
//!   as the AVX2 kernel and [`crate::matrix::MulAdd::reference`].
//! - 8-bit integers ([`vnni_rows`]): `vpdpbusd` multiplies 4 unsigned bytes of `A` by 4 signed
//!   bytes of `B` and adds the 4 products to a 32-bit lane, exactly. Signed `A` is biased by
//!   +128 and unsigned `B` by −128 into those ranges; with `a' = a + α`, `b' = b − β`,
//!   `Σ a·b = Σ a'·b' + β·Σₖ a − α·Σₖ b'`, every term exact in 32 bits for `K ≤ MAX_INT_K`.
//!
//! Invariants: the kernels run only on a CPU with the features [`Wide::detect`] found; they read
//! components `0..count` of each place only (`A`: `rows·K/16`, `B`: `K`, `C`/`D`: `rows`).

use std::arch::x86_64::*;
use std::sync::OnceLock;

use super::HALF;
use super::direct::Place;
use super::x86::Edge;
use crate::component::ComponentType;

/// Rows of the accumulator one block keeps in registers.
const BLOCK: usize = 8;

/// What the CPU has of AVX-512 for these kernels (asked once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wide {
    /// AVX-512F, BW and VL with F16C and FMA: the float kernel.
    pub(crate) floats: bool,
    /// And AVX-512 VNNI: the 8-bit integer kernel.
    pub(crate) vnni: bool,
    /// And AVX-512 VBMI: `B`'s bytes interleaved by one permutation.
    pub(crate) vbmi: bool,
}

impl Wide {
    #[cfg(test)]
    pub(crate) const NONE: Wide = Wide {
        floats: false,
        vnni: false,
        vbmi: false,
    };

    pub(crate) fn detect() -> Wide {
        static HAS: OnceLock<Wide> = OnceLock::new();
        *HAS.get_or_init(|| {
            let floats = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("f16c")
                && std::arch::is_x86_feature_detected!("fma");
            let vnni = floats && std::arch::is_x86_feature_detected!("avx512vnni");
            Wide {
                floats,
                vnni,
                vbmi: vnni && std::arch::is_x86_feature_detected!("avx512vbmi"),
            }
        })
    }
}

/// Row `r` (16 elements of `ty`: f16, bfloat16 or f32) at `p` as 16 f32.
///
/// # Safety
/// AVX-512F; `16·bytes(ty)` readable bytes at `p`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn row_f32(ty: ComponentType, p: *const u8) -> __m512 {
    // SAFETY: the caller's contract.
    unsafe {
        match ty {
            ComponentType::Float16 => _mm512_cvtph_ps(_mm256_loadu_si256(p.cast())),
            ComponentType::BFloat16 => _mm512_castsi512_ps(_mm512_slli_epi32::<16>(
                _mm512_cvtepu16_epi32(_mm256_loadu_si256(p.cast())),
            )),
            _ => _mm512_loadu_ps(p.cast()),
        }
    }
}

/// A row of an accumulator (`C`) at `p`, of type `ty`, as 16 f32.
///
/// # Safety
/// [`Wide::floats`]; `16·ty.bytes()` readable bytes at `p`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[inline]
unsafe fn accumulator_row(p: *const u8, ty: Edge) -> __m512 {
    // SAFETY: the caller's contract.
    unsafe {
        match ty {
            Edge::F16 => _mm512_cvtph_ps(_mm256_loadu_si256(p.cast())),
            Edge::BF16 => _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(
                _mm256_loadu_si256(p.cast()),
            ))),
            Edge::F32 => _mm512_loadu_ps(p.cast()),
        }
    }
}

/// Writes a result row (`D`) at `p` as `ty`: rounded once (to nearest even) to f16 or
/// bfloat16 (a NaN stays a NaN, quiet, as `half::bf16::from_f32` does), or f32.
///
/// # Safety
/// [`Wide::floats`]; `16·ty.bytes()` writable bytes at `p`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[inline]
unsafe fn store_accumulator_row(p: *mut u8, x: __m512, ty: Edge) {
    // SAFETY: the caller's contract.
    unsafe {
        match ty {
            Edge::F16 => {
                let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x);
                _mm256_storeu_si256(p.cast(), h);
            }
            Edge::BF16 => _mm256_storeu_si256(p.cast(), bf16_of(x)),
            Edge::F32 => _mm512_storeu_ps(p.cast(), x),
        }
    }
}

/// 16 f32 rounded to bfloat16 (to nearest even; a NaN stays a NaN, quiet, as
/// `half::bf16::from_f32` does).
///
/// # Safety
/// AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn bf16_of(x: __m512) -> __m256i {
    let bits = _mm512_castps_si512(x);
    let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(bits), _mm512_set1_epi32(1));
    let rounded = _mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
    let quiet = _mm512_or_si512(bits, _mm512_set1_epi32(0x0040_0000));
    let pick = _mm512_mask_blend_epi32(nan, rounded, quiet);
    _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(pick))
}

/// Row `p` of `B` as 16 f32: f16 (`BT` 0), bfloat16 (1) or f32 (2), in one or two
/// instructions.
///
/// # Safety
/// [`Wide::floats`]; `16·bytes(BT)` readable bytes at `p`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[inline]
unsafe fn widened<const BT: u8>(p: *const u8) -> __m512 {
    // SAFETY: the caller's contract.
    unsafe {
        match BT {
            0 => _mm512_cvtph_ps(_mm256_loadu_si256(p.cast())),
            1 => _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(
                _mm256_loadu_si256(p.cast()),
            ))),
            _ => _mm512_loadu_ps(p.cast()),
        }
    }
}

/// `acc[i] += A[i][kk]·B[kk]` for `kk` ascending, `BLOCK` rows of `a` (`k` apart), `B`'s rows
/// of type `BT` (0: f16, 1: bfloat16, 2: f32) at `b`; `K` is `k` where it is not 0.
///
/// # Safety
/// [`Wide::floats`]; `a` holds `BLOCK·k` values, `b` `k` components of its type.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[inline]
unsafe fn block_steps<P: Place, const BT: u8, const K: usize>(
    acc: &mut [__m512; BLOCK],
    a: *const f32,
    b: P,
    k: usize,
) {
    let k = if K > 0 { K } else { k };
    // SAFETY: the caller's contract.
    unsafe {
        for kk in 0..k {
            let p = b.at(kk);
            let bv = widened::<BT>(p);
            for (i, x) in acc.iter_mut().enumerate() {
                *x = _mm512_fmadd_ps(_mm512_set1_ps(*a.add(i * k + kk)), bv, *x);
            }
        }
    }
}

/// `D = A·B + C` for one half of a float form with `N = 16`: `a` is `A` staged as f32
/// (`rows × k`), `B` is read at `b` (component `kk` is row `kk`, of `b_ty`), `C` and `D` at
/// their places (component `i` is row `i`, of types `c_ty` and `d_ty`).
///
/// # Safety
/// [`Wide::floats`]; `a` holds `rows·k` values; `b` holds `k` components of `b_ty` (f16,
/// bfloat16 or f32), `c` and `d` `rows` components (`d` writable, not overlapping `b`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn float_rows<P: Place>(
    a: &[f32],
    b: P,
    b_ty: ComponentType,
    c: P,
    c_ty: Edge,
    d: P,
    d_ty: Edge,
    rows: usize,
    k: usize,
) {
    let a = &a[..rows * k];
    let mut row = 0;
    while row < rows {
        let r = BLOCK.min(rows - row);
        let mut acc = [_mm512_setzero_ps(); BLOCK];
        // SAFETY: components `row..row + r` of C and D and `0..k` of B exist (the caller's
        // contract); `a` holds `rows·k` values.
        unsafe {
            for (i, x) in acc.iter_mut().enumerate().take(r) {
                let p = c.at(row + i);
                *x = accumulator_row(p, c_ty);
            }
            let a = a.as_ptr().add(row * k);
            if r == BLOCK {
                // Code of its own for each type of B, and for the listed K (16 and 8).
                const F16: u8 = 0;
                const BF16: u8 = 1;
                const F32: u8 = 2;
                match (b_ty, k) {
                    (ComponentType::Float16, 16) => block_steps::<P, F16, 16>(&mut acc, a, b, k),
                    (ComponentType::Float16, 8) => block_steps::<P, F16, 8>(&mut acc, a, b, k),
                    (ComponentType::Float16, _) => block_steps::<P, F16, 0>(&mut acc, a, b, k),
                    (ComponentType::BFloat16, 16) => block_steps::<P, BF16, 16>(&mut acc, a, b, k),
                    (ComponentType::BFloat16, _) => block_steps::<P, BF16, 0>(&mut acc, a, b, k),
                    (_, 16) => block_steps::<P, F32, 16>(&mut acc, a, b, k),
                    _ => block_steps::<P, F32, 0>(&mut acc, a, b, k),
                }
            } else {
                for kk in 0..k {
                    let bv = row_f32(b_ty, b.at(kk));
                    for (i, x) in acc.iter_mut().enumerate().take(r) {
                        *x = _mm512_fmadd_ps(_mm512_set1_ps(*a.add(i * k + kk)), bv, *x);
                    }
                }
            }
            for (i, x) in acc.iter().enumerate().take(r) {
                let p = d.at(row + i);
                store_accumulator_row(p, *x, d_ty);
            }
        }
        row += r;
    }
}

/// `acc[i] += A0[i][kk]·B[kk]` and `acc[BLOCK + i] += A1[i][kk]·B[kk]` for `kk` ascending:
/// [`block_steps`] for two products that share `B`, each row of `B` widened once for both.
///
/// # Safety
/// [`Wide::floats`]; `a0` and `a1` hold `BLOCK·k` values, `b` `k` components of its type.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[inline]
unsafe fn pair_steps<P: Place, const BT: u8, const K: usize>(
    acc: &mut [__m512; 2 * BLOCK],
    a0: *const f32,
    a1: *const f32,
    b: P,
    k: usize,
) {
    let k = if K > 0 { K } else { k };
    // SAFETY: the caller's contract.
    unsafe {
        for kk in 0..k {
            let p = b.at(kk);
            let bv = widened::<BT>(p);
            for i in 0..BLOCK {
                acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(*a0.add(i * k + kk)), bv, acc[i]);
                acc[BLOCK + i] =
                    _mm512_fmadd_ps(_mm512_set1_ps(*a1.add(i * k + kk)), bv, acc[BLOCK + i]);
            }
        }
    }
}

/// Two halves' products that share `B` (the first half of a batch pair: `D0 = A0·B + C0` and
/// `D1 = A1·B + C1`), each with [`float_rows`]'s arithmetic: `a0`, `a1` are the staged `A`s
/// (`BLOCK × k`), the rest as [`float_rows`] says for `rows = BLOCK`.
///
/// # Safety
/// [`Wide::floats`]; `a0` and `a1` hold `BLOCK·k` values; `b` holds `k` components of `b_ty`
/// (f16, bfloat16 or f32); `c0`, `d0`, `c1`, `d1` `BLOCK` components each (`d0` and `d1`
/// writable, overlapping neither `b` nor each other nor the other product's `C`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,f16c,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn float_rows_pair<P: Place>(
    a0: &[f32],
    a1: &[f32],
    b: P,
    b_ty: ComponentType,
    [c0, c1]: [P; 2],
    c_ty: Edge,
    [d0, d1]: [P; 2],
    d_ty: Edge,
    k: usize,
) {
    let (a0, a1) = (&a0[..BLOCK * k], &a1[..BLOCK * k]);
    let mut acc = [_mm512_setzero_ps(); 2 * BLOCK];
    // SAFETY: components `0..BLOCK` of each C and D and `0..k` of B exist (the caller's
    // contract); `a0` and `a1` hold `BLOCK·k` values.
    unsafe {
        for (i, x) in acc.iter_mut().enumerate() {
            let p = if i < BLOCK {
                c0.at(i)
            } else {
                c1.at(i - BLOCK)
            };
            *x = accumulator_row(p, c_ty);
        }
        let (a0, a1) = (a0.as_ptr(), a1.as_ptr());
        const F16: u8 = 0;
        const BF16: u8 = 1;
        const F32: u8 = 2;
        match (b_ty, k) {
            (ComponentType::Float16, 16) => pair_steps::<P, F16, 16>(&mut acc, a0, a1, b, k),
            (ComponentType::Float16, _) => pair_steps::<P, F16, 0>(&mut acc, a0, a1, b, k),
            (ComponentType::BFloat16, 16) => pair_steps::<P, BF16, 16>(&mut acc, a0, a1, b, k),
            (ComponentType::BFloat16, _) => pair_steps::<P, BF16, 0>(&mut acc, a0, a1, b, k),
            (_, 16) => pair_steps::<P, F32, 16>(&mut acc, a0, a1, b, k),
            _ => pair_steps::<P, F32, 0>(&mut acc, a0, a1, b, k),
        }
        for (i, x) in acc.iter().enumerate() {
            let p = if i < BLOCK {
                d0.at(i)
            } else {
                d1.at(i - BLOCK)
            };
            store_accumulator_row(p, *x, d_ty);
        }
    }
}

/// The arrays [`vnni_rows`] stages into (reused from one product to the next).
#[derive(Debug, Default)]
pub(super) struct VnniArrays {
    /// `A` biased to unsigned bytes, `rows × k`.
    a: Vec<u8>,
    /// `B` biased to signed bytes, as quads: for each `p < k/4`, 16 columns × 4 rows.
    b: Vec<u8>,
    /// Within a batch ([`VnniArrays::reuse`]): the `B` that `b` holds and its column sums.
    staged: Option<(StagedB, [i32; HALF])>,
    /// Whether `b` may be reused for a `B` at the same place: set only while a batch runs,
    /// in which nothing writes the operands' memory.
    reuse: bool,
}

/// What identifies a staged `B`: its place's key, its signedness, whether the column sums
/// were taken (signed `A`) and `k`.
type StagedB = ((usize, usize), bool, bool, usize);

impl VnniArrays {
    /// Starts (`true`) or ends a batch: within one, a `B` staged at a place is reused.
    pub(super) fn batch(&mut self, on: bool) {
        self.reuse = on;
        self.staged = None;
    }
}

/// The 8-bit forms `vnni_rows` takes: `N = 16`, `K` a multiple of 4.
pub(super) fn vnni_shape(n: usize, k: usize) -> bool {
    n == HALF && k.is_multiple_of(4) && k <= super::MAX_INT_K
}

/// `Σₖ A[i][k]·B[k][j]` for one half of an 8-bit form with `N = 16` (see the module docs):
/// into `D` as `C +` the sums (wrapping) when `sums` is `None`, else into `sums` (`rows × 16`,
/// for the caller to add `C` to).
///
/// # Safety
/// [`Wide::vnni`]; [`vnni_shape`]; `a` holds `rows·k/16` components of 16 bytes, `b` `k`
/// components of 16 bytes, `c` and `d` `rows` components of 16 32-bit lanes (`d` writable,
/// not overlapping `a` or `b`); `sums`, when given, `rows·16` values.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn vnni_rows<P: Place>(
    arrays: &mut VnniArrays,
    a: P,
    a_signed: bool,
    b: P,
    b_signed: bool,
    c: P,
    d: P,
    sums: Option<&mut [i32]>,
    rows: usize,
    k: usize,
    vbmi: bool,
) {
    let quads = k / 4;
    super::fit(&mut arrays.a, rows * k);
    super::fit(&mut arrays.b, k * HALF);
    // α = 128 for signed A (a' = a ^ 0x80 = a + 128), β = 128 for unsigned B (b' = b − 128).
    let a_bias = _mm_set1_epi8(if a_signed { i8::MIN } else { 0 });
    // SAFETY: components and arrays as the caller's contract and the sizes above say.
    unsafe {
        let a8 = arrays.a.as_mut_ptr();
        let mut row_sums = [0i32; 2 * BLOCK];
        let mut row_sums_big = Vec::new();
        let row_sums: &mut [i32] = if rows <= row_sums.len() {
            &mut row_sums[..rows]
        } else {
            row_sums_big.resize(rows, 0);
            &mut row_sums_big
        };
        for i in 0..rows * k / HALF {
            let x = _mm_loadu_si128(a.at(i).cast());
            _mm_storeu_si128(a8.add(HALF * i).cast(), _mm_xor_si128(x, a_bias));
            if !b_signed {
                // Σₖ a for β: this component's 16 elements are all of one row (k % 16 == 0)
                // or whole rows (k < 16 divides 16).
                let bytes: [u8; HALF] = std::mem::transmute(x);
                for (j, &v) in bytes.iter().enumerate() {
                    let value = if a_signed {
                        i32::from(v as i8)
                    } else {
                        i32::from(v)
                    };
                    row_sums[(HALF * i + j) / k] += value;
                }
            }
        }
        let bq = arrays.b.as_mut_ptr();
        let key = b.key().map(|place| (place, b_signed, a_signed, k));
        let col_sums = match (arrays.staged, key) {
            (Some((staged, col)), Some(want)) if arrays.reuse && staged == want => {
                _mm512_loadu_si512(col.as_ptr().cast())
            }
            _ => {
                let col_sums = if vbmi {
                    stage_quads_vbmi(b, quads, b_signed, bq, a_signed)
                } else {
                    stage_quads(b, quads, b_signed, bq, a_signed)
                };
                arrays.staged = key.map(|staged| {
                    let mut col = [0i32; HALF];
                    _mm512_storeu_si512(col.as_mut_ptr().cast(), col_sums);
                    (staged, col)
                });
                col_sums
            }
        };
        // −α·Σₖ b' per column (α = 128).
        let col_term = if a_signed {
            _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32::<7>(col_sums))
        } else {
            _mm512_setzero_si512()
        };
        let mut sums = sums;
        let mut row = 0;
        while row < rows {
            let r = BLOCK.min(rows - row);
            let mut acc = [col_term; BLOCK];
            for (i, x) in acc.iter_mut().enumerate().take(r) {
                if !b_signed {
                    // +β·Σₖ a (β = 128).
                    *x = _mm512_add_epi32(*x, _mm512_set1_epi32(row_sums[row + i] << 7));
                }
            }
            let a_rows = a8.add(row * k);
            if r == BLOCK {
                quad_products::<BLOCK>(&mut acc, a_rows, bq, k);
            } else {
                for (i, x) in acc.iter_mut().enumerate().take(r) {
                    quad_products::<1>(std::array::from_mut(x), a_rows.add(i * k), bq, k);
                }
            }
            for (i, x) in acc.iter().enumerate().take(r) {
                match sums.as_deref_mut() {
                    Some(out) => {
                        _mm512_storeu_si512(out.as_mut_ptr().add(HALF * (row + i)).cast(), *x)
                    }
                    None => {
                        let from = _mm512_loadu_si512(c.at(row + i).cast());
                        _mm512_storeu_si512(d.at(row + i).cast(), _mm512_add_epi32(from, *x));
                    }
                }
            }
            row += r;
        }
    }
}

/// `acc[i] += Σₚ dpbusd(A'[i][4p..4p + 4], quad p of B')` for `R` rows of `a` (`k` bytes
/// apart) and the staged quads at `bq`.
///
/// # Safety
/// AVX-512 VNNI; `a` holds `R·k` bytes, `bq` `16·k`; `k % 4 == 0`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
#[inline]
unsafe fn quad_products<const R: usize>(
    acc: &mut [__m512i; R],
    a: *const u8,
    bq: *const u8,
    k: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        for p in 0..k / 4 {
            let bv = _mm512_loadu_si512(bq.add(64 * p).cast());
            for (i, x) in acc.iter_mut().enumerate() {
                let quad = a.add(i * k + 4 * p).cast::<i32>().read_unaligned();
                *x = _mm512_dpbusd_epi32(*x, _mm512_set1_epi32(quad), bv);
            }
        }
    }
}

/// Rows `4p..4p + 4` of `B` (components, 16 bytes each), biased to signed bytes unless
/// `b_signed`, interleaved into quads (`out[p][j][q] = B'[4p + q][j]`) at `out + 64p` for
/// `p < quads`; returns `Σₖ B'[k][j]` per column when `sums` (else 0).
///
/// # Safety
/// AVX-512 VNNI; `b` holds `4·quads` components; `out` has `64·quads` writable bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn stage_quads<P: Place>(
    b: P,
    quads: usize,
    b_signed: bool,
    out: *mut u8,
    sums: bool,
) -> __m512i {
    let bias = _mm_set1_epi8(if b_signed { 0 } else { i8::MIN });
    let ones = _mm512_set1_epi8(1);
    let mut col_sums = _mm512_setzero_si512();
    // SAFETY: the caller's contract.
    unsafe {
        for p in 0..quads {
            let r: [__m128i; 4] = std::array::from_fn(|q| {
                _mm_xor_si128(_mm_loadu_si128(b.at(4 * p + q).cast()), bias)
            });
            let (t0, t1) = (_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1]));
            let (t2, t3) = (_mm_unpacklo_epi8(r[2], r[3]), _mm_unpackhi_epi8(r[2], r[3]));
            // One 64-byte store (four 16-byte ones would stall the loads that read it).
            let quad = _mm512_castsi128_si512(_mm_unpacklo_epi16(t0, t2));
            let quad = _mm512_inserti32x4::<1>(quad, _mm_unpackhi_epi16(t0, t2));
            let quad = _mm512_inserti32x4::<2>(quad, _mm_unpacklo_epi16(t1, t3));
            let quad = _mm512_inserti32x4::<3>(quad, _mm_unpackhi_epi16(t1, t3));
            _mm512_storeu_si512(out.add(64 * p).cast(), quad);
            if sums {
                col_sums = _mm512_dpbusd_epi32(col_sums, ones, quad);
            }
        }
    }
    col_sums
}

/// [`stage_quads`] with one byte permutation per quad (AVX-512 VBMI).
///
/// # Safety
/// As [`stage_quads`], and AVX-512 VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")]
unsafe fn stage_quads_vbmi<P: Place>(
    b: P,
    quads: usize,
    b_signed: bool,
    out: *mut u8,
    sums: bool,
) -> __m512i {
    let bias = _mm512_set1_epi8(if b_signed { 0 } else { i8::MIN });
    let ones = _mm512_set1_epi8(1);
    // Byte 4j + q of the result is byte 16q + j of the four rows.
    let index: [u8; 64] = std::array::from_fn(|x| (16 * (x % 4) + x / 4) as u8);
    // SAFETY: `index` is 64 bytes.
    let index = unsafe { _mm512_loadu_si512(index.as_ptr().cast()) };
    let mut col_sums = _mm512_setzero_si512();
    // SAFETY: the caller's contract.
    unsafe {
        for p in 0..quads {
            let rows = _mm512_castsi128_si512(_mm_loadu_si128(b.at(4 * p).cast()));
            let rows = _mm512_inserti32x4::<1>(rows, _mm_loadu_si128(b.at(4 * p + 1).cast()));
            let rows = _mm512_inserti32x4::<2>(rows, _mm_loadu_si128(b.at(4 * p + 2).cast()));
            let rows = _mm512_inserti32x4::<3>(rows, _mm_loadu_si128(b.at(4 * p + 3).cast()));
            let quad = _mm512_xor_si512(_mm512_permutexvar_epi8(index, rows), bias);
            _mm512_storeu_si512(out.add(64 * p).cast(), quad);
            if sums {
                col_sums = _mm512_dpbusd_epi32(col_sums, ones, quad);
            }
        }
    }
    col_sums
}
