//! Cooperative-matrix loads that multiply-adds read where they found them: no copy into the
//! register file.
//!
//! A GEMM's inner loop loads `A` and `B` tiles (`coopMatLoad`) and multiplies them right away;
//! the load copies every component into its register rows, and the kernel reads the rows again.
//! When a load's components are read only by multiply-adds of the same block, as their `A` or
//! `B`, the load instead leaves two values in Cranelift variables, the operand's *place*: the
//! address of component 0 and the bytes between components. On its inline path (the whole
//! matrix inside the window, `coop::matrix_rows`) that is the matrix in application memory,
//! row after row; otherwise the load runs as before and the place is its register rows. The
//! multiply-adds pass the place to the kernel; one that cannot call the kernel directly (under
//! a mask, a form it does not take) first copies the components from the place into the rows,
//! a copy onto itself when the place is the rows.
//!
//! Conditions ([`load_places`]): the matrix has 16 columns (component `i` is row `i`, at one
//! stride), its components are distinct resident registers at one row stride, and each is read
//! only by multiply-adds after the load in the same block, as their whole `A` or `B` list and
//! nothing else (not live after the block, not on its edges). Between the load and the last
//! such multiply-add every op is one that cannot write memory or hand the chunk back: integer
//! arithmetic, uniform conversions, variable loads at a uniform index, other matrix loads and
//! multiply-adds (which only call the kernels). So the memory read in place holds what the
//! load saw, and nothing reads the rows the load did not write.
//!
//! Invariant: wherever a multiply-add is generated, its load was generated before it in the same
//! emission of the block, so the place variables are defined: every emission of a block (the
//! plain one, a masked region's or loop's run and check pass) generates its ops in order, matrix
//! loads and multiply-adds are pure (check passes run them) and nothing skips a matrix load.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;
use tessera_coop::matrix::SUBGROUP;
use tessera_coop::product::HalfProduct;
use tessera_spirv::exec::regfile::RegLayout;
use tessera_spirv::ir::liveness::Liveness;
use tessera_spirv::ir::{Ir, Op, Reg, Role};

use super::Gen;
use super::analysis::row_stride;
use super::values::{app_flags, own_flags, vec_ty};
use crate::classes::Class;

/// The loads read in place, and where each multiply-add finds its `A` and `B`.
#[derive(Debug, Default)]
pub(crate) struct LoadPlaces {
    /// The loads (block, op) that leave a place instead of filling their rows.
    pub(crate) loads: HashSet<(u32, usize)>,
    /// Per multiply-add (block, op): the load (op index in the block) of its `A` and of its
    /// `B`, when they are such loads.
    pub(crate) operands: HashMap<(u32, usize), [Option<usize>; 2]>,
}

/// Finds the loads the module docs describe.
pub(super) fn load_places(
    ir: &Ir,
    classes: &[Class],
    resident: &[bool],
    layout: &RegLayout,
    live: &Liveness,
    wg_size: u32,
) -> LoadPlaces {
    let mut out = LoadPlaces::default();
    if !(wg_size as usize).is_multiple_of(SUBGROUP) {
        return out;
    }
    for (bi, block) in ir.blocks.iter().enumerate() {
        let ops = &block.ops;
        for (q, op) in ops.iter().enumerate() {
            let Op::CoopMatLoad {
                ty,
                column_major,
                dsts,
                ..
            } = op
            else {
                continue;
            };
            let unique = dsts.iter().collect::<HashSet<_>>().len() == dsts.len();
            if *column_major
                || ty.cols != 16
                || dsts.is_empty()
                || !unique
                || !dsts.iter().all(|&d| resident[d as usize])
                || row_stride(layout, dsts).is_none()
            {
                continue;
            }
            let reads = |op: &Op| {
                let mut hit = false;
                op.for_each_reg(&mut |r, role| hit |= role == Role::Use && dsts.contains(&r));
                if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
                    hit |= dsts
                        .iter()
                        .any(|r| (var.base..var.base + var.len).contains(r));
                }
                hit
            };
            // The multiply-adds that read the components, and which operand they are.
            let mut users: Vec<(usize, usize)> = Vec::new();
            let mut fits = true;
            for (p, later) in ops.iter().enumerate().skip(q + 1) {
                let mut writes = false;
                later.for_each_def(|r| writes |= dsts.contains(&r));
                if writes {
                    fits = false;
                    break;
                }
                if !reads(later) {
                    continue;
                }
                let Op::CoopMatMulAdd { form, a, b, c, .. } = later else {
                    fits = false;
                    break;
                };
                let which = if a == dsts { 0 } else { 1 };
                let other = if which == 0 { b } else { a };
                if !HalfProduct::direct(form)
                    || (a != dsts && b != dsts)
                    || other.iter().chain(c.iter()).any(|r| dsts.contains(r))
                {
                    fits = false;
                    break;
                }
                users.push((p, which));
            }
            let Some(&(last, _)) = users.last() else {
                continue;
            };
            let dead = !dsts.iter().any(|&d| live.live_out[bi].contains(d))
                && block.term.condition().is_none_or(|c| !dsts.contains(&c))
                && block
                    .term
                    .edges()
                    .iter()
                    .all(|e| e.moves.iter().all(|&(_, s)| !dsts.contains(&s)));
            let quiet = ops[q + 1..last]
                .iter()
                .all(|between| cannot_write_or_leave(between, classes));
            if !(fits && dead && quiet) {
                continue;
            }
            out.loads.insert((bi as u32, q));
            for (p, which) in users {
                out.operands.entry((bi as u32, p)).or_default()[which] = Some(q);
            }
        }
    }
    out
}

