//! Subgroup operations (`GL_KHR_shader_subgroup_*`): built-ins, elect, vote, ballot, arithmetic
//! reductions/scans (per type), shuffles and quads, on full, multiple and partial subgroups, under
//! divergent control flow, and across fused tiny workgroups. Expected values are computed here
//! from the definitions: a subgroup is 32 consecutive invocations of one workgroup.
#![allow(clippy::needless_range_loop)]
mod common;
use common::*;
use half::f16;

const SG: usize = 32;

/// Subgroups (lists of global invocation indices) of `nwg` workgroups of `wgs` invocations.
fn subgroups(wgs: usize, nwg: usize) -> Vec<Vec<usize>> {
    let mut v = Vec::new();
    for w in 0..nwg {
        for s in (0..wgs).step_by(SG) {
            v.push((w * wgs + s..w * wgs + (s + SG).min(wgs)).collect());
        }
    }
    v
}

fn spec_size(x: u32, y: u32) -> Vec<(u32, Vec<u8>)> {
    vec![(0, x.to_le_bytes().to_vec()), (1, y.to_le_bytes().to_vec())]
}

/// The divergent branch of the shaders: `gl_LocalInvocationIndex % 3 != 0`.
fn div(g: usize, wgs: usize) -> bool {
    (g % wgs) % 3 != 0
}

/// Ballot of the lanes (subgroup positions) of `sg` for which `f(g)` holds.
fn ballot(sg: &[usize], f: impl Fn(usize) -> bool) -> u32 {
    sg.iter()
        .enumerate()
        .filter(|&(_, &g)| f(g))
        .fold(0, |m, (k, _)| m | (1 << k))
}

#[test]
fn builtins_and_elect() {
    for (lx, ly) in [(32, 1), (64, 1), (96, 1), (40, 1), (8, 5), (7, 1), (1, 1)] {
        let wgs = (lx * ly) as usize;
        let nwg = 5;
        let p = program("sg_basic", &spec_size(lx, ly));
        let mut ob = vec![0u8; wgs * nwg * 12 * 4];
        let mut r = Res::default();
        r.buf(0, &mut ob);
        run(&p, &r, &[], [nwg as u32, 1, 1], 2);
        let o = to_u32(&ob);
        for sg in subgroups(wgs, nwg) {
            let first_div = sg.iter().position(|&g| div(g, wgs));
            for (sid, &g) in sg.iter().enumerate() {
                let l = g % wgs;
                let s = sid as u32;
                let ge = u32::MAX << s;
                let gt = 0xffff_fffeu32 << s;
                let d = if !div(g, wgs) {
                    3
                } else if Some(sid) == first_div {
                    1
                } else {
                    2
                };
                let want = [
                    32,
                    s,
                    wgs.div_ceil(SG) as u32,
                    (l / SG) as u32,
                    u32::from(sid == 0),
                    1 << s,
                    ge,
                    gt,
                    !gt,
                    !ge,
                    0,
                    d,
                ];
                assert_eq!(
                    &o[g * 12..g * 12 + 12],
                    &want,
                    "size {lx}x{ly} invocation {g}"
                );
            }
        }
    }
}

