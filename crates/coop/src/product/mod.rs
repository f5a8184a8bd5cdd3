//! One half-subgroup's cooperative-matrix multiply-add for compiled code ([`HalfProduct`]): the
//! operands' components in, 16 lanes at a time as the register file holds them, the result's
//! components out, with [`MulAdd::reference`]'s arithmetic bit for bit.
//!
//! A half's components are its part of each matrix, row-major and in order (see `matrix`), so
//! component `i`, lane `j` of an operand is element `16i + j` of the half's `A` (`rows × K`),
//! `B` (`K × N`) or `C` (`rows × N`). The operands are converted once into the product's own
//! arrays, in the layout its kernels read:
//! - floats: `A`, `B` and the accumulator `D` (initialised with `C`) as f32, row-major. The
//!   kernel keeps blocks of 4 rows × 16 columns of `D` in registers and, for `k` ascending,
//!   broadcasts `A[i][k]` and fuses it with row `k` of `B` (AVX2 + FMA; a portable loop
//!   otherwise): the reference's order, one FMA per step, so the same bits.
//! - 8-bit integers (every listed integer form): `A` as i16, `B` as i16 pairs
//!   `(B[2p][j], B[2p+1][j])` for `vpmaddwd`, whose exact i32 sums (|a·b + a'·b'| < 2¹⁷, at most
//!   [`MAX_INT_K`]/2 of them) are the exact sums of products; `C` is added at the end, wrapping
//!   or saturating. Other integer forms go through i64 arithmetic.
//!
//! On a CPU with AVX-512, the direct path ([`HalfProduct::run_strided`]) runs results 16 columns
//! wide with `avx512`'s kernels instead: one register per row of the accumulator, `B`'s rows
//! widened as they are read (floats), `vpdpbusd` on biased bytes (8-bit integers, with VNNI).
//!
//! Invariants: the arrays are sized by [`HalfProduct::begin`] for the form; `set` and `get`
//! touch components inside them only; the unsafe kernels are called with slices at least as
//! long as the shape they are given, and only on a CPU with the features they are compiled for.

use crate::component::ComponentType;
use crate::matrix::{HALF, MulAdd, float, int, operands};

/// The largest `K` of the exact i32 path (`2¹⁷ · K/2 < 2³¹`).
pub const MAX_INT_K: usize = 16_384;

/// Where one half's operands and result are in a register file: the byte offset of each
/// component's 16 lanes, in component order.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    pub a: &'a [usize],
    pub b: &'a [usize],
    pub c: &'a [usize],
    pub d: &'a [usize],
}

/// The arrays of one half's product (reused from one multiply-add to the next).
#[derive(Debug, Default)]
pub struct HalfProduct {
    form: Option<MulAdd>,
    /// Whether this form takes the 8-bit integer path.
    bytes: bool,
    a: Vec<f32>,
    /// The second `A` of a pair that shares `B` (`run_batch`).
    a_pair: Vec<f32>,
    b: Vec<f32>,
    d: Vec<f32>,
    a16: Vec<i16>,
    b16: Vec<i16>,
    sum: Vec<i32>,
    /// Integer `A`, `B`, `C` (and the result) as i64, by their signedness.
    ai: Vec<i64>,
    bi: Vec<i64>,
    ci: Vec<i64>,
    /// The AVX-512 VNNI kernel's staged `A` and `B`.
    #[cfg(target_arch = "x86_64")]
    vnni: avx512::VnniArrays,
    /// The AVX-512 kernels this product may use: the CPU's (`None`), or fewer (tests).
    #[cfg(target_arch = "x86_64")]
    wide: Option<avx512::Wide>,
}

fn fit<T: Copy + Default>(v: &mut Vec<T>, len: usize) {
    if v.len() != len {
        v.clear();
        v.resize(len, T::default());
    }
}

