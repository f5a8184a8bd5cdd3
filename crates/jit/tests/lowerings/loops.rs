//! Loops whose lanes leave at different iterations, under masks (`codegen::loops`): per-lane
//! trip counts, a break in an if, loads at addresses a conversion may make wrap. Each checks the
//! JIT against the interpreter bit for bit and counts hand-backs.

use rspirv::spirv::{
    AddressingModel, Capability, LoopControl, MemoryModel, SelectionControl, StorageClass, Word,
};

use crate::common::{Case, Verdict, check};
use crate::support::*;

/// A module with buffers a (input) and r (output), main's prologue and the lane's `a[i]`.
struct Prologue {
    m: Mod,
    f: Word,
    ty: Word,
    bt: Word,
    i: Word,
    x: Word,
    va: Word,
    vr: Word,
    bindings: [u32; 2],
}

fn prologue() -> Prologue {
    let t = int(32);
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vr, br) = m.buffer(t);
    let (f, i, _) = m.begin_main();
    let ty = m.ty(t);
    let bt = m.b.type_bool();
    let pa = m.elem_ptr(t, va, i);
    let x = m.b.load(ty, None, pa, None, []).unwrap();
    Prologue {
        m,
        f,
        ty,
        bt,
        i,
        x,
        va,
        vr,
        bindings: [ba, br],
    }
}

impl Prologue {
    fn finish(self, a: &[u64], summary: &str) -> Case {
        let t = int(32);
        let n = a.len();
        Case {
            words: self.m.finish(self.f),
            bindings: vec![
                buffer(t, self.bindings[0], bytes_of(a, t), "a"),
                buffer(t, self.bindings[1], vec![0xcd; 4 * n], "r"),
            ],
            dispatch: [(n / 16) as u32, 1, 1],
            summary: summary.into(),
        }
    }

    /// A counting loop `for (k = 0; k < trip; k++)` whose body `body(self, k, acc)` gives the
    /// next `acc` (or `None` after a break out of the loop, which the body emitted itself
    /// with `self.m.b.branch(merge)`); returns `acc` after the loop.
    fn counted(
        &mut self,
        trip: Word,
        acc0: Word,
        body: impl FnOnce(&mut Self, Word, Word, Word) -> Word,
    ) -> Word {
        let ty = self.ty;
        let zero = self.m.b.constant_bit32(ty, 0);
        let one = self.m.b.constant_bit32(ty, 1);
        let entry = self.m.b.id();
        self.m.b.branch(entry).unwrap();
        self.m.b.begin_block(Some(entry)).unwrap();
        let (header, check_k, body_blk, cont, merge) = (
            self.m.b.id(),
            self.m.b.id(),
            self.m.b.id(),
            self.m.b.id(),
            self.m.b.id(),
        );
        self.m.b.branch(header).unwrap();
        self.m.b.begin_block(Some(header)).unwrap();
        let (k_next, acc_next) = (self.m.b.id(), self.m.b.id());
        let k = self
            .m
            .b
            .phi(ty, None, [(zero, entry), (k_next, cont)])
            .unwrap();
        let acc = self
            .m
            .b
            .phi(ty, None, [(acc0, entry), (acc_next, cont)])
            .unwrap();
        self.m
            .b
            .loop_merge(merge, cont, LoopControl::NONE, [])
            .unwrap();
        self.m.b.branch(check_k).unwrap();
        self.m.b.begin_block(Some(check_k)).unwrap();
        let bt = self.bt;
        let go = self.m.b.u_less_than(bt, None, k, trip).unwrap();
        self.m
            .b
            .branch_conditional(go, body_blk, merge, [])
            .unwrap();
        self.m.b.begin_block(Some(body_blk)).unwrap();
        let next = body(self, k, acc, merge);
        self.m.b.branch(cont).unwrap();
        self.m.b.begin_block(Some(cont)).unwrap();
        self.m.b.i_add(ty, Some(k_next), k, one).expect("k + 1");
        self.m.b.copy_object(ty, Some(acc_next), next).expect("acc");
        self.m.b.branch(header).unwrap();
        self.m.b.begin_block(Some(merge)).unwrap();
        acc
    }

    fn store_r(&mut self, value: Word) {
        let p = self.m.elem_ptr(int(32), self.vr, self.i);
        self.m.b.store(p, value, None, []).unwrap();
    }
}

fn run(case: &Case) -> tessera_jit::JitKernel {
    let (verdict, kernel) = check(case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let kernel = kernel.expect("compiled");
    assert_eq!(kernel.run_stats().callouts, 0, "callouts");
    kernel
}

/// Inputs whose `a[i] % 23` differs within every chunk.
fn inputs(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| (i * 2_654_435_761) % 1000).collect()
}