fn check_ballot(name: &str, wgs: usize) {
    let nwg = 3;
    let n = wgs * nwg;
    let mut rng = Rng(0x5eed_0000 + wgs as u64);
    let mut v: Vec<u32> = (0..n).map(|_| (rng.next() % 1000) as u32).collect();
    let sgs = subgroups(wgs, nwg);
    // Subgroup 1: all in 128..192 (all equal / 64); subgroup 2: one 7 and one value >= 1000.
    if let Some(sg) = sgs.get(1) {
        for &g in sg {
            v[g] = 128 + (v[g] % 64);
        }
    }
    if let Some(sg) = sgs.get(2) {
        v[sg[sg.len() / 2]] = 7;
        v[sg[sg.len() - 1]] = 5000;
    }
    let p = program(name, &spec_size(wgs as u32, 1));
    let (mut vb, mut ob) = (u32s(&v), vec![0u8; n * 24 * 4]);
    let mut r = Res::default();
    r.buf(0, &mut vb).buf(1, &mut ob);
    run(&p, &r, &[], [nwg as u32, 1, 1], 2);
    let o = to_u32(&ob);
    for sg in &sgs {
        let all = |act: &dyn Fn(usize) -> bool, f: &dyn Fn(u32) -> bool| {
            sg.iter().filter(|&&g| act(g)).all(|&g| f(v[g]))
        };
        let any = |act: &dyn Fn(usize) -> bool, f: &dyn Fn(u32) -> bool| {
            sg.iter().filter(|&&g| act(g)).any(|&g| f(v[g]))
        };
        let every = |_: usize| true;
        let dv = |g: usize| div(g, wgs);
        let x0 = v[sg[0]];
        let b = ballot(sg, |g| v[g] & 1 != 0);
        let dfirst = sg.iter().copied().find(|&g| dv(g));
        let bd = ballot(sg, dv);
        let bdo = ballot(sg, |g| dv(g) && v[g] & 1 != 0);
        for (sid, &g) in sg.iter().enumerate() {
            let x = v[g];
            let k = sid as u32;
            let idx = x % 40;
            let mut want = vec![
                u32::from(all(&every, &|x| x < 1000)),
                u32::from(any(&every, &|x| x == 7)),
                u32::from(all(&every, &|y| y / 64 == x0 / 64)),
                u32::from(all(&every, &|y| {
                    y / 64 == x0 / 64 && y & 0x100 == x0 & 0x100
                })),
                b,
                0,
                (x >> k) & 1,
                if idx < 32 { (b >> idx) & 1 } else { 0 },
                b.count_ones(),
                (b & ((2u64 << k) - 1) as u32).count_ones(),
                (b & ((1u64 << k) - 1) as u32).count_ones(),
                b.trailing_zeros(),
                31 - b.leading_zeros(),
                sg.get(5).map(|&s| v[s]).unwrap_or(o[g * 24 + 13]),
                x0,
            ];
            if b == 0 {
                // FindLSB/MSB of an empty ballot are undefined.
                want[11] = o[g * 24 + 11];
                want[12] = o[g * 24 + 12];
            }
            if dv(g) {
                let dx0 = v[dfirst.unwrap()];
                want.extend([
                    u32::from(all(&dv, &|x| x < 1000)),
                    bd,
                    bdo,
                    (bdo & ((1u64 << k) - 1) as u32).count_ones()
                        + 100 * (bdo & ((2u64 << k) - 1) as u32).count_ones(),
                    dx0,
                    u32::from(all(&dv, &|y| y / 64 == dx0 / 64)),
                    u32::from(any(&dv, &|x| x == 7)),
                    u32::from(Some(g) == dfirst),
                    31 - bd.leading_zeros(),
                ]);
            } else {
                want.extend([0; 9]);
            }
            assert_eq!(
                &o[g * 24..g * 24 + 24],
                &want[..],
                "{name} size {wgs} invocation {g}"
            );
        }
    }
}

#[test]
fn vote_and_ballot() {
    for wgs in [32, 64, 96, 40, 8] {
        check_ballot("sg_ballot", wgs);
    }
    // The same shader after spirv-opt -O.
    for wgs in [64, 40] {
        check_ballot("sg_ballot_opt", wgs);
    }
}

/// Reference semantics of one element type: raw bits (zero-extended) in a u64.
struct Ty {
    name: &'static str,
    size: usize,
    int: bool,
    add: fn(u64, u64) -> u64,
    mul: fn(u64, u64) -> u64,
    min: fn(u64, u64) -> u64,
    max: fn(u64, u64) -> u64,
    /// Identities of add, mul, min, max.
    ids: [u64; 4],
    /// A value for add/min/max, a value for mul (exact products), from a random word and lane.
    make: fn(u64, usize) -> (u64, u64),
}

fn and(a: u64, b: u64) -> u64 {
    a & b
}
fn or(a: u64, b: u64) -> u64 {
    a | b
}
fn xor(a: u64, b: u64) -> u64 {
    a ^ b
}

