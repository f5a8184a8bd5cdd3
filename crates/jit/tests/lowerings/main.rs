//! One focused test per IR op family the JIT lowers natively (`codegen::ops`,
//! `codegen::memory`): a program `r[i] = op(a[i], b[i])` (varying operands, vector code) and
//! `u[i] = op(a[w], b[w])` with `w` the workgroup id (uniform operands, scalar code) over every
//! pair of edge values, for each width. Each checks that the JIT's results equal the
//! interpreter's bit for bit (NaN = NaN), that the program compiled without interpreter
//! callouts, and that at run time no op was called out and no chunk handed back.

#[path = "../common/mod.rs"]
mod common;
mod conversions;
mod loops;
mod masked;
mod size;
mod support;

use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, MemoryModel, StorageClass, Word,
};

use common::{Binding, Case, Verdict, check};
use support::*;

pub(crate) const INTS: [u32; 4] = [8, 16, 32, 64];

macro_rules! int_bin {
    ($name:ident, $method:ident, $widths:expr) => {
        #[test]
        fn $name() {
            for w in $widths {
                for t in [int(w), sint(w)] {
                    binary(stringify!($method), t, t, t, |b, r, x, y| {
                        b.$method(r, None, x, y).unwrap()
                    });
                }
            }
        }
    };
}

int_bin!(ibin_add, i_add, INTS);
int_bin!(ibin_sub, i_sub, INTS);
int_bin!(ibin_mul, i_mul, INTS);
int_bin!(ibin_sdiv, s_div, INTS);
int_bin!(ibin_srem, s_rem, INTS);
int_bin!(ibin_and, bitwise_and, INTS);
int_bin!(ibin_or, bitwise_or, INTS);
int_bin!(ibin_xor, bitwise_xor, INTS);
int_bin!(ibin_shl, shift_left_logical, INTS);
int_bin!(ibin_shr_logical, shift_right_logical, INTS);
int_bin!(ibin_shr_arithmetic, shift_right_arithmetic, INTS);

#[test]
fn ibin_udiv_umod() {
    for w in INTS {
        let t = int(w);
        binary("udiv", t, t, t, |b, r, x, y| {
            b.u_div(r, None, x, y).unwrap()
        });
        binary("umod", t, t, t, |b, r, x, y| {
            b.u_mod(r, None, x, y).unwrap()
        });
    }
}

#[test]
fn ibin_shift_amount_widths() {
    // Shift amounts of another width than the value, both ways.
    for (w, aw) in [(8, 32), (32, 8), (64, 16), (16, 64), (32, 64)] {
        for t in [int(w), sint(w)] {
            binary("shl", t, int(aw), t, |b, r, x, y| {
                b.shift_left_logical(r, None, x, y).unwrap()
            });
            binary("sra", t, int(aw), t, |b, r, x, y| {
                b.shift_right_arithmetic(r, None, x, y).unwrap()
            });
        }
    }
}

