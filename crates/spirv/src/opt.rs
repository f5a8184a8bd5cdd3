//! IR clean-up after lowering: copy propagation and dead-code removal.
//!
//! Lowering emits a `Mov` for every `OpLoad`/`OpStore` of a function variable and for every
//! `OpCopyObject`-like value, and each `Mov` is a pass over all lanes at run time. This pass
//! removes most of them, in four steps, after a step 0:
//! 0. *Identities*: an integer op with a constant operand that leaves the other unchanged
//!    (`x * 1`, `x / 1`, `x + 0`, `x - 0`, `x | 0`, `x ^ 0`, shifts by 0, `x & all-ones`) becomes a
//!    copy of it, so the steps below fold it away and later analyses see `x` itself (GLSL
//!    written for several block sizes divides by a block size of 1, and an index divided by 1
//!    is no longer affine in the invocation to the JIT).
//! 1. *SSA copies* (`d = a`, both registers written once and not variables) are folded
//!    everywhere: in SSA a definition dominates its uses, so `d` can be read as `a`.
//! 2. *Block-local copies* (`t = var`, a load of a variable) are folded into later reads of `t` in
//!    the same block, until `var` is written again.
//! 3. *Stores of a fresh value* (`t = x op y; var = t`, `t` read only by that store) compute
//!    straight into `var`; of an op with several results (a cooperative matrix's components),
//!    one result at a time, where `coalesce` allows it to write over what it reads.
//! 4. Pure ops whose results nobody reads are deleted.
//!
//! Then `merge_blocks` joins straight-line chains of blocks, so a loop iteration runs fewer
//! terminators.
//!
//! Invariants kept: variables, built-ins and constants (`pinned`) are never renamed away, and
//! only writes to variables that nothing reads are deleted; ops are never moved across blocks,
//! so every op still runs under the same mask; step 3 makes an op write a register it also
//! reads only if the op is lane-wise (reads all operands of a lane before writing that lane's
//! result) or a cooperative-matrix multiply-add writing a result over its own accumulator
//! component (`coalesce::may_write_in_place`).

use std::collections::HashMap;

use crate::alu::IBin;
use crate::converge::{Memory, memory_of};
use crate::ir::{Block, Builtins, Op, Reg, Role, Term};

/// How far back step 3 looks for the op that computes a stored value: lowering emits the store
/// right after the computation, and a bound keeps the pass linear in very long blocks.
const STORE_WINDOW: usize = 40;

/// Step 0: `d = x op k` (or `k op x` for a commutative `op`) with a constant `k` that leaves `x`
/// unchanged becomes `d = x`. Registers hold their values' bits zero-extended to the type's width,
/// which is the op's, so the copy has the op's result bits.
fn fold_identities(blocks: &mut [Block], consts: &[(Reg, u64)]) {
    let values: HashMap<Reg, u64> = consts.iter().copied().collect();
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            let Op::IBin {
                op: kind,
                width,
                dst,
                lhs,
                rhs,
            } = *op
            else {
                continue;
            };
            let all_ones = if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let keeps_lhs = |k: u64| match kind {
                IBin::Mul | IBin::UDiv | IBin::SDiv => k == 1,
                IBin::Add
                | IBin::Sub
                | IBin::Or
                | IBin::Xor
                | IBin::Shl
                | IBin::ShrL
                | IBin::ShrA => k == 0,
                IBin::And => k & all_ones == all_ones,
                _ => false,
            };
            let keeps_rhs = |k: u64| match kind {
                IBin::Mul => k == 1,
                IBin::Add | IBin::Or | IBin::Xor => k == 0,
                IBin::And => k & all_ones == all_ones,
                _ => false,
            };
            let src = if values.get(&rhs).is_some_and(|&k| keeps_lhs(k)) {
                lhs
            } else if values.get(&lhs).is_some_and(|&k| keeps_rhs(k)) {
                rhs
            } else {
                continue;
            };
            *op = Op::Mov { dst, src };
        }
    }
}

