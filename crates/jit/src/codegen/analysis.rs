//! Program-level passes of the code generator, before and after building the function: which
//! registers the chunk's blocks make dirty, which ones live in their register-file rows, which
//! blocks are barrier-only jumps, and the rewrites of the built function that let Cranelift hoist
//! call-invariant work out of the chunk loop (`exits_first`, `hoist_divisions`).

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, Inst, InstBuilder};
use tessera_spirv::exec::regfile::RegLayout;
use tessera_spirv::ir::liveness::RegSet;
use tessera_spirv::ir::{Ir, Op, Reg, RegType, Term};

use crate::classes::Class;

/// Rewrites every two-way branch whose false target lies in fewer loops than its true target
/// into the negated branch with the targets swapped. Semantics are unchanged; what changes is
/// Cranelift's loop-invariant code motion, which visits a block's dominator-tree children in
/// decreasing CFG post-order (a branch's false target first) and forgets a loop once it visits
/// a block outside it: with a loop's exit as the false target, nothing in the loop body was
/// hoisted (every call recomputed, per chunk, what only depends on the call's invariants).
///
/// Unreachable blocks are removed first ([`drop_unreachable`]), as Cranelift does before its
/// own loop analysis: `LoopAnalysis` walks predecessors, and through unreachable ones it could
/// make a loop its own ancestor and never return (ncnn's GEMM shader, 460 of 1 415 blocks
/// unreachable, kept the compile thread spinning).
pub(super) fn exits_first(func: &mut cranelift_codegen::ir::Function) {
    use cranelift_codegen::dominator_tree::DominatorTree;
    use cranelift_codegen::flowgraph::ControlFlowGraph;
    use cranelift_codegen::ir::InstructionData;
    use cranelift_codegen::loop_analysis::LoopAnalysis;
    drop_unreachable(func);
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut loops = LoopAnalysis::new();
    loops.compute(func, &cfg, &domtree);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        let Some(inst) = func.layout.last_inst(block) else {
            continue;
        };
        let InstructionData::Brif { arg, blocks, .. } = func.dfg.insts[inst] else {
            continue;
        };
        let (then_block, else_block) = (
            blocks[0].block(&func.dfg.value_lists),
            blocks[1].block(&func.dfg.value_lists),
        );
        if loops.loop_level(else_block).level() >= loops.loop_level(then_block).level() {
            continue;
        }
        let mut pos = FuncCursor::new(func).at_inst(inst);
        let negated = pos.ins().icmp_imm_s(IntCC::Equal, arg, 0);
        if let InstructionData::Brif { arg, blocks, .. } = &mut func.dfg.insts[inst] {
            *arg = negated;
            blocks.swap(0, 1);
        }
    }
}

/// Removes the blocks no path from the entry reaches, with their instructions (what
/// Cranelift's `eliminate_unreachable_code` does; a reachable block uses no value they define,
/// since a definition dominates its uses).
pub(super) fn drop_unreachable(func: &mut cranelift_codegen::ir::Function) {
    use cranelift_codegen::entity::EntitySet;
    use cranelift_codegen::flowgraph::ControlFlowGraph;
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let cfg = ControlFlowGraph::with_function(func);
    let mut reached: EntitySet<Block> = EntitySet::new();
    reached.insert(entry);
    let mut stack = vec![entry];
    while let Some(block) = stack.pop() {
        for next in cfg.succ_iter(block) {
            if !reached.contains(next) {
                reached.insert(next);
                stack.push(next);
            }
        }
    }
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        if reached.contains(block) {
            continue;
        }
        while let Some(inst) = func.layout.first_inst(block) {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(block);
    }
}

