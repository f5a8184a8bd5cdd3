//! GLSL.std.450's transcendental functions on binary32 (`Exp`, `Log`, `Pow`, `Sin`, `Atan2`,
//! `Tanh`, … and the binary16 forms, which run in f32 and round once), written once over
//! [`Lanes`]: the interpreter runs them on scalars ([`Scalar`]), the JIT instantiates the same
//! functions with Cranelift vectors. Every step is an IEEE operation (add, sub, mul, div, sqrt
//! and rounding to an integer, all correctly rounded), a bit operation or a select, and no
//! multiply-add is fused, so both backends give the same bits for every input.
//!
//! The approximations are the Cephes single-precision ones (range reduction with a constant
//! split in two or three parts, then a minimax polynomial) and stay within a few units in the
//! last place on the ranges the Vulkan spec sets (`exp`: 3 + 2·|x| ulp; `log`: 3 ulp, 2⁻²¹
//! absolute in [0.5, 2]; `sin`/`cos`: 2⁻¹¹ absolute in [−π, π]; the rest inherited from
//! their definitions). Special values: a NaN operand comes out quieted (the first one of two),
//! a NaN the function makes is the canonical quiet NaN (so no result depends on how a compiler
//! treats NaN signs), `exp` of large operands gives +∞ or 0, `log` of 0 gives −∞.

