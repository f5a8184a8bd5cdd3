//! Divergent branches under masks (`codegen::masked`): triangles and diamonds whose paths
//! store and whose values meet in phis at the join, on inputs that make every chunk's lanes
//! disagree. Each checks the JIT against the interpreter bit for bit and counts hand-backs.

use rspirv::spirv::{
    AddressingModel, Capability, MemoryModel, SelectionControl, StorageClass, Word,
};

use crate::common::{Case, Verdict, check};
use crate::support::*;

/// Edge-value pairs over `n` lanes (a multiple of 16) such that `a[i] < b[i]` differs within
/// every chunk.
fn pairs() -> (usize, Vec<u64>, Vec<u64>) {
    let t = int(32);
    let e = edges(t);
    let n = (e.len() * e.len()).div_ceil(16) * 16;
    let a: Vec<u64> = (0..n).map(|i| e[(i / e.len()) % e.len()]).collect();
    let b: Vec<u64> = (0..n).map(|i| e[i % e.len()]).collect();
    for g in 0..n / 16 {
        let lanes: Vec<bool> = (g * 16..g * 16 + 16).map(|k| a[k] < b[k]).collect();
        assert!(lanes.contains(&true) && lanes.contains(&false), "chunk {g}");
    }
    (n, a, b)
}

/// Runs `case` and returns the number of chunks handed back, after checking the backends agree.
fn hand_backs(case: &Case) -> u64 {
    let (verdict, kernel) = check(case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let kernel = kernel.expect("compiled");
    let st = kernel.run_stats();
    assert_eq!(st.callouts, 0, "callouts");
    st.hand_backs
}

/// A module with buffers a, b (inputs) and the outputs, and main's prologue: the lane's `a[i]`,
/// `b[i]`, the invocation `i` and the workgroup `w`.
struct Prologue {
    m: Mod,
    a: Word,
    f: Word,
    ty: Word,
    i: Word,
    w: Word,
    x: Word,
    y: Word,
    outputs: Vec<(Word, u32)>,
    inputs: [u32; 2],
}

fn prologue(outputs: usize) -> Prologue {
    let t = int(32);
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (va, ba) = m.buffer(t);
    let (vb, bb) = m.buffer(t);
    let outs: Vec<(Word, u32)> = (0..outputs).map(|_| m.buffer(t)).collect();
    let (f, i, w) = m.begin_main();
    let ty = m.ty(t);
    let pa = m.elem_ptr(t, va, i);
    let x = m.b.load(ty, None, pa, None, []).unwrap();
    let pb = m.elem_ptr(t, vb, i);
    let y = m.b.load(ty, None, pb, None, []).unwrap();
    Prologue {
        m,
        a: va,
        f,
        ty,
        i,
        w,
        x,
        y,
        outputs: outs,
        inputs: [ba, bb],
    }
}

impl Prologue {
    fn case(self, n: usize, a: &[u64], b: &[u64], summary: &str) -> Case {
        let t = int(32);
        let mut bindings = vec![
            buffer(t, self.inputs[0], bytes_of(a, t), "a"),
            buffer(t, self.inputs[1], bytes_of(b, t), "b"),
        ];
        for (k, &(_, binding)) in self.outputs.iter().enumerate() {
            bindings.push(buffer(t, binding, vec![0xcd; 4 * n], &format!("out {k}")));
        }
        Case {
            words: self.m.finish(self.f),
            bindings,
            dispatch: [(n / 16) as u32, 1, 1],
            summary: summary.into(),
        }
    }

    /// `a[at]`.
    fn load_a(&mut self, at: Word) -> Word {
        let p = self.m.elem_ptr(int(32), self.a, at);
        self.m.b.load(self.ty, None, p, None, []).unwrap()
    }

    fn store(&mut self, output: usize, at: Word, value: Word) {
        let p = self.m.elem_ptr(int(32), self.outputs[output].0, at);
        self.m.b.store(p, value, None, []).unwrap();
    }
}

/// A diamond whose arms both store and define the value a phi at the join reads:
/// `if (a < b) { s = a + b; r0[i] = s; } else { s = a - w; r2[w] = s; } r1[i] = s * 3` (the
/// last active lane's value stays in `r2[w]`).
#[test]
fn diamond_merges_its_arms_values() {
    let (n, a, b) = pairs();
    let mut p = prologue(3);
    let (ty, x, y, i, w) = (p.ty, p.x, p.y, p.i, p.w);
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let (then, other, merge) = (p.m.b.id(), p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, other, []).unwrap();
    p.m.b.begin_block(Some(then)).unwrap();
    let s1 = p.m.b.i_add(ty, None, x, y).unwrap();
    p.store(0, i, s1);
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(other)).unwrap();
    let s2 = p.m.b.i_sub(ty, None, x, w).unwrap();
    p.store(2, w, s2);
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let s = p.m.b.phi(ty, None, [(s1, then), (s2, other)]).unwrap();
    let three = p.m.b.constant_bit32(ty, 3);
    let s3 = p.m.b.i_mul(ty, None, s, three).unwrap();
    p.store(1, i, s3);
    let case = p.case(n, &a, &b, "diamond with stores and a phi");
    assert_eq!(hand_backs(&case), 0);
}

