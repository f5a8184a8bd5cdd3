//! Scalar arithmetic on register values, shared by the interpreter's lane loops and by
//! specialization-constant folding (so a folded `OpSpecConstantOp` and the same op executed at run
//! time can never disagree).
//!
//! Invariants: every value is a `u64` holding the raw bits of a scalar of width `w` bits
//! (1 for bool, 8/16/32/64 for integers, 16/32/64 for floats) **zero-extended**: bits above `w` are
//! always zero. Every function here is total: division by zero, `MIN / -1`, over-wide shifts and
//! float→int conversion of NaN/out-of-range values all have defined results and never panic.
//!
//! Conversions (`Conv`, [`conv`]) are in `convert`, integer dot products ([`idot`]) in `dot`.

use half::f16;

use crate::math::{self, Function};

/// Keeps the low `w` bits of `v` (`w` = 1, 8, 16, 32 or 64).
#[inline(always)]
pub fn trunc(v: u64, w: u8) -> u64 {
    if w >= 64 { v } else { v & ((1u64 << w) - 1) }
}

/// Sign-extends the low `w` bits of `v`.
#[inline(always)]
pub fn sext(v: u64, w: u8) -> i64 {
    if w >= 64 || w == 0 {
        v as i64
    } else {
        let s = 64 - u32::from(w);
        ((v << s) as i64) >> s
    }
}

/// Integer binary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IBin {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    UMod,
    SRem,
    SMod,
    Shl,
    ShrL,
    ShrA,
    And,
    Or,
    Xor,
    UMin,
    SMin,
    UMax,
    SMax,
    /// High half of an unsigned widening multiply (OpUMulExtended's second member).
    UMulHi,
    SMulHi,
    /// Carry of an add (OpIAddCarry's second member) / borrow of a sub.
    AddCarry,
    SubBorrow,
}

#[inline(always)]
pub fn ibin(op: IBin, w: u8, a: u64, b: u64) -> u64 {
    let bits = u32::from(w.max(1));
    let r = match op {
        IBin::Add => a.wrapping_add(b),
        IBin::Sub => a.wrapping_sub(b),
        IBin::Mul => a.wrapping_mul(b),
        IBin::UDiv => a.checked_div(b).unwrap_or(0),
        IBin::SDiv => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 { 0 } else { x.wrapping_div(y) as u64 }
        }
        IBin::UMod => a.checked_rem(b).unwrap_or(0),
        IBin::SRem => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 { 0 } else { x.wrapping_rem(y) as u64 }
        }
        IBin::SMod => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 {
                0
            } else {
                let r = x.wrapping_rem(y);
                if r != 0 && ((r < 0) != (y < 0)) {
                    r.wrapping_add(y) as u64
                } else {
                    r as u64
                }
            }
        }
        IBin::Shl => {
            if b >= u64::from(bits) {
                0
            } else {
                a << b
            }
        }
        IBin::ShrL => {
            if b >= u64::from(bits) {
                0
            } else {
                a >> b
            }
        }
        IBin::ShrA => {
            let x = sext(a, w);
            let s = if b >= u64::from(bits) { 63 } else { b as u32 };
            (x >> s) as u64
        }
        IBin::And => a & b,
        IBin::Or => a | b,
        IBin::Xor => a ^ b,
        IBin::UMin => a.min(b),
        IBin::UMax => a.max(b),
        IBin::SMin => sext(a, w).min(sext(b, w)) as u64,
        IBin::SMax => sext(a, w).max(sext(b, w)) as u64,
        IBin::UMulHi => {
            let p = u128::from(a) * u128::from(b);
            (p >> bits) as u64
        }
        IBin::SMulHi => {
            let p = i128::from(sext(a, w)) * i128::from(sext(b, w));
            (p >> bits) as u64
        }
        IBin::AddCarry => {
            let s = u128::from(a) + u128::from(b);
            ((s >> bits) & 1) as u64
        }
        IBin::SubBorrow => u64::from(a < b),
    };
    trunc(r, w)
}

/// Integer unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IUn {
    Neg,
    Not,
    SAbs,
    SSign,
    BitCount,
    BitReverse,
    FindILsb,
    FindUMsb,
    FindSMsb,
}

