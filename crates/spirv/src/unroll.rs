//! Small loops with a known trip count written out, iteration after iteration.
//!
//! GLSL compiled without an optimiser (glslang at run time, as ncnn does; glslc without `-O`)
//! keeps every `for (uint i = 0; i < 2; ++i)` loop, and arrays indexed by such counters stay
//! function variables indexed at run time. A register-tiled cooperative-matrix GEMM then runs a
//! loop, with a variable access per operand, around each multiply-add, where the unrolled form
//! reads its tiles straight from registers and batches its products. Once the loops are written
//! out, every counter is a known value in each copy, and [`crate::constants`] turns the array
//! accesses into plain register copies that `opt` then removes.
//!
//! A loop is written out when (the structured order of `ir` gives the shape):
//! - its header `h` ends in a branch on `cond = icmp(c, bound)` (either operand order) with
//!   `bound` a constant, one side the body (a block after `h`) and the other its exit `m` (the
//!   later of the two); the loop is the blocks `h..m` reachable from `h`;
//! - exactly one edge comes back to `h`, a plain jump from the latch `l`; no other edge inside
//!   goes back (inner loops were written out first, or the loop stays), none leaves but the
//!   header's exit (no `break`, no `return`), and from outside only one block `p` enters, at `h`;
//! - `c`'s only definition in the loop is `c = c + step` (or `- step`, `step` a constant) in `l`,
//!   and its value on the edge `p → h` is known ([`crate::constants::known_values`]);
//! - it runs at most [`MAX_TRIPS`] times, and its copies add at most [`MAX_OPS`] ops (the
//!   program at most [`MAX_GROWTH`] in all);
//! - its `OpLoopMerge` does not ask `DontUnroll` (GLSL's `[[dont_unroll]]`).
//!
//! The copies replace the loop in place: copy `t` of the loop's blocks, its header jumping
//! straight into the body and its latch to the header of copy `t + 1`, and last a copy of the
//! header alone, jumping to `m` (its ops still run once more, as when the loop's test failed).
//! Each iteration ran every block of the copy's path and the same ops in the same order, so the
//! values, the stores and the lanes that run each op are those of the loop; blocks keep their
//! structured order. Registers that live only inside one block (written before any read there,
//! never on an edge) get fresh names in each copy but the first, so that each copy's
//! temporaries are defined once and `opt` can fold them.

use std::collections::HashMap;

use crate::alu::{self, IBin};
use crate::constants::{Constants, along_edge, known_values, stored};
use crate::ir::loops::{back_edge_targets, predecessors};
use crate::ir::{Block, Edge, Op, Reg, Role, Term};

/// The most iterations a loop written out may run.
pub(crate) const MAX_TRIPS: u64 = 16;
/// The most ops one loop's copies may hold.
pub(crate) const MAX_OPS: usize = 512;
/// The most ops all copies of a program may add.
pub(crate) const MAX_GROWTH: usize = 2048;

/// A loop to write out (block numbers of the blocks as they are).
struct Plan {
    header: usize,
    exit: usize,
    latch: usize,
    /// The loop's blocks reachable from the header, in order.
    blocks: Vec<usize>,
    /// The header's edge into the body, and its edge to the exit.
    into_body: Edge,
    to_exit: Edge,
    trips: u64,
}

/// Writes out every loop the module docs describe, innermost first, but those whose headers
/// `kept` lists; true if any was. `pinned` marks the registers that must keep their names
/// (variables, built-ins, constants).
///
/// Headers are visited from the last to the first: an inner loop's header comes after its outer
/// loop's, and writing out a loop changes only blocks from its header on (and where earlier
/// blocks' edges point), so the values known before each header, computed once, stay true.
pub(crate) fn unroll_small_loops(
    blocks: &mut Vec<Block>,
    constants: &mut Constants<'_>,
    pinned: &[bool],
    kept: &[usize],
) -> bool {
    let headers = back_edge_targets(blocks);
    let known = known_values(blocks, constants);
    let mut preds = predecessors(blocks);
    let mut growth = 0;
    let mut any = false;
    for header in (0..headers.len()).rev() {
        if !headers[header] || kept.contains(&header) {
            continue;
        }
        let Some(plan) = plan_loop(blocks, &preds, constants, &known, header) else {
            continue;
        };
        let ops: usize = plan.blocks.iter().map(|&b| blocks[b].ops.len() + 1).sum();
        let added = ops.saturating_mul(plan.trips as usize);
        // Too big: it stays, and so does every loop around it (which keeps its back edge).
        if added > MAX_OPS || growth + added > MAX_GROWTH {
            continue;
        }
        growth += added;
        write_out(blocks, constants, pinned, &plan);
        preds = predecessors(blocks);
        any = true;
    }
    any
}

