//! The conversion tests: integer resizes, float ↔ integer, every pair of scalar types, and the
//! roundings that go through f32 (`codegen::conv`, `codegen::narrow`, `codegen::odd`).

use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{AddressingModel, Capability, Decoration, FPEncoding, MemoryModel, Word};

use crate::INTS;
use crate::common::{Binding, Case, Verdict, check};
use crate::support::*;

#[test]
fn conv_int_resize() {
    for from in INTS {
        for to in INTS {
            if from == to {
                continue;
            }
            binary("uconvert", int(from), int(from), int(to), |b, r, x, _| {
                b.u_convert(r, None, x).unwrap()
            });
            binary(
                "sconvert",
                sint(from),
                sint(from),
                sint(to),
                |b, r, x, _| b.s_convert(r, None, x).unwrap(),
            );
        }
    }
}

#[test]
fn conv_float_int() {
    for fw in [32, 64] {
        for iw in [32, 64] {
            let (f, i, s) = (flt(fw), int(iw), sint(iw));
            binary("f2u", f, f, i, |b, r, x, _| {
                b.convert_f_to_u(r, None, x).unwrap()
            });
            binary("f2s", f, f, s, |b, r, x, _| {
                b.convert_f_to_s(r, None, x).unwrap()
            });
            binary("u2f", i, i, f, |b, r, x, _| {
                b.convert_u_to_f(r, None, x).unwrap()
            });
            binary("s2f", s, s, f, |b, r, x, _| {
                b.convert_s_to_f(r, None, x).unwrap()
            });
        }
    }
    binary("f2f", flt(32), flt(32), flt(64), |b, r, x, _| {
        b.f_convert(r, None, x).unwrap()
    });
    binary("f2f", flt(64), flt(64), flt(32), |b, r, x, _| {
        b.f_convert(r, None, x).unwrap()
    });
}

#[test]
fn half_conversions_exhaustive() {
    // Every binary16 pattern to f32 and back; then f32 values on, halfway between and one ulp
    // either side of every pair of neighbouring finite binary16 values (ties to even, both
    // signs), and the overflow boundary.
    let halves: Vec<u64> = (0..=0xffffu64).collect();
    binary_of(
        "f16->f32",
        flt(16),
        flt(16),
        flt(32),
        &halves,
        &[0],
        |b, r, x, _| b.f_convert(r, None, x).unwrap(),
    );
    let mut floats = Vec::new();
    for h in 0..0x7bffu16 {
        let (x, y) = (
            half::f16::from_bits(h).to_f32(),
            half::f16::from_bits(h + 1).to_f32(),
        );
        let mid = (x + y) / 2.0;
        for v in [
            x,
            mid,
            f32::from_bits(mid.to_bits() - 1),
            f32::from_bits(mid.to_bits() + 1),
        ] {
            floats.push(u64::from(v.to_bits()));
            floats.push(u64::from((-v).to_bits()));
        }
    }
    floats.extend([65504.0f32, 65519.99, 65520.0, 65536.0, 1e10].map(|v| u64::from(v.to_bits())));
    binary_of(
        "f32->f16",
        flt(32),
        flt(32),
        flt(16),
        &floats,
        &[0],
        |b, r, x, _| b.f_convert(r, None, x).unwrap(),
    );
}

