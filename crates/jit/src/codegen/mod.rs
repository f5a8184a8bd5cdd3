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
//!   the compiled form fails; a divergent branch whose paths meet again through maskable
//!   blocks runs both ways under masks instead, merging with selects (`masked`), a loop
//!   whose lanes leave at different iterations goes on under the mask of those still in it
//!   (`loops`), and any other divergent branch steps its lanes block by block, lowest block
//!   first, with the registers in their rows (`stepping`, which also takes a chunk resumed
//!   with its lanes at different blocks);
//! - at the end of the chunk range, when every chunk yielded at the same barrier-only block,
//!   the next round starts at chunk 0, each chunk entering the barrier's target with unchecked
//!   reloads (`next_round`, `round_dispatch`; the driver allows it per call with `ctx.rounds`);
//! - hand-backs and aborts leave through `chunk_head` (status in `exit_status`), the loop's only
//!   exits, `finish` and `out`, come last, and `exits_first` puts loop exits on the true side of
//!   branches: what Cranelift's loop-invariant code motion needs to hoist call-invariant work
//!   out of the chunk loop (see `leave`).
//!
//! Files: this one builds the function and its chunk loop; `flow` its control flow (blocks,
//! edges, yields, rounds, hand-backs); `stepping` the block-by-block run of divergent lanes; `analysis` the passes over the IR before and over the
//! function after; `callout` the calls into Rust; one file per op family for the rest.
//!
//! Invariants: generated code reads and writes application memory only after checking the access
//! against its window; every register the interpreter may read after a hand-back is in the
//! register file first; back edges count down the poll count (`ctx.poll`, kept in a variable
//! during the call) and call the watchdog at zero, through a trampoline that clobbers no
//! register (`build_poll_trampoline`).

mod analysis;
mod atomic_rounds;
mod atomic_updates;
mod callout;
mod compare;
mod conv;
mod coop;
mod dot;
mod dynamic;
pub(crate) mod edge;
mod exit_loops;
mod flat;
mod float;
mod flow;
mod gather;
mod half;
pub(crate) mod loops;
pub(crate) mod masked;
mod math;
mod memory;
mod narrow;
mod odd;
mod operands;
mod ops;
mod physical;
mod product;
mod quads;
mod rounds;
mod stepping;
mod tensor;
mod tern;
mod tile;
pub(crate) mod values;
mod vars;
mod vec4;

use crate::error::{JitError, JitResult};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, Inst, InstBuilder, SigRef, Signature, Type, UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use tessera_spirv::Program;
use tessera_spirv::exec::GroupShape;
use tessera_spirv::exec::regfile::RegLayout;
use tessera_spirv::ir::liveness::{Liveness, RegSet};
use tessera_spirv::ir::{Ir, Op, Reg, RegType};

use crate::classes::{Class, LANES};
use crate::ctx::{field, status};
use analysis::{
    barrier_jumps, dirty_registers, exits_first, hoist_divisions, invocation_ids,
    resident_registers,
};
pub(crate) use conv::fp8_tables;
pub(crate) use memory::Sites;
use values::{JVal, Vars, own_flags, scalar_ty, vec_ty};

/// Block index of a finished lane (the interpreter's).
pub(crate) const DONE: u32 = u32::MAX;

/// What compiling produced, besides the function.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) sites: Sites,
    /// Ops handed to the interpreter by `ctx::run_op`, by index.
    pub(crate) callouts: Vec<Op>,
    /// Cooperative ops run by `ctx::coop` or `ctx::product` (native kernels), by index.
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
    /// Cooperative-matrix loads that multiply-adds read in place (`operands`), and
    /// multiply-adds that run in batches of one call (`product::batches`).
    pub(crate) matrix_fusions: [u32; 2],
}

/// Signatures of the callbacks, and the watchdog poll's trampoline.
pub(crate) struct Sigs {
    /// `ctx::run_op`: (ctx, callout index, chunk) → status.
    pub(crate) run_op: SigRef,
    /// `ctx::coop`: (ctx, native index, chunk, active lanes) → status.
    pub(crate) coop: SigRef,
    /// `ctx::physical`: (ctx, device address, size) → host address or null.
    pub(crate) physical: SigRef,
    /// `ctx::product`: (ctx, native index, operands, count) → status.
    pub(crate) product: SigRef,
    pub(crate) poll: FuncRef,
}