/// A triangle whose one path defines a uniform value and the other keeps another: the phi of
/// two uniform values under a varying condition is varying (`classes::divergent_regions`).
/// `r = w + 7; if (a < b) { r = w * 5 + 1; } r0[i] = r`.
#[test]
fn triangle_of_uniform_values_is_varying() {
    let (n, a, b) = pairs();
    let mut p = prologue(1);
    let (ty, x, y, i, w) = (p.ty, p.x, p.y, p.i, p.w);
    let seven = p.m.b.constant_bit32(ty, 7);
    let r0 = p.m.b.i_add(ty, None, w, seven).unwrap();
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let entry = p.m.b.id();
    p.m.b.branch(entry).unwrap();
    p.m.b.begin_block(Some(entry)).unwrap();
    let (then, merge) = (p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, merge, []).unwrap();
    p.m.b.begin_block(Some(then)).unwrap();
    let five = p.m.b.constant_bit32(ty, 5);
    let one = p.m.b.constant_bit32(ty, 1);
    let r1 = p.m.b.i_mul(ty, None, w, five).unwrap();
    let r1 = p.m.b.i_add(ty, None, r1, one).unwrap();
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let r = p.m.b.phi(ty, None, [(r1, then), (r0, entry)]).unwrap();
    p.store(0, i, r);
    let case = p.case(n, &a, &b, "triangle of uniform values");
    assert_eq!(hand_backs(&case), 0);
}

/// A hand-back inside a masked path restarts at the branch with the registers' values there,
/// not the values the other path left: with `acc` a function variable (one register,
/// assigned in both arms), `acc = a; if (a < b) { acc = acc + 100 } else { acc = acc * 3; d = uint64(top - i)
/// (affine; wraps below zero in the last chunk); acc = acc + uint(d) } r0[i] = acc`. The false
/// path's conversion hands the last chunk back (its active lanes lie on both sides of the wrap)
/// after the path assigned `acc` for every lane; the interpreter must see `acc` as it was at
/// the branch.
#[test]
fn hand_back_in_a_path_restarts_at_the_branch() {
    let (n, mut a, mut b) = pairs();
    // In the last chunk the false path's lanes (the odd ones) lie on both sides of the lane
    // where `top - i` wraps (lane 9): its widening cannot be affine over them.
    for lane in 0..16 {
        a[n - 16 + lane] = 10;
        b[n - 16 + lane] = if lane % 2 == 0 { 20 } else { 5 };
    }
    let mut p = prologue(1);
    let (ty, x, y, i) = (p.ty, p.x, p.y, p.i);
    let u64t = p.m.b.type_int(64, 0);
    let pf = p.m.b.type_pointer(None, StorageClass::Function, ty);
    let var = p.m.b.variable(pf, None, StorageClass::Function, None);
    p.m.b.store(var, x, None, []).unwrap();
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let (then, other, merge) = (p.m.b.id(), p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, other, []).unwrap();
    p.m.b.begin_block(Some(then)).unwrap();
    let hundred = p.m.b.constant_bit32(ty, 100);
    let acc = p.m.b.load(ty, None, var, None, []).unwrap();
    let acc1 = p.m.b.i_add(ty, None, acc, hundred).unwrap();
    p.m.b.store(var, acc1, None, []).unwrap();
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(other)).unwrap();
    let three = p.m.b.constant_bit32(ty, 3);
    let acc = p.m.b.load(ty, None, var, None, []).unwrap();
    let tripled = p.m.b.i_mul(ty, None, acc, three).unwrap();
    p.m.b.store(var, tripled, None, []).unwrap();
    let top = p.m.b.constant_bit32(ty, n as u32 - 8);
    let down = p.m.b.i_sub(ty, None, top, i).unwrap();
    let d = p.m.b.u_convert(u64t, None, down).unwrap();
    let d32 = p.m.b.u_convert(ty, None, d).unwrap();
    let acc = p.m.b.load(ty, None, var, None, []).unwrap();
    let acc2 = p.m.b.i_add(ty, None, acc, d32).unwrap();
    p.m.b.store(var, acc2, None, []).unwrap();
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let acc = p.m.b.load(ty, None, var, None, []).unwrap();
    p.store(0, i, acc);
    let case = p.case(n, &a, &b, "hand-back inside a masked path");
    // Only the last chunk wraps: once on each of `check`'s two JIT runs.
    assert_eq!(hand_backs(&case), 2);
}