#[inline(always)]
pub fn iun(op: IUn, w: u8, a: u64) -> u64 {
    let r = match op {
        IUn::Neg => a.wrapping_neg(),
        IUn::Not => !a,
        IUn::SAbs => sext(a, w).wrapping_abs() as u64,
        IUn::SSign => sext(a, w).signum() as u64,
        IUn::BitCount => u64::from(a.count_ones()),
        IUn::BitReverse => a.reverse_bits() >> (64 - u32::from(w.max(1))),
        IUn::FindILsb => {
            if a == 0 {
                u64::MAX
            } else {
                u64::from(a.trailing_zeros())
            }
        }
        IUn::FindUMsb => {
            if a == 0 {
                u64::MAX
            } else {
                u64::from(63 - a.leading_zeros())
            }
        }
        IUn::FindSMsb => {
            let x = sext(a, w);
            let y = if x < 0 { !x } else { x } as u64;
            if y == 0 {
                u64::MAX
            } else {
                u64::from(63 - y.leading_zeros())
            }
        }
    };
    trunc(r, w)
}

/// Integer comparisons (result is a bool: 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ICmp {
    Eq,
    Ne,
    ULt,
    ULe,
    UGt,
    UGe,
    SLt,
    SLe,
    SGt,
    SGe,
}

#[inline(always)]
pub fn icmp(op: ICmp, w: u8, a: u64, b: u64) -> u64 {
    let r = match op {
        ICmp::Eq => a == b,
        ICmp::Ne => a != b,
        ICmp::ULt => a < b,
        ICmp::ULe => a <= b,
        ICmp::UGt => a > b,
        ICmp::UGe => a >= b,
        ICmp::SLt => sext(a, w) < sext(b, w),
        ICmp::SLe => sext(a, w) <= sext(b, w),
        ICmp::SGt => sext(a, w) > sext(b, w),
        ICmp::SGe => sext(a, w) >= sext(b, w),
    };
    u64::from(r)
}

/// Float "width" code for bfloat16 (16 bits in memory).
pub const W_BF16: u8 = 0x90;
/// Float "width" code for float8 E4M3 (8 bits in memory).
pub const W_E4M3: u8 = 0x88;
/// Float "width" code for float8 E5M2 (8 bits in memory).
pub const W_E5M2: u8 = 0x89;

/// Storage bytes of a value of width code `w` (1 for bools and 8-bit values, including the
/// float8 codes; 2 for 16-bit ints, f16 and bf16; 4; 8).
pub fn width_bytes(w: u8) -> usize {
    match w {
        W_BF16 => 2,
        W_E4M3 | W_E5M2 => 1,
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    }
}

/// The name of float width code `w` in the IR's text form.
pub(crate) fn float_name(w: u8) -> &'static str {
    match w {
        16 => "f16",
        32 => "f32",
        64 => "f64",
        W_BF16 => "bf16",
        W_E4M3 => "e4m3",
        W_E5M2 => "e5m2",
        _ => "f?",
    }
}

/// Reads a float register of width code `w` as f64 (exact for every supported encoding).
#[inline(always)]
pub fn f_get(w: u8, a: u64) -> f64 {
    match w {
        16 => f64::from(f16::from_bits(a as u16).to_f32()),
        32 => f64::from(f32::from_bits(a as u32)),
        W_BF16 => f64::from(half::bf16::from_bits(a as u16).to_f32()),
        W_E4M3 => fp8_decode(a as u8, false),
        W_E5M2 => fp8_decode(a as u8, true),
        _ => f64::from_bits(a),
    }
}

/// Rounds an f64 (to nearest, ties to even) to a float register of width code `w`.
#[inline(always)]
pub fn f_put(w: u8, v: f64) -> u64 {
    match w {
        // Rounded once (`tessera_coop::float`): through f32 first would round twice.
        16 => u64::from(tessera_coop::float::f16_bits(v)),
        32 => u64::from((v as f32).to_bits()),
        W_BF16 => u64::from(tessera_coop::float::bf16_bits(v)),
        W_E4M3 => u64::from(fp8_encode(v, false)),
        W_E5M2 => u64::from(fp8_encode(v, true)),
        _ => v.to_bits(),
    }
}

