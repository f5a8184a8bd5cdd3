//! Divergent lanes block by block: a divergent branch that no masked region or loop takes
//! (its paths hold a subgroup operation, an atomic whose result is read, or loops that its
//! lanes leave at different iterations after an early `return`) no longer hands its chunk to
//! the interpreter. Compiled code writes the registers the branch's targets read into their
//! register-file rows, sets each lane's block index (`ctx.pcs`) to the target it takes, and
//! enters the stepper: a loop that takes the lowest block index among the chunk's lanes, as
//! the interpreter's scheduler does, and runs that block for the lanes waiting there under
//! their mask, then writes back the registers its successors read (blended into the active
//! lanes' rows) and the lanes' next block indices.
//!
//! The stepper's dispatch (`step_dispatch`) goes, for the lowest block index:
//! - to the chunk's end when every lane is done;
//! - to the chunk's end too when it is a sync block: the lanes there wait for the driver (a
//!   subgroup operation then runs for the lanes that reach it, as in the interpreter), and the
//!   chunk comes back in resume mode, whose dispatch (`Gen::resume_dispatch`) sends a chunk
//!   whose lanes wait at different blocks here;
//! - to the normal code of a block where the branch's paths meet when all 16 lanes are there
//!   (an entry that reloads the block's registers from their rows and checks their classes);
//! - to the block's stepped copy ([`Gen::steppable`]) for the lanes there;
//! - and to the interpreter otherwise (a hand-back with the lanes where they are).
//!
//! Which blocks get a stepped copy: those a branch that entered the stepper reaches before
//! its paths meet (all it reaches when they meet only where the lanes finish), up to
//! [`MAX_STEPPED_OPS`] ops for the function; past that a divergent branch hands back. A stepped
//! block reloads its registers from their rows (a uniform or affine register checked over the
//! active lanes, from the first active lane), runs its ops under the mask (`Gen::mask`, with
//! [`Restart::Pcs`]), and takes its terminator lane by lane.
//!
//! An op that goes to the interpreter (`Gen::callout`, a native cooperative call) would write
//! every lane's rows, so it may not come up in a stepped block: the build fails with
//! `JitError::SteppedCallout` and the compiler builds the function again without the stepper
//! (as it does after any failure of a build with it).
//!
//! Invariants: while a chunk steps, each lane's rows hold the registers live at the block its
//! index names, for that lane (a stepped block writes rows and indices only for its active
//! lanes, and only at its end); a hand-back from a stepped block leaves the lanes where their
//! indices say, so an op that may hand back never follows one of the block's effects
//! ([`Gen::steppable`]); each trip through the dispatch counts down the watchdog's poll count.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;
use tessera_spirv::ir::postdom::post_dominators;
use tessera_spirv::ir::{Edge, Ir, Op, Reg, Term};

use super::masked::{Masked, Restart, maskable_block, writes_memory};
use super::values::{ActiveLanes, JVal, own_flags, vec_ty};
use super::{DONE, Gen};
use crate::classes::{Class, LANES};
use crate::ctx::field;
use crate::error::{JitError, JitResult};

/// The most IR ops the stepped copies of a function may copy (their blocks counted once for
/// each branch that reaches them): past it a divergent branch hands its chunk back, so that an
/// early `return` before a large rest of a program does not double the function.
const MAX_STEPPED_OPS: usize = 2048;

/// The stepper of a function (see the module docs).
pub(crate) struct Stepping {
    /// The dispatch block: picks the lowest block index of the chunk's lanes.
    pub(crate) dispatch: Block,
    /// The lanes waiting at the block the dispatch picked (`I8X16` of 0/1).
    mask: Variable,
    /// The divergent branches that enter the stepper (their blocks).
    branches: Vec<usize>,
    /// The blocks' immediate post-dominators (`None`: the exit).
    post: Vec<Option<u32>>,
    /// The ops of the blocks the branches taken so far reach.
    ops: usize,
}

impl Stepping {
    pub(crate) fn new(b: &mut cranelift_frontend::FunctionBuilder<'_>, ir: &Ir) -> Self {
        Stepping {
            dispatch: b.create_block(),
            mask: b.declare_var(I8X16),
            branches: Vec::new(),
            post: post_dominators(ir),
            ops: 0,
        }
    }

