//! Loops whose lanes leave at different iterations, under masks: a divergent branch inside a
//! loop with no region of its own (`masked`: one of its sides leaves the loop or ends the
//! iteration) turns the rest of the loop into a masked loop (`masked_loop`) instead of handing
//! the chunk to the interpreter.
//!
//! A loop compiled code can mask ([`LoopShape`]) is a natural loop with one back edge and no
//! loop inside it, whose blocks hold only maskable ops, and whose every exit leads, through an
//! acyclic graph of maskable blocks, to the block that post-dominates its header (the exit
//! block). Within an iteration, the sides of a branch meet where its paths first meet before
//! the back edge or an exit, or only at the iteration's end ([`LoopShape::splits`]).
//!
//! A masked loop keeps the lanes still in the loop (`active`) and, for every register its exit
//! block reads that the loop writes, the value each lane left with (`saved`). It finishes the
//! iteration it started in from the divergent branch, then runs whole iterations from the
//! header under `active` while a lane is left: a branch on a varying condition splits the
//! lanes, one on a uniform condition is a real branch; lanes that take an exit run the exit's
//! blocks to the exit block under their mask, leave their values in `saved` and leave
//! `active`; lanes that take the back edge go on to the next iteration with the values their
//! side gave (a select at the iteration's end). When no lane is left, the registers take their
//! `saved` values and the chunk goes on at the exit block.
//!
//! A local array kept in its register-file rows (resident) may be written in the loop by
//! stores that blend the lanes running them into its row (`masked::resident_writes_masked`):
//! the row holds each lane's writes, so it is neither saved, merged, put back nor selected.
//!
//! Invariants: the registers the exit block reads that the loop writes, and those a split
//! merges, are varying or resident (the resident ones taken from their rows). An op that may hand back is checked at the start of
//! its iteration by a pass over the iteration's pure ops (so its operand may not come from a
//! load of the iteration); a hand-back from there restarts the chunk with its active lanes at
//! the header and the others at the exit block (`masked::Restart::Lanes`), and from the first,
//! partial iteration at the divergent branch (`masked::Restart::At`).

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::types::I8X16;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;
use tessera_spirv::ir::liveness::RegSet;
use tessera_spirv::ir::loops::{natural_loop, predecessors};
use tessera_spirv::ir::postdom::{EXIT, post_dominators_of};
use tessera_spirv::ir::{Edge, Ir, Op, Reg, Term};

use super::Gen;
use super::masked::{Masked, Pass, Restart, reads_any};
use super::values::{JVal, vec_ty};
use crate::classes::Class;
use crate::error::{JitError, JitResult};

/// A loop compiled code can run under masks (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct LoopShape {
    pub(crate) header: usize,
    /// The block every path from the header leaves through (its immediate post-dominator).
    pub(crate) exit: usize,
    /// Per block: whether it is in the loop.
    body: Vec<bool>,
    /// The loop's blocks in the order an iteration runs them (true sides first).
    pub(crate) blocks: Vec<usize>,
    /// The blocks of the exits' paths to the exit block, in order.
    exit_blocks: Vec<usize>,
    /// Per branch of the loop: how its sides meet.
    pub(crate) splits: HashMap<usize, Split>,
    /// Every register the loop and its exits' paths write.
    pub(crate) written: Vec<Reg>,
    /// Per block an exit leads to: the registers its path to the exit block writes.
    exit_paths: HashMap<usize, Vec<Reg>>,
}

/// How the sides of a branch of a masked loop meet.
#[derive(Debug, Clone)]
pub(crate) struct Split {
    /// Where, within the iteration (`None`: at its end, the back edge).
    pub(crate) join: Option<usize>,
    /// The registers the sides write up to there (the back edge's copies included).
    pub(crate) written: Vec<Reg>,
    /// Whether each side (true, false) can get there without leaving the loop: a side that
    /// cannot has its lanes leave, and what it leaves in registers counts for none.
    pub(crate) reaches: [bool; 2],
}

impl Split {
    /// Whether lanes of both sides may arrive where the sides meet (their values merge).
    pub(crate) fn merges(&self) -> bool {
        self.reaches[0] && self.reaches[1]
    }
}