/// Moves every division of `safe` whose operands only depend on what the entry block defines
/// (the call's invariants: the context's fields, the workgroup id of an unfused group, tensor
/// queries, constants) into the entry block, with the pure instructions it depends on; with
/// group batches (`group_jump`, the end of the group loop's head), a division that depends on
/// what the group head defines too (the group's workgroup id) moves there.
///
/// Cranelift's loop-invariant code motion only moves pure instructions, and a division may trap,
/// so it stays where it is, once per chunk, and so does everything computed from it (a rank-4
/// tensor's coordinates `z / d1`, `z % d1` and their offsets). The divisions in `safe` cannot
/// trap (their divisors are selected away from 0 and -1 first), so running them once, before
/// the loop, whether or not the chunk reaches them, gives the same results.
pub(super) fn hoist_divisions(
    func: &mut cranelift_codegen::ir::Function,
    safe: &[Inst],
    group_jump: Option<Inst>,
) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let Some(entry_end) = func.layout.last_inst(entry) else {
        return;
    };
    let safe: std::collections::HashSet<Inst> = safe.iter().copied().collect();
    let mut order: Vec<Inst> = safe.iter().copied().collect();
    order.sort_by_key(|i| i.as_u32());
    let mut targets = vec![(vec![entry], entry_end)];
    if let Some(at) = group_jump
        && let Some(head) = func.layout.inst_block(at)
    {
        targets.push((vec![entry, head], at));
    }
    for (homes, end) in targets {
        let mut movable = std::collections::HashMap::new();
        for &div in &order {
            if func.layout.inst_block(div).is_none()
                || !may_move(func, &homes, div, &safe, &mut movable, 0)
            {
                continue;
            }
            move_with_operands(func, &homes, div, end);
        }
    }
}

/// Whether pure or safe instruction `inst` (and what it depends on) can run at the end of the
/// last block of `homes`: every operand comes from a block of `homes` (each dominating the
/// next) or from such an instruction.
fn may_move(
    func: &cranelift_codegen::ir::Function,
    homes: &[Block],
    inst: Inst,
    safe: &std::collections::HashSet<Inst>,
    movable: &mut std::collections::HashMap<Inst, bool>,
    depth: usize,
) -> bool {
    use cranelift_codegen::ir::ValueDef;
    if func
        .layout
        .inst_block(inst)
        .is_some_and(|b| homes.contains(&b))
    {
        return true;
    }
    if let Some(&m) = movable.get(&inst) {
        return m;
    }
    let op = func.dfg.insts[inst].opcode();
    let pure = !(op.can_trap()
        || op.can_load()
        || op.can_store()
        || op.is_call()
        || op.is_branch()
        || op.is_terminator()
        || op.other_side_effects());
    let ok = depth < 64
        && (safe.contains(&inst) || pure)
        && func.dfg.inst_args(inst).iter().all(|&a| {
            match func.dfg.value_def(func.dfg.resolve_aliases(a)) {
                ValueDef::Result(d, _) => may_move(func, homes, d, safe, movable, depth + 1),
                ValueDef::Param(b, _) => homes.contains(&b),
                ValueDef::Union(..) => false,
            }
        });
    movable.insert(inst, ok);
    ok
}

/// Moves `inst` and the instructions it depends on that are not in `homes` before `end`,
/// operands first.
fn move_with_operands(
    func: &mut cranelift_codegen::ir::Function,
    homes: &[Block],
    inst: Inst,
    end: Inst,
) {
    use cranelift_codegen::ir::ValueDef;
    let mut stack = vec![(inst, false)];
    while let Some((inst, ready)) = stack.pop() {
        if func
            .layout
            .inst_block(inst)
            .is_some_and(|b| homes.contains(&b))
        {
            continue;
        }
        if ready {
            func.layout.remove_inst(inst);
            func.layout.insert_inst(inst, end);
            continue;
        }
        stack.push((inst, true));
        for &a in func.dfg.inst_args(inst) {
            if let ValueDef::Result(d, _) = func.dfg.value_def(func.dfg.resolve_aliases(a)) {
                stack.push((d, false));
            }
        }
    }
}

/// Per block: `Some(target)` when it holds only workgroup barriers (or meeting points,
/// `Converge`) and jumps to `target` with no edge copies (`Output::barrier_jumps`).
pub(super) fn barrier_jumps(ir: &Ir) -> Vec<Option<u32>> {
    ir.blocks
        .iter()
        .map(|blk| match &blk.term {
            Term::Jump(e)
                if e.moves.is_empty()
                    && !blk.ops.is_empty()
                    && blk
                        .ops
                        .iter()
                        .all(|op| matches!(op, Op::Barrier {} | Op::Converge {})) =>
            {
                Some(e.target)
            }
            _ => None,
        })
        .collect()
}

