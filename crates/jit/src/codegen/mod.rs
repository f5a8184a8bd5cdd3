//! The code generator: one Cranelift function per program that runs chunks of [`LANES`] lanes
//! of a lane group through the whole control-flow graph (see the crate docs for the model).
//!
//! Layout of the generated function `f(ctx) -> status`:
//! - `chunk_head`: while `ctx.chunk < ctx.chunk_end`, start the chunk: its built-ins, then
//!   block 0 (fresh) or, in resume mode, the block its lanes wait at
//!   (`resume_dispatch`, one entry per block a sync block can lead to, reloading and checking
//!   the live registers);
//! - one Cranelift block per IR block (`bodies`), with the IR block's ops and terminator;
//! - a chunk ends at `Exit` (`chunk_done`), at a jump to a sync block (its live registers are
//!   saved and its lanes' block indices set: the driver runs the sync block for the whole lane
//!   group), or by handing the chunk back to the interpreter (`hand_back`: live registers saved,
//!   `ctx.stop_block`/`stop_op` set, status `HAND_BACK`) when its lanes diverge or a check of
//!   the compiled form fails; a divergent branch with a one-block arm that qualifies runs that
//!   arm under a mask instead (`maskable_arm`, `masked_arm`);
//! - at the end of the chunk range, when every chunk yielded at the same barrier-only block,
//!   the next round starts at chunk 0, each chunk entering the barrier's target with unchecked
//!   reloads (`next_round`, `round_dispatch`; the driver allows it per call with `ctx.rounds`);
//! - hand-backs and aborts leave through `chunk_head` (status in `exit_status`), the loop's only
//!   exits, `finish` and `out`, come last, and `exits_first` puts loop exits on the true side of
//!   branches: what Cranelift's loop-invariant code motion needs to hoist call-invariant work
//!   out of the chunk loop (see `leave`).
//!
//! Invariants: generated code reads and writes application memory only after checking the access
//! against its window; every register the interpreter may read after a hand-back is in the
//! register file first; back edges count down the poll count (`ctx.poll`, kept in a variable
//! during the call) and call the watchdog at zero, through a trampoline that clobbers no
//! register (`build_poll_trampoline`).

mod conv;
mod coop;
mod dot;
mod float;
mod gather;
mod half;
mod math;
mod memory;
mod narrow;
mod ops;
mod physical;
mod tern;
mod tile;
pub(crate) mod values;
mod vars;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, Inst, InstBuilder, MemFlagsData, SigRef, Signature, Type,
    UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use tessera_spirv::Program;
use tessera_spirv::exec::GroupShape;
use tessera_spirv::exec::regfile::RegLayout;
use tessera_spirv::ir::liveness::{Liveness, RegSet};
use tessera_spirv::ir::{DescIdx, Edge, Ir, Op, Reg, RegType, Role, Space, Term};

use crate::classes::{Class, LANES};
use crate::ctx::{field, status};
use memory::Sites;
use values::{JVal, Vars, own_flags, scalar_ty, vec_ty};

/// Block index of a finished lane (the interpreter's).
pub(crate) const DONE: u32 = u32::MAX;

/// What compiling produced, besides the function.
pub(crate) struct Output {
    pub(crate) sites: Sites,
    /// Ops handed to the interpreter by `ctx::run_op`, by index.
    pub(crate) callouts: Vec<Op>,
    /// Cooperative-vector ops run by `ctx::coop` (native kernels), by index.
    pub(crate) natives: Vec<Op>,
    pub(crate) has_sync: bool,
    /// Guarded latches (`tessera_spirv::ir::sched::guarded_latches`), by block.
    pub(crate) guarded: Vec<bool>,
    /// Some block is a guarded latch: the driver runs chunks one at a time, each with its
    /// `Ctx::floor`.
    pub(crate) has_guard: bool,
    /// Lanes per workgroup (subgroups do not cross workgroups).
    pub(crate) wg_size: u32,
    /// Compiled code reads a built-in from its row (a varying one), so the driver writes the
    /// rows when it starts a group; otherwise only the interpreter needs them, and gets them
    /// when it first runs (`Worker::begin_group`).
    pub(crate) builtin_rows: bool,
    /// How many ops run natively and how many through the interpreter (for the log).
    pub(crate) native_ops: usize,
    /// Per block: `Some(target)` when it holds only workgroup barriers and jumps to `target`
    /// with no edge copies (the driver then moves the lanes waiting there without the
    /// interpreter).
    pub(crate) barrier_jumps: Vec<Option<u32>>,
    /// The function runs batches of groups (`Ctx::groups`; see `Gen::batched`).
    pub(crate) batched: bool,
}

/// Signatures of the callbacks, and the watchdog poll's trampoline.
pub(crate) struct Sigs {
    pub(crate) run_op: SigRef,
    /// `ctx::physical`: (ctx, device address, size) → host address or null.
    pub(crate) physical: SigRef,
    pub(crate) poll: FuncRef,
}

pub(crate) struct Gen<'a> {
    pub(crate) ir: &'a Ir,
    pub(crate) layout: &'a RegLayout,
    pub(crate) shape: GroupShape,
    pub(crate) classes: Vec<Class>,
    /// Registers of `Ir::consts` (their rows hold the value already).
    pub(crate) ir_const: Vec<bool>,
    live: Liveness,
    pub(crate) b: FunctionBuilder<'a>,
    pub(crate) vars: Vec<Vars>,
    /// Registers that live in their register-file row, not in Cranelift variables: those of a
    /// variable indexed by a computed index (`resident_registers`).
    pub(crate) resident: Vec<bool>,
    /// Per varying bool register: variables that say, as scalars (`I8` 0/1), whether every
    /// lane of it is true and whether some lane is (set with it, `Gen::set`). A branch on the
    /// register tests them: they follow it through block parameters, where `decided` cannot.
    pub(crate) lane_flags: Vec<Option<(Variable, Variable)>>,
    /// The function's `ctx` parameter.
    pub(crate) ctx: Value,
    chunk: Variable,
    bodies: Vec<Block>,
    sync: Vec<bool>,
    guarded: Vec<bool>,
    chunk_done: Block,
    /// What the call returns once it leaves the chunk loop (`status`; 0 while it runs).
    exit_status: Variable,
    /// `Ctx::poll` while the call runs (`I32`, in a register: stored back when it returns,
    /// reloaded after the watchdog's call, which resets it).
    poll: Variable,
    /// Where a hand-back or an abort goes: back to the chunk loop's head, which returns
    /// `exit_status`. Leaving through the head keeps every block of the body inside the loop
    /// (a `return` in the body would not be), which Cranelift's loop-invariant code motion
    /// needs: its elaborator forgets a loop after visiting a block outside it, and hoists
    /// nothing out of the loop blocks it visits later.
    leave: Block,
    pub(crate) sigs: Sigs,
    pub(crate) sites: Sites,
    pub(crate) callouts: Vec<Op>,
    pub(crate) natives: Vec<Op>,
    pub(crate) native_ops: usize,
    has_sync: bool,
    builtin_rows: bool,
    /// Where code is being generated: (block, op index), for hand-backs.
    pub(crate) at: (u32, usize),
    /// While a divergent branch's one-block arm runs under a mask (`masked_arm`): the active
    /// lanes (`I8X16`, 0 or 1 per lane) and where a hand-back restarts instead of `at` (the
    /// branch, before any of the arm's effects).
    pub(crate) mask: Option<(Value, (u32, usize))>,
    /// The entry block's jump into the chunk loop: loads of what stays put for a whole call
    /// (the context's tables, window and tensor-site fields) go before it, once (`inv_load`).
    entry_jump: Option<Inst>,
    invariants: std::collections::HashMap<(Value, i32, Type), Value>,
    /// While set, `inv_load` loads where the code is, not once in the entry block: for code on
    /// a path that seldom runs (a tensor access's general path behind its row path), whose
    /// call invariants would otherwise stay live, in registers or spilled, through every loop.
    pub(crate) cold_loads: bool,
    /// Divisions whose divisor was made safe (never 0, never -1 for signed ones): they cannot
    /// trap, so `hoist_divisions` may move them out of the chunk loop.
    safe_divisions: Vec<Inst>,
    /// Tiles of strided tensor reads in loops (`tile`).
    pub(crate) tiles: tile::Tiles,
    /// Bool vectors (`I8X16` of 0/1) whose "every lane true" and "some lane true" are known
    /// as scalars (`I8` 0/1) defined with them (`icmp_affine`, and `Not` of those): a branch
    /// on one tests the scalars instead of the vector.
    pub(crate) decided: std::collections::HashMap<Value, (Value, Value)>,
    /// Barrier rounds (see `next_round`): per block, the block a barrier-only block jumps
    /// to; whether any block is one (and the program has sync blocks).
    round_targets: Vec<Option<u32>>,
    rounds: bool,
    /// Per block: the registers that may have been defined since the chunk last yielded at a
    /// sync block, or since it started (`dirty_registers`).
    dirty: Vec<RegSet>,
    /// The sync block every chunk of this round has yielded at so far (`ROUND_NONE`: no chunk
    /// yet; `ROUND_MIXED`: chunks went different ways, or the round is not the whole group).
    gathered: Variable,
    /// In a barrier round, the block every chunk starts at (`ROUND_NONE` otherwise).
    direct: Variable,
    /// Group batches: a program without sync ops and one workgroup per lane group runs
    /// `Ctx::groups` workgroups per call, an outer loop around the chunk loop (the driver's
    /// per-group work and the function's entry paid once per batch). `group` is the batch index
    /// (`I32`); `group_ids` the current group's `wg_ids` entry, computed in `group_head` before
    /// `group_jump`, where `group_load` puts what stays put for a group (its workgroup id).
    batched: bool,
    group: Variable,
    group_ids: Option<Value>,
    group_jump: Option<Inst>,
    group_invariants: std::collections::HashMap<(i32, Type), Value>,
}

