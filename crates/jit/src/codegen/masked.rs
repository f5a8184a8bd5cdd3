//! Divergent branches under masks: a branch whose lanes disagree runs both ways in compiled
//! code when what lies between it and the point where its paths meet is simple enough
//! (`maskable_region`), instead of handing the chunk to the interpreter.
//!
//! A region is a branch of block `from` and the blocks its paths run before they meet at the
//! join (the branch's immediate post-dominator; when they meet only where their lanes finish,
//! as after an early `return`, each path runs to its `Exit` and the chunk is done after the
//! region: [`EXIT_JOIN`], for a rest of the program of at most [`EXIT_REGION_OPS`] ops): an
//! acyclic graph of blocks of pure ops, loads, stores and atomic updates of shared memory, buffers
//! and device addresses, tensor reads and writes, cooperative-vector training ops (which add only the
//! mask's lanes), whose branches have regions of their own inside it
//! ([`region_of`]), and loops, nested or not, that every lane leaves at the same iteration
//! (`exit_loops`), run as real loops under the region's mask. A block that several paths take (a `switch` case falling into the next,
//! once lowering has made the switch a chain of branches) runs on each of them, under each
//! path's lanes. `masked_region` runs the true side (the branch edge's copies, then block by
//! block to the join) for the lanes of the condition, puts back the values the side wrote
//! (stand-ins for those dead at the branch, `Gen::values_to_restore`, so that they are not
//! carried around the chunk loop), runs the false side for the other lanes, and merges every
//! register the sides wrote and the join reads with a select on the condition. Inside a side, a branch on a uniform condition is
//! a real branch, and one on a varying condition splits again under the narrower masks. Stores
//! of inactive lanes go to the scratch slot (`memory::scatter`, `physical`); pure ops and loads
//! run for every lane (each lane's load is checked, so an inactive lane's address is harmless).
//!
//! A resident register (a local array kept in its register-file rows) is written in a region
//! only by stores into its variable: each blends its side's active lanes into the row
//! (`Gen::set`, `Gen::resident_var`), so the row holds both sides' writes where the paths meet
//! and is neither put back between the sides nor merged; such a store counts as a store below.
//!
//! Invariants: the registers a join reads that its region writes are varying when its
//! condition may diverge (a select of two values is varying), and resident ones are written
//! under the mask of the side that writes them, by `StoreVar` only. A hand-back
//! inside a region restarts at its first branch (`Masked::restart`) with the values the
//! registers had there (`Masked::snapshot`), so it must come before the region's first store:
//! an op that may hand back after a store is checked by a pass over the region's pure ops
//! before the region runs (`Region::prechecked`), and runs unchecked in the region itself.

use std::collections::HashSet;

use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::alu::IBin;
use tessera_spirv::ir::liveness::RegSet;
use tessera_spirv::ir::{DescIdx, Edge, Ir, Op, Reg, Role, Space, Term};

use super::Gen;
use super::values::JVal;
use crate::classes::Class;
use crate::error::{JitError, JitResult};

/// A divergent branch's masked lanes while one of its sides runs.
#[derive(Debug, Clone)]
pub(crate) struct Masked {
    /// The active lanes: an `I8X16` of 0 or 1 per lane.
    pub(crate) lanes: Value,
    /// Where the interpreter takes over on a hand-back.
    pub(crate) restart: Restart,
}

/// Where a hand-back under a mask restarts, and with what.
#[derive(Debug, Clone)]
pub(crate) enum Restart {
    /// Every lane at a region's first branch, before any of its effects: (block, op) and the
    /// registers live there with their values there.
    At((u32, usize), Vec<(Reg, JVal)>),
    /// A masked loop's iteration start (`loops`): the lanes of `active` (`I8X16` 0/1) at the
    /// loop's header, the others at its exit block, and every register live at either with
    /// its value for each lane.
    Lanes {
        active: Value,
        header: u32,
        exit: u32,
        values: Vec<(Reg, JVal)>,
    },
    /// Every lane at the current op (`Gen::at`) with every register live there, as with no
    /// mask: a tensor access whose lanes name several tensors, run once for each under the
    /// mask of the lanes naming it (`dynamic`). The interpreter then runs the whole op again;
    /// what a pass before wrote it writes again, with the same values.
    Op,
    /// Every lane where its block index says (`ctx.pcs`), with the registers in their rows: a
    /// stepped block, before any of its effects (`stepping`).
    Pcs,
}

