//! Divergent branches under masks: a branch whose lanes disagree runs both ways in compiled
//! code when its arms are simple enough (`maskable_region`), instead of handing the chunk to the
//! interpreter.
//!
//! A region is a branch of block `from` whose two targets reach one join: each target is the
//! join itself or an arm, a single block that jumps on to the join (a triangle has one arm, a
//! diamond two). `masked_region` runs the true path (the branch edge's copies, the arm's ops,
//! the arm's edge copies) for the lanes of the condition, puts back the values the path wrote,
//! runs the false path for the other lanes, and merges every register the paths wrote and the
//! join reads with a select on the condition. Stores of inactive lanes go to the scratch slot
//! (`memory::scatter`); pure ops and window loads run for every lane (loads are checked, so an
//! inactive lane's address is harmless).
//!
//! Invariants: the registers the join reads that a path writes are varying and not resident (a
//! select of two values is varying; a resident register's row would be written for every
//! lane); a path writes no resident register. A hand-back inside a region restarts at the branch
//! (`Masked::restart`) with the values the registers had there (`Masked::snapshot`), so it must
//! come before the region's first store: an op that may hand back after a store is checked by a
//! pass over the paths' pure ops before the region runs (`Region::prechecked`), and runs
//! unchecked in the region itself.

use std::collections::HashSet;

use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::ir::liveness::RegSet;
use tessera_spirv::ir::{DescIdx, Edge, Ir, Op, Reg, Role, Space, Term};

use super::Gen;
use super::values::JVal;
use crate::classes::Class;
use crate::error::JitResult;

/// A divergent branch's masked lanes while one of its paths runs.
#[derive(Debug, Clone)]
pub(crate) struct Masked {
    /// The active lanes: an `I8X16` of 0 or 1 per lane.
    pub(crate) lanes: Value,
    /// Where a hand-back restarts: the branch, before any of the region's effects.
    pub(crate) restart: (u32, usize),
    /// The registers live at the branch with their values there (what a hand-back saves).
    pub(crate) snapshot: Vec<(Reg, JVal)>,
}

/// A divergent branch's region (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Region {
    /// The arm of the true and of the false target (`None`: that target is the join).
    pub(crate) arms: [Option<usize>; 2],
    pub(crate) join: usize,
    /// Every register a path writes (its edges' copies, its arm's ops), each once.
    pub(crate) written: Vec<Reg>,
    /// The ops (block, index) that may hand back after the region's first store, checked by a
    /// pass over the paths' pure ops before anything else runs (`Gen::maskable_region`).
    pub(crate) prechecked: Vec<(u32, usize)>,
    /// The ops that may hand back and read what a load of their path gave (directly or not):
    /// the check pass leaves them out (it runs no load).
    pub(crate) after_loads: Vec<(u32, usize)>,
}

/// Whether `op` can run under a mask: pure, a window load or a window store.
fn maskable_op(op: &Op) -> bool {
    op.is_pure() || window_store(op) || window_load(op)
}

fn window_store(op: &Op) -> bool {
    matches!(
        op,
        Op::Store {
            space: Space::Shared
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                },
            ..
        }
    )
}

fn window_load(op: &Op) -> bool {
    matches!(
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
    )
}

