//! Loop accumulators in buffer memory, kept in registers: a loop that loads and stores one
//! buffer word at an address it does not change (`out[i] += a[k] * b[k]` into the output
//! buffer, as IREE's convolutions and other in-place reductions do) reads the word once before
//! the loop into a new register, works on the register, and stores it once where the loop ends.
//! Compiled code then keeps the word in a register across the loop instead of storing it and
//! reading it back every iteration.
//!
//! A word (binding, constant descriptor index, address, offset, width) is promoted out of loop
//! `L` when:
//! - its address is one value wherever `L` uses it: registers assigned once, by the same
//!   lane-wise ops that read no memory, of the same operands (lowering computes an access chain
//!   again at each access, inside the loop too), as the register the store before the loop
//!   uses ([`Values::same`]);
//! - no variable or member of the module is decorated `Aliased`, `Coherent` or `Volatile` (the
//!   caller checks those, and that nothing in the program reaches memory through a device
//!   address);
//! - every other op of `L` that touches memory is a load or store of another binding, of shared
//!   memory or of push constants, a tensor read or a local variable's access (SPIR-V lets a
//!   compiler assume that memory object declarations not decorated `Aliased` do not alias),
//!   and every other op of `L` is lane-wise and reads no memory (no atomic, barrier, subgroup
//!   or cooperative op);
//! - the invocation stored to the word before the loop, in the straight-line blocks that lead
//!   to it, with no barrier, atomic or subgroup op after that store: the store on exit, made even
//!   when the loop stored nothing, writes the word the invocation already wrote, so it races
//!   with no access the program did not already race with;
//! - what the loads of the word read flows, through lane-wise ops of `L` only and no local
//!   variable's register, into stores of the word and nowhere else: where the address lies
//!   outside its binding (loads read 0, stores drop), the register's other values are then
//!   never seen either;
//! - its loads and stores move the word's whole width (their registers are as wide);
//! - `L` is entered by one jump to its header, and the blocks from the header up to the header's
//!   immediate post-dominator (the loop, and its `break`s' paths up to where they meet) are
//!   entered from nowhere else, leave only to the post-dominator, and nothing else jumps to it:
//!   the word is loaded at the end of the entry block and stored at the post-dominator's start.
//!
//! Invariants: the pass changes no edge, so block numbers and the control-flow graph stay as
//! they were; each promoted word gets a register of its own, defined by the load added at the
//! end of the loop's entry block, whose address register is the store's before the loop
//! (assigned once, before the loop).

use std::collections::HashSet;

use crate::ir::loops::{back_edge_targets, predecessors};
use crate::ir::postdom::{EXIT, post_dominators_of};
use crate::ir::{Block, DescIdx, Op, Reg, RegType, Role, Space, Term};

/// How deep [`Values::same`] compares the ops that compute two addresses.
const SAME_DEPTH: u32 = 8;

/// What the pass knows of the program's registers: how many times each is assigned, by which
/// op and where, when once; which are local variables'; and the blocks' dominators.
struct Values {
    defs: Vec<u32>,
    def_op: Vec<Option<Op>>,
    def_at: Vec<Option<(usize, usize)>>,
    var: Vec<bool>,
    idom: Vec<Option<usize>>,
}

/// Where an op is: (block, index in the block).
type At = (usize, usize);

impl Values {
    fn new(blocks: &[Block], consts: &[(Reg, u64)], vars: &[(Reg, u32)], n: usize) -> Self {
        let mut defs = vec![0u32; n];
        let mut def_op = vec![None; n];
        let mut def_at = vec![None; n];
        let mut var = vec![false; n];
        for &(base, len) in vars {
            for r in base..base.saturating_add(len) {
                if let Some(v) = var.get_mut(r as usize) {
                    *v = true;
                }
            }
        }
        for &(r, _) in consts {
            if let Some(d) = defs.get_mut(r as usize) {
                *d += 1;
            }
        }
        for (b, block) in blocks.iter().enumerate() {
            for (k, op) in block.ops.iter().enumerate() {
                op.for_each_def(|r| {
                    if let Some(d) = defs.get_mut(r as usize) {
                        *d += 1;
                        def_op[r as usize] = Some(op.clone());
                        def_at[r as usize] = Some((b, k));
                    }
                });
            }
            for e in block.term.edges() {
                for &(d, _) in &e.moves {
                    if let Some(c) = defs.get_mut(d as usize) {
                        *c += 2; // An edge copy: never one op's value.
                    }
                }
            }
        }
        Values {
            defs,
            def_op,
            def_at,
            var,
            idom: dominators(blocks),
        }
    }