/// A branch's region (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Region {
    /// Where the sides meet: the branch's immediate post-dominator.
    pub(crate) join: usize,
    /// The region's blocks in the order compiled code runs them (the true side first, and so
    /// inside each nested branch); a block that several paths take, once for each.
    pub(crate) blocks: Vec<usize>,
    /// Every register the region writes (the branch edges' copies, its blocks' ops and edge
    /// copies), each once.
    pub(crate) written: Vec<Reg>,
    /// The ops (block, index) that may hand back after the region's first store, checked by a
    /// pass over the region's pure ops before anything else runs (`Gen::maskable_region`).
    pub(crate) prechecked: Vec<(u32, usize)>,
    /// The ops that may hand back and read what a load of the region gave (directly or not):
    /// the check pass leaves them out (it runs no load).
    pub(crate) after_loads: Vec<(u32, usize)>,
    /// The headers of the loops the region runs (`exit_loops`), inner ones first.
    pub(crate) loops: Vec<usize>,
}

/// Whether `op` can run under a mask: pure, a window load or a window store, a store into a
/// local variable (whose registers count as written by it, `Op::for_each_def`, so the join
/// merges them like any other register the region writes), or a cooperative-vector training
/// op (`ctx::coop` adds only the mask's lanes).
fn maskable_op(op: &Op) -> bool {
    op.is_pure()
        || window_store(op)
        || window_load(op)
        || matches!(
            op,
            Op::StoreVar { .. } | Op::CoopOuterProduct { .. } | Op::CoopReduceSum { .. }
        )
}

/// A store compiled code masks lane by lane: shared memory, a buffer of a known descriptor, a
/// device address (inactive lanes store into the scratch slot), an atomic update of one of
/// those (`atomic_updates`: only active lanes update), a tensor write the edge path takes
/// (`edge`).
pub(crate) fn window_store(op: &Op) -> bool {
    matches!(
        op,
        Op::Store {
            space: Space::Shared
                | Space::Physical
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                },
            ..
        } | Op::AtomicUpdate {
            space: Space::Shared
                | Space::Physical
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                },
            ..
        }
    ) || super::edge::maskable_tensor_write(op)
}

/// A maskable op that writes memory: a [`window_store`] or a cooperative-vector training op.
pub(crate) fn writes_memory(op: &Op) -> bool {
    window_store(op) || matches!(op, Op::CoopOuterProduct { .. } | Op::CoopReduceSum { .. })
}

/// A load every lane may run, active or not: each lane's access is checked against its window
/// or, for a device address, against the live allocations (an address outside them reads 0).
fn window_load(op: &Op) -> bool {
    matches!(
        op,
        Op::Load {
            space: Space::Shared
                | Space::Physical
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                }
                | Space::Push,
            ..
        }
    )
}

/// Whether `op` reads a register of `set`.
pub(super) fn reads_any(op: &Op, set: &RegSet) -> bool {
    let mut reads = false;
    op.for_each_reg(&mut |r, role| {
        reads |= role == Role::Use && set.contains(r);
    });
    reads
}

/// Whether the check pass of a region (`Pass::check_only`) runs `op`: a pure op, or a load of
/// push constants (which nothing changes during a dispatch, so the pass sees what the run will).
pub(super) fn runs_in_check_pass(op: &Op) -> bool {
    op.is_pure()
        || matches!(
            op,
            Op::Load {
                space: Space::Push,
                ..
            }
        )
}

/// Whether block `b` can run under a mask: no sync block, no guarded latch, only maskable ops.
pub(crate) fn maskable_block(ir: &Ir, sync: &[bool], guarded: &[bool], b: usize) -> bool {
    !sync.get(b).copied().unwrap_or(true)
        && !guarded.get(b).copied().unwrap_or(false)
        && ir.blocks[b].ops.iter().all(maskable_op)
}

