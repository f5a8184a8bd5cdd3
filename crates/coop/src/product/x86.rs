//! The AVX2 + FMA (+ F16C) kernels of [`super::HalfProduct`]: blocks of 4 rows × 16 columns
//! of the result in registers, `k` ascending, one FMA per step (the reference's order).

use std::arch::x86_64::*;

use std::sync::OnceLock;

use super::HALF;
use super::direct::Place;
use crate::component::ComponentType;

/// Rows of `d` a block keeps in registers.
const ROWS: usize = 4;

/// Whether the CPU has AVX2, FMA and F16C (asked once).
pub(super) fn has_f16c_fma() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    })
}

/// How an accumulator (`C`) or result (`D`) keeps its elements: the kernels sum in f32 and
/// convert at the edges (a bfloat16 or f16 result rounded once, to nearest even).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge {
    F32,
    F16,
    BF16,
}

impl Edge {
    /// The edge of component type `ty`, if the kernels read and write it.
    pub(super) fn of(ty: ComponentType) -> Option<Edge> {
        match ty {
            ComponentType::Float32 => Some(Edge::F32),
            ComponentType::Float16 => Some(Edge::F16),
            ComponentType::BFloat16 => Some(Edge::BF16),
            _ => None,
        }
    }

    /// Bytes per element.
    pub(super) fn bytes(self) -> usize {
        if self == Edge::F32 { 4 } else { 2 }
    }
}

/// Where `rows_product` reads `C` and writes `D`: their components and element types.
pub(super) struct Edges<P> {
    pub c: P,
    pub d: P,
    pub c_ty: Edge,
    pub d_ty: Edge,
}

/// 8 f32 rounded to bfloat16 (to nearest even; a NaN stays a NaN, quiet, as
/// `half::bf16::from_f32` does), as 8 u16 in the low half.
///
/// # Safety
/// AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn bf16_of(x: __m256) -> __m128i {
    let bits = _mm256_castps_si256(x);
    let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(bits), _mm256_set1_epi32(1));
    let rounded = _mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
    let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
    let quiet = _mm256_or_si256(bits, _mm256_set1_epi32(0x0040_0000));
    let high = _mm256_srli_epi32::<16>(_mm256_blendv_epi8(rounded, quiet, nan));
    // Each 128-bit lane packs its 4 values twice; qwords 0 and 2 hold all 8 in order.
    let packed = _mm256_packus_epi32(high, high);
    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(packed))
}

/// `count` components of `ty` (f16, bfloat16 or f32) at `place` as f32 into `dst`, in order.
///
/// # Safety
/// AVX2 and F16C; `place` holds `count` components of 16 elements; `dst` at least `16·count`.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn stage_f32<P: Place>(
    ty: ComponentType,
    place: P,
    count: usize,
    dst: &mut [f32],
) {
    let dst = &mut dst[..HALF * count];
    let out = dst.as_mut_ptr();
    // SAFETY: component i < count is 16 elements at `place.at(i)`; 16 floats at out + 16i.
    unsafe {
        for i in 0..count {
            let src = place.at(i);
            let o = out.add(HALF * i);
            match ty {
                ComponentType::Float16 => {
                    let lo = _mm256_cvtph_ps(_mm_loadu_si128(src.cast()));
                    let hi = _mm256_cvtph_ps(_mm_loadu_si128(src.add(16).cast()));
                    _mm256_storeu_ps(o, lo);
                    _mm256_storeu_ps(o.add(8), hi);
                }
                ComponentType::BFloat16 => {
                    for h in 0..2 {
                        let x = _mm256_cvtepu16_epi32(_mm_loadu_si128(src.add(16 * h).cast()));
                        let x = _mm256_slli_epi32::<16>(x);
                        _mm256_storeu_ps(o.add(8 * h), _mm256_castsi256_ps(x));
                    }
                }
                _ => {
                    _mm256_storeu_ps(o, _mm256_loadu_ps(src.cast()));
                    _mm256_storeu_ps(o.add(8), _mm256_loadu_ps(src.add(32).cast()));
                }
            }
        }
    }
}

