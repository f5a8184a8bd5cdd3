//! What a backend that runs a lane group in pieces must respect to schedule divergent lanes as
//! the interpreter does.
//!
//! The interpreter runs a lane group by always running the lowest block any lane waits at, for
//! every lane at it. Lanes interact only at sync blocks (subgroup operations, barriers), so the
//! observable result is which lanes run each sync block together. A backend that runs a piece
//! of the group (a chunk of lanes) ahead of the others, stopping at sync blocks, reproduces
//! that as long as its lanes only move to higher blocks, or take a back edge that cannot lead
//! them to a sync block before they climb back above it. A back edge that can (a *guarded*
//! latch) may only be taken while the latch is below every lane of the piece's subgroups
//! outside the piece, which is when the interpreter would take it; otherwise the piece must
//! wait at the latch, and the lowest block of the group runs for all its lanes.
//!
//! Example: lanes of one subgroup in a loop around a subgroup operation at block 11, with
//! per-lane trip counts. Lanes that finished the loop body (at the latch, block 14) must not
//! go around again and reach block 11 before the lanes still at block 11 have run it.

use super::Ir;

/// For every block: whether it ends in a guarded back edge (see the module docs): an edge to a
/// block `t ≤ b` from which a subgroup operation below `b` is reachable through blocks below
/// `b`.
/// Sync blocks themselves are never guarded (they always run for the whole group).
pub fn guarded_latches(ir: &Ir) -> Vec<bool> {
    let n = ir.blocks.len();
    let sync: Vec<bool> = ir
        .blocks
        .iter()
        .map(|b| b.ops.first().is_some_and(|o| o.is_sync()))
        .collect();
    // Only subgroup operations make which lanes run together observable: a barrier is reached
    // in workgroup-uniform control flow (anything else is undefined), so every lane of a chunk
    // meets it on the same iteration, and the order of atomics between invocations is
    // unspecified. Guarding loops around barriers would cost a driver round per iteration.
    let meet: Vec<bool> = ir
        .blocks
        .iter()
        .map(|b| {
            b.ops
                .first()
                .is_some_and(|o| matches!(o, super::Op::Subgroup { .. }))
        })
        .collect();
    if !meet.iter().any(|&s| s) {
        return vec![false; n];
    }
    (0..n)
        .map(|b| {
            !sync[b]
                && ir.blocks[b].term.edges().iter().any(|e| {
                    let t = e.target as usize;
                    t <= b && reaches_sync_below(ir, &meet, t, b)
                })
        })
        .collect()
}

/// Whether a sync block is reachable from `from` through blocks below `limit` only.
fn reaches_sync_below(ir: &Ir, sync: &[bool], from: usize, limit: usize) -> bool {
    let mut seen = vec![false; limit];
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        if x >= limit || seen[x] {
            continue;
        }
        seen[x] = true;
        if sync[x] {
            return true;
        }
        for e in ir.blocks[x].term.edges() {
            stack.push(e.target as usize);
        }
    }
    false
}