pub(crate) struct Gen<'a> {
    pub(crate) ir: &'a Ir,
    pub(crate) layout: &'a RegLayout,
    pub(crate) shape: GroupShape,
    pub(crate) classes: Vec<Class>,
    /// Registers of `Ir::consts` (their rows hold the value already).
    pub(crate) ir_const: Vec<bool>,
    /// Registers holding an invocation id (`analysis::invocation_ids`).
    pub(crate) ids: Vec<bool>,
    live: Liveness,
    pub(crate) b: FunctionBuilder<'a>,
    pub(crate) vars: Vec<Vars>,
    /// Registers that live in their register-file row, not in Cranelift variables: those of a
    /// variable indexed by a computed index (`resident_registers`).
    pub(crate) resident: Vec<bool>,
    /// Multiply-adds that read operands from their variables, and the loads they skip.
    pub(crate) fusions: product::Fusions,
    /// Matrix loads that multiply-adds read in place (`operands`), and the variables of
    /// their places, by (block, op).
    pub(crate) load_places: operands::LoadPlaces,
    pub(crate) places: std::collections::HashMap<(u32, usize), (Variable, Variable)>,
    /// Runs of multiply-adds that one kernel call runs (`product::batches`).
    pub(crate) batches: product::Batches,
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
    /// The stepper, which runs divergent lanes block by block (`stepping`); none in group
    /// batches.
    pub(crate) stepping: Option<stepping::Stepping>,
    /// While a path of a divergent branch runs under a mask (`masked`): its active lanes and
    /// where a hand-back restarts instead of `at`, with what.
    pub(crate) mask: Option<masked::Masked>,
    /// Per block: the region of its branch, as the IR shapes it (`masked::region_of`).
    /// Per block, whether it heads a loop some region runs under its mask (`Region::loops`):
    /// the loops `masked::Gen::side` runs as real loops.
    pub(crate) loop_headers: Vec<bool>,
    pub(crate) regions: Vec<Option<masked::Region>>,
    /// Per block, the loop compiled code can mask that holds it (an index into the shapes:
    /// `loops::loop_shapes`).
    pub(crate) loops: (Vec<Option<usize>>, Vec<loops::LoopShape>),
    /// The ops of the masked region being generated whose checks a check pass made already
    /// (`masked`): they run unchecked.
    pub(crate) prechecked: std::collections::HashSet<(u32, usize)>,
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
    /// The `oob` operand of the tensor read being generated: what its out-of-bounds elements
    /// read on the lane-by-lane edge path (`gather`); 0 when it has none.
    pub(crate) tensor_oob: Option<Reg>,
    /// Bool vectors (`I8X16` of 0/1) whose "every lane true" and "some lane true" are known
    /// as scalars (`I8` 0/1) defined with them (`icmp_affine`, and `Not` of those): a branch
    /// on one tests the scalars instead of the vector.
    pub(crate) decided: std::collections::HashMap<Value, (Value, Value)>,
    /// Bool vectors made by `bools_from_masks`, with the lane masks (and their lane width) they
    /// were made from: `masks_from_bools` of the same width returns those instead of widening
    /// the bools again (a compare feeding a select). The masks are operands of the bools'
    /// definition, so they dominate every use of the bools.
    pub(crate) bool_masks: std::collections::HashMap<(Value, usize), Vec<Value>>,
    /// Components of `vec4` groups loaded ahead by their first load, by the (block, op) of the
    /// load that takes each (`vec4`).
    pub(crate) grouped_loads: std::collections::HashMap<(u32, usize), Vec<Value>>,
    /// Byte vectors (`I8X16`) that are byte `k` of the lanes' 32-bit words (four `I32X4`),
    /// with those words (`quads`): an 8-bit dot product reads the words.
    pub(crate) packed_bytes: std::collections::HashMap<Value, (Vec<Value>, u8)>,
    /// The dynamic tensor site of the op at (block, op) being generated: (ptr, len, ok, rank,
    /// dims, strides) (`dynamic`).
    pub(crate) dyn_site: Option<((u32, usize), [Value; 6])>,
    /// The first vector of a 32-bit logical shift right by `8·k` of words, with the words,
    /// `k` and all four shifted vectors (`quads`).
    pub(crate) shifted_words: std::collections::HashMap<Value, (Vec<Value>, u8, Vec<Value>)>,
    /// Stores of `vec4` groups done by their first store, by (block, op) (`vec4`).
    pub(crate) grouped_stores: std::collections::HashSet<(u32, usize)>,
    /// Physical access sites so far (each gets a slot of `Ctx::physical_sites`).
    pub(crate) physical_site: usize,
    /// Barrier rounds (see `next_round`): per block, the block a barrier-only block or a
    /// subgroup or atomic round's block (`rounds`, `atomic_rounds`) jumps to; whether any
    /// block is one (and the program has sync blocks).
    round_targets: Vec<Option<u32>>,
    /// Per block: whether it is a subgroup or atomic round's (`rounds::subgroup_jumps`,
    /// `atomic_rounds::atomic_jumps`): every chunk must have yielded there before the round
    /// computes it, so no chunk hops past it.
    op_rounds: Vec<bool>,
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