/// The registers no pass renames or deletes, of `n`: variables' and built-ins'.
pub(crate) fn pinned_registers(n: usize, vars: &[(Reg, u32)], builtins: &Builtins) -> Vec<bool> {
    let mut pinned = vec![false; n];
    let mut pin = |base: Reg, len: u32| {
        for r in base..base.saturating_add(len) {
            if let Some(p) = pinned.get_mut(r as usize) {
                *p = true;
            }
        }
    };
    for &(b, len) in vars {
        pin(b, len);
    }
    for (base, len) in builtins.ranges() {
        pin(base, len);
    }
    pinned
}

/// Runs the passes over `blocks` (registers `0..nregs`).
pub(crate) fn optimize(
    blocks: &mut [Block],
    nregs: u32,
    vars: &[(Reg, u32)],
    consts: &[(Reg, u64)],
    builtins: &Builtins,
) {
    let n = nregs as usize;
    let pinned = pinned_registers(n, vars, builtins);
    // Every register index below is `< nregs` (the IR is verified after this pass, but lowering
    // only allocates below `nregs`); out-of-range ones are left alone rather than indexed.
    let ok = |r: Reg| (r as usize) < n;
    let mut defs = vec![0u32; n];
    for &(r, _) in consts {
        if ok(r) {
            defs[r as usize] += 1;
        }
    }
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            op.visit_regs(&mut |r, role| {
                if role == Role::Def && ok(*r) {
                    defs[*r as usize] += 1;
                }
            });
        }
        for_each_edge(&mut b.term, |e| {
            for (d, _) in &e.moves {
                if ok(*d) {
                    defs[*d as usize] += 1;
                }
            }
        });
    }
    let ssa = |r: Reg| ok(r) && defs[r as usize] == 1 && !pinned[r as usize];

    // 0. Identities.
    fold_identities(blocks, consts);

    // 1. SSA copies.
    let mut alias: Vec<Reg> = (0..nregs).collect();
    for b in blocks.iter() {
        for op in &b.ops {
            if let Op::Mov { dst: d, src: a } = *op
                && ssa(d)
                && ssa(a)
            {
                alias[d as usize] = a;
            }
        }
    }
    let root = |mut r: Reg| {
        // Chains are short and acyclic for valid SSA; the bound only guards against bad input.
        for _ in 0..64 {
            match alias.get(r as usize) {
                Some(&a) if a != r => r = a,
                _ => break,
            }
        }
        r
    };
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            op.visit_regs(&mut |r, role| {
                if role == Role::Use {
                    *r = root(*r);
                }
            });
        }
        rewrite_term_uses(&mut b.term, &root);
    }

    // 2. Block-local copies of variables: `copy_of[t] = v` for `t = v`, and the copies of each
    // source so that a write to it drops them (hash maps keep long blocks linear).
    for b in blocks.iter_mut() {
        let mut copy_of: HashMap<Reg, Reg> = HashMap::new();
        let mut copies: HashMap<Reg, Vec<Reg>> = HashMap::new();
        let forget = |copy_of: &mut HashMap<Reg, Reg>, copies: &mut HashMap<Reg, Vec<Reg>>, r| {
            copy_of.remove(&r);
            for c in copies.remove(&r).unwrap_or_default() {
                copy_of.remove(&c);
            }
        };
        for op in &mut b.ops {
            op.visit_regs(&mut |r, role| {
                if role == Role::Use {
                    *r = copy_of.get(r).copied().unwrap_or(*r);
                }
            });
            let mut written: Vec<Reg> = Vec::new();
            op.visit_regs(&mut |r, role| {
                if role == Role::Def {
                    written.push(*r);
                }
            });
            for r in written {
                forget(&mut copy_of, &mut copies, r);
            }
            if let Op::StoreVar { var, .. } = *op {
                for r in var.base..var.base.saturating_add(var.len) {
                    forget(&mut copy_of, &mut copies, r);
                }
            }
            if let Op::Mov { dst: d, src: a } = *op
                && ssa(d)
                && d != a
            {
                copy_of.insert(d, a);
                copies.entry(a).or_default().push(d);
            }
        }
        rewrite_term_uses(&mut b.term, &|r| copy_of.get(&r).copied().unwrap_or(r));
    }

    // 3. Stores of fresh values.
    let mut uses = count_uses(blocks, n);
    for b in blocks.iter_mut() {
        let mut i = 0;
        while i < b.ops.len() {
            if let Op::Mov { dst: var, src: t } = b.ops[i]
                && var != t
                && ssa(t)
                && uses[t as usize] == 1
                && let Some(j) = (i.saturating_sub(STORE_WINDOW)..i)
                    .rev()
                    .find(|&j| b.ops[j].defines(t))
                && (if defines_only(&b.ops[j], t) {
                    b.ops[j].is_lanewise() || !reads(&b.ops[j], var)
                } else {
                    crate::coalesce::may_write_in_place(&b.ops[j], var, t)
                })
                && !b.ops[j + 1..i].iter().any(|o| touches(o, var))
            {
                replace_def(&mut b.ops[j], t, var);
                b.ops.remove(i);
                uses[t as usize] = 0;
                continue;
            }
            i += 1;
        }
    }

    // 4. Dead pure ops (and moves to themselves). A variable's register counts as read when
    // an indexed load may read it; one nobody reads is as dead as a temporary (a loop counter
    // of a loop written out: its last copies remain). Built-ins are never deleted.
    let builtin = pinned_registers(n, &[], builtins);
    for _ in 0..8 {
        let mut uses = count_uses(blocks, n);
        for op in blocks.iter().flat_map(|b| &b.ops) {
            if let Op::LoadVar { var, .. } = op {
                for r in var.base..var.base.saturating_add(var.len) {
                    if let Some(u) = uses.get_mut(r as usize) {
                        *u += 1;
                    }
                }
            }
        }
        let mut changed = false;
        for b in blocks.iter_mut() {
            b.ops.retain_mut(|op| {
                if let Op::Mov { dst: d, src: a } = *op
                    && d == a
                {
                    changed = true;
                    return false;
                }
                if !op.is_pure() {
                    return true;
                }
                let mut dead = true;
                op.visit_regs(&mut |r, role| {
                    if role == Role::Def
                        && (!ok(*r) || builtin[*r as usize] || uses[*r as usize] > 0)
                    {
                        dead = false;
                    }
                });
                if dead {
                    changed = true;
                }
                !dead
            });
        }
        if !changed {
            break;
        }
    }
}

