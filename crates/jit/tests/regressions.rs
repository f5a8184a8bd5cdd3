//! Focused regression tests for bugs the differential fuzzer found (`fuzz.rs` keeps the seeds):
//! each pins the reference result the interpreter must give and checks that the JIT agrees.

mod common;

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, LoopControl, MemoryModel, StorageClass, Word,
};

use common::{Binding, Case, Elem, Verdict, check};

/// A module with one `uint`/`ulong` output buffer at binding 0 and `GlobalInvocationId.x`;
/// `body(b, out, gid, entry label)` emits the code between the entry block's start and the
/// return.
fn module(
    local: u32,
    elem_bits: u32,
    caps: &[Capability],
    body: impl FnOnce(&mut Builder, Word, Word, Word),
) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(Capability::Shader);
    for &c in caps {
        b.capability(c);
    }
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let u = b.type_int(32, 0);
    let et = b.type_int(elem_bits, 0);
    let rt = b.type_runtime_array(et);
    let st = b.type_struct([rt]);
    b.decorate(
        rt,
        Decoration::ArrayStride,
        [Operand::LiteralBit32(elem_bits / 8)],
    );
    b.decorate(st, Decoration::Block, []);
    b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let pt = b.type_pointer(None, StorageClass::StorageBuffer, st);
    let out = b.variable(pt, None, StorageClass::StorageBuffer, None);
    b.decorate(out, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(out, Decoration::Binding, [Operand::LiteralBit32(0)]);
    let u3 = b.type_vector(u, 3);
    let pin = b.type_pointer(None, StorageClass::Input, u3);
    let gid_var = b.variable(pin, None, StorageClass::Input, None);
    b.decorate(
        gid_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
    );
    let void = b.type_void();
    let fty = b.type_function(void, vec![]);
    let f = b
        .begin_function(void, None, FunctionControl::NONE, fty)
        .unwrap();
    let entry = b.id();
    b.begin_block(Some(entry)).unwrap();
    let g3 = b.load(u3, None, gid_var, None, []).unwrap();
    let gid = b.composite_extract(u, None, g3, [0]).unwrap();
    body(&mut b, out, gid, entry);
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::GLCompute, f, "main", vec![gid_var, out]);
    b.execution_mode(f, ExecutionMode::LocalSize, [local, 1, 1]);
    b.module().assemble()
}

/// `out[index] = value` for a `bits`-wide element.
fn store(b: &mut Builder, out: Word, bits: u32, index: Word, value: Word) {
    let u = b.type_int(32, 0);
    let et = b.type_int(bits, 0);
    let pe = b.type_pointer(None, StorageClass::StorageBuffer, et);
    let z = b.constant_bit32(u, 0);
    let p = b.access_chain(pe, None, out, [z, index]).unwrap();
    b.store(p, value, None, []).unwrap();
}

/// Runs `case` on both backends (they must agree) and returns the interpreter's output.
fn run(case: &Case) -> Vec<u8> {
    let (verdict, _) = check(case);
    assert!(
        matches!(verdict, Verdict::Agree),
        "{}: {verdict:?}",
        case.summary
    );
    let module = tessera_spirv::Module::parse(&case.words).unwrap();
    let program = tessera_spirv::Program::new(&module, "main", &[]).unwrap();
    common::dispatch(case, &program, None, 1).unwrap().remove(0)
}

/// Seed 1017308: a 64-bit shift amount above `u32::MAX` used to get a 32-bit constant register,
/// which cut `2 >> 0x8000_0000_0000_0001` to `2 >> 1` in the interpreter (the JIT folded the
/// full value). Amounts of the width or more give 0 (Tessera's choice for this undefined case).
#[test]
fn shift_by_a_wide_64_bit_constant() {
    let words = module(16, 64, &[Capability::Int64], |b, out, gid, _| {
        let ul = b.type_int(64, 0);
        let two = b.constant_bit64(ul, 2);
        let amount = b.constant_bit64(ul, 0x8000_0000_0000_0001);
        let x = b.u_convert(ul, None, gid).unwrap();
        let x = b.i_add(ul, None, x, two).unwrap();
        // Constant and varying values shifted by the constant.
        let c = b.shift_right_logical(ul, None, two, amount).unwrap();
        let v = b.shift_left_logical(ul, None, x, amount).unwrap();
        let u = b.type_int(32, 0);
        let k2 = b.constant_bit32(u, 2);
        let one = b.constant_bit32(u, 1);
        let i0 = b.i_mul(u, None, gid, k2).unwrap();
        let i1 = b.i_add(u, None, i0, one).unwrap();
        store(b, out, 64, i0, c);
        store(b, out, 64, i1, v);
    });
    let case = Case {
        words,
        bindings: vec![Binding {
            binding: 0,
            init: vec![0xcd; 16 * 2 * 8],
            elem: Elem::Int(8),
            tensor: None,
            name: "out".into(),
        }],
        dispatch: [1, 1, 1],
        summary: "shift by a wide 64-bit constant".into(),
    };
    let out = run(&case);
    assert!(out.iter().all(|&b| b == 0), "{out:?}");
}