impl HalfProduct {
    /// Starts a product of `form` (already [`MulAdd::check`]ed).
    pub fn begin(&mut self, form: &MulAdd) {
        let (rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        self.form = Some(*form);
        if form.is_float() {
            fit(&mut self.a, rows * k);
            fit(&mut self.b, k * n);
            fit(&mut self.d, rows * n);
            return;
        }
        self.bytes = form.a.bytes() == 1
            && form.b.bytes() == 1
            && k.is_multiple_of(2)
            && k <= MAX_INT_K
            && form.c.bytes() <= 4
            && form.result.bytes() <= 4;
        if self.bytes {
            fit(&mut self.a16, rows * k);
            // Pairs of rows of B: (k / 2) × n × 2.
            fit(&mut self.b16, k * n);
            fit(&mut self.sum, rows * n);
        } else {
            fit(&mut self.ai, rows * k);
            fit(&mut self.bi, k * n);
        }
        fit(&mut self.ci, rows * n);
    }

    /// Component `i` of `A` (`which` 0), `B` (1) or `C` (2) for the half's 16 lanes: `row`
    /// holds them little-endian at the operand's width.
    pub fn set(&mut self, which: usize, i: usize, row: &[u8]) {
        let Some(form) = self.form else { return };
        let (ty, signed) = match which {
            0 => (form.a, form.signed(operands::A_SIGNED)),
            1 => (form.b, form.signed(operands::B_SIGNED)),
            _ => (form.c, form.signed(operands::C_SIGNED)),
        };
        let es = ty.bytes();
        let at = i * HALF;
        let Some(row) = row.get(..HALF * es) else {
            return;
        };
        if form.is_float() {
            let dst = match which {
                0 => &mut self.a,
                1 => &mut self.b,
                _ => &mut self.d,
            };
            if let Some(dst) = dst.get_mut(at..at + HALF) {
                to_f32(ty, row, dst);
            }
            return;
        }
        let n = form.n as usize;
        let value = |j: usize| int(ty, ComponentType::UInt64.load(&row[j * es..]), signed);
        match (which, self.bytes) {
            (0, true) => {
                if let Some(dst) = self.a16.get_mut(at..at + HALF) {
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = value(j) as i16;
                    }
                }
            }
            (1, true) => {
                // Element e = (row kk, column c) goes to pair kk / 2, column c, slot kk % 2.
                for j in 0..HALF {
                    let e = at + j;
                    let (kk, c) = (e / n, e % n);
                    if let Some(d) = self.b16.get_mut((kk / 2) * 2 * n + 2 * c + kk % 2) {
                        *d = value(j) as i16;
                    }
                }
            }
            (0, false) | (1, false) => {
                let dst = if which == 0 {
                    &mut self.ai
                } else {
                    &mut self.bi
                };
                if let Some(dst) = dst.get_mut(at..at + HALF) {
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = value(j);
                    }
                }
            }
            _ => {
                if let Some(dst) = self.ci.get_mut(at..at + HALF) {
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = value(j);
                    }
                }
            }
        }
    }

    /// Multiplies.
    pub fn run(&mut self) {
        let Some(form) = self.form else { return };
        let (rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        if form.is_float() {
            float_product(&self.a, &self.b, &mut self.d, rows, n, k);
            return;
        }
        let saturating = form.signed(operands::SATURATING);
        let width = 8 * form.result.bytes() as u32;
        let (lo, hi) = if form.signed(operands::RESULT_SIGNED) {
            (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
        } else {
            (0, (1i64 << width) - 1)
        };
        let finish = |sum: i64, c: i64| {
            if saturating {
                sum.saturating_add(c).clamp(lo, hi)
            } else {
                sum.wrapping_add(c)
            }
        };
        if self.bytes {
            pair_product(&self.a16, &self.b16, &mut self.sum, rows, n, k);
            for (c, &s) in self.ci.iter_mut().zip(&self.sum) {
                *c = finish(i64::from(s), *c);
            }
        } else {
            for i in 0..rows {
                for j in 0..n {
                    let mut sum = 0i64;
                    for kk in 0..k {
                        sum =
                            sum.wrapping_add(self.ai[i * k + kk].wrapping_mul(self.bi[kk * n + j]));
                    }
                    // The i64 sums of up-to-32-bit products of at most 256 terms are exact.
                    self.ci[i * n + j] = finish(sum, self.ci[i * n + j]);
                }
            }
        }
    }

    /// Component `i` of the result for the half's 16 lanes into `row`.
    pub fn get(&self, i: usize, row: &mut [u8]) {
        let Some(form) = self.form else { return };
        let es = form.result.bytes();
        let at = i * HALF;
        let Some(row) = row.get_mut(..HALF * es) else {
            return;
        };
        if form.is_float() {
            if let Some(d) = self.d.get(at..at + HALF) {
                from_f32(form.result, d, row);
            }
            return;
        }
        if let Some(d) = self.ci.get(at..at + HALF) {
            for (out, &v) in row.chunks_exact_mut(es).zip(d) {
                out.copy_from_slice(&(v as u64).to_le_bytes()[..es]);
            }
        }
    }
}

/// Float components of type `ty` (`row`, little-endian) as f32.
fn to_f32(ty: ComponentType, row: &[u8], dst: &mut [f32]) {
    match ty {
        ComponentType::Float32 => {
            for (d, s) in dst.iter_mut().zip(row.chunks_exact(4)) {
                *d = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            }
        }
        ComponentType::Float16 if row.len() >= 2 * HALF && dst.len() >= HALF => {
            crate::float::halves_to_f32(row, dst);
        }
        ComponentType::BFloat16 => {
            for (d, s) in dst.iter_mut().zip(row.chunks_exact(2)) {
                *d = f32::from_bits(u32::from(u16::from_le_bytes([s[0], s[1]])) << 16);
            }
        }
        _ => {
            let es = ty.bytes();
            for (d, s) in dst.iter_mut().zip(row.chunks_exact(es)) {
                *d = float(ty, ComponentType::UInt64.load(s));
            }
        }
    }
}

/// f32 values rounded to `ty` (once, to nearest even) into `row`.
fn from_f32(ty: ComponentType, values: &[f32], row: &mut [u8]) {
    match ty {
        ComponentType::Float32 => {
            for (out, v) in row.chunks_exact_mut(4).zip(values) {
                out.copy_from_slice(&v.to_le_bytes());
            }
        }
        ComponentType::Float16 if values.len() >= HALF && row.len() >= 2 * HALF => {
            crate::float::f32_to_halves(values, row);
        }
        _ => {
            let es = ty.bytes();
            for (out, &v) in row.chunks_exact_mut(es).zip(values) {
                out.copy_from_slice(&ty.float_bits(f64::from(v)).to_le_bytes()[..es]);
            }
        }
    }
}

/// `d[i][j] += Σ_k a[i][k]·b[k][j]`, `k` ascending, one FMA per step.
fn float_product(a: &[f32], b: &[f32], d: &mut [f32], rows: usize, n: usize, k: usize) {
    assert!(a.len() >= rows * k && b.len() >= k * n && d.len() >= rows * n);
    #[cfg(target_arch = "x86_64")]
    if n.is_multiple_of(8)
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU has AVX2 and FMA; the slices hold the shape (asserted above) and `n`
        // is a multiple of 8.
        return unsafe { x86::float_product(a, b, d, rows, n, k) };
    }
    for i in 0..rows {
        let out = &mut d[i * n..(i + 1) * n];
        for kk in 0..k {
            let x = a[i * k + kk];
            for (o, &y) in out.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *o = x.mul_add(y, *o);
            }
        }
    }
}