/// A triangle that stores twice at the invocation's index: the second store's address widens
/// the invocation id after the first store, which needs no wrap check (an id never wraps:
/// `analysis::invocation_ids`), so nothing in the arm can hand back after its first store and
/// it runs under the mask: `if (a < b) { r0[i] = a; r1[i] = b; }`.
#[test]
fn stores_at_the_invocation_index_run_masked() {
    let (n, a, b) = pairs();
    let mut p = prologue(2);
    let (x, y, i) = (p.x, p.y, p.i);
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let (then, merge) = (p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, merge, []).unwrap();
    p.m.b.begin_block(Some(then)).unwrap();
    p.store(0, i, x);
    p.store(1, i, y);
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let case = p.case(n, &a, &b, "two stores in a masked arm");
    assert_eq!(hand_backs(&case), 0);
}

/// A widening under a mask counts only the active lanes (`codegen::conv::affine_resize`):
/// `if (i >= 5) r0[i] = a[i - 5]; if (i < 21) r1[i] = a[20 - i]`. In the first chunk `i - 5`
/// wraps below zero in lanes 0..4 and `20 - i` in none; in the second, `20 - i` wraps in lanes
/// 5..15. The wrapping lanes are inactive each time, so no chunk is handed back.
#[test]
fn widening_counts_only_the_active_lanes() {
    let (n, a, b) = pairs();
    let mut p = prologue(2);
    let (ty, i) = (p.ty, p.i);
    let bt = p.m.b.type_bool();
    let five = p.m.b.constant_bit32(ty, 5);
    let twenty = p.m.b.constant_bit32(ty, 20);
    let twenty_one = p.m.b.constant_bit32(ty, 21);
    for (k, (cond_up, offset)) in [(true, five), (false, twenty)].into_iter().enumerate() {
        let c = if cond_up {
            p.m.b.u_greater_than_equal(bt, None, i, five).unwrap()
        } else {
            p.m.b.u_less_than(bt, None, i, twenty_one).unwrap()
        };
        let (then, merge) = (p.m.b.id(), p.m.b.id());
        p.m.b
            .selection_merge(merge, SelectionControl::NONE)
            .unwrap();
        p.m.b.branch_conditional(c, then, merge, []).unwrap();
        p.m.b.begin_block(Some(then)).unwrap();
        let at = if cond_up {
            p.m.b.i_sub(ty, None, i, offset).unwrap()
        } else {
            p.m.b.i_sub(ty, None, offset, i).unwrap()
        };
        let v = p.load_a(at);
        p.store(k, i, v);
        p.m.b.branch(merge).unwrap();
        p.m.b.begin_block(Some(merge)).unwrap();
    }
    let case = p.case(n, &a, &b, "widenings whose wrapping lanes are inactive");
    assert_eq!(hand_backs(&case), 0);
}

/// A widening that may hand back after a store of its path is checked before the region runs
/// (`Region::prechecked`): `if (a < b) { r0[i] = r0[i] + 1; d = uint64(top - i); r1[i] =
/// uint(d >> 1); }`. In the last chunk the active lanes (the even ones) lie on both sides of
/// the lane where `top - i` wraps: the chunk goes back to the interpreter at the branch, before
/// the increment (which would otherwise run twice); every other chunk runs masked.
#[test]
fn checks_after_a_store_run_before_the_region() {
    let (n, mut a, mut b) = pairs();
    for lane in 0..16 {
        a[n - 16 + lane] = 10;
        b[n - 16 + lane] = if lane % 2 == 0 { 20 } else { 5 };
    }
    let mut p = prologue(2);
    let (ty, x, y, i) = (p.ty, p.x, p.y, p.i);
    let u64t = p.m.b.type_int(64, 0);
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let (then, merge) = (p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, merge, []).unwrap();
    p.m.b.begin_block(Some(then)).unwrap();
    let out0 = p.outputs[0].0;
    let at = p.m.elem_ptr(int(32), out0, i);
    let old = p.m.b.load(ty, None, at, None, []).unwrap();
    let one = p.m.b.constant_bit32(ty, 1);
    let new = p.m.b.i_add(ty, None, old, one).unwrap();
    p.store(0, i, new);
    let top = p.m.b.constant_bit32(ty, n as u32 - 8);
    let down = p.m.b.i_sub(ty, None, top, i).unwrap();
    let d = p.m.b.u_convert(u64t, None, down).unwrap();
    let one64 = p.m.b.constant_bit64(u64t, 1);
    let half = p.m.b.shift_right_logical(u64t, None, d, one64).unwrap();
    let half32 = p.m.b.u_convert(ty, None, half).unwrap();
    p.store(1, i, half32);
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let case = p.case(n, &a, &b, "a widening checked before its region");
    // The last chunk, once on each of `check`'s two JIT runs, at the branch (the end of the
    // entry block), which the kernel's run-time report names.
    let (verdict, kernel) = check(&case);
    assert!(matches!(verdict, Verdict::Agree), "{verdict:?}");
    let kernel = kernel.expect("compiled");
    assert_eq!(kernel.run_stats().hand_backs, 2);
    let sites = kernel.hand_back_sites();
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert_eq!(sites[0].0.0, 0, "{sites:?}");
    let report = tessera_spirv::exec::Kernel::interpreted(&kernel).expect("a report");
    assert!(
        report.contains("2 chunk(s)") && report.contains("block 0 op"),
        "{report}"
    );
}