fn plan_loop(
    blocks: &[Block],
    preds: &[Vec<usize>],
    constants: &Constants<'_>,
    known: &crate::constants::Known,
    header: usize,
) -> Option<Plan> {
    let Term::Branch {
        cond,
        if_true,
        if_false,
    } = &blocks[header].term
    else {
        return None;
    };
    let (body_edge, exit_edge) = if if_true.target < if_false.target {
        (if_true, if_false)
    } else {
        (if_false, if_true)
    };
    let (body, exit) = (body_edge.target as usize, exit_edge.target as usize);
    if body <= header || exit >= blocks.len() {
        return None;
    }
    // The loop's blocks: reachable from the header without leaving `header..exit`.
    let mut inside = vec![false; blocks.len()];
    let mut stack = vec![header];
    while let Some(b) = stack.pop() {
        if b < header || b >= exit || inside[b] {
            continue;
        }
        inside[b] = true;
        stack.extend(blocks[b].term.edges().iter().map(|e| e.target as usize));
    }
    let members: Vec<usize> = (header..exit).filter(|&b| inside[b]).collect();
    // One latch; every other edge forward and inside; only the header leaves.
    let mut latch = None;
    for &b in &members {
        for e in blocks[b].term.edges() {
            let t = e.target as usize;
            if t == header {
                if latch.is_some() || !matches!(blocks[b].term, Term::Jump(_)) {
                    return None;
                }
                latch = Some(b);
            } else if t == exit {
                if b != header {
                    return None;
                }
            } else if t <= b || !inside[t] {
                return None;
            }
        }
        let outside_pred = preds[b].iter().any(|&p| !inside[p]);
        if b != header && outside_pred {
            return None;
        }
    }
    let latch = latch?;
    let entries: Vec<usize> = preds[header]
        .iter()
        .copied()
        .filter(|&p| !inside[p])
        .collect();
    let &[pre] = entries.as_slice() else {
        return None;
    };
    if pre >= header {
        return None;
    }
    // The test: the last definition of `cond` in the header.
    let test = blocks[header]
        .ops
        .iter()
        .rev()
        .find(|op| op.defines(*cond))?;
    let Op::ICmp {
        op: compare,
        width,
        lhs,
        rhs,
        ..
    } = *test
    else {
        return None;
    };
    let (counter, counter_is_lhs, bound) = match (constants.get(lhs), constants.get(rhs)) {
        (None, Some(b)) => (lhs, true, b),
        (Some(b), None) => (rhs, false, b),
        _ => return None,
    };
    let (step_op, step_width, step) = counter_step(blocks, &members, latch, counter, constants)?;
    let start = along_edge(&blocks[pre], header, &known.exit[pre], constants);
    let mut value = *start.get(&counter).or(constants.get(counter).as_ref())?;
    let body_when = u64::from(body_edge.target == if_true.target);
    let mut trips = 0;
    loop {
        let (a, b) = if counter_is_lhs {
            (value, bound)
        } else {
            (bound, value)
        };
        if alu::icmp(compare, width, a, b) != body_when {
            break;
        }
        trips += 1;
        if trips > MAX_TRIPS {
            return None;
        }
        value = stored(
            constants.reg_types(),
            counter,
            alu::ibin(step_op, step_width, value, step),
        );
    }
    Some(Plan {
        header,
        exit,
        latch,
        blocks: members,
        into_body: body_edge.clone(),
        to_exit: exit_edge.clone(),
        trips,
    })
}

/// `c = c + step` or `c - step` (op, width, step): `counter`'s only definition in the loop,
/// an op of the latch.
fn counter_step(
    blocks: &[Block],
    members: &[usize],
    latch: usize,
    counter: Reg,
    constants: &Constants<'_>,
) -> Option<(IBin, u8, u64)> {
    let mut found = None;
    for &b in members {
        for e in blocks[b].term.edges() {
            if e.moves.iter().any(|&(d, _)| d == counter) {
                return None;
            }
        }
        for op in &blocks[b].ops {
            if !op.defines(counter) {
                continue;
            }
            let Op::IBin {
                op: kind @ (IBin::Add | IBin::Sub),
                width,
                dst,
                lhs,
                rhs,
            } = *op
            else {
                return None;
            };
            let step = match (lhs == counter, rhs == counter) {
                (true, false) => constants.get(rhs)?,
                (false, true) if kind == IBin::Add => constants.get(lhs)?,
                _ => return None,
            };
            if b != latch || dst != counter || found.is_some() {
                return None;
            }
            found = Some((kind, width, step));
        }
    }
    found
}