    /// Whether block `a` dominates block `b`.
    fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom.get(b).copied().flatten() {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// Whether register `r` holds one value wherever it is read from `at` on: it is assigned
    /// at most once (constants, built-ins and the registers one op assigns). Lowering assigns
    /// each SPIR-V result's register where SPIR-V defines it, which dominates its every use; a
    /// local variable's register may be read before its store, so its one assignment must
    /// come before `at` on every path.
    fn once(&self, r: Reg, at: At) -> bool {
        let single = self.defs.get(r as usize).is_some_and(|&d| d <= 1);
        let var = self.var.get(r as usize).copied().unwrap_or(true);
        let before_at = |(db, dk): At| {
            if db == at.0 {
                dk < at.1
            } else {
                self.dominates(db, at.0)
            }
        };
        let assigned_before = self
            .def_at
            .get(r as usize)
            .copied()
            .flatten()
            .is_some_and(before_at);
        single && (!var || assigned_before)
    }

    /// Whether registers `a` and `b` hold the same value wherever both are read: the same
    /// register assigned once, or two assigned once by equal lane-wise ops that read no memory
    /// ([`lanewise_value`]), whose operands are
    /// the same in turn (up to `depth` ops deep); from `at` on (see [`Values::once`]).
    fn same(&self, a: Reg, b: Reg, depth: u32, at: At) -> bool {
        if a == b {
            return self.once(a, at);
        }
        if depth == 0 || !self.once(a, at) || !self.once(b, at) {
            return false;
        }
        let (Some(Some(x)), Some(Some(y))) =
            (self.def_op.get(a as usize), self.def_op.get(b as usize))
        else {
            return false;
        };
        let mut results = 0;
        x.for_each_def(|_| results += 1);
        if !lanewise_value(x) || results != 1 {
            return false;
        }
        let uses = |op: &Op| {
            let mut v = Vec::new();
            op.for_each_reg(&mut |r, role| {
                if role == Role::Use {
                    v.push(r);
                }
            });
            v
        };
        // The same op with its registers blanked out: the same kind and data.
        let blank = |op: &Op| {
            let mut o = op.clone();
            o.visit_regs(&mut |r, _| *r = 0);
            o
        };
        let (ux, uy) = (uses(x), uses(y));
        blank(x) == blank(y)
            && ux.len() == uy.len()
            && ux
                .iter()
                .zip(&uy)
                .all(|(&p, &q)| self.same(p, q, depth - 1, at))
    }

    /// Whether the addresses `a` and `b` (or their absence) are one value from `at` on.
    fn same_addr(&self, a: Option<Reg>, b: Option<Reg>, at: At) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => self.same(a, b, SAME_DEPTH, at),
            _ => false,
        }
    }
}

/// Per block, its immediate dominator (block 0's is itself; `None`: unreachable). Blocks are
/// in structured order, so a block's dominators come before it (Cooper, Harvey and Kennedy's
/// iterative algorithm, with block numbers as the order).
fn dominators(blocks: &[Block]) -> Vec<Option<usize>> {
    let preds = predecessors(blocks);
    let mut idom: Vec<Option<usize>> = vec![None; blocks.len()];
    if let Some(first) = idom.first_mut() {
        *first = Some(0);
    }
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                match idom[a] {
                    Some(d) if d < a => a = d,
                    _ => return 0,
                }
            }
            while b > a {
                match idom[b] {
                    Some(d) if d < b => b = d,
                    _ => return 0,
                }
            }
        }
        a
    };
    loop {
        let mut changed = false;
        for b in 1..blocks.len() {
            let mut new = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(new.map_or(p, |q| intersect(&idom, p, q)));
                }
            }
            if new.is_some() && new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
        if !changed {
            return idom;
        }
    }
}

/// A buffer word a loop may keep in a register; `addr` is the register the store before the
/// loop uses, `at` where that store is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    slot: u32,
    desc: u32,
    addr: Option<Reg>,
    offset: u64,
    bytes: u8,
    at: At,
}