/// Whether block `b` can run in a masked loop: [`maskable_block`] without tensor writes, whose
/// views a region checks before it starts (`Gen::masked_region`) and a loop does not.
pub(crate) fn loop_block(ir: &Ir, sync: &[bool], guarded: &[bool], b: usize) -> bool {
    maskable_block(ir, sync, guarded, b)
        && !ir.blocks[b]
            .ops
            .iter()
            .any(|op| matches!(op, Op::TensorWrite { .. }))
}

/// The blocks from `start` up to `stop` (exclusive) in the order a side runs them, appended to
/// `out`: `None` when they are not an acyclic graph of maskable blocks that all lead to `stop`,
/// or when they reach a block in `seen` (a block an earlier walk took).
pub(crate) fn side_blocks(
    ir: &Ir,
    ok: &dyn Fn(usize) -> bool,
    post: &[Option<u32>],
    start: usize,
    stop: usize,
    seen: &mut [bool],
    out: &mut Vec<usize>,
) -> Option<()> {
    // No loop headers: a masked loop's paths take no loop (`loops` runs them block by block).
    walk_side(
        ir,
        ok,
        post,
        &[],
        start,
        stop,
        seen,
        out,
        &mut None,
        &mut Vec::new(),
    )
}

/// The join of a region whose paths meet only where their lanes finish (an early `return`):
/// every side runs to an `Exit`, and the chunk is done after the region.
pub(crate) const EXIT_JOIN: usize = usize::MAX;

/// The most ops a region joined at [`EXIT_JOIN`] may hold: such a region is the rest of the
/// program, which compiled code then holds twice (for chunks whose lanes agree, and under
/// masks), so a long one stays the interpreter's. At 256 the corpus's median compile time in
/// `jit` mode went from 1.26 to 2.37 ms; at 64 it stays at 1.26 and the guarded elementwise
/// kernels (16 to 34 ops) are still taken.
const EXIT_REGION_OPS: usize = 64;

/// [`side_blocks`], where a block that several paths take (a `switch` case that falls into the
/// next, in the chain of branches lowering makes of a switch) runs on each of them and is
/// listed at each, up to `revisits` times in all: a walk round a cycle ends there, with `None`.
/// A loop of the shape `exit_loops` takes is listed once (header first, then its body, where a
/// loop inside it is taken the same way) and its header noted in `loops`; the walk goes on
/// where it leaves.
#[allow(clippy::too_many_arguments)]
fn walk_side(
    ir: &Ir,
    ok: &dyn Fn(usize) -> bool,
    post: &[Option<u32>],
    headers: &[bool],
    start: usize,
    stop: usize,
    seen: &mut [bool],
    out: &mut Vec<usize>,
    revisits: &mut Option<usize>,
    loops: &mut Vec<usize>,
) -> Option<()> {
    let mut b = start;
    while b != stop {
        if !ok(b) {
            return None;
        }
        if let Some(lp) = super::exit_loops::exit_loop_at(ir, ok, headers, b) {
            if seen[b] {
                return None;
            }
            seen[b] = true;
            out.push(b);
            let Term::Branch {
                if_true, if_false, ..
            } = &ir.blocks[b].term
            else {
                return None;
            };
            let stay = if lp.stays_on_true { if_true } else { if_false };
            // The body, up to the back edge (no revisits: a block in it runs once an iteration).
            walk_side(
                ir,
                ok,
                post,
                headers,
                stay.target as usize,
                b,
                seen,
                out,
                &mut None,
                loops,
            )?;
            loops.push(b);
            b = lp.leaves_to;
            continue;
        }
        if seen[b] {
            let left = revisits.as_mut()?;
            *left = left.checked_sub(1)?;
        }
        seen[b] = true;
        out.push(b);
        match &ir.blocks[b].term {
            Term::Jump(e) => b = e.target as usize,
            Term::Branch {
                if_true, if_false, ..
            } => {
                // Inside a region joined where lanes finish, so may a branch's paths be.
                let join = match post[b] {
                    Some(j) => j as usize,
                    None if stop == EXIT_JOIN => EXIT_JOIN,
                    None => return None,
                };
                for e in [if_true, if_false] {
                    walk_side(
                        ir,
                        ok,
                        post,
                        headers,
                        e.target as usize,
                        join,
                        seen,
                        out,
                        revisits,
                        loops,
                    )?;
                }
                if join == EXIT_JOIN {
                    return Some(());
                }
                b = join;
            }
            Term::Exit if stop == EXIT_JOIN => return Some(()),
            _ => return None,
        }
    }
    Some(())
}