/// Whether `op` can sit between a load read in place and its multiply-adds (the module docs):
/// what may sit between a skipped variable load and its multiply-add (`product::harmless`),
/// other matrix loads and multiply-adds.
fn cannot_write_or_leave(op: &Op, classes: &[Class]) -> bool {
    matches!(op, Op::CoopMatLoad { .. } | Op::CoopMatMulAdd { .. })
        || super::product::harmless(op, classes)
}

impl Gen<'_> {
    /// The variables of the place of load `q` of the current block (made on first use).
    fn place_vars(&mut self, q: usize) -> (Variable, Variable) {
        let key = (self.at.0, q);
        if let Some(&v) = self.places.get(&key) {
            return v;
        }
        let v = (self.b.declare_var(I64), self.b.declare_var(I64));
        self.places.insert(key, v);
        v
    }

    /// Sets the place of the current load: `at` (address of component 0, bytes between
    /// components), or its register rows when `at` is `None`.
    pub(super) fn set_place(&mut self, dsts: &[Reg], at: Option<(Value, Value)>) {
        let (addr_var, stride_var) = self.place_vars(self.at.1);
        let (addr, stride) = match at {
            Some(place) => place,
            None => {
                let first = self.row_addr(dsts[0]);
                let stride = row_stride(self.layout, dsts).unwrap_or(0);
                (first, self.b.ins().iconst(I64, stride))
            }
        };
        self.b.def_var(addr_var, addr);
        self.b.def_var(stride_var, stride);
    }

    /// Where the current multiply-add finds `A` (`which` 0) or `B` (1) when a load left it in
    /// place: the address of component 0 and the bytes between components.
    pub(super) fn loaded_place(&mut self, which: usize) -> Option<(Value, Value)> {
        self.loaded_place_at(self.at, which)
    }

    /// [`Self::loaded_place`] for the multiply-add at `at` (block, op) of the current block.
    pub(super) fn loaded_place_at(
        &mut self,
        at: (u32, usize),
        which: usize,
    ) -> Option<(Value, Value)> {
        let q = self.load_places.operands.get(&at)?[which]?;
        let (addr_var, stride_var) = self.place_vars(q);
        Some((self.b.use_var(addr_var), self.b.use_var(stride_var)))
    }

    /// Copies the current multiply-add's operands that loads left in place into their rows,
    /// for a path that reads the rows (`lists`: `A`, `B`).
    pub(super) fn fill_loaded_rows(&mut self, lists: [&[Reg]; 2]) {
        for (which, regs) in lists.into_iter().enumerate() {
            let Some((addr, stride)) = self.loaded_place(which) else {
                continue;
            };
            for (i, &r) in regs.iter().enumerate() {
                let bytes = self.bytes(r);
                let step = self.b.ins().imul_imm_s(stride, i as i64);
                let from = self.b.ins().iadd(addr, step);
                let to = self.row_addr(r);
                for j in 0..bytes {
                    let v = self
                        .b
                        .ins()
                        .load(vec_ty(bytes), app_flags(), from, (16 * j) as i32);
                    self.b.ins().store(own_flags(), v, to, (16 * j) as i32);
                }
            }
        }
    }
}