/// A load's or store's space, width, address and offset, and whether it stores.
fn access(op: &Op) -> Option<(Space, u8, Option<Reg>, u64, bool)> {
    match *op {
        Op::Load {
            space,
            bytes,
            addr,
            offset,
            ..
        } => Some((space, bytes, addr, offset, false)),
        Op::Store {
            space,
            bytes,
            addr,
            offset,
            ..
        } => Some((space, bytes, addr, offset, true)),
        _ => None,
    }
}

impl Word {
    fn space(&self) -> Space {
        Space::Buffer {
            slot: self.slot,
            desc: DescIdx::Const(self.desc),
        }
    }

    /// Whether `op` loads (`Some(false)`) or stores (`Some(true)`) this word.
    fn accessed_by(&self, op: &Op, values: &Values) -> Option<bool> {
        let (space, bytes, addr, offset, store) = access(op)?;
        (space == self.space()
            && bytes == self.bytes
            && offset == self.offset
            && values.same_addr(addr, self.addr, self.at))
        .then_some(store)
    }
}

/// The buffer slot a load or store `op` touches.
fn slot_of(op: &Op) -> Option<u32> {
    match access(op)? {
        (Space::Buffer { slot, .. }, ..) => Some(slot),
        _ => None,
    }
}

/// Whether `op` may sit in a loop whose words are promoted: a load or store of a binding,
/// shared memory or push constants (no device address), a local variable's access, a tensor
/// read or size query, a buffer's length, or a lane-wise pure op that reads no memory (no
/// sync, subgroup or cooperative op).
fn allowed(op: &Op) -> bool {
    match op {
        Op::Load { space, .. } => *space != Space::Physical,
        Op::Store { space, .. } => matches!(
            space,
            Space::Shared
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                }
        ),
        Op::StoreVar { .. }
        | Op::LoadVar { .. }
        | Op::TensorRead { .. }
        | Op::TensorQuery { .. }
        | Op::ArrayLength { .. } => true,
        _ => lanewise_value(op),
    }
}

/// Whether `op` computes each lane's results from that lane's operands alone: pure, lane-wise,
/// no sync op and no memory read (a cooperative-vector product reads its matrix).
fn lanewise_value(op: &Op) -> bool {
    op.is_pure() && op.is_lanewise() && !op.is_sync() && !matches!(op, Op::CoopMatVec { .. })
}

/// Promotes the loop accumulators of `blocks` (see the module docs; `consts`: the registers
/// set before the first block; `vars`: the local variables' register ranges). New registers are
/// added to `reg_types`. Returns whether it promoted any (the address computations the loops
/// no longer use are then dead).
pub(crate) fn loop_accumulators(
    blocks: &mut [Block],
    reg_types: &mut Vec<RegType>,
    consts: &[(Reg, u64)],
    vars: &[(Reg, u32)],
) -> bool {
    let preds = predecessors(blocks);
    let succs: Vec<Vec<usize>> = blocks
        .iter()
        .map(|b| match &b.term {
            Term::Exit => vec![EXIT],
            t => t.edges().iter().map(|e| e.target as usize).collect(),
        })
        .collect();
    let post = post_dominators_of(&succs);
    // Outer loops first (their headers come first): a word promoted out of one is gone from
    // the loops inside it.
    let headers = back_edge_targets(blocks);
    let mut any = false;
    // Rebuilt only after a promotion, which adds ops and registers.
    let mut values = Values::new(blocks, consts, vars, reg_types.len());
    for header in (0..blocks.len()).filter(|&h| headers[h]) {
        let Some(exit) = post[header] else { continue };
        if promote_in(blocks, reg_types, &values, &preds, header, exit) {
            any = true;
            values = Values::new(blocks, consts, vars, reg_types.len());
        }
    }
    any
}

/// The blocks from `header` up to `exit` (exclusive), per block: the loop, and the paths out
/// of it (a `break`'s) up to where they meet.
fn region(blocks: &[Block], header: usize, exit: usize) -> Vec<bool> {
    let mut inside = vec![false; blocks.len()];
    let mut stack = vec![header];
    while let Some(b) = stack.pop() {
        if b == exit || std::mem::replace(&mut inside[b], true) {
            continue;
        }
        stack.extend(blocks[b].term.edges().iter().map(|e| e.target as usize));
    }
    inside
}

