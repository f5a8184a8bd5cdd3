//! A half's multiply-add straight from and to where its components are: rows of a register
//! file named by offsets ([`HalfProduct::run_rows`], what `ctx::coop` runs), or components at
//! one stride ([`HalfProduct::run_strided`], what compiled code calls with pointers it
//! computed: its register rows, or the rows of the variable an operand stays in).
//!
//! [`HalfProduct::run_batch`] runs several [`Operands`] in one call: two float products that
//! share `B` together ([`super::avx512::float_rows_pair`]), 8-bit products that share `B` one
//! after the other with `B` staged once.
//!
//! All take the same path ([`HalfProduct::run_places`]): `A` and `B` are converted once into
//! the product's arrays (f32, or i16 and i16 pairs for the 8-bit integer forms), blocks of the
//! accumulator are read from `C`'s components and written to `D`'s. With AVX-512 and `N = 16`,
//! `avx512`'s kernels read `B`'s float rows in place and stage 8-bit `A` and `B` as biased
//! bytes for `vpdpbusd`.
//!
//! Invariants: a place is asked only for components below its operand's count; the unsafe
//! kernels run only on a CPU with the features they are compiled for ([`HalfProduct::direct`]).

use super::{HALF, HalfProduct, MAX_INT_K, Rows, fit};
use crate::component::ComponentType;
use crate::matrix::{MulAdd, operands};

/// Where an operand's components are: component `i`'s 16 lanes start at `at(i)`.
pub(super) trait Place: Copy {
    /// # Safety
    /// `i` is below the operand's component count.
    unsafe fn at(self, i: usize) -> *mut u8;

    /// What identifies the place within a batch (first component, stride), if anything.
    fn key(self) -> Option<(usize, usize)> {
        None
    }
}

/// Components at offsets into a register file.
#[derive(Clone, Copy)]
struct Listed<'a> {
    base: *mut u8,
    offsets: &'a [usize],
}

impl Place for Listed<'_> {
    #[inline(always)]
    unsafe fn at(self, i: usize) -> *mut u8 {
        // SAFETY: the caller's `i` is below `offsets.len()` (the operand's count), and
        // `run_rows` checked every offset against the file.
        unsafe { self.base.add(*self.offsets.get_unchecked(i)) }
    }
}

/// Components at one stride: component `i`'s 16 lanes at `base + i·stride`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Strided {
    pub base: *mut u8,
    pub stride: usize,
}

impl Place for Strided {
    #[inline(always)]
    unsafe fn at(self, i: usize) -> *mut u8 {
        self.base.wrapping_add(i.wrapping_mul(self.stride))
    }

    fn key(self) -> Option<(usize, usize)> {
        Some((self.base as usize, self.stride))
    }
}

/// A multiply-add's operands and result, as compiled code passes them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Operands {
    pub a: Strided,
    pub b: Strided,
    pub c: Strided,
    pub d: Strided,
}

/// The kernels' edge types of a direct float form's `C` and result (`Edge::of` holds for
/// both: [`HalfProduct::direct`]).
#[cfg(target_arch = "x86_64")]
fn edges(form: &MulAdd) -> [super::x86::Edge; 2] {
    [form.c, form.result].map(|t| super::x86::Edge::of(t).unwrap_or(super::x86::Edge::F32))
}

