//! Compute-shader behaviour: arithmetic per width, control flow, spec and push constants,
//! shared memory + barriers, robustness and atomics.
#![allow(clippy::needless_range_loop)]
mod common;
use common::*;
use half::f16;
use tessera_spirv::{ResourceDecl, ResourceKind};

fn smod(x: i32, y: i32) -> i32 {
    if y == 0 {
        return 0;
    }
    let r = x.wrapping_rem(y);
    if r != 0 && ((r < 0) != (y < 0)) {
        r.wrapping_add(y)
    } else {
        r
    }
}

#[test]
fn arith_i32() {
    let p = program("arith_i32", &[]);
    let a = [7, -7, i32::MIN, 5, 0, 100, -1, 123456789];
    let b = [3, 3, -1, 0, 5, -3, 31, -9876];
    let (mut ab, mut bb, mut ob) = (i32s(&a), i32s(&b), vec![0u8; 8 * 16 * 4]);
    let mut r = Res::default();
    r.buf(0, &mut ab).buf(1, &mut bb).buf(2, &mut ob);
    run(&p, &r, &[], [2, 1, 1], 1);
    let o = to_i32(&ob);
    for i in 0..8 {
        let (x, y) = (a[i], b[i]);
        let s = (y & 31) as u32;
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            if y == 0 { 0 } else { x.wrapping_div(y) },
            smod(x, y),
            x.wrapping_shl(s),
            x >> s,
            ((x as u32) >> s) as i32,
            x & y,
            x | y,
            x ^ y,
            !x,
            x.min(y),
            x.max(y),
            x.wrapping_abs(),
            x.clamp(-5, 5) + if x < y { 1000 } else { -1000 },
        ];
        assert_eq!(&o[i * 16..i * 16 + 16], &want, "lane {i} x={x} y={y}");
    }
}

macro_rules! widths_int {
    ($name:ident, $t:ty, $spv:literal) => {
        #[test]
        fn $name() {
            let p = program($spv, &[]);
            let mut rng = Rng(0x1234_5678_9abc_def1);
            let n = 16usize;
            let mut a: Vec<$t> = (0..n).map(|_| rng.next() as $t).collect();
            let mut b: Vec<$t> = (0..n).map(|_| (rng.next() >> 3) as $t).collect();
            a[0] = <$t>::MIN;
            b[0] = (0 as $t).wrapping_sub(1);
            b[1] = 0;
            a[2] = 5;
            b[2] = 5;
            let sz = std::mem::size_of::<$t>();
            let mut ab: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut bb: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut ob = vec![0u8; n * 8 * sz];
            let mut r = Res::default();
            r.buf(0, &mut ab).buf(1, &mut bb).buf(2, &mut ob);
            run(&p, &r, &[], [(n / 2) as u32, 1, 1], 2);
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let want: [$t; 8] = [
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    if y == 0 { 0 } else { x.wrapping_div(y) },
                    x.min(y),
                    x.max(y),
                    if x < y { x } else { y },
                    (x as f32 * 0.5) as $t,
                ];
                for k in 0..8 {
                    let off = (i * 8 + k) * sz;
                    let got = <$t>::from_le_bytes(ob[off..off + sz].try_into().unwrap());
                    assert_eq!(got, want[k], "{} lane {i} op {k} x={x} y={y}", $spv);
                }
            }
        }
    };
}
widths_int!(widths_i8, i8, "widths_i8");
widths_int!(widths_u8, u8, "widths_u8");
widths_int!(widths_i16, i16, "widths_i16");
widths_int!(widths_u16, u16, "widths_u16");
widths_int!(widths_i32, i32, "widths_i32");
widths_int!(widths_u32, u32, "widths_u32");
widths_int!(widths_i64, i64, "widths_i64");
widths_int!(widths_u64, u64, "widths_u64");