/// The lane operations the functions are written in. `F` holds f32 lanes, `I` i32 lanes of the
/// same count; masks are `I` lanes of all ones (true) or zero.
pub trait Lanes {
    type F: Copy;
    type I: Copy;
    fn fconst(&mut self, v: f32) -> Self::F;
    fn iconst(&mut self, v: i32) -> Self::I;
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn sqrt(&mut self, a: Self::F) -> Self::F;
    /// Rounds to an integral value, ties to even.
    fn nearest(&mut self, a: Self::F) -> Self::F;
    /// `a < b`, false when either is NaN.
    fn lt(&mut self, a: Self::F, b: Self::F) -> Self::I;
    /// `a == b`, false when either is NaN.
    fn eq(&mut self, a: Self::F, b: Self::F) -> Self::I;
    fn is_nan(&mut self, a: Self::F) -> Self::I;
    /// `mask ? a : b`, lane by lane.
    fn select(&mut self, mask: Self::I, a: Self::F, b: Self::F) -> Self::F;
    fn to_bits(&mut self, a: Self::F) -> Self::I;
    fn float_of_bits(&mut self, a: Self::I) -> Self::F;
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn and(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn or(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn xor(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn shl(&mut self, a: Self::I, bits: u8) -> Self::I;
    /// Arithmetic shift right.
    fn sar(&mut self, a: Self::I, bits: u8) -> Self::I;
    /// Truncates toward zero, saturating; NaN gives 0.
    fn to_int(&mut self, a: Self::F) -> Self::I;
    fn to_float(&mut self, a: Self::I) -> Self::F;
}

/// The interpreter's instance: one f32 lane.
#[derive(Debug)]
pub struct Scalar;

impl Lanes for Scalar {
    type F = f32;
    type I = i32;
    fn fconst(&mut self, v: f32) -> f32 {
        v
    }
    fn iconst(&mut self, v: i32) -> i32 {
        v
    }
    fn add(&mut self, a: f32, b: f32) -> f32 {
        a + b
    }
    fn sub(&mut self, a: f32, b: f32) -> f32 {
        a - b
    }
    fn mul(&mut self, a: f32, b: f32) -> f32 {
        a * b
    }
    fn div(&mut self, a: f32, b: f32) -> f32 {
        a / b
    }
    fn sqrt(&mut self, a: f32) -> f32 {
        a.sqrt()
    }
    fn nearest(&mut self, a: f32) -> f32 {
        a.round_ties_even()
    }
    fn lt(&mut self, a: f32, b: f32) -> i32 {
        -i32::from(a < b)
    }
    fn eq(&mut self, a: f32, b: f32) -> i32 {
        -i32::from(a == b)
    }
    fn is_nan(&mut self, a: f32) -> i32 {
        -i32::from(a.is_nan())
    }
    fn select(&mut self, mask: i32, a: f32, b: f32) -> f32 {
        if mask != 0 { a } else { b }
    }
    fn to_bits(&mut self, a: f32) -> i32 {
        a.to_bits() as i32
    }
    fn float_of_bits(&mut self, a: i32) -> f32 {
        f32::from_bits(a as u32)
    }
    fn iadd(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
    fn isub(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    fn and(&mut self, a: i32, b: i32) -> i32 {
        a & b
    }
    fn or(&mut self, a: i32, b: i32) -> i32 {
        a | b
    }
    fn xor(&mut self, a: i32, b: i32) -> i32 {
        a ^ b
    }
    fn shl(&mut self, a: i32, bits: u8) -> i32 {
        a << bits
    }
    fn sar(&mut self, a: i32, bits: u8) -> i32 {
        a >> bits
    }
    fn to_int(&mut self, a: f32) -> i32 {
        a as i32
    }
    fn to_float(&mut self, a: i32) -> f32 {
        a as f32
    }
}

/// The functions of this module, by name (what the IR's float ops map to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Pow,
    Atan2,
}

/// Runs `function` on `x` (and `y`, the second operand of `Pow` and `Atan2`).
pub fn apply<L: Lanes>(l: &mut L, function: Function, x: L::F, y: L::F) -> L::F {
    match function {
        Function::Exp => exp(l, x),
        Function::Exp2 => exp2(l, x),
        Function::Log => log(l, x),
        Function::Log2 => log2(l, x),
        Function::Sin => sin_cos(l, x, 0),
        Function::Cos => sin_cos(l, x, 1),
        Function::Tan => tan(l, x),
        Function::Asin => asin(l, x),
        Function::Acos => acos(l, x),
        Function::Atan => {
            let one = l.fconst(1.0);
            let a = atan2_numbers(l, x, one);
            keep_nan(l, x, a)
        }
        Function::Sinh => sinh(l, x),
        Function::Cosh => cosh(l, x),
        Function::Tanh => tanh(l, x),
        Function::Asinh => asinh(l, x),
        Function::Acosh => acosh(l, x),
        Function::Atanh => atanh(l, x),
        Function::Pow => pow(l, x, y),
        Function::Atan2 => atan2(l, x, y),
    }
}

/// `function` on one f32 (the interpreter's entry).
pub fn apply_f32(function: Function, x: f32, y: f32) -> f32 {
    apply(&mut Scalar, function, x, y)
}

const SIGN: i32 = i32::MIN;
const MAGNITUDE: i32 = i32::MAX;
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
const LN2: f32 = std::f32::consts::LN_2;
const LOG2_E: f32 = std::f32::consts::LOG2_E;
const FRAC_PI_2: f32 = std::f32::consts::FRAC_PI_2;
const FRAC_PI_4: f32 = std::f32::consts::FRAC_PI_4;
const PI: f32 = std::f32::consts::PI;

/// `c[0]·xⁿ + … + c[n]` by Horner's rule.
fn horner<L: Lanes>(l: &mut L, x: L::F, coefficients: &[f32]) -> L::F {
    let mut acc = l.fconst(coefficients[0]);
    for &c in &coefficients[1..] {
        let product = l.mul(acc, x);
        let c = l.fconst(c);
        acc = l.add(product, c);
    }
    acc
}

fn abs<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let bits = l.to_bits(x);
    let mask = l.iconst(MAGNITUDE);
    let bits = l.and(bits, mask);
    l.float_of_bits(bits)
}

/// `magnitude` with the sign of `sign` (`magnitude` non-negative).
fn with_sign_of<L: Lanes>(l: &mut L, magnitude: L::F, sign: L::F) -> L::F {
    let s = l.to_bits(sign);
    let mask = l.iconst(SIGN);
    let s = l.and(s, mask);
    let m = l.to_bits(magnitude);
    let r = l.or(m, s);
    l.float_of_bits(r)
}

/// The result of a function of `x`: `x` quieted where it is NaN, else `r`, with any NaN that
/// `r` holds replaced by the canonical quiet NaN. (The sign and payload of a NaN that
/// arithmetic makes are not pinned down: a compiler may rewrite `−(a/b)` as `(−a)/b`.)
fn keep_nan<L: Lanes>(l: &mut L, x: L::F, r: L::F) -> L::F {
    let made = l.is_nan(r);
    let canonical = l.fconst(f32::NAN);
    let r = l.select(made, canonical, r);
    let nan = l.is_nan(x);
    let bits = l.to_bits(x);
    let quiet_bit = l.iconst(0x0040_0000);
    let bits = l.or(bits, quiet_bit);
    let quiet = l.float_of_bits(bits);
    l.select(nan, quiet, r)
}

/// [`keep_nan`] for a function of two operands: the first NaN operand wins.
fn keep_nan2<L: Lanes>(l: &mut L, first: L::F, second: L::F, r: L::F) -> L::F {
    let r = keep_nan(l, second, r);
    keep_nan(l, first, r)
}

/// `x < lo ? lo : x > hi ? hi : x` (NaN stays).
fn clamp<L: Lanes>(l: &mut L, x: L::F, lo: f32, hi: f32) -> L::F {
    let (lo, hi) = (l.fconst(lo), l.fconst(hi));
    let below = l.lt(x, lo);
    let x = l.select(below, lo, x);
    let above = l.lt(hi, x);
    l.select(above, hi, x)
}

/// 2ⁿ·p for integral `n` in [−151, 129] (as two normal powers of two, so that a subnormal
/// result rounds once).
fn scale<L: Lanes>(l: &mut L, p: L::F, n: L::F) -> L::F {
    let n = l.to_int(n);
    let half = l.sar(n, 1);
    let rest = l.isub(n, half);
    let bias = l.iconst(127);
    let mut r = p;
    for part in [half, rest] {
        let e = l.iadd(part, bias);
        let e = l.shl(e, 23);
        let factor = l.float_of_bits(e);
        r = l.mul(r, factor);
    }
    r
}

/// eʳ for |r| ≤ ln 2 / 2.
fn exp_poly<L: Lanes>(l: &mut L, r: L::F) -> L::F {
    let p = horner(
        l,
        r,
        &[
            1.987_569_1e-4,
            1.398_199_9e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            5e-1,
        ],
    );
    let z = l.mul(r, r);
    let p = l.mul(p, z);
    let p = l.add(p, r);
    let one = l.fconst(1.0);
    l.add(p, one)
}

pub fn exp<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let xc = clamp(l, x, -104.0, 89.0);
    let log2e = l.fconst(LOG2_E);
    let t = l.mul(xc, log2e);
    let n = l.nearest(t);
    let hi = l.fconst(LN2_HI);
    let lo = l.fconst(LN2_LO);
    let nh = l.mul(n, hi);
    let r = l.sub(xc, nh);
    let nl = l.mul(n, lo);
    let r = l.sub(r, nl);
    let p = exp_poly(l, r);
    let y = scale(l, p, n);
    keep_nan(l, x, y)
}

pub fn exp2<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let xc = clamp(l, x, -151.0, 129.0);
    let n = l.nearest(xc);
    let r = l.sub(xc, n);
    let ln2 = l.fconst(LN2);
    let r = l.mul(r, ln2);
    let p = exp_poly(l, r);
    let y = scale(l, p, n);
    keep_nan(l, x, y)
}

/// For positive finite `x`: `(e, f, t)` with x = 2ᵉ·(1 + f), 1 + f in [√½, √2), and
/// `t` ≈ ln(1 + f) − f (Cephes' `logf` polynomial, without its last addition of `f`).
fn log_parts<L: Lanes>(l: &mut L, x: L::F) -> (L::F, L::F, L::F) {
    // Subnormals: scale by 2²³ first.
    let min_normal = l.fconst(f32::MIN_POSITIVE);
    let small = l.lt(x, min_normal);
    let big = l.fconst(8_388_608.0);
    let scaled = l.mul(x, big);
    let x = l.select(small, scaled, x);
    let bits = l.to_bits(x);
    let exponent = l.sar(bits, 23);
    let adjust = l.iconst(-23);
    let small_i = l.and(small, adjust);
    let exponent = l.iadd(exponent, small_i);
    let bias = l.iconst(126);
    let e = l.isub(exponent, bias);
    // The mantissa in [0.5, 1).
    let keep = l.iconst(0x007f_ffff);
    let m = l.and(bits, keep);
    let half = l.iconst(126 << 23);
    let m = l.or(m, half);
    let m = l.float_of_bits(m);
    let e = l.to_float(e);
    let sqrt_half = l.fconst(std::f32::consts::FRAC_1_SQRT_2);
    let low = l.lt(m, sqrt_half);
    let one = l.fconst(1.0);
    let e_low = l.sub(e, one);
    let e = l.select(low, e_low, e);
    let m2 = l.add(m, m);
    let m = l.select(low, m2, m);
    let f = l.sub(m, one);
    let z = l.mul(f, f);
    let p = horner(
        l,
        f,
        &[
            7.037_683_6e-2,
            -1.151_461e-1,
            1.167_699_9e-1,
            -1.242_014_1e-1,
            1.424_932_3e-1,
            -1.666_805_8e-1,
            2.000_071_4e-1,
            -2.499_999_4e-1,
            3.333_333e-1,
        ],
    );
    let p = l.mul(p, f);
    let p = l.mul(p, z);
    let minus_half = l.fconst(-0.5);
    let hz = l.mul(z, minus_half);
    let t = l.add(p, hz);
    (e, f, t)
}

/// `r` for positive finite `x`; −∞ at ±0, +∞ at +∞, NaN below 0, the operand when NaN.
fn log_special<L: Lanes>(l: &mut L, x: L::F, r: L::F) -> L::F {
    let inf = l.fconst(f32::INFINITY);
    let is_inf = l.eq(x, inf);
    let r = l.select(is_inf, inf, r);
    let zero = l.fconst(0.0);
    let is_zero = l.eq(x, zero);
    let minus_inf = l.fconst(f32::NEG_INFINITY);
    let r = l.select(is_zero, minus_inf, r);
    let negative = l.lt(x, zero);
    let nan = l.fconst(f32::NAN);
    let r = l.select(negative, nan, r);
    keep_nan(l, x, r)
}

pub fn log<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let (e, f, t) = log_parts(l, x);
    let lo = l.fconst(LN2_LO);
    let elo = l.mul(e, lo);
    let t = l.add(t, elo);
    let r = l.add(f, t);
    let hi = l.fconst(LN2_HI);
    let ehi = l.mul(e, hi);
    let r = l.add(r, ehi);
    log_special(l, x, r)
}