/// What `Gen::maskable_loop` adds to a shape: the ops checked at the start of an iteration.
#[derive(Debug, Clone)]
pub(crate) struct LoopPlan {
    pub(crate) shape: LoopShape,
    pub(crate) prechecked: Vec<(u32, usize)>,
}

/// Per block, the index into the returned shapes of the innermost loop compiled code can mask
/// that holds it (`ok`: whether a block may run under a mask; `post`: post-dominators).
pub(crate) fn loop_shapes(
    ir: &Ir,
    ok: &dyn Fn(usize) -> bool,
    post: &[Option<u32>],
) -> (Vec<Option<usize>>, Vec<LoopShape>) {
    let n = ir.blocks.len();
    let preds = predecessors(&ir.blocks);
    let mut back: HashMap<usize, Vec<usize>> = HashMap::new();
    for (a, blk) in ir.blocks.iter().enumerate() {
        for e in blk.term.edges() {
            let b = e.target as usize;
            // Blocks are in structured order: an edge to a block no later is a back edge.
            if b <= a {
                back.entry(b).or_default().push(a);
            }
        }
    }
    let mut bodies: Vec<(usize, usize, Vec<bool>)> = Vec::new();
    for (&header, latches) in &back {
        let [latch] = latches[..] else {
            continue;
        };
        bodies.push((header, latch, natural_loop(&preds, header, latch)));
    }
    let mut shapes = Vec::new();
    let mut of = vec![None; n];
    for (header, _, body) in &bodies {
        // No loop inside.
        if bodies.iter().any(|(h, _, _)| h != header && body[*h]) {
            continue;
        }
        let Some(shape) = shape_of(ir, ok, post, *header, body.clone()) else {
            continue;
        };
        for (b, &inside) in body.iter().enumerate() {
            if inside {
                of[b] = Some(shapes.len());
            }
        }
        shapes.push(shape);
    }
    (of, shapes)
}

fn shape_of(
    ir: &Ir,
    ok: &dyn Fn(usize) -> bool,
    post: &[Option<u32>],
    header: usize,
    body: Vec<bool>,
) -> Option<LoopShape> {
    let n = ir.blocks.len();
    let exit = post[header]? as usize;
    if body[exit] {
        return None;
    }
    // The iteration's graph: the back edge and the exits end it.
    let ends = |e: &Edge| e.target as usize == header || !body[e.target as usize];
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|b| {
            if !body[b] {
                return Vec::new();
            }
            ir.blocks[b]
                .term
                .edges()
                .iter()
                .map(|e| if ends(e) { EXIT } else { e.target as usize })
                .collect()
        })
        .collect();
    let local = post_dominators_of(&succs);
    // The iteration's blocks in order, and where each branch's sides meet.
    let mut blocks = Vec::new();
    let mut seen = vec![false; n];
    walk(
        ir,
        &body,
        &local,
        header,
        header,
        None,
        &mut seen,
        &mut blocks,
    )?;
    if blocks.iter().any(|&b| !ok(b)) || body.iter().enumerate().any(|(b, &x)| x && !seen[b]) {
        return None;
    }
    // The exits' paths.
    let mut exit_blocks = Vec::new();
    let mut exit_paths = HashMap::new();
    let mut exit_seen = vec![false; n];
    for &b in &blocks {
        for e in ir.blocks[b].term.edges() {
            let t = e.target as usize;
            if body[t] || exit_paths.contains_key(&t) {
                continue;
            }
            let mut path = Vec::new();
            super::masked::side_blocks(ir, ok, post, t, exit, &mut exit_seen, &mut path)?;
            let mut regs = Vec::new();
            note_writes(ir, &path, &mut regs, &mut HashSet::new());
            exit_blocks.extend(path.iter().copied());
            exit_paths.insert(t, regs);
        }
    }
    let mut splits = HashMap::new();
    for &b in &blocks {
        if let Term::Branch {
            if_true, if_false, ..
        } = &ir.blocks[b].term
        {
            let join = local[b];
            let reaches = [if_true, if_false].map(|e| reaches(ir, &body, header, e, join));
            let mut inner = Vec::new();
            let mut inner_seen = vec![false; n];
            for e in [if_true, if_false] {
                if !ends(e) {
                    walk(
                        ir,
                        &body,
                        &local,
                        header,
                        e.target as usize,
                        join,
                        &mut inner_seen,
                        &mut inner,
                    )?;
                }
            }
            let mut regs = Vec::new();
            let mut noted = HashSet::new();
            for e in [if_true, if_false] {
                if e.target as usize == header || body[e.target as usize] {
                    for &(d, _) in &e.moves {
                        if noted.insert(d) {
                            regs.push(d);
                        }
                    }
                }
            }
            // The blocks' writes, and their edges' copies inside the loop (the back edge's
            // too: the sides may meet only at the iteration's end).
            for &blk in &inner {
                for op in &ir.blocks[blk].ops {
                    op.for_each_def(|r| {
                        if noted.insert(r) {
                            regs.push(r);
                        }
                    });
                }
                for e in ir.blocks[blk].term.edges() {
                    if e.target as usize == header || body[e.target as usize] {
                        for &(d, _) in &e.moves {
                            if noted.insert(d) {
                                regs.push(d);
                            }
                        }
                    }
                }
            }
            splits.insert(
                b,
                Split {
                    join,
                    written: regs,
                    reaches,
                },
            );
        }
    }
    let mut written = Vec::new();
    let mut noted = HashSet::new();
    note_writes(ir, &blocks, &mut written, &mut noted);
    note_writes(ir, &exit_blocks, &mut written, &mut noted);
    Some(LoopShape {
        header,
        exit,
        body,
        blocks,
        exit_blocks,
        splits,
        written,
        exit_paths,
    })
}

