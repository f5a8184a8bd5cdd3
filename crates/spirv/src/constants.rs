//! Integer values known at compile time, carried along straight-line paths, and what they
//! simplify: integer operands read as constants, and accesses to a function variable at a known
//! index (`LoadVar`/`StoreVar`) written as plain copies of the register they reach.
//!
//! A value is known at a point when every lane holds the same, computable value there: a
//! constant register, or the result of an integer op (`Mov`, `IBin`, `IUn`, `ICmp`, integer
//! `Conv`) on known values, computed with the `alu` functions the interpreter runs, so the
//! bits are the ones it would produce. Values flow into a block from its predecessors when all
//! of them come earlier in the structured order (the blocks an unrolled loop leaves behind do):
//! what every incoming edge agrees on, edge copies applied. A loop header (it has a back edge)
//! starts with nothing known but the constants.
//!
//! What [`fold_known`] rewrites, per op in program order, with the values known just before it:
//! - an integer op's operand with a known value reads a constant register of its type (new
//!   constants are appended to the IR's constant list);
//! - `LoadVar`/`StoreVar` at a known index `k` (plus the op's offset): inside the variable and
//!   with the element's register as wide as the value, a `Mov` from or to `var.base + k`;
//!   outside it, a load becomes a copy of zero and a store is dropped, as the interpreter does.
//!
//! Nothing else changes: no op is moved between blocks or deleted (dead ones are left to
//! `opt`), so masks and the order of blocks stay as they were.

use std::collections::HashMap;

use crate::alu::{self, Conv};
use crate::ir::{Block, Op, Reg, RegType, Role};

/// Registers whose value is known, as the raw bits the register holds.
pub(crate) type Values = HashMap<Reg, u64>;

/// The IR's registers as the passes that add some see them: the constant registers and the
/// values they hold, new constants made on demand, and new registers of a given type.
pub(crate) struct Constants<'a> {
    reg_types: &'a mut Vec<RegType>,
    consts: &'a mut Vec<(Reg, u64)>,
    by_value: HashMap<(RegType, u64), Reg>,
    value_of: HashMap<Reg, u64>,
}

impl<'a> Constants<'a> {
    pub(crate) fn new(reg_types: &'a mut Vec<RegType>, consts: &'a mut Vec<(Reg, u64)>) -> Self {
        let mut by_value = HashMap::new();
        let mut value_of = HashMap::new();
        for &(r, v) in consts.iter() {
            if let Some(&ty) = reg_types.get(r as usize) {
                by_value.entry((ty, v)).or_insert(r);
            }
            value_of.insert(r, v);
        }
        Constants {
            reg_types,
            consts,
            by_value,
            value_of,
        }
    }

    /// The value of constant register `r`.
    pub(crate) fn get(&self, r: Reg) -> Option<u64> {
        self.value_of.get(&r).copied()
    }

    /// A constant register of type `ty` holding `value`.
    fn register(&mut self, ty: RegType, value: u64) -> Reg {
        if let Some(&r) = self.by_value.get(&(ty, value)) {
            return r;
        }
        let r = self.reg_types.len() as Reg;
        self.reg_types.push(ty);
        self.consts.push((r, value));
        self.by_value.insert((ty, value), r);
        self.value_of.insert(r, value);
        r
    }

    /// A new (not constant) register of the type of `like`.
    pub(crate) fn fresh_register(&mut self, like: Reg) -> Reg {
        // `like` is a register of the IR; the fallback only keeps bad input from panicking
        // (verification rejects it later).
        let ty = self
            .reg_types
            .get(like as usize)
            .copied()
            .unwrap_or(RegType::Int(64));
        self.reg_types.push(ty);
        (self.reg_types.len() - 1) as Reg
    }

    pub(crate) fn reg_types(&self) -> &[RegType] {
        self.reg_types
    }
}