macro_rules! widths_float {
    ($name:ident, $t:ty, $spv:literal, $from:expr, $half:expr) => {
        #[test]
        fn $name() {
            let p = program($spv, &[]);
            let n = 8usize;
            let from = $from;
            let half = $half;
            let a: Vec<$t> = [1.5f32, -2.25, 3.0, 1e3, -0.0, 7.0, 0.1, 100.5]
                .iter()
                .map(|&x| from(x))
                .collect();
            let b: Vec<$t> = [0.5f32, 4.0, -3.0, 0.0, 2.0, 7.0, 0.3, -0.25]
                .iter()
                .map(|&x| from(x))
                .collect();
            let sz = std::mem::size_of::<$t>();
            let mut ab: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut bb: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut ob = vec![0u8; n * 8 * sz];
            let mut r = Res::default();
            r.buf(0, &mut ab).buf(1, &mut bb).buf(2, &mut ob);
            run(&p, &r, &[], [(n / 2) as u32, 1, 1], 1);
            let zero = from(0.0);
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let want: [$t; 8] = [
                    x + y,
                    x - y,
                    x * y,
                    if y != zero { x / y } else { zero },
                    if y < x { y } else { x },
                    if x < y { y } else { x },
                    if x < y { x } else { y },
                    half(x),
                ];
                for k in 0..8 {
                    let off = (i * 8 + k) * sz;
                    let got = <$t>::from_le_bytes(ob[off..off + sz].try_into().unwrap());
                    assert_eq!(
                        got.to_le_bytes(),
                        want[k].to_le_bytes(),
                        "{} lane {i} op {k}: {got} vs {}",
                        $spv,
                        want[k]
                    );
                }
            }
        }
    };
}
widths_float!(widths_f16, f16, "widths_f16", f16::from_f32, |x: f16| {
    f16::from_f32(x.to_f32() * 0.5)
});
widths_float!(widths_f32, f32, "widths_f32", |x: f32| x, |x: f32| x * 0.5);
widths_float!(
    widths_f64,
    f64,
    "widths_f64",
    f64::from,
    |x: f64| f64::from(x as f32 * 0.5)
);

fn control_ref(i: u32) -> u32 {
    if i % 7 == 3 {
        return 12345;
    }
    let f = |n: u32| {
        let mut s = 0u32;
        for i in 0..n {
            for j in 0..i {
                if (i + j) & 1 == 0 {
                    continue;
                }
                s += i * j;
                if s > 1000 {
                    break;
                }
            }
        }
        s
    };
    let r = match i % 4 {
        0 => f(i % 13),
        1 => 77,
        _ => i * 3,
    };
    let mut k = 0;
    loop {
        k += 1;
        if k * k > i {
            break;
        }
    }
    r + k * 1_000_000
}

#[test]
fn control_flow_unoptimised_and_phi() {
    for name in ["control", "control_opt"] {
        let p = program(name, &[]);
        let mut ob = vec![0u8; 80 * 4];
        let mut r = Res::default();
        r.buf(0, &mut ob);
        run(&p, &r, &[], [10, 1, 1], 2);
        let o = to_u32(&ob);
        for i in 0..80u32 {
            assert_eq!(o[i as usize], control_ref(i), "{name} invocation {i}");
        }
    }
}

#[test]
fn spec_constants() {
    let p = program("spec", &[]);
    assert_eq!(p.local_size(), [1, 1, 1]);
    let mut ob = vec![0u8; 16 * 4];
    let mut r = Res::default();
    r.buf(0, &mut ob);
    run(&p, &r, &[], [16, 1, 1], 1);
    let o = to_u32(&ob);
    for i in 0..16u32 {
        assert_eq!(o[i as usize], i * 7 + 100_000);
    }
    let spec = vec![
        (0, 4u32.to_le_bytes().to_vec()),
        (1, 10i32.to_le_bytes().to_vec()),
        (2, 1u32.to_le_bytes().to_vec()),
    ];
    let p = program("spec", &spec);
    assert_eq!(p.local_size(), [4, 1, 1]);
    let mut ob = vec![0u8; 16 * 4];
    let mut r = Res::default();
    r.buf(0, &mut ob);
    run(&p, &r, &[], [4, 1, 1], 1);
    let o = to_u32(&ob);
    for i in 0..16u32 {
        assert_eq!(o[i as usize], i * 21 + 1000 + 400_000);
    }
}

#[test]
fn push_constants() {
    let p = program("push", &[]);
    assert_eq!(p.push_constant_size(), 16);
    let mut push = u32s(&[3]);
    push.extend(0.5f32.to_le_bytes());
    push.extend(u32s(&[9, 11]));
    let mut ob = vec![0u8; 8 * 4];
    let mut r = Res::default();
    r.buf(0, &mut ob);
    run(&p, &r, &push, [2, 1, 1], 1);
    for (i, c) in ob.chunks_exact(4).enumerate() {
        assert_eq!(
            f32::from_le_bytes(c.try_into().unwrap()),
            (3 + i) as f32 * 0.5 + 11.0
        );
    }
}

#[test]
fn shared_memory_and_barriers() {
    let p = program("shared", &[]);
    let inp: Vec<u32> = (0..192).map(|i| i * 3 + 1).collect();
    let (mut ib, mut ob, mut sb) = (u32s(&inp), vec![0u8; 192 * 4], vec![0u8; 3 * 4]);
    let mut r = Res::default();
    r.buf(0, &mut ib).buf(1, &mut ob).buf(2, &mut sb);
    run(&p, &r, &[], [3, 1, 1], 2);
    let o = to_u32(&ob);
    for g in 0..192usize {
        let (wg, l) = (g / 64, g % 64);
        assert_eq!(o[g], inp[wg * 64 + 63 - l]);
    }
    let s = to_u32(&sb);
    for wg in 0..3 {
        assert_eq!(s[wg], inp[wg * 64..wg * 64 + 64].iter().sum::<u32>());
    }
}