/// The region of block `from`'s branch as the IR shapes it, when it has one whose blocks hold
/// only ops that can run under a mask (`sync` and `guarded`: per block, see `Gen`; `post`: the
/// post-dominators; `headers`: the loop headers, `back_edge_targets`); what the classes decide
/// (`Gen::maskable_region`) is left out.
pub(crate) fn region_of(
    ir: &Ir,
    sync: &[bool],
    guarded: &[bool],
    post: &[Option<u32>],
    headers: &[bool],
    from: usize,
) -> Option<Region> {
    let Term::Branch {
        if_true, if_false, ..
    } = &ir.blocks[from].term
    else {
        return None;
    };
    // Paths that meet only where their lanes finish (an early `return`) join at the exit.
    let join = post[from].map_or(EXIT_JOIN, |j| j as usize);
    if join == from {
        return None;
    }
    let ok = |b: usize| b != from && maskable_block(ir, sync, guarded, b);
    let mut seen = vec![false; ir.blocks.len()];
    let mut blocks = Vec::new();
    // Shared blocks run once per path: at most as many again as the IR has blocks.
    let mut revisits = Some(ir.blocks.len());
    let mut loops = Vec::new();
    for e in [if_true, if_false] {
        walk_side(
            ir,
            &ok,
            post,
            headers,
            e.target as usize,
            join,
            &mut seen,
            &mut blocks,
            &mut revisits,
            &mut loops,
        )?;
    }
    if join == EXIT_JOIN
        && blocks
            .iter()
            .map(|&b| ir.blocks[b].ops.len())
            .sum::<usize>()
            > EXIT_REGION_OPS
    {
        return None;
    }
    let mut written = Vec::new();
    let mut noted = HashSet::new();
    let mut note = |r: Reg| {
        if noted.insert(r) {
            written.push(r);
        }
    };
    for e in ir.blocks[from].term.edges() {
        e.moves.iter().for_each(|&(d, _)| note(d));
    }
    for &b in &blocks {
        for op in &ir.blocks[b].ops {
            op.for_each_def(&mut note);
        }
        for e in ir.blocks[b].term.edges() {
            e.moves.iter().for_each(|&(d, _)| note(d));
        }
    }
    Some(Region {
        join,
        blocks,
        written,
        prechecked: Vec::new(),
        after_loads: Vec::new(),
        loops,
    })
}

