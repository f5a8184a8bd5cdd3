//! Register liveness over the blocks of an [`Ir`]: which registers a block may read before it
//! writes them (`live_in`), and which its successors may read (`live_out`). A backend that keeps
//! registers in machine registers across blocks uses it to know what to save when it hands a
//! lane chunk to the interpreter, and what to load when it takes one back.
//!
//! Conservative by construction: a `LoadVar`/`StoreVar` reads its whole variable (a `StoreVar`
//! writes one element, so it kills nothing); constants and built-ins are never live (a backend
//! materialises them); edge copies read their sources at the end of the block and write their
//! destinations on the edge.

use super::{Ir, Op, Reg, Role};

/// A set of registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegSet {
    words: Vec<u64>,
}

impl RegSet {
    /// The empty set over `n` registers.
    pub fn new(n: u32) -> RegSet {
        RegSet {
            words: vec![0; (n as usize).div_ceil(64)],
        }
    }

    pub fn insert(&mut self, r: Reg) {
        if let Some(w) = self.words.get_mut(r as usize / 64) {
            *w |= 1 << (r % 64);
        }
    }

    pub fn remove(&mut self, r: Reg) {
        if let Some(w) = self.words.get_mut(r as usize / 64) {
            *w &= !(1 << (r % 64));
        }
    }

    pub fn contains(&self, r: Reg) -> bool {
        self.words
            .get(r as usize / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    /// Adds every register of `other`; true if the set grew.
    pub fn union_with(&mut self, other: &RegSet) -> bool {
        let mut grew = false;
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            let n = *w | o;
            grew |= n != *w;
            *w = n;
        }
        grew
    }

    /// The registers in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = Reg> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| (i * 64 + b) as Reg)
        })
    }
}

/// Live registers at the start and at the end of every block.
#[derive(Debug, Clone)]
pub struct Liveness {
    pub live_in: Vec<RegSet>,
    pub live_out: Vec<RegSet>,
}

impl Liveness {
    /// Computes liveness for `ir` (iterates to a fixed point; blocks are few).
    pub fn of(ir: &Ir) -> Liveness {
        let n = ir.nregs();
        let mut pinned = RegSet::new(n);
        for &(r, _) in &ir.consts {
            pinned.insert(r);
        }
        for (base, len) in ir.builtins.ranges() {
            for r in base..base + len {
                pinned.insert(r);
            }
        }
        // Per block: registers read before written (gen) and registers written (kill).
        let mut gen_sets = Vec::with_capacity(ir.blocks.len());
        let mut kill_sets = Vec::with_capacity(ir.blocks.len());
        for b in &ir.blocks {
            let mut g = RegSet::new(n);
            let mut k = RegSet::new(n);
            let read = |r: Reg, k: &RegSet, g: &mut RegSet| {
                if !k.contains(r) && !pinned.contains(r) {
                    g.insert(r);
                }
            };
            for op in &b.ops {
                if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
                    for r in var.base..var.base + var.len {
                        read(r, &k, &mut g);
                    }
                }
                let mut defs = Vec::new();
                op.clone().visit_regs(&mut |r, role| match role {
                    Role::Use => read(*r, &k, &mut g),
                    Role::Def => defs.push(*r),
                });
                for d in defs {
                    k.insert(d);
                }
            }
            if let Some(c) = b.term.condition() {
                read(c, &k, &mut g);
            }
            for e in b.term.edges() {
                for &(_, src) in &e.moves {
                    read(src, &k, &mut g);
                }
            }
            gen_sets.push(g);
            kill_sets.push(k);
        }
        let mut live_in: Vec<RegSet> = gen_sets.clone();
        let mut live_out: Vec<RegSet> = vec![RegSet::new(n); ir.blocks.len()];
        loop {
            let mut changed = false;
            for i in (0..ir.blocks.len()).rev() {
                let mut out = RegSet::new(n);
                for e in ir.blocks[i].term.edges() {
                    let Some(succ_in) = live_in.get(e.target as usize) else {
                        continue;
                    };
                    let mut through = succ_in.clone();
                    for &(dst, _) in &e.moves {
                        through.remove(dst);
                    }
                    out.union_with(&through);
                }
                // live_in = gen ∪ (out − kill)
                let mut inn = out.clone();
                for r in kill_sets[i].iter() {
                    inn.remove(r);
                }
                inn.union_with(&gen_sets[i]);
                changed |= live_out[i].union_with(&out);
                changed |= live_in[i].union_with(&inn);
            }
            if !changed {
                return Liveness { live_in, live_out };
            }
        }
    }
}