/// Straight-line block merging: a block that ends in a plain jump (no phi copies) to the next
/// live block, which has no other predecessor, absorbs that block's ops and terminator. The
/// absorbed block stays in place, unreachable.
///
/// "Next" matters: the scheduler runs the lowest block any lane waits at, so when block `i` runs
/// no lane waits below it, and afterwards its successor `i + 1` is the lowest possible: it runs at
/// once, with exactly `i`'s lanes. A later successor `c` would instead wait for lanes in the blocks
/// between, which may reach `c` through `i` again (a loop's break block and its merge): there the
/// merge would split one execution of `c` into several and break reconvergence.
pub(crate) fn merge_blocks(blocks: &mut [Block]) {
    let n = blocks.len();
    let mut preds = vec![0u32; n];
    for b in blocks.iter_mut() {
        for_each_edge(&mut b.term, |e| {
            if let Some(p) = preds.get_mut(e.target as usize) {
                *p += 1;
            }
        });
    }
    let mut dead = vec![false; n];
    for i in 0..n {
        if dead[i] {
            continue;
        }
        loop {
            let c = match &blocks[i].term {
                Term::Jump(e) if e.moves.is_empty() => e.target as usize,
                _ => break,
            };
            if c <= i || c >= n || preds[c] != 1 || !dead[i + 1..c].iter().all(|&d| d) {
                break;
            }
            let absorbed = std::mem::replace(
                &mut blocks[c],
                Block {
                    ops: Vec::new(),
                    term: Term::Exit,
                    order_succ: Vec::new(),
                },
            );
            preds[c] = 0;
            dead[c] = true;
            let b = &mut blocks[i];
            b.ops.extend(absorbed.ops);
            b.term = absorbed.term;
        }
    }
}