/// A region of several blocks: a diamond inside one side of a diamond, and a branch on a
/// uniform condition (a real branch under the mask) after it:
/// `if (a < b) { x = (a & 1) != 0 ? a * 3 : b; y = w > 2 ? x + w : x - w; } else { x = 1; y = a ^ b; }
/// r0[i] = x + y` (each `?:` an if/else with a phi).
#[test]
fn nested_branches_run_inside_a_region() {
    let (n, a, b) = pairs();
    let mut p = prologue(1);
    let (ty, x, y, i, w) = (p.ty, p.x, p.y, p.i, p.w);
    let bt = p.m.b.type_bool();
    let c = p.m.b.u_less_than(bt, None, x, y).unwrap();
    let (then, other, merge) = (p.m.b.id(), p.m.b.id(), p.m.b.id());
    p.m.b
        .selection_merge(merge, SelectionControl::NONE)
        .unwrap();
    p.m.b.branch_conditional(c, then, other, []).unwrap();
    // then: x = (a & 1) != 0 ? a * 3 : b
    p.m.b.begin_block(Some(then)).unwrap();
    let one = p.m.b.constant_bit32(ty, 1);
    let three = p.m.b.constant_bit32(ty, 3);
    let zero = p.m.b.constant_bit32(ty, 0);
    let odd = p.m.b.bitwise_and(ty, None, x, one).unwrap();
    let c1 = p.m.b.i_not_equal(bt, None, odd, zero).unwrap();
    let (t1, f1, m1) = (p.m.b.id(), p.m.b.id(), p.m.b.id());
    p.m.b.selection_merge(m1, SelectionControl::NONE).unwrap();
    p.m.b.branch_conditional(c1, t1, f1, []).unwrap();
    p.m.b.begin_block(Some(t1)).unwrap();
    let x1 = p.m.b.i_mul(ty, None, x, three).unwrap();
    p.m.b.branch(m1).unwrap();
    p.m.b.begin_block(Some(f1)).unwrap();
    p.m.b.branch(m1).unwrap();
    p.m.b.begin_block(Some(m1)).unwrap();
    let xt = p.m.b.phi(ty, None, [(x1, t1), (y, f1)]).unwrap();
    // y = w > 2 ? x + w : x - w (uniform)
    let two = p.m.b.constant_bit32(ty, 2);
    let c2 = p.m.b.u_greater_than(bt, None, w, two).unwrap();
    let (t2, f2, m2) = (p.m.b.id(), p.m.b.id(), p.m.b.id());
    p.m.b.selection_merge(m2, SelectionControl::NONE).unwrap();
    p.m.b.branch_conditional(c2, t2, f2, []).unwrap();
    p.m.b.begin_block(Some(t2)).unwrap();
    let y1 = p.m.b.i_add(ty, None, xt, w).unwrap();
    p.m.b.branch(m2).unwrap();
    p.m.b.begin_block(Some(f2)).unwrap();
    let y2 = p.m.b.i_sub(ty, None, xt, w).unwrap();
    p.m.b.branch(m2).unwrap();
    p.m.b.begin_block(Some(m2)).unwrap();
    let yt = p.m.b.phi(ty, None, [(y1, t2), (y2, f2)]).unwrap();
    p.m.b.branch(merge).unwrap();
    // else: x = 1; y = a ^ b
    p.m.b.begin_block(Some(other)).unwrap();
    let yf = p.m.b.bitwise_xor(ty, None, x, y).unwrap();
    p.m.b.branch(merge).unwrap();
    p.m.b.begin_block(Some(merge)).unwrap();
    let xm = p.m.b.phi(ty, None, [(xt, m2), (one, other)]).unwrap();
    let ym = p.m.b.phi(ty, None, [(yt, m2), (yf, other)]).unwrap();
    let s = p.m.b.i_add(ty, None, xm, ym).unwrap();
    p.store(0, i, s);
    let case = p.case(n, &a, &b, "nested branches inside a region");
    assert_eq!(hand_backs(&case), 0);
}