/// The region of block `from`'s branch as the IR shapes it, when it has one whose arms hold
/// only ops that can run under a mask (`sync` and `guarded`: per block, see `Gen`); what
/// the classes do not decide yet (`Gen::maskable_region`) is left out.
pub(crate) fn region_of(ir: &Ir, sync: &[bool], guarded: &[bool], from: usize) -> Option<Region> {
    let Term::Branch {
        if_true, if_false, ..
    } = &ir.blocks[from].term
    else {
        return None;
    };
    let jump_of = |b: usize| match &ir.blocks[b].term {
        Term::Jump(e) => Some(e.target as usize),
        _ => None,
    };
    let (tt, ft) = (if_true.target as usize, if_false.target as usize);
    let (arms, join) = if tt == ft {
        ([None, None], tt)
    } else if jump_of(tt) == Some(ft) {
        ([Some(tt), None], ft)
    } else if jump_of(ft) == Some(tt) {
        ([None, Some(ft)], tt)
    } else {
        match (jump_of(tt), jump_of(ft)) {
            (Some(a), Some(b)) if a == b => ([Some(tt), Some(ft)], a),
            _ => return None,
        }
    };
    if join == from {
        return None;
    }
    let mut written = Vec::new();
    let mut seen = HashSet::new();
    for (side, edge) in [if_true, if_false].into_iter().enumerate() {
        let mut note = |r: Reg| {
            if seen.insert(r) {
                written.push(r);
            }
        };
        edge.moves.iter().for_each(|&(d, _)| note(d));
        let Some(arm) = arms[side] else {
            continue;
        };
        if arm == from
            || arm == join
            || sync.get(arm).copied().unwrap_or(true)
            || guarded.get(arm).copied().unwrap_or(false)
            || !ir.blocks[arm].ops.iter().all(maskable_op)
        {
            return None;
        }
        for op in &ir.blocks[arm].ops {
            op.for_each_def(&mut note);
        }
        if let Term::Jump(out) = &ir.blocks[arm].term {
            out.moves.iter().for_each(|&(d, _)| note(d));
        }
    }
    Some(Region {
        arms,
        join,
        written,
        prechecked: Vec::new(),
        after_loads: Vec::new(),
    })
}

