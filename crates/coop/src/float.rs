//! Narrow floats: binary16 and bfloat16 rounded once from f64, and float8 — E4M3 (the OCP "FN"
//! encoding: bias 7, no infinities, NaN = S.1111.111, largest 448) and E5M2 (bias 15, IEEE-like
//! infinities and NaNs, largest 57344) — read exactly as f64 and written with
//! round-to-nearest-even and `SPV_EXT_float8`'s non-saturating overflow (the rule
//! `vkConvertCooperativeVectorMatrixNV` follows too). The SPIR-V ALU and the cooperative
//! conversions share these.

use half::{bf16, f16};

/// `v` rounded to binary16 (to nearest even, overflow to infinity).
pub fn f16_bits(v: f64) -> u16 {
    let f = v as f32;
    if f64::from(f) == v || v.is_nan() {
        f16::from_f32(f).to_bits()
    } else {
        f16::from_f64(round_f64(v, 10, -14, 65504.0)).to_bits()
    }
}

/// `v` rounded to bfloat16 (to nearest even, overflow to infinity).
pub fn bf16_bits(v: f64) -> u16 {
    let f = v as f32;
    if f64::from(f) == v || v.is_nan() {
        bf16::from_f32(f).to_bits()
    } else {
        bf16::from_f64(round_f64(v, 7, -126, BF16_MAX)).to_bits()
    }
}

/// The largest finite bfloat16.
const BF16_MAX: f64 = 3.389_531_389_251_535_5e38;

/// `v` rounded once, to nearest with ties to even, to a binary format with `mbits` mantissa bits,
/// minimum normal exponent `emin` and largest finite value `max` (beyond it: infinity). The result
/// is exactly representable in that format, so a later conversion to it is exact; converting
/// through f32 first would round twice.
fn round_f64(v: f64, mbits: i32, emin: i32, max: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let a = v.abs();
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
    let quantum = 2f64.powi(e - mbits);
    let r = (a / quantum).round_ties_even() * quantum;
    let r = if r > max { f64::INFINITY } else { r };
    r.copysign(v)
}

/// Decodes float8: E4M3 (bias 7, no infinities, NaN = S.1111.111) or E5M2 (bias 15, IEEE-like).
pub fn fp8_decode(b: u8, e5m2: bool) -> f64 {
    let (mbits, bias) = if e5m2 { (2, 15) } else { (3, 7) };
    let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((b & 0x7f) >> mbits);
    let mant = f64::from(b & ((1 << mbits) - 1));
    let emax = if e5m2 { 31 } else { 15 };
    if exp == emax {
        if e5m2 {
            return if mant == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if mant == 7.0 {
            return f64::NAN;
        }
    }
    let scale = f64::from(1u32 << mbits);
    if exp == 0 {
        sign * mant / scale * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + mant / scale) * 2f64.powi(exp - bias)
    }
}

/// Encodes float8 with round-to-nearest-even. Out-of-range values become NaN (E4M3, which has no
/// infinity) or infinity (E5M2), the non-saturating conversion of SPV_EXT_float8.
pub fn fp8_encode(v: f64, e5m2: bool) -> u8 {
    let (mbits, bias, max, nan, inf) = if e5m2 {
        (2i32, 15i32, 57344.0, 0x7e, 0x7c)
    } else {
        (3, 7, 448.0, 0x7f, 0x7f)
    };
    let sign = if v.is_sign_negative() { 0x80u8 } else { 0 };
    if v.is_nan() {
        return sign | nan;
    }
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | inf;
    }
    let emin = 1 - bias;
    // Exponent of `a` from its bits (a is finite, non-zero; tiny values clamp to emin anyway).
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
    let quantum = 2f64.powi(e - mbits);
    let r = (a / quantum).round_ties_even() * quantum;
    if r > max {
        return sign | inf;
    }
    if r == 0.0 {
        return sign;
    }
    let re = (((r.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
    let code = if r < 2f64.powi(emin) {
        (r / 2f64.powi(emin - mbits)) as u32
    } else {
        let mant = (r / 2f64.powi(re - mbits)) as u32 - (1 << mbits);
        (((re + bias) as u32) << mbits) | mant
    };
    sign | (code as u8 & 0x7f)
}

/// 16 little-endian binary16 values (`src`, at least 32 bytes) as f32 (`dst`, at least 16):
/// exact, with F16C where the CPU has it.
#[inline]
pub fn halves_to_f32(src: &[u8], dst: &mut [f32]) {
    let (src, dst) = (&src[..32], &mut dst[..16]);
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C; 32 bytes in, 16 floats out (the slices above).
        return unsafe { f16c::to_f32(src, dst) };
    }
    for (d, s) in dst.iter_mut().zip(src.chunks_exact(2)) {
        *d = f16::from_bits(u16::from_le_bytes([s[0], s[1]])).to_f32();
    }
}

/// 16 f32 values (`src`) rounded to binary16 (to nearest even) into `dst` (32 bytes,
/// little-endian), with F16C where the CPU has it.
#[inline]
pub fn f32_to_halves(src: &[f32], dst: &mut [u8]) {
    let (src, dst) = (&src[..16], &mut dst[..32]);
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C; 16 floats in, 32 bytes out (the slices above).
        return unsafe { f16c::from_f32(src, dst) };
    }
    for (d, &s) in dst.chunks_exact_mut(2).zip(src) {
        d.copy_from_slice(&f16::from_f32(s).to_bits().to_le_bytes());
    }
}

/// Whether the CPU has F16C and AVX (asked once).
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_f16c() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("f16c")
    })
}

#[cfg(target_arch = "x86_64")]
mod f16c {
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX and F16C; `src` holds 32 bytes, `dst` 16 floats.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn to_f32(src: &[u8], dst: &mut [f32]) {
        // SAFETY: the caller's contract.
        unsafe {
            let lo = _mm256_cvtph_ps(_mm_loadu_si128(src.as_ptr().cast()));
            let hi = _mm256_cvtph_ps(_mm_loadu_si128(src.as_ptr().add(16).cast()));
            _mm256_storeu_ps(dst.as_mut_ptr(), lo);
            _mm256_storeu_ps(dst.as_mut_ptr().add(8), hi);
        }
    }

    /// # Safety
    /// AVX and F16C; `src` holds 16 floats, `dst` 32 bytes.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn from_f32(src: &[f32], dst: &mut [u8]) {
        // SAFETY: the caller's contract.
        unsafe {
            let lo = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.as_ptr()));
            let hi =
                _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.as_ptr().add(8)));
            _mm_storeu_si128(dst.as_mut_ptr().cast(), lo);
            _mm_storeu_si128(dst.as_mut_ptr().add(16).cast(), hi);
        }
    }
}