    /// The blocks branch block `i` reaches before its paths meet (all it reaches when they
    /// meet only at the exit), and where they meet.
    fn region(&self, ir: &Ir, i: usize) -> (Vec<usize>, Option<usize>) {
        let join = self.post[i].map(|j| j as usize);
        let mut stack: Vec<usize> = ir.blocks[i]
            .term
            .edges()
            .iter()
            .map(|e| e.target as usize)
            .collect();
        let mut seen = vec![false; ir.blocks.len()];
        let mut blocks = Vec::new();
        while let Some(b) = stack.pop() {
            if Some(b) == join || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            blocks.push(b);
            stack.extend(ir.blocks[b].term.edges().iter().map(|e| e.target as usize));
        }
        (blocks, join)
    }
}

impl Gen<'_> {
    /// Whether block `b` can run stepped: a block a mask can run (no sync op, no guarded
    /// latch, only maskable ops), ending in a jump, a branch or an exit, whose varying branch
    /// moves only into varying or resident registers, and with no op that may hand back after
    /// one of its effects (a store, a tensor write, a store into a resident variable).
    pub(super) fn steppable(&self, b: usize) -> bool {
        let ir = self.ir;
        // (A guarded latch steps too, below the floor: see `build_stepper`.)
        if !maskable_block(ir, &self.sync, &[], b) {
            return false;
        }
        let block = &ir.blocks[b];
        match &block.term {
            Term::Switch { .. } => return false,
            Term::Branch {
                cond,
                if_true,
                if_false,
            } if self.classes[*cond as usize] == Class::Varying => {
                let moves_fit = if_true.moves.iter().chain(&if_false.moves).all(|&(d, _)| {
                    self.resident[d as usize] || self.classes[d as usize] == Class::Varying
                });
                if !moves_fit {
                    return false;
                }
            }
            _ => {}
        }
        let mut effects = false;
        for op in &block.ops {
            if effects && (self.wrap_check_may_hand_back(op) || self.tensor_read_may_hand_back(op))
            {
                return false;
            }
            effects |= writes_memory(op)
                || matches!(op, Op::StoreVar { var, .. } if self.resident[var.base as usize]);
        }
        true
    }

    /// Whether the divergent branch ending block `i` can enter the stepper: stepping is on
    /// (not in group batches), no mask is active, and the branch's moves fit (as in a
    /// stepped block).
    pub(super) fn can_step_branch(&self, i: usize) -> bool {
        let Some(stepping) = self.stepping.as_ref().filter(|_| self.mask.is_none()) else {
            return false;
        };
        let Term::Branch {
            if_true, if_false, ..
        } = &self.ir.blocks[i].term
        else {
            return false;
        };
        let fits =
            if_true.moves.iter().chain(&if_false.moves).all(|&(d, _)| {
                self.resident[d as usize] || self.classes[d as usize] == Class::Varying
            });
        fits && stepping.ops + self.region_ops(i) <= MAX_STEPPED_OPS
    }

    /// The ops of the blocks branch block `i` reaches before its paths meet.
    fn region_ops(&self, i: usize) -> usize {
        self.stepping.as_ref().map_or(0, |s| {
            let (blocks, _) = s.region(self.ir, i);
            blocks
                .iter()
                .map(|&b| self.ir.blocks[b].ops.len() + 1)
                .sum()
        })
    }

    /// Enters the stepper from the divergent branch ending block `i` on `cond` (`I8X16` of
    /// 0/1): each lane takes its edge's moves, and the registers the two targets read go to
    /// their rows, with each lane's block index.
    pub(super) fn step_branch(&mut self, i: usize, cond: Value) -> JitResult<()> {
        let ops = self.region_ops(i);
        if let Some(s) = self.stepping.as_mut() {
            s.branches.push(i);
            s.ops += ops;
        }
        let one = self.b.ins().iconst(I8, 1);
        let all = self.b.ins().splat(I8X16, one);
        self.lanes_leave(i, all, Some(cond))?;
        let dispatch = self.dispatch_block()?;
        self.poll_then(dispatch);
        Ok(())
    }

    /// Resume mode with the chunk's lanes at different blocks, or all at one that has no
    /// entry: the stepper, or the interpreter when there is none.
    pub(super) fn enter_stepper(&mut self) {
        match self.stepping.as_ref().map(|s| s.dispatch) {
            Some(dispatch) => {
                self.b.ins().jump(dispatch, &[]);
            }
            None => self.hand_back_from_pcs(),
        }
    }

    fn dispatch_block(&self) -> JitResult<Block> {
        self.stepping
            .as_ref()
            .map(|s| s.dispatch)
            .ok_or(JitError::Unexpected("stepping without a stepper"))
    }

    /// Builds the dispatch, the stepped blocks and the entries of the blocks where the
    /// branches' paths meet (see the module docs). The dispatch hands the chunk back as it is
    /// when no branch entered the stepper.
    pub(super) fn build_stepper(&mut self) -> JitResult<()> {
        let Some(stepping) = self.stepping.as_ref() else {
            return Ok(());
        };
        let (dispatch, mask_var) = (stepping.dispatch, stepping.mask);
        let branches = stepping.branches.clone();
        if branches.is_empty() {
            // No branch steps: a chunk resumed at different blocks is the interpreter's.
            self.b.switch_to_block(dispatch);
            self.hand_back_from_pcs();
            return Ok(());
        }
        let ir = self.ir;
        let n = ir.blocks.len();
        let mut stepped = vec![false; n];
        let mut joins = vec![false; n];
        let mut waits = vec![false; n];
        for &i in &branches {
            let Some((blocks, join)) = self.stepping.as_ref().map(|s| s.region(ir, i)) else {
                continue;
            };
            if let Some(j) = join {
                joins[j] = !self.sync[j] && !self.guarded[j];
            }
            for b in blocks {
                if self.sync[b] {
                    waits[b] = true;
                } else if self.steppable(b) {
                    stepped[b] = true;
                }
            }
        }
        self.b.switch_to_block(dispatch);
        let pcs = self.chunk_pcs();
        let rows: Vec<Value> = (0..4)
            .map(|j| self.b.ins().load(I32X4, own_flags(), pcs, 16 * j))
            .collect();
        let low = self.b.ins().umin(rows[0], rows[1]);
        let high = self.b.ins().umin(rows[2], rows[3]);
        let least = self.b.ins().umin(low, high);
        let mut min = self.b.ins().extractlane(least, 0);
        for k in 1..4 {
            let x = self.b.ins().extractlane(least, k);
            min = self.b.ins().umin(min, x);
        }
        let wanted = self.b.ins().splat(I32X4, min);
        let masks: Vec<Value> = rows
            .iter()
            .map(|&r| self.b.ins().icmp(IntCC::Equal, r, wanted))
            .collect();
        let lanes = self.bools_from_masks(&masks, 4);
        self.b.def_var(mask_var, lanes);
        let every = self.b.ins().vall_true(lanes);
        let fallback = self.b.create_block();
        let wait = self.b.create_block();
        let mut table = Vec::with_capacity(n);
        let mut arms = Vec::new();
        for b in 0..n {
            if waits[b] {
                table.push(wait);
            } else if stepped[b] || joins[b] {
                let arm = self.b.create_block();
                arms.push((b, arm));
                table.push(arm);
            } else {
                table.push(fallback);
            }
        }
        // A done chunk (the lowest index is `DONE`) is past the table: its default.
        let done = self.b.create_block();
        let is_done = self.b.ins().icmp_imm_s(IntCC::Equal, min, i64::from(DONE));
        let pick = self.b.create_block();
        self.b.ins().brif(is_done, done, &[], pick, &[]);
        self.enter_sealed(pick);
        self.br_table_to(min, &table, fallback);
        self.enter_sealed(done);
        self.end_round_here();
        self.b.ins().jump(self.chunk_done, &[]);
        self.enter_sealed(wait);
        self.end_round_here();
        self.b.ins().jump(self.chunk_done, &[]);
        // (Sealed with the rest at the end: the join arms below branch to it too.)
        self.b.switch_to_block(fallback);
        self.hand_back_from_pcs();
        for (b, arm) in arms {
            self.enter_sealed(arm);
            let step = self.b.create_block();
            if joins[b] {
                let entry = self.b.create_block();
                let other = if stepped[b] { step } else { fallback };
                self.b.ins().brif(every, entry, &[], other, &[]);
                self.enter_sealed(entry);
                self.join_entry(b)?;
            } else {
                self.b.ins().jump(step, &[]);
            }
            if stepped[b] {
                self.enter_sealed(step);
                if self.guarded[b] {
                    // A guarded latch: its lanes wait there unless it is below the floor that
                    // the other chunks' lanes of their subgroups give (`ir::sched`).
                    let floor = self.ctx_load(I32, field!(floor));
                    let below =
                        self.b
                            .ins()
                            .icmp_imm_s(IntCC::UnsignedGreaterThan, floor, b as i64);
                    let go = self.b.create_block();
                    let park = self.b.create_block();
                    self.b.ins().brif(below, go, &[], park, &[]);
                    self.enter_sealed(park);
                    self.end_round_here();
                    self.b.ins().jump(self.chunk_done, &[]);
                    self.enter_sealed(go);
                }
                let lanes = self.b.use_var(mask_var);
                self.stepped_block(b, lanes)?;
            }
        }
        Ok(())
    }

    /// The address of the chunk's 16 block indices.
    fn chunk_pcs(&mut self) -> Value {
        let pcs = self.ctx_load(I64, field!(pcs));
        let c = self.chunk();
        let c64 = self.b.ins().uextend(I64, c);
        let off = self.b.ins().imul_imm_s(c64, (LANES * 4) as i64);
        self.b.ins().iadd(pcs, off)
    }

    /// Enters block `b`'s normal code with every lane there: its registers reloaded from their
    /// rows and checked against their classes (else the interpreter takes the chunk).
    fn join_entry(&mut self, b: usize) -> JitResult<()> {
        self.reload_live_in(b, None)?;
        self.goto(b as u32, None)
    }

    /// Block `b` for the lanes of `lanes` (see the module docs).
    fn stepped_block(&mut self, b: usize, lanes: Value) -> JitResult<()> {
        let ir = self.ir;
        let first = self.first_lane(lanes);
        self.reload_live_in(b, Some(ActiveLanes { lanes, first }))?;
        let outer = self.mask.replace(Masked {
            lanes,
            restart: Restart::Pcs,
        });
        self.at = (b as u32, 0);
        self.check_tensor_views(&[b]);
        for (k, op) in ir.blocks[b].ops.iter().enumerate() {
            self.at = (b as u32, k);
            self.op(op)?;
        }
        self.at = (b as u32, ir.blocks[b].ops.len());
        self.lanes_leave(b, lanes, None)?;
        self.mask = outer;
        let dispatch = self.dispatch_block()?;
        self.poll_then(dispatch);
        Ok(())
    }

    /// The lanes of `lanes` leave block `b` by its terminator: each takes its edge's moves
    /// (`cond`, when given, is the branch's condition for every lane, already read), the
    /// registers the targets read are blended into the active lanes' rows, and the active
    /// lanes' block indices become their targets (`DONE` at an exit).
    fn lanes_leave(&mut self, b: usize, lanes: Value, cond: Option<Value>) -> JitResult<()> {
        let ir = self.ir;
        let term = &ir.blocks[b].term;
        let next: [Value; 4] = match term {
            Term::Exit => {
                let done = self.b.ins().iconst(I32, i64::from(DONE));
                let v = self.b.ins().splat(I32X4, done);
                [v; 4]
            }
            Term::Jump(e) => {
                self.copies(e)?;
                let t = self.b.ins().iconst(I32, i64::from(e.target));
                let v = self.b.ins().splat(I32X4, t);
                [v; 4]
            }
            Term::Branch {
                cond: c,
                if_true,
                if_false,
            } => {
                let t = self.b.ins().iconst(I32, i64::from(if_true.target));
                let f = self.b.ins().iconst(I32, i64::from(if_false.target));
                let bools = match cond {
                    Some(v) => Some(v),
                    None => match self.get(*c) {
                        JVal::Varying(vs) => Some(vs[0]),
                        other => {
                            // The same for every active lane: a real branch.
                            let x = self
                                .scalar(&other, 1)
                                .ok_or(JitError::Unexpected("a branch condition"))?;
                            let x = self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0);
                            let (on, off, join) = (
                                self.b.create_block(),
                                self.b.create_block(),
                                self.b.create_block(),
                            );
                            self.b.ins().brif(x, on, &[], off, &[]);
                            self.enter_sealed(on);
                            self.copies(if_true)?;
                            self.b.ins().jump(join, &[]);
                            self.enter_sealed(off);
                            self.copies(if_false)?;
                            self.b.ins().jump(join, &[]);
                            self.enter_sealed(join);
                            let target = self.b.ins().select(x, t, f);
                            let v = self.b.ins().splat(I32X4, target);
                            self.write_back(b, lanes, [v; 4]);
                            return Ok(());
                        }
                    },
                };
                let bools = bools.ok_or(JitError::Unexpected("a branch condition"))?;
                self.lane_copies(bools, if_true, if_false)?;
                let masks = self.masks_from_bools(bools, 4);
                let t = self.b.ins().splat(I32X4, t);
                let f = self.b.ins().splat(I32X4, f);
                std::array::from_fn(|j| self.b.ins().bitselect(masks[j], t, f))
            }
            Term::Switch { .. } => {
                return Err(JitError::Unexpected("a switch in a stepped block"));
            }
        };
        self.write_back(b, lanes, next);
        Ok(())
    }

    /// The end of a stepped block `b` (or of the branch that enters the stepper): the
    /// registers its targets read into the rows of the lanes of `lanes`, and their block
    /// indices `next`.
    fn write_back(&mut self, b: usize, lanes: Value, next: [Value; 4]) {
        let term = &self.ir.blocks[b].term;
        let mut regs: Vec<Reg> = Vec::new();
        for e in term.edges() {
            regs.extend(self.live.live_in[e.target as usize].iter());
        }
        regs.sort_unstable();
        regs.dedup();
        for r in regs {
            if self.ir_const[r as usize] || self.resident[r as usize] {
                continue;
            }
            let bytes = self.bytes(r);
            let v = self.get(r);
            let vs = self.vectors(&v, bytes);
            let masks = self.masks_from_bools(lanes, bytes);
            let addr = self.row_addr(r);
            let vt = vec_ty(bytes);
            for (j, (x, m)) in vs.into_iter().zip(masks).enumerate() {
                let old = self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32);
                let blended = self.lane_select(m, x, old);
                self.b
                    .ins()
                    .store(own_flags(), blended, addr, (16 * j) as i32);
            }
        }
        let pcs = self.chunk_pcs();
        let masks = self.masks_from_bools(lanes, 4);
        for (j, (x, m)) in next.into_iter().zip(masks).enumerate() {
            let old = self.b.ins().load(I32X4, own_flags(), pcs, (16 * j) as i32);
            let v = self.b.ins().bitselect(m, x, old);
            self.b
                .ins()
                .store(MemFlagsData::trusted(), v, pcs, (16 * j) as i32);
        }
    }

    /// The moves of a branch's two edges, lane by lane: each lane gets its own edge's (`bools`:
    /// the lanes that take `if_true`), read before any is written.
    fn lane_copies(&mut self, bools: Value, if_true: &Edge, if_false: &Edge) -> JitResult<()> {
        let taken: Vec<(Reg, JVal)> = if_true
            .moves
            .iter()
            .map(|&(d, s)| (d, self.get(s)))
            .collect();
        let other: Vec<(Reg, JVal)> = if_false
            .moves
            .iter()
            .map(|&(d, s)| (d, self.get(s)))
            .collect();
        let mut dsts: Vec<Reg> = taken.iter().chain(&other).map(|&(d, _)| d).collect();
        dsts.sort_unstable();
        dsts.dedup();
        let olds: Vec<JVal> = dsts.iter().map(|&d| self.get(d)).collect();
        for (&d, old) in dsts.iter().zip(olds) {
            let pick = |list: &[(Reg, JVal)]| {
                list.iter()
                    .find(|(r, _)| *r == d)
                    .map_or_else(|| old.clone(), |(_, v)| v.clone())
            };
            let (t, f) = (pick(&taken), pick(&other));
            let bytes = self.bytes(d);
            let v = self.blend(bools, &t, &f, bytes);
            self.set(d, v)?;
        }
        Ok(())
    }
}
