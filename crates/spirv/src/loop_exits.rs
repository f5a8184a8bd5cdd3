//! Copies of a loop's carried values that only the code after the loop reads, moved from every
//! iteration to the loop's exits.
//!
//! Compilers that keep a loop's results in function variables (IREE's SPIR-V: an `OpStore` of
//! each new accumulator in the loop body, an `OpLoad` after the loop) lower to a `Mov` per
//! result at the end of every iteration, `v = x`, beside the back edge's `p <- x` into the
//! header's register `p`. The copy makes `v` a second value carried around the loop: for a
//! register-tiled matrix multiply, 64 more varying registers, which compiled code keeps on the
//! stack and copies between stack slots at every back edge.
//!
//! When nothing in the loop reads `v` and this copy is `v`'s only definition, every read of `v`
//! after the loop sees the copy of the last iteration that reached the back edge, which is what
//! `p` holds when a lane leaves the loop (by any exit: an iteration that breaks never reached its
//! copy), or no definition at all when no iteration did (an undefined value, which `p`'s is as
//! good as). So the copy becomes `v <- p` on each edge that leaves the loop.
//!
//! Conditions checked: the back edge is its header's only one (the loop is the natural loop of
//! `latch → header`), and nothing after the loop leads back to it (inside an outer loop, an
//! entry that runs no iteration must keep the `v` of an earlier run); the copy is in the latch after `x`'s last definition there; `p` is written
//! only by edges into the header; `v` is not part of a variable read or written by index
//! (`LoadVar`/`StoreVar`), and no op, terminator or edge of the loop reads it. Every lane still
//! writes `v` on its own way out (edge copies run per lane), so masks and reconvergence are
//! unchanged.

use crate::ir::loops::{natural_loop, predecessors};
use crate::ir::{Block, Op, Reg, Role, Term};

/// Moves the copies described in the module docs to the loop exits, in `blocks` (registers
/// `0..nregs`).
pub(crate) fn sink_loop_copies(blocks: &mut [Block], nregs: u32) {
    let n = blocks.len();
    let regs = nregs as usize;
    let ok = |r: Reg| (r as usize) < regs;
    let preds = predecessors(blocks);
    // Definitions (ops and edge copies) and registers of indexed variables.
    let mut op_defs = vec![0u32; regs];
    let mut edge_defs = vec![0u32; regs];
    let mut indexed = vec![false; regs];
    for block in blocks.iter() {
        for op in &block.ops {
            op.for_each_def(|r| {
                if ok(r) {
                    op_defs[r as usize] += 1;
                }
            });
            if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
                for r in var.base..var.base.saturating_add(var.len) {
                    if ok(r) {
                        indexed[r as usize] = true;
                    }
                }
            }
        }
        for e in block.term.edges() {
            for &(d, _) in &e.moves {
                if ok(d) {
                    edge_defs[d as usize] += 1;
                }
            }
        }
    }
    for latch in 0..n {
        let Term::Jump(back) = &blocks[latch].term else {
            continue;
        };
        let header = back.target as usize;
        // Structured order: a back edge goes to a block at or before its source.
        if header > latch || preds[header].iter().filter(|&&p| p >= header).count() != 1 {
            continue;
        }
        let body = natural_loop(&preds, header, latch);
        // Not inside another loop: a later entry that runs no iteration would otherwise see
        // `p`'s new start instead of the `v` an earlier run of the loop left.
        if reenters(blocks, &body, header) {
            continue;
        }
        let moves = back.moves.clone();
        let mut sunk: Vec<(Reg, Reg)> = Vec::new();
        for (p, x) in moves {
            if !ok(p) || !ok(x) || op_defs[p as usize] != 0 {
                continue;
            }
            // `p` written only by edges into the header.
            let into_header: u32 = preds[header]
                .iter()
                .flat_map(|&b| blocks[b].term.edges())
                .filter(|e| e.target as usize == header)
                .map(|e| e.moves.iter().filter(|&&(d, _)| d == p).count() as u32)
                .sum();
            if into_header != edge_defs[p as usize] {
                continue;
            }
            let ops = &blocks[latch].ops;
            let last_def = ops.iter().rposition(|op| op.defines(x));
            let start = last_def.map_or(0, |i| i + 1);
            let Some(at) = (start..ops.len()).find(
                |&i| matches!(ops[i], Op::Mov { dst, src } if src == x && dst != p && dst != x),
            ) else {
                continue;
            };
            let Op::Mov { dst: v, .. } = ops[at] else {
                continue;
            };
            let vi = v as usize;
            if !ok(v)
                || op_defs[vi] != 1
                || edge_defs[vi] != 0
                || indexed[vi]
                || reads_in_loop(blocks, &body, v)
            {
                continue;
            }
            blocks[latch].ops.remove(at);
            op_defs[vi] = 0;
            sunk.push((v, p));
        }
        if sunk.is_empty() {
            continue;
        }
        for (b, block) in blocks.iter_mut().enumerate() {
            if !body[b] {
                continue;
            }
            crate::opt::for_each_edge(&mut block.term, |e| {
                if !body[e.target as usize] {
                    e.moves.extend(sunk.iter().copied());
                    for &(v, _) in &sunk {
                        edge_defs[v as usize] += 1;
                    }
                }
            });
        }
    }
}