#[test]
fn buffer_out_of_range_is_robust() {
    let p = program("robust", &[]);
    let mut ib = u32s(&[10, 20, 30, 40, 50, 60, 70, 80]);
    // The output binding is 8 words inside a larger allocation whose tail must stay untouched.
    let mut backing = vec![0xEEu8; 8 * 4 + 64];
    let mut r = Res::default();
    r.buf(0, &mut ib);
    r.0.insert(
        (0, 1, 0),
        tessera_spirv::BoundResource::Buffer {
            ptr: backing.as_mut_ptr(),
            len: 32,
        },
    );
    run(&p, &r, &[], [2, 1, 1], 1);
    let o = to_u32(&backing[..32]);
    assert_eq!(o, vec![71, 81, 1, 1, 1, 1, 1, 1]);
    assert!(backing[32..].iter().all(|&b| b == 0xEE));
}

#[test]
fn atomics_across_threads() {
    let p = program("atomic", &[]);
    let mut cb = vec![0u8; (3 + 64) * 4];
    cb[8..12].copy_from_slice(&100i32.to_le_bytes());
    let mut r = Res::default();
    r.buf(0, &mut cb);
    run(&p, &r, &[], [4, 1, 1], 2);
    let c = to_u32(&cb);
    assert_eq!(c[0], 64);
    assert_eq!(c[1], 63 * 7);
    assert_eq!(c[2] as i32, -63);
    let mut slots: Vec<u32> = c[3..].to_vec();
    slots.sort();
    assert_eq!(slots, (1..=64).collect::<Vec<_>>());
}

#[test]
fn resources_are_reported() {
    let p = program("shared", &[]);
    let mut res = p.resources().to_vec();
    res.sort_by_key(|r| r.binding);
    let sb = |binding| ResourceDecl {
        set: 0,
        binding,
        kind: ResourceKind::StorageBuffer,
        array_len: None,
    };
    assert_eq!(res, vec![sb(0), sb(1), sb(2)]);
    assert_eq!(p.local_size(), [64, 1, 1]);
    assert_eq!(p.push_constant_size(), 0);
}

fn diverge_ref(l: u32) -> u32 {
    let mut acc = 0u32;
    for k in 0..l {
        acc += k;
        if acc > 500 {
            break;
        }
    }
    if l % 5 == 1 { acc + 7 } else { acc * 2 }
}

#[test]
fn divergent_loop_then_barrier() {
    for name in ["diverge", "diverge_opt"] {
        let p = program(name, &[]);
        let mut ob = vec![0u8; 128 * 4];
        let mut r = Res::default();
        r.buf(0, &mut ob);
        run(&p, &r, &[], [2, 1, 1], 1);
        let o = to_u32(&ob);
        for g in 0..128u32 {
            assert_eq!(
                o[g as usize],
                diverge_ref(63 - g % 64),
                "{name} invocation {g}"
            );
        }
    }
}

#[test]
fn builtins_with_dispatch_base() {
    let p = program("builtins", &[]);
    assert_eq!(p.local_size(), [2, 3, 2]);
    let mut ob = vec![0u8; 240 * 64];
    let mut r = Res::default();
    r.buf(0, &mut ob);
    let (base, count) = ([1u32, 2, 0], [2u32, 1, 3]);
    // SAFETY: the only record points into `ob`, alive for the call.
    unsafe { p.dispatch(&r, &[], base, count, 2) }.unwrap();
    let o = to_u32(&ob);
    let mut seen = 0;
    for wz in 0..3 {
        for wx in 0..2 {
            let wg = [base[0] + wx, base[1], base[2] + wz];
            for lz in 0..2 {
                for ly in 0..3 {
                    for lx in 0..2 {
                        let g = [wg[0] * 2 + lx, wg[1] * 3 + ly, wg[2] * 2 + lz];
                        let idx = ((g[2] * 6 + g[1]) * 6 + g[0]) as usize;
                        let v = &o[idx * 16..idx * 16 + 16];
                        assert_eq!(&v[0..4], &[lx, ly, lz, (lz * 3 + ly) * 2 + lx]);
                        assert_eq!(&v[4..7], &wg);
                        assert_eq!(&v[8..11], &count);
                        assert_eq!(&v[12..16], &[2, 3, 2, 1]);
                        seen += 1;
                    }
                }
            }
        }
    }
    assert_eq!(seen, 72);
}

