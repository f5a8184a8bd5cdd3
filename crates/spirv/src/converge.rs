//! Meeting points for programs with subgroup operations (`Op::Converge`).
//!
//! A backend may run a lane group in chunks smaller than a subgroup (the JIT's 16 lanes, half a
//! subgroup): a chunk runs ahead of its subgroup's other lanes through the blocks between sync
//! ops (barriers, subgroup operations, atomics, meeting points), and the group's lanes meet at
//! each sync op. The interpreter runs a group in lockstep (always the lowest block any lane
//! waits at), so lanes of one subgroup that diverge and reconverge see each other's memory
//! effects in block order, which the CTS relies on (`subgroups.basic.compute.subgroupelect`: the
//! elected lane zeroes a mask in shared memory, and every lane's later load sees the other
//! lanes' atomics on it).
//!
//! The two orders differ where a write and a read of one memory (a buffer or tensor binding,
//! shared memory, device addresses) lie on a path with no sync op between them ([`conflict`]):
//! chunk 0 runs both before chunk 1 runs either, so a lane of chunk 1 reads what chunk 0 wrote
//! after it (or chunk 0 misses what chunk 1 writes before). [`insert`] puts a meeting point
//! before the later access of each such pair, so that every lane that reaches it has done the
//! earlier one first, in either model. Only programs with subgroup operations get them
//! (cooperative-matrix loads, stores and multiply-adds are subgroup operations too: a matrix
//! one half stores, the other half may load): without, nothing may rely on lanes running
//! together.
//!
//! Two writes are not a pair: two lanes' stores to one address with nothing between them are a
//! data race in the Vulkan memory model, and a meeting point between every two stores would
//! cost a round trip each. Nor are two atomic updates (`Op::AtomicUpdate`: every atomic on their
//! memory is of one commuting operation, so its words end the same in any order); an update and a load or a store are, as it both reads and writes.
//! Aliasing between bindings is not considered. Other atomics are sync ops already.

use crate::ir::{Block, Op, Space};

/// A memory the analysis (and `opt::unobserved_atomics`) tells apart: a buffer binding (any
/// descriptor of it), a tensor binding, shared memory, push constants, device addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Memory {
    Buffer(u32),
    Tensor(u32),
    Shared,
    Push,
    Physical,
}

/// How an access touches its memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// An atomic update (`Op::AtomicUpdate`): a read and a write that commutes with others.
    Update,
}

impl Kind {
    /// Whether lanes that take `self` and `other` on one memory in different orders may see
    /// different values (see the module docs).
    fn conflicts(self, other: Kind) -> bool {
        !matches!(
            (self, other),
            (Kind::Read, Kind::Read) | (Kind::Write, Kind::Write) | (Kind::Update, Kind::Update)
        )
    }
}

/// One access by a non-sync op: where it is and how it touches its memory.
#[derive(Debug, Clone, Copy)]
struct Access {
    block: usize,
    op: usize,
    memory: Memory,
    kind: Kind,
}

pub(crate) fn memory_of(space: &Space) -> Memory {
    match *space {
        Space::Buffer { slot, .. } => Memory::Buffer(slot),
        Space::Shared => Memory::Shared,
        Space::Push => Memory::Push,
        Space::Physical => Memory::Physical,
    }
}

/// The memory `op` reads or writes, and how, if it is a load, a store or an atomic update.
fn access_of(op: &Op) -> Option<(Memory, Kind)> {
    match op {
        Op::Load { space, .. } => Some((memory_of(space), Kind::Read)),
        Op::Store { space, .. } => Some((memory_of(space), Kind::Write)),
        Op::AtomicUpdate { space, .. } => Some((memory_of(space), Kind::Update)),
        Op::TensorRead { tensor, .. } => Some((Memory::Tensor(tensor.slot), Kind::Read)),
        Op::TensorWrite { tensor, .. } => Some((Memory::Tensor(tensor.slot), Kind::Write)),
        Op::CoopMatLoad { src, .. } => Some((memory_of(&src.space), Kind::Read)),
        Op::CoopMatStore { dst, .. } => Some((memory_of(&dst.space), Kind::Write)),
        _ => None,
    }
}

/// The accesses that may conflict: to memories accessed in two conflicting ways.
fn accesses(blocks: &[Block]) -> Vec<Access> {
    let all: Vec<(Memory, Kind)> = blocks
        .iter()
        .flat_map(|b| &b.ops)
        .filter_map(access_of)
        .collect();
    let both = |m: Memory| {
        all.iter()
            .any(|&(a, ka)| a == m && all.iter().any(|&(b, kb)| b == m && ka.conflicts(kb)))
    };
    let mut out = Vec::new();
    for (block, b) in blocks.iter().enumerate() {
        for (op, o) in b.ops.iter().enumerate() {
            if let Some((memory, kind)) = access_of(o)
                && both(memory)
            {
                out.push(Access {
                    block,
                    op,
                    memory,
                    kind,
                });
            }
        }
    }
    out
}