/// Whether `header` can be reached again from the edges that leave `body`.
fn reenters(blocks: &[Block], body: &[bool], header: usize) -> bool {
    let mut seen = vec![false; blocks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        if body[b] {
            stack.extend(
                block
                    .term
                    .edges()
                    .iter()
                    .map(|e| e.target as usize)
                    .filter(|&t| !body[t]),
            );
        }
    }
    while let Some(b) = stack.pop() {
        if b == header {
            return true;
        }
        if b < seen.len() && !seen[b] {
            seen[b] = true;
            stack.extend(blocks[b].term.edges().iter().map(|e| e.target as usize));
        }
    }
    false
}

/// Whether an op, terminator or edge copy of a block of `body` reads `r`.
fn reads_in_loop(blocks: &[Block], body: &[bool], r: Reg) -> bool {
    blocks
        .iter()
        .enumerate()
        .filter(|&(b, _)| body[b])
        .any(|(_, block)| {
            let mut read = false;
            for op in &block.ops {
                op.for_each_reg(&mut |x, role| read |= role == Role::Use && x == r);
                if let Op::LoadVar { var, .. } = op {
                    read |= (var.base..var.base.saturating_add(var.len)).contains(&r);
                }
            }
            read || block.term.condition() == Some(r)
                || block
                    .term
                    .edges()
                    .iter()
                    .any(|e| e.moves.iter().any(|&(_, s)| s == r))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::FBin;
    use crate::ir::Edge;

    fn jump(target: u32, moves: Vec<(Reg, Reg)>) -> Term {
        Term::Jump(Edge { target, moves })
    }

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block {
            ops,
            term,
            order_succ: Vec::new(),
        }
    }

    /// entry → header(p) ⇄ body(x = p + one; v = x) ; header → after(reads v).
    fn loop_with_copy(after_reads: Reg, body_reads_v: bool) -> Vec<Block> {
        let (p, x, v, one, cond, out) = (0, 1, 2, 3, 4, 5);
        let mut body_ops = vec![Op::FBin {
            op: FBin::Add,
            width: 32,
            dst: x,
            lhs: p,
            rhs: one,
        }];
        if body_reads_v {
            body_ops.push(Op::Mov { dst: out, src: v });
        }
        body_ops.push(Op::Mov { dst: v, src: x });
        vec![
            block(Vec::new(), jump(1, vec![(p, one)])),
            block(
                Vec::new(),
                Term::Branch {
                    cond,
                    if_true: Edge {
                        target: 2,
                        moves: Vec::new(),
                    },
                    if_false: Edge {
                        target: 3,
                        moves: Vec::new(),
                    },
                },
            ),
            block(body_ops, jump(1, vec![(p, x)])),
            block(
                vec![Op::Mov {
                    dst: out,
                    src: after_reads,
                }],
                Term::Exit,
            ),
        ]
    }

    #[test]
    fn a_copy_read_only_after_the_loop_moves_to_the_exit() {
        let mut blocks = loop_with_copy(2, false);
        sink_loop_copies(&mut blocks, 6);
        assert_eq!(blocks[2].ops.len(), 1, "the copy left the body");
        let Term::Branch { if_false, .. } = &blocks[1].term else {
            panic!("header changed")
        };
        assert_eq!(if_false.moves, vec![(2, 0)], "v <- p on the exit");
        let Term::Branch { if_true, .. } = &blocks[1].term else {
            unreachable!()
        };
        assert!(
            if_true.moves.is_empty(),
            "nothing on the edge into the body"
        );
    }

    #[test]
    fn a_copy_in_a_loop_entered_again_stays() {
        let mut blocks = loop_with_copy(2, false);
        // The block after the loop jumps back to the entry: an outer loop.
        blocks[3].term = jump(0, Vec::new());
        let before = blocks.clone();
        sink_loop_copies(&mut blocks, 6);
        assert_eq!(blocks, before);
    }

    #[test]
    fn a_copy_the_loop_reads_stays() {
        let mut blocks = loop_with_copy(2, true);
        let before = blocks.clone();
        sink_loop_copies(&mut blocks, 6);
        assert_eq!(blocks, before);
    }
}