/// Whether a path from edge `e` reaches `join` (`None`: the back edge) without leaving the
/// loop.
fn reaches(ir: &Ir, body: &[bool], header: usize, e: &Edge, join: Option<usize>) -> bool {
    let mut seen = vec![false; ir.blocks.len()];
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        let t = e.target as usize;
        if t == header {
            if join.is_none() {
                return true;
            }
            continue;
        }
        if !body[t] {
            continue;
        }
        if Some(t) == join {
            return true;
        }
        if !std::mem::replace(&mut seen[t], true) {
            stack.extend(ir.blocks[t].term.edges());
        }
    }
    false
}

/// The writes of `blocks` (their ops and every edge's copies), appended once each.
fn note_writes(ir: &Ir, blocks: &[usize], out: &mut Vec<Reg>, noted: &mut HashSet<Reg>) {
    for &b in blocks {
        for op in &ir.blocks[b].ops {
            op.for_each_def(|r| {
                if noted.insert(r) {
                    out.push(r);
                }
            });
        }
        for e in ir.blocks[b].term.edges() {
            for &(d, _) in &e.moves {
                if noted.insert(d) {
                    out.push(d);
                }
            }
        }
    }
}

/// The loop's blocks from `start` to `stop` (`None`: the iteration's end) in the order an
/// iteration runs them, appended to `out`: `None` when a block repeats.
#[allow(clippy::too_many_arguments)]
fn walk(
    ir: &Ir,
    body: &[bool],
    local: &[Option<usize>],
    header: usize,
    start: usize,
    stop: Option<usize>,
    seen: &mut [bool],
    out: &mut Vec<usize>,
) -> Option<()> {
    let mut b = start;
    loop {
        if Some(b) == stop {
            return Some(());
        }
        if seen[b] {
            return None;
        }
        seen[b] = true;
        out.push(b);
        let ends = |e: &Edge| e.target as usize == header || !body[e.target as usize];
        match &ir.blocks[b].term {
            Term::Jump(e) if ends(e) => return Some(()),
            Term::Jump(e) => b = e.target as usize,
            Term::Branch {
                if_true, if_false, ..
            } => {
                let join = local[b];
                for e in [if_true, if_false] {
                    if !ends(e) {
                        walk(ir, body, local, header, e.target as usize, join, seen, out)?;
                    }
                }
                match join {
                    Some(j) => b = j,
                    None => return Some(()),
                }
            }
            _ => return None,
        }
    }
}