/// Registers that live only inside one block: wherever they appear, written before read, never
/// on an edge or pinned.
fn block_local(blocks: &[Block], pinned: &[bool], nregs: usize) -> Vec<bool> {
    let mut local: Vec<bool> = (0..nregs)
        .map(|r| !pinned.get(r).copied().unwrap_or(false))
        .collect();
    let mut written = vec![false; nregs];
    for block in blocks {
        let mut seen: Vec<Reg> = Vec::new();
        for op in &block.ops {
            op.for_each_reg(&mut |r, role| {
                let Some(w) = written.get_mut(r as usize) else {
                    return;
                };
                match role {
                    Role::Use if !*w => local[r as usize] = false,
                    Role::Use => {}
                    Role::Def => {
                        *w = true;
                        seen.push(r);
                    }
                }
            });
        }
        if let Some(c) = block.term.condition()
            && !written.get(c as usize).copied().unwrap_or(false)
            && let Some(l) = local.get_mut(c as usize)
        {
            *l = false;
        }
        for e in block.term.edges() {
            for &(d, s) in &e.moves {
                for r in [d, s] {
                    if let Some(l) = local.get_mut(r as usize) {
                        *l = false;
                    }
                }
            }
        }
        for r in seen {
            written[r as usize] = false;
        }
    }
    local
}

/// Replaces the loop of `plan` by its copies (module docs).
fn write_out(blocks: &mut Vec<Block>, constants: &mut Constants<'_>, pinned: &[bool], plan: &Plan) {
    let (header, exit) = (plan.header, plan.exit);
    let size = plan.blocks.len();
    let trips = plan.trips as usize;
    let local = block_local(blocks, pinned, constants.reg_types().len());
    let position: HashMap<usize, usize> = plan
        .blocks
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    // Blocks after the loop move by `moved` (as i64: a loop that never runs may shrink).
    let moved = (trips * size + 1) as i64 - (exit - header) as i64;
    let after = |t: u32| -> u32 {
        if t as usize >= exit {
            (i64::from(t) + moved) as u32
        } else {
            t
        }
    };
    let copy_start = |t: usize| (header + t * size) as u32;

    let mut out: Vec<Block> = Vec::with_capacity(blocks.len() + trips * size + 1);
    let mut originals = std::mem::take(blocks).into_iter().enumerate();
    for (_, mut block) in originals.by_ref().take(header) {
        retarget(&mut block.term, &after);
        out.push(block);
    }
    let looped: Vec<Block> = originals
        .by_ref()
        .take(exit - header)
        .map(|(_, b)| b)
        .collect();
    let fresh_names = |constants: &mut Constants<'_>| -> HashMap<Reg, Reg> {
        let mut names = HashMap::new();
        for &b in &plan.blocks {
            for op in &looped[b - header].ops {
                op.for_each_reg(&mut |r, role| {
                    if role == Role::Def && local.get(r as usize).copied().unwrap_or(false) {
                        names
                            .entry(r)
                            .or_insert_with(|| constants.fresh_register(r));
                    }
                });
            }
        }
        names
    };
    for t in 0..=trips {
        let names = if t == 0 {
            HashMap::new()
        } else {
            fresh_names(constants)
        };
        let last = t == trips;
        for &b in &plan.blocks {
            if last && b != header {
                continue;
            }
            let mut block = looped[b - header].clone();
            rename(&mut block, &names);
            if b == header {
                let mut edge = if last {
                    plan.to_exit.clone()
                } else {
                    plan.into_body.clone()
                };
                for m in &mut edge.moves {
                    m.0 = names.get(&m.0).copied().unwrap_or(m.0);
                    m.1 = names.get(&m.1).copied().unwrap_or(m.1);
                }
                block.term = Term::Jump(edge);
            }
            let inside = |target: u32| -> u32 {
                let target = target as usize;
                if target >= exit {
                    after(target as u32)
                } else if b == plan.latch && target == header {
                    copy_start(t + 1)
                } else {
                    copy_start(t) + position.get(&target).copied().unwrap_or(0) as u32
                }
            };
            retarget(&mut block.term, &inside);
            out.push(block);
        }
    }
    for (_, mut block) in originals {
        retarget(&mut block.term, &after);
        out.push(block);
    }
    *blocks = out;
}

/// Drops the blocks no path from block 0 reaches (the loops written out, and the blocks that
/// earlier passes emptied, leave many) and numbers the rest in their order, which keeps it
/// structured.
pub(crate) fn drop_unreachable(blocks: &mut Vec<Block>) {
    let mut reached = vec![false; blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= blocks.len() || reached[b] {
            continue;
        }
        reached[b] = true;
        stack.extend(blocks[b].term.edges().iter().map(|e| e.target as usize));
    }
    if reached.iter().all(|&r| r) {
        return;
    }
    let mut number = vec![0u32; blocks.len()];
    let mut next = 0;
    for (n, &r) in number.iter_mut().zip(&reached) {
        *n = next;
        next += u32::from(r);
    }
    let old = std::mem::take(blocks);
    for (mut block, r) in old.into_iter().zip(reached) {
        if r {
            retarget(&mut block.term, &|t| {
                number.get(t as usize).copied().unwrap_or(t)
            });
            blocks.push(block);
        }
    }
}