/// Per block: the registers that may have been defined, on some path into the block, since the
/// chunk last yielded at a sync block (or since it started: every register, at block 0). A yield
/// stores only those of its live registers; the rows of the others hold their values since the
/// last yield, which stored them (a register live at a yield and not defined since the one
/// before was live there too). Every other way into compiled code reloads from rows that hold
/// the values: a resume after a sync block the driver ran, a hand-back's interpreter run (which
/// writes what it defines), a parked latch (which stores every live register).
pub(super) fn dirty_registers(ir: &Ir, sync: &[bool]) -> Vec<RegSet> {
    let n = ir.blocks.len();
    let regs = ir.reg_types.len() as u32;
    let defs: Vec<RegSet> = ir
        .blocks
        .iter()
        .map(|blk| {
            let mut d = RegSet::new(regs);
            for op in &blk.ops {
                op.for_each_def(|r| d.insert(r));
            }
            for e in blk.term.edges() {
                for &(dst, _) in &e.moves {
                    d.insert(dst);
                }
            }
            d
        })
        .collect();
    let mut dirty = vec![RegSet::new(regs); n];
    if n == 0 {
        return dirty;
    }
    for r in 0..regs {
        dirty[0].insert(r);
    }
    loop {
        let mut changed = false;
        for b in 0..n {
            // Past a sync block every live register is in its row.
            if sync[b] {
                continue;
            }
            let mut out = dirty[b].clone();
            out.union_with(&defs[b]);
            for e in ir.blocks[b].term.edges() {
                if let Some(d) = dirty.get_mut(e.target as usize) {
                    changed |= d.union_with(&out);
                }
            }
        }
        if !changed {
            return dirty;
        }
    }
}

/// The registers that hold an invocation id: the global and local ids, the local index, and
/// registers every definition of which copies one of those. Compiled code runs dispatches whose
/// ids stay below 2^31 (the driver interprets the others), so their lanes, affine or not, never
/// wrap in 32 bits, signed or unsigned: widening one needs no check.
pub(crate) fn invocation_ids(ir: &Ir) -> Vec<bool> {
    let n = ir.reg_types.len();
    let mut ids = vec![false; n];
    let b = &ir.builtins;
    for (base, len) in [(b.global_id, 3), (b.local_id, 3), (b.local_index, 1)] {
        if let Some(base) = base {
            for r in base..base + len {
                ids[r as usize] = true;
            }
        }
    }
    // Per register: the sources of its definitions when every one is a copy (`Some`), else
    // `None` (defined otherwise, or by an edge copy: a phi).
    let mut sources: Vec<Option<Vec<Reg>>> = vec![Some(Vec::new()); n];
    for op in ir.blocks.iter().flat_map(|blk| &blk.ops) {
        let src = match op {
            Op::Mov { src, .. } => Some(*src),
            _ => None,
        };
        op.for_each_def(|d| match (&mut sources[d as usize], src) {
            (Some(list), Some(s)) => list.push(s),
            (slot, _) => *slot = None,
        });
    }
    for e in ir.blocks.iter().flat_map(|blk| blk.term.edges()) {
        for &(d, _) in &e.moves {
            sources[d as usize] = None;
        }
    }
    // Copies of ids are ids (growing: a copy cycle never becomes one).
    loop {
        let mut changed = false;
        for r in 0..n {
            if ids[r] {
                continue;
            }
            if let Some(list) = &sources[r]
                && !list.is_empty()
                && list.iter().all(|&s| ids[s as usize])
            {
                ids[r] = true;
                changed = true;
            }
        }
        if !changed {
            return ids;
        }
    }
}