/// The value of `r` with `values` known, constants included.
fn value(values: &Values, constants: &Constants<'_>, r: Reg) -> Option<u64> {
    values.get(&r).copied().or_else(|| constants.get(r))
}

/// `v` cut to the storage width of register `r` (what the register file keeps).
pub(crate) fn stored(reg_types: &[RegType], r: Reg, v: u64) -> u64 {
    match reg_types.get(r as usize).map(|t| t.bytes()) {
        Some(bytes @ 1..=7) => v & ((1u64 << (bytes * 8)) - 1),
        _ => v,
    }
}

/// Updates `values` past `op`: its results are known when its operands are and it is one of
/// the integer ops the module docs list; every other register it writes is forgotten.
pub(crate) fn step(op: &Op, values: &mut Values, constants: &Constants<'_>) {
    let get = |r: Reg| value(values, constants, r);
    let result = match *op {
        Op::Mov { dst, src } => get(src).map(|v| (dst, v)),
        Op::IBin {
            op,
            width,
            dst,
            lhs,
            rhs,
        } => get(lhs)
            .zip(get(rhs))
            .map(|(a, b)| (dst, alu::ibin(op, width, a, b))),
        Op::IUn {
            op,
            width,
            dst,
            src,
        } => get(src).map(|a| (dst, alu::iun(op, width, a))),
        Op::ICmp {
            op,
            width,
            dst,
            lhs,
            rhs,
        } => get(lhs)
            .zip(get(rhs))
            .map(|(a, b)| (dst, alu::icmp(op, width, a, b))),
        Op::Conv {
            op: op @ (Conv::UToU | Conv::SToS),
            from,
            to,
            dst,
            src,
        } => get(src).map(|a| (dst, alu::conv(op, from, to, a))),
        _ => None,
    };
    op.for_each_def(|d| {
        values.remove(&d);
    });
    if let Some((dst, v)) = result {
        values.insert(dst, stored(constants.reg_types(), dst, v));
    }
}

/// What is known at the start and at the end (before edge copies) of every block.
pub(crate) struct Known {
    pub(crate) entry: Vec<Values>,
    pub(crate) exit: Vec<Values>,
}

/// Runs the propagation the module docs describe over `blocks`.
pub(crate) fn known_values(blocks: &[Block], constants: &Constants<'_>) -> Known {
    let preds = crate::ir::loops::predecessors(blocks);
    let mut entry = Vec::with_capacity(blocks.len());
    let mut exit: Vec<Values> = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        let values = if preds[i].is_empty() || preds[i].iter().any(|&p| p >= i) {
            Values::new()
        } else {
            meet(blocks, &preds[i], i, &exit, constants)
        };
        let mut end = values.clone();
        for op in &block.ops {
            step(op, &mut end, constants);
        }
        entry.push(values);
        exit.push(end);
    }
    Known { entry, exit }
}

/// The values known on every edge into block `to` from `preds` (earlier blocks, whose ends
/// `exit` holds): those with one value on all of them.
fn meet(
    blocks: &[Block],
    preds: &[usize],
    to: usize,
    exit: &[Values],
    constants: &Constants<'_>,
) -> Values {
    let mut edges = preds.to_vec();
    edges.dedup();
    let mut values: Option<Values> = None;
    for p in edges {
        let mut along = Vec::new();
        for edge in blocks[p].term.edges() {
            if edge.target as usize == to {
                along.push(copies_applied(&exit[p], &edge.moves, constants));
            }
        }
        for v in along {
            values = Some(match values {
                None => v,
                Some(mut known) => {
                    known.retain(|r, x| v.get(r) == Some(x));
                    known
                }
            });
        }
    }
    values.unwrap_or_default()
}

/// `end` with the parallel copies `moves` applied.
fn copies_applied(end: &Values, moves: &[(Reg, Reg)], constants: &Constants<'_>) -> Values {
    let mut values = end.clone();
    let copied: Vec<(Reg, Option<u64>)> = moves
        .iter()
        .map(|&(d, s)| (d, value(end, constants, s)))
        .collect();
    for (d, v) in copied {
        match v {
            Some(v) => values.insert(d, v),
            None => values.remove(&d),
        };
    }
    values
}