/// `D = A·B + C` for one half, `C` and `D` at their places (see `HalfProduct::run_places`).
///
/// # Safety
/// AVX2, FMA and F16C; `a` and `b` hold `rows × k` and `k × n` values; `n % 8 == 0`; the
/// places of `edges` hold `rows · n / 16` components each.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn rows_product<P: Place>(
    a: &[f32],
    b: &[f32],
    edges: Edges<P>,
    rows: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: forwarded. The listed shapes (a half of NVIDIA's 16×16×16, 16×8×16 and 16×8×8)
    // get code of their own, with constant loop bounds and offsets.
    unsafe {
        match (rows, n, k) {
            (8, 16, 16) => rows_product_in::<P, 8, 16, 16>(a, b, edges, rows, n, k),
            (8, 8, 16) => rows_product_in::<P, 8, 8, 16>(a, b, edges, rows, n, k),
            (8, 8, 8) => rows_product_in::<P, 8, 8, 8>(a, b, edges, rows, n, k),
            _ => rows_product_in::<P, 0, 0, 0>(a, b, edges, rows, n, k),
        }
    }
}

/// [`rows_product`] with `ROWS_OF`, `N` and `K` for `rows`, `n` and `k` where they are not 0.
///
/// # Safety
/// As [`rows_product`], with the constants equal to the values they replace.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
unsafe fn rows_product_in<P: Place, const ROWS_OF: usize, const N: usize, const K: usize>(
    a: &[f32],
    b: &[f32],
    edges: Edges<P>,
    rows: usize,
    n: usize,
    k: usize,
) {
    let pick = |fixed: usize, value: usize| if fixed > 0 { fixed } else { value };
    let (rows, n, k) = (pick(ROWS_OF, rows), pick(N, n), pick(K, k));
    let (a, b) = (a.as_ptr(), b.as_ptr());
    // Element (r, col) of C or D: component (r·n + col) / 16, lane (r·n + col) % 16 (a run
    // of 8 columns never crosses a component: n and col are multiples of 8).
    let at = |place: P, ty: Edge, r: usize, col: usize| {
        let e = r * n + col;
        // SAFETY: e / 16 is below the count (r < rows, col < n).
        unsafe { place.at(e / HALF).add((e % HALF) * ty.bytes()) }
    };
    let mut col = 0;
    while col < n {
        let wide = n - col >= 16;
        let w = if wide { 2 } else { 1 };
        let mut row = 0;
        while row < rows {
            let r = ROWS.min(rows - row);
            let mut acc = [[_mm256_setzero_ps(); 2]; ROWS];
            // SAFETY: the places hold the components (the caller's contract).
            unsafe {
                for (i, acc) in acc.iter_mut().enumerate().take(r) {
                    for (v, x) in acc.iter_mut().enumerate().take(w) {
                        let p = at(edges.c, edges.c_ty, row + i, col + 8 * v);
                        *x = match edges.c_ty {
                            Edge::F16 => _mm256_cvtph_ps(_mm_loadu_si128(p.cast())),
                            Edge::BF16 => _mm256_castsi256_ps(_mm256_slli_epi32::<16>(
                                _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                            )),
                            Edge::F32 => _mm256_loadu_ps(p.cast()),
                        };
                    }
                }
                if wide {
                    accumulate::<2>(a, b, &mut acc, row, r, col, n, k);
                } else {
                    accumulate::<1>(a, b, &mut acc, row, r, col, n, k);
                }
                for (i, acc) in acc.iter().enumerate().take(r) {
                    for (v, x) in acc.iter().enumerate().take(w) {
                        let p = at(edges.d, edges.d_ty, row + i, col + 8 * v);
                        match edges.d_ty {
                            Edge::F16 => {
                                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(*x);
                                _mm_storeu_si128(p.cast(), h);
                            }
                            Edge::BF16 => _mm_storeu_si128(p.cast(), bf16_of(*x)),
                            Edge::F32 => _mm256_storeu_ps(p.cast(), *x),
                        }
                    }
                }
            }
            row += r;
        }
        col += 8 * w;
    }
}