/// The index of the first sync op of `ops` at or after `from` (`ops.len()` if none).
fn next_sync(ops: &[Op], from: usize) -> usize {
    ops.iter()
        .skip(from)
        .position(Op::is_sync)
        .map_or(ops.len(), |k| from + k)
}

/// Per block, the ops a path from just after op `at` of block `start` reaches with no sync op
/// on the way: ops `0..reach[b]` of block `b` (more for `start` itself, see `conflict_from`).
fn reach_from(blocks: &[Block], start: usize, at: usize) -> Vec<usize> {
    let mut reach = vec![0; blocks.len()];
    if next_sync(&blocks[start].ops, at + 1) < blocks[start].ops.len() {
        return reach;
    }
    let mut stack = vec![start];
    let mut entered = vec![false; blocks.len()];
    while let Some(b) = stack.pop() {
        for edge in blocks[b].term.edges() {
            let t = edge.target as usize;
            if t >= blocks.len() || entered[t] {
                continue;
            }
            entered[t] = true;
            let end = next_sync(&blocks[t].ops, 0);
            reach[t] = end;
            if end == blocks[t].ops.len() {
                stack.push(t);
            }
        }
    }
    reach
}

/// The first access that `from` reaches with no sync op between them, on the same memory, one
/// of the two a write and the other a read.
fn conflict_from(blocks: &[Block], list: &[Access], from: &Access) -> Option<Access> {
    let same_block_end = next_sync(&blocks[from.block].ops, from.op + 1);
    let reach = reach_from(blocks, from.block, from.op);
    list.iter()
        .find(|to| {
            to.memory == from.memory
                && from.kind.conflicts(to.kind)
                && ((to.block == from.block && to.op > from.op && to.op < same_block_end)
                    || to.op < reach[to.block])
        })
        .copied()
}

/// Whether two accesses of a program with subgroup operations conflict (module docs): a
/// backend that runs lanes in chunks smaller than a subgroup would show its chunk order.
pub fn conflict(blocks: &[Block]) -> bool {
    if !has_subgroup_ops(blocks) {
        return false;
    }
    let list = accesses(blocks);
    list.iter()
        .any(|from| conflict_from(blocks, &list, from).is_some())
}

fn has_subgroup_ops(blocks: &[Block]) -> bool {
    blocks.iter().flat_map(|b| &b.ops).any(|o| {
        matches!(
            o,
            Op::Subgroup { .. }
                | Op::CoopMatLoad { .. }
                | Op::CoopMatStore { .. }
                | Op::CoopMatMulAdd { .. }
        )
    })
}