/// `acc = a; for (k = 0; k < a % 23; k++) acc = acc * 3 + k; r[i] = acc`: lanes leave at
/// different iterations; none goes back to the interpreter.
#[test]
fn per_lane_trip_counts() {
    let a = inputs(256);
    let mut p = prologue();
    let (ty, x) = (p.ty, p.x);
    let m23 = p.m.b.constant_bit32(ty, 23);
    let trip = p.m.b.u_mod(ty, None, x, m23).unwrap();
    let acc = p.counted(trip, x, |p, k, acc, _| {
        let three = p.m.b.constant_bit32(p.ty, 3);
        let t = p.m.b.i_mul(p.ty, None, acc, three).unwrap();
        p.m.b.i_add(p.ty, None, t, k).unwrap()
    });
    p.store_r(acc);
    let kernel = run(&p.finish(&a, "per-lane trip counts"));
    assert_eq!(kernel.run_stats().hand_backs, 0);
}

/// A break in an if inside the loop, and a value the loop's exit block reads that is uniform
/// in every iteration but left at different iterations by different lanes:
/// `for (k = 0; k < 40; k++) { if (((a + k) & 7) == 5) break; last = k; } r[i] = last * 1000 + k`.
#[test]
fn break_in_an_if() {
    let a = inputs(256);
    let mut p = prologue();
    let (ty, bt, x) = (p.ty, p.bt, p.x);
    let forty = p.m.b.constant_bit32(ty, 40);
    let none = p.m.b.constant_bit32(ty, 77);
    let acc = p.counted(forty, none, |p, k, acc, merge| {
        let seven = p.m.b.constant_bit32(ty, 7);
        let five = p.m.b.constant_bit32(ty, 5);
        let s = p.m.b.i_add(ty, None, x, k).unwrap();
        let low = p.m.b.bitwise_and(ty, None, s, seven).unwrap();
        let hit = p.m.b.i_equal(bt, None, low, five).unwrap();
        let (out, stay) = (p.m.b.id(), p.m.b.id());
        p.m.b.selection_merge(stay, SelectionControl::NONE).unwrap();
        p.m.b.branch_conditional(hit, out, stay, []).unwrap();
        p.m.b.begin_block(Some(out)).unwrap();
        p.m.b.branch(merge).unwrap();
        p.m.b.begin_block(Some(stay)).unwrap();
        let _ = acc;
        k
    });
    let thousand = p.m.b.constant_bit32(ty, 1000);
    let v = p.m.b.i_mul(ty, None, acc, thousand).unwrap();
    p.store_r(v);
    let kernel = run(&p.finish(&a, "a break in an if"));
    assert_eq!(kernel.run_stats().hand_backs, 0);
}

/// A load in the loop at `(n - 1 - k) - i`, an affine value whose widening wraps below zero in
/// the last lane of the last chunk from the second iteration on: `for (k = 0; k < a % 4; k++)
/// acc += a[(n - 1 - k) - i]`. In the last chunk every lane but the first runs at least two
/// iterations, so that at the second iteration's start the active lanes lie on both sides of
/// the wrap: the chunk goes back to the interpreter there, its active lanes at the loop's
/// header and the others at its exit block (`Restart::Lanes`); every other chunk runs masked.
#[test]
fn a_hand_back_restarts_at_the_iteration() {
    let n = 256;
    let mut a = inputs(n);
    for lane in 0..16 {
        a[n - 16 + lane] = if lane == 0 { 4 } else { 3 };
    }
    let mut p = prologue();
    let (ty, x, i) = (p.ty, p.x, p.i);
    let four = p.m.b.constant_bit32(ty, 4);
    let trip = p.m.b.u_mod(ty, None, x, four).unwrap();
    let zero = p.m.b.constant_bit32(ty, 0);
    let acc = p.counted(trip, zero, |p, k, acc, _| {
        let top = p.m.b.constant_bit32(ty, n as u32 - 1);
        let down = p.m.b.i_sub(ty, None, top, k).unwrap();
        let at = p.m.b.i_sub(ty, None, down, i).unwrap();
        let u64t = p.m.b.type_int(64, 0);
        let wide = p.m.b.u_convert(u64t, None, at).unwrap();
        let pt = p.m.b.type_pointer(None, StorageClass::StorageBuffer, ty);
        let z = p.m.b.constant_bit32(ty, 0);
        let ptr = p.m.b.access_chain(pt, None, p.va, [z, wide]).unwrap();
        let v = p.m.b.load(ty, None, ptr, None, []).unwrap();
        p.m.b.i_add(ty, None, acc, v).unwrap()
    });
    p.store_r(acc);
    let kernel = run(&p.finish(&a, "a hand-back at an iteration's start"));
    let sites = kernel.hand_back_sites();
    assert!(
        sites
            .iter()
            .any(|&((block, _), _)| block == tessera_jit::LANE_PCS),
        "{sites:?}"
    );
}