#[test]
fn ibin_min_max() {
    // GLSL.std.450 UMin 38, SMin 39, UMax 41, SMax 42.
    for w in INTS {
        for op in [38u32, 39, 41, 42] {
            let t = if op == 39 || op == 42 {
                sint(w)
            } else {
                int(w)
            };
            binary("minmax", t, t, t, |b, r, x, y| {
                let g = glsl();
                b.ext_inst(r, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                    .unwrap()
            });
        }
    }
}

#[test]
fn ibin_extended() {
    // The high halves and carries: OpUMulExtended, OpSMulExtended, OpIAddCarry, OpISubBorrow.
    for w in [8, 16, 32, 64] {
        let t = int(w);
        for k in 0..4 {
            binary("extended", t, t, t, |b, r, x, y| {
                let st = b.type_struct([r, r]);
                let v = match k {
                    0 => b.u_mul_extended(st, None, x, y),
                    1 => b.s_mul_extended(st, None, x, y),
                    2 => b.i_add_carry(st, None, x, y),
                    _ => b.i_sub_borrow(st, None, x, y),
                }
                .unwrap();
                b.composite_extract(r, None, v, [1]).unwrap()
            });
        }
    }
}

#[test]
fn iun_neg_not() {
    for w in INTS {
        let t = sint(w);
        binary("neg", t, t, t, |b, r, x, _| b.s_negate(r, None, x).unwrap());
        binary("not", t, t, t, |b, r, x, _| b.not(r, None, x).unwrap());
    }
}

/// Integer comparison `k` of the 10 (`==`, `!=`, unsigned `<`, `<=`, `>`, `>=`, signed ones).
fn icmp_k(b: &mut Builder, k: u32, bt: Word, x: Word, y: Word) -> Word {
    match k {
        0 => b.i_equal(bt, None, x, y),
        1 => b.i_not_equal(bt, None, x, y),
        2 => b.u_less_than(bt, None, x, y),
        3 => b.u_less_than_equal(bt, None, x, y),
        4 => b.u_greater_than(bt, None, x, y),
        5 => b.u_greater_than_equal(bt, None, x, y),
        6 => b.s_less_than(bt, None, x, y),
        7 => b.s_less_than_equal(bt, None, x, y),
        8 => b.s_greater_than(bt, None, x, y),
        _ => b.s_greater_than_equal(bt, None, x, y),
    }
    .unwrap()
}

#[test]
fn icmp_all() {
    for w in INTS {
        let t = int(w);
        for k in 0..10 {
            binary("icmp", t, t, int(32), |b, r, x, y| {
                let bt = b.type_bool();
                let c = icmp_k(b, k, bt, x, y);
                let (one, zero) = (b.constant_bit32(r, 1), b.constant_bit32(r, 0));
                b.select(r, None, c, one, zero).unwrap()
            });
        }
    }
}

#[test]
fn fbin_arith_min_max() {
    for w in [32, 64] {
        let t = flt(w);
        for k in 0..6 {
            binary("fbin", t, t, t, |b, r, x, y| match k {
                0 => b.f_add(r, None, x, y).unwrap(),
                1 => b.f_sub(r, None, x, y).unwrap(),
                2 => b.f_mul(r, None, x, y).unwrap(),
                3 => b.f_div(r, None, x, y).unwrap(),
                _ => {
                    let g = glsl();
                    let op = if k == 4 { 37 } else { 40 }; // FMin, FMax
                    b.ext_inst(r, None, g, op, [Operand::IdRef(x), Operand::IdRef(y)])
                        .unwrap()
                }
            });
        }
    }
}

#[test]
fn fun_native() {
    // FNegate; GLSL FAbs 4, Sqrt 31, Floor 8, Ceil 9, Trunc 3, RoundEven 2.
    for w in [16, 32, 64] {
        let t = flt(w);
        binary("fneg", t, t, t, |b, r, x, _| {
            b.f_negate(r, None, x).unwrap()
        });
        for op in [4u32, 31, 8, 9, 3, 2] {
            binary("fun", t, t, t, |b, r, x, _| {
                let g = glsl();
                b.ext_inst(r, None, g, op, [Operand::IdRef(x)]).unwrap()
            });
        }
    }
}

#[test]
fn clamps() {
    // GLSL FClamp 43, UClamp 44, SClamp 45, NClamp 81, as clamp(x, y, y) and clamp(x, x, y).
    let cases = [(43u32, true), (81, true), (44, false), (45, false)];
    for (op, float) in cases {
        let widths: &[u32] = if float { &[16, 32, 64] } else { &INTS };
        for &w in widths {
            let t = if float { flt(w) } else { sint(w) };
            for low_is_x in [false, true] {
                binary("clamp", t, t, t, |b, r, x, y| {
                    let g = glsl();
                    let low = if low_is_x { x } else { y };
                    let operands = [x, low, y].map(Operand::IdRef);
                    b.ext_inst(r, None, g, op, operands).unwrap()
                });
            }
        }
    }
}

#[test]
fn idot_saturating_and_narrow() {
    // OpSDot/OpUDot/OpSUDot with a result as narrow as the components, and their AccSat forms,
    // on (x, y)·(y, x) with x as the accumulator, for 8-, 16- and 32-bit components, and the
    // wrapping forms for 64-bit ones.
    for w in [8, 16, 32, 64] {
        for kind in 0..3 {
            let t = if kind == 1 { int(w) } else { sint(w) };
            let forms: &[bool] = if w == 64 { &[false] } else { &[false, true] };
            for &saturating in forms {
                binary("idot", t, t, t, |b, r, x, y| {
                    let vt = b.type_vector(r, 2);
                    let v1 = b.composite_construct(vt, None, [x, y]).unwrap();
                    let v2 = b.composite_construct(vt, None, [y, x]).unwrap();
                    match (kind, saturating) {
                        (0, false) => b.s_dot(r, None, v1, v2, None),
                        (1, false) => b.u_dot(r, None, v1, v2, None),
                        (_, false) => b.su_dot(r, None, v1, v2, None),
                        (0, true) => b.s_dot_acc_sat(r, None, v1, v2, x, None),
                        (1, true) => b.u_dot_acc_sat(r, None, v1, v2, x, None),
                        (_, true) => b.su_dot_acc_sat(r, None, v1, v2, x, None),
                    }
                    .unwrap()
                });
            }
        }
    }
}

#[test]
fn idot_saturating_8bit_into_32bit() {
    // The vector path: (x, y, x, y)·(y, x, y, y) of 8-bit components with a 32-bit accumulator
    // (x << 24) + y, near the limits for the edge values, signed, unsigned and mixed.
    for kind in 0..3 {
        let t = if kind == 1 { int(8) } else { sint(8) };
        let r = if kind == 1 { int(32) } else { sint(32) };
        binary("idot_sat_8_32", t, t, r, |b, rt, x, y| {
            let component = b.type_int(8, u32::from(kind != 1));
            let vt = b.type_vector(component, 4);
            let v1 = b.composite_construct(vt, None, [x, y, x, y]).unwrap();
            let v2 = b.composite_construct(vt, None, [y, x, y, y]).unwrap();
            let wx = b.u_convert(rt, None, x).unwrap();
            let wy = b.u_convert(rt, None, y).unwrap();
            let k24 = b.constant_bit32(rt, 24);
            let hi = b.shift_left_logical(rt, None, wx, k24).unwrap();
            let acc = b.i_add(rt, None, hi, wy).unwrap();
            match kind {
                0 => b.s_dot_acc_sat(rt, None, v1, v2, acc, None),
                1 => b.u_dot_acc_sat(rt, None, v1, v2, acc, None),
                _ => b.su_dot_acc_sat(rt, None, v1, v2, acc, None),
            }
            .unwrap()
        });
    }
}

#[test]
fn iun_abs_narrow() {
    // GLSL SAbs 5 on 8- and 16-bit lanes (the most negative value stays itself).
    for w in [8, 16] {
        let t = sint(w);
        binary("sabs", t, t, t, |b, r, x, _| {
            let g = glsl();
            b.ext_inst(r, None, g, 5, [Operand::IdRef(x)]).unwrap()
        });
    }
}

#[test]
fn float_formulas() {
    // GLSL InverseSqrt 32, Fract 10, FSign 6, Round 1; OpFMod; Step 48; FMix 46 and
    // SmoothStep 49 (third operand = second); on f32 and f64 (the f32 transcendental
    // functions: tests/float_bits.rs).
    for w in [32, 64] {
        let t = flt(w);
        for op in [32u32, 10, 6, 1] {
            binary("formula", t, t, t, |b, r, x, _| {
                let g = glsl();
                b.ext_inst(r, None, g, op, [Operand::IdRef(x)]).unwrap()
            });
        }
        binary("fmod", t, t, t, |b, r, x, y| {
            b.f_mod(r, None, x, y).unwrap()
        });
        for op in [48u32, 46, 49] {
            binary("formula", t, t, t, |b, r, x, y| {
                let g = glsl();
                let mut operands = vec![Operand::IdRef(x), Operand::IdRef(y)];
                if op != 48 {
                    operands.push(Operand::IdRef(y));
                }
                b.ext_inst(r, None, g, op, operands).unwrap()
            });
        }
    }
}

#[test]
fn fcmp_all() {
    for w in [16, 32, 64] {
        let t = flt(w);
        for k in 0..14 {
            binary("fcmp", t, t, int(32), |b, r, x, y| {
                let bt = b.type_bool();
                let c = match k {
                    0 => b.f_ord_equal(bt, None, x, y),
                    1 => b.f_ord_not_equal(bt, None, x, y),
                    2 => b.f_ord_less_than(bt, None, x, y),
                    3 => b.f_ord_less_than_equal(bt, None, x, y),
                    4 => b.f_ord_greater_than(bt, None, x, y),
                    5 => b.f_ord_greater_than_equal(bt, None, x, y),
                    6 => b.f_unord_equal(bt, None, x, y),
                    7 => b.f_unord_not_equal(bt, None, x, y),
                    8 => b.f_unord_less_than(bt, None, x, y),
                    9 => b.f_unord_less_than_equal(bt, None, x, y),
                    10 => b.f_unord_greater_than(bt, None, x, y),
                    11 => b.f_unord_greater_than_equal(bt, None, x, y),
                    12 => b.is_nan(bt, None, x),
                    _ => b.is_inf(bt, None, x),
                }
                .unwrap();
                let (one, zero) = (b.constant_bit32(r, 1), b.constant_bit32(r, 0));
                b.select(r, None, c, one, zero).unwrap()
            });
        }
    }
}

#[test]
fn select_varying_and_uniform() {
    for w in INTS {
        let t = int(w);
        binary("select", t, t, t, |b, r, x, y| {
            let bt = b.type_bool();
            let c = b.u_less_than(bt, None, x, y).unwrap();
            b.select(r, None, c, x, y).unwrap()
        });
    }
}

/// A divergent branch whose arm only jumps on to the merge block runs natively under the mask
/// (`codegen::masked`): `if (a[i] < b[i]) { r[i] = a[i] + b[i]; u[w] = a[i]; }` over edge
/// values that make every chunk's lanes disagree. The varying store must leave inactive lanes'
/// elements alone, the uniform-address store must keep the last active lane's value, and no
/// chunk may be handed back.
#[test]
fn divergent_arm_under_mask() {
    let t = int(32);
    let e = edges(t);
    let n = (e.len() * e.len()).div_ceil(16) * 16;
    let a: Vec<u64> = (0..n).map(|i| e[(i / e.len()) % e.len()]).collect();
    let bv: Vec<u64> = (0..n).map(|i| e[i % e.len()]).collect();
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vb, bb) = m.buffer(t);
    let (vr, br) = m.buffer(t);
    let (vu, bu) = m.buffer(t);
    let (f, i, w) = m.begin_main();
    let ty = m.ty(t);
    let pa = m.elem_ptr(t, va, i);
    let x = m.b.load(ty, None, pa, None, []).unwrap();
    let pb = m.elem_ptr(t, vb, i);
    let y = m.b.load(ty, None, pb, None, []).unwrap();
    let bt = m.b.type_bool();
    let c = m.b.u_less_than(bt, None, x, y).unwrap();
    let arm = m.b.id();
    let merge = m.b.id();
    m.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE)
        .unwrap();
    m.b.branch_conditional(c, arm, merge, []).unwrap();
    m.b.begin_block(Some(arm)).unwrap();
    let s = m.b.i_add(ty, None, x, y).unwrap();
    let pr = m.elem_ptr(t, vr, i);
    m.b.store(pr, s, None, []).unwrap();
    let pu = m.elem_ptr(t, vu, w);
    m.b.store(pu, x, None, []).unwrap();
    m.b.branch(merge).unwrap();
    m.b.begin_block(Some(merge)).unwrap();
    let words = m.finish(f);
    let binding = |binding, init: Vec<u8>, name: &str| buffer(t, binding, init, name);
    let case = Case {
        words,
        bindings: vec![
            binding(ba, bytes_of(&a, t), "a"),
            binding(bb, bytes_of(&bv, t), "b"),
            binding(br, vec![0xcd; 4 * n], "r (masked, varying address)"),
            binding(bu, vec![0xcd; 4 * n], "u (masked, uniform address)"),
        ],
        dispatch: [(n / 16) as u32, 1, 1],
        summary: "divergent arm".into(),
    };
    let mixed = (0..n / 16).any(|g| {
        let lanes: Vec<bool> = (g * 16..g * 16 + 16).map(|k| a[k] < bv[k]).collect();
        lanes.contains(&true) && lanes.contains(&false)
    });
    assert!(mixed, "the inputs must make some chunk diverge");
    let (verdict, kernel) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let st = kernel.unwrap().run_stats();
    assert_eq!(
        (st.callouts, st.hand_backs),
        (0, 0),
        "the divergent arm ran partly on the interpreter"
    );
}