/// Conversions between binary16, bfloat16 and 8-/16-bit integers (what cooperative-matrix
/// shaders convert between): through f32, each exact or rounded once.
#[test]
fn half_and_bfloat_conversions() {
    let halves = [flt(16), bflt()];
    for from in halves {
        for to in halves {
            if from != to {
                binary("f2f", from, from, to, |b, r, x, _| {
                    b.f_convert(r, None, x).unwrap()
                });
            }
        }
        for w in [8, 16, 32] {
            binary("f2u", from, from, int(w), |b, r, x, _| {
                b.convert_f_to_u(r, None, x).unwrap()
            });
            binary("f2s", from, from, sint(w), |b, r, x, _| {
                b.convert_f_to_s(r, None, x).unwrap()
            });
        }
        for w in [8, 16] {
            binary("u2f", int(w), int(w), from, |b, r, x, _| {
                b.convert_u_to_f(r, None, x).unwrap()
            });
            binary("s2f", sint(w), sint(w), from, |b, r, x, _| {
                b.convert_s_to_f(r, None, x).unwrap()
            });
        }
    }
    // Every bfloat16 pattern to binary16, every binary16 pattern to bfloat16.
    let all: Vec<u64> = (0..=0xffffu64).collect();
    for (from, to) in [(bflt(), flt(16)), (flt(16), bflt())] {
        binary_of("f2f all", from, from, to, &all, &[0], |b, r, x, _| {
            b.f_convert(r, None, x).unwrap()
        });
    }
}