/// The values known on `from`'s edge to block `to` (its one edge there), given `end`, those
/// known at the end of `from`'s ops: the edge's parallel copies applied.
pub(crate) fn along_edge(
    from: &Block,
    to: usize,
    end: &Values,
    constants: &Constants<'_>,
) -> Values {
    match from
        .term
        .edges()
        .into_iter()
        .find(|e| e.target as usize == to)
    {
        Some(edge) => copies_applied(end, &edge.moves, constants),
        None => end.clone(),
    }
}

/// Rewrites `blocks` as the module docs describe; true if anything changed.
pub(crate) fn fold_known(blocks: &mut [Block], constants: &mut Constants<'_>) -> bool {
    let known = known_values(blocks, constants);
    let mut changed = false;
    for (block, mut values) in blocks.iter_mut().zip(known.entry) {
        let mut dropped = Vec::new();
        for (i, op) in block.ops.iter_mut().enumerate() {
            changed |= read_constants(op, &values, constants);
            match copy_at_known_index(op, &values, constants) {
                Rewrite::Kept => {}
                Rewrite::Copy => changed = true,
                Rewrite::Dropped => dropped.push(i),
            }
            step(op, &mut values, constants);
        }
        if !dropped.is_empty() {
            changed = true;
            let mut i = 0;
            block.ops.retain(|_| {
                i += 1;
                !dropped.contains(&(i - 1))
            });
        }
    }
    changed
}

/// Points the integer operands of `op` with a known value at constant registers.
fn read_constants(op: &mut Op, values: &Values, constants: &mut Constants<'_>) -> bool {
    let integer = matches!(
        op,
        Op::IBin { .. }
            | Op::IUn { .. }
            | Op::ICmp { .. }
            | Op::Conv {
                op: Conv::UToU | Conv::SToS,
                ..
            }
            | Op::LoadVar { .. }
            | Op::StoreVar { .. }
    );
    if !integer {
        return false;
    }
    let mut changed = false;
    let index = match op {
        Op::LoadVar { index, .. } | Op::StoreVar { index, .. } => Some(*index),
        _ => None,
    };
    op.visit_regs(&mut |r, role| {
        // Of a variable access only the index: the stored value is not an integer op's.
        if role != Role::Use || index.is_some_and(|i| i != *r) || constants.get(*r).is_some() {
            return;
        }
        let (Some(&v), Some(&ty)) = (values.get(r), constants.reg_types().get(*r as usize)) else {
            return;
        };
        *r = constants.register(ty, v);
        changed = true;
    });
    changed
}

/// What [`copy_at_known_index`] did.
enum Rewrite {
    Kept,
    Copy,
    /// A store outside its variable: the op stays until the block is done (the values after it
    /// are the same with or without it), then goes.
    Dropped,
}