impl LoopShape {
    /// The loop's blocks in iteration order, then its exits' paths to the exit block.
    fn all_blocks(&self) -> Vec<usize> {
        self.blocks
            .iter()
            .chain(&self.exit_blocks)
            .copied()
            .collect()
    }
}

/// What a masked loop keeps in variables across its iterations.
struct Masks {
    /// The lanes still in the loop (`I8X16` 0/1).
    active: Variable,
    /// The exit block's registers the loop writes, with the vectors each lane left with.
    saved: Vec<(Reg, Vec<Variable>)>,
}

impl Gen<'_> {
    /// The masked loop for a divergent branch of block `from`, if its loop can run under
    /// masks (see the module docs).
    pub(super) fn maskable_loop(&self, from: usize) -> Option<LoopPlan> {
        let ir = self.ir;
        let shape = self.loops.1[self.loops.0[from]?].clone();
        // A resident register's row is its home: masked stores blend the lanes that run them
        // into it, so it needs no saving, merging or select, only writes that blend.
        let varying_ok =
            |r: Reg| self.resident[r as usize] || self.classes[r as usize] == Class::Varying;
        let all_blocks = shape.all_blocks();
        if shape.written.iter().any(|&r| self.resident[r as usize])
            && !self.resident_writes_masked(&all_blocks)
        {
            return None;
        }
        let exit_reads = &self.live.live_in[shape.exit];
        if !shape
            .written
            .iter()
            .all(|&r| !exit_reads.contains(r) || varying_ok(r))
        {
            return None;
        }
        for (&b, split) in &shape.splits {
            let Some(cond) = ir.blocks[b].term.condition() else {
                continue;
            };
            if self.classes[cond as usize] != Class::Varying || !split.merges() {
                continue;
            }
            let reads = &self.live.live_in[split.join.unwrap_or(shape.header)];
            if !split
                .written
                .iter()
                .all(|&r| !reads.contains(r) || varying_ok(r))
            {
                return None;
            }
        }
        // Every op that may hand back is checked at its iteration's start: its operand may not
        // come from a load of the iteration. A tensor read that may hand back cannot be (its
        // checks are its loads): the loop keeps none beside a store.
        let ops = || all_blocks.iter().flat_map(|&b| &ir.blocks[b].ops);
        // (A store into a resident variable changes its row as a window store changes memory.)
        let stores = |op: &Op| {
            super::masked::writes_memory(op)
                || matches!(op, Op::StoreVar { var, .. } if self.resident[var.base as usize])
        };
        if ops().any(stores) && ops().any(|op| self.tensor_read_may_hand_back(op)) {
            return None;
        }
        let mut prechecked = Vec::new();
        let mut loaded = RegSet::new(ir.reg_types.len() as u32);
        for &b in &all_blocks {
            for (k, op) in ir.blocks[b].ops.iter().enumerate() {
                let may_hand_back = self.wrap_check_may_hand_back(op);
                let reads_loaded = reads_any(op, &loaded);
                if may_hand_back {
                    if reads_loaded {
                        return None;
                    }
                    prechecked.push((b as u32, k));
                }
                if reads_loaded || matches!(op, Op::Load { .. }) {
                    op.for_each_def(|r| loaded.insert(r));
                }
            }
            for e in ir.blocks[b].term.edges() {
                for &(d, s) in &e.moves {
                    if loaded.contains(s) {
                        loaded.insert(d);
                    }
                }
            }
        }
        Some(LoopPlan { shape, prechecked })
    }

    /// Runs the rest of `plan`'s loop under masks for a chunk whose lanes disagree on block
    /// `from`'s branch (`cond`: an `I8X16` of 0/1 per lane), then continues at the exit block
    /// with every lane. Ends the current block.
    pub(super) fn masked_loop(
        &mut self,
        from: usize,
        plan: LoopPlan,
        cond: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        let shape = &plan.shape;
        // Tensor views are checked here, at the branch, before the masked iterations store
        // anything (`edge`).
        self.at = (from as u32, ir.blocks[from].ops.len());
        self.check_tensor_views(&shape.all_blocks());
        let ones = super::vs_one(&mut self.b);
        let active = self.b.declare_var(I8X16);
        self.b.def_var(active, ones);
        let exit_reads = self.live.live_in[shape.exit].clone();
        let mut saved = Vec::new();
        let kept: Vec<Reg> = self
            .restorable(&shape.written)
            .into_iter()
            .filter(|&r| exit_reads.contains(r))
            .collect();
        for r in kept {
            let bytes = self.bytes(r);
            let now = self.get(r);
            let vs = self.vectors(&now, bytes);
            let vars: Vec<Variable> = vs
                .iter()
                .map(|&v| {
                    let var = self.b.declare_var(vec_ty(bytes));
                    self.b.def_var(var, v);
                    var
                })
                .collect();
            saved.push((r, vars));
        }
        let masks = Masks { active, saved };
        // The iteration the branch is in, from the branch.
        let at = (from as u32, ir.blocks[from].ops.len());
        // (A hand-back comes before the iteration's first store: resident rows are as they were.)
        let live: Vec<Reg> = self.live_at(from, at.1).iter().collect();
        let live = self.restorable(&live);
        let snapshot: Vec<(Reg, JVal)> = live.iter().map(|&r| (r, self.get(r))).collect();
        let restart = Restart::At(at, snapshot);
        self.iteration(shape, &masks, &plan.prechecked, restart, Some((from, cond)))?;
        // Whole iterations while a lane is left.
        let (head, body, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let a = self.b.use_var(active);
        let any = self.b.ins().vany_true(a);
        self.b.ins().brif(any, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let go = self.b.create_block();
        self.poll_then(go);
        self.b.switch_to_block(go);
        let a = self.b.use_var(active);
        // What a hand-back in this iteration restarts with: the active lanes' values at the
        // header, the others' at the exit block.
        let header_reads = self.live.live_in[shape.header].clone();
        let mut values = Vec::new();
        let mut noted = HashSet::new();
        for r in header_reads.iter().chain(exit_reads.iter()) {
            if !noted.insert(r) || self.resident[r as usize] {
                continue;
            }
            let now = self.get(r);
            let v = match masks.saved.iter().find(|(s, _)| *s == r) {
                Some((_, vars)) => {
                    let bytes = self.bytes(r);
                    let lane_masks = self.masks_from_bools(a, bytes);
                    let cur = self.vectors(&now, bytes);
                    let merged = vars
                        .iter()
                        .zip(cur)
                        .zip(lane_masks)
                        .map(|((&var, x), m)| {
                            let old = self.b.use_var(var);
                            self.lane_select(m, x, old)
                        })
                        .collect();
                    JVal::Varying(merged)
                }
                None => now,
            };
            values.push((r, v));
        }
        let restart = Restart::Lanes {
            active: a,
            header: shape.header as u32,
            exit: shape.exit as u32,
            values,
        };
        self.iteration(shape, &masks, &plan.prechecked, restart, None)?;
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(done);
        for (r, vars) in &masks.saved {
            let vs = vars.iter().map(|&v| self.b.use_var(v)).collect();
            self.set(*r, JVal::Varying(vs))?;
        }
        let last = shape.blocks.last().copied().unwrap_or(from);
        self.at = (last as u32, ir.blocks[last].ops.len());
        self.goto(shape.exit as u32, Some(last))
    }

    /// One iteration under `masks.active`: from `first`'s branch (`Some((block, cond))`, the
    /// iteration the loop turned masked in) or from the header; with a check pass first when
    /// some op may hand back.
    fn iteration(
        &mut self,
        shape: &LoopShape,
        masks: &Masks,
        prechecked: &[(u32, usize)],
        restart: Restart,
        first: Option<(usize, Value)>,
    ) -> JitResult<()> {
        let lanes = self.b.use_var(masks.active);
        let base = Masked { lanes, restart };
        if !prechecked.is_empty() {
            let live_here = match first {
                None => self.live_at(shape.header, 0),
                Some((from, _)) => self.live_at(from, self.ir.blocks[from].ops.len()),
            };
            let written = self.restorable(&shape.written);
            let before = self.values_to_restore(&written, &live_here);
            let pass = Pass {
                base: base.clone(),
                check_only: Some(&[]),
            };
            let run = self.iteration_from(&pass, shape, masks, first);
            self.mask = None;
            run?;
            for (&r, v) in written.iter().zip(&before) {
                self.set(r, v.clone())?;
            }
            self.prechecked = prechecked.iter().copied().collect();
        }
        let pass = Pass {
            base,
            check_only: None,
        };
        let run = self.iteration_from(&pass, shape, masks, first);
        self.mask = None;
        self.prechecked.clear();
        run
    }

    fn iteration_from(
        &mut self,
        pass: &Pass<'_>,
        shape: &LoopShape,
        masks: &Masks,
        first: Option<(usize, Value)>,
    ) -> JitResult<()> {
        let lanes = pass.base.lanes;
        let start = match first {
            None => shape.header,
            Some((from, cond)) => {
                self.loop_split(pass, shape, masks, from, lanes, cond)?;
                match shape.splits.get(&from).and_then(|s| s.join) {
                    Some(join) => join,
                    None => return Ok(()),
                }
            }
        };
        let lanes = self.still_in(masks, lanes);
        self.loop_walk(pass, shape, masks, start, None, lanes)
    }

    /// `lanes` without those that left the loop.
    fn still_in(&mut self, masks: &Masks, lanes: Value) -> Value {
        let a = self.b.use_var(masks.active);
        self.b.ins().band(lanes, a)
    }

    /// Blocks of the loop from `b` up to `stop` (`None`: the iteration's end) under `lanes`.
    fn loop_walk(
        &mut self,
        pass: &Pass<'_>,
        shape: &LoopShape,
        masks: &Masks,
        mut b: usize,
        stop: Option<usize>,
        mut lanes: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        loop {
            if Some(b) == stop {
                return Ok(());
            }
            self.mask = Some(Masked {
                lanes,
                ..pass.base.clone()
            });
            for (k, op) in ir.blocks[b].ops.iter().enumerate() {
                if pass.check_only.is_some() && !op.is_pure() {
                    continue;
                }
                self.at = (b as u32, k);
                self.op(op)?;
            }
            self.at = (b as u32, ir.blocks[b].ops.len());
            match &ir.blocks[b].term {
                Term::Jump(e) => match self.loop_edge(pass, shape, masks, e, lanes)? {
                    Some(t) => b = t,
                    None => return Ok(()),
                },
                Term::Branch {
                    cond,
                    if_true,
                    if_false,
                } => {
                    let join = shape.splits.get(&b).and_then(|s| s.join);
                    let value = self.get(*cond);
                    let side =
                        |g: &mut Self, e: &Edge| g.loop_side(pass, shape, masks, e, join, lanes);
                    if let Some(varying) = self.uniform_branch(&value, if_true, if_false, side)? {
                        self.loop_split(pass, shape, masks, b, lanes, varying)?;
                    }
                    lanes = self.still_in(masks, lanes);
                    match join {
                        Some(j) => b = j,
                        None => return Ok(()),
                    }
                }
                _ => {
                    return Err(JitError::Unexpected(
                        "a masked loop block that does not jump",
                    ));
                }
            }
        }
    }

    /// One side of a branch in the loop: edge `e`, then blocks up to `stop`.
    fn loop_side(
        &mut self,
        pass: &Pass<'_>,
        shape: &LoopShape,
        masks: &Masks,
        e: &Edge,
        stop: Option<usize>,
        lanes: Value,
    ) -> JitResult<()> {
        match self.loop_edge(pass, shape, masks, e, lanes)? {
            Some(t) => self.loop_walk(pass, shape, masks, t, stop, lanes),
            None => Ok(()),
        }
    }

    /// Takes edge `e` for `lanes`: its copies and the block it leads to in the loop
    /// (`Some`), or the end of the iteration (the back edge) or of the loop (an exit: the
    /// lanes run its path, leave their values in `saved` and leave `active`).
    fn loop_edge(
        &mut self,
        pass: &Pass<'_>,
        shape: &LoopShape,
        masks: &Masks,
        e: &Edge,
        lanes: Value,
    ) -> JitResult<Option<usize>> {
        let t = e.target as usize;
        if t == shape.header {
            self.copies(e)?;
            return Ok(None);
        }
        if shape.body[t] {
            self.copies(e)?;
            return Ok(Some(t));
        }
        // An exit.
        let mut path_writes: Vec<Reg> = e.moves.iter().map(|&(d, _)| d).collect();
        if let Some(regs) = shape.exit_paths.get(&t) {
            path_writes.extend(regs.iter().copied());
        }
        // (A resident register keeps what the exit's stores blended into its row.)
        let path_writes = self.restorable(&path_writes);
        let before: Vec<JVal> = path_writes.iter().map(|&r| self.get(r)).collect();
        self.side(pass, e, shape.exit, lanes)?;
        if pass.check_only.is_none() {
            for (r, vars) in &masks.saved {
                let bytes = self.bytes(*r);
                let now = self.get(*r);
                let cur = self.vectors(&now, bytes);
                let lane_masks = self.masks_from_bools(lanes, bytes);
                for ((&var, x), m) in vars.iter().zip(cur).zip(lane_masks) {
                    let old = self.b.use_var(var);
                    let v = self.lane_select(m, x, old);
                    self.b.def_var(var, v);
                }
            }
            let a = self.b.use_var(masks.active);
            let left = self.b.ins().band_not(a, lanes);
            self.b.def_var(masks.active, left);
        }
        for (&r, v) in path_writes.iter().zip(&before) {
            self.set(r, v.clone())?;
        }
        Ok(None)
    }

    /// Both sides of block `from`'s branch in the loop, inside the lanes of `outer`, then the
    /// registers their meeting point reads (the header's, when they meet only at the
    /// iteration's end) merged.
    fn loop_split(
        &mut self,
        pass: &Pass<'_>,
        shape: &LoopShape,
        masks: &Masks,
        from: usize,
        outer: Value,
        cond: Value,
    ) -> JitResult<()> {
        let ir = self.ir;
        let Term::Branch {
            if_true, if_false, ..
        } = &ir.blocks[from].term
        else {
            return Err(JitError::Unexpected(
                "a masked loop split at a block with no branch",
            ));
        };
        let Some(Split {
            join,
            written,
            reaches,
        }) = shape.splits.get(&from).cloned()
        else {
            return Err(JitError::Unexpected("a masked loop split with no shape"));
        };
        let reads = self.live.live_in[join.unwrap_or(shape.header)].clone();
        // Resident registers take both sides' stores in their rows: neither put back nor merged.
        let written = self.restorable(&written);
        let merged: Vec<Reg> = written
            .iter()
            .copied()
            .filter(|&r| reads.contains(r))
            .collect();
        let live_here = self.live_at(from, ir.blocks[from].ops.len());
        let before = self.values_to_restore(&written, &live_here);
        let ones = super::vs_one(&mut self.b);
        let not_cond = self.b.ins().bxor(cond, ones);
        let sides = [
            self.b.ins().band(outer, cond),
            self.b.ins().band(outer, not_cond),
        ];
        let mut results: Vec<Vec<JVal>> = Vec::with_capacity(2);
        for (k, (edge, lanes)) in [if_true, if_false].into_iter().zip(sides).enumerate() {
            if k == 1 {
                for (&r, v) in written.iter().zip(&before) {
                    self.set(r, v.clone())?;
                }
            }
            self.loop_side(pass, shape, masks, edge, join, lanes)?;
            results.push(merged.iter().map(|&r| self.get(r)).collect());
        }
        for (k, &r) in merged.iter().enumerate() {
            let v = match reaches {
                // Only the lanes of one side go on: its values.
                [true, false] => results[0][k].clone(),
                [false, true] => results[1][k].clone(),
                _ => {
                    let bytes = self.bytes(r);
                    self.blend(cond, &results[0][k], &results[1][k], bytes)
                }
            };
            self.set(r, v)?;
        }
        Ok(())
    }
}