/// Seed 1009738 and most of the fuzzer's failures: a subgroup operation in a loop with
/// per-lane trip counts. The interpreter always runs the lowest block any lane waits at, so
/// lanes that finished the inner loop wait at its exit while the others run the next inner
/// iteration's `BroadcastFirst` alone. The JIT's driver let a chunk whose lanes had left the
/// inner loop go round the outer loop and meet the other chunk of their subgroup at the
/// broadcast, one iteration early.
///
/// Lanes `16..32` of each subgroup (of 32) run the inner loop twice, lanes `0..16` once; the
/// outer loop runs twice. Each execution of the broadcast stores the first active lane's id at
/// `out[gid·4 + k]` (`k` counts the lane's executions), so lanes `0..16` see `[base, base]`
/// and lanes `16..32` `[base, base + 16, base, base + 16]`.
#[test]
fn subgroup_op_in_divergent_nested_loops() {
    let words = module(
        64,
        32,
        &[
            Capability::GroupNonUniform,
            Capability::GroupNonUniformBallot,
        ],
        |b, out, gid, entry_label| {
            let u = b.type_int(32, 0);
            let bool_t = b.type_bool();
            let pu = b.type_pointer(None, StorageClass::Function, u);
            let c0 = b.constant_bit32(u, 0);
            let c1 = b.constant_bit32(u, 1);
            let c2 = b.constant_bit32(u, 2);
            let c3 = b.constant_bit32(u, 3);
            let c4 = b.constant_bit32(u, 4);
            // (rspirv puts function variables at the start of the first block.)
            let k_var = b.variable(pu, None, StorageClass::Function, None);
            b.store(k_var, c0, None, []).unwrap();
            // trip = ((gid >> 4) & 1) + 1
            let t = b.shift_right_logical(u, None, gid, c4).unwrap();
            let t = b.bitwise_and(u, None, t, c1).unwrap();
            let trip = b.i_add(u, None, t, c1).unwrap();
            let (oh, oc, ob, om, ocont) = (b.id(), b.id(), b.id(), b.id(), b.id());
            let (ih, ic, ib, im, icont) = (b.id(), b.id(), b.id(), b.id(), b.id());
            let (i, i1, j, j1) = (b.id(), b.id(), b.id(), b.id());
            b.branch(oh).unwrap();
            // Outer header.
            b.begin_block(Some(oh)).unwrap();
            b.phi(u, Some(i), [(c0, entry_label), (i1, ocont)]).unwrap();
            b.loop_merge(om, ocont, LoopControl::NONE, []).unwrap();
            b.branch(oc).unwrap();
            b.begin_block(Some(oc)).unwrap();
            let more = b.u_less_than(bool_t, None, i, c2).unwrap();
            b.branch_conditional(more, ob, om, []).unwrap();
            b.begin_block(Some(ob)).unwrap();
            b.branch(ih).unwrap();
            // Inner header.
            b.begin_block(Some(ih)).unwrap();
            b.phi(u, Some(j), [(c0, ob), (j1, icont)]).unwrap();
            b.loop_merge(im, icont, LoopControl::NONE, []).unwrap();
            b.branch(ic).unwrap();
            b.begin_block(Some(ic)).unwrap();
            let more = b.u_less_than(bool_t, None, j, trip).unwrap();
            b.branch_conditional(more, ib, im, []).unwrap();
            b.begin_block(Some(ib)).unwrap();
            let v = b
                .group_non_uniform_broadcast_first(u, None, c3, gid)
                .unwrap();
            let k = b.load(u, None, k_var, None, []).unwrap();
            let at = b.i_mul(u, None, gid, c4).unwrap();
            let at = b.i_add(u, None, at, k).unwrap();
            store(b, out, 32, at, v);
            let k1 = b.i_add(u, None, k, c1).unwrap();
            b.store(k_var, k1, None, []).unwrap();
            b.branch(icont).unwrap();
            b.begin_block(Some(icont)).unwrap();
            b.i_add(u, Some(j1), j, c1).unwrap();
            b.branch(ih).unwrap();
            b.begin_block(Some(im)).unwrap();
            b.branch(ocont).unwrap();
            b.begin_block(Some(ocont)).unwrap();
            b.i_add(u, Some(i1), i, c1).unwrap();
            b.branch(oh).unwrap();
            b.begin_block(Some(om)).unwrap();
        },
    );
    let n = 128u32;
    let case = Case {
        words,
        bindings: vec![Binding {
            binding: 0,
            init: vec![0xff; n as usize * 4 * 4],
            elem: Elem::Int(4),
            tensor: None,
            name: "out".into(),
        }],
        dispatch: [n / 64, 1, 1],
        summary: "subgroup op in divergent nested loops".into(),
    };
    let out = run(&case);
    let got: Vec<u32> = out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for gid in 0..n {
        let base = gid & !31;
        let want: Vec<u32> = if gid & 16 == 0 {
            vec![base, base, u32::MAX, u32::MAX]
        } else {
            vec![base, base + 16, base, base + 16]
        };
        let at = gid as usize * 4;
        assert_eq!(got[at..at + 4], want[..], "invocation {gid}");
    }
}