pub fn log2<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let (e, f, t) = log_parts(l, x);
    let ln = l.add(f, t);
    let log2e = l.fconst(LOG2_E);
    let r = l.mul(ln, log2e);
    let r = l.add(r, e);
    log_special(l, x, r)
}

/// `pow(x, y)` = exp2(y · log2(x)), as the spec defines its precision.
pub fn pow<L: Lanes>(l: &mut L, x: L::F, y: L::F) -> L::F {
    let lx = log2(l, x);
    let t = l.mul(y, lx);
    let r = exp2(l, t);
    keep_nan2(l, x, y, r)
}

/// ln(1 + u) for u ≥ −1 (finite), accurate for small u: log(w)·u/(w − 1) with w = 1 + u.
fn log1p<L: Lanes>(l: &mut L, u: L::F) -> L::F {
    let one = l.fconst(1.0);
    let w = l.add(one, u);
    let d = l.sub(w, one);
    let lw = log(l, w);
    let q = l.div(u, d);
    let r = l.mul(lw, q);
    let zero = l.fconst(0.0);
    let exact = l.eq(d, zero);
    let r = l.select(exact, u, r);
    let inf = l.fconst(f32::INFINITY);
    let is_inf = l.eq(w, inf);
    l.select(is_inf, inf, r)
}