/// Turns each atomic whose old value nothing reads into an [`Op::AtomicUpdate`] when its
/// operation [`commutes`](crate::mem::AtomicOp::commutes), its word is 4 or 8 bytes and every
/// atomic of the program on the same memory (a buffer binding, shared memory, device
/// addresses) is of the same operation and width: those words then end the same whatever order
/// lanes take the updates in (an add and a xor on one word would not), so they need not be sync
/// ops (where every lane of the group meets and takes them in lane order). Their effects order
/// with the other memory accesses as a store's do: a backend that runs lanes in chunks takes
/// them chunk by chunk, and `converge` adds meeting points where that could show (a program
/// with subgroup operations; without, as for stores, nothing may rely on lanes running
/// together). `vars`: the variables' register ranges (a result in one is read through
/// `LoadVar`).
pub(crate) fn unobserved_atomics(blocks: &mut [Block], n: usize, vars: &[(Reg, u32)]) {
    // The one (memory, operation, width) of each memory's atomics, or `None` once two differ.
    let mut kinds: Vec<(Memory, Option<(AtomicKind, u8)>)> = Vec::new();
    for op in blocks.iter().flat_map(|b| &b.ops) {
        if let Op::Atomic {
            op: kind,
            space,
            bytes,
            ..
        } = *op
        {
            let memory = memory_of(&space);
            let this = Some((AtomicKind::of(kind), bytes));
            match kinds.iter_mut().find(|(m, _)| *m == memory) {
                Some((_, k)) if *k != this => *k = None,
                Some(_) => {}
                None => kinds.push((memory, this)),
            }
        }
    }
    let uses = count_uses(blocks, n);
    let in_var = |r: Reg| {
        vars.iter()
            .any(|&(base, len)| (base..base + len).contains(&r))
    };
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            if let Op::Atomic {
                op: kind,
                space,
                bytes,
                dst,
                addr,
                offset,
                value,
                ..
            } = *op
                && kind.commutes()
                && matches!(bytes, 4 | 8)
                && kinds
                    .iter()
                    .any(|(m, k)| *m == memory_of(&space) && k.is_some())
                && uses.get(dst as usize) == Some(&0)
                && !in_var(dst)
            {
                *op = Op::AtomicUpdate {
                    op: kind,
                    space,
                    bytes,
                    addr,
                    offset,
                    value,
                };
            }
        }
    }
}

/// Atomic operations that commute with each other: an add and a sub do, others only with
/// themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtomicKind {
    Sum,
    Other(crate::mem::AtomicOp),
}

impl AtomicKind {
    fn of(op: crate::mem::AtomicOp) -> AtomicKind {
        use crate::mem::AtomicOp;
        match op {
            AtomicOp::Add | AtomicOp::Sub => AtomicKind::Sum,
            other => AtomicKind::Other(other),
        }
    }
}

/// Splits blocks so that every `sync` op (see `ir::ops`) is alone in its block, which jumps on
/// with no edge copies: a backend that runs lanes in chunks then stops every chunk at a block
/// boundary before it and resumes at one after it. The pieces of a block are numbered consecutively, so the structured order (see
/// `ir`) is kept; a block's terminator and ordering successors move to its last piece.
pub(crate) fn isolate_sync_ops(blocks: Vec<Block>) -> Vec<Block> {
    if !blocks.iter().any(|b| b.ops.iter().any(|o| o.is_sync())) {
        return blocks;
    }
    // Pieces of each block: runs of non-sync ops and single sync ops (at least one piece).
    let pieces: Vec<Vec<Vec<Op>>> = blocks
        .iter()
        .map(|b| {
            let mut out: Vec<Vec<Op>> = Vec::new();
            let mut cur: Vec<Op> = Vec::new();
            for op in &b.ops {
                if op.is_sync() {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    out.push(vec![op.clone()]);
                } else {
                    cur.push(op.clone());
                }
            }
            // A sync op that ends its block before an exit, a branch or a jump with copies gets
            // an empty piece after it for the terminator: its own block then jumps on plainly,
            // which a backend's rounds (barriers, subgroup operations, atomics) require.
            let plain_jump = matches!(&b.term, Term::Jump(e) if e.moves.is_empty());
            let sync_last = cur.is_empty() && out.last().is_some_and(|p| p.len() == 1);
            if !cur.is_empty() || out.is_empty() || (sync_last && !plain_jump) {
                out.push(cur);
            }
            out
        })
        .collect();
    let mut first = Vec::with_capacity(blocks.len());
    let mut at = 0u32;
    for p in &pieces {
        first.push(at);
        at += p.len() as u32;
    }
    let remap = |t: u32| first.get(t as usize).copied().unwrap_or(t);
    let mut out = Vec::with_capacity(at as usize);
    for (b, ps) in blocks.into_iter().zip(pieces) {
        let n = ps.len();
        for (k, ops) in ps.into_iter().enumerate() {
            if k + 1 < n {
                let next = out.len() as u32 + 1;
                out.push(Block {
                    ops,
                    term: Term::Jump(crate::ir::Edge {
                        target: next,
                        moves: Vec::new(),
                    }),
                    order_succ: Vec::new(),
                });
            } else {
                let mut term = b.term.clone();
                for_each_edge(&mut term, |e| e.target = remap(e.target));
                out.push(Block {
                    ops,
                    term,
                    order_succ: b.order_succ.iter().map(|&t| remap(t)).collect(),
                });
            }
        }
    }
    out
}