fn f32b(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn f32v(b: u64) -> f32 {
    f32::from_bits(b as u32)
}
fn f16b(x: f32) -> u64 {
    u64::from(f16::from_f32(x).to_bits())
}
fn f16v(b: u64) -> f32 {
    f16::from_bits(b as u16).to_f32()
}
/// Multiplier pattern with bounded, exact products: 2, ±1, 0.5, ±1, ...
fn mulpat(r: u64, l: usize) -> f64 {
    match l % 4 {
        0 => 2.0,
        2 => 0.5,
        _ if r & 1 == 0 => 1.0,
        _ => -1.0,
    }
}

fn types() -> Vec<Ty> {
    vec![
        Ty {
            name: "i32",
            size: 4,
            int: true,
            add: |a, b| (a as u32).wrapping_add(b as u32) as u64,
            mul: |a, b| (a as u32).wrapping_mul(b as u32) as u64,
            min: |a, b| (a as u32 as i32).min(b as u32 as i32) as u32 as u64,
            max: |a, b| (a as u32 as i32).max(b as u32 as i32) as u32 as u64,
            ids: [0, 1, i32::MAX as u64, i32::MIN as u32 as u64],
            make: |r, _| (r as u32 as u64, (r >> 32) as u32 as u64),
        },
        Ty {
            name: "u32",
            size: 4,
            int: true,
            add: |a, b| (a as u32).wrapping_add(b as u32) as u64,
            mul: |a, b| (a as u32).wrapping_mul(b as u32) as u64,
            min: |a, b| a.min(b),
            max: |a, b| a.max(b),
            ids: [0, 1, u32::MAX as u64, 0],
            make: |r, _| (r as u32 as u64, (r >> 32) as u32 as u64),
        },
        Ty {
            name: "i64",
            size: 8,
            int: true,
            add: |a, b| a.wrapping_add(b),
            mul: |a, b| a.wrapping_mul(b),
            min: |a, b| (a as i64).min(b as i64) as u64,
            max: |a, b| (a as i64).max(b as i64) as u64,
            ids: [0, 1, i64::MAX as u64, i64::MIN as u64],
            make: |r, _| (r, r.rotate_left(17) ^ 0x9e37_79b9),
        },
        Ty {
            name: "i8",
            size: 1,
            int: true,
            add: |a, b| (a as u8).wrapping_add(b as u8) as u64,
            mul: |a, b| (a as u8).wrapping_mul(b as u8) as u64,
            min: |a, b| (a as u8 as i8).min(b as u8 as i8) as u8 as u64,
            max: |a, b| (a as u8 as i8).max(b as u8 as i8) as u8 as u64,
            ids: [0, 1, i8::MAX as u64, i8::MIN as u8 as u64],
            make: |r, _| (r as u8 as u64, (r >> 32) as u8 as u64),
        },
        Ty {
            name: "u16",
            size: 2,
            int: true,
            add: |a, b| (a as u16).wrapping_add(b as u16) as u64,
            mul: |a, b| (a as u16).wrapping_mul(b as u16) as u64,
            min: |a, b| a.min(b),
            max: |a, b| a.max(b),
            ids: [0, 1, u16::MAX as u64, 0],
            make: |r, _| (r as u16 as u64, (r >> 32) as u16 as u64),
        },
        Ty {
            name: "f32",
            size: 4,
            int: false,
            add: |a, b| f32b(f32v(a) + f32v(b)),
            mul: |a, b| f32b(f32v(a) * f32v(b)),
            min: |a, b| f32b(f32v(a).min(f32v(b))),
            max: |a, b| f32b(f32v(a).max(f32v(b))),
            ids: [
                f32b(0.0),
                f32b(1.0),
                f32b(f32::INFINITY),
                f32b(f32::NEG_INFINITY),
            ],
            make: |r, l| {
                (
                    f32b(((r % 17) as f32 - 8.0) * 0.5),
                    f32b(mulpat(r >> 8, l) as f32),
                )
            },
        },
        Ty {
            name: "f16",
            size: 2,
            int: false,
            add: |a, b| f16b(f16v(a) + f16v(b)),
            mul: |a, b| f16b(f16v(a) * f16v(b)),
            min: |a, b| f16b(f16v(a).min(f16v(b))),
            max: |a, b| f16b(f16v(a).max(f16v(b))),
            ids: [f16b(0.0), f16b(1.0), 0x7c00, 0xfc00],
            make: |r, l| {
                (
                    f16b(((r % 17) as f32 - 8.0) * 0.5),
                    f16b(mulpat(r >> 8, l) as f32),
                )
            },
        },
        Ty {
            name: "f64",
            size: 8,
            int: false,
            add: |a, b| (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
            mul: |a, b| (f64::from_bits(a) * f64::from_bits(b)).to_bits(),
            min: |a, b| f64::from_bits(a).min(f64::from_bits(b)).to_bits(),
            max: |a, b| f64::from_bits(a).max(f64::from_bits(b)).to_bits(),
            ids: [
                0f64.to_bits(),
                1f64.to_bits(),
                f64::INFINITY.to_bits(),
                f64::NEG_INFINITY.to_bits(),
            ],
            make: |r, l| {
                (
                    (((r % 1001) as f64 - 500.0) * 0.25).to_bits(),
                    mulpat(r >> 8, l).to_bits(),
                )
            },
        },
    ]
}

/// Reduction/scan reference over the active lanes (subgroup positions `act`) of one subgroup.
struct Red<'a> {
    vals: &'a [u64],
    f: fn(u64, u64) -> u64,
    id: u64,
}

fn red(vals: &[u64], f: fn(u64, u64) -> u64, id: u64) -> Red<'_> {
    Red { vals, f, id }
}