/// sin(r) and cos(r) for |r| ≤ π/4.
fn sin_cos_poly<L: Lanes>(l: &mut L, r: L::F) -> (L::F, L::F) {
    let z = l.mul(r, r);
    let s = horner(l, z, &[-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1]);
    let s = l.mul(s, z);
    let s = l.mul(s, r);
    let s = l.add(s, r);
    let c = horner(l, z, &[2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2]);
    let c = l.mul(c, z);
    let c = l.mul(c, z);
    let minus_half = l.fconst(-0.5);
    let hz = l.mul(z, minus_half);
    let c = l.add(c, hz);
    let one = l.fconst(1.0);
    let c = l.add(c, one);
    (s, c)
}

/// `x` reduced by the nearest multiple q of π/2 (three-part constant): `(q as int, r)`.
fn quadrant<L: Lanes>(l: &mut L, x: L::F) -> (L::I, L::F) {
    let two_over_pi = l.fconst(std::f32::consts::FRAC_2_PI);
    let t = l.mul(x, two_over_pi);
    let q = l.nearest(t);
    let mut r = x;
    for part in [1.570_312_5, 4.837_513e-4, 7.549_79e-8] {
        let c = l.fconst(part);
        let qc = l.mul(q, c);
        r = l.sub(r, qc);
    }
    (l.to_int(q), r)
}