/// A narrowing float conversion with a directed rounding (the `FPRoundingMode` decoration):
/// `dir` is 1 = toward zero, 2 = toward +∞, 3 = toward −∞ (0, to nearest even, is `f_put`).
/// The nearest result is stepped by one unit in the last place when it lies on the wrong side.
pub(crate) fn f_put_directed(w: u8, v: f64, dir: u8) -> u64 {
    let bits = f_put(w, v);
    let r = f_get(w, bits);
    if v.is_nan() || r == v {
        return bits;
    }
    let sign_bit: u64 = match w {
        16 | W_BF16 => 0x8000,
        32 => 0x8000_0000,
        W_E4M3 | W_E5M2 => 0x80,
        _ => 1 << 63,
    };
    let (neg, mag) = (bits & sign_bit != 0, bits & (sign_bit - 1));
    // One step of the magnitude up or down (the bit patterns of a sign are ordered).
    let smaller = |b: u64| if mag == 0 { b } else { b - 1 };
    let toward_pos = || {
        if !neg {
            bits + 1
        } else if mag == 0 {
            1
        } else {
            bits - 1
        }
    };
    let toward_neg = || {
        if neg {
            bits + 1
        } else if mag == 0 {
            sign_bit | 1
        } else {
            bits - 1
        }
    };
    match dir {
        1 if r.abs() > v.abs() => smaller(bits),
        2 if r < v => toward_pos(),
        3 if r > v => toward_neg(),
        _ => bits,
    }
}

pub(crate) use tessera_coop::float::{fp8_decode, fp8_encode};

/// Float binary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FBin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Mod,
    Min,
    Max,
    Pow,
    Atan2,
    Step,
}

/// The NaN an arithmetic op with result `r` gives: the first NaN operand, quieted, else `r`
/// (x86's SSE rule, which the JIT's vector code follows; written out so that the compiler's
/// freedom to commute operands cannot change which payload the interpreter returns).
#[inline(always)]
fn nan_rule32(x: f32, y: f32, r: f32) -> f32 {
    if !r.is_nan() {
        r
    } else if x.is_nan() {
        f32::from_bits(x.to_bits() | 0x0040_0000)
    } else if y.is_nan() {
        f32::from_bits(y.to_bits() | 0x0040_0000)
    } else {
        r
    }
}

#[inline(always)]
fn nan_rule64(x: f64, y: f64, r: f64) -> f64 {
    if !r.is_nan() {
        r
    } else if x.is_nan() {
        f64::from_bits(x.to_bits() | 0x0008_0000_0000_0000)
    } else if y.is_nan() {
        f64::from_bits(y.to_bits() | 0x0008_0000_0000_0000)
    } else {
        r
    }
}

#[inline(always)]
fn fbin32(op: FBin, x: f32, y: f32) -> f32 {
    match op {
        FBin::Add => nan_rule32(x, y, x + y),
        FBin::Sub => nan_rule32(x, y, x - y),
        FBin::Mul => nan_rule32(x, y, x * y),
        FBin::Div => nan_rule32(x, y, x / y),
        FBin::Rem => x % y,
        FBin::Mod => x - y * (x / y).floor(),
        // Defined exactly (GLSL leaves NaN operands and the sign of a zero result open): the
        // second operand when it is the smaller (larger) one or the first is NaN.
        FBin::Min => {
            if y < x || x.is_nan() {
                y
            } else {
                x
            }
        }
        FBin::Max => {
            if y > x || x.is_nan() {
                y
            } else {
                x
            }
        }
        FBin::Pow => math::apply_f32(Function::Pow, x, y),
        FBin::Atan2 => math::apply_f32(Function::Atan2, x, y),
        FBin::Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
    }
}

#[inline(always)]
fn fbin64(op: FBin, x: f64, y: f64) -> f64 {
    match op {
        FBin::Add => nan_rule64(x, y, x + y),
        FBin::Sub => nan_rule64(x, y, x - y),
        FBin::Mul => nan_rule64(x, y, x * y),
        FBin::Div => nan_rule64(x, y, x / y),
        FBin::Rem => x % y,
        FBin::Mod => x - y * (x / y).floor(),
        // Defined exactly (GLSL leaves NaN operands and the sign of a zero result open): the
        // second operand when it is the smaller (larger) one or the first is NaN.
        FBin::Min => {
            if y < x || x.is_nan() {
                y
            } else {
                x
            }
        }
        FBin::Max => {
            if y > x || x.is_nan() {
                y
            } else {
                x
            }
        }
        FBin::Pow => x.powf(y),
        FBin::Atan2 => x.atan2(y),
        FBin::Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
    }
}