/// `acc[i][v] += Σ_k a[row + i][k] · b[k][col + 8v ..]` for `i < r`, `k` ascending.
///
/// # Safety
/// As [`rows_product`], with the block inside `a` and `b`.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn accumulate<const W: usize>(
    a: *const f32,
    b: *const f32,
    acc: &mut [[__m256; 2]; ROWS],
    row: usize,
    r: usize,
    col: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: inside `a` and `b` (the caller's contract).
    unsafe {
        let mut regs = [[_mm256_setzero_ps(); W]; ROWS];
        for (i, regs) in regs.iter_mut().enumerate() {
            regs.copy_from_slice(&acc[i][..W]);
        }
        if r == ROWS {
            for kk in 0..k {
                let mut bv = [_mm256_setzero_ps(); W];
                for (v, x) in bv.iter_mut().enumerate() {
                    *x = _mm256_loadu_ps(b.add(kk * n + col + 8 * v));
                }
                for (i, regs) in regs.iter_mut().enumerate() {
                    let x = _mm256_broadcast_ss(&*a.add((row + i) * k + kk));
                    for (v, y) in regs.iter_mut().enumerate() {
                        *y = _mm256_fmadd_ps(x, bv[v], *y);
                    }
                }
            }
        } else {
            for kk in 0..k {
                let mut bv = [_mm256_setzero_ps(); W];
                for (v, x) in bv.iter_mut().enumerate() {
                    *x = _mm256_loadu_ps(b.add(kk * n + col + 8 * v));
                }
                for (i, regs) in regs.iter_mut().enumerate().take(r) {
                    let x = _mm256_broadcast_ss(&*a.add((row + i) * k + kk));
                    for (v, y) in regs.iter_mut().enumerate() {
                        *y = _mm256_fmadd_ps(x, bv[v], *y);
                    }
                }
            }
        }
        for (i, regs) in regs.iter().enumerate() {
            acc[i][..W].copy_from_slice(regs);
        }
    }
}

/// `float_product` for `n` a multiple of 8: blocks of 4 rows × 16 (or 8) columns.
///
/// # Safety
/// AVX2 and FMA; `a`, `b`, `d` hold `rows × k`, `k × n`, `rows × n` values; `n % 8 == 0`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn float_product(
    a: &[f32],
    b: &[f32],
    d: &mut [f32],
    rows: usize,
    n: usize,
    k: usize,
) {
    let (a, b, d) = (a.as_ptr(), b.as_ptr(), d.as_mut_ptr());
    let mut col = 0;
    while col < n {
        let wide = n - col >= 16;
        let mut row = 0;
        while row < rows {
            let r = ROWS.min(rows - row);
            // SAFETY: rows `row..row + r` and columns `col..col + 8·(1 + wide)` are inside
            // the arrays (the caller's contract).
            unsafe {
                if wide {
                    float_block::<2>(a, b, d, row, r, col, n, k);
                } else {
                    float_block::<1>(a, b, d, row, r, col, n, k);
                }
            }
            row += r;
        }
        col += if wide { 16 } else { 8 };
    }
}

/// Rows `row..row + r` (r ≤ 4) × columns `col..col + 8·W` of `d`.
///
/// # Safety
/// As [`float_product`], with the block inside the arrays.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn float_block<const W: usize>(
    a: *const f32,
    b: *const f32,
    d: *mut f32,
    row: usize,
    r: usize,
    col: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: every offset below is inside the block (the caller's contract).
    unsafe {
        let mut acc = [[_mm256_setzero_ps(); W]; ROWS];
        for (i, acc) in acc.iter_mut().enumerate().take(r) {
            for (v, x) in acc.iter_mut().enumerate() {
                *x = _mm256_loadu_ps(d.add((row + i) * n + col + 8 * v));
            }
        }
        for kk in 0..k {
            let mut bv = [_mm256_setzero_ps(); W];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm256_loadu_ps(b.add(kk * n + col + 8 * v));
            }
            for (i, acc) in acc.iter_mut().enumerate().take(r) {
                let x = _mm256_broadcast_ss(&*a.add((row + i) * k + kk));
                for (v, y) in acc.iter_mut().enumerate() {
                    *y = _mm256_fmadd_ps(x, bv[v], *y);
                }
            }
        }
        for (i, acc) in acc.iter().enumerate().take(r) {
            for (v, x) in acc.iter().enumerate() {
                _mm256_storeu_ps(d.add((row + i) * n + col + 8 * v), *x);
            }
        }
    }
}