/// sin(x) (`shift` 0) or cos(x) = sin(x + π/2) (`shift` 1).
fn sin_cos<L: Lanes>(l: &mut L, x: L::F, shift: i32) -> L::F {
    let (q, r) = quadrant(l, x);
    let (s, c) = sin_cos_poly(l, r);
    let shift = l.iconst(shift);
    let q = l.iadd(q, shift);
    let one = l.iconst(1);
    let odd = l.and(q, one);
    let zero = l.iconst(0);
    let odd = l.isub(zero, odd);
    let v = l.select(odd, c, s);
    let two = l.iconst(2);
    let flip = l.and(q, two);
    let flip = l.shl(flip, 30);
    let bits = l.to_bits(v);
    let bits = l.xor(bits, flip);
    let v = l.float_of_bits(bits);
    keep_nan(l, x, v)
}

/// tan(x) = sin(x)/cos(x), on the same reduction (period π).
pub fn tan<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let (q, r) = quadrant(l, x);
    let (s, c) = sin_cos_poly(l, r);
    let one = l.iconst(1);
    let odd = l.and(q, one);
    let zero = l.iconst(0);
    let odd = l.isub(zero, odd);
    let even_quadrant = l.div(s, c);
    let odd_quadrant = l.div(c, s);
    // −c/s by the sign bit (the compiler may turn `−0 − v` into a negation, and the two
    // differ on NaN).
    let bits = l.to_bits(odd_quadrant);
    let sign = l.iconst(SIGN);
    let bits = l.xor(bits, sign);
    let odd_quadrant = l.float_of_bits(bits);
    let v = l.select(odd, odd_quadrant, even_quadrant);
    keep_nan(l, x, v)
}

/// atan(t) for t in [0, 1].
fn atan_unit<L: Lanes>(l: &mut L, t: L::F) -> L::F {
    let tan_pi_8 = l.fconst(0.414_213_57);
    let upper = l.lt(tan_pi_8, t);
    let one = l.fconst(1.0);
    let num = l.sub(t, one);
    let den = l.add(t, one);
    let shifted = l.div(num, den);
    let t = l.select(upper, shifted, t);
    let quarter = l.fconst(FRAC_PI_4);
    let zero = l.fconst(0.0);
    let base = l.select(upper, quarter, zero);
    let z = l.mul(t, t);
    let p = horner(
        l,
        z,
        &[
            8.053_744_5e-2,
            -1.387_768_5e-1,
            1.997_771_1e-1,
            -3.333_295e-1,
        ],
    );
    let p = l.mul(p, z);
    let p = l.mul(p, t);
    let p = l.add(p, t);
    l.add(p, base)
}

