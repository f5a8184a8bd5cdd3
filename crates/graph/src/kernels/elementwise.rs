//! Elementwise operators: unary, binary (with TOSA's equal-rank broadcasting: each dimension
//! equal or 1), comparisons, SELECT, CLAMP and CAST.

use super::{NAN_IGNORE, NAN_PROPAGATE, bad, broadcast_map, fmax, fmin, int, one_of, zero_point};
use crate::dtype::{DType, Values};
use crate::error::Result;
use crate::exec::Tensor;
use crate::ir::{Node, ValueInfo};
use crate::tosa::TosaOp;

const FLOATS: &[DType] = &[DType::F16, DType::Bf16, DType::F32];
const INTS: &[DType] = &[DType::I8, DType::I16, DType::I32];

/// The result type of an elementwise node.
pub(crate) fn shape(node: &Node, ins: &[&ValueInfo]) -> Result<ValueInfo> {
    use TosaOp::*;
    let a = ins[0];
    // Broadcast shape of every input.
    let mut shape = a.shape.clone();
    for b in &ins[1..] {
        if b.shape.len() != shape.len() {
            return Err(bad(
                node,
                format!(
                    "operands of rank {} and {} (ranks must be equal)",
                    shape.len(),
                    b.shape.len()
                ),
            ));
        }
        for (s, &d) in shape.iter_mut().zip(&b.shape) {
            if *s != d && *s != 1 && d != 1 {
                return Err(bad(
                    node,
                    format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape),
                ));
            }
            *s = (*s).max(d);
        }
    }
    let same = |node: &Node| -> Result<()> {
        for b in &ins[1..] {
            if b.dtype != a.dtype {
                return Err(bad(
                    node,
                    format!(
                        "operands of types {} and {}",
                        a.dtype.name(),
                        b.dtype.name()
                    ),
                ));
            }
        }
        Ok(())
    };
    let with = |dtype| ValueInfo {
        dtype,
        shape: shape.clone(),
    };
    let numeric: Vec<DType> = std::iter::once(DType::I32)
        .chain(FLOATS.iter().copied())
        .collect();
    Ok(match node.op {
        Add | Sub | Maximum | Minimum => {
            same(node)?;
            one_of(node, "operands", a.dtype, &numeric)?;
            with(a.dtype)
        }
        Mul => {
            same(node)?;
            let ints_ok = [DType::I8, DType::I16, DType::I32];
            if a.dtype.is_int() {
                one_of(node, "operands", a.dtype, &ints_ok)?;
                with(DType::I32)
            } else {
                one_of(node, "operands", a.dtype, FLOATS)?;
                with(a.dtype)
            }
        }
        Intdiv => {
            same(node)?;
            one_of(node, "operands", a.dtype, &[DType::I32])?;
            with(a.dtype)
        }
        BitwiseAnd | BitwiseOr | BitwiseXor | LogicalLeftShift | LogicalRightShift
        | ArithmeticRightShift => {
            same(node)?;
            one_of(node, "operands", a.dtype, INTS)?;
            with(a.dtype)
        }
        LogicalAnd | LogicalOr | LogicalXor | LogicalNot => {
            same(node)?;
            one_of(node, "operands", a.dtype, &[DType::Bool])?;
            with(DType::Bool)
        }
        Equal | Greater | GreaterEqual => {
            same(node)?;
            one_of(node, "operands", a.dtype, &numeric)?;
            with(DType::Bool)
        }
        Select => {
            one_of(node, "input1", a.dtype, &[DType::Bool])?;
            if ins[1].dtype != ins[2].dtype {
                return Err(bad(node, "input2 and input3 differ in type"));
            }
            with(ins[1].dtype)
        }
        Abs => {
            one_of(node, "input1", a.dtype, &numeric)?;
            with(a.dtype)
        }
        Negate => {
            let all: Vec<DType> = INTS.iter().chain(FLOATS).copied().collect();
            one_of(node, "input1", a.dtype, &all)?;
            let (izp, ozp) = (
                zero_point(node, "input1_zp")?,
                zero_point(node, "output_zp")?,
            );
            if a.dtype != DType::I8 && (izp != 0 || ozp != 0) {
                return Err(bad(node, "zero points must be 0 unless the type is i8"));
            }
            with(a.dtype)
        }
        BitwiseNot => {
            one_of(node, "input1", a.dtype, INTS)?;
            with(a.dtype)
        }
        Clz => {
            one_of(node, "input1", a.dtype, &[DType::I32])?;
            with(a.dtype)
        }
        Pow => {
            same(node)?;
            one_of(node, "operands", a.dtype, FLOATS)?;
            with(a.dtype)
        }
        Ceil | Floor | Exp | Log | Reciprocal | Rsqrt | Sigmoid | Tanh | Sin | Cos | Erf => {
            one_of(node, "input1", a.dtype, FLOATS)?;
            with(a.dtype)
        }
        Clamp => {
            let all: Vec<DType> = [DType::I8, DType::I16]
                .iter()
                .chain(FLOATS)
                .copied()
                .collect();
            one_of(node, "input", a.dtype, &all)?;
            let (lo, hi) = (node.attr("min_val")?, node.attr("max_val")?);
            if lo.dtype != a.dtype || hi.dtype != a.dtype {
                return Err(bad(node, "min_val and max_val must be of the input's type"));
            }
            let (l, h) = (lo.get_f64(0), hi.get_f64(0));
            if l.is_nan() || h.is_nan() || h < l {
                return Err(bad(node, format!("max_val {h} < min_val {l} (or a NaN)")));
            }
            nan_mode(node)?;
            with(a.dtype)
        }
        Cast => {
            let t = node.out[0].dtype;
            if t == a.dtype && t != DType::Bool {
                // A cast to the same type is not in TOSA's table.
                return Err(bad(node, format!("CAST from {} to itself", t.name())));
            }
            if a.dtype == DType::Bool && !t.is_int() || t == DType::Bool && !a.dtype.is_int() {
                return Err(bad(node, "bool casts only to and from integer types"));
            }
            if a.dtype == DType::I48 || t == DType::I48 {
                return Err(bad(node, "CAST does not take i48"));
            }
            with(t)
        }
        _ => return Err(bad(node, "internal error: not an elementwise operator")),
    })
}