/// `sum[i][j] = Σ_k a[i][k]·b[k][j]` over i16 `a` and pairs `b` (see the module docs), `k` even.
fn pair_product(a: &[i16], b: &[i16], sum: &mut [i32], rows: usize, n: usize, k: usize) {
    assert!(a.len() >= rows * k && b.len() >= k * n && sum.len() >= rows * n);
    #[cfg(target_arch = "x86_64")]
    if n.is_multiple_of(8) && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2; the slices hold the shape (asserted above) and `n` is a
        // multiple of 8.
        return unsafe { x86::pair_product(a, b, sum, rows, n, k) };
    }
    for i in 0..rows {
        for j in 0..n {
            let mut s = 0i32;
            for p in 0..k / 2 {
                let (x0, x1) = (i32::from(a[i * k + 2 * p]), i32::from(a[i * k + 2 * p + 1]));
                let at = p * 2 * n + 2 * j;
                s = s
                    .wrapping_add(x0 * i32::from(b[at]))
                    .wrapping_add(x1 * i32::from(b[at + 1]));
            }
            sum[i * n + j] = s;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512;
mod direct;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use direct::{Operands, Strided};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed form and a few others (mixed signedness, saturation, an i64 path form), on
    /// random operands, against [`MulAdd::reference`].
    #[test]
    fn half_product_matches_the_reference() {
        use ComponentType::*;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let form = |m, n, k, a, c, result, operands| MulAdd {
            m,
            n,
            k,
            a,
            b: a,
            c,
            result,
            operands,
        };
        for form in [
            form(16, 16, 16, Float16, Float32, Float32, 0),
            form(16, 16, 16, Float16, Float16, Float16, 0),
            form(16, 8, 16, Float16, Float32, Float32, 0),
            form(16, 8, 8, Float16, Float16, Float16, 0),
            form(16, 16, 16, BFloat16, Float32, Float32, 0),
            form(16, 16, 16, BFloat16, BFloat16, BFloat16, 0),
            form(16, 16, 8, Float32, Float32, Float32, 0),
            form(16, 16, 16, Float32, Float32, Float32, 0),
            form(16, 16, 32, SInt8, SInt32, SInt32, 0xf),
            form(16, 8, 32, SInt8, SInt32, SInt32, 0xf),
            form(16, 16, 32, UInt8, UInt32, UInt32, 0),
            form(16, 8, 32, UInt8, UInt32, UInt32, 0x10),
            form(16, 16, 32, SInt8, SInt32, SInt32, 0x1f),
            // A signed, B unsigned.
            form(16, 16, 32, SInt8, SInt32, SInt32, 0xd),
            // 16-bit integers take the i64 path.
            form(16, 16, 16, SInt16, SInt32, SInt32, 0xf),
            // A shape the kernels do not block (n = 4).
            form(16, 4, 8, Float16, Float32, Float32, 0),
        ] {
            form.check().unwrap();
            let (rows, n, k) = (8, form.n as usize, form.k as usize);
            let mut raw = |ty: ComponentType, len: usize, big: bool| -> Vec<u64> {
                (0..len)
                    .map(|_| {
                        let v = next();
                        if ty.is_float() {
                            ty.float_bits(((v % 17) as f64 - 8.0) * 0.25)
                        } else if big {
                            // C near the limits, for saturation.
                            let edge = if v % 2 == 0 {
                                u64::MAX - 9
                            } else {
                                0x7fff_fff0
                            };
                            edge.wrapping_add(v % 20)
                        } else {
                            v
                        }
                    })
                    .map(|v| ty.int_bits_raw(v))
                    .collect()
            };
            let (a, b, c) = (
                raw(form.a, rows * k, false),
                raw(form.b, k * n, false),
                raw(form.c, rows * n, true),
            );
            let want = form.reference(&a, &b, &c);
            let mut p = HalfProduct::default();
            // Twice, so that reused arrays are checked too.
            for _ in 0..2 {
                p.begin(&form);
                let row = |ty: ComponentType, v: &[u64]| -> Vec<u8> {
                    v.iter()
                        .flat_map(|x| x.to_le_bytes()[..ty.bytes()].to_vec())
                        .collect()
                };
                for (which, (ty, v)) in [(form.a, &a), (form.b, &b), (form.c, &c)]
                    .into_iter()
                    .enumerate()
                {
                    for i in 0..v.len() / HALF {
                        p.set(which, i, &row(ty, &v[i * HALF..(i + 1) * HALF]));
                    }
                }
                p.run();
                let es = form.result.bytes();
                for i in 0..want.len() / HALF {
                    let mut out = vec![0u8; HALF * es];
                    p.get(i, &mut out);
                    for lane in 0..HALF {
                        assert_eq!(
                            form.result.load(&out[lane * es..]),
                            want[i * HALF + lane],
                            "{form:?} component {i} lane {lane}"
                        );
                    }
                }
            }
        }
    }

    /// `run_batch` against the reference: a GEMM step's four products (two `A`s times two
    /// `B`s, accumulators updated in place), the float forms pairing products that share `B`
    /// and the 8-bit forms reusing a staged `B`, with the AVX-512 kernels and without.
    /// The kernels' bfloat16 rounding of a result (both widths) is `half`'s, which the
    /// reference uses: to nearest even, overflow to infinity, NaNs quiet with their sign.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn bfloat16_results_round_as_the_reference() {
        use std::arch::x86_64::*;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut values: Vec<u32> = vec![
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0001,
            0x7f80_0001,
            0xff81_2345,
            0x7f7f_ffff,
            0x0000_8000,
            0x0001_8000,
            0x0000_7fff,
            0x3f80_8000,
            0x3f81_8000,
            0x3f80_8001,
            0xbf80_7fff,
            0x007f_ffff,
        ];
        while values.len() < 4096 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x >> 32) as u32);
        }
        for chunk in values.chunks_exact(16) {
            let want: Vec<u16> = chunk
                .iter()
                .map(|&b| half::bf16::from_f32(f32::from_bits(b)).to_bits())
                .collect();
            let mut got = [0u16; 16];
            if super::x86::has_avx2() {
                for (i, half) in chunk.chunks_exact(8).enumerate() {
                    // SAFETY: the CPU has AVX2; 8 floats read, 8 u16 written.
                    unsafe {
                        let v = _mm256_loadu_ps(half.as_ptr().cast());
                        let h = super::x86::bf16_of(v);
                        _mm_storeu_si128(got[8 * i..].as_mut_ptr().cast(), h);
                    }
                }
                assert_eq!(&got[..], &want[..], "AVX2, {chunk:08x?}");
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F; 16 floats read, 16 u16 written.
                unsafe {
                    let v = _mm512_loadu_ps(chunk.as_ptr().cast());
                    _mm256_storeu_si256(got.as_mut_ptr().cast(), super::avx512::bf16_of(v));
                }
                assert_eq!(&got[..], &want[..], "AVX-512, {chunk:08x?}");
            }
        }
    }

    #[test]
    fn batches_match_the_reference() {
        use ComponentType::*;
        use operands::*;
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let signed = A_SIGNED | B_SIGNED | C_SIGNED | RESULT_SIGNED;
        for (k, ab, c, operands) in [
            (16, Float16, Float32, 0),
            (16, Float16, Float16, 0),
            (16, BFloat16, Float32, 0),
            (32, SInt8, SInt32, signed),
            (32, UInt8, UInt32, 0),
            (32, SInt8, SInt32, signed | SATURATING),
        ] {
            let form = MulAdd {
                m: 16,
                n: 16,
                k,
                a: ab,
                b: ab,
                c,
                result: c,
                operands,
            };
            let (rows, k) = (8usize, k as usize);
            let mut raw = |ty: ComponentType, len: usize| -> Vec<u64> {
                (0..len)
                    .map(|_| match ty {
                        Float16 | BFloat16 | Float32 => {
                            ty.float_bits(((next() % 33) as f64 - 16.0) * 0.125)
                        }
                        SInt32 | UInt32 => next() & 0xffff_ffff,
                        _ => next() & 0xff,
                    })
                    .collect()
            };
            // Two A halves, two Bs, four accumulators, each in a buffer of its own components.
            let a_vals = [raw(ab, rows * k), raw(ab, rows * k)];
            let b_vals = [raw(ab, k * 16), raw(ab, k * 16)];
            let c_vals: Vec<Vec<u64>> = (0..4).map(|_| raw(c, rows * 16)).collect();
            let bytes = |ty: ComponentType, v: &[u64]| -> Vec<u8> {
                v.iter()
                    .flat_map(|x| x.to_le_bytes()[..ty.bytes()].to_vec())
                    .collect()
            };
            for avx512 in 0..3 {
                let mut a_mem: Vec<Vec<u8>> = a_vals.iter().map(|v| bytes(ab, v)).collect();
                let mut b_mem: Vec<Vec<u8>> = b_vals.iter().map(|v| bytes(ab, v)).collect();
                let mut c_mem: Vec<Vec<u8>> = c_vals.iter().map(|v| bytes(c, v)).collect();
                let place = |m: &mut Vec<u8>, es: usize| Strided {
                    base: m.as_mut_ptr(),
                    stride: 16 * es,
                };
                let mut list = Vec::new();
                for (t, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                    let cp = place(&mut c_mem[t], c.bytes());
                    list.push(Operands {
                        a: place(&mut a_mem[i], ab.bytes()),
                        b: place(&mut b_mem[j], ab.bytes()),
                        c: cp,
                        d: cp,
                    });
                }
                let mut p = HalfProduct::default();
                p.limit_avx512(avx512);
                // SAFETY: every place holds its operand's components, each D is its own C.
                assert!(unsafe { p.run_batch(&form, &list) }, "{form:?}");
                for (t, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                    let want = form.reference(&a_vals[i], &b_vals[j], &c_vals[t]);
                    let es = c.bytes();
                    for (e, w) in want.iter().enumerate() {
                        assert_eq!(
                            c.load(&c_mem[t][e * es..]),
                            *w,
                            "{form:?} (AVX-512 level {avx512}) product {t} element {e}"
                        );
                    }
                }
            }
        }
    }

    /// `run_rows` against the reference for every float form and the 8-bit integer forms, with
    /// its rows scattered through a file, and with `D` in `C`'s registers.
    #[test]
    fn row_products_match_the_reference() {
        use ComponentType::*;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        use operands::*;
        let signed = A_SIGNED | B_SIGNED | C_SIGNED | RESULT_SIGNED;
        let forms = [
            (16, 16, 16, Float16, Float32, Float32, 0),
            (16, 16, 16, Float16, Float16, Float16, 0),
            (16, 8, 16, Float16, Float32, Float32, 0),
            (16, 8, 8, Float16, Float16, Float16, 0),
            (16, 16, 16, BFloat16, Float32, Float32, 0),
            (16, 16, 16, BFloat16, BFloat16, BFloat16, 0),
            (16, 16, 8, Float32, Float32, Float32, 0),
            // The 8-bit integer forms: 16 columns (the vector staging) and 8.
            (16, 16, 32, SInt8, SInt32, SInt32, signed),
            (16, 16, 32, SInt8, SInt32, SInt32, signed | SATURATING),
            (16, 16, 32, UInt8, UInt32, UInt32, 0),
            (16, 16, 32, UInt8, UInt32, UInt32, SATURATING),
            (
                16,
                16,
                32,
                SInt8,
                SInt32,
                SInt32,
                A_SIGNED | C_SIGNED | RESULT_SIGNED,
            ),
            (16, 8, 32, SInt8, SInt32, SInt32, signed),
            (16, 8, 32, UInt8, UInt32, UInt32, SATURATING),
            // B signed, A unsigned (both biases of the VNNI kernel at once).
            (
                16,
                16,
                32,
                SInt8,
                SInt32,
                SInt32,
                B_SIGNED | C_SIGNED | RESULT_SIGNED,
            ),
            // Shapes without code of their own in the kernels.
            (16, 16, 16, SInt8, SInt32, SInt32, signed),
            (16, 16, 4, UInt8, UInt32, UInt32, A_SIGNED),
            (32, 16, 64, SInt8, SInt32, SInt32, signed | SATURATING),
            (32, 16, 32, UInt8, UInt32, UInt32, 0),
            (32, 16, 16, Float16, Float32, Float32, 0),
        ];
        for (m, n, k, ab, c, result, operands) in forms {
            for same in [false, true] {
                let form = MulAdd {
                    m,
                    n,
                    k,
                    a: ab,
                    b: ab,
                    c,
                    result,
                    operands,
                };
                let (rows, n, k) = (m as usize / 2, n as usize, k as usize);
                let mut raw = |ty: ComponentType, len: usize| -> Vec<u64> {
                    (0..len)
                        .map(|_| match ty {
                            Float16 | BFloat16 | Float32 => {
                                ty.float_bits(((next() % 33) as f64 - 16.0) * 0.125)
                            }
                            // Accumulators near the ends of the ranges, to saturate.
                            SInt32 | UInt32 => {
                                let small = next() % 100_000;
                                match next() % 3 {
                                    0 => 0x7fff_ffff - small,
                                    1 => 0x8000_0000 + small,
                                    _ => 0xffff_ffff - small,
                                }
                            }
                            _ => next() & 0xff,
                        })
                        .collect()
                };
                let (a, b, cv) = (raw(ab, rows * k), raw(ab, k * n), raw(c, rows * n));
                let want = form.reference(&a, &b, &cv);
                // Components at scattered 64-byte-aligned places of one file.
                let mut file = vec![0u8; 64 * 512];
                let mut next_row = 3usize;
                let mut place = |values: &[u64], ty: ComponentType, file: &mut [u8]| {
                    let es = ty.bytes();
                    values
                        .chunks(HALF)
                        .map(|chunk| {
                            let at = next_row * 64 + 32 * (next_row % 2);
                            next_row += 3;
                            for (j, v) in chunk.iter().enumerate() {
                                file[at + j * es..at + (j + 1) * es]
                                    .copy_from_slice(&v.to_le_bytes()[..es]);
                            }
                            at
                        })
                        .collect::<Vec<usize>>()
                };
                let (ao, bo, co) = (
                    place(&a, ab, &mut file),
                    place(&b, ab, &mut file),
                    place(&cv, c, &mut file),
                );
                let dof = if same && c == result {
                    co.clone()
                } else {
                    place(&vec![0; rows * n], result, &mut file)
                };
                // The AVX2 kernels, then the CPU's AVX-512 ones where it has them (without
                // VBMI, then all).
                for avx512 in 0..3 {
                    let mut file = file.clone();
                    let mut p = HalfProduct::default();
                    p.limit_avx512(avx512);
                    let rows_at = Rows {
                        a: &ao,
                        b: &bo,
                        c: &co,
                        d: &dof,
                    };
                    if !p.run_rows(&form, &mut file, rows_at) {
                        // A float form without AVX2, FMA and F16C here: nothing to compare.
                        assert!(form.is_float(), "{form:?}");
                        continue;
                    }
                    let es = result.bytes();
                    for (i, &o) in dof.iter().enumerate() {
                        for lane in 0..HALF {
                            assert_eq!(
                                result.load(&file[o + lane * es..]),
                                want[i * HALF + lane],
                                "{form:?} (AVX-512 level {avx512}) component {i} lane {lane}"
                            );
                        }
                    }
                }
            }
        }
    }
}