#[inline(always)]
pub fn fbin(op: FBin, w: u8, a: u64, b: u64) -> u64 {
    match w {
        32 => u64::from(fbin32(op, f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits()),
        64 => fbin64(op, f64::from_bits(a), f64::from_bits(b)).to_bits(),
        _ => {
            let r = fbin32(op, f_get(w, a) as f32, f_get(w, b) as f32);
            f_put(w, f64::from(r))
        }
    }
}

/// Float unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FUn {
    Neg,
    Abs,
    Sign,
    Floor,
    Ceil,
    Trunc,
    Round,
    RoundEven,
    Fract,
    Sqrt,
    InvSqrt,
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
    Radians,
    Degrees,
}

#[inline(always)]
fn fun64(op: FUn, x: f64) -> f64 {
    match op {
        FUn::Neg => -x,
        FUn::Abs => x.abs(),
        FUn::Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        FUn::Floor => x.floor(),
        FUn::Ceil => x.ceil(),
        FUn::Trunc => x.trunc(),
        FUn::Round => x.round(),
        FUn::RoundEven => x.round_ties_even(),
        FUn::Fract => x - x.floor(),
        FUn::Sqrt => x.sqrt(),
        FUn::InvSqrt => 1.0 / x.sqrt(),
        FUn::Exp => x.exp(),
        FUn::Exp2 => x.exp2(),
        FUn::Log => x.ln(),
        FUn::Log2 => x.log2(),
        FUn::Sin => x.sin(),
        FUn::Cos => x.cos(),
        FUn::Tan => x.tan(),
        FUn::Asin => x.asin(),
        FUn::Acos => x.acos(),
        FUn::Atan => x.atan(),
        FUn::Sinh => x.sinh(),
        FUn::Cosh => x.cosh(),
        FUn::Tanh => x.tanh(),
        FUn::Asinh => x.asinh(),
        FUn::Acosh => x.acosh(),
        FUn::Atanh => x.atanh(),
        FUn::Radians => x.to_radians(),
        FUn::Degrees => x.to_degrees(),
    }
}

/// π/180 and 180/π in f32, what `Radians` and `Degrees` multiply by.
pub const RADIANS_PER_DEGREE: f32 = std::f32::consts::PI / 180.0;
pub const DEGREES_PER_RADIAN: f32 = 180.0 / std::f32::consts::PI;

/// The [`math`] function a unary op is, if it is one.
pub fn function_of(op: FUn) -> Option<Function> {
    Some(match op {
        FUn::Exp => Function::Exp,
        FUn::Exp2 => Function::Exp2,
        FUn::Log => Function::Log,
        FUn::Log2 => Function::Log2,
        FUn::Sin => Function::Sin,
        FUn::Cos => Function::Cos,
        FUn::Tan => Function::Tan,
        FUn::Asin => Function::Asin,
        FUn::Acos => Function::Acos,
        FUn::Atan => Function::Atan,
        FUn::Sinh => Function::Sinh,
        FUn::Cosh => Function::Cosh,
        FUn::Tanh => Function::Tanh,
        FUn::Asinh => Function::Asinh,
        FUn::Acosh => Function::Acosh,
        FUn::Atanh => Function::Atanh,
        _ => return None,
    })
}

/// The unary ops binary16 and binary32 compute in f32 (binary16 rounding the result once),
/// as the JIT does: the [`math`] functions and the short formulas of `InverseSqrt`, `Fract`,
/// `FSign`, `Round`, `Radians` and `Degrees`.
#[inline(always)]
fn fun_f32(op: FUn, x: f32) -> Option<f32> {
    Some(match op {
        FUn::InvSqrt => 1.0 / x.sqrt(),
        FUn::Fract => x - x.floor(),
        FUn::Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        FUn::Round => x.round(),
        FUn::Radians => x * RADIANS_PER_DEGREE,
        FUn::Degrees => x * DEGREES_PER_RADIAN,
        _ => math::apply_f32(function_of(op)?, x, 0.0),
    })
}

