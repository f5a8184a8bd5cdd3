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
    /// Computes liveness for `ir`: per-block read-before-write and written sets, then a fixed
    /// point over the blocks in reverse order (set operations a 64-register word at a time).
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
                // Reads come first (`for_each_reg`'s order), so an op that reads and writes a
                // register reads the value from before it.
                op.for_each_reg(&mut |r, role| match role {
                    Role::Use => read(r, &k, &mut g),
                    Role::Def => k.insert(r),
                });
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
        let mut out = RegSet::new(n);
        let mut through = RegSet::new(n);
        loop {
            let mut changed = false;
            for i in (0..ir.blocks.len()).rev() {
                out.words.fill(0);
                for e in ir.blocks[i].term.edges() {
                    let Some(succ_in) = live_in.get(e.target as usize) else {
                        continue;
                    };
                    if e.moves.is_empty() {
                        out.union_with(succ_in);
                        continue;
                    }
                    through.words.copy_from_slice(&succ_in.words);
                    for &(dst, _) in &e.moves {
                        through.remove(dst);
                    }
                    out.union_with(&through);
                }
                changed |= live_out[i].union_with(&out);
                // live_in = gen ∪ (out − kill); gen is in live_in from the start.
                let mut grew = false;
                for ((word, &o), &kill) in live_in[i]
                    .words
                    .iter_mut()
                    .zip(&out.words)
                    .zip(&kill_sets[i].words)
                {
                    let next = *word | (o & !kill);
                    grew |= next != *word;
                    *word = next;
                }
                changed |= grew;
            }
            if !changed {
                return Liveness { live_in, live_out };
            }
        }
    }
}