/// Uniform divisions of call invariants run once, before the chunk loop
/// (`codegen::hoist_divisions`), whether or not a chunk reaches them; their divisor guards
/// must hold there too. With `n` the workgroup count (invariant for the whole dispatch):
/// `r[i] = i + n / (n - 3) + n % (n - 3) + MIN / (n - 4) + MIN % (n - 4)` (signed 32-bit for the
/// last two), on 3 workgroups (divisors 0 and -1: 0, 0, MIN wrapping, 0) and on 5 (2 and 1).
#[test]
fn hoisted_division_of_invariants() {
    for groups in [3u32, 5] {
        let t = int(32);
        let mut m = Mod::new();
        m.b.capability(Capability::Shader);
        m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let (vr, br) = m.buffer(t);
        let u = m.b.type_int(32, 0);
        let u3 = m.b.type_vector(u, 3);
        let pin = m.b.type_pointer(None, StorageClass::Input, u3);
        let nwg = m.b.variable(pin, None, StorageClass::Input, None);
        m.b.decorate(
            nwg,
            Decoration::BuiltIn,
            [Operand::BuiltIn(BuiltIn::NumWorkgroups)],
        );
        m.iface.push(nwg);
        let (f, i, _) = m.begin_main();
        let n3 = m.b.load(u3, None, nwg, None, []).unwrap();
        let n = m.b.composite_extract(u, None, n3, [0]).unwrap();
        let c3 = m.b.constant_bit32(u, 3);
        let c4 = m.b.constant_bit32(u, 4);
        let min = m.b.constant_bit32(u, 0x8000_0000);
        let d0 = m.b.i_sub(u, None, n, c3).unwrap();
        let d1 = m.b.i_sub(u, None, n, c4).unwrap();
        let q0 = m.b.u_div(u, None, n, d0).unwrap();
        let r0 = m.b.u_mod(u, None, n, d0).unwrap();
        let q1 = m.b.s_div(u, None, min, d1).unwrap();
        let r1 = m.b.s_rem(u, None, min, d1).unwrap();
        let mut acc = i;
        for v in [q0, r0, q1, r1] {
            acc = m.b.i_add(u, None, acc, v).unwrap();
        }
        let pr = m.elem_ptr(t, vr, i);
        m.b.store(pr, acc, None, []).unwrap();
        let words = m.finish(f);
        let n_lanes = 16 * groups as usize;
        let case = Case {
            words,
            bindings: vec![Binding {
                binding: br,
                init: vec![0xcd; 4 * n_lanes],
                elem: elem(t),
                tensor: None,
                name: "r".into(),
            }],
            dispatch: [groups, 1, 1],
            summary: "hoisted divisions".into(),
        };
        let (verdict, kernel) = check(&case);
        assert!(matches!(verdict, Verdict::Agree), "{groups}: {verdict:?}");
        let st = kernel.unwrap().run_stats();
        assert_eq!((st.callouts, st.hand_backs), (0, 0), "{groups} groups");
    }
}