/// The node's `nan_mode`, checked.
fn nan_mode(node: &Node) -> Result<i64> {
    let m = int(node, "nan_mode")?;
    if m != NAN_PROPAGATE && m != NAN_IGNORE {
        return Err(bad(
            node,
            format!("nan_mode {m} is neither PROPAGATE (1) nor IGNORE (2)"),
        ));
    }
    Ok(m)
}

fn out_info(node: &Node) -> &ValueInfo {
    &node.out[0]
}

/// Applies an integer, float or bool function over the broadcast inputs.
fn map2(
    node: &Node,
    a: &Tensor,
    b: &Tensor,
    ints: impl Fn(i64, i64) -> i64,
    floats: impl Fn(f64, f64) -> f64,
) -> Result<Tensor> {
    let out = out_info(node);
    let ma = broadcast_map(&out.shape, &a.shape);
    let mb = broadcast_map(&out.shape, &b.shape);
    let values = match (&a.values, &b.values) {
        (Values::Int(x), Values::Int(y)) => Values::Int(
            ma.iter()
                .zip(&mb)
                .map(|(&i, &j)| out.dtype.wrap_int(ints(x[i], y[j])))
                .collect(),
        ),
        (Values::Float(x), Values::Float(y)) => Values::Float(
            ma.iter()
                .zip(&mb)
                .map(|(&i, &j)| out.dtype.round_float(floats(x[i], y[j])))
                .collect(),
        ),
        _ => return Err(bad(node, "operands of mixed kinds")),
    };
    Tensor::new(out.dtype, out.shape.clone(), values)
}