pub(crate) fn for_each_edge(t: &mut Term, mut f: impl FnMut(&mut crate::ir::Edge)) {
    match t {
        Term::Jump(e) => f(e),
        Term::Branch {
            if_true, if_false, ..
        } => {
            f(if_true);
            f(if_false);
        }
        Term::Switch { edges, .. } => edges.iter_mut().for_each(f),
        Term::Exit => {}
    }
}

fn rewrite_term_uses(t: &mut Term, map: &impl Fn(Reg) -> Reg) {
    match t {
        Term::Branch { cond, .. } => *cond = map(*cond),
        Term::Switch { selector, .. } => *selector = map(*selector),
        Term::Jump(_) | Term::Exit => {}
    }
    for_each_edge(t, |e| {
        for (_, a) in &mut e.moves {
            *a = map(*a);
        }
    });
}

/// How often each register is read (ops, terminators, edge copies); not counting reads through
/// a `LoadVar` range (step 4 adds those).
fn count_uses(blocks: &mut [Block], n: usize) -> Vec<u32> {
    let mut uses = vec![0u32; n];
    let mut bump = |r: Reg| {
        if let Some(u) = uses.get_mut(r as usize) {
            *u += 1;
        }
    };
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            op.visit_regs(&mut |r, role| {
                if role == Role::Use {
                    bump(*r);
                }
            });
        }
        match &b.term {
            Term::Branch { cond, .. } => bump(*cond),
            Term::Switch { selector, .. } => bump(*selector),
            Term::Jump(_) | Term::Exit => {}
        }
        for_each_edge(&mut b.term, |e| {
            for (_, a) in &e.moves {
                bump(*a);
            }
        });
    }
    uses
}

/// Whether `op` writes exactly one register, `r`.
fn defines_only(op: &Op, r: Reg) -> bool {
    let mut written = Vec::new();
    op.for_each_reg(&mut |x, role| {
        if role == Role::Def {
            written.push(x);
        }
    });
    written == [r]
}

/// Whether `op` reads or writes `r` (variable ranges of `LoadVar`/`StoreVar` included).
fn touches(op: &Op, r: Reg) -> bool {
    uses_reg(op, r, false)
}

/// Whether `op` reads `r` (variable ranges of `LoadVar`/`StoreVar` included).
fn reads(op: &Op, r: Reg) -> bool {
    uses_reg(op, r, true)
}

fn uses_reg(op: &Op, r: Reg, reads_only: bool) -> bool {
    match *op {
        Op::LoadVar { var, .. } | Op::StoreVar { var, .. }
            if (var.base..var.base.saturating_add(var.len)).contains(&r) =>
        {
            return true;
        }
        _ => {}
    }
    let mut hit = false;
    op.for_each_reg(&mut |x, role| hit |= x == r && (!reads_only || role == Role::Use));
    hit
}

