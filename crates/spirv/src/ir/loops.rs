//! Loops of an IR's control-flow graph: predecessor lists and the blocks of a natural loop.
//! Blocks are in structured order, so an edge to a block at or before its source is a back
//! edge (its target a loop header).

use super::Block;

/// Per block, whether some edge goes back to it: from itself or a later block (blocks are in
/// structured order, so these are the loop headers).
pub fn back_edge_targets(blocks: &[Block]) -> Vec<bool> {
    let mut headers = vec![false; blocks.len()];
    for (b, block) in blocks.iter().enumerate() {
        for e in block.term.edges() {
            let t = e.target as usize;
            if t <= b
                && let Some(h) = headers.get_mut(t)
            {
                *h = true;
            }
        }
    }
    headers
}

/// Per block, the blocks with an edge to it (once per edge).
pub fn predecessors(blocks: &[Block]) -> Vec<Vec<usize>> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for (b, block) in blocks.iter().enumerate() {
        for e in block.term.edges() {
            if let Some(p) = preds.get_mut(e.target as usize) {
                p.push(b);
            }
        }
    }
    preds
}

/// Per block, whether it is in the natural loop of `header` whose latch is `latch`: the
/// header and every block that reaches the latch without passing it (`preds`: per block, its
/// predecessors, as [`predecessors`] gives them).
pub fn natural_loop(preds: &[Vec<usize>], header: usize, latch: usize) -> Vec<bool> {
    let mut body = vec![false; preds.len()];
    body[header] = true;
    let mut stack = vec![latch];
    while let Some(b) = stack.pop() {
        if !body[b] {
            body[b] = true;
            stack.extend(preds[b].iter().copied());
        }
    }
    body
}