/// Puts a meeting point before the later access of every conflicting pair (module docs), until
/// none is left. Each round takes, for every access, the first access in program order that it
/// reaches in conflict, and puts a meeting point before each of those at once, skipping a pair
/// within one block that an earlier chosen point already separates (a later round finds what a
/// round did not separate). An access gets at most one, so this ends; a round costs a reach
/// search per access.
pub(crate) fn insert(blocks: &mut [Block]) {
    if !has_subgroup_ops(blocks) {
        return;
    }
    loop {
        let list = accesses(blocks);
        let mut pairs: Vec<(Access, Access)> = list
            .iter()
            .filter_map(|from| Some((*from, conflict_from(blocks, &list, from)?)))
            .collect();
        if pairs.is_empty() {
            return;
        }
        // Earliest target first; a pair inside one block that an earlier chosen point in that
        // block already separates needs none of its own (interval stabbing).
        pairs.sort_unstable_by_key(|(_, to)| (to.block, to.op));
        let mut targets: Vec<(usize, usize)> = Vec::new();
        for (from, to) in pairs {
            let separated = from.block == to.block
                && from.op < to.op
                && targets
                    .last()
                    .is_some_and(|&(block, op)| block == to.block && op > from.op);
            if !separated && targets.last() != Some(&(to.block, to.op)) {
                targets.push((to.block, to.op));
            }
        }
        // From the end of each block, so that earlier indices stay valid.
        for &(block, op) in targets.iter().rev() {
            blocks[block].ops.insert(op, Op::Converge {});
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Edge, Term};
    use crate::subgroup::SubOp;

    fn load() -> Op {
        Op::Load {
            space: Space::Shared,
            bytes: 4,
            dst: 1,
            addr: Some(0),
            offset: 0,
        }
    }

    fn store() -> Op {
        Op::Store {
            space: Space::Shared,
            bytes: 4,
            value: 1,
            addr: Some(0),
            offset: 4,
        }
    }

    fn elect() -> Op {
        Op::Subgroup {
            op: SubOp::Elect,
            width: 1,
            dst: 2,
            value: 3,
            operand: 3,
        }
    }

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block::new(ops, term)
    }

    fn jump(target: u32) -> Term {
        Term::Jump(Edge {
            target,
            moves: Vec::new(),
        })
    }

    fn converges(blocks: &[Block]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (b, blk) in blocks.iter().enumerate() {
            for (k, op) in blk.ops.iter().enumerate() {
                if matches!(op, Op::Converge {}) {
                    out.push((b, k));
                }
            }
        }
        out
    }

    #[test]
    fn a_meeting_point_goes_between_a_write_and_a_later_read() {
        let mut blocks = vec![
            block(vec![elect(), store()], jump(1)),
            block(vec![load()], Term::Exit),
        ];
        assert!(conflict(&blocks));
        insert(&mut blocks);
        assert_eq!(converges(&blocks), vec![(1, 0)]);
        assert!(!conflict(&blocks));
    }

    #[test]
    fn sync_ops_between_need_none() {
        let barrier = vec![
            block(vec![elect(), store(), Op::Barrier {}, load()], Term::Exit),
            block(vec![], Term::Exit),
        ];
        assert!(!conflict(&barrier));
        let subgroup = vec![block(vec![store(), elect(), load()], Term::Exit)];
        assert!(!conflict(&subgroup));
        // No subgroup operation: nothing relies on lanes running together.
        let plain = vec![block(vec![store(), load()], Term::Exit)];
        assert!(!conflict(&plain));
        // Stores only.
        let writes = vec![block(vec![elect(), store(), store()], Term::Exit)];
        assert!(!conflict(&writes));
    }

    fn update() -> Op {
        Op::AtomicUpdate {
            op: crate::mem::AtomicOp::Add,
            space: Space::Shared,
            bytes: 4,
            addr: Some(0),
            offset: 8,
            value: 1,
        }
    }

    #[test]
    fn an_atomic_update_pairs_with_loads_and_stores_but_not_with_updates() {
        let updates = vec![block(vec![elect(), update(), update()], Term::Exit)];
        assert!(!conflict(&updates));
        for ops in [
            vec![elect(), update(), load()],
            vec![elect(), load(), update()],
            vec![elect(), store(), update()],
            vec![elect(), update(), store()],
        ] {
            let mut blocks = vec![block(ops, Term::Exit)];
            assert!(conflict(&blocks));
            insert(&mut blocks);
            assert_eq!(converges(&blocks), vec![(0, 2)]);
        }
    }

    #[test]
    fn one_round_separates_a_long_block() {
        // Writes and reads alternating: each access but the first gets a meeting point, and
        // a write followed by two reads gets one only before the first read.
        let mut ops = vec![elect()];
        for k in 0..200 {
            ops.push(if k % 2 == 0 { store() } else { load() });
        }
        let mut blocks = vec![block(ops, Term::Exit)];
        insert(&mut blocks);
        assert_eq!(converges(&blocks).len(), 199);
        assert!(!conflict(&blocks));
        let mut blocks = vec![block(vec![elect(), store(), load(), load()], Term::Exit)];
        insert(&mut blocks);
        assert_eq!(converges(&blocks), vec![(0, 2)]);
        // Two memories interleaved: the point before the first read separates the other pair.
        let in_space = |op: Op, to: Space| match op {
            Op::Load {
                bytes,
                dst,
                addr,
                offset,
                ..
            } => Op::Load {
                space: to,
                bytes,
                dst,
                addr,
                offset,
            },
            Op::Store {
                bytes,
                value,
                addr,
                offset,
                ..
            } => Op::Store {
                space: to,
                bytes,
                value,
                addr,
                offset,
            },
            other => other,
        };
        let ops = vec![
            elect(),
            store(),
            in_space(store(), Space::Physical),
            load(),
            in_space(load(), Space::Physical),
        ];
        let mut blocks = vec![block(ops, Term::Exit)];
        insert(&mut blocks);
        assert_eq!(converges(&blocks), vec![(0, 3)]);
        assert!(!conflict(&blocks));
    }

    #[test]
    fn a_loop_gets_one_before_each_access_it_brings_around() {
        // block1: load, store, then back to block1 or on to block2.
        let mut blocks = vec![
            block(vec![elect()], jump(1)),
            block(
                vec![load(), store()],
                Term::Branch {
                    cond: 2,
                    if_true: Edge {
                        target: 1,
                        moves: Vec::new(),
                    },
                    if_false: Edge {
                        target: 2,
                        moves: Vec::new(),
                    },
                },
            ),
            block(vec![], Term::Exit),
        ];
        insert(&mut blocks);
        // Before the store (after the load) and before the load (after the last store).
        assert_eq!(converges(&blocks), vec![(1, 0), (1, 2)]);
        assert!(!conflict(&blocks));
    }
}