/// Points every edge of `term` at `map(target)`.
fn retarget(term: &mut Term, map: &impl Fn(u32) -> u32) {
    crate::opt::for_each_edge(term, |e| e.target = map(e.target));
}

/// Renames registers of `block` by `names` (ops, condition, edge copies).
fn rename(block: &mut Block, names: &HashMap<Reg, Reg>) {
    if names.is_empty() {
        return;
    }
    let name = |r: &mut Reg| {
        if let Some(&n) = names.get(r) {
            *r = n;
        }
    };
    for op in &mut block.ops {
        op.visit_regs(&mut |r, _| name(r));
    }
    match &mut block.term {
        Term::Branch { cond, .. } => name(cond),
        Term::Switch { selector, .. } => name(selector),
        Term::Jump(_) | Term::Exit => {}
    }
    crate::opt::for_each_edge(&mut block.term, |e| {
        for (d, s) in &mut e.moves {
            name(d);
            name(s);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::ICmp;
    use crate::ir::RegType;

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block::new(ops, term)
    }

    /// `c = 0; while (c < 3) { x += c; if (x == 7) break?; c += 1 }`: registers c = 0,
    /// cond = 1, x = 2, constants 0 (3), 3 (4), 1 (5), 7 (6); `brk` adds the break.
    fn counted_loop(brk: bool) -> Vec<Block> {
        let add = |dst, lhs, rhs| Op::IBin {
            op: IBin::Add,
            width: 32,
            dst,
            lhs,
            rhs,
        };
        let test = |lhs, rhs| Op::ICmp {
            op: ICmp::ULt,
            width: 32,
            dst: 1,
            lhs,
            rhs,
        };
        let body_end = if brk {
            Term::Branch {
                cond: 1,
                if_true: Edge::to(4),
                if_false: Edge::to(3),
            }
        } else {
            Term::Jump(Edge::to(3))
        };
        vec![
            block(vec![Op::Mov { dst: 0, src: 3 }], Term::Jump(Edge::to(1))),
            block(
                vec![test(0, 4)],
                Term::Branch {
                    cond: 1,
                    if_true: Edge::to(2),
                    if_false: Edge::to(4),
                },
            ),
            block(vec![add(2, 2, 0), test(2, 6)], body_end),
            block(vec![add(0, 0, 5)], Term::Jump(Edge::to(1))),
            block(Vec::new(), Term::Exit),
        ]
    }

    fn unroll(blocks: &mut Vec<Block>, kept: Vec<usize>) -> bool {
        let mut types = vec![RegType::Int(32); 7];
        types[1] = RegType::Bool;
        let mut consts = vec![(3, 0), (4, 3), (5, 1), (6, 7)];
        let mut pinned = vec![false; 7];
        for &(r, _) in &consts {
            pinned[r as usize] = true;
        }
        let mut constants = Constants::new(&mut types, &mut consts);
        unroll_small_loops(blocks, &mut constants, &pinned, &kept)
    }

    /// Three copies of header, body and latch, then the header alone: a chain of jumps, no
    /// back edge, `x += c` three times.
    #[test]
    fn a_counted_loop_is_written_out() {
        let mut blocks = counted_loop(false);
        assert!(unroll(&mut blocks, Vec::new()));
        assert_eq!(blocks.len(), 1 + 3 * 3 + 1 + 1);
        assert!(!back_edge_targets(&blocks).contains(&true));
        for (i, b) in blocks.iter().enumerate().take(blocks.len() - 1) {
            assert_eq!(b.term, Term::Jump(Edge::to(i as u32 + 1)), "block {i}");
        }
        let sums = blocks
            .iter()
            .flat_map(|b| &b.ops)
            .filter(|op| matches!(op, Op::IBin { dst: 2, .. }))
            .count();
        assert_eq!(sums, 3);
    }

    /// A loop with a break, and one its header marks `DontUnroll` (`kept`), stay as they are.
    #[test]
    fn loops_with_breaks_or_kept_stay() {
        let mut blocks = counted_loop(true);
        let before = blocks.clone();
        assert!(!unroll(&mut blocks, Vec::new()));
        assert_eq!(blocks, before);
        let mut blocks = counted_loop(false);
        let before = blocks.clone();
        assert!(!unroll(&mut blocks, vec![1]));
        assert_eq!(blocks, before);
    }
}