/// Tensor writes under masks (`codegen::edge`): `tensor_edge_lanes`, whose chunks run past
/// its tensors' edges and write runs of two in an `if` half its lanes take, with its `runs`
/// tensor bound fully, then short of memory by two and a half rows. Full, nothing hands back;
/// short, the region checks the view before it starts and the chunk goes to the interpreter,
/// which writes what lies in the memory and nothing past it (the bytes after the window are
/// `0xcd` on both backends).
#[test]
fn tensor_writes_under_masks() {
    use crate::common::{Binding, TensorView};
    use tessera_spirv::TensorElement;
    let spv = include_bytes!("../../../../spirv-tests/cases/tensor_edge_lanes/shader.spv");
    let words = spirv_words(spv);
    let (rows, cols) = (5u64, 37u64);
    let full = (rows * cols * 4) as usize;
    let view = || TensorView {
        format: TensorElement::I32,
        dims: vec![rows, cols],
        strides: vec![cols * 4, 4],
    };
    let tensor = |binding, init: Vec<u8>, name: &str| Binding {
        binding,
        init,
        elem: elem(sint(32)),
        tensor: Some(view()),
        name: name.into(),
    };
    let source: Vec<u8> = (0..full / 4)
        .flat_map(|i| (i as i32 * 3 + 1).to_le_bytes())
        .collect();
    for (runs, expected) in [(full, 0), (full - (cols * 10) as usize, 1)] {
        let case = Case {
            words: words.clone(),
            bindings: vec![
                tensor(0, source.clone(), "src"),
                tensor(1, vec![0xcd; runs], "runs"),
                tensor(2, vec![0xcd; full], "scattered"),
                Binding {
                    binding: 3,
                    init: vec![0; 48 * 6 * 7 * 4],
                    elem: elem(sint(32)),
                    tensor: None,
                    name: "o".into(),
                },
            ],
            dispatch: [3, 6, 1],
            summary: format!("tensor writes under masks, runs memory {runs} bytes"),
        };
        let handed = hand_backs(&case);
        assert_eq!(
            handed > 0,
            expected > 0,
            "{runs} bytes: {handed} hand-backs"
        );
    }
}

/// A divergent `if` that stores, then reads a tensor
/// (`spirv-tests/shaders/masked_store_then_tensor_read.comp`), with the tensor's view fully in
/// memory and then short of it. Short, the region checks the view before its store and hands
/// the chunk back there, so the store runs once (without that check the read handed back after
/// it, and the interpreter, restarting at the branch, ran `s[i] += 5` again). Full, nothing
/// hands back.
#[test]
fn tensor_views_checked_before_a_region_stores() {
    use crate::common::{Binding, TensorView};
    use tessera_spirv::TensorElement;
    let spv = include_bytes!("../../../../spirv-tests/shaders/masked_store_then_tensor_read.spv");
    let words = spirv_words(spv);
    let values: Vec<u8> = (0..64i32).flat_map(|i| (i * 7 - 3).to_le_bytes()).collect();
    let sums: Vec<u8> = (0..128i32).flat_map(|i| (i * 100).to_le_bytes()).collect();
    for (bytes, short) in [(64 * 4, false), (40 * 4, true)] {
        let case = Case {
            words: words.clone(),
            bindings: vec![
                Binding {
                    binding: 0,
                    init: values[..bytes].to_vec(),
                    elem: elem(sint(32)),
                    tensor: Some(TensorView {
                        format: TensorElement::I32,
                        dims: vec![8, 8],
                        strides: vec![32, 4],
                    }),
                    name: "t".into(),
                },
                Binding {
                    binding: 1,
                    init: sums.clone(),
                    elem: elem(sint(32)),
                    tensor: None,
                    name: "s".into(),
                },
            ],
            dispatch: [4, 1, 1],
            summary: format!("a store, then a tensor read, under masks; view memory {bytes} bytes"),
        };
        let handed = hand_backs(&case);
        assert_eq!(handed > 0, short, "{bytes} bytes: {handed} hand-backs");
    }
}