/// Builds the function for `program` into `func`.
///
/// `poll` is `func`'s reference to the watchdog poll's trampoline (`build_poll_trampoline`).
pub(crate) fn build(
    program: &Program,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    target: cranelift_codegen::isa::TargetFrontendConfig,
    poll: FuncRef,
    with_stepper: bool,
) -> JitResult<Output> {
    let call_conv = target.default_call_conv;
    let ir = program.ir();
    let shape = program.group_shape();
    let live = Liveness::of(ir);
    let classes = crate::classes::classes(ir, &shape, &live);
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
    let mut coop = run_op.clone();
    coop.params.insert(3, AbiParam::new(I32));
    let mut physical = Signature::new(call_conv);
    physical
        .params
        .extend([AbiParam::new(ptr), AbiParam::new(I64), AbiParam::new(I64)]);
    physical.returns.push(AbiParam::new(ptr));
    let mut product = Signature::new(call_conv);
    product.params.extend([
        AbiParam::new(ptr),
        AbiParam::new(I32),
        AbiParam::new(ptr),
        AbiParam::new(I32),
    ]);
    product.returns.push(AbiParam::new(I32));
    let sigs = Sigs {
        run_op: func.import_signature(run_op),
        coop: func.import_signature(coop),
        physical: func.import_signature(physical),
        product: func.import_signature(product),
        poll,
    };
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    let chunk = b.declare_var(I32);
    let resident = resident_registers(ir, &classes, program.reg_layout());
    let fusions = product::fused_products(ir, &classes, &resident, &live, shape.wg_size);
    let load_places = operands::load_places(
        ir,
        &classes,
        &resident,
        program.reg_layout(),
        &live,
        shape.wg_size,
    );
    let batches = product::batches(
        ir,
        program.reg_layout(),
        &fusions,
        &load_places,
        shape.wg_size,
    );
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
    let post = tessera_spirv::ir::postdom::post_dominators(ir);
    let headers = tessera_spirv::ir::loops::back_edge_targets(&ir.blocks);
    let regions: Vec<Option<masked::Region>> = (0..ir.blocks.len())
        .map(|b| masked::region_of(ir, &sync, &guarded, &post, &headers, b))
        .collect();
    let mut loop_headers = vec![false; ir.blocks.len()];
    for h in regions.iter().flatten().flat_map(|r| &r.loops) {
        loop_headers[*h] = true;
    }
    let loops = loops::loop_shapes(ir, &|b| masked::loop_block(ir, &sync, &guarded, b), &post);
    let chunk_done = b.create_block();
    let leave = b.create_block();
    let exit_status = b.declare_var(I32);
    let poll = b.declare_var(I32);
    let gathered = b.declare_var(I32);
    let direct = b.declare_var(I32);
    // Blocks of one subgroup operation or one atomic that a round computes.
    let op_jumps: Vec<Option<u32>> = rounds::subgroup_jumps(ir, shape.wg_size, &classes)
        .into_iter()
        .zip(atomic_rounds::atomic_jumps(ir))
        .map(|(subgroup, atomic)| subgroup.or(atomic))
        .collect();
    let op_rounds: Vec<bool> = op_jumps.iter().map(Option::is_some).collect();
    let round_targets: Vec<Option<u32>> = barrier_jumps(ir)
        .into_iter()
        .zip(op_jumps)
        .map(|(barrier, op)| barrier.or(op))
        .collect();
    let rounds = has_sync && round_targets.iter().any(Option::is_some);
    let batched = !has_sync && shape.fuse == 1;
    let group = b.declare_var(I32);
    let stepping = (!batched && with_stepper).then(|| stepping::Stepping::new(&mut b, ir));
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
        ids: invocation_ids(ir),
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
        fusions,
        load_places,
        places: Default::default(),
        batches,
        callouts: Vec::new(),
        natives: Vec::new(),
        native_ops: 0,
        has_sync,
        builtin_rows: false,
        at: (0, 0),
        mask: None,
        stepping,
        regions,
        loop_headers,
        loops,
        prechecked: Default::default(),
        entry_jump: None,
        invariants: std::collections::HashMap::new(),
        cold_loads: false,
        safe_divisions: Vec::new(),
        tiles: tile::Tiles::default(),
        tensor_oob: None,
        decided: std::collections::HashMap::new(),
        bool_masks: std::collections::HashMap::new(),
        grouped_loads: std::collections::HashMap::new(),
        grouped_stores: std::collections::HashSet::new(),
        packed_bytes: std::collections::HashMap::new(),
        dyn_site: None,
        shifted_words: std::collections::HashMap::new(),
        physical_site: 0,
        round_targets,
        op_rounds,
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
        load_places,
        batches: product_batches,
        ..
    } = g;
    let matrix_fusions = [
        load_places.loads.len() as u32,
        product_batches.first.values().sum::<usize>() as u32,
    ];
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
        matrix_fusions,
    })
}