/// `pair_product` for `n` a multiple of 8.
///
/// # Safety
/// AVX2; `a`, `b`, `sum` hold `rows × k`, `k × n`, `rows × n` values; `n % 8 == 0`, `k`
/// even.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pair_product(
    a: &[i16],
    b: &[i16],
    sum: &mut [i32],
    rows: usize,
    n: usize,
    k: usize,
) {
    let (a, b, s) = (a.as_ptr(), b.as_ptr(), sum.as_mut_ptr());
    let mut col = 0;
    while col < n {
        let wide = n - col >= 16;
        let mut row = 0;
        while row < rows {
            let r = ROWS.min(rows - row);
            // SAFETY: as in `float_product`.
            unsafe {
                if wide {
                    pair_block::<2>(a, b, s, row, r, col, n, k);
                } else {
                    pair_block::<1>(a, b, s, row, r, col, n, k);
                }
            }
            row += r;
        }
        col += if wide { 16 } else { 8 };
    }
}

/// # Safety
/// As [`pair_product`], with the block inside the arrays.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn pair_block<const W: usize>(
    a: *const i16,
    b: *const i16,
    s: *mut i32,
    row: usize,
    r: usize,
    col: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: every offset below is inside the block (the caller's contract).
    unsafe {
        let mut acc = [[_mm256_setzero_si256(); W]; ROWS];
        for p in 0..k / 2 {
            let mut bv = [_mm256_setzero_si256(); W];
            for (v, x) in bv.iter_mut().enumerate() {
                // Columns col + 8v .. + 8, both rows of the pair: 16 i16.
                *x = _mm256_loadu_si256(b.add(p * 2 * n + 2 * (col + 8 * v)).cast());
            }
            for (i, acc) in acc.iter_mut().enumerate().take(r) {
                let pair = a.add((row + i) * k + 2 * p).cast::<i32>().read_unaligned();
                let x = _mm256_set1_epi32(pair);
                for (v, y) in acc.iter_mut().enumerate() {
                    *y = _mm256_add_epi32(*y, _mm256_madd_epi16(x, bv[v]));
                }
            }
        }
        for (i, acc) in acc.iter().enumerate().take(r) {
            for (v, x) in acc.iter().enumerate() {
                _mm256_storeu_si256(s.add((row + i) * n + col + 8 * v).cast(), *x);
            }
        }
    }
}

/// `D = A·B + C` (wrapping 32-bit sums) of the 8-bit forms, `A` as i16 and `B` as i16 pairs
/// (`pair_product`'s arrays), `C` and `D` 32-bit components at their places: `pair_block`
/// with the accumulators started from `C` and stored to `D` (addition modulo 2³² is the
/// same in any order).
///
/// # Safety
/// AVX2; as [`pair_product`] for `a` and `b`; the places hold `rows · n / 16` components of
/// 16 32-bit lanes each (`D`'s writable; `C`'s may be `D`'s).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pair_rows_product<P: Place>(
    a: &[i16],
    b: &[i16],
    c: P,
    d: P,
    rows: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: forwarded; the listed shapes (halves of NVIDIA's 16×16×32 and 16×8×32) get code
    // of their own.
    unsafe {
        match (rows, n, k) {
            (8, 16, 32) => pair_rows_in::<P, 8, 16, 32>(a, b, c, d, rows, n, k),
            (8, 8, 32) => pair_rows_in::<P, 8, 8, 32>(a, b, c, d, rows, n, k),
            _ => pair_rows_in::<P, 0, 0, 0>(a, b, c, d, rows, n, k),
        }
    }
}

