//! Switches as chains of two-way branches, so that a backend that runs lanes in chunks can run
//! a switch whose lanes pick different cases the way it runs a divergent `if`/`else if` chain
//! (the JIT runs those under masks; a `Switch` terminator it can only take when every lane of a
//! chunk agrees).
//!
//! A block ending in `switch %s default D, v₀ => T₀, …` ends instead in a jump to the first of
//! its new *test blocks*, one per case target: test block `i` computes `%s == v` for each of
//! target `i`'s values (or-ed together) and branches to target `i` or to the next test, the last
//! one to `D`. Cases whose edge is the default's are dropped (they go there anyway); of two
//! cases with the same value the first counts, as `Term::Switch` defines.
//!
//! Invariants: the test blocks are numbered right after their switch block (later blocks move
//! up), so every lane still runs blocks in the structured order `ir::sched` relies on and no
//! test block lies between a sync block and its successor; each edge keeps its copies, taken
//! where it leaves the last test block (the tests only write their own fresh registers, so the
//! copies read what they read at the switch); the tests are pure, lane-wise ops.

use crate::alu::{IBin, ICmp};
use crate::ir::{Block, Edge, Op, Reg, RegType, Term};

/// One case target: its edge and the selector values that take it, in case order.
struct Target {
    edge: Edge,
    values: Vec<u64>,
}

/// Rewrites every `Switch` of `blocks` as a chain of test blocks (see the module docs), adding
/// the registers the tests write to `reg_types` and the case values as constants to `consts`.
pub(crate) fn switch_chains(
    blocks: Vec<Block>,
    reg_types: &mut Vec<RegType>,
    consts: &mut Vec<(Reg, u64)>,
) -> Vec<Block> {
    if !blocks.iter().any(|b| matches!(b.term, Term::Switch { .. })) {
        return blocks;
    }
    let targets: Vec<Vec<Target>> = blocks.iter().map(|b| case_targets(&b.term)).collect();
    // New number of each old block: it is followed by its test blocks.
    let mut first = Vec::with_capacity(blocks.len());
    let mut at = 0u32;
    for (b, t) in blocks.iter().zip(&targets) {
        first.push(at);
        let tests = match b.term {
            Term::Switch { .. } if !t.is_empty() => t.len() as u32,
            _ => 0,
        };
        at += 1 + tests;
    }
    let remap = |t: u32| first.get(t as usize).copied().unwrap_or(t);
    let remap_edge = |e: &Edge| Edge {
        target: remap(e.target),
        moves: e.moves.clone(),
    };
    let mut out = Vec::with_capacity(at as usize);
    for (block, targets) in blocks.into_iter().zip(targets) {
        let Term::Switch {
            selector, edges, ..
        } = &block.term
        else {
            let mut term = block.term.clone();
            crate::opt::for_each_edge(&mut term, |e| e.target = remap(e.target));
            out.push(Block {
                ops: block.ops,
                term,
                order_succ: block.order_succ.iter().map(|&t| remap(t)).collect(),
            });
            continue;
        };
        let default = remap_edge(&edges[0]);
        let selector = *selector;
        let here = out.len() as u32;
        let term = if targets.is_empty() {
            Term::Jump(default.clone())
        } else {
            Term::Jump(Edge {
                target: here + 1,
                moves: Vec::new(),
            })
        };
        out.push(Block {
            ops: block.ops,
            term,
            order_succ: block.order_succ.iter().map(|&t| remap(t)).collect(),
        });
        let RegType::Int(width) = reg_types[selector as usize] else {
            // Typing makes every selector an integer; a malformed one keeps its default.
            continue;
        };
        let count = targets.len() as u32;
        for (i, target) in targets.into_iter().enumerate() {
            let mut fresh = |ty: RegType| {
                reg_types.push(ty);
                (reg_types.len() - 1) as Reg
            };
            let mut ops = Vec::new();
            let mut cond: Option<Reg> = None;
            for value in target.values {
                let constant = fresh(RegType::Int(width));
                consts.push((constant, value));
                let equal = fresh(RegType::Bool);
                ops.push(Op::ICmp {
                    op: ICmp::Eq,
                    width,
                    dst: equal,
                    lhs: selector,
                    rhs: constant,
                });
                cond = Some(match cond {
                    None => equal,
                    Some(prev) => {
                        let either = fresh(RegType::Bool);
                        ops.push(Op::IBin {
                            op: IBin::Or,
                            width: 1,
                            dst: either,
                            lhs: prev,
                            rhs: equal,
                        });
                        either
                    }
                });
            }
            let Some(cond) = cond else { continue };
            let next = if i as u32 + 1 < count {
                Edge {
                    target: here + 2 + i as u32,
                    moves: Vec::new(),
                }
            } else {
                default.clone()
            };
            out.push(Block {
                ops,
                term: Term::Branch {
                    cond,
                    if_true: remap_edge(&target.edge),
                    if_false: next,
                },
                order_succ: Vec::new(),
            });
        }
    }
    out
}