/// Comparisons of an affine operand of step 1 with a uniform one (`codegen::ops::icmp_affine`:
/// lane numbers against a threshold, the vector comparison when the chunk's lanes wrap), both
/// ways round, for every 32-bit comparison: `x = i + a[w]` (lane 0 of chunk `w` set to each edge
/// value, wrapping and not) against `y = b[w]`.
/// One workgroup per pair (lane 0 of chunk `w`, y) of `firsts × ys`: (workgroups, `a`, `b`),
/// where `a[w]` makes invocation `16·w + a[w]` (lane 0's `x = i + a[w]`) equal the pair's first
/// value, in 32 bits, and `b[w]` is its second.
fn affine_pairs(firsts: &[u64], ys: &[u64]) -> (usize, Vec<u64>, Vec<u64>) {
    let pairs: Vec<(u64, u64)> = firsts
        .iter()
        .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
        .collect();
    let a = (0..pairs.len())
        .map(|w| pairs[w].0.wrapping_sub(16 * w as u64) & 0xffff_ffff)
        .collect();
    let b = pairs.iter().map(|p| p.1).collect();
    (pairs.len(), a, b)
}

#[test]
fn icmp_affine_against_uniform() {
    let t = int(32);
    let firsts: Vec<u64> = [
        0u64,
        1,
        5,
        100,
        0x7fff_ffe0,
        0x7fff_fff0,
        0x7fff_fff8,
        0x8000_0000,
        0xffff_ffe0,
        0xffff_fff0,
        0xffff_fff8,
        0xffff_ffff,
    ]
    .to_vec();
    let ys: Vec<u64> = edges(t)
        .into_iter()
        .chain([4, 8, 15, 16, 20, 0x7fff_fff4, 0xffff_fff4, 0x8000_0004])
        .collect();
    let (groups, a, bv) = affine_pairs(&firsts, &ys);
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vb, bb) = m.buffer(t);
    let (vr, br) = m.buffer(t);
    let (f, i, w) = m.begin_main();
    let u = m.ty(t);
    let pa = m.elem_ptr(t, va, w);
    let aw = m.b.load(u, None, pa, None, []).unwrap();
    let pb = m.elem_ptr(t, vb, w);
    let y = m.b.load(u, None, pb, None, []).unwrap();
    let x = m.b.i_add(u, None, i, aw).unwrap();
    let bt = m.b.type_bool();
    let (one, zero) = (m.b.constant_bit32(u, 1), m.b.constant_bit32(u, 0));
    let per = m.b.constant_bit32(u, 20);
    let base = m.b.i_mul(u, None, i, per).unwrap();
    for k in 0..10u32 {
        for (slot, (l, r)) in [(x, y), (y, x)].into_iter().enumerate() {
            let c = icmp_k(&mut m.b, k, bt, l, r);
            let v = m.b.select(u, None, c, one, zero).unwrap();
            let off = m.b.constant_bit32(u, 2 * k + slot as u32);
            let at = m.b.i_add(u, None, base, off).unwrap();
            let pr = m.elem_ptr(t, vr, at);
            m.b.store(pr, v, None, []).unwrap();
        }
    }
    let words = m.finish(f);
    let n = 16 * groups;
    let binding = |binding, init: Vec<u8>, name: &str| buffer(t, binding, init, name);
    let case = Case {
        words,
        bindings: vec![
            binding(ba, bytes_of(&a, t), "a"),
            binding(bb, bytes_of(&bv, t), "b"),
            binding(br, vec![0xcd; 4 * 20 * n], "r"),
        ],
        dispatch: [groups as u32, 1, 1],
        summary: "affine icmp".into(),
    };
    let (verdict, kernel) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let k = kernel.unwrap();
    assert_eq!(k.op_counts().1, 0, "compiled with interpreter callouts");
    let st = k.run_stats();
    assert_eq!((st.callouts, st.hand_backs), (0, 0));
}