fn bools2(node: &Node, a: &Tensor, b: &Tensor, f: impl Fn(bool, bool) -> bool) -> Result<Tensor> {
    let out = out_info(node);
    let ma = broadcast_map(&out.shape, &a.shape);
    let mb = broadcast_map(&out.shape, &b.shape);
    let (x, y) = (a.bools(), b.bools());
    let v = ma.iter().zip(&mb).map(|(&i, &j)| f(x[i], y[j])).collect();
    Tensor::new(out.dtype, out.shape.clone(), Values::Bool(v))
}

fn compare(
    node: &Node,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f64, f64) -> bool,
) -> Result<Vec<Tensor>> {
    let out = out_info(node);
    let ma = broadcast_map(&out.shape, &a.shape);
    let mb = broadcast_map(&out.shape, &b.shape);
    // Integers up to 2^53 convert to f64 exactly, so comparing as f64 is exact for i32.
    let v = ma
        .iter()
        .zip(&mb)
        .map(|(&i, &j)| f(a.get_f64(i), b.get_f64(j)))
        .collect();
    Ok(vec![Tensor::new(
        out.dtype,
        out.shape.clone(),
        Values::Bool(v),
    )?])
}

fn map1(
    node: &Node,
    a: &Tensor,
    ints: impl Fn(i64) -> i64,
    floats: impl Fn(f64) -> f64,
) -> Result<Vec<Tensor>> {
    let out = out_info(node);
    let values = match &a.values {
        Values::Int(x) => Values::Int(x.iter().map(|&v| out.dtype.wrap_int(ints(v))).collect()),
        Values::Float(x) => Values::Float(
            x.iter()
                .map(|&v| out.dtype.round_float(floats(v)))
                .collect(),
        ),
        Values::Bool(_) => return Err(bad(node, "a bool operand")),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

pub fn add(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(
        node,
        ins[0],
        ins[1],
        i64::wrapping_add,
        |a, b| a + b,
    )?])
}

pub fn sub(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(
        node,
        ins[0],
        ins[1],
        i64::wrapping_sub,
        |a, b| a - b,
    )?])
}

pub fn mul(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let shift = super::ints(node, "shift")?.first().copied().unwrap_or(0);
    if ins[0].dtype != DType::I32 && shift != 0 || !(0..=63).contains(&shift) {
        return Err(bad(
            node,
            format!("shift {shift} (0 unless the operands are i32; at most 63)"),
        ));
    }
    let ints = move |a: i64, b: i64| {
        let p = a.wrapping_mul(b);
        if shift > 0 {
            let round = 1i64 << (shift - 1);
            p.wrapping_add(round) >> shift
        } else {
            p
        }
    };
    Ok(vec![map2(node, ins[0], ins[1], ints, |a, b| a * b)?])
}

pub fn maximum(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let m = nan_mode(node)?;
    Ok(vec![map2(node, ins[0], ins[1], i64::max, |a, b| {
        fmax(a, b, m)
    })?])
}

pub fn minimum(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let m = nan_mode(node)?;
    Ok(vec![map2(node, ins[0], ins[1], i64::min, |a, b| {
        fmin(a, b, m)
    })?])
}

pub fn intdiv(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    // Division by zero is unpredictable in TOSA; Tessera gives 0.
    let div = |a: i64, b: i64| if b == 0 { 0 } else { a.wrapping_div(b) };
    Ok(vec![map2(node, ins[0], ins[1], div, |a, _| a)?])
}

pub fn bitwise_and(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(node, ins[0], ins[1], |a, b| a & b, |a, _| a)?])
}

pub fn bitwise_or(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(node, ins[0], ins[1], |a, b| a | b, |a, _| a)?])
}

pub fn bitwise_xor(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(node, ins[0], ins[1], |a, b| a ^ b, |a, _| a)?])
}

