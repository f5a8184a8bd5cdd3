//! Lane-batched matrix-vector products: what compiled shaders run for a chunk of [`LANES`]
//! invocations that multiply by the same matrix. The chunk's inputs become one `K × 16` matrix
//! `X` (lanes contiguous, as the register file holds them), and the products of all lanes are
//! one GEMM `Y = W·X`, computed by a register-blocked kernel: per step of `k`, one or two vector
//! loads of `X`, one broadcast of `W` per row and a fused multiply-add (float) or `vpmaddwd`
//! (8-bit integers, as i16 pairs) per row and vector. The arithmetic is `vector`'s, bit for bit
//! (`k` ascending, one FMA per step; integers wrap).
//!
//! `W` is read where it is when it is an f32 matrix (any layout, transposed or not: the kernels
//! take a row step and a column step); any other matrix is first converted into [`Batch`]'s own
//! row-major copy (f32, or i16 with an even row length for the integer kernels). The copy is
//! made once per matrix and dispatch: the batch keeps the last few matrices it converted until
//! [`Batch::forget`], which every dispatch calls first (an application may rewrite a matrix
//! between dispatches).
//!
//! Invariants: the unsafe kernels read `W` only at offsets the [`WeightView`] was checked to
//! keep inside the matrix's bytes, and `X`/`Y` only inside the batch's vectors, sized at
//! [`Batch::begin`].

use std::sync::OnceLock;

use crate::component::ComponentType;
use crate::layout::{Matrix, decode};
use crate::vector::{MatVec, as_f32, as_i32, convert_input};

/// Lanes of one batch.
pub const LANES: usize = 16;

/// The kernels a CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// AVX-512F (floats) and AVX-512BW (integers): one 16-lane vector per row.
    Avx512,
    /// AVX2 and FMA: two 8-lane vectors per row, four rows at a time.
    Avx2,
    /// Plain Rust.
    Portable,
}

impl Isa {
    pub fn detect() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                {
                    return Isa::Avx512;
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    return Isa::Avx2;
                }
            }
            Isa::Portable
        })
    }
}

/// Where element `W[m][k]` of the logical `M × K` matrix is: for f32 weights the f32 at
/// `base + m·row + k·step`, for i16 pairs the pair `(W[m][2p], W[m][2p + 1])` at
/// `base + m·row + p·step`.
#[derive(Debug, Clone, Copy)]
struct WeightView {
    base: *const u8,
    row: usize,
    step: usize,
}

/// One worker's batch: the gathered inputs, the products, and room for a converted matrix.
#[derive(Debug, Default)]
pub struct Batch {
    form: Option<MatVec>,
    /// Float inputs, `[k][lane]`.
    x: Vec<f32>,
    /// Integer inputs as i16 pairs, `[k / 2][lane][k % 2]`.
    xi: Vec<i16>,
    /// Float products, `[m][lane]`.
    y: Vec<f32>,
    /// Integer products, `[m][lane]`.
    yi: Vec<i32>,
    /// Converted matrices (row-major f32, or i16 with an even row length), most recently used
    /// first: every chunk of a dispatch usually reads the same few (an MLP's layers).
    packed: Vec<Packed>,
}

/// A matrix converted for the kernels, and what it was converted from: its address, stride and
/// form.
#[derive(Debug)]
struct Packed {
    from: (usize, usize, MatVec),
    bytes: Vec<u8>,
}

/// Converted matrices a batch keeps.
const PACKED_KEPT: usize = 8;

// SAFETY: `WeightView` pointers never outlive a call; `Batch` owns only vectors.
unsafe impl Send for Batch {}

impl Batch {
    /// Forgets the converted matrix (a dispatch starts: the memory may have changed).
    pub fn forget(&mut self) {
        self.packed.clear();
    }

    /// Starts a product of `form` (already [`MatVec::check`]ed).
    pub fn begin(&mut self, form: &MatVec) {
        let (m, k) = (form.m as usize, form.k as usize);
        self.form = Some(*form);
        if form.is_float() {
            self.x.clear();
            self.x.resize(k * LANES, 0.0);
            self.y.clear();
            self.y.resize(m * LANES, 0.0);
        } else {
            self.xi.clear();
            self.xi.resize(k.next_multiple_of(2) * LANES, 0);
            self.yi.clear();
            self.yi.resize(m * LANES, 0);
        }
    }