/// The registers of every function variable (`Op::LoadVar`/`Op::StoreVar`'s `var`) that some
/// access indexes with a computed (non-constant) index, when its registers are varying, of one
/// non-bool type, and have rows at one stride: they live in their rows, so that such an access
/// is one address computation and a load or store, not a select over every register of the
/// variable (an array of cooperative matrices indexed by loop counters has hundreds).
///
/// The components of cooperative matrices that multiply-adds read or write, and those loads
/// define, live in their rows too: the native kernels read and write the rows, so the values
/// never go through vector registers and spills on the way in and out.
pub(super) fn resident_registers(ir: &Ir, classes: &[Class], layout: &RegLayout) -> Vec<bool> {
    /// Smaller variables stay in variables: a short select chain costs less than the stores.
    const MIN_LEN: u32 = 4;
    let mut resident = vec![false; ir.reg_types.len()];
    let in_row =
        |r: Reg| classes[r as usize] == Class::Varying && ir.reg_types[r as usize] != RegType::Bool;
    for op in ir.blocks.iter().flat_map(|b| &b.ops) {
        let matrix_regs: Vec<Reg> = match op {
            Op::CoopMatMulAdd { dsts, a, b, c, .. } => dsts
                .iter()
                .chain(a.iter())
                .chain(b.iter())
                .chain(c.iter())
                .copied()
                .collect(),
            Op::CoopMatLoad { dsts, .. } => dsts.to_vec(),
            _ => Vec::new(),
        };
        for r in matrix_regs {
            if in_row(r) {
                resident[r as usize] = true;
            }
        }
    }
    for op in ir.blocks.iter().flat_map(|b| &b.ops) {
        let (Op::LoadVar { var, index, .. } | Op::StoreVar { var, index, .. }) = op else {
            continue;
        };
        if matches!(classes[*index as usize], Class::Const(_)) || var.len < MIN_LEN {
            continue;
        }
        let regs = var.base as usize..(var.base + var.len) as usize;
        let ty = ir.reg_types[var.base as usize];
        let all: Vec<Reg> = (var.base..var.base + var.len).collect();
        let fits = ty != RegType::Bool
            && regs
                .clone()
                .all(|r| classes[r] == Class::Varying && ir.reg_types[r] == ty)
            && row_stride(layout, &all).is_some();
        if fits {
            resident[regs].fill(true);
        }
    }
    resident
}

/// The distance between the rows of `regs` when they lie at one stride (0 for one register).
pub(super) fn row_stride(layout: &RegLayout, regs: &[Reg]) -> Option<i64> {
    let offset = |r: Reg| layout.offsets[r as usize] as i64;
    let first = offset(*regs.first()?);
    let stride = regs.get(1).map_or(0, |&r| offset(r) - first);
    regs.iter()
        .enumerate()
        .all(|(i, &r)| offset(r) == first + i as i64 * stride)
        .then_some(stride)
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::types::I32;
    use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// How a block of [`function`] ends: returns, jumps, or branches on the argument.
    enum End {
        Return,
        Jump(usize),
        Branch(usize, usize),
    }

    /// A function of `ends.len()` blocks (block 0 the entry), block `i` ending as `ends[i]` says.
    fn function(ends: &[End]) -> Function {
        let mut func = Function::new();
        func.signature = Signature::new(CallConv::SystemV);
        func.signature.params.push(AbiParam::new(I32));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let blocks: Vec<_> = ends.iter().map(|_| b.create_block()).collect();
        b.append_block_params_for_function_params(blocks[0]);
        b.switch_to_block(blocks[0]);
        let c = b.block_params(blocks[0])[0];
        for (i, end) in ends.iter().enumerate() {
            b.switch_to_block(blocks[i]);
            match *end {
                End::Return => b.ins().return_(&[]),
                End::Jump(t) => b.ins().jump(blocks[t], &[]),
                End::Branch(t, f) => b.ins().brif(c, blocks[t], &[], blocks[f], &[]),
            };
        }
        b.seal_all_blocks();
        let isa = crate::target_isa(crate::RegisterAllocator::SinglePass).expect("host ISA");
        b.finalize(isa.frontend_config());
        func
    }

    /// Blocks 4, 6 and 7 are unreachable and jump into the loops of the others: Cranelift's
    /// `LoopAnalysis` over the whole function never returns (found by a random search over
    /// 10-block functions).
    #[test]
    fn unreachable_blocks_are_dropped_before_the_loop_analysis() {
        use End::*;
        let ends = [
            Jump(1),
            Branch(3, 2),
            Jump(8),
            Jump(5),
            Branch(5, 8),
            Branch(3, 1),
            Branch(3, 9),
            Jump(4),
            Branch(2, 9),
            Return,
        ];
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut func = function(&ends);
            super::exits_first(&mut func);
            let _ = send.send(func.layout.blocks().count());
        });
        let blocks = receive
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("exits_first returns");
        assert_eq!(
            blocks, 7,
            "the three unreachable blocks are gone, the others stay"
        );
    }
}