/// Branches on `icmp_affine` comparisons (and on their `Not`) decide from the comparison's two
/// ends, as scalars (`Gen::decided`), whether every lane, no lane or some lanes take the arm:
/// `if (c) r[..] = 1` for every comparison, operand order and pair of `icmp_affine_against_uniform`,
/// on either side of a wrap, with chunks that agree and chunks that do not (the arm then runs
/// under a mask).
#[test]
fn icmp_affine_branches() {
    let t = int(32);
    let firsts = [0u64, 5, 0x7fff_fff0, 0x7fff_fff8, 0xffff_fff0, 0xffff_fff8];
    let ys: Vec<u64> = [
        0u64,
        1,
        4,
        15,
        16,
        20,
        0x7fff_fff4,
        0x8000_0004,
        0xffff_fff4,
        0xffff_ffff,
    ]
    .to_vec();
    let (groups, a, bv) = affine_pairs(&firsts, &ys);
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vb, bb) = m.buffer(t);
    let (vr, br) = m.buffer(t);
    let (f, i, w) = m.begin_main();
    let u = m.ty(t);
    let pa = m.elem_ptr(t, va, w);
    let aw = m.b.load(u, None, pa, None, []).unwrap();
    let pb = m.elem_ptr(t, vb, w);
    let y = m.b.load(u, None, pb, None, []).unwrap();
    let x = m.b.i_add(u, None, i, aw).unwrap();
    let bt = m.b.type_bool();
    let one = m.b.constant_bit32(u, 1);
    let per = m.b.constant_bit32(u, 40);
    let base = m.b.i_mul(u, None, i, per).unwrap();
    let mut slot = 0u32;
    for k in 0..10u32 {
        for (l, r) in [(x, y), (y, x)] {
            for negate in [false, true] {
                let c = icmp_k(&mut m.b, k, bt, l, r);
                let c = if negate {
                    m.b.logical_not(bt, None, c).unwrap()
                } else {
                    c
                };
                let arm = m.b.id();
                let merge = m.b.id();
                m.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE)
                    .unwrap();
                m.b.branch_conditional(c, arm, merge, []).unwrap();
                m.b.begin_block(Some(arm)).unwrap();
                let off = m.b.constant_bit32(u, slot);
                let at = m.b.i_add(u, None, base, off).unwrap();
                let pr = m.elem_ptr(t, vr, at);
                m.b.store(pr, one, None, []).unwrap();
                m.b.branch(merge).unwrap();
                m.b.begin_block(Some(merge)).unwrap();
                slot += 1;
            }
        }
    }
    let words = m.finish(f);
    let n = 16 * groups;
    let binding = |binding, init: Vec<u8>, name: &str| buffer(t, binding, init, name);
    let case = Case {
        words,
        bindings: vec![
            binding(ba, bytes_of(&a, t), "a"),
            binding(bb, bytes_of(&bv, t), "b"),
            binding(br, vec![0; 4 * 40 * n], "r"),
        ],
        dispatch: [groups as u32, 1, 1],
        summary: "branches on affine icmp".into(),
    };
    let (verdict, kernel) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let st = kernel.unwrap().run_stats();
    assert_eq!((st.callouts, st.hand_backs), (0, 0));
}