pub fn atan2<L: Lanes>(l: &mut L, y: L::F, x: L::F) -> L::F {
    let a = atan2_numbers(l, y, x);
    keep_nan2(l, y, x, a)
}

/// atan2 without the NaN rule.
fn atan2_numbers<L: Lanes>(l: &mut L, y: L::F, x: L::F) -> L::F {
    let (ax, ay) = (abs(l, x), abs(l, y));
    let swap = l.lt(ax, ay);
    let num = l.select(swap, ax, ay);
    let den = l.select(swap, ay, ax);
    let t = l.div(num, den);
    // Equal magnitudes (also both infinite) give exactly 1; both zero give 0.
    let same = l.eq(num, den);
    let one = l.fconst(1.0);
    let t = l.select(same, one, t);
    let zero = l.fconst(0.0);
    let den_zero = l.eq(den, zero);
    let t = l.select(den_zero, zero, t);
    let a = atan_unit(l, t);
    let half_pi = l.fconst(FRAC_PI_2);
    let complement = l.sub(half_pi, a);
    let a = l.select(swap, complement, a);
    let pi = l.fconst(PI);
    let reflected = l.sub(pi, a);
    let left = l.lt(x, zero);
    let a = l.select(left, reflected, a);
    with_sign_of(l, a, y)
}

/// asin(x) = atan2(x, √((1 − x)(1 + x))).
pub fn asin<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let root = one_minus_square_root(l, x);
    let a = atan2_numbers(l, x, root);
    keep_nan(l, x, a)
}

/// acos(x) = atan2(√((1 − x)(1 + x)), x).
pub fn acos<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let root = one_minus_square_root(l, x);
    let a = atan2_numbers(l, root, x);
    keep_nan(l, x, a)
}

fn one_minus_square_root<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let one = l.fconst(1.0);
    let a = l.sub(one, x);
    let b = l.add(one, x);
    let p = l.mul(a, b);
    l.sqrt(p)
}

pub fn sinh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = abs(l, x);
    let z = l.mul(ax, ax);
    let p = horner(l, z, &[2.037_219_2e-4, 8.330_284e-3, 1.666_671_6e-1]);
    let p = l.mul(p, z);
    let p = l.mul(p, ax);
    let small = l.add(p, ax);
    let e = exp(l, ax);
    let half = l.fconst(0.5);
    let he = l.mul(half, e);
    let inv = l.div(half, e);
    let large = l.sub(he, inv);
    let one = l.fconst(1.0);
    let is_large = l.lt(one, ax);
    let r = l.select(is_large, large, small);
    let r = with_sign_of(l, r, x);
    keep_nan(l, x, r)
}

pub fn cosh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = abs(l, x);
    let e = exp(l, ax);
    let half = l.fconst(0.5);
    let he = l.mul(half, e);
    let inv = l.div(half, e);
    let r = l.add(he, inv);
    keep_nan(l, x, r)
}

pub fn tanh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = abs(l, x);
    let z = l.mul(ax, ax);
    let p = horner(
        l,
        z,
        &[
            -5.704_988_7e-3,
            2.063_909e-2,
            -5.373_971_6e-2,
            1.333_144_2e-1,
            -3.333_328e-1,
        ],
    );
    let p = l.mul(p, z);
    let p = l.mul(p, ax);
    let small = l.add(p, ax);
    let two_ax = l.add(ax, ax);
    let e = exp(l, two_ax);
    let one = l.fconst(1.0);
    let two = l.fconst(2.0);
    let e1 = l.add(e, one);
    let q = l.div(two, e1);
    let large = l.sub(one, q);
    let limit = l.fconst(0.625);
    let is_large = l.lt(limit, ax);
    let r = l.select(is_large, large, small);
    let r = with_sign_of(l, r, x);
    keep_nan(l, x, r)
}