/// Every conversion between the scalar types compiles without the interpreter and agrees
/// with it bit for bit on the types' edge values (every pattern of the 8-bit floats).
#[test]
fn every_conversion_is_native() {
    let floats = [
        flt(16),
        bflt(),
        fp8(FPEncoding::Float8E4M3EXT),
        fp8(FPEncoding::Float8E5M2EXT),
        flt(32),
        flt(64),
    ];
    let mut failed = Vec::new();
    let mut attempt = |name: &str, from: T, to: T, op: fn(&mut Builder, Word, Word) -> Word| {
        let run = std::panic::catch_unwind(|| {
            binary(name, from, from, to, |b, r, x, _| op(b, r, x));
        });
        if run.is_err() {
            failed.push(format!("{name} {from:?} -> {to:?}"));
        }
    };
    for &from in &floats {
        for &to in &floats {
            if from != to {
                attempt("f2f", from, to, |b, r, x| b.f_convert(r, None, x).unwrap());
            }
        }
        for w in INTS {
            attempt("f2u", from, int(w), |b, r, x| {
                b.convert_f_to_u(r, None, x).unwrap()
            });
            attempt("f2s", from, sint(w), |b, r, x| {
                b.convert_f_to_s(r, None, x).unwrap()
            });
            attempt("u2f", int(w), from, |b, r, x| {
                b.convert_u_to_f(r, None, x).unwrap()
            });
            attempt("s2f", sint(w), from, |b, r, x| {
                b.convert_s_to_f(r, None, x).unwrap()
            });
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Conversions rounded twice (`codegen::odd`): to f32 rounded to odd, then once more. Integers
/// and f64 values at, next to and between the ties of binary16, bfloat16 and float8, with
/// `alu::conv` (one rounding in f64 or exactly) as the reference; also saturated and toward
/// zero from f64.
#[test]
fn rounded_twice_conversions() {
    let mut ints = Vec::new();
    for shift in 3..62u32 {
        for top in [0x81u64, 0xff, 0x401, 0x7ff, 0x9] {
            let base = top << shift;
            let half = 1u64 << (shift - 1);
            for v in [
                base,
                base + 1,
                base + half,
                base + half - 1,
                base + half + 1,
                base - 1,
            ] {
                ints.push(v);
                ints.push(v.wrapping_neg());
            }
        }
    }
    ints.extend([u64::MAX, 1 << 63, (1 << 63) - 1, 65519, 65520, 65535, 65536]);
    let floats = [
        flt(16),
        bflt(),
        fp8(FPEncoding::Float8E4M3EXT),
        fp8(FPEncoding::Float8E5M2EXT),
    ];
    for to in floats {
        for w in [32, 64] {
            let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            let vals: Vec<u64> = ints.iter().map(|v| v & mask).collect();
            binary_of("u2f ties", int(w), int(w), to, &vals, &[0], |b, r, x, _| {
                b.convert_u_to_f(r, None, x).unwrap()
            });
            binary_of(
                "s2f ties",
                sint(w),
                sint(w),
                to,
                &vals,
                &[0],
                |b, r, x, _| b.convert_s_to_f(r, None, x).unwrap(),
            );
        }
    }
    // f64: the ties of binary16 and bfloat16 values and one f64 ulp either side.
    let mut doubles = Vec::new();
    for h in (0..0x7c00u16).step_by(7) {
        for (x, y) in [
            (
                f64::from(half::f16::from_bits(h).to_f32()),
                f64::from(half::f16::from_bits(h + 1).to_f32()),
            ),
            (
                f64::from(half::bf16::from_bits(h).to_f32()),
                f64::from(half::bf16::from_bits(h + 1).to_f32()),
            ),
        ] {
            let mid = (x + y) / 2.0;
            for v in [
                mid,
                f64::from_bits(mid.to_bits() - 1),
                f64::from_bits(mid.to_bits() + 1),
            ] {
                doubles.push(v.to_bits());
                doubles.push((-v).to_bits());
            }
        }
    }
    doubles.extend([1e300f64, -1e300, 3.5e38, f64::MAX, 1e-300].map(f64::to_bits));
    for to in floats.into_iter().chain([flt(32)]) {
        binary_of(
            "f64 ties",
            flt(64),
            flt(64),
            to,
            &doubles,
            &[0],
            |b, r, x, _| b.f_convert(r, None, x).unwrap(),
        );
    }
    for to in [flt(16), flt(32)] {
        binary_of(
            "f64 rtz",
            flt(64),
            flt(64),
            to,
            &doubles,
            &[0],
            |b, r, x, _| {
                let id = b.f_convert(r, None, x).unwrap();
                b.decorate(
                    id,
                    Decoration::FPRoundingMode,
                    [Operand::FPRoundingMode(rspirv::spirv::FPRoundingMode::RTZ)],
                );
                id
            },
        );
    }
    for to in [
        fp8(FPEncoding::Float8E4M3EXT),
        fp8(FPEncoding::Float8E5M2EXT),
    ] {
        for from in [flt(64), bflt()] {
            let vals = if from == bflt() {
                (0..=0xffff).collect()
            } else {
                doubles.clone()
            };
            binary_of("saturated", from, from, to, &vals, &[0], |b, r, x, _| {
                let id = b.f_convert(r, None, x).unwrap();
                b.decorate(
                    id,
                    Decoration::SaturatedToLargestFloat8NormalConversionEXT,
                    [],
                );
                id
            });
        }
    }
}

/// An index that counts down (`top - i`: affine, stride -1) widened to 64 bits for the
/// address of `r[top - i] = i` stays affine when no lane wraps below zero
/// (`codegen::conv::affine_resize` takes the stride as signed): no chunk is handed back. With
/// `top` one short, the last lane wraps (its store is out of range and dropped) and only that
/// chunk is handed back, once in each of `check`'s two runs of the JIT.
#[test]
fn conv_descending_index() {
    const GROUPS: u32 = 4;
    let n = 16 * GROUPS;
    for (top, hand_backs) in [(n - 1, 0), (n - 2, 2)] {
        let t = int(32);
        let mut m = Mod::new();
        m.b.capability(Capability::Shader);
        m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let (vr, br) = m.buffer(t);
        let (f, i, _) = m.begin_main();
        let u = m.b.type_int(32, 0);
        let c = m.b.constant_bit32(u, top);
        let down = m.b.i_sub(u, None, c, i).unwrap();
        let pr = m.elem_ptr(t, vr, down);
        m.b.store(pr, i, None, []).unwrap();
        let words = m.finish(f);
        let case = Case {
            words,
            bindings: vec![Binding {
                binding: br,
                init: vec![0xcd; 4 * n as usize],
                elem: elem(t),
                tensor: None,
                name: "r".into(),
            }],
            dispatch: [GROUPS, 1, 1],
            summary: "descending index".into(),
        };
        let (verdict, kernel) = check(&case);
        assert!(matches!(verdict, Verdict::Agree), "top {top}: {verdict:?}");
        let st = kernel.unwrap().run_stats();
        assert_eq!((st.callouts, st.hand_backs), (0, hand_backs), "top {top}");
    }
}