    /// Takes input component `c` of every lane from `row` ([`LANES`] components of the input's
    /// type, little-endian).
    pub fn gather(&mut self, c: usize, row: &[u8]) {
        let Some(form) = self.form else { return };
        let es = form.input.bytes();
        let raw = |lane: usize| -> u64 {
            row.get(lane * es..lane * es + es)
                .map_or(0, |b| ComponentType::UInt64.load(b))
        };
        let k = form.k as usize;
        if form.is_float() {
            let Some(out) = self.x.get_mut(c * LANES..(c + 1) * LANES) else {
                return;
            };
            match (form.input, form.interpretation) {
                (ComponentType::Float32, ComponentType::Float32) => {
                    for (lane, o) in out.iter_mut().enumerate() {
                        *o = f32::from_bits(raw(lane) as u32);
                    }
                }
                (ComponentType::Float16, ComponentType::Float16 | ComponentType::Float32)
                    if row.len() >= 2 * LANES =>
                {
                    crate::float::halves_to_f32(row, out);
                }
                _ => {
                    for (lane, o) in out.iter_mut().enumerate() {
                        *o = as_f32(form.input_value(&[raw(lane)], 0));
                    }
                }
            }
        } else if form.interpretation.is_packed() {
            for lane in 0..LANES {
                let word = raw(lane);
                for byte in 0..4 {
                    let kk = c * 4 + byte;
                    if kk < k {
                        let v = as_i32(form.input_value(&[word], byte));
                        self.xi[(kk / 2 * LANES + lane) * 2 + kk % 2] = v as i16;
                    }
                }
            }
        } else {
            for lane in 0..LANES {
                let v = raw(lane);
                let n = if form.input.is_float() {
                    convert_input(
                        crate::layout::Number::Float(form.input.float_of(v)),
                        form.interpretation,
                    )
                } else {
                    convert_input(
                        crate::layout::Number::Int(form.input.int_of(v)),
                        form.interpretation,
                    )
                };
                self.xi[(c / 2 * LANES + lane) * 2 + c % 2] = as_i32(n) as i16;
            }
        }
    }

    /// Multiplies the gathered inputs by the matrix at `matrix` (`matrix_len` readable bytes;
    /// `stride` for strided layouts) and adds the bias at `bias` (`bias_len` bytes). Returns
    /// false, computing nothing, when the matrix or the bias does not fit in its bytes.
    ///
    /// # Safety
    /// `matrix..matrix + matrix_len` and `bias..bias + bias_len` must be readable for the call.
    pub unsafe fn run(
        &mut self,
        matrix: *const u8,
        matrix_len: usize,
        stride: usize,
        bias: *const u8,
        bias_len: usize,
    ) -> bool {
        // SAFETY: forwarded contract.
        unsafe { self.run_with(Isa::detect(), matrix, matrix_len, stride, bias, bias_len) }
    }

    /// [`Self::run`] with the kernels of `isa` (which the CPU must have).
    ///
    /// # Safety
    /// As [`Self::run`].
    pub(crate) unsafe fn run_with(
        &mut self,
        isa: Isa,
        matrix: *const u8,
        matrix_len: usize,
        stride: usize,
        bias: *const u8,
        bias_len: usize,
    ) -> bool {
        let Some(form) = self.form else { return false };
        let stored = form.stored(stride);
        if stored.footprint() > matrix_len {
            return false;
        }
        let bias_ty = form.bias;
        if let Some(b) = bias_ty
            && form.m as usize * b.bytes() > bias_len
        {
            return false;
        }
        // SAFETY: the footprint fits in the caller's readable bytes.
        let view = unsafe { self.view(&form, &stored, matrix) };
        let (m, k) = (form.m as usize, form.k as usize);
        if form.is_float() {
            // SAFETY: `view` addresses only elements inside the footprint (or `packed`); `x` and
            // `y` were sized for this form.
            unsafe { float_kernel(isa, &self.x, view, m, k, &mut self.y) };
        } else {
            // SAFETY: as above, with `xi`/`yi`.
            unsafe { int_kernel(isa, &self.xi, view, m, k, &mut self.yi) };
        }
        if let Some(b) = bias_ty
            && form.is_float()
            && b == ComponentType::Float16
            && m.is_multiple_of(16)
        {
            // SAFETY: the bias holds `m` halves (checked above).
            let bytes = unsafe { std::slice::from_raw_parts(bias, m * 2) };
            let mut add = [0f32; 16];
            for (block, halves) in bytes.chunks_exact(32).enumerate() {
                crate::float::halves_to_f32(halves, &mut add);
                for (i, &a) in add.iter().enumerate() {
                    let row = block * 16 + i;
                    for y in &mut self.y[row * LANES..(row + 1) * LANES] {
                        *y += a;
                    }
                }
            }
        } else if let Some(b) = bias_ty {
            for row in 0..m {
                // SAFETY: `row < m` and the bias holds `m` elements (checked above).
                let raw = unsafe {
                    let mut word = [0u8; 8];
                    std::ptr::copy_nonoverlapping(
                        bias.add(row * b.bytes()),
                        word.as_mut_ptr(),
                        b.bytes(),
                    );
                    u64::from_le_bytes(word)
                };
                let value = decode(b, raw);
                if form.is_float() {
                    let add = as_f32(value);
                    for y in &mut self.y[row * LANES..(row + 1) * LANES] {
                        *y += add;
                    }
                } else {
                    let add = as_i32(value);
                    for y in &mut self.yi[row * LANES..(row + 1) * LANES] {
                        *y = y.wrapping_add(add);
                    }
                }
            }
        }
        true
    }

