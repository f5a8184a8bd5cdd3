//! Huge straight-line programs: past `SINGLE_PASS_REGALLOC_ABOVE_OPS` IR ops the JIT switches
//! to Cranelift's single-pass register allocator (the backtracking one took minutes on the
//! CTS's fully unrolled 1024-component cooperative vectors). The code it gives must still agree
//! with the interpreter, with many values live at once.

use rspirv::spirv::{AddressingModel, Capability, MemoryModel};
use tessera_spirv::{Module, Program};

use tessera_jit::RegisterAllocator;

use crate::common::{Case, compare, dispatch};
use crate::support::*;

/// `r[n·i + k] = a[n·i + k] + a[n·i + n-1-k]` for k < n, unrolled: all n loads come first, so
/// n values are live at once.
fn reversed_pair_sums(n: u32) -> Case {
    let t = int(32);
    let mut m = Mod::new();
    m.b.capability(Capability::Shader);
    m.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let (a, a_binding) = m.buffer(t);
    let (r, r_binding) = m.buffer(t);
    let (f, i, _) = m.begin_main();
    let ty = m.ty(t);
    let width = m.b.constant_bit32(ty, n);
    let base = m.b.i_mul(ty, None, i, width).unwrap();
    let mut loaded = Vec::new();
    for k in 0..n {
        let offset = m.b.constant_bit32(ty, k);
        let at = m.b.i_add(ty, None, base, offset).unwrap();
        let pointer = m.elem_ptr(t, a, at);
        loaded.push((at, m.b.load(ty, None, pointer, None, []).unwrap()));
    }
    for (k, &(at, value)) in loaded.iter().enumerate() {
        let mirror = loaded[loaded.len() - 1 - k].1;
        let sum = m.b.i_add(ty, None, value, mirror).unwrap();
        let pointer = m.elem_ptr(t, r, at);
        m.b.store(pointer, sum, None, []).unwrap();
    }
    let words = m.finish(f);
    let lanes = 32usize; // two workgroups of 16
    let a_bytes: Vec<u8> = (0..lanes * n as usize)
        .flat_map(|x| (x as u32).wrapping_mul(2_654_435_761).to_le_bytes())
        .collect();
    Case {
        words,
        bindings: vec![
            buffer(t, a_binding, a_bytes, "a"),
            buffer(t, r_binding, vec![0; 4 * lanes * n as usize], "r"),
        ],
        dispatch: [2, 1, 1],
        summary: format!("{n} unrolled reversed-pair sums"),
    }
}

/// The single-pass allocator's code agrees with the interpreter with every value live at once
/// (forced on a program small enough for a debug-build test; programs past
/// `SINGLE_PASS_REGALLOC_ABOVE_OPS` get it by themselves).
#[test]
fn single_pass_allocation_with_many_live_values() {
    let case = reversed_pair_sums(160);
    let module = Module::parse(&case.words).unwrap();
    let program = Program::new(&module, "main", &[]).unwrap();
    let kernel =
        tessera_jit::compile_with_allocator(&program, RegisterAllocator::SinglePass).unwrap();
    assert_eq!(kernel.op_counts().1, 0, "{:?}", kernel.fallbacks());
    let want = dispatch(&case, &program, None, 1).unwrap();
    for threads in [1, 2] {
        let got = dispatch(&case, &program, Some(&kernel), threads).unwrap();
        assert_eq!(compare(&case, &want, &got), None, "{threads} thread(s)");
    }
    assert_eq!(kernel.run_stats().hand_backs, 0);
}

#[test]
fn the_allocator_follows_the_program_size() {
    use tessera_jit::SINGLE_PASS_REGALLOC_ABOVE_OPS as LIMIT;
    assert_eq!(
        RegisterAllocator::for_ops(725),
        RegisterAllocator::Backtracking
    );
    assert_eq!(
        RegisterAllocator::for_ops(LIMIT),
        RegisterAllocator::Backtracking
    );
    assert_eq!(
        RegisterAllocator::for_ops(LIMIT + 1),
        RegisterAllocator::SinglePass
    );
    assert_eq!(
        RegisterAllocator::for_ops(14_350),
        RegisterAllocator::SinglePass
    );
}