/// Makes `op` write `new` where it wrote `old`.
fn replace_def(op: &mut Op, old: Reg, new: Reg) {
    op.visit_regs(&mut |x, role| {
        if role == Role::Def && *x == old {
            *x = new;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::FBin;
    use crate::ir::{Edge, Space};

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block::new(ops, term)
    }

    fn atomic(op: crate::mem::AtomicOp, space: Space, bytes: u8, dst: Reg) -> Op {
        Op::Atomic {
            op,
            space,
            bytes,
            dst,
            addr: Some(0),
            offset: 0,
            value: 1,
            comparator: 1,
        }
    }

    /// Atomics whose result nothing reads become updates when every atomic on their memory
    /// commutes with them; a read result, a variable's register, an exchange, a 2-byte word, or
    /// an add and a xor on one memory keep them atomics.
    #[test]
    fn unobserved_commuting_atomics_become_updates() {
        use crate::mem::AtomicOp::{Add, Exchange, Sub, UMax, Xor};
        let buffer = |slot| Space::Buffer {
            slot,
            desc: crate::ir::DescIdx::Const(0),
        };
        let mut blocks = vec![block(
            vec![
                atomic(Add, buffer(0), 4, 10),
                atomic(Sub, buffer(0), 4, 11),
                atomic(Add, buffer(1), 4, 12),
                atomic(Xor, buffer(1), 4, 13),
                atomic(UMax, Space::Shared, 8, 14),
                atomic(UMax, Space::Shared, 8, 15),
                atomic(Exchange, buffer(2), 4, 16),
                atomic(Add, buffer(3), 2, 17),
                atomic(Add, buffer(4), 4, 18),
                atomic(Add, buffer(5), 4, 20),
                Op::Mov { dst: 19, src: 15 },
            ],
            Term::Exit,
        )];
        unobserved_atomics(&mut blocks, 21, &[(20, 1)]);
        let updates: Vec<bool> = blocks[0].ops[..10]
            .iter()
            .map(|op| matches!(op, Op::AtomicUpdate { .. }))
            .collect();
        assert_eq!(
            updates,
            [
                true, true, false, false, true, false, false, false, true, false
            ]
        );
    }

    /// `var += c` as lowering emits it (load, add, store) becomes one in-place add; the SSA copy
    /// of a constant is folded into its reader and deleted.
    #[test]
    fn load_add_store_becomes_one_op() {
        // r0 = variable, r1 = constant, r2..r5 temporaries.
        let mut blocks = vec![
            block(
                vec![
                    Op::Mov { dst: 2, src: 0 },
                    Op::Mov { dst: 5, src: 1 },
                    Op::FBin {
                        op: FBin::Add,
                        width: 32,
                        dst: 3,
                        lhs: 2,
                        rhs: 5,
                    },
                    Op::Mov { dst: 0, src: 3 },
                ],
                Term::Jump(Edge {
                    target: 1,
                    moves: Vec::new(),
                }),
            ),
            block(vec![], Term::Exit),
        ];
        optimize(&mut blocks, 6, &[(0, 1)], &[(1, 7)], &Builtins::default());
        assert!(
            matches!(
                blocks[0].ops.as_slice(),
                [Op::FBin {
                    dst: 0,
                    lhs: 0,
                    rhs: 1,
                    ..
                }]
            ),
            "{:?}",
            blocks[0].ops
        );
    }

    /// `x / 1`, `1 * x` and `x & 0xffff_ffff` (32 bits) are copies of `x`; `x / 2` and
    /// `x & 0xffff` stay.
    #[test]
    fn identities_become_copies() {
        // r0, r8 = variables, r1 = 1, r6 = 0xffff_ffff, r9 = 2, r10 = 0xffff.
        let ibin = |op, dst, lhs, rhs| Op::IBin {
            op,
            width: 32,
            dst,
            lhs,
            rhs,
        };
        let mut blocks = vec![
            block(
                vec![
                    ibin(IBin::UDiv, 2, 0, 1),
                    ibin(IBin::Mul, 3, 1, 2),
                    ibin(IBin::And, 5, 3, 6),
                    ibin(IBin::UDiv, 7, 5, 9),
                    ibin(IBin::And, 11, 7, 10),
                    Op::Mov { dst: 8, src: 11 },
                ],
                Term::Jump(Edge {
                    target: 1,
                    moves: Vec::new(),
                }),
            ),
            // Variable 8 is read (a variable nobody reads is dead).
            block(
                vec![Op::StoreVar {
                    var: crate::ir::Var { base: 0, len: 1 },
                    offset: 0,
                    index: 9,
                    value: 8,
                }],
                Term::Exit,
            ),
        ];
        let consts = [(1, 1), (6, 0xffff_ffff), (9, 2), (10, 0xffff)];
        optimize(
            &mut blocks,
            12,
            &[(0, 1), (8, 1)],
            &consts,
            &Builtins::default(),
        );
        let kinds: Vec<(IBin, Reg, Reg)> = blocks[0]
            .ops
            .iter()
            .filter_map(|op| match *op {
                Op::IBin { op, lhs, rhs, .. } => Some((op, lhs, rhs)),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [(IBin::UDiv, 0, 9), (IBin::And, 7, 10)],
            "{:?}",
            blocks[0].ops
        );
    }

    /// A jump to the next block merges; a jump over a live block (a loop's break block to the
    /// loop's merge, with the latch in between) does not.
    #[test]
    fn merges_only_into_the_next_live_block() {
        let jump = |t: u32| {
            Term::Jump(Edge {
                target: t,
                moves: Vec::new(),
            })
        };
        let mov = |d| Op::Mov { dst: d, src: 0 };
        // 0 → 1 (header) ⇒ 2 (break) | 3 (latch → 1); 2 → 4 (merge).
        let mut blocks = vec![
            block(vec![mov(1)], jump(1)),
            block(
                vec![mov(2)],
                Term::Branch {
                    cond: 2,
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
            block(vec![mov(3)], jump(4)),
            block(vec![mov(4)], jump(1)),
            block(vec![mov(5)], jump(5)),
            block(vec![mov(6)], Term::Exit),
        ];
        merge_blocks(&mut blocks);
        // 2 → 4 skips the live latch: not merged. 0 → 1: 1 has two predecessors. 4 → 5 merges.
        assert_eq!(blocks[2].ops.len(), 1);
        assert!(matches!(blocks[2].term, Term::Jump(Edge { target: 4, .. })));
        assert_eq!(blocks[0].ops.len(), 1);
        assert_eq!(blocks[4].ops.len(), 2);
        assert!(matches!(blocks[4].term, Term::Exit));
    }

    /// A copy of a variable read in a later block keeps its `Mov`, and a read after the variable
    /// was stored again is not redirected to the variable.
    #[test]
    fn copies_of_variables_stay_where_needed() {
        let mut blocks = vec![
            block(
                vec![
                    Op::Mov { dst: 2, src: 0 }, // t = var
                    Op::Mov { dst: 0, src: 1 }, // var = c
                    Op::FBin {
                        op: FBin::Add,
                        width: 32,
                        dst: 3,
                        lhs: 2,
                        rhs: 2,
                    },
                ],
                Term::Jump(Edge {
                    target: 1,
                    moves: Vec::new(),
                }),
            ),
            block(
                vec![Op::FBin {
                    op: FBin::Mul,
                    width: 32,
                    dst: 4,
                    lhs: 2,
                    rhs: 3,
                }],
                Term::Branch {
                    cond: 4,
                    if_true: Edge {
                        target: 1,
                        moves: Vec::new(),
                    },
                    if_false: Edge {
                        target: 1,
                        moves: Vec::new(),
                    },
                },
            ),
        ];
        optimize(&mut blocks, 5, &[(0, 1)], &[(1, 7)], &Builtins::default());
        let ops = &blocks[0].ops;
        assert!(matches!(ops[0], Op::Mov { dst: 2, src: 0 }), "{ops:?}");
        assert!(matches!(ops[2], Op::FBin { lhs: 2, rhs: 2, .. }), "{ops:?}");
    }
}