/// `Gen::gathered` before any chunk yielded, and `Gen::direct` outside a barrier round.
const ROUND_NONE: i64 = u32::MAX as i64 - 1;
/// `Gen::gathered` once the round cannot continue in compiled code.
const ROUND_MIXED: i64 = u32::MAX as i64;

/// Rewrites every two-way branch whose false target lies in fewer loops than its true target
/// into the negated branch with the targets swapped. Semantics are unchanged; what changes is
/// Cranelift's loop-invariant code motion, which visits a block's dominator-tree children in
/// decreasing CFG post-order (a branch's false target first) and forgets a loop once it visits
/// a block outside it: with a loop's exit as the false target, nothing in the loop body was
/// hoisted (every call recomputed, per chunk, what only depends on the call's invariants).
fn exits_first(func: &mut cranelift_codegen::ir::Function) {
    use cranelift_codegen::dominator_tree::DominatorTree;
    use cranelift_codegen::flowgraph::ControlFlowGraph;
    use cranelift_codegen::ir::InstructionData;
    use cranelift_codegen::loop_analysis::LoopAnalysis;
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
fn hoist_divisions(
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

/// Per block: `Some(target)` when it holds only workgroup barriers and jumps to `target` with no
/// edge copies (`Output::barrier_jumps`).
fn barrier_jumps(ir: &Ir) -> Vec<Option<u32>> {
    ir.blocks
        .iter()
        .map(|blk| match &blk.term {
            Term::Jump(e)
                if e.moves.is_empty()
                    && !blk.ops.is_empty()
                    && blk.ops.iter().all(|op| matches!(op, Op::Barrier {})) =>
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
fn dirty_registers(ir: &Ir, sync: &[bool]) -> Vec<RegSet> {
    let n = ir.blocks.len();
    let regs = ir.reg_types.len() as u32;
    let defs: Vec<RegSet> = ir
        .blocks
        .iter()
        .map(|blk| {
            let mut d = RegSet::new(regs);
            for op in &blk.ops {
                op.clone().visit_regs(&mut |r, role| {
                    if role == Role::Def {
                        d.insert(*r);
                    }
                });
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

/// An `I8X16` of ones (the true lanes of a branch condition).
fn vs_one(b: &mut FunctionBuilder<'_>) -> Value {
    let one = b.ins().iconst(I8, 1);
    b.ins().splat(I8X16, one)
}

/// Builds the watchdog poll's trampoline into `func`: `fn(ctx)` in Cranelift's `preserve_all`
/// convention (it saves every register it uses, the C call's clobbers included), which calls
/// `ctx.poll_fn(ctx)` and leaves its answer in `ctx.poll_stop`. A call of it clobbers nothing,
/// so values live across a loop's poll stay in their registers: with a C call there, every
/// value live across a loop had to be in one of the few registers calls preserve (no vector
/// register is one), or on the stack, for a call that runs every 16 384th back edge.
pub(crate) fn build_poll_trampoline(
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    target: cranelift_codegen::isa::TargetFrontendConfig,
) {
    let c_conv = target.default_call_conv;
    let mut sig = Signature::new(cranelift_codegen::isa::CallConv::PreserveAll);
    sig.params.push(AbiParam::new(I64));
    func.signature = sig;
    func.name = UserFuncName::user(0, 1);
    let mut poll = Signature::new(c_conv);
    poll.params.push(AbiParam::new(I64));
    poll.returns.push(AbiParam::new(I32));
    let poll = func.import_signature(poll);
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    let f = b.ins().load(I64, own_flags(), ctx, field!(poll_fn));
    let call = b.ins().call_indirect(poll, f, &[ctx]);
    let stop = b.inst_results(call)[0];
    b.ins().store(own_flags(), stop, ctx, field!(poll_stop));
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(target);
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
fn resident_registers(ir: &Ir, classes: &[Class], layout: &RegLayout) -> Vec<bool> {
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
        let stride = layout.offsets[var.base as usize + 1] - layout.offsets[var.base as usize];
        let fits = ty != RegType::Bool
            && regs.clone().all(|r| {
                classes[r] == Class::Varying
                    && ir.reg_types[r] == ty
                    && layout.offsets[r]
                        == layout.offsets[var.base as usize] + (r - regs.start) * stride
            });
        if fits {
            resident[regs].fill(true);
        }
    }
    resident
}

/// Builds the function for `program` into `func`.
///
/// `poll` is `func`'s reference to the watchdog poll's trampoline (`build_poll_trampoline`).
pub(crate) fn build(
    program: &Program,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    target: cranelift_codegen::isa::TargetFrontendConfig,
    poll: FuncRef,
) -> Result<Output, String> {
    let call_conv = target.default_call_conv;
    let ir = program.ir();
    let shape = program.group_shape();
    let classes = crate::classes::classes(ir, &shape);
    let live = Liveness::of(ir);
    let ptr = I64;
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(I32));
    func.signature = sig;
    func.name = UserFuncName::user(0, 0);
    let mut run_op = Signature::new(call_conv);
    run_op
        .params
        .extend([AbiParam::new(ptr), AbiParam::new(I32), AbiParam::new(I32)]);
    run_op.returns.push(AbiParam::new(I32));
    let mut physical = Signature::new(call_conv);
    physical
        .params
        .extend([AbiParam::new(ptr), AbiParam::new(I64), AbiParam::new(I64)]);
    physical.returns.push(AbiParam::new(ptr));
    let sigs = Sigs {
        run_op: func.import_signature(run_op),
        physical: func.import_signature(physical),
        poll,
    };
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    let chunk = b.declare_var(I32);
    let resident = resident_registers(ir, &classes, program.reg_layout());
    let vars = ir
        .reg_types
        .iter()
        .zip(&classes)
        .zip(&resident)
        .map(|((t, c), &in_row)| match c {
            _ if in_row => Vars::None,
            Class::Const(_) => Vars::None,
            Class::Uniform | Class::Affine(_) | Class::Undefined => {
                Vars::Scalar(b.declare_var(scalar_ty(t.bytes())))
            }
            Class::Varying => Vars::Vectors(
                (0..t.bytes())
                    .map(|_| b.declare_var(vec_ty(t.bytes())))
                    .collect(),
            ),
        })
        .collect();
    let lane_flags = ir
        .reg_types
        .iter()
        .zip(&classes)
        .map(|(t, c)| {
            (*t == RegType::Bool && *c == Class::Varying)
                .then(|| (b.declare_var(I8), b.declare_var(I8)))
        })
        .collect();
    let bodies = ir.blocks.iter().map(|_| b.create_block()).collect();
    let sync = ir
        .blocks
        .iter()
        .map(|blk| blk.ops.first().is_some_and(|o| o.is_sync()))
        .collect::<Vec<_>>();
    let has_sync = sync.iter().any(|&s| s);
    let dirty = dirty_registers(ir, &sync);
    let guarded = tessera_spirv::ir::sched::guarded_latches(ir);
    let chunk_done = b.create_block();
    let leave = b.create_block();
    let exit_status = b.declare_var(I32);
    let poll = b.declare_var(I32);
    let gathered = b.declare_var(I32);
    let direct = b.declare_var(I32);
    let round_targets = barrier_jumps(ir);
    let rounds = has_sync && round_targets.iter().any(Option::is_some);
    let batched = !has_sync && shape.fuse == 1;
    let group = b.declare_var(I32);
    let mut g = Gen {
        ir,
        layout: program.reg_layout(),
        shape,
        ir_const: {
            let mut v = vec![false; ir.reg_types.len()];
            for &(r, _) in &ir.consts {
                v[r as usize] = true;
            }
            v
        },
        classes,
        live,
        b,
        vars,
        resident,
        lane_flags,
        ctx,
        chunk,
        bodies,
        sync,
        guarded,
        chunk_done,
        exit_status,
        poll,
        leave,
        sigs,
        sites: Sites::default(),
        callouts: Vec::new(),
        natives: Vec::new(),
        native_ops: 0,
        has_sync,
        builtin_rows: false,
        at: (0, 0),
        mask: None,
        entry_jump: None,
        invariants: std::collections::HashMap::new(),
        cold_loads: false,
        safe_divisions: Vec::new(),
        tiles: tile::Tiles::default(),
        decided: std::collections::HashMap::new(),
        round_targets,
        rounds,
        dirty,
        gathered,
        direct,
        batched,
        group,
        group_ids: None,
        group_jump: None,
        group_invariants: std::collections::HashMap::new(),
    };
    g.plan_tiles();
    g.function()?;
    g.b.seal_all_blocks();
    let Gen {
        b,
        sites,
        callouts,
        natives,
        native_ops,
        builtin_rows,
        guarded,
        safe_divisions,
        group_jump,
        ..
    } = g;
    b.finalize(target);
    exits_first(func);
    hoist_divisions(func, &safe_divisions, group_jump);
    let barrier_jumps = barrier_jumps(ir);
    Ok(Output {
        batched,
        barrier_jumps,
        sites,
        callouts,
        natives,
        has_sync,
        has_guard: guarded.iter().any(|&g| g),
        guarded,
        wg_size: shape.wg_size,
        builtin_rows,
        native_ops,
    })
}

impl Gen<'_> {
    /// A field of the context.
    pub(crate) fn ctx_load(&mut self, ty: cranelift_codegen::ir::Type, offset: i32) -> Value {
        self.b.ins().load(ty, own_flags(), self.ctx, offset)
    }

    /// A load of `ty` at `base + offset` that gives the same value for the whole call: `base` is
    /// the context or another such load, and what it reads is written by the driver before the
    /// call and never during it. Emitted once, in the entry block, so that it and what is
    /// computed from it stay out of the chunk loop.
    pub(crate) fn inv_load(&mut self, ty: Type, base: Value, offset: i32) -> Value {
        if self.cold_loads {
            return self.b.ins().load(ty, own_flags(), base, offset);
        }
        if let Some(&v) = self.invariants.get(&(base, offset, ty)) {
            return v;
        }
        let Some(at) = self.entry_jump else {
            return self.b.ins().load(ty, own_flags(), base, offset);
        };
        let mut pos = FuncCursor::new(self.b.func).at_inst(at);
        let v = pos.ins().load(ty, own_flags(), base, offset);
        self.invariants.insert((base, offset, ty), v);
        v
    }

    /// A load of `ty` at byte `offset` of the current group's `wg_ids` entry (group batches),
    /// emitted once, in `group_head`.
    fn group_load(&mut self, ty: Type, offset: i32) -> Value {
        if let Some(&v) = self.group_invariants.get(&(offset, ty)) {
            return v;
        }
        let (Some(at), Some(base)) = (self.group_jump, self.group_ids) else {
            // (Not batched: the call's one workgroup.)
            let ctx = self.ctx;
            let ids = self.inv_load(I64, ctx, field!(wg_ids));
            return self.inv_load(ty, ids, offset);
        };
        let mut pos = FuncCursor::new(self.b.func).at_inst(at);
        let v = pos.ins().load(ty, own_flags(), base, offset);
        self.group_invariants.insert((offset, ty), v);
        v
    }

    /// Records the division that defined `q` as one that cannot trap (see `hoist_divisions`).
    pub(crate) fn guarded_division(&mut self, q: Value) {
        if let Some(inst) = self.b.func.dfg.value_def(q).inst() {
            self.safe_divisions.push(inst);
        }
    }

    pub(crate) fn ctx_store(&mut self, v: Value, offset: i32) {
        self.b.ins().store(own_flags(), v, self.ctx, offset);
    }

    /// The chunk's row base for `bytes`-byte registers: `regfile + 16·chunk·bytes`, from a
    /// load of `ctx.regfile` where it is needed. (Kept in variables, the four bases stayed live
    /// in general registers, or spilled, through every loop, for the stores of cold paths;
    /// computed from a call-invariant load, Cranelift would hoist them there again.)
    pub(crate) fn chunk_base(&mut self, bytes: usize) -> Value {
        let regfile = self.ctx_load(I64, field!(regfile));
        let c = self.chunk();
        let c64 = self.b.ins().uextend(I64, c);
        let off = self.b.ins().imul_imm_s(c64, (LANES * bytes) as i64);
        self.b.ins().iadd(regfile, off)
    }

    /// The current chunk index (`I32`).
    pub(crate) fn chunk(&mut self) -> Value {
        self.b.use_var(self.chunk)
    }

    fn function(&mut self) -> Result<(), String> {
        let head = self.b.create_block();
        let check = self.b.create_block();
        let start = self.b.create_block();
        let finish = self.b.create_block();
        let out = self.b.create_block();
        let c0 = self.ctx_load(I32, field!(chunk));
        self.b.def_var(self.chunk, c0);
        let running = self.b.ins().iconst(I32, 0);
        self.b.def_var(self.exit_status, running);
        let polls = self.ctx_load(I32, field!(poll));
        self.b.def_var(self.poll, polls);
        if self.rounds {
            // Barrier rounds only when this call runs the whole group from its first chunk.
            let allowed = self.ctx_load(I32, field!(rounds));
            let allowed = self.b.ins().icmp_imm_s(IntCC::NotEqual, allowed, 0);
            let first = self.b.ins().icmp_imm_s(IntCC::Equal, c0, 0);
            let ok = self.b.ins().band(allowed, first);
            let none = self.b.ins().iconst(I32, ROUND_NONE);
            let mixed = self.b.ins().iconst(I32, ROUND_MIXED);
            let g = self.b.ins().select(ok, none, mixed);
            self.b.def_var(self.gathered, g);
            self.b.def_var(self.direct, none);
        }
        let next_group = if self.batched {
            let g0 = self.ctx_load(I32, field!(group));
            self.b.def_var(self.group, g0);
            let group_head = self.b.create_block();
            self.entry_jump = Some(self.b.ins().jump(group_head, &[]));
            // group_head: the group's entry of the workgroup-id table; what only depends on it
            // goes here (`group_load`), and Cranelift hoists what is computed from it to here.
            self.b.switch_to_block(group_head);
            let ctx = self.ctx;
            let ids = self.inv_load(I64, ctx, field!(wg_ids));
            let gi = self.b.use_var(self.group);
            let gi64 = self.b.ins().uextend(I64, gi);
            let off = self.b.ins().imul_imm_s(gi64, 16);
            self.group_ids = Some(self.b.ins().iadd(ids, off));
            self.group_jump = Some(self.b.ins().jump(head, &[]));
            // next_group: the batch's next group, from its first chunk.
            let next_group = self.b.create_block();
            self.b.switch_to_block(next_group);
            let gi = self.b.use_var(self.group);
            let gi1 = self.b.ins().iadd_imm_s(gi, 1);
            let groups = self.inv_load(I32, ctx, field!(groups));
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, gi1, groups);
            let advance = self.b.create_block();
            self.b.ins().brif(more, advance, &[], finish, &[]);
            self.b.switch_to_block(advance);
            self.b.def_var(self.group, gi1);
            let zero = self.b.ins().iconst(I32, 0);
            self.b.def_var(self.chunk, zero);
            self.b.ins().jump(group_head, &[]);
            Some(next_group)
        } else {
            self.entry_jump = Some(self.b.ins().jump(head, &[]));
            None
        };

        // chunk_head: leave with the status a hand-back or an abort set, else the next chunk.
        self.b.switch_to_block(head);
        let st = self.b.use_var(self.exit_status);
        self.b.ins().brif(st, out, &[], check, &[]);
        self.b.switch_to_block(check);
        let c = self.chunk();
        let end = self.ctx_load(I32, field!(chunk_end));
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, c, end);
        self.b
            .ins()
            .brif(more, start, &[], next_group.unwrap_or(finish), &[]);

        self.b.switch_to_block(self.leave);
        self.b.ins().jump(head, &[]);

        // chunk_start: built-ins.
        self.b.switch_to_block(start);
        self.builtins()?;
        let first = self.bodies[0];
        if self.has_sync {
            if self.rounds {
                let d = self.b.use_var(self.direct);
                let in_round = self.b.ins().icmp_imm_s(IntCC::NotEqual, d, ROUND_NONE);
                let round = self.b.create_block();
                let normal = self.b.create_block();
                self.b.ins().brif(in_round, round, &[], normal, &[]);
                self.b.switch_to_block(round);
                self.round_dispatch(d)?;
                self.b.switch_to_block(normal);
            }
            let resume = self.ctx_load(I32, field!(resume));
            let dispatch = self.b.create_block();
            let fresh = self.b.create_block();
            self.b.ins().brif(resume, dispatch, &[], fresh, &[]);
            self.b.switch_to_block(fresh);
            self.goto(0, None)?;
            self.b.switch_to_block(dispatch);
            self.resume_dispatch()?;
        } else {
            self.b.ins().jump(first, &[]);
        }

        // chunk_done
        self.b.switch_to_block(self.chunk_done);
        let c = self.chunk();
        let next = self.b.ins().iadd_imm_s(c, 1);
        self.b.def_var(self.chunk, next);
        self.b.ins().jump(head, &[]);

        for i in 0..self.ir.blocks.len() {
            self.b.switch_to_block(self.bodies[i]);
            if self.sync[i] {
                // Never entered: jumps to a sync block yield instead (see `goto`).
                let st = self.b.ins().iconst(I32, i64::from(status::ABORT));
                self.b.ins().return_(&[st]);
                continue;
            }
            self.block(i)?;
        }

        // The loop's exits, laid out last (see `leave`).
        self.b.switch_to_block(finish);
        if self.rounds {
            self.next_round(head)?;
        }
        let c = self.chunk();
        self.ctx_store(c, field!(chunk));
        let polls = self.b.use_var(self.poll);
        self.ctx_store(polls, field!(poll));
        let done = self.b.ins().iconst(I32, i64::from(status::DONE));
        self.b.ins().return_(&[done]);
        self.b.switch_to_block(out);
        let polls = self.b.use_var(self.poll);
        self.ctx_store(polls, field!(poll));
        let st = self.b.use_var(self.exit_status);
        self.b.ins().return_(&[st]);
        Ok(())
    }

    /// Leaves the chunk loop with status `st` (through its head: see `leave`).
    fn leave_with(&mut self, st: u32) {
        let v = self.b.ins().iconst(I32, i64::from(st));
        self.b.def_var(self.exit_status, v);
        self.b.ins().jump(self.leave, &[]);
    }

    /// Defines the built-in registers for the current chunk.
    fn builtins(&mut self) -> Result<(), String> {
        let ir = self.ir;
        let b = &ir.builtins;
        let shape = self.shape;
        let c = self.chunk();
        let lane0 = self.b.ins().imul_imm_s(c, LANES as i64);
        let wgs = i64::from(shape.wg_size);
        // Lane 0's index in its workgroup and that workgroup's index in the lane group.
        // (With one workgroup per call, lane 0 of every chunk is inside it: no division.)
        let (li, k) = if shape.fuse == 1 {
            (lane0, self.b.ins().iconst(I32, 0))
        } else {
            (
                self.b.ins().urem_imm_s(lane0, wgs),
                self.b.ins().udiv_imm_s(lane0, wgs),
            )
        };
        let [lx, ly, lz] = shape.local.map(i64::from);
        let zero = self.b.ins().iconst(I32, 0);
        let local = [
            if ly * lz == 1 {
                li
            } else {
                self.b.ins().urem_imm_s(li, lx)
            },
            if ly == 1 {
                zero
            } else {
                let t = self.b.ins().udiv_imm_s(li, lx);
                self.b.ins().urem_imm_s(t, ly)
            },
            if lz == 1 {
                zero
            } else {
                self.b.ins().udiv_imm_s(li, lx * ly)
            },
        ];
        // The workgroup id of workgroup `k` of the group: `ctx.wg_id` + linear offset `k`,
        // which the driver gives only for unfused groups (k = 0); fused groups' ids vary, and
        // are read from their rows.
        let ctx = self.ctx;
        let ids = self.inv_load(I64, ctx, field!(wg_ids));
        let mut wg = [None; 3];
        if self.batched {
            // One workgroup per group of the batch: its id is loaded once per group.
            for (i, w) in wg.iter_mut().enumerate() {
                *w = Some(self.group_load(I32, 4 * i as i32));
            }
        } else if shape.fuse == 1 {
            // One workgroup per call: its id is loaded once, in the entry block.
            for (i, w) in wg.iter_mut().enumerate() {
                *w = Some(self.inv_load(I32, ids, 4 * i as i32));
            }
        } else {
            let k64 = self.b.ins().uextend(I64, k);
            let koff = self.b.ins().imul_imm_s(k64, 16);
            let at = self.b.ins().iadd(ids, koff);
            for (i, w) in wg.iter_mut().enumerate() {
                *w = Some(self.b.ins().load(I32, own_flags(), at, 4 * i as i32));
            }
        }
        for i in 0..3u32 {
            let iu = i as usize;
            if let Some(r) = b.local_id {
                self.builtin(r + i, local[iu])?;
            }
            if let Some(r) = b.workgroup_id {
                self.builtin(r + i, wg[iu].unwrap_or(local[iu]))?;
            }
            if let Some(r) = b.num_workgroups {
                let n = self.inv_load(I32, ctx, field!(num_wg) + 4 * i as i32);
                self.builtin(r + i, n)?;
            }
            if let Some(r) = b.global_id {
                let w = wg[iu].unwrap_or(local[iu]);
                let scaled = self.b.ins().imul_imm_s(w, i64::from(shape.local[iu]));
                let g = self.b.ins().iadd(scaled, local[iu]);
                self.builtin(r + i, g)?;
            }
        }
        if let Some(r) = b.local_index {
            self.builtin(r, li)?;
        }
        Ok(())
    }

    /// Defines built-in register `r`: lane 0's value `lane0` when uniform or affine, its row
    /// (written by the driver) when varying.
    fn builtin(&mut self, r: Reg, lane0: Value) -> Result<(), String> {
        match self.classes[r as usize] {
            Class::Uniform => self.set(r, JVal::Uniform(lane0)),
            Class::Affine(s) => self.set(r, JVal::Affine(lane0, s)),
            Class::Varying => {
                self.builtin_rows = true;
                let addr = self.row_addr(r);
                let vs = (0..4)
                    .map(|j| self.b.ins().load(I32X4, own_flags(), addr, 16 * j))
                    .collect();
                self.set(r, JVal::Varying(vs))
            }
            other => Err(format!("built-in %{r} has class {other:?}")),
        }
    }

    /// Resume mode: runs the chunk from the block all its lanes wait at.
    fn resume_dispatch(&mut self) -> Result<(), String> {
        let pcs = self.ctx_load(I64, field!(pcs));
        let c = self.chunk();
        let c64 = self.b.ins().uextend(I64, c);
        let off = self.b.ins().imul_imm_s(c64, (LANES * 4) as i64);
        let at = self.b.ins().iadd(pcs, off);
        let p0 = self.b.ins().load(I32, own_flags(), at, 0);
        let want = self.b.ins().splat(I32X4, p0);
        let mut all = None;
        for j in 0..4 {
            let v = self.b.ins().load(I32X4, own_flags(), at, 16 * j);
            let eq = self.b.ins().icmp(IntCC::Equal, v, want);
            let t = self.b.ins().vall_true(eq);
            all = Some(match all {
                None => t,
                Some(a) => self.b.ins().band(a, t),
            });
        }
        let same = self.b.create_block();
        let mixed = self.b.create_block();
        self.b.ins().brif(all.unwrap_or(p0), same, &[], mixed, &[]);
        self.b.switch_to_block(mixed);
        self.hand_back_from_pcs();
        self.b.switch_to_block(same);
        // Entries: the blocks a sync block leads to; sync blocks and finished lanes skip the
        // chunk; anything else goes back to the interpreter.
        // Also the blocks a guarded latch leads to (the driver runs a latch every chunk waits
        // at for the whole group), and the latches themselves (chunks that wait there).
        let mut entries = self.guarded.clone();
        for (i, blk) in self.ir.blocks.iter().enumerate() {
            if self.sync[i] || self.guarded[i] {
                for e in blk.term.edges() {
                    if let Some(x) = entries.get_mut(e.target as usize) {
                        *x = true;
                    }
                }
            }
        }
        let fallback = self.b.create_block();
        // A chunk that waits at a sync block or is done is skipped (and ends a barrier round).
        let skip = self.b.create_block();
        let mut table = Vec::with_capacity(self.ir.blocks.len());
        let mut stubs = Vec::new();
        for (i, &entry) in entries.iter().enumerate().take(self.ir.blocks.len()) {
            if self.sync[i] {
                table.push(skip);
            } else if entry {
                let s = self.b.create_block();
                stubs.push((i, s));
                table.push(s);
            } else {
                table.push(fallback);
            }
        }
        let is_done = self.b.ins().icmp_imm_s(IntCC::Equal, p0, i64::from(DONE));
        let dispatch = self.b.create_block();
        self.b.ins().brif(is_done, skip, &[], dispatch, &[]);
        self.b.switch_to_block(skip);
        self.end_round_here();
        self.b.ins().jump(self.chunk_done, &[]);
        self.b.switch_to_block(dispatch);
        self.br_table_to(p0, &table, fallback);
        self.b.switch_to_block(fallback);
        self.hand_back_from_pcs();
        for (i, s) in stubs {
            self.b.switch_to_block(s);
            let regs: Vec<Reg> = self.live.live_in[i].iter().collect();
            let mut bad = None;
            for r in regs {
                bad = self.reload(r, bad)?;
            }
            if let Some(bad) = bad {
                self.branch_out_if(bad, Self::hand_back_from_pcs);
            }
            // Through `goto`: a guarded latch checks the floor again.
            self.goto(i as u32, None)?;
        }
        Ok(())
    }

    /// A chunk leaves otherwise than by yielding at a sync block: no barrier round this time.
    fn end_round_here(&mut self) {
        if self.rounds {
            let mixed = self.b.ins().iconst(I32, ROUND_MIXED);
            self.b.def_var(self.gathered, mixed);
        }
    }

    /// At the end of the chunk range: when every chunk of the group yielded at the same
    /// barrier-only block (`gathered`), moves them all past it and runs the next round in this
    /// call, from chunk 0, each chunk entering the block the barrier jumps to with its live
    /// registers reloaded from the rows this call just wrote (`round_dispatch`). The driver would
    /// do the same (`Worker::advance_lanes`, a call in resume mode, a check of every lane's block
    /// index), at a far higher cost per round. Back edges count: a round polls the watchdog.
    /// Otherwise falls through to returning `DONE`.
    fn next_round(&mut self, head: Block) -> Result<(), String> {
        let g = self.b.use_var(self.gathered);
        let done = self.b.create_block();
        let mut table = Vec::with_capacity(self.round_targets.len());
        let mut arms = Vec::new();
        for (i, t) in self.round_targets.clone().into_iter().enumerate() {
            match t {
                Some(t) if self.sync[i] => {
                    let arm = self.b.create_block();
                    arms.push((arm, t));
                    table.push(arm);
                }
                _ => table.push(done),
            }
        }
        self.br_table_to(g, &table, done);
        for (arm, t) in arms {
            self.b.switch_to_block(arm);
            let go = self.b.create_block();
            // (Between rounds every register is in its row: only the function's own variables
            // are live.)
            self.poll_then(go);
            self.b.switch_to_block(go);
            let one = self.b.ins().iconst(I32, 1);
            self.ctx_store(one, field!(ran_rounds));
            let to = self.b.ins().iconst(I32, i64::from(t));
            self.b.def_var(self.direct, to);
            let none = self.b.ins().iconst(I32, ROUND_NONE);
            self.b.def_var(self.gathered, none);
            let zero = self.b.ins().iconst(I32, 0);
            self.b.def_var(self.chunk, zero);
            self.b.ins().jump(head, &[]);
        }
        self.b.switch_to_block(done);
        Ok(())
    }

    /// In a barrier round: enters the chunk at block `d` (an `I32`, a barrier-only block's
    /// target), its live registers reloaded without checks: this call wrote their rows when the
    /// chunk yielded at the barrier (with the shapes their classes give), and nothing ran on
    /// them since.
    fn round_dispatch(&mut self, d: Value) -> Result<(), String> {
        let mut targets: Vec<u32> = self.round_targets.iter().flatten().copied().collect();
        targets.sort_unstable();
        targets.dedup();
        let fallback = self.b.create_block();
        let mut table = vec![fallback; self.ir.blocks.len()];
        let mut stubs = Vec::new();
        for t in targets {
            let s = self.b.create_block();
            if let Some(slot) = table.get_mut(t as usize) {
                *slot = s;
                stubs.push((t, s));
            }
        }
        self.br_table_to(d, &table, fallback);
        self.b.switch_to_block(fallback);
        self.hand_back_from_pcs();
        for (t, s) in stubs {
            self.b.switch_to_block(s);
            let regs: Vec<Reg> = self.live.live_in[t as usize].iter().collect();
            for r in regs {
                self.reload_unchecked(r)?;
            }
            self.goto(t, None)?;
        }
        Ok(())
    }

    /// Hands the chunk back with its lanes' block indices as they are (nothing to save).
    fn hand_back_from_pcs(&mut self) {
        let c = self.chunk();
        self.ctx_store(c, field!(chunk));
        let none = self.b.ins().iconst(I32, i64::from(DONE));
        self.ctx_store(none, field!(stop_block));
        self.leave_with(status::HAND_BACK);
    }

    /// Registers live just before op `k` of block `blk`.
    fn live_at(&self, blk: usize, k: usize) -> RegSet {
        let ir = self.ir;
        let block = &ir.blocks[blk];
        let mut live = self.live.live_out[blk].clone();
        // The terminator reads its condition and the edge copies' sources; the copies write
        // their destinations (which the successors see through `live_out`).
        for e in block.term.edges() {
            for &(d, s) in &e.moves {
                live.remove(d);
                live.insert(s);
            }
        }
        for e in block.term.edges() {
            for &(_, s) in &e.moves {
                live.insert(s);
            }
        }
        if let Some(c) = block.term.condition() {
            live.insert(c);
        }
        for op in block.ops[k..].iter().rev() {
            let mut defs = Vec::new();
            let mut uses = Vec::new();
            op.clone().visit_regs(&mut |r, role| match role {
                Role::Def => defs.push(*r),
                Role::Use => uses.push(*r),
            });
            for d in defs {
                live.remove(d);
            }
            uses.iter().for_each(|&u| live.insert(u));
            if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
                for r in var.base..var.base + var.len {
                    live.insert(r);
                }
            }
        }
        live
    }

    /// Emits a hand-back of the current chunk at the current position (`self.at`): the live
    /// registers are saved and the interpreter will continue with that op.
    pub(crate) fn hand_back(&mut self) {
        let (blk, k) = self.mask.map_or(self.at, |(_, at)| at);
        let regs: Vec<Reg> = self.live_at(blk as usize, k).iter().collect();
        for r in regs {
            self.spill(r, true);
        }
        let c = self.chunk();
        self.ctx_store(c, field!(chunk));
        if self.batched {
            let g = self.b.use_var(self.group);
            self.ctx_store(g, field!(group));
        }
        let b = self.b.ins().iconst(I32, i64::from(blk));
        self.ctx_store(b, field!(stop_block));
        let o = self.b.ins().iconst(I32, k as i64);
        self.ctx_store(o, field!(stop_op));
        self.leave_with(status::HAND_BACK);
    }

    /// Branches to a hand-back when `bad` (an `I8`/`I32` flag) is non-zero; continues in a new
    /// block otherwise.
    pub(crate) fn hand_back_if(&mut self, bad: Value) {
        self.branch_out_if(bad, Self::hand_back);
    }

    /// Emits `out` (which ends its block) in a block taken when `bad` is non-zero; continues in
    /// a new block otherwise.
    fn branch_out_if(&mut self, bad: Value, out: fn(&mut Self)) {
        let back = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bad, back, &[], cont, &[]);
        self.b.switch_to_block(back);
        out(self);
        self.b.switch_to_block(cont);
    }

    fn block(&mut self, i: usize) -> Result<(), String> {
        let ir = self.ir;
        let block = &ir.blocks[i];
        for (k, op) in block.ops.iter().enumerate() {
            self.at = (i as u32, k);
            self.op(op)?;
        }
        self.at = (i as u32, block.ops.len());
        match &block.term {
            Term::Exit => {
                if self.has_sync {
                    self.set_chunk_pcs(DONE);
                }
                self.end_round_here();
                self.b.ins().jump(self.chunk_done, &[]);
            }
            Term::Jump(e) => {
                self.edge(e, i)?;
            }
            Term::Branch {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.get(*cond);
                if let (JVal::Varying(vs), Some((all, any))) = (&c, self.lane_flags[*cond as usize])
                    && !self.decided.contains_key(&vs[0])
                {
                    let known = (self.b.use_var(all), self.b.use_var(any));
                    self.decided.insert(vs[0], known);
                }
                let (t, f) = (self.b.create_block(), self.b.create_block());
                match c {
                    JVal::Const(v) => {
                        let target = if v != 0 { t } else { f };
                        self.b.ins().jump(target, &[]);
                    }
                    JVal::Uniform(x) => {
                        self.b.ins().brif(x, t, &[], f, &[]);
                    }
                    JVal::Varying(vs) => {
                        let (all, any) = match self.decided.get(&vs[0]) {
                            Some(&known) => known,
                            None => (self.b.ins().vall_true(vs[0]), self.b.ins().vany_true(vs[0])),
                        };
                        let mixed = self.b.create_block();
                        let not_all = self.b.create_block();
                        self.b.ins().brif(all, t, &[], not_all, &[]);
                        self.b.switch_to_block(not_all);
                        self.b.ins().brif(any, mixed, &[], f, &[]);
                        self.b.switch_to_block(mixed);
                        match self.maskable_arm(i, if_true, if_false) {
                            Some((arm, join, on_true)) => {
                                let mask = if on_true {
                                    vs[0]
                                } else {
                                    let ones = vs_one(&mut self.b);
                                    self.b.ins().bxor(vs[0], ones)
                                };
                                self.masked_arm(i, arm, join, mask)?;
                            }
                            None => self.hand_back(),
                        }
                    }
                    JVal::Affine(..) => return Err("affine branch condition".into()),
                }
                self.b.switch_to_block(t);
                self.edge(if_true, i)?;
                self.b.switch_to_block(f);
                self.edge(if_false, i)?;
            }
            Term::Switch {
                selector,
                cases,
                edges,
            } => {
                let bytes = self.bytes(*selector);
                let sel = match self.get(*selector) {
                    // Lanes of an affine selector differ: check them as vectors.
                    a @ JVal::Affine(..) => JVal::Varying(self.vectors(&a, bytes)),
                    other => other,
                };
                let v = match &sel {
                    JVal::Varying(vs) => {
                        // Every lane must pick the same case: compare with lane 0.
                        let x0 = self.lane(&sel, bytes, 0);
                        let want = self.b.ins().splat(vec_ty(bytes), x0);
                        let mut all = None;
                        for &x in vs {
                            let eq = self.b.ins().icmp(IntCC::Equal, x, want);
                            let t = self.b.ins().vall_true(eq);
                            all = Some(match all {
                                None => t,
                                Some(a) => self.b.ins().band(a, t),
                            });
                        }
                        let differ = self.b.ins().bxor_imm_s(all.unwrap_or(x0), 1);
                        self.hand_back_if(differ);
                        x0
                    }
                    other => self.scalar(other, bytes).ok_or("affine switch selector")?,
                };
                let targets: Vec<Block> = edges.iter().map(|_| self.b.create_block()).collect();
                let mut sw = cranelift_frontend::Switch::new();
                let mut seen = std::collections::HashSet::new();
                for &(value, e) in cases {
                    // A literal the selector cannot hold never matches (lowering already
                    // keeps literals at the selector's width).
                    if crate::classes::wrap(value, (bytes * 8) as u32) != value {
                        continue;
                    }
                    if seen.insert(value) {
                        sw.set_entry(u128::from(value), targets[e]);
                    }
                }
                sw.emit(&mut self.b, v, targets[0]);
                for (e, blk) in edges.iter().zip(targets) {
                    self.b.switch_to_block(blk);
                    self.edge(e, i)?;
                }
            }
        }
        Ok(())
    }

    /// A branch of block `from` whose lanes may disagree and that can run both ways under a
    /// mask: one target (the arm) is a block that only jumps on to the other (the join), with
    /// no edge copies, no sync op, only pure ops, window loads and window stores, and no op
    /// that may hand back after a store (so a hand-back inside the arm happens before its first
    /// effect and restarts at the branch),
    /// and that defines no register live at the branch or the join (inactive lanes keep every
    /// value they see). Returns (arm, join, whether the arm is the true target).
    fn maskable_arm(&self, from: usize, t: &Edge, f: &Edge) -> Option<(usize, usize, bool)> {
        if !t.moves.is_empty() || !f.moves.is_empty() {
            return None;
        }
        let ir = self.ir;
        let (tt, ft) = (t.target as usize, f.target as usize);
        let (arm, join, on_true) = match (&ir.blocks[tt].term, &ir.blocks[ft].term) {
            (Term::Jump(e), _) if e.target as usize == ft => (tt, ft, true),
            (_, Term::Jump(e)) if e.target as usize == tt => (ft, tt, false),
            _ => return None,
        };
        let Term::Jump(out) = &ir.blocks[arm].term else {
            return None;
        };
        if !out.moves.is_empty()
            || arm == from
            || arm == join
            || self.sync[arm]
            || self.guarded.get(arm).copied().unwrap_or(false)
        {
            return None;
        }
        let mut seen_store = false;
        let mut defs = RegSet::new(ir.reg_types.len() as u32);
        for op in &ir.blocks[arm].ops {
            let window_store = matches!(
                op,
                Op::Store {
                    space: Space::Shared
                        | Space::Buffer {
                            desc: DescIdx::Const(_),
                            ..
                        },
                    ..
                }
            );
            let window_load = matches!(
                op,
                Op::Load {
                    space: Space::Shared
                        | Space::Buffer {
                            desc: DescIdx::Const(_),
                            ..
                        }
                        | Space::Push,
                    ..
                }
            );
            // The one op these may hand back at is a conversion of an affine value (its
            // lanes' wrap check): none may follow a store.
            let may_hand_back = matches!(op, Op::Conv { src, .. }
                if matches!(self.classes[*src as usize], Class::Affine(_)));
            if window_store {
                seen_store = true;
            } else if !(op.is_pure() || window_load) || (seen_store && may_hand_back) {
                return None;
            }
            let mut op = op.clone();
            op.visit_regs(&mut |r, role| {
                if role == Role::Def {
                    defs.insert(*r);
                }
            });
        }
        let mut keep = self.live_at(from, ir.blocks[from].ops.len());
        for r in self.live.live_in[join].iter() {
            keep.insert(r);
        }
        if defs.iter().any(|r| keep.contains(r)) {
            return None;
        }
        Some((arm, join, on_true))
    }

    /// Runs block `arm` for the lanes of `mask` (stores of the other lanes go to the scratch
    /// slot), then continues at `join` with every lane.
    fn masked_arm(
        &mut self,
        from: usize,
        arm: usize,
        join: usize,
        mask: Value,
    ) -> Result<(), String> {
        let ir = self.ir;
        let restart = (from as u32, ir.blocks[from].ops.len());
        self.mask = Some((mask, restart));
        for (k, op) in ir.blocks[arm].ops.iter().enumerate() {
            self.at = (arm as u32, k);
            let done = self.op(op);
            if done.is_err() {
                self.mask = None;
            }
            done?;
        }
        self.mask = None;
        self.at = (arm as u32, ir.blocks[arm].ops.len());
        self.goto(join as u32, Some(arm))
    }

    /// Takes edge `e` out of block `from`: its parallel copies, then the target.
    fn edge(&mut self, e: &Edge, from: usize) -> Result<(), String> {
        let vals: Vec<JVal> = e.moves.iter().map(|&(_, s)| self.get(s)).collect();
        for (&(d, _), v) in e.moves.iter().zip(vals) {
            self.set(d, v)?;
        }
        self.goto(e.target, Some(from))
    }

    /// Continues at block `target` (from block `from`): a yield if it is a sync block, a
    /// watchdog countdown on a back edge.
    fn goto(&mut self, target: u32, from: Option<usize>) -> Result<(), String> {
        let t = target as usize;
        if self.sync.get(t).copied().unwrap_or(false) {
            return self.yield_at(target);
        }
        if self.guarded.get(t).copied().unwrap_or(false) {
            // A guarded latch: wait at it unless it is below the floor (`ir::sched`).
            let floor = self.ctx_load(I32, field!(floor));
            let wait =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, floor, i64::from(target));
            let park = self.b.create_block();
            let go = self.b.create_block();
            self.b.ins().brif(wait, park, &[], go, &[]);
            self.b.switch_to_block(park);
            let regs: Vec<Reg> = self.live.live_in[t].iter().collect();
            for r in regs {
                self.spill(r, true);
            }
            self.set_chunk_pcs(target);
            self.end_round_here();
            self.b.ins().jump(self.chunk_done, &[]);
            self.b.switch_to_block(go);
        }
        if from.is_some_and(|f| t <= f) {
            let body = self.bodies[t];
            self.poll_then(body);
            return Ok(());
        }
        self.b.ins().jump(self.bodies[t], &[]);
        Ok(())
    }

    /// Leaves the chunk waiting at sync block `target`: its live registers that may have
    /// changed since it last yielded (`dirty`) to their rows, its lanes' block index, the
    /// round's `gathered`, then the next chunk. Ends the current block.
    ///
    /// In a barrier round that started at the block this barrier-only block jumps to (a loop
    /// around a barrier), the next chunk enters that block straight away, as `round_dispatch`
    /// would, without the chunk loop's head and start; and when every chunk of the round so far
    /// yielded here and no other barrier-only block leads to that block (this chunk's lanes
    /// wait here since the last round), the block index and `gathered` stay as they are.
    fn yield_at(&mut self, target: u32) -> Result<(), String> {
        let t = target as usize;
        let regs: Vec<Reg> = self.live.live_in[t]
            .iter()
            .filter(|&r| self.dirty[t].contains(r))
            .collect();
        for r in regs {
            self.spill(r, false);
        }
        // (A barrier that leads straight to another sync block ends the chunk's round there:
        // no entry to hop into.)
        let round_target = self.round_targets[t]
            .filter(|&n| self.rounds && !self.sync.get(n as usize).copied().unwrap_or(true));
        let Some(next_block) = round_target else {
            self.set_chunk_pcs(target);
            if self.rounds {
                self.gather_at(target);
            }
            self.b.ins().jump(self.chunk_done, &[]);
            return Ok(());
        };
        let d = self.b.use_var(self.direct);
        let round_here = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, d, i64::from(next_block));
        let c = self.chunk();
        let next = self.b.ins().iadd_imm_s(c, 1);
        let end = self.ctx_load(I32, field!(chunk_end));
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, end);
        let hop = self.b.ins().band(round_here, more);
        let only_way = self
            .round_targets
            .iter()
            .enumerate()
            .filter(|&(i, x)| self.sync[i] && *x == Some(next_block))
            .count()
            == 1;
        let enter = self.b.create_block();
        let record = self.b.create_block();
        if only_way {
            let g = self.b.use_var(self.gathered);
            let all_here = self.b.ins().icmp_imm_s(IntCC::Equal, g, i64::from(target));
            let as_is = self.b.ins().band(hop, all_here);
            self.b.ins().brif(as_is, enter, &[], record, &[]);
        } else {
            self.b.ins().jump(record, &[]);
        }
        self.b.switch_to_block(record);
        self.set_chunk_pcs(target);
        self.gather_at(target);
        self.b.ins().brif(hop, enter, &[], self.chunk_done, &[]);
        self.b.switch_to_block(enter);
        self.b.def_var(self.chunk, next);
        let regs: Vec<Reg> = self.live.live_in[next_block as usize].iter().collect();
        for r in regs {
            self.reload_unchecked(r)?;
        }
        self.goto(next_block, None)
    }

    /// A chunk of a barrier round waits at sync block `target`: the round goes on in compiled
    /// code past that block only while every chunk waits there.
    fn gather_at(&mut self, target: u32) {
        let g = self.b.use_var(self.gathered);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, g, ROUND_NONE);
        let same = self.b.ins().icmp_imm_s(IntCC::Equal, g, i64::from(target));
        let keep = self.b.ins().bor(none, same);
        let here = self.b.ins().iconst(I32, i64::from(target));
        let mixed = self.b.ins().iconst(I32, ROUND_MIXED);
        let g = self.b.ins().select(keep, here, mixed);
        self.b.def_var(self.gathered, g);
    }

    /// Counts down the poll count (`poll`) and goes on to `go`; at zero, first calls the
    /// watchdog (through its trampoline, which clobbers no register) and leaves with `ABORT`
    /// when it says stop. Ends the current block.
    fn poll_then(&mut self, go: Block) {
        let p = self.b.use_var(self.poll);
        let p1 = self.b.ins().iadd_imm_s(p, -1);
        self.b.def_var(self.poll, p1);
        let expired = self.b.ins().icmp_imm_s(IntCC::Equal, p1, 0);
        let call = self.b.create_block();
        self.b.ins().brif(expired, call, &[], go, &[]);
        self.b.switch_to_block(call);
        self.b.ins().call(self.sigs.poll, &[self.ctx]);
        let stop = self.ctx_load(I32, field!(poll_stop));
        let abort = self.b.create_block();
        let resume = self.b.create_block();
        self.b.ins().brif(stop, abort, &[], resume, &[]);
        self.b.switch_to_block(resume);
        let polls = self.ctx_load(I32, field!(poll));
        self.b.def_var(self.poll, polls);
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(abort);
        self.leave_with(status::ABORT);
    }

    /// Ends the current block with a jump to `table[index]` (`default` past its end).
    fn br_table_to(&mut self, index: Value, table: &[Block], default: Block) {
        let pool = &mut self.b.func.dfg.value_lists;
        let calls: Vec<_> = table
            .iter()
            .map(|&blk| cranelift_codegen::ir::BlockCall::new(blk, std::iter::empty(), pool))
            .collect();
        let default = cranelift_codegen::ir::BlockCall::new(default, std::iter::empty(), pool);
        let jt = self
            .b
            .create_jump_table(cranelift_codegen::ir::JumpTableData::new(default, &calls));
        self.b.ins().br_table(index, jt);
    }

    /// Sets the block index of the chunk's lanes.
    fn set_chunk_pcs(&mut self, pc: u32) {
        let pcs = self.ctx_load(I64, field!(pcs));
        let c = self.chunk();
        let c64 = self.b.ins().uextend(I64, c);
        let off = self.b.ins().imul_imm_s(c64, (LANES * 4) as i64);
        let at = self.b.ins().iadd(pcs, off);
        let v = self.b.ins().iconst(I32, i64::from(pc as i32));
        let s = self.b.ins().splat(I32X4, v);
        for j in 0..4 {
            self.b.ins().store(MemFlagsData::trusted(), s, at, 16 * j);
        }
    }

    /// Hands op `op` to the interpreter: its operands go to the register file, the interpreter
    /// runs it over the chunk, its results come back.
    pub(crate) fn callout(&mut self, op: &Op) -> Result<(), String> {
        self.call_rust(op, false)
    }

    /// Runs cooperative op `op` through `ctx::coop`: its operands go to the register file,
    /// `tessera-coop`'s kernels run it over the chunk, its results come back.
    pub(crate) fn native_call(&mut self, op: &Op) -> Result<(), String> {
        self.call_rust(op, true)
    }

    /// [`Self::callout`] (`native` false) or [`Self::native_call`].
    fn call_rust(&mut self, op: &Op, native: bool) -> Result<(), String> {
        let mut uses = Vec::new();
        let mut defs = Vec::new();
        op.clone().visit_regs(&mut |r, role| match role {
            Role::Use => uses.push(*r),
            Role::Def => defs.push(*r),
        });
        if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
            uses.extend(var.base..var.base + var.len);
        }
        if let Op::StoreVar { var, .. } = op {
            defs.extend(var.base..var.base + var.len);
        }
        uses.sort_unstable();
        uses.dedup();
        for &r in &uses {
            self.spill(r, false);
        }
        let (index, f) = if native {
            self.natives.push(op.clone());
            (
                self.natives.len() as i64 - 1,
                self.ctx_load(I64, field!(coop_fn)),
            )
        } else {
            self.callouts.push(op.clone());
            (
                self.callouts.len() as i64 - 1,
                self.ctx_load(I64, field!(run_op_fn)),
            )
        };
        let idx = self.b.ins().iconst(I32, index);
        let c = self.chunk();
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.run_op, f, &[self.ctx, idx, c]);
        let stop = self.b.inst_results(call)[0];
        let abort = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(stop, abort, &[], cont, &[]);
        self.b.switch_to_block(abort);
        self.leave_with(status::ABORT);
        self.b.switch_to_block(cont);
        defs.sort_unstable();
        defs.dedup();
        for r in defs {
            self.reload_result(r)?;
        }
        Ok(())
    }

    /// Reads a result the interpreter wrote: lane 0 for a uniform or affine register (the
    /// analysis says every lane agrees), all lanes for a varying one.
    fn reload_result(&mut self, r: Reg) -> Result<(), String> {
        if self.resident[r as usize] {
            return Ok(()); // Its row is its home.
        }
        let bytes = self.bytes(r);
        let addr = self.row_addr(r);
        match self.classes[r as usize] {
            Class::Const(_) => Ok(()),
            Class::Varying => {
                let vs = (0..bytes)
                    .map(|j| {
                        self.b
                            .ins()
                            .load(vec_ty(bytes), own_flags(), addr, (16 * j) as i32)
                    })
                    .collect();
                self.set(r, JVal::Varying(vs))
            }
            Class::Affine(s) => {
                let x = self.b.ins().load(scalar_ty(bytes), own_flags(), addr, 0);
                self.set(r, JVal::Affine(x, s))
            }
            _ => {
                let x = self.b.ins().load(scalar_ty(bytes), own_flags(), addr, 0);
                self.set(r, JVal::Uniform(x))
            }
        }
    }
}