/// Promotes the words of the loop of `header` out of the blocks from it up to `exit`, its
/// immediate post-dominator.
fn promote_in(
    blocks: &mut [Block],
    reg_types: &mut Vec<RegType>,
    values: &Values,
    preds: &[Vec<usize>],
    header: usize,
    exit: usize,
) -> bool {
    let body = region(blocks, header, exit);
    let body = &body[..];
    let outside: Vec<usize> = preds[header]
        .iter()
        .copied()
        .filter(|&p| !body[p])
        .collect();
    let [entry] = outside[..] else { return false };
    if !matches!(&blocks[entry].term, Term::Jump(e) if e.target as usize == header) {
        return false;
    }
    // Entered only at the header, left only to `exit`, which nothing else jumps to.
    let entered_once = (0..blocks.len())
        .filter(|&b| body[b] && b != header)
        .all(|b| preds[b].iter().all(|&p| body[p]));
    if !entered_once || !preds[exit].iter().all(|&p| body[p]) {
        return false;
    }
    let inside: Vec<usize> = (0..blocks.len()).filter(|&b| body[b]).collect();
    let mut stores = Vec::new();
    for &b in &inside {
        let block = &blocks[b];
        if !matches!(block.term, Term::Jump(_) | Term::Branch { .. }) {
            return false;
        }
        for op in &block.ops {
            if !allowed(op) {
                return false;
            }
            if let Some((
                Space::Buffer {
                    slot,
                    desc: DescIdx::Const(desc),
                },
                bytes,
                addr,
                offset,
                true,
            )) = access(op)
            {
                stores.push((slot, desc, addr, offset, bytes));
            }
        }
    }
    let mut promoted = Vec::new();
    for (slot, desc, addr, offset, bytes) in stores {
        let Some((addr, at)) = stored_before(
            blocks, preds, values, entry, slot, desc, addr, offset, bytes,
        ) else {
            continue;
        };
        let word = Word {
            slot,
            desc,
            addr,
            offset,
            bytes,
            at,
        };
        if promoted.contains(&word)
            || !only_access(blocks, &inside, values, word)
            || !widths_match(blocks, &inside, reg_types, values, word)
            || !flows_only_into_stores(blocks, body, &inside, values, word)
        {
            continue;
        }
        promoted.push(word);
    }
    for &word in &promoted {
        let acc = reg_types.len() as Reg;
        reg_types.push(RegType::Int(word.bytes * 8));
        blocks[entry].ops.push(Op::Load {
            space: word.space(),
            bytes: word.bytes,
            dst: acc,
            addr: word.addr,
            offset: word.offset,
        });
        for &b in &inside {
            for op in &mut blocks[b].ops {
                *op = match (word.accessed_by(op, values), &*op) {
                    (Some(false), Op::Load { dst, .. }) => Op::Mov {
                        dst: *dst,
                        src: acc,
                    },
                    (Some(true), Op::Store { value, .. }) => Op::Mov {
                        dst: acc,
                        src: *value,
                    },
                    _ => continue,
                };
            }
        }
        blocks[exit].ops.insert(
            0,
            Op::Store {
                space: word.space(),
                bytes: word.bytes,
                value: acc,
                addr: word.addr,
                offset: word.offset,
            },
        );
    }
    !promoted.is_empty()
}

/// Whether every load or store of `word`'s binding in the loop is of `word` itself.
fn only_access(blocks: &[Block], inside: &[usize], values: &Values, word: Word) -> bool {
    inside
        .iter()
        .flat_map(|&b| &blocks[b].ops)
        .all(|op| slot_of(op) != Some(word.slot) || word.accessed_by(op, values).is_some())
}

/// Whether the registers the loop's loads and stores of `word` read and write are as wide as
/// the word (not booleans): a register then holds exactly what memory would.
fn widths_match(
    blocks: &[Block],
    inside: &[usize],
    reg_types: &[RegType],
    values: &Values,
    word: Word,
) -> bool {
    let fits = |r: Reg| {
        reg_types
            .get(r as usize)
            .is_some_and(|t| *t != RegType::Bool && t.bytes() == usize::from(word.bytes))
    };
    inside
        .iter()
        .flat_map(|&b| &blocks[b].ops)
        .all(|op| match (word.accessed_by(op, values), op) {
            (Some(false), Op::Load { dst, .. }) => fits(*dst),
            (Some(true), Op::Store { value, .. }) => fits(*value),
            _ => true,
        })
}

