//! Control flow of the generated function: resuming a chunk at the block its lanes wait at,
//! barrier rounds, IR blocks and their terminators (uniform branches, masked one-block arms,
//! switches), edges, yields at sync blocks and hand-backs to the interpreter (see the module
//! docs of `codegen` for the function's layout).

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use tessera_spirv::ir::liveness::RegSet;
use tessera_spirv::ir::{Edge, Op, Reg, Role, Term};

use super::masked::Restart;
use super::values::{ActiveLanes, JVal, own_flags, vec_ty};
use super::{DONE, Gen, ROUND_MIXED, ROUND_NONE};
use crate::classes::LANES;
use crate::ctx::{LANE_PCS, field, status};

impl Gen<'_> {
    /// Resume mode: runs the chunk from the block all its lanes wait at.
    pub(super) fn resume_dispatch(&mut self) -> JitResult<()> {
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
        self.enter_stepper();
        self.b.switch_to_block(same);
        // Entries: the blocks a sync block leads to; sync blocks and finished lanes skip the
        // chunk; anything else goes to the stepper (lanes at different blocks too), which hands
        // the chunk back to the interpreter where it has no stepped block.
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
        self.enter_stepper();
        for (i, s) in stubs {
            self.b.switch_to_block(s);
            self.reload_live_in(i, None)?;
            // Through `goto`: a guarded latch checks the floor again.
            self.goto(i as u32, None)?;
        }
        Ok(())
    }

    /// Reloads the registers live into block `b` from their rows, checked against their
    /// classes over the lanes of `active` (every lane when `None`); a chunk whose rows do not
    /// fit goes to the interpreter with its lanes where their block indices say.
    pub(super) fn reload_live_in(
        &mut self,
        b: usize,
        active: Option<ActiveLanes>,
    ) -> JitResult<()> {
        let regs: Vec<Reg> = self.live.live_in[b].iter().collect();
        let mut bad = None;
        for r in regs {
            bad = self.reload_lanes(r, active, bad)?;
        }
        if let Some(bad) = bad {
            self.branch_out_if(bad, Self::hand_back_from_pcs);
        }
        Ok(())
    }

    /// A chunk leaves otherwise than by yielding at a sync block: no barrier round this time.
    pub(super) fn end_round_here(&mut self) {
        if self.rounds {
            let mixed = self.b.ins().iconst(I32, ROUND_MIXED);
            self.b.def_var(self.gathered, mixed);
        }
    }

    /// At the end of the chunk range: when every chunk of the group yielded at the same
    /// barrier-only block or subgroup reduction's block (`gathered`; the reduction is computed
    /// here for every lane, `rounds.rs`), moves them all past it and runs the next round in this
    /// call, from chunk 0, each chunk entering the block the barrier jumps to with its live
    /// registers reloaded from the rows this call just wrote (`round_dispatch`). The driver would
    /// do the same (`Worker::advance_lanes`, a call in resume mode, a check of every lane's block
    /// index), at a far higher cost per round. Back edges count: a round polls the watchdog.
    /// Otherwise falls through to returning `DONE`.
    pub(super) fn next_round(&mut self, head: Block) -> JitResult<()> {
        let g = self.b.use_var(self.gathered);
        let done = self.b.create_block();
        let mut table = Vec::with_capacity(self.round_targets.len());
        let mut arms = Vec::new();
        for (i, t) in self.round_targets.clone().into_iter().enumerate() {
            match t {
                Some(t) if self.sync[i] => {
                    let arm = self.b.create_block();
                    arms.push((i, arm, t));
                    table.push(arm);
                }
                _ => table.push(done),
            }
        }
        self.br_table_to(g, &table, done);
        for (i, arm, t) in arms {
            self.b.switch_to_block(arm);
            if self.op_rounds[i] {
                // Every lane waits at the subgroup operation or the atomic: it runs here, for
                // all of them.
                if self.is_atomic_round(i) {
                    self.atomic_round(i)?;
                } else {
                    self.subgroup_round(i)?;
                }
            }
            let go = self.b.create_block();
            // (Between rounds every register is in its row: only the function's own variables
            // are live.)
            self.poll_then(go);
            self.b.switch_to_block(go);
            let one = self.b.ins().iconst(I32, 1);
            self.ctx_store(one, field!(ran_rounds));
            // Every chunk passes the barrier now. Should one be handed back mid-round, the
            // driver finds the chunks after it at the barrier's target, where they go on, not
            // still waiting at the barrier: taking the lowest block first, it would otherwise
            // release the chunks before them through the loop's other barrier.
            self.set_all_pcs(t);
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
    pub(super) fn round_dispatch(&mut self, d: Value) -> JitResult<()> {
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
    pub(super) fn hand_back_from_pcs(&mut self) {
        let c = self.chunk();
        self.ctx_store(c, field!(chunk));
        let none = self.b.ins().iconst(I32, i64::from(DONE));
        self.ctx_store(none, field!(stop_block));
        self.leave_with(status::HAND_BACK);
    }

    /// Registers live just before op `k` of block `blk`.
    pub(super) fn live_at(&self, blk: usize, k: usize) -> RegSet {
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
            op.for_each_reg(&mut |r, role| match role {
                Role::Def => defs.push(r),
                Role::Use => uses.push(r),
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
    /// registers are saved and the interpreter will continue with that op. Under a divergent
    /// branch's mask it restarts where `Masked::restart` says instead: the region's branch with
    /// the values the registers had there, or a masked loop's iteration start (or the current
    /// op, as without a mask: `Restart::Op`).
    pub(crate) fn hand_back(&mut self) {
        let restart = self.mask.as_ref().map(|m| m.restart.clone());
        if let Some(Restart::Pcs) = restart {
            self.hand_back_from_pcs();
            return;
        }
        let here = matches!(restart, None | Some(Restart::Op));
        let (blk, k) = match restart {
            None | Some(Restart::Op) => self.at,
            Some(Restart::At(at, snapshot)) => {
                let regs: Vec<Reg> = self.live_at(at.0 as usize, at.1).iter().collect();
                for r in regs {
                    match snapshot.iter().find(|(s, _)| *s == r) {
                        Some((_, v)) => self.spill_value(r, v, true),
                        None => self.spill(r, true),
                    }
                }
                at
            }
            Some(Restart::Pcs) => return,
            Some(Restart::Lanes {
                active,
                header,
                exit,
                values,
            }) => {
                for (r, v) in &values {
                    self.spill_value(*r, v, true);
                }
                self.set_lane_pcs(active, header, exit);
                (LANE_PCS, 0)
            }
        };
        if here {
            let regs: Vec<Reg> = self.live_at(blk as usize, k).iter().collect();
            for r in regs {
                self.spill(r, true);
            }
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
    /// Ends the chunk: every lane is done.
    pub(super) fn exit_chunk(&mut self) {
        if self.has_sync {
            self.set_chunk_pcs(DONE);
        }
        self.end_round_here();
        self.b.ins().jump(self.chunk_done, &[]);
    }

    pub(crate) fn hand_back_if(&mut self, bad: Value) {
        self.branch_out_if(bad, Self::hand_back);
    }

    /// Leaves with `status::ABORT` when `stop` (a callback's result) is non-zero; continues in
    /// a new block otherwise.
    pub(crate) fn abort_if(&mut self, stop: Value) {
        self.branch_out_if(stop, |g| g.leave_with(status::ABORT));
    }

    /// Emits `out` (which ends its block) in a block taken when `bad` is non-zero; continues in
    /// a new block otherwise.
    pub(super) fn branch_out_if(&mut self, bad: Value, out: fn(&mut Self)) {
        let back = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bad, back, &[], cont, &[]);
        self.enter_sealed(back);
        out(self);
        self.enter_sealed(cont);
    }

    pub(super) fn block(&mut self, i: usize) -> JitResult<()> {
        let ir = self.ir;
        let block = &ir.blocks[i];
        for (k, op) in block.ops.iter().enumerate() {
            self.at = (i as u32, k);
            self.op(op)?;
        }
        self.at = (i as u32, block.ops.len());
        match &block.term {
            Term::Exit => self.exit_chunk(),
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
                        if let Some(region) = self.maskable_region(i) {
                            self.masked_region(i, region, vs[0])?;
                        } else if let Some(plan) = self.maskable_loop(i) {
                            self.masked_loop(i, plan, vs[0])?;
                        } else if self.can_step_branch(i) {
                            self.step_branch(i, vs[0])?;
                        } else {
                            self.hand_back();
                        }
                    }
                    JVal::Affine(..) => {
                        return Err(JitError::Unexpected("affine branch condition"));
                    }
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
                // Lowering writes switches as chains of branches (`tessera_spirv`'s
                // `switches`), which divergent lanes run under masks; this is the IR's own
                // form, taken only when every lane agrees.
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
                    other => self
                        .scalar(other, bytes)
                        .ok_or(JitError::NotUniform("a switch selector"))?,
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

    /// Takes edge `e` out of block `from`: its parallel copies, then the target.
    pub(super) fn edge(&mut self, e: &Edge, from: usize) -> JitResult<()> {
        self.copies(e)?;
        self.goto(e.target, Some(from))
    }

    /// Continues at block `target` (from block `from`): a yield if it is a sync block, a
    /// watchdog countdown on a back edge.
    pub(super) fn goto(&mut self, target: u32, from: Option<usize>) -> JitResult<()> {
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
    /// would, without the chunk loop's head and start.
    pub(super) fn yield_at(&mut self, target: u32) -> JitResult<()> {
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
        let round_target = self.round_targets[t].filter(|&n| {
            self.rounds && !self.op_rounds[t] && !self.sync.get(n as usize).copied().unwrap_or(true)
        });
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
        let enter = self.b.create_block();
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
    pub(super) fn gather_at(&mut self, target: u32) {
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
    pub(super) fn poll_then(&mut self, go: Block) {
        let p = self.b.use_var(self.poll);
        let p1 = self.b.ins().iadd_imm_s(p, -1);
        self.b.def_var(self.poll, p1);
        let expired = self.b.ins().icmp_imm_s(IntCC::Equal, p1, 0);
        let call = self.b.create_block();
        self.b.ins().brif(expired, call, &[], go, &[]);
        self.enter_sealed(call);
        self.b.ins().call(self.sigs.poll, &[self.ctx]);
        let stop = self.ctx_load(I32, field!(poll_stop));
        let abort = self.b.create_block();
        let resume = self.b.create_block();
        self.b.ins().brif(stop, abort, &[], resume, &[]);
        self.enter_sealed(resume);
        let polls = self.ctx_load(I32, field!(poll));
        self.b.def_var(self.poll, polls);
        self.b.ins().jump(go, &[]);
        self.enter_sealed(abort);
        self.leave_with(status::ABORT);
    }

    /// Ends the current block with a jump to `table[index]` (`default` past its end).
    pub(super) fn br_table_to(&mut self, index: Value, table: &[Block], default: Block) {
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

    /// Sets the block index of every lane of the chunks before `ctx.chunk_end` (a barrier
    /// round's, which starts at chunk 0).
    pub(super) fn set_all_pcs(&mut self, pc: u32) {
        let pcs = self.ctx_load(I64, field!(pcs));
        let end = self.ctx_load(I32, field!(chunk_end));
        let end64 = self.b.ins().uextend(I64, end);
        let bytes = self.b.ins().imul_imm_s(end64, (LANES * 4) as i64);
        let stop = self.b.ins().iadd(pcs, bytes);
        let v = self.b.ins().iconst(I32, i64::from(pc as i32));
        let s = self.b.ins().splat(I32X4, v);
        let head = self.b.create_block();
        let at = self.b.append_block_param(head, I64);
        let body = self.b.create_block();
        let after = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(pcs)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, at, stop);
        self.b.ins().brif(more, body, &[], after, &[]);
        self.b.switch_to_block(body);
        for j in 0..4 {
            self.b.ins().store(MemFlagsData::trusted(), s, at, 16 * j);
        }
        let next = self.b.ins().iadd_imm_s(at, (LANES * 4) as i64);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(after);
    }

    /// Sets `ctx.lane_pcs`, where a hand-back with `stop_block` `LANE_PCS` goes on from: `on`
    /// for the lanes of `lanes` (an `I8X16` of 0/1), `off` for the others.
    pub(super) fn set_lane_pcs(&mut self, lanes: Value, on: u32, off: u32) {
        let masks = self.masks_from_bools(lanes, 4);
        let on = self.b.ins().iconst(I32, i64::from(on as i32));
        let on = self.b.ins().splat(I32X4, on);
        let off = self.b.ins().iconst(I32, i64::from(off as i32));
        let off = self.b.ins().splat(I32X4, off);
        for (j, m) in masks.into_iter().enumerate() {
            let v = self.b.ins().bitselect(m, on, off);
            self.b.ins().store(
                MemFlagsData::trusted(),
                v,
                self.ctx,
                field!(lane_pcs) + (16 * j) as i32,
            );
        }
    }

    /// Sets the block index of the chunk's lanes.
    pub(super) fn set_chunk_pcs(&mut self, pc: u32) {
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
}