#[test]
fn uniform_buffer_std140_and_glsl_ops() {
    let p = program("ubo", &[]);
    let kinds: Vec<_> = p
        .resources()
        .iter()
        .map(|r| (r.binding, r.kind.clone()))
        .collect();
    assert!(
        kinds.contains(&(0, ResourceKind::UniformBuffer)),
        "{kinds:?}"
    );
    let mut u = [0f32; 36];
    for c in 0..4 {
        for r in 0..4 {
            u[c * 4 + r] = (c * 4 + r) as f32; // column-major m[c][r]
        }
    }
    u[16..20].copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    u[20] = 10.0;
    u[24] = 20.0;
    u[28] = 3.0;
    u[32..35].copy_from_slice(&[3.0, 4.0, 0.0]);
    u[35] = 0.25;
    let mut ub: Vec<u8> = u.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut ob = vec![0u8; 3 * 16];
    let mut r = Res::default();
    r.buf(0, &mut ub).buf(1, &mut ob);
    run(&p, &r, &[], [1, 1, 1], 1);
    let o: Vec<f32> = ob
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let v = [1.0f32, 2.0, 3.0, 4.0];
    for row in 0..4 {
        let want: f32 = (0..4).map(|c| u[c * 4 + row] * v[c]).sum::<f32>() + 20.0;
        assert_eq!(o[row], want, "row {row}");
    }
    assert_eq!(&o[4..8], &[3.0 + 30.0, 4.0 + 5.0, 0.0 + 4.0, 0.25 - 2.0]);
    assert_eq!(&o[8..12], &[0.25, 2.0, 7.0, 8.0]);
}

#[test]
fn api_types_are_send_and_sync() {
    fn check<T: Send + Sync + std::fmt::Debug>() {}
    check::<tessera_spirv::Module>();
    check::<tessera_spirv::Program>();
    check::<tessera_spirv::BoundResource>();
    check::<tessera_spirv::SpirvError>();
}

/// GLSL `frexp` (GLSL.std.450 FrexpStruct) on the edge cases, against Rust's bit-level reference.
#[test]
fn frexp_edge_cases() {
    fn reference(x: f32) -> (u32, i32) {
        if x == 0.0 || !x.is_finite() {
            return (x.to_bits(), 0);
        }
        let (mut m, mut e) = (x.abs(), 0i32);
        while m >= 1.0 {
            m /= 2.0;
            e += 1;
        }
        while m < 0.5 {
            m *= 2.0;
            e -= 1;
        }
        (m.copysign(x).to_bits(), e)
    }
    let xs = [
        0.0f32,
        -0.0,
        1.0,
        -3.5,
        0.75,
        1e-40,
        -1.4e-45,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
        1234.5678,
        -0.1,
        2.0,
        0.5,
        3e38,
        7.0e-39,
    ];
    let p = program("frexp", &[]);
    let mut input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out = vec![0u8; xs.len() * 8];
    let mut r = Res::default();
    r.buf(0, &mut input).buf(1, &mut out);
    run(&p, &r, &[], [2, 1, 1], 1);
    let got = to_u32(&out);
    for (k, x) in xs.iter().enumerate() {
        let (m, e) = reference(*x);
        assert_eq!((got[2 * k], got[2 * k + 1] as i32), (m, e), "frexp({x:e})");
    }
}

/// A shader that never terminates is stopped by the dispatch's watchdog, on one thread and on
/// several, and the watchdog's reason comes back as the error; the same shader with its exit
/// condition met finishes normally under the same watchdog.
#[test]
fn watchdog_stops_a_shader_that_never_terminates() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let p = program("forever", &[]);
    for threads in [1, 2] {
        let mut v = u32s(&[0; 1 + 16]);
        let mut res = Res::default();
        res.buf(0, &mut v);
        let calls = AtomicU32::new(0);
        let stop =
            || (calls.fetch_add(1, Ordering::Relaxed) >= 3).then(|| "took too long".to_string());
        // SAFETY: `v` outlives the call and nothing else touches it.
        let e = unsafe { p.dispatch_watched(&res, &[], [0; 3], [4, 1, 1], threads, &stop) }
            .expect_err("an endless loop must be stopped");
        assert!(e.to_string().contains("took too long"), "{e}");
        assert!(to_u32(&v)[1..].iter().any(|&n| n > 0), "the loop ran");
    }
    let mut v = u32s(&[12345; 1 + 16]);
    let mut res = Res::default();
    res.buf(0, &mut v);
    let stop = || Some("stopped".to_string());
    // SAFETY: as above.
    unsafe { p.dispatch_watched(&res, &[], [0; 3], [4, 1, 1], 1, &stop) }
        .expect("a short dispatch never reaches a watchdog check");
    // Many short workgroups: the check counts blocks across groups, so the dispatch is stopped.
    // SAFETY: as above.
    let e = unsafe { p.dispatch_watched(&res, &[], [0; 3], [100_000, 1, 1], 1, &stop) }
        .expect_err("a long dispatch of short groups is watched too");
    assert!(e.to_string().contains("stopped"), "{e}");
}