    /// Writes result component `m` of every lane into `row` ([`LANES`] components of the
    /// result type).
    pub fn scatter(&self, m: usize, row: &mut [u8]) {
        let Some(form) = self.form else { return };
        let es = form.result.bytes();
        if form.result == ComponentType::Float16
            && let (Some(y), Some(row)) = (
                self.y.get(m * LANES..(m + 1) * LANES),
                row.get_mut(..LANES * 2),
            )
        {
            crate::float::f32_to_halves(y, row);
            return;
        }
        for lane in 0..LANES {
            let bits = if form.is_float() {
                form.result.float_bits(f64::from(self.y[m * LANES + lane]))
            } else {
                u64::from(self.yi[m * LANES + lane] as u32)
            };
            if let Some(out) = row.get_mut(lane * es..lane * es + es) {
                out.copy_from_slice(&bits.to_le_bytes()[..es]);
            }
        }
    }

    /// A view of the matrix the kernels can read, converting it into `packed` when they
    /// cannot read it where it is.
    ///
    /// # Safety
    /// `matrix` must have `stored.footprint()` readable bytes.
    unsafe fn view(&mut self, form: &MatVec, stored: &Matrix, matrix: *const u8) -> WeightView {
        let (m, k) = (form.m as usize, form.k as usize);
        // Steps of the logical M × K matrix through the stored one.
        let (row, col) = stored.steps();
        let (row, step) = if form.transpose {
            (col, row)
        } else {
            (row, col)
        };
        if form.is_float() && stored.ty == ComponentType::Float32 {
            return WeightView {
                base: matrix,
                row,
                step,
            };
        }
        let key = (matrix as usize, stored.stride, *form);
        let float = form.is_float();
        // Row length of the copy in elements (even for i16 pairs), and element bytes.
        let (len, es) = if float {
            (k, 4)
        } else {
            (k.next_multiple_of(2), 2)
        };
        if let Some(i) = self.packed.iter().position(|p| p.from == key) {
            // Most recently used first.
            self.packed[..=i].rotate_right(1);
        } else {
            let mut bytes = if self.packed.len() >= PACKED_KEPT {
                self.packed.pop().map(|p| p.bytes).unwrap_or_default()
            } else {
                Vec::new()
            };
            bytes.clear();
            bytes.resize(m * len * es, 0);
            let width = stored.ty.bytes();
            for r in 0..m {
                for c in 0..k {
                    let at = r * row + c * step;
                    // SAFETY: element (r, c) of the logical matrix is inside the stored one's
                    // footprint, which the caller made readable.
                    let raw = unsafe {
                        let mut word = [0u8; 8];
                        std::ptr::copy_nonoverlapping(matrix.add(at), word.as_mut_ptr(), width);
                        u64::from_le_bytes(word)
                    };
                    let value = decode(stored.ty, raw);
                    let out = (r * len + c) * es;
                    if float {
                        let v = as_f32(value);
                        bytes[out..out + 4].copy_from_slice(&v.to_le_bytes());
                    } else {
                        let v = as_i32(value) as i16;
                        bytes[out..out + 2].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
            self.packed.insert(0, Packed { from: key, bytes });
        }
        // f32: one element per step; i16: one pair (4 bytes) per step.
        WeightView {
            base: self.packed[0].bytes.as_ptr(),
            row: len * es,
            step: 4,
        }
    }
}

/// The address of weight `(row, k)` in `w`.
///
/// # Safety
/// The element must be inside the matrix `w` views.
#[inline(always)]
unsafe fn at(w: &WeightView, row: usize, k: usize) -> *const u8 {
    // SAFETY: caller contract.
    unsafe { w.base.add(row * w.row + k * w.step) }
}

/// `y[m][lane] = Σ_k W[m][k]·x[k][lane]` in f32, `k` ascending, one FMA per step.
///
/// # Safety
/// `w` addresses `m × k` readable f32s; `x` holds `k·LANES`, `y` `m·LANES` values.
unsafe fn float_kernel(isa: Isa, x: &[f32], w: WeightView, m: usize, k: usize, y: &mut [f32]) {
    assert!(x.len() >= k * LANES && y.len() >= m * LANES);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F (`Isa::detect`); the caller's contract.
        Isa::Avx512 => unsafe { avx512::float(x, w, m, k, y) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA; the caller's contract.
        Isa::Avx2 => unsafe { avx2::float(x, w, m, k, y) },
        _ => {
            for row in 0..m {
                let acc = &mut y[row * LANES..(row + 1) * LANES];
                acc.fill(0.0);
                for kk in 0..k {
                    // SAFETY: the caller's contract.
                    let wv = unsafe { at(&w, row, kk).cast::<f32>().read_unaligned() };
                    for (a, &xv) in acc.iter_mut().zip(&x[kk * LANES..(kk + 1) * LANES]) {
                        *a = wv.mul_add(xv, *a);
                    }
                }
            }
        }
    }
}

/// `y[m][lane] = Σ_k W[m][k]·x[k][lane]` in wrapping i32 (`x` and `W` as i16 pairs).
///
/// # Safety
/// `w` addresses `m × ⌈k/2⌉` readable pairs; `x` holds `⌈k/2⌉·LANES` pairs, `y` `m·LANES`.
unsafe fn int_kernel(isa: Isa, x: &[i16], w: WeightView, m: usize, k: usize, y: &mut [i32]) {
    let pairs = k.div_ceil(2);
    assert!(x.len() >= pairs * LANES * 2 && y.len() >= m * LANES);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512BW; the caller's contract.
        Isa::Avx512 => unsafe { avx512::int(x, w, m, pairs, y) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2; the caller's contract.
        Isa::Avx2 => unsafe { avx2::int(x, w, m, pairs, y) },
        _ => {
            for row in 0..m {
                for lane in 0..LANES {
                    let mut acc = 0i32;
                    for p in 0..pairs {
                        // SAFETY: the caller's contract.
                        let pair = unsafe { at(&w, row, p).cast::<[i16; 2]>().read_unaligned() };
                        let xs = &x[(p * LANES + lane) * 2..];
                        acc = acc
                            .wrapping_add(i32::from(pair[0]) * i32::from(xs[0]))
                            .wrapping_add(i32::from(pair[1]) * i32::from(xs[1]));
                    }
                    y[row * LANES + lane] = acc;
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{LANES, WeightView, at};

    /// # Safety
    /// AVX2 and FMA; `float_kernel`'s contract.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn float(x: &[f32], w: WeightView, m: usize, k: usize, y: &mut [f32]) {
        let xp = x.as_ptr();
        let mut row = 0;
        while row < m {
            let rows = (m - row).min(4);
            let mut acc = [[_mm256_setzero_ps(); 2]; 4];
            for kk in 0..k {
                // SAFETY: `kk < k`: 16 floats of `x` (the caller sized it).
                let (x0, x1) = unsafe {
                    (
                        _mm256_loadu_ps(xp.add(kk * LANES)),
                        _mm256_loadu_ps(xp.add(kk * LANES + 8)),
                    )
                };
                for (r, a) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: `row + r < m`, `kk < k`: inside the view.
                    let wv = unsafe { _mm256_broadcast_ss(&*at(&w, row + r, kk).cast::<f32>()) };
                    a[0] = _mm256_fmadd_ps(wv, x0, a[0]);
                    a[1] = _mm256_fmadd_ps(wv, x1, a[1]);
                }
            }
            for (r, a) in acc.iter().enumerate().take(rows) {
                let out = &mut y[(row + r) * LANES..(row + r + 1) * LANES];
                // SAFETY: `out` holds 16 floats.
                unsafe {
                    _mm256_storeu_ps(out.as_mut_ptr(), a[0]);
                    _mm256_storeu_ps(out.as_mut_ptr().add(8), a[1]);
                }
            }
            row += rows;
        }
    }

    /// # Safety
    /// AVX2; `int_kernel`'s contract (`pairs = ⌈k/2⌉`).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn int(x: &[i16], w: WeightView, m: usize, pairs: usize, y: &mut [i32]) {
        let xp = x.as_ptr();
        let mut row = 0;
        while row < m {
            let rows = (m - row).min(4);
            let mut acc = [[_mm256_setzero_si256(); 2]; 4];
            for p in 0..pairs {
                // SAFETY: pair `p` of every lane: 32 i16s of `x`.
                let (x0, x1) = unsafe {
                    let at = xp.add(p * LANES * 2);
                    (
                        _mm256_loadu_si256(at.cast()),
                        _mm256_loadu_si256(at.add(16).cast()),
                    )
                };
                for (r, a) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: `row + r < m`, `p < pairs`: inside the view.
                    let wv = unsafe {
                        _mm256_set1_epi32(at(&w, row + r, p).cast::<i32>().read_unaligned())
                    };
                    a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(wv, x0));
                    a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(wv, x1));
                }
            }
            for (r, a) in acc.iter().enumerate().take(rows) {
                let out = &mut y[(row + r) * LANES..(row + r + 1) * LANES];
                // SAFETY: `out` holds 16 i32s.
                unsafe {
                    _mm256_storeu_si256(out.as_mut_ptr().cast(), a[0]);
                    _mm256_storeu_si256(out.as_mut_ptr().add(8).cast(), a[1]);
                }
            }
            row += rows;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{LANES, WeightView, at};

    /// # Safety
    /// AVX-512F; `float_kernel`'s contract.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn float(x: &[f32], w: WeightView, m: usize, k: usize, y: &mut [f32]) {
        let xp = x.as_ptr();
        let mut row = 0;
        while row < m {
            let rows = (m - row).min(8);
            let mut acc = [_mm512_setzero_ps(); 8];
            for kk in 0..k {
                // SAFETY: `kk < k`: 16 floats of `x`.
                let xv = unsafe { _mm512_loadu_ps(xp.add(kk * LANES)) };
                for (r, a) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: `row + r < m`, `kk < k`: inside the view.
                    let wv = unsafe {
                        _mm512_set1_ps(at(&w, row + r, kk).cast::<f32>().read_unaligned())
                    };
                    *a = _mm512_fmadd_ps(wv, xv, *a);
                }
            }
            for (r, a) in acc.iter().enumerate().take(rows) {
                // SAFETY: row `row + r` of `y` holds 16 floats.
                unsafe { _mm512_storeu_ps(y.as_mut_ptr().add((row + r) * LANES), *a) };
            }
            row += rows;
        }
    }

    /// # Safety
    /// AVX-512BW; `int_kernel`'s contract.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn int(x: &[i16], w: WeightView, m: usize, pairs: usize, y: &mut [i32]) {
        let xp = x.as_ptr();
        let mut row = 0;
        while row < m {
            let rows = (m - row).min(8);
            let mut acc = [_mm512_setzero_si512(); 8];
            for p in 0..pairs {
                // SAFETY: pair `p` of every lane: 32 i16s of `x`.
                let xv = unsafe { _mm512_loadu_si512(xp.add(p * LANES * 2).cast()) };
                for (r, a) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: `row + r < m`, `p < pairs`: inside the view.
                    let wv = unsafe {
                        _mm512_set1_epi32(at(&w, row + r, p).cast::<i32>().read_unaligned())
                    };
                    *a = _mm512_add_epi32(*a, _mm512_madd_epi16(wv, xv));
                }
            }
            for (r, a) in acc.iter().enumerate().take(rows) {
                // SAFETY: row `row + r` of `y` holds 16 i32s.
                unsafe { _mm512_storeu_si512(y.as_mut_ptr().add((row + r) * LANES).cast(), *a) };
            }
            row += rows;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{MatrixLayout, Number};
    use ComponentType::*;

    /// A small xorshift generator (the tests need no crate for it).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Every lane of a batch against the reference, for forms × layouts × shapes.
    #[test]
    fn batch_matches_the_reference() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let forms = [
            (Float16, Float16, Float16, Some(Float16), Float16),
            (Float32, Float32, Float32, Some(Float32), Float32),
            (Float16, FloatE4M3, FloatE4M3, Some(Float16), Float16),
            (Float16, Float16, Float16, None, Float32),
            (SInt8, SInt8, SInt8, Some(SInt32), SInt32),
            (UInt8, UInt8, UInt8, Some(UInt32), UInt32),
            (Float32, SInt8, SInt8, Some(SInt32), SInt32),
            (UInt32, SInt8Packed, SInt8, Some(SInt32), SInt32),
            (SInt32, UInt8, SInt8, None, SInt32),
        ];
        for isa in [Isa::detect(), Isa::Portable] {
            for &(input, interp, matrix, bias, result) in &forms {
                for layout in [
                    MatrixLayout::RowMajor,
                    MatrixLayout::ColumnMajor,
                    MatrixLayout::InferencingOptimal,
                    MatrixLayout::TrainingOptimal,
                ] {
                    if matches!(matrix, FloatE4M3) && layout.is_strided() {
                        continue;
                    }
                    for (m, k, transpose) in [
                        (1, 1, false),
                        (13, 7, false),
                        (16, 64, false),
                        (9, 35, true),
                    ] {
                        if transpose && layout.is_strided() {
                            continue;
                        }
                        let form = MatVec {
                            m,
                            k,
                            input,
                            interpretation: interp,
                            matrix,
                            layout,
                            transpose,
                            bias,
                            result,
                        };
                        form.check().unwrap();
                        check(isa, &form, &mut rng);
                    }
                }
            }
        }
    }