#[inline(always)]
pub fn fun(op: FUn, w: u8, a: u64) -> u64 {
    // A NaN operand comes out quieted from every op but the sign-bit ones `Neg` and `Abs`
    // (the vector roundings quiet it; a library `floor` may not; `Sign`'s f32 path below
    // quiets it in its f64 round trip, or not where the optimiser folds the round trip away).
    if !matches!(op, FUn::Neg | FUn::Abs) {
        let quiet = match w {
            16 if a & 0x7c00 == 0x7c00 && a & 0x03ff != 0 => Some(a | 0x0200),
            32 if f32::from_bits(a as u32).is_nan() => Some(a | 0x0040_0000),
            64 if f64::from_bits(a).is_nan() => Some(a | 0x0008_0000_0000_0000),
            _ => None,
        };
        if let Some(q) = quiet {
            return q;
        }
    }
    if matches!(w, 16 | 32)
        && let Some(r) = fun_f32(op, f_get(w, a) as f32)
    {
        return f_put(w, f64::from(r));
    }
    match (op, w) {
        (FUn::Neg, 16) => a ^ 0x8000,
        (FUn::Neg, 32) => a ^ 0x8000_0000,
        (FUn::Neg, 64) => a ^ (1 << 63),
        (FUn::Abs, 16) => a & 0x7fff,
        (FUn::Abs, 32) => a & 0x7fff_ffff,
        (FUn::Abs, 64) => a & !(1 << 63),
        (FUn::Sqrt, 32) => u64::from(f32::from_bits(a as u32).sqrt().to_bits()),
        (FUn::Floor, 32) => u64::from(f32::from_bits(a as u32).floor().to_bits()),
        _ => f_put(w, fun64(op, f_get(w, a))),
    }
}

/// Float comparisons (result is a bool). `O*` are ordered (false on NaN), `U*` unordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FCmp {
    OEq,
    ONe,
    OLt,
    OLe,
    OGt,
    OGe,
    UEq,
    UNe,
    ULt,
    ULe,
    UGt,
    UGe,
    IsNan,
    IsInf,
}

#[inline(always)]
pub fn fcmp(op: FCmp, w: u8, a: u64, b: u64) -> u64 {
    let (x, y) = (f_get(w, a), f_get(w, b));
    let un = x.is_nan() || y.is_nan();
    let r = match op {
        FCmp::OEq => x == y,
        FCmp::ONe => !un && x != y,
        FCmp::OLt => x < y,
        FCmp::OLe => x <= y,
        FCmp::OGt => x > y,
        FCmp::OGe => x >= y,
        FCmp::UEq => un || x == y,
        FCmp::UNe => x != y,
        FCmp::ULt => un || x < y,
        FCmp::ULe => un || x <= y,
        FCmp::UGt => un || x > y,
        FCmp::UGe => un || x >= y,
        FCmp::IsNan => x.is_nan(),
        FCmp::IsInf => x.is_infinite(),
    };
    u64::from(r)
}

/// Three-operand operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tern {
    Fma,
    FClamp,
    FMix,
    SmoothStep,
    UClamp,
    SClamp,
    NClamp,
}

#[inline(always)]
pub fn tern(op: Tern, w: u8, a: u64, b: u64, c: u64) -> u64 {
    match op {
        Tern::UClamp => a.max(b).min(c),
        Tern::SClamp => trunc(sext(a, w).max(sext(b, w)).min(sext(c, w)) as u64, w),
        Tern::FMix | Tern::SmoothStep if w != 64 => {
            // In f32 (binary16 rounding once at the end), as the JIT does.
            let (x, y, z) = (f_get(w, a) as f32, f_get(w, b) as f32, f_get(w, c) as f32);
            let r = if op == Tern::FMix {
                // The first NaN operand, quieted (the compiler may commute the products).
                match [x, y, z].into_iter().find(|v| v.is_nan()) {
                    Some(v) => f32::from_bits(v.to_bits() | 0x0040_0000),
                    None => x * (1.0 - z) + y * z,
                }
            } else {
                let t = ((z - x) / (y - x)).clamp(0.0, 1.0);
                t * t * (3.0 - 2.0 * t)
            };
            f_put(w, f64::from(r))
        }
        _ => {
            let (x, y, z) = (f_get(w, a), f_get(w, b), f_get(w, c));
            let r = match op {
                // One fused multiply-add in f32 (binary16 operands widened, as every binary16
                // operation here), in f64 for f64.
                Tern::Fma => {
                    if w == 64 {
                        x.mul_add(y, z)
                    } else {
                        f64::from((x as f32).mul_add(y as f32, z as f32))
                    }
                }
                Tern::FClamp | Tern::NClamp => x.max(y).min(z),
                // The first NaN operand, quieted (the compiler may commute the products).
                Tern::FMix => match [x, y, z].into_iter().find(|v| v.is_nan()) {
                    Some(v) => f64::from_bits(v.to_bits() | 0x0008_0000_0000_0000),
                    None => x * (1.0 - z) + y * z,
                },
                Tern::SmoothStep => {
                    let t = ((z - x) / (y - x)).clamp(0.0, 1.0);
                    t * t * (3.0 - 2.0 * t)
                }
                _ => 0.0,
            };
            f_put(w, r)
        }
    }
}