/// asinh(|x|) = log1p(|x| + x²/(1 + √(1 + x²))), log(|x|) + ln 2 beyond 2⁴⁰.
pub fn asinh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = abs(l, x);
    let z = l.mul(ax, ax);
    let one = l.fconst(1.0);
    let z1 = l.add(z, one);
    let root = l.sqrt(z1);
    let den = l.add(one, root);
    let q = l.div(z, den);
    let u = l.add(ax, q);
    let near = log1p(l, u);
    let far = log(l, ax);
    let ln2 = l.fconst(LN2);
    let far = l.add(far, ln2);
    let limit = l.fconst(1.099_511_6e12);
    let is_far = l.lt(limit, ax);
    let r = l.select(is_far, far, near);
    let r = with_sign_of(l, r, x);
    keep_nan(l, x, r)
}

/// acosh(x) = log1p((x − 1) + √((x − 1)(x + 1))) for x ≥ 1, log(x) + ln 2 beyond 2⁴⁰; NaN
/// below 1.
pub fn acosh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let one = l.fconst(1.0);
    let a = l.sub(x, one);
    let b = l.add(x, one);
    let p = l.mul(a, b);
    let root = l.sqrt(p);
    let u = l.add(a, root);
    let near = log1p(l, u);
    let far = log(l, x);
    let ln2 = l.fconst(LN2);
    let far = l.add(far, ln2);
    let limit = l.fconst(1.099_511_6e12);
    let is_far = l.lt(limit, x);
    let r = l.select(is_far, far, near);
    keep_nan(l, x, r)
}