/// A `LoadVar`/`StoreVar` at a known index made a copy (or a zero, or nothing).
fn copy_at_known_index(op: &mut Op, values: &Values, constants: &mut Constants<'_>) -> Rewrite {
    let (var, offset, index) = match *op {
        Op::LoadVar {
            var, offset, index, ..
        }
        | Op::StoreVar {
            var, offset, index, ..
        } => (var, offset, index),
        _ => return Rewrite::Kept,
    };
    let Some(k) = value(values, constants, index) else {
        return Rewrite::Kept;
    };
    let element = k.wrapping_add(u64::from(offset));
    let reg_types = constants.reg_types();
    let bytes = |r: Reg| reg_types.get(r as usize).map(|t| t.bytes());
    let inside = element < u64::from(var.len);
    let target = var.base.wrapping_add(element as u32);
    match *op {
        Op::LoadVar { dst, .. } if inside => {
            if bytes(dst) != bytes(target) {
                return Rewrite::Kept;
            }
            *op = Op::Mov { dst, src: target };
        }
        Op::LoadVar { dst, .. } => {
            let Some(&ty) = reg_types.get(dst as usize) else {
                return Rewrite::Kept;
            };
            let zero = constants.register(ty, 0);
            *op = Op::Mov { dst, src: zero };
        }
        Op::StoreVar { value: v, .. } if inside => {
            if bytes(v) != bytes(target) {
                return Rewrite::Kept;
            }
            *op = Op::Mov {
                dst: target,
                src: v,
            };
        }
        Op::StoreVar { .. } => return Rewrite::Dropped,
        _ => return Rewrite::Kept,
    }
    Rewrite::Copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::IBin;
    use crate::ir::{Edge, Term, Var};

    fn block(ops: Vec<Op>, term: Term) -> Block {
        Block::new(ops, term)
    }

    fn jump(target: u32) -> Term {
        Term::Jump(Edge::to(target))
    }

    /// Registers 0..4 a variable, 4 an index counted up in two blocks, 5 a value, 6 = 1 and
    /// 7 = 0 constants: both stores become copies into the variable's registers 0 and 1.
    #[test]
    fn stores_at_counted_indices_become_copies() {
        let var = Var { base: 0, len: 4 };
        let store = Op::StoreVar {
            var,
            offset: 0,
            index: 4,
            value: 5,
        };
        let count = Op::IBin {
            op: IBin::Add,
            width: 32,
            dst: 4,
            lhs: 4,
            rhs: 6,
        };
        let mut blocks = vec![
            block(
                vec![Op::Mov { dst: 4, src: 7 }, store.clone(), count],
                jump(1),
            ),
            block(vec![store], Term::Exit),
        ];
        let mut types = vec![RegType::Int(32); 8];
        let mut consts = vec![(6, 1), (7, 0)];
        let mut constants = Constants::new(&mut types, &mut consts);
        assert!(fold_known(&mut blocks, &mut constants));
        assert_eq!(blocks[0].ops[1], Op::Mov { dst: 0, src: 5 });
        assert_eq!(blocks[1].ops[0], Op::Mov { dst: 1, src: 5 });
        // The count now reads constants: 0 + 1.
        assert_eq!(
            blocks[0].ops[2],
            Op::IBin {
                op: IBin::Add,
                width: 32,
                dst: 4,
                lhs: 7,
                rhs: 6,
            }
        );
    }

    /// A block with two predecessors knows nothing; a load past the end reads zero.
    #[test]
    fn merges_forget_and_loads_past_the_end_read_zero() {
        let var = Var { base: 0, len: 2 };
        let load = |index| Op::LoadVar {
            dst: 3,
            var,
            offset: 1,
            index,
        };
        let branch = Term::Branch {
            cond: 5,
            if_true: Edge {
                target: 1,
                moves: vec![(2, 6)],
            },
            if_false: Edge::to(2),
        };
        let mut blocks = vec![
            block(vec![load(6)], branch),
            block(vec![load(2)], jump(2)),
            block(vec![load(2)], Term::Exit),
        ];
        let mut types = vec![RegType::Int(32); 7];
        types[5] = RegType::Bool;
        let mut consts = vec![(6, 1)];
        let mut constants = Constants::new(&mut types, &mut consts);
        assert!(fold_known(&mut blocks, &mut constants));
        let zero = constants
            .get(7)
            .map(|_| 7)
            .expect("a zero constant was made");
        assert_eq!(blocks[0].ops[0], Op::Mov { dst: 3, src: zero });
        // Register 2 is 1 along the edge (a copy of the constant), so 1 + 1 is past the end.
        assert_eq!(blocks[1].ops[0], Op::Mov { dst: 3, src: zero });
        assert_eq!(blocks[2].ops[0], load(2));
    }
}