impl Gen<'_> {
    /// Switches to `block` and seals it. Only for a block whose every predecessor has been
    /// emitted, such as the arms and the join of one op's fast/slow diamond: a sealed block
    /// resolves variables at once, where an unsealed one gets a parameter for every variable
    /// used after it (cubic in a huge straight-line shader; see `seal_all_blocks` in `build`).
    pub(crate) fn enter_sealed(&mut self, block: Block) {
        self.b.switch_to_block(block);
        self.b.seal_block(block);
    }

    /// The address of the context's scratch bytes, where accesses that must not touch
    /// application memory (inactive or out-of-bounds lanes) go.
    pub(crate) fn scratch_addr(&mut self) -> Value {
        self.b
            .ins()
            .iadd_imm_s(self.ctx, i64::from(field!(scratch)))
    }

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

    fn function(&mut self) -> JitResult<()> {
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
        self.build_stepper()?;

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
    pub(crate) fn leave_with(&mut self, st: u32) {
        let v = self.b.ins().iconst(I32, i64::from(st));
        self.b.def_var(self.exit_status, v);
        self.b.ins().jump(self.leave, &[]);
    }

    /// Defines the built-in registers for the current chunk.
    fn builtins(&mut self) -> JitResult<()> {
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
        // One-invocation workgroups fused into a group: lane `l` of the chunk is workgroup
        // `k + l`, its id (and global id) the `wg_ids` entry the driver wrote for it, read here
        // instead of from rows the driver would have to write for every group.
        let varies = |base: Option<Reg>| {
            base.is_some_and(|r| (r..r + 3).any(|x| self.classes[x as usize] == Class::Varying))
        };
        let per_lane = (shape.fuse > 1
            && shape.wg_size == 1
            && !self.batched
            && (varies(b.workgroup_id) || varies(b.global_id)))
        .then(|| self.lane_workgroup_ids(ids, k));
        for i in 0..3u32 {
            let iu = i as usize;
            if let Some(r) = b.local_id {
                self.builtin(r + i, local[iu])?;
            }
            let lane_ids = |g: &Self, r: Reg| {
                per_lane
                    .as_ref()
                    .filter(|_| g.classes[r as usize] == Class::Varying)
                    .map(|ids| JVal::Varying(ids[iu].clone()))
            };
            if let Some(r) = b.workgroup_id {
                match lane_ids(self, r + i) {
                    Some(v) => self.set(r + i, v)?,
                    None => self.builtin(r + i, wg[iu].unwrap_or(local[iu]))?,
                }
            }
            if let Some(r) = b.num_workgroups {
                let n = self.inv_load(I32, ctx, field!(num_wg) + 4 * i as i32);
                self.builtin(r + i, n)?;
            }
            if let Some(r) = b.global_id
                && let Some(v) = lane_ids(self, r + i)
            {
                // (One invocation per workgroup: the global id is the workgroup id.)
                self.set(r + i, v)?;
            } else if let Some(r) = b.global_id {
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

    /// The workgroup ids (x, y, z: four `I32X4` each) of the chunk's 16 lanes when each lane
    /// is a workgroup of its own, from `k`, the first one's entry in the `wg_ids` table at
    /// `ids` (entries of `[x, y, z, 0]`; the driver pads the table to whole chunks, so the 16
    /// entries are there even past the dispatch's last workgroup).
    fn lane_workgroup_ids(&mut self, ids: Value, k: Value) -> [Vec<Value>; 3] {
        let k64 = self.b.ins().uextend(I64, k);
        let koff = self.b.ins().imul_imm_s(k64, 16);
        let first = self.b.ins().iadd(ids, koff);
        // One 16-byte entry a lane, transposed four lanes at a time into x, y and z vectors.
        let rows: Vec<Value> = (0..LANES as i32)
            // (The table's entries are 4-byte aligned: no alignment claimed.)
            .map(|lane| {
                self.b
                    .ins()
                    .load(I32X4, values::app_flags(), first, 16 * lane)
            })
            .collect();
        let [x, y, z, _] = self.rows_to_components(&rows);
        [x, y, z]
    }

    /// Defines built-in register `r`: lane 0's value `lane0` when uniform or affine, its row
    /// (written by the driver) when varying.
    fn builtin(&mut self, r: Reg, lane0: Value) -> JitResult<()> {
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
            other => Err(JitError::Class {
                reg: r,
                what: format!("built-in has class {other:?}"),
            }),
        }
    }
}