    #[allow(clippy::needless_range_loop)]
    fn check(isa: Isa, form: &MatVec, rng: &mut Rng) {
        let plain = form.stored(0);
        let stride = match plain.layout {
            MatrixLayout::RowMajor => plain.cols as usize * form.matrix.bytes() + 16,
            MatrixLayout::ColumnMajor => plain.rows as usize * form.matrix.bytes() + 16,
            _ => 0,
        };
        let stored = form.stored(stride);
        let mut matrix = vec![0u8; stored.size()];
        let small = |rng: &mut Rng| (rng.next() % 9) as i64 - 4;
        for r in 0..stored.rows as usize {
            for c in 0..stored.cols as usize {
                let v = small(rng);
                let n = if form.matrix.is_float() {
                    Number::Float(v as f64 * 0.25)
                } else {
                    Number::Int(v * 20)
                };
                stored.write(&mut matrix, r, c, n);
            }
        }
        let bias_ty = form.bias.unwrap_or(form.result);
        let mut bias = vec![0u8; form.m as usize * bias_ty.bytes()];
        for (i, b) in bias.chunks_mut(bias_ty.bytes()).enumerate() {
            let bits = if bias_ty.is_float() {
                bias_ty.float_bits(i as f64 * 0.5)
            } else {
                bias_ty.int_bits(i as i64 * 1000 - 3)
            };
            bias_ty.store(bits, b);
        }
        let n_in = form.input_len() as usize;
        let inputs: Vec<Vec<u64>> = (0..LANES)
            .map(|_| {
                (0..n_in)
                    .map(|_| {
                        let v = small(rng);
                        if form.input.is_float() {
                            form.input.float_bits(v as f64 * 1.5)
                        } else {
                            form.input.int_bits(v * 50 + (rng.next() % 3) as i64 * 100)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut batch = Batch::default();
        batch.begin(form);
        let es = form.input.bytes();
        for c in 0..n_in {
            let mut row = vec![0u8; LANES * es];
            for lane in 0..LANES {
                form.input.store(inputs[lane][c], &mut row[lane * es..]);
            }
            batch.gather(c, &row);
        }
        // SAFETY: both slices live through the call.
        let ok = unsafe {
            batch.run_with(
                isa,
                matrix.as_ptr(),
                matrix.len(),
                stride,
                bias.as_ptr(),
                bias.len(),
            )
        };
        assert!(ok);
        let rs = form.result.bytes();
        for row in 0..form.m as usize {
            let mut out = vec![0u8; LANES * rs];
            batch.scatter(row, &mut out);
            for lane in 0..LANES {
                let want = form.reference(
                    &inputs[lane],
                    |r, c| stored.read(&matrix, r, c),
                    |i| {
                        let bits = bias_ty.load(&bias[i * bias_ty.bytes()..]);
                        decode(bias_ty, bits)
                    },
                );
                let got = form.result.load(&out[lane * rs..]);
                assert_eq!(got, want[row], "{isa:?} {form:?} row {row} lane {lane}");
            }
        }
    }
}