/// Shift amounts outside `0..bits` are unpredictable in TOSA; Tessera gives 0.
pub fn logical_left_shift(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let bits = i64::from(ins[0].dtype.int_bits());
    let f = move |a: i64, b: i64| if (0..bits).contains(&b) { a << b } else { 0 };
    Ok(vec![map2(node, ins[0], ins[1], f, |a, _| a)?])
}

pub fn logical_right_shift(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let bits = i64::from(ins[0].dtype.int_bits());
    let mask = (1u64 << bits) - 1;
    let f = move |a: i64, b: i64| {
        if (0..bits).contains(&b) {
            ((a as u64 & mask) >> b) as i64
        } else {
            0
        }
    };
    Ok(vec![map2(node, ins[0], ins[1], f, |a, _| a)?])
}

pub fn arithmetic_right_shift(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let round = int(node, "round")? != 0;
    let bits = i64::from(ins[0].dtype.int_bits());
    let f = move |a: i64, b: i64| {
        if !(0..bits).contains(&b) {
            return 0;
        }
        let mut r = a >> b;
        if round && b > 0 && (a >> (b - 1)) & 1 != 0 {
            r += 1;
        }
        r
    };
    Ok(vec![map2(node, ins[0], ins[1], f, |a, _| a)?])
}

pub fn logical_and(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![bools2(node, ins[0], ins[1], |a, b| a && b)?])
}

pub fn logical_or(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![bools2(node, ins[0], ins[1], |a, b| a || b)?])
}

pub fn logical_xor(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![bools2(node, ins[0], ins[1], |a, b| a != b)?])
}

pub fn logical_not(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let out = out_info(node);
    let v = ins[0].bools().iter().map(|&b| !b).collect();
    Ok(vec![Tensor::new(
        out.dtype,
        out.shape.clone(),
        Values::Bool(v),
    )?])
}

pub fn equal(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    compare(node, ins[0], ins[1], |a, b| a == b)
}

pub fn greater(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    compare(node, ins[0], ins[1], |a, b| a > b)
}

pub fn greater_equal(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    compare(node, ins[0], ins[1], |a, b| a >= b)
}

pub fn select(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let out = out_info(node);
    let mc = broadcast_map(&out.shape, &ins[0].shape);
    let ma = broadcast_map(&out.shape, &ins[1].shape);
    let mb = broadcast_map(&out.shape, &ins[2].shape);
    let c = ins[0].bools();
    fn pick<T: Copy>(c: &[bool], maps: [&[usize]; 3], x: &[T], y: &[T]) -> Vec<T> {
        let [mc, ma, mb] = maps;
        (0..mc.len())
            .map(|k| if c[mc[k]] { x[ma[k]] } else { y[mb[k]] })
            .collect()
    }
    let maps = [&mc[..], &ma[..], &mb[..]];
    let values = match (&ins[1].values, &ins[2].values) {
        (Values::Int(x), Values::Int(y)) => Values::Int(pick(c, maps, x, y)),
        (Values::Float(x), Values::Float(y)) => Values::Float(pick(c, maps, x, y)),
        (Values::Bool(x), Values::Bool(y)) => Values::Bool(pick(c, maps, x, y)),
        _ => return Err(bad(node, "input2 and input3 of mixed kinds")),
    };
    Ok(vec![Tensor::new(out.dtype, out.shape.clone(), values)?])
}

pub fn abs(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], i64::wrapping_abs, f64::abs)
}

pub fn bitwise_not(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| !a, |a| a)
}

pub fn ceil(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::ceil)
}

pub fn floor(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::floor)
}

pub fn clz(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(
        node,
        ins[0],
        |a| i64::from((a as u32).leading_zeros()),
        |a| a,
    )
}

pub fn exp(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::exp)
}

pub fn log(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::ln)
}

pub fn reciprocal(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, |a| 1.0 / a)
}

pub fn rsqrt(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, |a| 1.0 / a.sqrt())
}

/// A negative base, or a zero base with a non-positive exponent, is unpredictable in TOSA;
/// Tessera gives what `f64::powf` gives.
pub fn pow(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    Ok(vec![map2(node, ins[0], ins[1], |a, _| a, f64::powf)?])
}