impl Red<'_> {
    /// Fold of the active lanes at positions `< upto` (identity if none).
    fn fold(&self, act: &[usize], lo: usize, upto: usize) -> u64 {
        let mut acc: Option<u64> = None;
        for &k in act.iter().filter(|&&k| k >= lo && k < upto) {
            acc = Some(match acc {
                None => self.vals[k],
                Some(a) => (self.f)(a, self.vals[k]),
            });
        }
        acc.unwrap_or(self.id)
    }
    fn reduce(&self, act: &[usize]) -> u64 {
        self.fold(act, 0, SG)
    }
    fn incl(&self, act: &[usize], k: usize) -> u64 {
        self.fold(act, 0, k + 1)
    }
    fn excl(&self, act: &[usize], k: usize) -> u64 {
        self.fold(act, 0, k)
    }
    fn clustered(&self, act: &[usize], k: usize, c: usize) -> u64 {
        let lo = k / c * c;
        self.fold(act, lo, lo + c)
    }
}

fn check_arith(t: &Ty, wgs: usize) {
    const NOUT: usize = 40;
    let nwg = 2;
    let n = wgs * nwg;
    let mut rng = Rng(0xa11c_e000 + wgs as u64 + t.size as u64);
    let (a, m): (Vec<u64>, Vec<u64>) = (0..n).map(|g| (t.make)(rng.next(), g % wgs)).unzip();
    let bytes = |v: &[u64]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes()[..t.size].to_vec())
            .collect()
    };
    let name = format!("sg_arith_{}", t.name);
    let p = program(&name, &spec_size(wgs as u32, 1));
    let (mut ab, mut mb) = (bytes(&a), bytes(&m));
    let mut ob = vec![0u8; n * NOUT * t.size];
    let mut bb = vec![0u8; n * 4 * 4];
    let mut r = Res::default();
    r.buf(0, &mut ab)
        .buf(1, &mut mb)
        .buf(2, &mut ob)
        .buf(3, &mut bb);
    run(&p, &r, &[], [nwg as u32, 1, 1], 2);
    let ones = if t.size == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * t.size)) - 1
    };
    let ob_u = to_u32(&bb);
    for sg in subgroups(wgs, nwg) {
        let av: Vec<u64> = sg.iter().map(|&g| a[g]).collect();
        let mv: Vec<u64> = sg.iter().map(|&g| m[g]).collect();
        let (add, mul, min, max) = (
            red(&av, t.add, t.ids[0]),
            red(&mv, t.mul, t.ids[1]),
            red(&av, t.min, t.ids[2]),
            red(&av, t.max, t.ids[3]),
        );
        let (band, bor, bxor) = (red(&av, and, ones), red(&av, or, 0), red(&av, xor, 0));
        let madd = red(&mv, t.add, t.ids[0]);
        let all: Vec<usize> = (0..sg.len()).collect();
        let dv: Vec<usize> = all.iter().copied().filter(|&k| div(sg[k], wgs)).collect();
        for (k, &g) in sg.iter().enumerate() {
            let mut want = vec![0u64; NOUT];
            let w = &mut want;
            w[0] = add.reduce(&all);
            w[1] = mul.reduce(&all);
            w[2] = min.reduce(&all);
            w[3] = max.reduce(&all);
            w[4] = add.incl(&all, k);
            w[5] = mul.incl(&all, k);
            w[6] = min.incl(&all, k);
            w[7] = max.incl(&all, k);
            w[8] = add.excl(&all, k);
            w[9] = mul.excl(&all, k);
            w[10] = min.excl(&all, k);
            w[11] = max.excl(&all, k);
            w[12] = add.clustered(&all, k, 4);
            w[13] = max.clustered(&all, k, 8);
            w[14] = mul.clustered(&all, k, 2);
            w[15] = min.clustered(&all, k, 1);
            w[16] = add.clustered(&all, k, 32);
            w[17] = add.incl(&all, k);
            w[18] = madd.incl(&all, k);
            if dv.contains(&k) {
                w[19] = add.reduce(&dv);
                w[20] = add.incl(&dv, k);
                w[21] = add.excl(&dv, k);
                w[22] = min.excl(&dv, k);
                w[23] = max.incl(&dv, k);
                w[24] = mul.reduce(&dv);
                w[25] = add.clustered(&dv, k, 4);
                w[26] = mul.excl(&dv, k);
                if t.int {
                    w[27] = band.reduce(&dv);
                    w[28] = bor.excl(&dv, k);
                    w[29] = bxor.incl(&dv, k);
                }
            }
            if t.int {
                w[30] = band.reduce(&all);
                w[31] = bor.reduce(&all);
                w[32] = bxor.reduce(&all);
                w[33] = band.incl(&all, k);
                w[34] = bor.incl(&all, k);
                w[35] = bxor.excl(&all, k);
                w[36] = bxor.clustered(&all, k, 16);
                let pv: Vec<u64> = av.iter().map(|&x| u64::from(x & 3 != 0)).collect();
                let ev: Vec<u64> = av.iter().map(|&x| u64::from(x == 3)).collect();
                let bools = [
                    red(&pv, and, 1).reduce(&all),
                    red(&ev, or, 0).incl(&all, k),
                    red(&pv, xor, 0).excl(&all, k),
                    red(&pv, and, 1).clustered(&all, k, 4),
                ];
                let got: Vec<u64> = ob_u[g * 4..g * 4 + 4].iter().map(|&x| x.into()).collect();
                assert_eq!(got, bools, "{name} size {wgs} invocation {g}: bool ops");
            }
            let got: Vec<u64> = (0..NOUT)
                .map(|j| get_le(&ob, (g * NOUT + j) * t.size, t.size))
                .collect();
            for j in 0..NOUT {
                assert_eq!(
                    got[j], want[j],
                    "{name} size {wgs} invocation {g} (lane {k}) output {j}: got {:#x} want {:#x}",
                    got[j], want[j]
                );
            }
        }
    }
}