/// Whether what the loop's loads of `word` read reaches, through lane-wise ops of the loop
/// ([`lanewise_value`]) and no local variable's register, only stores of `word` (as the stored
/// value): no other op, edge copy or branch, in the loop or after it, reads it.
fn flows_only_into_stores(
    blocks: &[Block],
    body: &[bool],
    inside: &[usize],
    values: &Values,
    word: Word,
) -> bool {
    let mut flow: HashSet<Reg> = HashSet::new();
    for op in inside.iter().flat_map(|&b| &blocks[b].ops) {
        if let (Some(false), Op::Load { dst, .. }) = (word.accessed_by(op, values), op) {
            flow.insert(*dst);
        }
    }
    let reads_flow = |op: &Op, flow: &HashSet<Reg>| {
        let mut hit = false;
        op.for_each_reg(&mut |r, role| hit |= role == Role::Use && flow.contains(&r));
        hit
    };
    loop {
        let mut grew = false;
        for op in inside.iter().flat_map(|&b| &blocks[b].ops) {
            if lanewise_value(op) && reads_flow(op, &flow) {
                op.for_each_def(|r| grew |= flow.insert(r));
            }
        }
        if !grew {
            break;
        }
    }
    // A local variable's register is read by `LoadVar`s that do not list it.
    if flow
        .iter()
        .any(|&r| values.var.get(r as usize).copied().unwrap_or(true))
    {
        return false;
    }
    blocks.iter().enumerate().all(|(b, block)| {
        let ops_ok = block.ops.iter().all(|op| {
            if !reads_flow(op, &flow) {
                return true;
            }
            if !body[b] {
                return false;
            }
            match (word.accessed_by(op, values), op) {
                (Some(true), Op::Store { addr, .. }) => addr.is_none_or(|a| !flow.contains(&a)),
                (None, op) => lanewise_value(op),
                _ => false,
            }
        });
        let cond_ok = block.term.condition().is_none_or(|c| !flow.contains(&c));
        let moves_ok = block
            .term
            .edges()
            .iter()
            .all(|e| e.moves.iter().all(|&(_, s)| !flow.contains(&s)));
        ops_ok && cond_ok && moves_ok
    })
}