impl Gen<'_> {
    /// The region of block `from`'s branch, if it can run under masks (see the module docs).
    pub(super) fn maskable_region(&self, from: usize) -> Option<Region> {
        let ir = self.ir;
        let mut region = region_of(ir, &self.sync, &self.guarded, from)?;
        // In the order the paths run: an op that may hand back after a store is checked before
        // the region starts, by the check pass; so its operand may not depend on a load of
        // its path. The one op the maskable ones may hand back at is a conversion of an affine
        // value (its lanes' wrap check), unless the value is an invocation id.
        let mut seen_store = false;
        for arm in region.arms.into_iter().flatten() {
            let mut loaded = RegSet::new(ir.reg_types.len() as u32);
            for (k, op) in ir.blocks[arm].ops.iter().enumerate() {
                let may_hand_back = matches!(op, Op::Conv { src, .. }
                    if matches!(self.classes[*src as usize], Class::Affine(_))
                        && !self.ids[*src as usize]);
                let mut reads_loaded = false;
                op.clone().visit_regs(&mut |r, role| {
                    reads_loaded |= role == Role::Use && loaded.contains(*r);
                });
                if may_hand_back && reads_loaded {
                    if seen_store {
                        return None;
                    }
                    region.after_loads.push((arm as u32, k));
                } else if may_hand_back && seen_store {
                    region.prechecked.push((arm as u32, k));
                }
                if reads_loaded || window_load(op) {
                    op.for_each_def(|r| loaded.insert(r));
                }
                seen_store |= window_store(op);
            }
        }
        let join_reads = &self.live.live_in[region.join];
        let fits = region.written.iter().all(|&r| {
            !self.resident[r as usize]
                && (!join_reads.contains(r) || self.classes[r as usize] == Class::Varying)
        });
        fits.then_some(region)
    }

    /// Runs `region` of block `from`'s branch (edges `t` and `f`) for a chunk whose lanes
    /// disagree on the condition (`cond`: an `I8X16` of 0/1 per lane), then continues at the
    /// join with every lane. Ends the current block.
    pub(super) fn masked_region(
        &mut self,
        from: usize,
        region: Region,
        t: &Edge,
        f: &Edge,
        cond: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        let restart = (from as u32, ir.blocks[from].ops.len());
        let live: Vec<Reg> = self
            .live_at(from, ir.blocks[from].ops.len())
            .iter()
            .collect();
        let snapshot: Vec<(Reg, JVal)> = live.iter().map(|&r| (r, self.get(r))).collect();
        // What each path writes: put back before the other path, merged at the join.
        let written = region.written.clone();
        let before: Vec<JVal> = written.iter().map(|&r| self.get(r)).collect();
        let merged: Vec<Reg> = written
            .iter()
            .copied()
            .filter(|&r| self.live.live_in[region.join].contains(r))
            .collect();
        let ones = super::vs_one(&mut self.b);
        let not_cond = self.b.ins().bxor(cond, ones);
        if !region.prechecked.is_empty() {
            // The check pass: the paths' pure ops (their wrap checks hand back to the branch
            // before any effect), then the registers put back. Cranelift merges these ops with
            // the same ones of the run below.
            for (side, (edge, lanes)) in [(t, cond), (f, not_cond)].into_iter().enumerate() {
                self.mask = Some(Masked {
                    lanes,
                    restart,
                    snapshot: snapshot.clone(),
                });
                let pass = self.pure_path(edge, region.arms[side], &region.after_loads);
                self.mask = None;
                pass?;
                for (&r, v) in written.iter().zip(&before) {
                    self.set(r, v.clone())?;
                }
            }
            self.prechecked = region.prechecked.iter().copied().collect();
        }
        let mut results: Vec<Vec<JVal>> = Vec::with_capacity(2);
        for (side, (edge, lanes)) in [(t, cond), (f, not_cond)].into_iter().enumerate() {
            if side == 1 {
                for (&r, v) in written.iter().zip(&before) {
                    self.set(r, v.clone())?;
                }
            }
            self.mask = Some(Masked {
                lanes,
                restart,
                snapshot: snapshot.clone(),
            });
            let path = self.masked_path(edge, region.arms[side]);
            self.mask = None;
            if side == 1 {
                self.prechecked.clear();
            }
            path?;
            results.push(merged.iter().map(|&r| self.get(r)).collect());
        }
        for (k, &r) in merged.iter().enumerate() {
            let bytes = self.bytes(r);
            let masks = self.masks_from_bools(cond, bytes);
            let on_true = self.vectors(&results[0][k], bytes);
            let on_false = self.vectors(&results[1][k], bytes);
            let v = masks
                .iter()
                .zip(on_true.iter().zip(&on_false))
                .map(|(&m, (&x, &y))| self.b.ins().bitselect(m, x, y))
                .collect();
            self.set(r, JVal::Varying(v))?;
        }
        let last = region.arms[1].or(region.arms[0]).unwrap_or(from);
        self.at = (last as u32, ir.blocks[last].ops.len());
        self.goto(region.join as u32, Some(last))
    }

    /// One path of a region under `self.mask`: the branch edge's copies, then the arm's ops
    /// and its edge's copies.
    fn masked_path(&mut self, edge: &Edge, arm: Option<usize>) -> JitResult<()> {
        self.copies(edge)?;
        let Some(arm) = arm else {
            return Ok(());
        };
        let ir = self.ir;
        for (k, op) in ir.blocks[arm].ops.iter().enumerate() {
            self.at = (arm as u32, k);
            self.op(op)?;
        }
        self.at = (arm as u32, ir.blocks[arm].ops.len());
        if let Term::Jump(out) = &ir.blocks[arm].term {
            self.copies(out)?;
        }
        Ok(())
    }

    /// The check pass over one path (see `masked_region`): the edge's copies and the arm's
    /// pure ops but those `after_loads` (what they read comes from the loads this pass leaves
    /// out; nothing the pass checks reads what they give).
    fn pure_path(
        &mut self,
        edge: &Edge,
        arm: Option<usize>,
        after_loads: &[(u32, usize)],
    ) -> JitResult<()> {
        self.copies(edge)?;
        let Some(arm) = arm else {
            return Ok(());
        };
        let ir = self.ir;
        for (k, op) in ir.blocks[arm].ops.iter().enumerate() {
            if op.is_pure() && !after_loads.contains(&(arm as u32, k)) {
                self.at = (arm as u32, k);
                self.op(op)?;
            }
        }
        Ok(())
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