mod convert;
mod dot;

pub use convert::{Conv, conv};
pub use dot::idot;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_once_into_narrow_floats() {
        // 2^63·(1 + 2^-8) + 1: just above a bfloat16 tie, which `as f64` would round onto.
        let v = 0x8080_0000_0000_0001u64;
        assert_eq!(conv(Conv::UToF, 64, W_BF16, v), 0x5f01);
        assert_eq!(conv(Conv::SToF, 64, W_BF16, v), 0xdeff);
        // The tie itself goes to even; exact values stay.
        assert_eq!(conv(Conv::UToF, 64, W_BF16, 0x8080_0000_0000_0000), 0x5f00);
        assert_eq!(conv(Conv::UToF, 64, W_BF16, 3), 0x4040);
        assert_eq!(
            conv(Conv::SToF, 32, W_BF16, u64::from((-3i32) as u32)),
            0xc040
        );
    }

    #[test]
    fn conversions_round_once_and_in_the_asked_direction() {
        // 1 + 2^-11 + 2^-40 as f64: just above a tie for f16; through f32 it would become the
        // tie and round down to 1.0.
        let v = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        let f16_bits = |b: u64| f16::from_bits(b as u16).to_f64();
        assert_eq!(
            f16_bits(conv(Conv::FToF, 64, 16, v.to_bits())),
            1.0 + 2f64.powi(-10)
        );
        // Directed roundings of 1/3 to f16, and of -1/3.
        let third = 1.0f64 / 3.0;
        let down = f16_bits(conv(Conv::FToFDirected(1), 64, 16, third.to_bits()));
        let up = f16_bits(conv(Conv::FToFDirected(2), 64, 16, third.to_bits()));
        assert!(down < third && third < up, "{down} {up}");
        assert_eq!(
            f16::from_f64(up).to_bits() - f16::from_f64(down).to_bits(),
            1
        );
        let neg = f16_bits(conv(Conv::FToFDirected(3), 64, 16, (-third).to_bits()));
        assert_eq!(neg, -up);
        let rtz = f16_bits(conv(Conv::FToFDirected(1), 64, 16, (-third).to_bits()));
        assert_eq!(rtz, -down);
        // Overflow: RTZ gives the largest finite value, RTE infinity.
        assert_eq!(
            f16_bits(conv(Conv::FToFDirected(1), 64, 16, 1e6f64.to_bits())),
            65504.0
        );
        assert!(f16_bits(conv(Conv::FToF, 64, 16, 1e6f64.to_bits())).is_infinite());
        // Tiny negative toward -inf: the smallest negative subnormal.
        let tiny = f16_bits(conv(Conv::FToFDirected(3), 64, 16, (-1e-30f64).to_bits()));
        assert_eq!(tiny, -(2f64.powi(-24)));
    }

    #[test]
    fn integer_dot_products() {
        let v = |x: &[i64]| x.iter().map(|&v| v as u64).collect::<Vec<_>>();
        let d = |w_in, w_out, sa, sb, ss, a: &[i64], b: &[i64], acc| {
            idot(
                w_in,
                w_out,
                sa,
                sb,
                ss,
                v(a).into_iter(),
                v(b).into_iter(),
                acc,
            )
        };
        // Signed 8-bit components, 32-bit result: -128*-128*4 = 65536.
        assert_eq!(
            d(8, 32, true, true, true, &[-128; 4], &[-128; 4], None),
            65536
        );
        // Unsigned: 255*255*4.
        assert_eq!(
            d(8, 32, false, false, false, &[255; 4], &[255; 4], None),
            260_100
        );
        // Mixed: signed -1 times unsigned 255 = -255 (low 16 bits).
        assert_eq!(d(8, 16, true, false, true, &[-1], &[255], None), 0xff01);
        // Saturation: 8-bit signed result of 127 + 2*64 saturates to 127; -128 + (-100) to -128.
        assert_eq!(d(8, 8, true, true, true, &[2], &[64], Some(127)), 127);
        assert_eq!(d(8, 8, true, true, true, &[-100], &[1], Some(0x80)), 0x80);
        // Unsigned saturation and wrap without accumulator.
        assert_eq!(
            d(16, 16, false, false, false, &[0xffff], &[2], Some(1)),
            0xffff
        );
        assert_eq!(
            d(16, 16, false, false, false, &[0xffff], &[2], None),
            0xfffe
        );
        // 64-bit extremes do not overflow the intermediate.
        let m = i64::MIN;
        assert_eq!(
            d(64, 64, true, true, true, &[m; 4], &[m; 4], Some(0)),
            i64::MAX as u64
        );
    }

    #[test]
    fn saturating_float8_conversion() {
        let f = |v: f32, to| conv(Conv::FToFSat, 32, to, u64::from(v.to_bits()));
        assert_eq!(f(1000.0, W_E4M3), 0x7e); // 448
        assert_eq!(f(f32::NEG_INFINITY, W_E4M3), 0xfe);
        assert_eq!(f(1e6, W_E5M2), 0x7b); // 57344
        assert_eq!(f(f32::INFINITY, W_E5M2), 0x7b);
        assert_eq!(f(1.5, W_E5M2), 0x3e);
        assert!(fp8_decode(f(f32::NAN, W_E4M3) as u8, false).is_nan());
        // Without saturation the same values overflow to NaN (E4M3) and infinity (E5M2).
        assert_eq!(
            conv(Conv::FToF, 32, W_E4M3, u64::from(1000f32.to_bits())),
            0x7f
        );
        assert_eq!(
            conv(Conv::FToF, 32, W_E5M2, u64::from(1e6f32.to_bits())),
            0x7c
        );
    }

    #[test]
    fn float8_round_trips_every_code() {
        for e5m2 in [false, true] {
            for b in 0..=255u8 {
                let v = fp8_decode(b, e5m2);
                if v.is_nan() {
                    assert!(fp8_decode(fp8_encode(v, e5m2), e5m2).is_nan());
                } else {
                    assert_eq!(
                        fp8_encode(v, e5m2),
                        b,
                        "code {b:#04x} e5m2={e5m2} value {v}"
                    );
                }
            }
        }
        assert_eq!(fp8_decode(fp8_encode(448.0, false), false), 448.0);
        assert!(fp8_decode(fp8_encode(1000.0, false), false).is_nan());
        assert_eq!(fp8_decode(fp8_encode(1e6, true), true), f64::INFINITY);
        assert_eq!(fp8_decode(fp8_encode(0.3, false), false), 0.3125);
        assert_eq!(fp8_decode(fp8_encode(1.0625, false), false), 1.0); // tie to even
    }

    #[test]
    fn no_panics_on_edge_cases() {
        for w in [8u8, 16, 32, 64] {
            let min = 1u64 << (w - 1);
            let m1 = trunc(u64::MAX, w);
            for op in [IBin::SDiv, IBin::SRem, IBin::SMod, IBin::UDiv, IBin::UMod] {
                assert_eq!(ibin(op, w, 5, 0), 0);
                let _ = ibin(op, w, min, m1);
            }
            assert_eq!(ibin(IBin::Shl, w, 1, 200), 0);
            assert_eq!(ibin(IBin::ShrA, w, min, 200), m1);
            assert_eq!(ibin(IBin::SDiv, w, min, m1), min);
        }
        assert_eq!(conv(Conv::FToS, 32, 32, u64::from(f32::NAN.to_bits())), 0);
        assert_eq!(conv(Conv::FToU, 32, 8, u64::from(1000f32.to_bits())), 255);
        assert_eq!(
            conv(Conv::FToS, 32, 8, u64::from((-1000f32).to_bits())),
            0x80
        );
        assert_eq!(ibin(IBin::SMod, 32, trunc(-7i64 as u64, 32), 3), 2);
        assert_eq!(
            ibin(IBin::SRem, 32, trunc(-7i64 as u64, 32), 3),
            trunc(-1i64 as u64, 32)
        );
    }
}