impl Gen<'_> {
    /// Whether `op` is one of the maskable ops that may hand back for their lanes' wrap check:
    /// a conversion of an affine value, unless the value is an invocation id, and a division of
    /// an affine value into an affine quotient (`Gen::ibin_affine`).
    pub(super) fn wrap_check_may_hand_back(&self, op: &Op) -> bool {
        match op {
            Op::Conv { src, .. } => {
                matches!(self.classes[*src as usize], Class::Affine(_)) && !self.ids[*src as usize]
            }
            Op::IBin {
                op: IBin::UDiv | IBin::ShrL,
                lhs,
                dst,
                ..
            } => {
                matches!(self.classes[*lhs as usize], Class::Affine(_))
                    && matches!(self.classes[*dst as usize], Class::Affine(_))
            }
            _ => false,
        }
    }

    /// Whether every write of a resident register in `blocks` is a store into its variable
    /// that compiled code runs and blends under the mask (`Gen::resident_var` at a uniform
    /// index, `Gen::store_var_varying` for up to 64 elements): no other op, edge copy or
    /// interpreter call, which would write every lane's element, writes one.
    pub(super) fn resident_writes_masked(&self, blocks: &[usize]) -> bool {
        let compiled_store = |op: &Op| match op {
            Op::StoreVar { var, index, .. } => {
                var.len <= 64
                    || matches!(
                        self.classes[*index as usize],
                        Class::Const(_) | Class::Uniform
                    )
            }
            _ => false,
        };
        let writes_resident = |op: &Op| {
            let mut hit = false;
            op.for_each_def(|r| hit |= self.resident[r as usize]);
            hit
        };
        blocks.iter().all(|&b| {
            let block = &self.ir.blocks[b];
            !block
                .ops
                .iter()
                .any(|op| writes_resident(op) && !compiled_store(op))
                && !block
                    .term
                    .edges()
                    .iter()
                    .any(|e| e.moves.iter().any(|&(d, _)| self.resident[d as usize]))
        })
    }

    /// The region of block `from`'s branch, if it can run under masks (see the module docs).
    pub(super) fn maskable_region(&self, from: usize) -> Option<Region> {
        let ir = self.ir;
        let mut region = self.regions[from].clone()?;
        // A resident register (its row is its home) is written only by stores into its
        // variable that compiled code runs (`Gen::resident_var` at a uniform index,
        // `Gen::store_var_varying` for up to 64 elements), which blend the active lanes into the
        // row (no merge at the join, no check pass): not by other ops, edge copies or the
        // interpreter, which would write every lane's element.
        if region.written.iter().any(|&r| self.resident[r as usize])
            && !self.resident_writes_masked(&region.blocks)
        {
            return None;
        }
        // Every branch that may diverge merges varying registers only.
        for b in std::iter::once(from).chain(region.blocks.iter().copied()) {
            let Some(cond) = ir.blocks[b].term.condition() else {
                continue;
            };
            if self.classes[cond as usize] != Class::Varying {
                continue;
            }
            let inner = self.regions[b].as_ref()?;
            let fits = inner.join == EXIT_JOIN || {
                let join_reads = &self.live.live_in[inner.join];
                inner
                    .written
                    .iter()
                    .all(|&r| !join_reads.contains(r) || self.classes[r as usize] == Class::Varying)
            };
            if !fits {
                return None;
            }
        }
        // In the order the region runs: an op that may hand back after a store is checked
        // before the region starts, by the check pass; so its operand may not depend on a
        // load of the region. The one op the maskable ones may hand back at is a conversion of
        // an affine value (its lanes' wrap check), unless the value is an invocation id.
        let mut seen_store = false;
        let mut loaded = RegSet::new(ir.reg_types.len() as u32);
        // A loop's later iterations come after its earlier stores and loads: with loops, a
        // second pass sees every op after all of them.
        let passes = if region.loops.is_empty() { 1 } else { 2 };
        for _ in 0..passes {
            for &b in &region.blocks {
                for (k, op) in ir.blocks[b].ops.iter().enumerate() {
                    let may_hand_back = self.wrap_check_may_hand_back(op);
                    let reads_loaded = reads_any(op, &loaded);
                    // A tensor read that may hand back restarts the region: no store may come
                    // before it.
                    if seen_store && self.tensor_read_may_hand_back(op) {
                        return None;
                    }
                    let at = (b as u32, k);
                    if may_hand_back && reads_loaded {
                        if seen_store {
                            return None;
                        }
                        if !region.after_loads.contains(&at) {
                            region.after_loads.push(at);
                        }
                    } else if may_hand_back && seen_store && !region.prechecked.contains(&at) {
                        region.prechecked.push(at);
                    }
                    if reads_loaded || (window_load(op) && !runs_in_check_pass(op)) {
                        op.for_each_def(|r| loaded.insert(r));
                    }
                    // A store into a resident variable changes its row: the interpreter would
                    // not see the branch's state on a restart.
                    seen_store |= writes_memory(op)
                        || matches!(op, Op::StoreVar { var, .. } if self.resident[var.base as usize]);
                }
                for e in ir.blocks[b].term.edges() {
                    for &(d, s) in &e.moves {
                        if loaded.contains(s) {
                            loaded.insert(d);
                        }
                    }
                }
            }
        }
        // Every lane leaves each loop at the same iteration, and the check pass (which runs
        // no load) at the same one as the run.
        let same_trips = region.loops.iter().all(|&h| {
            ir.blocks[h].term.condition().is_some_and(|c| {
                matches!(self.classes[c as usize], Class::Uniform | Class::Const(_))
                    && (region.prechecked.is_empty() || !loaded.contains(c))
            })
        });
        if !same_trips {
            return None;
        }
        Some(region)
    }

    /// Runs `region` of block `from`'s branch for a chunk whose lanes disagree on the
    /// condition (`cond`: an `I8X16` of 0/1 per lane), then continues at the join with every
    /// lane. Ends the current block.
    pub(super) fn masked_region(
        &mut self,
        from: usize,
        region: Region,
        cond: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        let restart = (from as u32, ir.blocks[from].ops.len());
        // The region's tensor accesses need views compiled code may access (`edge`): checked
        // here, before any of its effects, with a hand-back to the branch.
        self.at = restart;
        self.check_tensor_views(&region.blocks);
        let live: Vec<Reg> = self
            .live_at(from, ir.blocks[from].ops.len())
            .iter()
            .collect();
        // A resident register's row is still the branch's on a restart: every store into it
        // comes after the region's last hand-back.
        let kept: Vec<Reg> = self.restorable(&live);
        let snapshot: Vec<(Reg, JVal)> = kept.iter().map(|&r| (r, self.get(r))).collect();
        let base = Masked {
            lanes: cond,
            restart: Restart::At(restart, snapshot),
        };
        if !region.prechecked.is_empty() {
            // The check pass: the region's pure ops (their checks hand back to the branch
            // before any effect), then the registers put back. Cranelift merges these ops with
            // the same ones of the run below.
            let live_here = self.live_at(from, ir.blocks[from].ops.len());
            let written = self.restorable(&region.written);
            let before = self.values_to_restore(&written, &live_here);
            let pass = Pass {
                base: base.clone(),
                check_only: Some(&region.after_loads),
            };
            self.split(&pass, from, None, cond)?;
            for (&r, v) in written.iter().zip(&before) {
                self.set(r, v.clone())?;
            }
            self.prechecked = region.prechecked.iter().copied().collect();
        }
        let pass = Pass {
            base,
            check_only: None,
        };
        let run = self.split(&pass, from, None, cond);
        self.mask = None;
        self.prechecked.clear();
        run?;
        let last = region.blocks.last().copied().unwrap_or(from);
        self.at = (last as u32, ir.blocks[last].ops.len());
        if region.join == EXIT_JOIN {
            // Every lane finished on its path.
            self.exit_chunk();
            return Ok(());
        }
        self.goto(region.join as u32, Some(last))
    }

    /// The registers of `written` a side's values are put back into and merged: all but the
    /// resident ones, whose rows take each side's writes under its mask.
    pub(super) fn restorable(&self, written: &[Reg]) -> Vec<Reg> {
        written
            .iter()
            .copied()
            .filter(|&r| !self.resident[r as usize])
            .collect()
    }

    /// Both sides of block `from`'s branch on `cond`, inside the lanes of `outer` (all of
    /// them when `None`), then the registers its join reads merged.
    fn split(
        &mut self,
        pass: &Pass<'_>,
        from: usize,
        outer: Option<Value>,
        cond: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        let Term::Branch {
            if_true, if_false, ..
        } = &ir.blocks[from].term
        else {
            return Err(JitError::Unexpected(
                "a masked split at a block with no branch",
            ));
        };
        let (join, written) = match &self.regions[from] {
            Some(r) => (r.join, self.restorable(&r.written)),
            None => return Err(JitError::Unexpected("a masked split with no region")),
        };
        let live_here = self.live_at(from, ir.blocks[from].ops.len());
        let before = self.values_to_restore(&written, &live_here);
        // Nothing is read where the lanes finish.
        let merged: Vec<Reg> = written
            .iter()
            .copied()
            .filter(|&r| join != EXIT_JOIN && self.live.live_in[join].contains(r))
            .collect();
        let ones = super::vs_one(&mut self.b);
        let not_cond = self.b.ins().bxor(cond, ones);
        let sides = match outer {
            None => [cond, not_cond],
            Some(o) => [self.b.ins().band(o, cond), self.b.ins().band(o, not_cond)],
        };
        let mut results: Vec<Vec<JVal>> = Vec::with_capacity(2);
        for (k, (edge, lanes)) in [if_true, if_false].into_iter().zip(sides).enumerate() {
            if k == 1 {
                for (&r, v) in written.iter().zip(&before) {
                    self.set(r, v.clone())?;
                }
            }
            self.side(pass, edge, join, lanes)?;
            results.push(merged.iter().map(|&r| self.get(r)).collect());
        }
        for (k, &r) in merged.iter().enumerate() {
            let bytes = self.bytes(r);
            let v = self.blend(cond, &results[0][k], &results[1][k], bytes);
            self.set(r, v)?;
        }
        Ok(())
    }

    /// One side: edge `e`'s copies, then block by block from its target up to `stop` under
    /// `lanes` (in the current Cranelift block, which continues where the side meets `stop`).
    pub(super) fn side(
        &mut self,
        pass: &Pass<'_>,
        e: &Edge,
        stop: usize,
        lanes: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        self.copies(e)?;
        let mut b = e.target as usize;
        while b != stop {
            if let Some(lp) = super::exit_loops::exit_loop_at(ir, &|_| true, &self.loop_headers, b)
            {
                b = self.exit_loop(pass, b, lp, lanes)?;
                continue;
            }
            self.mask = Some(Masked {
                lanes,
                ..pass.base.clone()
            });
            for (k, op) in ir.blocks[b].ops.iter().enumerate() {
                if let Some(after_loads) = pass.check_only
                    && (!runs_in_check_pass(op) || after_loads.contains(&(b as u32, k)))
                {
                    continue;
                }
                self.at = (b as u32, k);
                self.op(op)?;
            }
            self.at = (b as u32, ir.blocks[b].ops.len());
            match &ir.blocks[b].term {
                Term::Jump(out) => {
                    self.copies(out)?;
                    b = out.target as usize;
                }
                Term::Branch {
                    cond,
                    if_true,
                    if_false,
                } => {
                    let join = match &self.regions[b] {
                        Some(r) => r.join,
                        None => return Err(JitError::Unexpected("a masked branch with no join")),
                    };
                    let value = self.get(*cond);
                    let side = |g: &mut Self, e: &Edge| g.side(pass, e, join, lanes);
                    if let Some(varying) = self.uniform_branch(&value, if_true, if_false, side)? {
                        self.split(pass, b, Some(lanes), varying)?;
                    }
                    if join == EXIT_JOIN {
                        break;
                    }
                    b = join;
                }
                // A path of a region joined where lanes finish ends here.
                Term::Exit if stop == EXIT_JOIN => break,
                _ => return Err(JitError::Unexpected("a masked block that does not jump")),
            }
        }
        Ok(())
    }

    /// A branch on `cond` when every lane takes the same edge: `side` of the edge a constant
    /// picks, or both sides under a scalar branch that meets again after them. Returns the
    /// condition's first vector when it varies from lane to lane (the caller splits the lanes).
    pub(super) fn uniform_branch(
        &mut self,
        cond: &JVal,
        if_true: &Edge,
        if_false: &Edge,
        mut side: impl FnMut(&mut Self, &Edge) -> JitResult<()>,
    ) -> JitResult<Option<Value>> {
        match cond {
            JVal::Const(v) => side(self, if *v != 0 { if_true } else { if_false })?,
            JVal::Uniform(x) => {
                let (t, f, cont) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(*x, t, &[], f, &[]);
                for (blk, e) in [(t, if_true), (f, if_false)] {
                    self.enter_sealed(blk);
                    side(self, e)?;
                    self.b.ins().jump(cont, &[]);
                }
                self.enter_sealed(cont);
            }
            JVal::Varying(vs) => return Ok(Some(vs[0])),
            JVal::Affine(..) => return Err(JitError::Unexpected("affine branch condition")),
        }
        Ok(None)
    }

    /// Edge `e`'s parallel copies.
    pub(super) fn copies(&mut self, e: &Edge) -> JitResult<()> {
        let vals: Vec<JVal> = e.moves.iter().map(|&(_, s)| self.get(s)).collect();
        for (&(d, _), v) in e.moves.iter().zip(vals) {
            self.set(d, v)?;
        }
        Ok(())
    }
}

/// One emission of a region: the real run, or the check pass (`check_only`: the ops it leaves
/// out beside the effects).
pub(super) struct Pass<'r> {
    pub(super) base: Masked,
    pub(super) check_only: Option<&'r [(u32, usize)]>,
}