pub fn sin(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::sin)
}

pub fn cos(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::cos)
}

/// The error function to about 1e-15 relative: `2/√π · e^(−x²) · Σ 2^n x^(2n+1) / (2n+1)!!`
/// (all terms positive, so nothing cancels), and ±1 beyond |x| = 6 (erf(6) = 1 − 2e−17).
pub(crate) fn erf_f64(x: f64) -> f64 {
    let a = x.abs();
    if x.is_nan() || a == 0.0 {
        return x;
    }
    if a >= 6.0 {
        return 1f64.copysign(x);
    }
    let (two_a2, mut term, mut sum) = (2.0 * a * a, a, a);
    for n in 1..400 {
        term *= two_a2 / f64::from(2 * n + 1);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    (std::f64::consts::FRAC_2_SQRT_PI * (-a * a).exp() * sum)
        .min(1.0)
        .copysign(x)
}

pub fn erf(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, erf_f64)
}

pub fn sigmoid(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, |a| 1.0 / (1.0 + (-a).exp()))
}

pub fn tanh(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    map1(node, ins[0], |a| a, f64::tanh)
}

pub fn negate(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let izp = zero_point(node, "input1_zp")?;
    let ozp = zero_point(node, "output_zp")?;
    let t = ins[0].dtype;
    // acc = -(x - izp) + ozp, clipped to the type (TOSA's apply_clip_s).
    map1(node, ins[0], move |a| t.clip_int(-(a - izp) + ozp), |a| -a)
}

pub fn clamp(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let m = nan_mode(node)?;
    let (lo, hi) = (node.attr("min_val")?, node.attr("max_val")?);
    let (li, hi_i) = (lo.scalar_i64().unwrap_or(0), hi.scalar_i64().unwrap_or(0));
    let (lf, hf) = (lo.get_f64(0), hi.get_f64(0));
    map1(
        node,
        ins[0],
        move |a| a.clamp(li, hi_i),
        move |a| fmin(fmax(a, lf, m), hf, m),
    )
}

pub fn cast(node: &Node, ins: &[&Tensor]) -> Result<Vec<Tensor>> {
    let out = out_info(node);
    let a = ins[0];
    let t = out.dtype;
    let values = match (&a.values, t) {
        (Values::Bool(x), _) => Values::Int(x.iter().map(|&b| i64::from(b)).collect()),
        (Values::Int(x), DType::Bool) => Values::Bool(x.iter().map(|&v| v != 0).collect()),
        // int → int: sign-extend or truncate.
        (Values::Int(x), _) if t.is_int() => {
            Values::Int(x.iter().map(|&v| t.wrap_int(v)).collect())
        }
        (Values::Int(x), _) => Values::Float(x.iter().map(|&v| t.round_float(v as f64)).collect()),
        // float → int: round to nearest even, saturate (NaN is unpredictable: 0).
        (Values::Float(x), _) if t.is_int() => Values::Int(
            x.iter()
                .map(|&v| {
                    if v.is_nan() {
                        0
                    } else {
                        let (lo, hi) = t.int_range();
                        v.round_ties_even().clamp(lo as f64, hi as f64) as i64
                    }
                })
                .collect(),
        ),
        (Values::Float(x), _) => Values::Float(x.iter().map(|&v| t.round_float(v)).collect()),
    };
    Ok(vec![Tensor::new(t, out.shape.clone(), values)?])
}

#[cfg(test)]
mod tests {
    #[test]
    fn erf_matches_known_values() {
        // erf(0.5), erf(1), erf(2), erf(3) to 16 digits.
        let cases = [
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
        ];
        for (x, want) in cases {
            let got = super::erf_f64(x);
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want,
                "erf({x}) = {got}"
            );
            assert_eq!(super::erf_f64(-x), -got);
        }
        assert_eq!(super::erf_f64(7.0), 1.0);
        assert!(super::erf_f64(f64::NAN).is_nan());
    }
}