impl HalfProduct {
    /// Whether [`Self::run_rows`] and [`Self::run_strided`] run `form` on this CPU: float
    /// forms with f16, bfloat16 or f32 `A`, `B`, `C` and result, `N` a multiple
    /// of 8, on a CPU with AVX2, FMA and F16C; the 8-bit integer forms with 32-bit `C` and
    /// result, `K` even and `N` a multiple of 8.
    pub fn direct(form: &MulAdd) -> bool {
        let (n, k) = (form.n as usize, form.k as usize);
        if !n.is_multiple_of(8) {
            return false;
        }
        if form.is_float() {
            #[cfg(target_arch = "x86_64")]
            {
                // f16, bfloat16 and f32 `A` and `B` are widened to f32 on the way in, `C` and
                // the result read and written by the kernel itself.
                [form.a, form.b, form.c, form.result]
                    .iter()
                    .all(|&t| super::x86::Edge::of(t).is_some())
                    && super::x86::has_f16c_fma()
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
        } else {
            form.a.bytes() == 1
                && form.b.bytes() == 1
                && form.c.bytes() == 4
                && form.result.bytes() == 4
                && k.is_multiple_of(2)
                && k <= MAX_INT_K
        }
    }

    /// The AVX-512 kernels this product uses.
    #[cfg(target_arch = "x86_64")]
    fn wide(&self) -> super::avx512::Wide {
        self.wide.unwrap_or_else(super::avx512::Wide::detect)
    }

    /// The AVX-512 kernels this product may use, at most: the CPU's without VBMI, without
    /// any, or all (the default); for tests that compare them.
    #[cfg(test)]
    pub(crate) fn limit_avx512(&mut self, level: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            let cpu = super::avx512::Wide::detect();
            self.wide = match level {
                0 => Some(super::avx512::Wide::NONE),
                1 => Some(super::avx512::Wide { vbmi: false, ..cpu }),
                _ => None,
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = level;
    }

    /// The whole product of `form` straight from and to the rows of a register file (`file`,
    /// where `rows` says; the same registers for `C` and `D` are allowed: a block reads its
    /// rows of `C` before it writes them). False, with nothing written, for a form
    /// [`Self::direct`] does not take or a row outside `file`.
    pub fn run_rows(&mut self, form: &MulAdd, file: &mut [u8], rows: Rows<'_>) -> bool {
        let (half_rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        let fits = |offsets: &[usize], t: ComponentType, elements: usize| {
            offsets.len() * HALF == elements
                && offsets.iter().all(|&o| {
                    o.checked_add(HALF * t.bytes())
                        .is_some_and(|end| end <= file.len())
                })
        };
        if !(Self::direct(form)
            && fits(rows.a, form.a, half_rows * k)
            && fits(rows.b, form.b, k * n)
            && fits(rows.c, form.c, half_rows * n)
            && fits(rows.d, form.result, half_rows * n))
        {
            return false;
        }
        let base = file.as_mut_ptr();
        let at = |offsets| Listed { base, offsets };
        // SAFETY: every offset of every operand is followed by its 16 components inside
        // `file` (checked above), and there are as many as the form has; the form is direct.
        unsafe { self.run_places(form, [at(rows.a), at(rows.b), at(rows.c), at(rows.d)]) };
        true
    }

    /// The whole product of `form` from and to `operands`. False, with nothing written, for a
    /// form [`Self::direct`] does not take.
    ///
    /// # Safety
    /// Each operand holds the form's components for a half (`A`: `M/2·K/16`, `B`: `K·N/16`,
    /// `C` and `D`: `M/2·N/16`), each 16 elements of its type, readable (`D` writable); `D`'s
    /// do not overlap `A`'s or `B`'s (`C`'s may be `D`'s).
    pub unsafe fn run_strided(&mut self, form: &MulAdd, operands: &Operands) -> bool {
        if !Self::direct(form) {
            return false;
        }
        // SAFETY: the caller's contract; the form is direct.
        unsafe { self.run_places(form, [operands.a, operands.b, operands.c, operands.d]) };
        true
    }

    /// Several products of `form` from and to their operands, as [`Self::run_strided`] runs
    /// each, in an order of its choosing: on the AVX-512 float path two products that read the
    /// same `B` run together (each row of `B` widened once for both), on the VNNI path products
    /// that read the same `B` run one after the other and reuse its staging. False, with
    /// nothing written, for a form [`Self::direct`] does not take.
    ///
    /// # Safety
    /// Each entry as [`Self::run_strided`] says; no product's `D` overlaps another's `A`, `B`
    /// or `C` or another's `D` (so the order in which they run does not matter), and at most
    /// 64 entries.
    pub unsafe fn run_batch(&mut self, form: &MulAdd, operands: &[Operands]) -> bool {
        if !Self::direct(form) || operands.len() > 64 {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if form.is_float() && self.wide().floats && form.n as usize == HALF && form.m == 16 {
            let k = form.k as usize;
            let [c_ty, d_ty] = edges(form);
            fit(&mut self.a, 8 * k);
            fit(&mut self.a_pair, 8 * k);
            let mut done = 0u64;
            for i in 0..operands.len() {
                if done & (1 << i) != 0 {
                    continue;
                }
                done |= 1 << i;
                let first = &operands[i];
                let partner = (i + 1..operands.len()).find(|&j| {
                    done & (1 << j) == 0
                        && operands[j].b.base == first.b.base
                        && operands[j].b.stride == first.b.stride
                });
                let Some(j) = partner else {
                    // SAFETY: the caller's contract; the form is direct.
                    unsafe { self.run_places(form, [first.a, first.b, first.c, first.d]) };
                    continue;
                };
                done |= 1 << j;
                let second = &operands[j];
                // SAFETY: the CPU has AVX-512 (F, BW, VL), F16C and FMA; the arrays hold
                // 8·k values; the places hold the components (the caller's contract: each
                // `A` 8·k/16, `B` k, `C` and `D` 8 rows, N = 16).
                unsafe {
                    super::x86::stage_f32(form.a, first.a, 8 * k / HALF, &mut self.a);
                    super::x86::stage_f32(form.a, second.a, 8 * k / HALF, &mut self.a_pair);
                    super::avx512::float_rows_pair(
                        &self.a,
                        &self.a_pair,
                        first.b,
                        form.b,
                        [first.c, second.c],
                        c_ty,
                        [first.d, second.d],
                        d_ty,
                        k,
                    );
                }
            }
            return true;
        }
        #[cfg(target_arch = "x86_64")]
        self.vnni.batch(true);
        // Products that read the same B one after the other, so that its staging is reused.
        let mut done = 0u64;
        for i in 0..operands.len() {
            if done & (1 << i) != 0 {
                continue;
            }
            for (j, op) in operands.iter().enumerate().skip(i) {
                let same = op.b.base == operands[i].b.base && op.b.stride == operands[i].b.stride;
                if done & (1 << j) == 0 && same {
                    done |= 1 << j;
                    // SAFETY: the caller's contract; the form is direct.
                    unsafe { self.run_places(form, [op.a, op.b, op.c, op.d]) };
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        self.vnni.batch(false);
        true
    }

    /// # Safety
    /// `form` is [`Self::direct`]; `places` hold `A`, `B`, `C` and `D` as
    /// [`Self::run_strided`] says.
    unsafe fn run_places<P: Place>(&mut self, form: &MulAdd, places: [P; 4]) {
        let [a, b, c, d] = places;
        let (half_rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        if !form.is_float() {
            // SAFETY: forwarded.
            unsafe { self.int_places(form, places) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        let [c_ty, d_ty] = edges(form);
        #[cfg(target_arch = "x86_64")]
        if self.wide().floats && n == HALF {
            fit(&mut self.a, half_rows * k);
            // SAFETY: the CPU has AVX-512 (F, BW, VL), F16C and FMA; `a` holds the shape;
            // the places hold the components (the caller's contract), component `kk` of `B`
            // and `i` of `C` and `D` being rows (N = 16).
            unsafe {
                super::x86::stage_f32(form.a, a, half_rows * k / HALF, &mut self.a);
                super::avx512::float_rows(&self.a, b, form.b, c, c_ty, d, d_ty, half_rows, k);
            }
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            fit(&mut self.a, half_rows * k);
            fit(&mut self.b, k * n);
            // SAFETY: the CPU has AVX2, FMA and F16C (a direct float form); the arrays hold
            // the shape; the places hold the components (the caller's contract).
            unsafe {
                super::x86::stage_f32(form.a, a, half_rows * k / HALF, &mut self.a);
                super::x86::stage_f32(form.b, b, k * n / HALF, &mut self.b);
                super::x86::rows_product(
                    &self.a,
                    &self.b,
                    super::x86::Edges { c, d, c_ty, d_ty },
                    half_rows,
                    n,
                    k,
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (a, b, c, d, half_rows, n, k);
    }

    /// [`Self::run_places`] for the 8-bit integer forms: `A` widened to i16 and `B` into
    /// pairs, the exact `vpmaddwd` sums, then `C` added (wrapping or saturating) into `D`.
    ///
    /// # Safety
    /// As [`Self::run_places`].
    unsafe fn int_places<P: Place>(&mut self, form: &MulAdd, places: [P; 4]) {
        let [a, b, c, d] = places;
        let (half_rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        fit(&mut self.a16, half_rows * k);
        fit(&mut self.b16, k * n);
        fit(&mut self.sum, half_rows * n);
        let component = |p: P, i: usize| -> &[u8; HALF] {
            // SAFETY: `i` is below the operand's count at every call below; each component
            // is 16 bytes (8-bit elements).
            unsafe { &*p.at(i).cast::<[u8; HALF]>() }
        };
        let widen = |signed: bool, byte: u8| {
            if signed {
                i16::from(byte as i8)
            } else {
                i16::from(byte)
            }
        };
        let a_signed = form.signed(operands::A_SIGNED);
        let b_signed = form.signed(operands::B_SIGNED);
        let saturating = form.signed(operands::SATURATING);
        #[cfg(target_arch = "x86_64")]
        let vnni = self.wide().vnni && super::avx512::vnni_shape(n, k);
        #[cfg(target_arch = "x86_64")]
        let vbmi = self.wide().vbmi;
        #[cfg(not(target_arch = "x86_64"))]
        let vnni = false;
        #[cfg(target_arch = "x86_64")]
        let vector = super::x86::has_avx2() && n.is_multiple_of(HALF);
        #[cfg(not(target_arch = "x86_64"))]
        let vector = false;
        if vnni {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX-512 VNNI and the shape is `vnni_shape`'s; the places
            // hold the components (the caller's contract: `B`'s component `kk` and `C`'s and
            // `D`'s component `i` are rows, N = 16); `sum` holds half_rows·n.
            unsafe {
                super::avx512::vnni_rows(
                    &mut self.vnni,
                    a,
                    a_signed,
                    b,
                    b_signed,
                    c,
                    d,
                    saturating.then_some(&mut self.sum[..]),
                    half_rows,
                    k,
                    vbmi,
                );
            }
            if !saturating {
                return;
            }
        } else if vector {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2; every component index is below its operand's count
            // (the places' contract) and every array index inside the arrays sized above.
            unsafe {
                self.int_places_avx2(form, places, a_signed, b_signed)
            };
            if !saturating {
                return;
            }
        } else {
            for (i, out) in self.a16.chunks_exact_mut(HALF).enumerate() {
                for (o, &x) in out.iter_mut().zip(component(a, i)) {
                    *o = widen(a_signed, x);
                }
            }
            // Element e = (row kk, column col) of B goes to pair kk / 2, column col, slot kk % 2.
            if n.is_multiple_of(HALF) {
                // Component i is row 16i / n, columns (16i mod n)..+16: rows kk and kk + 1 of a
                // block of 16 columns interleave into 32 consecutive i16.
                let blocks = n / HALF;
                for (p, out) in self.b16.chunks_exact_mut(2 * n).enumerate() {
                    for (cb, out) in out.chunks_exact_mut(2 * HALF).enumerate() {
                        let even = component(b, 2 * p * blocks + cb);
                        let odd = component(b, (2 * p + 1) * blocks + cb);
                        for ((pair, &x), &y) in out.chunks_exact_mut(2).zip(even).zip(odd) {
                            pair[0] = widen(b_signed, x);
                            pair[1] = widen(b_signed, y);
                        }
                    }
                }
            } else {
                let (mut kk, mut col) = (0, 0);
                for i in 0..k * n / HALF {
                    for &x in component(b, i) {
                        self.b16[(kk / 2) * 2 * n + 2 * col + kk % 2] = widen(b_signed, x);
                        col += 1;
                        if col == n {
                            (kk, col) = (kk + 1, 0);
                        }
                    }
                }
            }
            super::pair_product(&self.a16, &self.b16, &mut self.sum, half_rows, n, k);
        }
        let c_signed = form.signed(operands::C_SIGNED);
        let (lo, hi) = if form.signed(operands::RESULT_SIGNED) {
            (i64::from(i32::MIN), i64::from(i32::MAX))
        } else {
            (0, i64::from(u32::MAX))
        };
        for (i, sums) in self.sum.chunks_exact(HALF).enumerate() {
            // SAFETY: component i of C and D (i below their count, M/2·N/16), 16 u32 each.
            let (from, to) = unsafe {
                (
                    c.at(i).cast::<[u8; 4 * HALF]>().read_unaligned(),
                    d.at(i).cast::<[u8; 4 * HALF]>(),
                )
            };
            let mut values = [0u8; 4 * HALF];
            for ((out, raw), &sum) in values
                .chunks_exact_mut(4)
                .zip(from.chunks_exact(4))
                .zip(sums)
            {
                let raw = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
                let v = if saturating {
                    let c = if c_signed {
                        i64::from(raw as i32)
                    } else {
                        i64::from(raw)
                    };
                    (i64::from(sum) + c).clamp(lo, hi) as u32
                } else {
                    // The low 32 bits of the sum, whatever the signedness.
                    raw.wrapping_add(sum as u32)
                };
                out.copy_from_slice(&v.to_le_bytes());
            }
            // SAFETY: as above (writable).
            unsafe { to.write_unaligned(values) };
        }
    }

    /// [`Self::int_places`]'s staging and product with AVX2 (`N` a multiple of 16), and the
    /// wrapping sum into `D`: a saturating form leaves `D` to the caller.
    ///
    /// # Safety
    /// AVX2; as [`Self::run_places`].
    #[cfg(target_arch = "x86_64")]
    unsafe fn int_places_avx2<P: Place>(
        &mut self,
        form: &MulAdd,
        places: [P; 4],
        a_signed: bool,
        b_signed: bool,
    ) {
        use super::x86::{interleave_pairs, pair_rows_product, widen_bytes};
        let [a, b, c, d] = places;
        let (half_rows, n, k) = (form.m as usize / 2, form.n as usize, form.k as usize);
        let blocks = n / HALF;
        // SAFETY: the caller's contract; the arrays hold half_rows·k, k·n and half_rows·n.
        unsafe {
            let a16 = self.a16.as_mut_ptr();
            for i in 0..half_rows * k / HALF {
                widen_bytes(a.at(i), a16.add(HALF * i), a_signed);
            }
            let b16 = self.b16.as_mut_ptr();
            for p in 0..k / 2 {
                for cb in 0..blocks {
                    interleave_pairs(
                        b.at(2 * p * blocks + cb),
                        b.at((2 * p + 1) * blocks + cb),
                        b16.add(p * 2 * n + 2 * HALF * cb),
                        b_signed,
                    );
                }
            }
        }
        if form.signed(operands::SATURATING) {
            super::pair_product(&self.a16, &self.b16, &mut self.sum, half_rows, n, k);
            return;
        }
        // SAFETY: AVX2; the arrays hold the shape; C's and D's places hold half_rows·n/16
        // components (the caller's contract).
        unsafe { pair_rows_product(&self.a16, &self.b16, c, d, half_rows, n, k) };
    }
}