#[test]
fn arithmetic_every_type_and_scan() {
    for t in &types() {
        for wgs in [32, 64, 96, 40] {
            check_arith(t, wgs);
        }
    }
}

#[test]
fn shuffles_and_quads() {
    for wgs in [32, 64, 96, 40, 6] {
        let nwg = 3;
        let n = wgs * nwg;
        let mut rng = Rng(0x5_4ff1e + wgs as u64);
        let v: Vec<u32> = (0..n).map(|_| (rng.next() % 1_000_000) as u32).collect();
        let s: Vec<u32> = (0..n).map(|_| (rng.next() % 40) as u32).collect();
        let p = program("sg_shuffle", &spec_size(wgs as u32, 1));
        let (mut vb, mut sb, mut ob) = (u32s(&v), u32s(&s), vec![0u8; n * 20 * 4]);
        let mut r = Res::default();
        r.buf(0, &mut vb).buf(1, &mut sb).buf(2, &mut ob);
        run(&p, &r, &[], [nwg as u32, 1, 1], 2);
        let o = to_u32(&ob);
        for sg in subgroups(wgs, nwg) {
            for (k, &g) in sg.iter().enumerate() {
                let got = &o[g * 20..g * 20 + 20];
                let dv = div(g, wgs);
                // Expected value of output `j` from subgroup position `src` (None: undefined,
                // when the source lane does not exist or is inactive).
                let from = |src: Option<usize>, divergent: bool| -> Option<u32> {
                    let src = src.filter(|&q| q < sg.len())?;
                    if divergent && !div(sg[src], wgs) {
                        return None;
                    }
                    Some(v[sg[src]])
                };
                let id = Some(s[g] as usize);
                let checks: [(usize, Option<u32>); 14] = [
                    (0, from(id, false)),
                    (1, from(Some(k ^ 5), false)),
                    (2, from(k.checked_sub(3), false)),
                    (3, from(Some(k + 3), false)),
                    (4, from(id, false)),
                    (5, from(id, false)),
                    (6, from(Some(k ^ 16), false)),
                    (11, from(Some((k & !3) + 2), false)),
                    (12, from(Some(k ^ 1), false)),
                    (13, from(Some(k ^ 2), false)),
                    (14, from(Some(k ^ 3), false)),
                    (15, from(Some(k + 1), false).map(|x| x & 1)),
                    (7, if dv { from(id, true) } else { Some(0) }),
                    (8, if dv { from(Some(k ^ 1), true) } else { Some(0) }),
                ];
                for (j, want) in checks {
                    if let Some(w) = want {
                        assert_eq!(got[j], w, "size {wgs} invocation {g} output {j}");
                    }
                }
                for (j, src) in [(9, k.checked_sub(1)), (10, Some(k + 2))] {
                    let want = if dv { from(src, true) } else { Some(0) };
                    if let Some(w) = want {
                        assert_eq!(got[j], w, "size {wgs} invocation {g} output {j}");
                    }
                }
            }
        }
    }
}

