//! Immediate post-dominators of an IR's blocks: for a block, the first block that every path
//! from it to an exit passes through (where the paths of a branch meet again: the merge block
//! of structured control flow).
//!
//! Computed as dominators of the reversed control-flow graph rooted at a virtual exit that every
//! `Exit` block leads to (Cooper, Harvey and Kennedy's iterative algorithm).

use super::{Ir, Term};

/// Per block, its immediate post-dominator: `None` when only the virtual exit post-dominates
/// it (paths from it leave through different `Exit` blocks, or it is one) or when it reaches no
/// exit at all (an endless loop).
pub fn post_dominators(ir: &Ir) -> Vec<Option<u32>> {
    let succs: Vec<Vec<usize>> = ir
        .blocks
        .iter()
        .map(|b| match &b.term {
            Term::Exit => vec![EXIT],
            t => t.edges().iter().map(|e| e.target as usize).collect(),
        })
        .collect();
    post_dominators_of(&succs)
        .into_iter()
        .map(|d| d.map(|d| d as u32))
        .collect()
}

/// The virtual exit in [`post_dominators_of`]'s successor lists.
pub const EXIT: usize = usize::MAX;

/// Immediate post-dominators of the graph whose node `i` leads to `succs[i]` ([`EXIT`]: the
/// virtual exit), as [`post_dominators`] gives them for blocks.
pub fn post_dominators_of(succs: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succs.len();
    let exit = n;
    // Predecessors in the reversed graph: a node's successors (the virtual exit as `n`).
    let preds: Vec<Vec<usize>> = succs
        .iter()
        .map(|ss| {
            ss.iter()
                .map(|&s| if s == EXIT { exit } else { s })
                .collect()
        })
        .collect();
    // Successors in the reversed graph: a node's predecessors.
    let mut rsuccs: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (b, ps) in preds.iter().enumerate() {
        for &p in ps {
            if p <= n {
                rsuccs[p].push(b);
            }
        }
    }
    // Postorder of the reversed graph from the virtual exit (iterative depth-first search).
    let mut order = vec![usize::MAX; n + 1];
    let mut postorder = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some((node, next)) = stack.pop() {
        if let Some(&s) = rsuccs[node].get(next) {
            stack.push((node, next + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order[node] = postorder.len();
            postorder.push(node);
        }
    }
    let mut idom = vec![usize::MAX; n + 1];
    idom[exit] = exit;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a];
            }
            while order[b] < order[a] {
                b = idom[b];
            }
        }
        a
    };
    loop {
        let mut changed = false;
        for &b in postorder.iter().rev() {
            if b == exit {
                continue;
            }
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom.get(p).is_some_and(|&d| d != usize::MAX) {
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, p, new)
                    };
                }
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    idom[..n].iter().map(|&d| (d < n).then_some(d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, Builtins, Edge};

    fn edge(target: u32) -> Edge {
        Edge {
            target,
            moves: Vec::new(),
        }
    }

    fn ir(terms: Vec<Term>) -> Ir {
        Ir {
            blocks: terms
                .into_iter()
                .map(|term| Block {
                    ops: Vec::new(),
                    term,
                    order_succ: Vec::new(),
                })
                .collect(),
            reg_types: vec![crate::ir::RegType::Bool],
            consts: Vec::new(),
            builtins: Builtins::default(),
            shared_size: 0,
            needs_whole_group: false,
            shapes: Vec::new(),
        }
    }

    fn branch(t: u32, f: u32) -> Term {
        Term::Branch {
            cond: 0,
            if_true: edge(t),
            if_false: edge(f),
        }
    }

    #[test]
    fn diamonds_loops_and_early_exits() {
        // 0: if → 1 / 2; 1 → 3; 2: if → 3 / 4 (exit); 3: loop head → 5 / 6; 5 → 3; 6 → exit.
        let g = ir(vec![
            branch(1, 2),
            Term::Jump(edge(3)),
            branch(3, 4),
            branch(5, 6),
            Term::Exit,
            Term::Jump(edge(3)),
            Term::Exit,
        ]);
        let pd = post_dominators(&g);
        // Block 2 may exit at 4: only the virtual exit post-dominates 0 and 2.
        assert_eq!(pd[0], None);
        assert_eq!(pd[1], Some(3));
        assert_eq!(pd[2], None);
        assert_eq!(pd[3], Some(6));
        assert_eq!(pd[4], None);
        assert_eq!(pd[5], Some(3));
        assert_eq!(pd[6], None);
        // A diamond: 0 → 1 / 2 → 3.
        let d = ir(vec![
            branch(1, 2),
            Term::Jump(edge(3)),
            Term::Jump(edge(3)),
            Term::Exit,
        ]);
        assert_eq!(post_dominators(&d), vec![Some(3), Some(3), Some(3), None]);
        // An endless loop reaches no exit.
        let l = ir(vec![Term::Jump(edge(1)), Term::Jump(edge(1))]);
        assert_eq!(post_dominators(&l), vec![None, None]);
    }
}