/// [`pair_rows_product`] with `ROWS_OF`, `N` and `K` for `rows`, `n` and `k` where not 0.
///
/// # Safety
/// As [`pair_rows_product`], with the constants equal to the values they replace.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn pair_rows_in<P: Place, const ROWS_OF: usize, const N: usize, const K: usize>(
    a: &[i16],
    b: &[i16],
    c: P,
    d: P,
    rows: usize,
    n: usize,
    k: usize,
) {
    let pick = |fixed: usize, value: usize| if fixed > 0 { fixed } else { value };
    let (rows, n, k) = (pick(ROWS_OF, rows), pick(N, n), pick(K, k));
    let (a, b) = (a.as_ptr(), b.as_ptr());
    // Element (r, col): component (r·n + col) / 16, lane (r·n + col) % 16; a run of 8 columns
    // stays in one component (n and col are multiples of 8).
    let at = |place: P, r: usize, col: usize| {
        let e = r * n + col;
        // SAFETY: e / 16 is below the count (r < rows, col < n).
        unsafe { place.at(e / HALF).add((e % HALF) * 4) }
    };
    let mut col = 0;
    while col < n {
        let wide = n - col >= 16;
        let w = if wide { 2 } else { 1 };
        let mut row = 0;
        while row < rows {
            let r = ROWS.min(rows - row);
            let mut acc = [[_mm256_setzero_si256(); 2]; ROWS];
            // SAFETY: the places hold the components, the arrays the shape (the caller's
            // contract).
            unsafe {
                for (i, acc) in acc.iter_mut().enumerate().take(r) {
                    for (v, x) in acc.iter_mut().enumerate().take(w) {
                        *x = _mm256_loadu_si256(at(c, row + i, col + 8 * v).cast());
                    }
                }
                for p in 0..k / 2 {
                    let mut bv = [_mm256_setzero_si256(); 2];
                    for (v, x) in bv.iter_mut().enumerate().take(w) {
                        *x = _mm256_loadu_si256(b.add(p * 2 * n + 2 * (col + 8 * v)).cast());
                    }
                    for (i, acc) in acc.iter_mut().enumerate().take(r) {
                        let pair = a.add((row + i) * k + 2 * p).cast::<i32>().read_unaligned();
                        let x = _mm256_set1_epi32(pair);
                        for (v, y) in acc.iter_mut().enumerate().take(w) {
                            *y = _mm256_add_epi32(*y, _mm256_madd_epi16(x, bv[v]));
                        }
                    }
                }
                for (i, acc) in acc.iter().enumerate().take(r) {
                    for (v, x) in acc.iter().enumerate().take(w) {
                        _mm256_storeu_si256(at(d, row + i, col + 8 * v).cast(), *x);
                    }
                }
            }
            row += r;
        }
        col += 8 * w;
    }
}

/// Whether the CPU has AVX2 (asked once).
pub(super) fn has_avx2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
}

/// 16 8-bit elements at `src` widened (by `signed`) into 16 i16 at `dst`.
///
/// # Safety
/// AVX2; 16 readable bytes at `src`, 16 writable i16 at `dst`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn widen_bytes(src: *const u8, dst: *mut i16, signed: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        let x = _mm_loadu_si128(src.cast());
        let w = if signed {
            _mm256_cvtepi8_epi16(x)
        } else {
            _mm256_cvtepu8_epi16(x)
        };
        _mm256_storeu_si256(dst.cast(), w);
    }
}

/// Two rows of 16 8-bit elements (`even`, `odd`) widened (by `signed`) and interleaved into
/// 16 pairs `(even[j], odd[j])` at `dst`: what `vpmaddwd` multiplies by a pair of `A`.
///
/// # Safety
/// AVX2; 16 readable bytes at `even` and at `odd`, 32 writable i16 at `dst`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn interleave_pairs(
    even: *const u8,
    odd: *const u8,
    dst: *mut i16,
    signed: bool,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let widen = |p: *const u8| {
            let x = _mm_loadu_si128(p.cast());
            if signed {
                _mm256_cvtepi8_epi16(x)
            } else {
                _mm256_cvtepu8_epi16(x)
            }
        };
        let (e, o) = (widen(even), widen(odd));
        // Per 128-bit half: columns 0-3 | 8-11 and 4-7 | 12-15.
        let (lo, hi) = (_mm256_unpacklo_epi16(e, o), _mm256_unpackhi_epi16(e, o));
        _mm256_storeu_si256(dst.cast(), _mm256_permute2x128_si256::<0x20>(lo, hi));
        _mm256_storeu_si256(
            dst.add(16).cast(),
            _mm256_permute2x128_si256::<0x31>(lo, hi),
        );
    }
}