#[test]
fn fused_tiny_workgroups_never_mix() {
    for wgs in [1usize, 3, 8, 24, 32, 40] {
        for threads in [1, 2] {
            let nwg = 37;
            let n = wgs * nwg;
            let p = program("sg_tiny", &spec_size(wgs as u32, 1));
            let mut ob = vec![0u8; n * 6 * 4];
            let mut r = Res::default();
            r.buf(0, &mut ob);
            run(&p, &r, &[], [nwg as u32, 1, 1], threads);
            let o = to_u32(&ob);
            for sg in subgroups(wgs, nwg) {
                let wg = (sg[0] / wgs) as u32;
                let sum: u32 = sg.iter().map(|&g| (g % wgs) as u32 + 1).sum();
                let maxl = (sg[sg.len() - 1] % wgs) as u32;
                for (k, &g) in sg.iter().enumerate() {
                    let want = [
                        sum,
                        ballot(sg.as_slice(), |_| true),
                        wg,
                        wg * 1000 + maxl,
                        k as u32,
                        k as u32 + 100 * wgs.div_ceil(SG) as u32,
                    ];
                    assert_eq!(
                        &o[g * 6..g * 6 + 6],
                        &want,
                        "size {wgs} threads {threads} invocation {g}"
                    );
                }
            }
        }
    }
}

/// Word offsets of instructions with opcode `op` in `w`.
fn find_ops(w: &[u32], op: u32) -> Vec<usize> {
    let mut v = Vec::new();
    let mut at = 5;
    while at < w.len() {
        let wc = (w[at] >> 16) as usize;
        if w[at] & 0xffff == op {
            v.push(at);
        }
        at += wc.max(1);
    }
    v
}

#[test]
fn rejects_non_subgroup_scope() {
    const OP_CONSTANT: u32 = 43;
    const OP_GROUP_NON_UNIFORM_IADD: u32 = 349;
    let mut w = words("sg_tiny");
    let iadd = find_ops(&w, OP_GROUP_NON_UNIFORM_IADD)[0];
    let scope = w[iadd + 3];
    let consts = find_ops(&w, OP_CONSTANT);
    let ty = consts
        .iter()
        .find(|&&c| w[c + 2] == scope)
        .map(|&c| w[c + 1]);
    // The `2u` constant of the scope's type: Workgroup scope.
    let two = consts
        .iter()
        .find(|&&c| Some(w[c + 1]) == ty && w[c + 3] == 2)
        .map(|&c| w[c + 2])
        .expect("a 2u constant");
    w[iadd + 3] = two;
    let m = tessera_spirv::Module::parse(&w).unwrap();
    let e = tessera_spirv::Program::new(&m, "main", &[]).unwrap_err();
    assert!(e.message().contains("Subgroup scope"), "{e}");
}

#[test]
fn loops_and_early_return() {
    for wgs in [32, 64, 40, 12] {
        let nwg = 3;
        let n = wgs * nwg;
        let p = program("sg_loop", &spec_size(wgs as u32, 1));
        let mut ob = vec![0u8; n * 2 * 4];
        let mut r = Res::default();
        r.buf(0, &mut ob);
        run(&p, &r, &[], [nwg as u32, 1, 1], 2);
        let o = to_u32(&ob);
        for sg in subgroups(wgs, nwg) {
            let trips = |g: usize| (g % wgs) % 5;
            let live = ballot(&sg, |g| (g % wgs) % 7 != 3);
            for &g in &sg {
                // Iteration k runs with the lanes whose trip count exceeds k.
                let acc: usize = (0..trips(g))
                    .map(|k| sg.iter().filter(|&&h| trips(h) > k).count() * 101)
                    .sum();
                let want_live = if (g % wgs) % 7 != 3 { live } else { 0 };
                assert_eq!(
                    [o[g * 2], o[g * 2 + 1]],
                    [acc as u32, want_live],
                    "size {wgs} invocation {g}"
                );
            }
        }
    }
}