/// The case targets of a `Switch` terminator in case order (empty for any other terminator):
/// cases that share an edge (same target, same copies) are one target; cases whose edge is the
/// default's and values an earlier case already took are left out.
fn case_targets(term: &Term) -> Vec<Target> {
    let Term::Switch { cases, edges, .. } = term else {
        return Vec::new();
    };
    let mut targets: Vec<Target> = Vec::new();
    let mut taken = std::collections::HashSet::new();
    for &(value, e) in cases {
        if !taken.insert(value) {
            continue;
        }
        let Some(edge) = edges.get(e) else { continue };
        if *edge == edges[0] {
            continue;
        }
        match targets.iter_mut().find(|t| t.edge == *edge) {
            Some(t) => t.values.push(value),
            None => targets.push(Target {
                edge: edge.clone(),
                values: vec![value],
            }),
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jump(target: u32) -> Term {
        Term::Jump(Edge {
            target,
            moves: Vec::new(),
        })
    }

    fn block(term: Term) -> Block {
        Block {
            ops: Vec::new(),
            term,
            order_succ: Vec::new(),
        }
    }

    fn edge(target: u32, moves: Vec<(Reg, Reg)>) -> Edge {
        Edge { target, moves }
    }

    #[test]
    fn a_switch_becomes_one_test_block_per_target() {
        // block0: switch %0 default block3, 1 => block1, 2 => block2 (copy %1 <- %2), 3 => block1
        let blocks = vec![
            block(Term::Switch {
                selector: 0,
                cases: vec![(1, 1), (2, 2), (3, 3), (2, 1)],
                edges: vec![
                    edge(3, vec![]),
                    edge(1, vec![]),
                    edge(2, vec![(1, 2)]),
                    edge(1, vec![]),
                ],
            }),
            block(jump(3)),
            block(jump(3)),
            block(Term::Exit),
        ];
        let mut reg_types = vec![RegType::Int(32), RegType::Int(32), RegType::Int(32)];
        let mut consts = Vec::new();
        let out = switch_chains(blocks, &mut reg_types, &mut consts);
        // block0, its tests (block1: 1 or 3, block2: 2), then the old blocks 1, 2, 3.
        assert_eq!(out.len(), 6);
        assert_eq!(out[0].term, jump(1));
        assert_eq!(
            consts.iter().map(|c| c.1).collect::<Vec<_>>(),
            vec![1, 3, 2]
        );
        let Term::Branch {
            cond,
            if_true,
            if_false,
        } = &out[1].term
        else {
            panic!("test block 1 branches: {:?}", out[1].term);
        };
        assert_eq!(out[1].ops.len(), 3, "two compares and an or");
        assert!(matches!(out[1].ops[2], Op::IBin { op: IBin::Or, dst, .. } if dst == *cond));
        assert_eq!(*if_true, edge(3, vec![]));
        assert_eq!(*if_false, edge(2, vec![]));
        let Term::Branch {
            if_true, if_false, ..
        } = &out[2].term
        else {
            panic!("test block 2 branches: {:?}", out[2].term);
        };
        assert_eq!(*if_true, edge(4, vec![(1, 2)]), "the case keeps its copies");
        assert_eq!(
            *if_false,
            edge(5, vec![]),
            "the last test falls to the default"
        );
        assert_eq!(out[3].term, jump(5));
        assert_eq!(out[4].term, jump(5));
        assert_eq!(reg_types.len(), 3 + 2 * 3 + 1);
    }

    #[test]
    fn cases_of_the_default_edge_and_repeated_values_are_dropped() {
        let blocks = vec![
            block(Term::Switch {
                selector: 0,
                cases: vec![(5, 1), (5, 2)],
                edges: vec![edge(1, vec![]), edge(1, vec![]), edge(2, vec![])],
            }),
            block(Term::Exit),
            block(Term::Exit),
        ];
        let mut reg_types = vec![RegType::Int(8)];
        let mut consts = Vec::new();
        let out = switch_chains(blocks, &mut reg_types, &mut consts);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].term, jump(1));
        assert!(consts.is_empty());
    }
}
