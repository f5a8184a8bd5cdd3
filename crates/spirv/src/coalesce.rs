//! Edge copies written where their value is computed: `s = op …; jump h (p <- s)` becomes
//! `p = op …; jump h`.
//!
//! Out of SSA, every value a loop carries is a header register `p` that the back edge copies
//! from the value the body computed, `p <- s`. Each copy is a pass over all lanes at run time,
//! and for cooperative matrices, whose components live in register-file rows, a copy of every
//! row at every iteration: a register-tiled GEMM (`acc = coopMatMulAdd(a, b, acc)` unrolled)
//! copied all its accumulators once per step of `K`. When `s` exists only to be copied, the op
//! that computes it can write `p` instead, and the copy goes.
//!
//! Conditions, for a copy `p <- s` on the one edge of a block ending in a plain jump:
//! - `s` is defined once in the program, by op `j` of this block, and read only by this copy;
//! - `p` and `s` are ordinary registers of one type (not variables, built-ins or constants);
//! - no op after `j` in the block reads or writes `p`, and no other copy on the edge reads it
//!   (the copies are parallel: they read `p`'s old value);
//! - op `j` does not write `p` otherwise, and reads it only where reading and writing the same
//!   register is allowed: a lane-wise op (each lane's operands read before its result is
//!   written), or a cooperative-matrix multiply-add that reads `p` as the accumulator
//!   component in `s`'s place and not as `A` or `B` (the kernels and the reference read all
//!   of `C` before they write `D`).
//!
//! Every lane that runs the block takes its one edge, and nothing between `j` and the edge
//! sees `p`, so `p` holds the same values wherever it is read. Masks and the order of blocks
//! are unchanged.

use crate::ir::{Block, Builtins, Op, Reg, RegType, Role, Term};

/// Rewrites the copies the module docs describe, in `blocks` (registers typed by `reg_types`).
pub(crate) fn coalesce_edge_copies(
    blocks: &mut [Block],
    reg_types: &[RegType],
    vars: &[(Reg, u32)],
    consts: &[(Reg, u64)],
    builtins: &Builtins,
) {
    let n = reg_types.len();
    let ok = |r: Reg| (r as usize) < n;
    let mut pinned = crate::opt::pinned_registers(n, vars, builtins);
    for &(r, _) in consts {
        if let Some(p) = pinned.get_mut(r as usize) {
            *p = true;
        }
    }
    // Definitions and reads of every register, over ops, conditions and edge copies (an
    // indexed variable access reads and writes its whole range; those are pinned anyway).
    let mut defs = vec![0u32; n];
    let mut reads = vec![0u32; n];
    for block in blocks.iter() {
        for op in &block.ops {
            op.for_each_reg(&mut |r, role| {
                if ok(r) {
                    match role {
                        Role::Def => defs[r as usize] += 1,
                        Role::Use => reads[r as usize] += 1,
                    }
                }
            });
        }
        if let Some(c) = block.term.condition().filter(|&c| ok(c)) {
            reads[c as usize] += 1;
        }
        for e in block.term.edges() {
            for &(d, s) in &e.moves {
                if ok(d) {
                    defs[d as usize] += 1;
                }
                if ok(s) {
                    reads[s as usize] += 1;
                }
            }
        }
    }
    for block in blocks.iter_mut() {
        let Term::Jump(edge) = &block.term else {
            continue;
        };
        let moves = edge.moves.clone();
        let mut done: Vec<usize> = Vec::new();
        for (m, &(p, s)) in moves.iter().enumerate() {
            let free = |r: Reg| ok(r) && !pinned[r as usize];
            if p == s
                || !free(p)
                || !free(s)
                || reg_types[p as usize] != reg_types[s as usize]
                || defs[s as usize] != 1
                || reads[s as usize] != 1
                || moves
                    .iter()
                    .enumerate()
                    .any(|(k, &(_, src))| k != m && src == p)
            {
                continue;
            }
            let Some(j) = block.ops.iter().position(|op| op.defines(s)) else {
                continue;
            };
            let touched_after = block.ops[j + 1..].iter().any(|op| {
                let mut hit = false;
                op.for_each_reg(&mut |r, _| hit |= r == p);
                hit
            });
            if touched_after || !may_write_in_place(&block.ops[j], p, s) {
                continue;
            }
            block.ops[j].visit_regs(&mut |r, role| {
                if role == Role::Def && *r == s {
                    *r = p;
                }
            });
            defs[s as usize] = 0;
            reads[s as usize] = 0;
            done.push(m);
        }
        if done.is_empty() {
            continue;
        }
        if let Term::Jump(edge) = &mut block.term {
            let mut k = 0;
            edge.moves.retain(|_| {
                k += 1;
                !done.contains(&(k - 1))
            });
        }
    }
}

/// Whether op `op`, which writes `s`, may write `p` in its place (the module docs' last
/// condition).
pub(crate) fn may_write_in_place(op: &Op, p: Reg, s: Reg) -> bool {
    let (mut reads_p, mut writes_p) = (false, false);
    op.for_each_reg(&mut |r, role| match role {
        Role::Use => reads_p |= r == p,
        Role::Def => writes_p |= r == p,
    });
    if writes_p {
        return false;
    }
    if !reads_p || op.is_lanewise() {
        return true;
    }
    match op {
        Op::CoopMatMulAdd { dsts, a, b, c, .. } => {
            !a.contains(&p)
                && !b.contains(&p)
                && dsts.iter().position(|&d| d == s).is_some_and(|i| {
                    c.get(i) == Some(&p) && c.iter().filter(|&&x| x == p).count() == 1
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Edge;

    fn jump(target: u32, moves: Vec<(Reg, Reg)>) -> Term {
        Term::Jump(Edge { target, moves })
    }

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block::new(ops, term)
    }

    fn run(blocks: &mut [Block], nregs: usize) {
        let types = vec![RegType::Int(32); nregs];
        coalesce_edge_copies(blocks, &types, &[], &[], &Builtins::default());
    }

    /// `s = p + 1; jump (p <- s)` becomes `p = p + 1; jump`.
    #[test]
    fn a_carried_sum_is_computed_in_place() {
        let add = |dst| Op::IBin {
            op: crate::alu::IBin::Add,
            width: 32,
            dst,
            lhs: 0,
            rhs: 1,
        };
        let mut blocks = vec![block(vec![add(2)], jump(0, vec![(0, 2)]))];
        run(&mut blocks, 3);
        assert_eq!(blocks[0].ops, vec![add(0)]);
        assert_eq!(blocks[0].term, jump(0, vec![]));
    }

    /// Kept: `p` read after the definition, read by another copy, or `s` read elsewhere.
    #[test]
    fn copies_whose_register_is_seen_stay() {
        let add = |dst, lhs| Op::IBin {
            op: crate::alu::IBin::Add,
            width: 32,
            dst,
            lhs,
            rhs: 1,
        };
        let cases = [
            // p read after s's definition.
            vec![block(vec![add(2, 0), add(3, 0)], jump(0, vec![(0, 2)]))],
            // Another copy reads p.
            vec![block(vec![add(2, 0)], jump(0, vec![(0, 2), (3, 0)]))],
            // s read by an op too.
            vec![block(vec![add(2, 0), add(3, 2)], jump(0, vec![(0, 2)]))],
        ];
        for mut blocks in cases {
            let before = blocks.clone();
            run(&mut blocks, 4);
            assert_eq!(blocks, before);
        }
    }
}