/// A branch on a varying bool that reaches it through a block parameter: a short-circuit guard
/// `if (!(x >= a || w >= b)) r[i] = 1` (GLSL's `||` as SPIR-V control flow and an `OpPhi`),
/// with `x = i` affine and `w` the workgroup id, uniform. The phi's lanes are the first
/// comparison's where it holds and the second's elsewhere; the branch on it decides from the
/// register's scalar lane flags (`Gen::lane_flags`), set with each value it gets: a uniform
/// true or false, an affine comparison's flags. Workgroups: the first comparison true for every
/// lane, for none or for half of them, times the second true or false.
#[test]
fn branch_on_a_phi_of_bools() {
    let t = int(32);
    let cases: Vec<(u64, u64)> = [0u64, 16, 8]
        .iter()
        .flat_map(|&a| [(a, 0u64), (a, 100)])
        .collect();
    let groups = cases.len();
    let av: Vec<u64> = (0..groups).map(|w| 16 * w as u64 + cases[w].0).collect();
    let bv: Vec<u64> = cases.iter().map(|c| c.1).collect();
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vb, bb) = m.buffer(t);
    let (vr, br) = m.buffer(t);
    let (f, i, w) = m.begin_main();
    let u = m.ty(t);
    let bt = m.b.type_bool();
    let pa = m.elem_ptr(t, va, w);
    let a = m.b.load(u, None, pa, None, []).unwrap();
    let pb = m.elem_ptr(t, vb, w);
    let b = m.b.load(u, None, pb, None, []).unwrap();
    let first = m.b.id();
    m.b.branch(first).unwrap();
    m.b.begin_block(Some(first)).unwrap();
    let c1 = m.b.u_greater_than_equal(bt, None, i, a).unwrap();
    let second = m.b.id();
    let joined = m.b.id();
    m.b.selection_merge(joined, rspirv::spirv::SelectionControl::NONE)
        .unwrap();
    m.b.branch_conditional(c1, joined, second, []).unwrap();
    m.b.begin_block(Some(second)).unwrap();
    let c2 = m.b.u_greater_than_equal(bt, None, w, b).unwrap();
    m.b.branch(joined).unwrap();
    m.b.begin_block(Some(joined)).unwrap();
    // (As glslc writes `||`: the first comparison itself, true on that edge.)
    let either = m.b.phi(bt, None, [(c1, first), (c2, second)]).unwrap();
    let arm = m.b.id();
    let done = m.b.id();
    m.b.selection_merge(done, rspirv::spirv::SelectionControl::NONE)
        .unwrap();
    m.b.branch_conditional(either, done, arm, []).unwrap();
    m.b.begin_block(Some(arm)).unwrap();
    let one = m.b.constant_bit32(u, 1);
    let pr = m.elem_ptr(t, vr, i);
    m.b.store(pr, one, None, []).unwrap();
    m.b.branch(done).unwrap();
    m.b.begin_block(Some(done)).unwrap();
    let words = m.finish(f);
    let n = 16 * groups;
    let binding = |binding, init: Vec<u8>, name: &str| buffer(t, binding, init, name);
    let case = Case {
        words,
        bindings: vec![
            binding(ba, bytes_of(&av, t), "a"),
            binding(bb, bytes_of(&bv, t), "b"),
            binding(br, vec![0; 4 * n], "r"),
        ],
        dispatch: [groups as u32, 1, 1],
        summary: "branch on a phi of bools".into(),
    };
    let (verdict, _) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
}