/// atanh(x) = ½·log1p(2|x|/(1 − |x|)), with the sign of x.
pub fn atanh<L: Lanes>(l: &mut L, x: L::F) -> L::F {
    let ax = abs(l, x);
    let one = l.fconst(1.0);
    let den = l.sub(one, ax);
    let two = l.add(ax, ax);
    let u = l.div(two, den);
    let r = log1p(l, u);
    let half = l.fconst(0.5);
    let r = l.mul(r, half);
    let r = with_sign_of(l, r, x);
    keep_nan(l, x, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units in the last place between `got` and the f64 reference `want`.
    fn ulps(got: f32, want: f64) -> f64 {
        let w = want as f32;
        if got == w || (got.is_nan() && w.is_nan()) {
            return 0.0;
        }
        let ulp = f64::from(f32::from_bits(w.abs().to_bits() + 1) - w.abs());
        (f64::from(got) - want).abs() / ulp
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = f32> {
        (0..=n).map(move |i| lo + (hi - lo) * (i as f32 / n as f32))
    }

    #[test]
    fn exponentials_within_a_few_ulps() {
        for x in sweep(-87.0, 88.0, 200_000) {
            let e = ulps(apply_f32(Function::Exp, x, 0.0), f64::from(x).exp());
            assert!(e <= 3.0 + 2.0 * f64::from(x.abs()), "exp({x}): {e} ulp");
            assert!(e <= 2.0, "exp({x}): {e} ulp");
            let e = ulps(apply_f32(Function::Exp2, x, 0.0), f64::from(x).exp2());
            assert!(e <= 2.0, "exp2({x}): {e} ulp");
        }
        assert_eq!(apply_f32(Function::Exp, 100.0, 0.0), f32::INFINITY);
        assert_eq!(apply_f32(Function::Exp, -110.0, 0.0), 0.0);
        assert_eq!(apply_f32(Function::Exp2, 3.0, 0.0), 8.0);
        assert_eq!(apply_f32(Function::Exp2, -149.0, 0.0), f32::from_bits(1));
        assert!(apply_f32(Function::Exp, f32::NAN, 0.0).is_nan());
    }

    #[test]
    fn logarithms_within_spec() {
        // Every 4099th f32 from the smallest subnormal to the largest finite value.
        for bits in (1..0x7f80_0000u32).step_by(4099) {
            let x = f32::from_bits(bits);
            for f in [Function::Log, Function::Log2] {
                let want = if f == Function::Log {
                    f64::from(x).ln()
                } else {
                    f64::from(x).log2()
                };
                let got = apply_f32(f, x, 0.0);
                if (0.5..=2.0).contains(&x) {
                    let err = (f64::from(got) - want).abs();
                    assert!(err < 2f64.powi(-21), "{f:?}({x}): {err}");
                } else {
                    let e = ulps(got, want);
                    assert!(e <= 3.0, "{f:?}({x}): {e} ulp");
                }
            }
        }
        assert_eq!(apply_f32(Function::Log2, 4.0, 0.0), 2.0);
        assert_eq!(apply_f32(Function::Log, 0.0, 0.0), f32::NEG_INFINITY);
        assert!(apply_f32(Function::Log, -1.0, 0.0).is_nan());
        assert_eq!(apply_f32(Function::Log, f32::INFINITY, 0.0), f32::INFINITY);
    }

    #[test]
    fn trigonometry_within_spec() {
        for x in sweep(-std::f32::consts::PI, std::f32::consts::PI, 100_000) {
            let xd = f64::from(x);
            let s = f64::from(apply_f32(Function::Sin, x, 0.0));
            let c = f64::from(apply_f32(Function::Cos, x, 0.0));
            assert!((s - xd.sin()).abs() < 2e-7, "sin({x})");
            assert!((c - xd.cos()).abs() < 2e-7, "cos({x})");
            let a = f64::from(apply_f32(Function::Atan, x, 0.0));
            assert!(ulps(a as f32, xd.atan()) <= 3.0, "atan({x})");
            let t = apply_f32(Function::Tan, x / 4.0, 0.0);
            assert!(ulps(t, (xd / 4.0).tan()) <= 4.0, "tan({x})");
        }
        for x in sweep(-1.0, 1.0, 20_000) {
            let xd = f64::from(x);
            let s = f64::from(apply_f32(Function::Asin, x, 0.0));
            let c = f64::from(apply_f32(Function::Acos, x, 0.0));
            assert!((s - xd.asin()).abs() < 4e-7, "asin({x})");
            assert!((c - xd.acos()).abs() < 4e-7, "acos({x})");
        }
        for (y, x) in [
            (1.0, -1.0),
            (-1.0, -1.0),
            (0.0, -2.0),
            (3.0, 0.0),
            (-2.0, 5.0),
        ] {
            let got = apply_f32(Function::Atan2, y, x);
            assert!(
                ulps(got, f64::from(y).atan2(f64::from(x))) <= 3.0,
                "atan2({y}, {x})"
            );
        }
    }

    #[test]
    fn hyperbolic_and_pow_within_a_few_ulps() {
        for x in sweep(-10.0, 10.0, 100_000) {
            let xd = f64::from(x);
            for (f, want, limit) in [
                (Function::Sinh, xd.sinh(), 4.0),
                (Function::Cosh, xd.cosh(), 4.0),
                (Function::Tanh, xd.tanh(), 4.0),
                (Function::Asinh, xd.asinh(), 4.0),
            ] {
                let e = ulps(apply_f32(f, x, 0.0), want);
                assert!(e <= limit, "{f:?}({x}): {e} ulp");
            }
            if x >= 1.0 {
                let e = ulps(apply_f32(Function::Acosh, x, 0.0), xd.acosh());
                assert!(e <= 4.0, "acosh({x}): {e} ulp");
            }
            let u = x / 10.5;
            let e = ulps(apply_f32(Function::Atanh, u, 0.0), f64::from(u).atanh());
            assert!(e <= 4.0, "atanh({u}): {e} ulp");
            let p = apply_f32(Function::Pow, 2.5, x);
            let e = ulps(p, 2.5f64.powf(xd));
            assert!(e <= 16.0, "pow(2.5, {x}): {e} ulp");
        }
        assert_eq!(apply_f32(Function::Pow, 4.0, 3.0), 64.0);
        assert_eq!(apply_f32(Function::Pow, 0.0, 2.0), 0.0);
    }
}