/// The address register of a store of the word (`slot`, `desc`, an address the same as
/// `addr`, `offset`, `bytes`) in the straight-line blocks that lead to `entry`'s end (each the
/// only predecessor of the next, joined by jumps), and where that store is, if there is one
/// whose address register holds one value from there on (so nothing changes it before the
/// loop) and no op after it but pure ones and stores (no barrier, atomic or subgroup op).
#[allow(clippy::too_many_arguments)]
fn stored_before(
    blocks: &[Block],
    preds: &[Vec<usize>],
    values: &Values,
    entry: usize,
    slot: u32,
    desc: u32,
    addr: Option<Reg>,
    offset: u64,
    bytes: u8,
) -> Option<(Option<Reg>, At)> {
    let space = Space::Buffer {
        slot,
        desc: DescIdx::Const(desc),
    };
    let mut b = entry;
    for _ in 0..64 {
        for (k, op) in blocks[b].ops.iter().enumerate().rev() {
            if let Some((s, n, a, o, true)) = access(op)
                && (s, n, o) == (space, bytes, offset)
                && values.same_addr(a, addr, (b, k))
            {
                return Some((a, (b, k)));
            }
            // Past a barrier, an atomic or a subgroup op, another invocation may write the word
            // without racing with the store before it: the store on exit could undo that.
            let quiet = op.is_pure() && !op.is_sync();
            if !quiet && !matches!(op, Op::Store { .. } | Op::StoreVar { .. }) {
                return None;
            }
        }
        let [p] = preds[b][..] else { return None };
        if !matches!(&blocks[p].term, Term::Jump(_)) {
            return None;
        }
        b = p;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::IBin;
    use crate::ir::Edge;

    fn jump(target: u32) -> Term {
        Term::Jump(Edge::to(target))
    }

    const OUT: Space = Space::Buffer {
        slot: 1,
        desc: DescIdx::Const(0),
    };

    fn address(dst: Reg, index: Reg) -> Op {
        Op::IBin {
            op: IBin::Mul,
            width: 64,
            dst,
            lhs: index,
            rhs: 9,
        }
    }

    fn load(dst: Reg, addr: Reg) -> Op {
        Op::Load {
            space: OUT,
            bytes: 4,
            dst,
            addr: Some(addr),
            offset: 0,
        }
    }

    fn store(value: Reg, addr: Reg) -> Op {
        Op::Store {
            space: OUT,
            bytes: 4,
            value,
            addr: Some(addr),
            offset: 0,
        }
    }

    /// `out[%0] = %8; while (%7) out[%0] += %5;` with the address computed again in the loop
    /// (`%2`, the same value as `%1`), and `extra` ops at the end of the loop's body; then
    /// `after` ops where it ends. `%9` is the constant 4.
    fn program(index: Reg, extra: Vec<Op>, after: Vec<Op>) -> (Vec<Block>, Vec<RegType>) {
        let mut body = vec![
            address(2, index),
            load(3, 2),
            Op::IBin {
                op: IBin::Add,
                width: 32,
                dst: 4,
                lhs: 3,
                rhs: 5,
            },
            store(4, 2),
        ];
        body.extend(extra);
        let blocks = vec![
            Block::new(
                vec![Op::Mov { dst: 6, src: 0 }, address(1, index), store(8, 1)],
                jump(1),
            ),
            Block::new(
                Vec::new(),
                Term::Branch {
                    cond: 7,
                    if_true: Edge::to(2),
                    if_false: Edge::to(3),
                },
            ),
            Block::new(body, jump(1)),
            Block::new(after, Term::Exit),
        ];
        let mut types = vec![RegType::Int(32); 12];
        types[1] = RegType::Int(64);
        types[2] = RegType::Int(64);
        types[7] = RegType::Bool;
        types[9] = RegType::Int(64);
        (blocks, types)
    }

    /// The loop's word lives in a new register: loaded at the end of the entry block (at the
    /// store's address register), moved in the loop, stored where the loop ends.
    #[test]
    fn a_loop_accumulator_becomes_a_register() {
        let (mut blocks, mut types) = program(0, Vec::new(), Vec::new());
        assert!(loop_accumulators(&mut blocks, &mut types, &[(9, 4)], &[]));
        assert_eq!(types.len(), 13);
        assert_eq!(blocks[0].ops.last(), Some(&load(12, 1)));
        assert_eq!(blocks[2].ops[1], Op::Mov { dst: 3, src: 12 });
        assert_eq!(blocks[2].ops[3], Op::Mov { dst: 12, src: 4 });
        assert_eq!(blocks[3].ops, vec![store(12, 1)]);
    }

    /// A barrier in the loop, an address from a register assigned twice, a loaded value read
    /// after the loop, another word of the binding in the loop, a barrier between the store
    /// before the loop and the loop, a loaded value copied into a local variable's register
    /// (`%11`), or read by an op that is not lane-wise keep the word in memory.
    #[test]
    fn words_stay_in_memory_when_not_provably_private() {
        let barrier_before = {
            let (mut blocks, types) = program(0, Vec::new(), Vec::new());
            blocks[0].ops.push(Op::Barrier {});
            (blocks, types)
        };
        let not_lanewise = Op::LoadVar {
            dst: 10,
            var: crate::ir::Var { base: 11, len: 1 },
            offset: 0,
            index: 3,
        };
        let cases = [
            program(0, vec![Op::Barrier {}], Vec::new()),
            program(6, vec![Op::Mov { dst: 6, src: 5 }], Vec::new()),
            program(0, Vec::new(), vec![Op::Mov { dst: 10, src: 3 }]),
            program(0, vec![load(11, 9)], Vec::new()),
            barrier_before,
            program(0, vec![Op::Mov { dst: 11, src: 3 }], Vec::new()),
            program(0, vec![not_lanewise], Vec::new()),
        ];
        for (k, (mut blocks, mut types)) in cases.into_iter().enumerate() {
            let before = blocks.clone();
            assert!(
                !loop_accumulators(&mut blocks, &mut types, &[(9, 4)], &[(11, 1)]),
                "case {k}"
            );
            assert_eq!(blocks, before, "case {k}");
        }
    }
}