/// Tensor accesses in bounds of their view are not checked against the memory window: the
/// driver's `ok` flag includes "the view's whole footprint lies in the window". A view whose
/// last rows have no memory behind them (a short binding) must go to the interpreter, which
/// drops or zeroes what falls outside, and the JIT must agree with it bit for bit (and read or
/// write nothing past the window: `c`'s bytes after it would differ). `bench_tensor_add`:
/// `c = a + b` on [rows, 256] f32 tensors, a and c short by one and a half rows.
#[test]
fn tensor_view_longer_than_its_memory() {
    use common::TensorView;
    use tessera_spirv::TensorElement;
    let spv = include_bytes!("../../../../spirv-tests/shaders/bench_tensor_add.spv");
    let words = spirv_words(spv);
    let (rows, cols) = (6u64, 256u64);
    let full = (rows * cols * 4) as usize;
    let short = full - (cols * 6) as usize;
    let view = || TensorView {
        format: TensorElement::F32,
        dims: vec![rows, cols],
        strides: vec![cols * 4, 4],
    };
    let floats = |n: usize, k: f32| -> Vec<u8> {
        (0..n / 4)
            .flat_map(|i| (i as f32 * k).to_le_bytes())
            .collect()
    };
    let binding = |binding, init, name: &str| Binding {
        binding,
        init,
        elem: elem(flt(32)),
        tensor: Some(view()),
        name: name.into(),
    };
    let case = Case {
        words,
        bindings: vec![
            binding(0, floats(short, 1.5), "a (short)"),
            binding(1, floats(full, 0.25), "b"),
            binding(2, vec![0xcd; short], "c (short)"),
        ],
        dispatch: [1, rows as u32, 1],
        summary: "short tensor memory".into(),
    };
    let (verdict, _) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
}
