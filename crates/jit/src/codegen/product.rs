//! Cooperative-matrix multiply-adds: one direct call of the half-subgroup kernel
//! (`ctx::product`, `HalfProduct::run_batch`) with pointers to the operands' component rows,
//! operands that stay in their variables, and runs of multiply-adds in one call.
//!
//! A run of consecutive multiply-adds of one form in a block, none of which writes a register
//! another of them reads or writes ([`batches`]: the four products of an unrolled GEMM step),
//! is one call with a list of operands; the kernel then runs two products that share `B`
//! together (each row of `B` widened once) and reuses a staged 8-bit `B`. The first of the run
//! makes the call; the others generate nothing. Under a mask each runs on its own, as before.
//!
//! A multiply-add whose form the kernel takes (`HalfProduct::direct`), in a workgroup of whole
//! subgroups, passes the kernel where each operand's components are: the first row and the
//! distance between rows (its registers' rows lie at one stride, as consecutive registers'
//! do). Any other goes through `ctx::coop` (`Gen::native_call`), which finds the rows itself.
//!
//! Code that keeps its matrices in arrays (`acc[i][j] = coopMatMulAdd(a[i], b[j], acc[i][j])`
//! in a loop over tiles, as glslc emits it without optimisation) loads each operand from its
//! variable into temporaries right before the multiply-add: a copy of every component row,
//! which the kernel then reads again. When the temporaries only feed the multiply-add
//! ([`fused_products`] says when), those loads are not compiled: the kernel reads the
//! variable's rows, at the index the code computes, after one check that the index keeps the
//! whole operand inside the variable. When it does not, the skipped loads run there, then the
//! call with the temporaries, so an index out of range reads zeros as `LoadVar` does.
//!
//! The result goes the same way: `acc[i][j] = …` stores each result component into the array
//! right after the multiply-add, at an index computed in between. When the results feed only
//! those stores and are dead after them, the index arithmetic runs before the call and the
//! kernel writes the array's rows (in place when they are `C`'s), after one check that the
//! index keeps the whole result inside the variable; when it does not, the call writes the
//! temporaries and the stores run as written (dropping what falls outside).
//!
//! Invariants: a load is skipped only when, between it and the multiply-add, nothing can
//! write its variable or its index, read its temporary, or hand the chunk back to the
//! interpreter (which would read the temporary's row), and the temporary is dead after the
//! multiply-add; every path that does not read the variable runs exactly the skipped loads.
//! A store is taken only when the ops between the multiply-add and it are integer arithmetic
//! that reads no result and writes nothing the multiply-add reads, the variable or a result
//! (so running it first changes nothing), and the results are dead after the stores; every
//! path that does not write the variable runs exactly the arithmetic and the stores.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use tessera_spirv::ir::liveness::Liveness;
use tessera_spirv::ir::{Ir, Op, Reg, Role, Var};

use cranelift_codegen::ir::{StackSlotData, StackSlotKind, Value};
use tessera_coop::matrix::MulAdd;
use tessera_coop::matrix::SUBGROUP;
use tessera_coop::product::{HalfProduct, Operands};
use tessera_spirv::exec::regfile::RegLayout;

use super::Gen;
use super::analysis::row_stride;
use super::operands::LoadPlaces;
use super::values::own_flags;
use crate::classes::Class;
use crate::ctx::field;
use crate::error::JitResult;

/// An operand that a multiply-add reads from registers `offset + index ..` of `var`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VarOperand {
    pub(crate) var: Var,
    pub(crate) offset: u32,
    pub(crate) index: Reg,
}

/// Where a program's multiply-adds read operands from their variables.
#[derive(Debug, Default)]
pub(crate) struct Fusions {
    /// Per multiply-add, by (block, op): its `A`, `B` and `C` operands that stay in variables.
    pub(crate) products: HashMap<(u32, usize), [Option<VarOperand>; 3]>,
    /// Per multiply-add, by (block, op): the variable its result is stored into, and the ops
    /// between it and those stores (the stores' index arithmetic), which run before it.
    pub(crate) results: HashMap<(u32, usize), (VarOperand, Vec<usize>)>,
    /// The `LoadVar`s, `StoreVar`s and index arithmetic (block, op) those multiply-adds make
    /// unnecessary or run themselves.
    pub(crate) skipped: HashSet<(u32, usize)>,
}

/// Finds the multiply-adds of `ir` whose operands can be read from their variables (see the
/// module docs): those the kernel takes directly. `resident` says which registers live in
/// their rows; `wg_size` is the workgroup's invocation count.
pub(super) fn fused_products(
    ir: &Ir,
    classes: &[Class],
    resident: &[bool],
    live: &Liveness,
    wg_size: u32,
) -> Fusions {
    let mut out = Fusions::default();
    if !(wg_size as usize).is_multiple_of(SUBGROUP) {
        return out;
    }
    for (bi, block) in ir.blocks.iter().enumerate() {
        for (p, op) in block.ops.iter().enumerate() {
            let Op::CoopMatMulAdd {
                form,
                dsts,
                a,
                b,
                c,
            } = op
            else {
                continue;
            };
            if !HalfProduct::direct(form) {
                continue;
            }
            let lists = [a, b, c];
            let mut found = [None; 3];
            for (o, regs) in lists.iter().enumerate() {
                let others = lists
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != o)
                    .flat_map(|(_, l)| l.iter());
                if others.clone().any(|r| regs.contains(r)) {
                    continue;
                }
                let site = Site {
                    ir,
                    classes,
                    resident,
                    live,
                    block: bi,
                    at: p,
                };
                let Some((operand, loads)) = site.var_operand(regs, dsts) else {
                    continue;
                };
                if loads.iter().any(|&q| out.skipped.contains(&(bi as u32, q))) {
                    continue;
                }
                found[o] = Some(operand);
                out.skipped.extend(loads.iter().map(|&q| (bi as u32, q)));
            }
            if found.iter().any(Option::is_some) {
                out.products.insert((bi as u32, p), found);
            }
            let site = Site {
                ir,
                classes,
                resident,
                live,
                block: bi,
                at: p,
            };
            if let Some((target, stores, early)) = site.result_target(op, dsts, &found)
                && !stores
                    .iter()
                    .chain(&early)
                    .any(|&q| out.skipped.contains(&(bi as u32, q)))
            {
                out.skipped
                    .extend(stores.iter().chain(&early).map(|&q| (bi as u32, q)));
                out.results.insert((bi as u32, p), (target, early));
            }
        }
    }
    out
}

/// Runs of consecutive multiply-adds that one kernel call runs (`HalfProduct::run_batch`).
#[derive(Debug, Default)]
pub(crate) struct Batches {
    /// The first multiply-add of each run, by (block, op), and how many the run holds.
    pub(crate) first: HashMap<(u32, usize), usize>,
    /// The other multiply-adds of the runs (their first one's call runs them).
    pub(crate) rest: HashSet<(u32, usize)>,
}

/// The most multiply-adds one call runs (`HalfProduct::run_batch`'s limit).
const MAX_BATCH: usize = 64;

/// Finds the runs of consecutive multiply-adds of one form that one call can run: each direct,
/// reading no variable in place (`fusions`), every operand at one stride (its rows, or where a
/// load left it: `places`), and none writing a register another reads or writes, so that the
/// kernel may run them in any order.
pub(super) fn batches(
    ir: &Ir,
    layout: &RegLayout,
    fusions: &Fusions,
    places: &LoadPlaces,
    wg_size: u32,
) -> Batches {
    let mut out = Batches::default();
    if !(wg_size as usize).is_multiple_of(SUBGROUP) {
        return out;
    }
    for (bi, block) in ir.blocks.iter().enumerate() {
        let key = |p: usize| (bi as u32, p);
        let member = |p: usize| -> Option<(MulAdd, HashSet<Reg>, HashSet<Reg>)> {
            let Op::CoopMatMulAdd {
                form,
                dsts,
                a,
                b,
                c,
            } = block.ops.get(p)?
            else {
                return None;
            };
            let in_place = places.operands.get(&key(p)).copied().unwrap_or_default();
            let placed = [a, b, c, dsts].iter().enumerate().all(|(o, regs)| {
                (o < 2 && in_place[o].is_some()) || row_stride(layout, regs).is_some()
            });
            if !HalfProduct::direct(form)
                || !placed
                || fusions.products.contains_key(&key(p))
                || fusions.results.contains_key(&key(p))
            {
                return None;
            }
            let reads = a.iter().chain(b.iter()).chain(c.iter()).copied().collect();
            Some((*form, reads, dsts.iter().copied().collect()))
        };
        let mut p = 0;
        while p < block.ops.len() {
            let Some((form, mut reads, mut writes)) = member(p) else {
                p += 1;
                continue;
            };
            let mut n = 1;
            while n < MAX_BATCH {
                let Some((f, r, w)) = member(p + n) else {
                    break;
                };
                let clash =
                    !w.is_disjoint(&reads) || !w.is_disjoint(&writes) || !writes.is_disjoint(&r);
                if f != form || clash {
                    break;
                }
                reads.extend(r);
                writes.extend(w);
                n += 1;
            }
            if n > 1 {
                out.first.insert(key(p), n);
                out.rest.extend((p + 1..p + n).map(key));
            }
            p += n;
        }
    }
    out
}

/// A multiply-add: op `at` of block `block`.
struct Site<'a> {
    ir: &'a Ir,
    classes: &'a [Class],
    resident: &'a [bool],
    live: &'a Liveness,
    block: usize,
    at: usize,
}

impl Site<'_> {
    /// The variable operand `regs` was loaded from, and the ops that loaded it, when the
    /// module docs' conditions hold.
    fn var_operand(&self, regs: &[Reg], dsts: &[Reg]) -> Option<(VarOperand, Vec<usize>)> {
        let ops = &self.ir.blocks[self.block].ops;
        let mut loads = Vec::with_capacity(regs.len());
        let mut first: Option<VarOperand> = None;
        for (i, &x) in regs.iter().enumerate() {
            let q = (0..self.at).rev().find(|&q| ops[q].defines(x))?;
            let Op::LoadVar {
                var, offset, index, ..
            } = ops[q]
            else {
                return None;
            };
            match first {
                None => first = Some(VarOperand { var, offset, index }),
                Some(f) => {
                    if var != f.var || index != f.index || offset != f.offset + i as u32 {
                        return None;
                    }
                }
            }
            loads.push(q);
        }
        let f = first?;
        let within = |r: Reg| (f.var.base..f.var.base + f.var.len).contains(&r);
        let types = &self.ir.reg_types;
        let unique = regs.iter().collect::<HashSet<_>>().len() == regs.len();
        if !unique
            || !self.resident[f.var.base as usize]
            || matches!(self.classes[f.index as usize], Class::Varying)
            || types[f.var.base as usize] != types[regs[0] as usize]
            || u64::from(f.offset) + regs.len() as u64 > u64::from(f.var.len)
            || regs.iter().any(|&r| within(r))
            || dsts.iter().any(|&d| within(d) || d == f.index)
        {
            return None;
        }
        // Between the first load and the multiply-add: ops that cannot hand back, write the
        // variable, the index or a temporary, or read a temporary.
        let start = *loads.iter().min()?;
        for (q, op) in ops.iter().enumerate().take(self.at).skip(start) {
            if loads.contains(&q) {
                continue;
            }
            if !self.harmless(op) || reads_any(op, regs) {
                return None;
            }
            let mut bad = false;
            op.for_each_def(|r| bad |= within(r) || r == f.index || regs.contains(&r));
            if bad {
                return None;
            }
        }
        // After it: the temporaries are dead.
        self.dead_after(regs, self.at).then_some((f, loads))
    }

    /// The variable the multiply-add `op` (results `dsts`, operands read from `operands`)
    /// stores its result into, when the ops after it are some index arithmetic and then one
    /// `StoreVar` per result, in order, at one uniform index and consecutive offsets, and the
    /// results are dead after: the target, the stores and the arithmetic ops. The arithmetic
    /// then runs before the multiply-add, so it must not read a result, write what the
    /// multiply-add reads, or write the target variable or a result.
    fn result_target(
        &self,
        op: &Op,
        dsts: &[Reg],
        operands: &[Option<VarOperand>; 3],
    ) -> Option<(VarOperand, Vec<usize>, Vec<usize>)> {
        let ops = &self.ir.blocks[self.block].ops;
        let (mut stores, mut early) = (Vec::new(), Vec::new());
        let mut first: Option<VarOperand> = None;
        let mut q = self.at + 1;
        while stores.len() < dsts.len() {
            match ops.get(q)? {
                Op::StoreVar {
                    var,
                    offset,
                    index,
                    value,
                } => {
                    let j = stores.len();
                    if *value != dsts[j] {
                        return None;
                    }
                    match first {
                        None => {
                            first = Some(VarOperand {
                                var: *var,
                                offset: *offset,
                                index: *index,
                            })
                        }
                        Some(f) => {
                            if *var != f.var || *index != f.index || *offset != f.offset + j as u32
                            {
                                return None;
                            }
                        }
                    }
                    stores.push(q);
                }
                other => {
                    let arithmetic = matches!(
                        other,
                        Op::Mov { .. } | Op::IBin { .. } | Op::IUn { .. } | Op::ICmp { .. }
                    ) || matches!(other, Op::Conv { .. } if self.harmless(other));
                    if !stores.is_empty() || !arithmetic || reads_any(other, dsts) {
                        return None;
                    }
                    early.push(q);
                }
            }
            q += 1;
        }
        let f = first?;
        let within = |r: Reg| (f.var.base..f.var.base + f.var.len).contains(&r);
        let types = &self.ir.reg_types;
        if !self.resident[f.var.base as usize]
            || matches!(self.classes[f.index as usize], Class::Varying)
            || types[f.var.base as usize] != types[dsts[0] as usize]
            || u64::from(f.offset) + dsts.len() as u64 > u64::from(f.var.len)
            || dsts.iter().any(|&d| within(d) || d == f.index)
            || dsts.iter().collect::<HashSet<_>>().len() != dsts.len()
        {
            return None;
        }
        // What the multiply-add reads: its operands, and the variables and indices of those
        // read in place.
        let mut read = Vec::new();
        op.for_each_reg(&mut |r, role| {
            if role == Role::Use {
                read.push(r);
            }
        });
        for v in operands.iter().flatten() {
            read.push(v.index);
            read.extend(v.var.base..v.var.base + v.var.len);
        }
        for &e in &early {
            let mut bad = false;
            ops[e].for_each_def(|r| bad |= within(r) || dsts.contains(&r) || read.contains(&r));
            if bad {
                return None;
            }
        }
        // After the stores: the results are dead.
        let last = *stores.last()?;
        self.dead_after(dsts, last).then_some((f, stores, early))
    }

    /// Whether no op after op `at` of the block, nor its terminator, nor a later block reads
    /// one of `regs`.
    fn dead_after(&self, regs: &[Reg], at: usize) -> bool {
        let block = &self.ir.blocks[self.block];
        !(block.ops[at + 1..].iter().any(|op| reads_any(op, regs))
            || block.term.condition().is_some_and(|c| regs.contains(&c))
            || block
                .term
                .edges()
                .into_iter()
                .any(|e| e.moves.iter().any(|&(_, s)| regs.contains(&s)))
            || regs
                .iter()
                .any(|&r| self.live.live_out[self.block].contains(r)))
    }

    /// Whether `op` can sit between a skipped load and its multiply-add ([`harmless`]).
    fn harmless(&self, op: &Op) -> bool {
        harmless(op, self.classes)
    }
}

/// Whether `op` never hands the chunk back and writes only its result (integer arithmetic,
/// conversions of uniform values, variable loads at a uniform index), by the registers'
/// classes.
pub(super) fn harmless(op: &Op, classes: &[Class]) -> bool {
    match op {
        Op::Mov { .. } | Op::IBin { .. } | Op::IUn { .. } | Op::ICmp { .. } | Op::Select { .. } => {
            true
        }
        Op::LoadVar { index, .. } => !matches!(classes[*index as usize], Class::Varying),
        Op::Conv { dst, src, .. } => [dst, src]
            .iter()
            .all(|&&r| !matches!(classes[r as usize], Class::Varying | Class::Affine(_))),
        _ => false,
    }
}

/// Whether `op` reads one of `regs` (a variable access reads its whole variable).
fn reads_any(op: &Op, regs: &[Reg]) -> bool {
    let mut hit = false;
    op.clone()
        .visit_regs(&mut |x, role| hit |= role == Role::Use && regs.contains(x));
    if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
        hit |= regs
            .iter()
            .any(|r| (var.base..var.base + var.len).contains(r));
    }
    hit
}

impl Gen<'_> {
    /// `OpCooperativeMatrixMulAddKHR`: a direct kernel call when the module docs' conditions
    /// hold, with the operands [`fused_products`] found read from their variables; through
    /// `ctx::coop` otherwise.
    pub(crate) fn mul_add(&mut self, op: &Op) -> JitResult<()> {
        let Op::CoopMatMulAdd {
            form,
            dsts,
            a,
            b,
            c,
        } = op
        else {
            return self.native_call(op);
        };
        let operands = self
            .fusions
            .products
            .get(&self.at)
            .copied()
            .unwrap_or_default();
        let result = self.fusions.results.get(&self.at).cloned();
        let lists: [&[Reg]; 4] = [a, b, c, dsts];
        let direct = HalfProduct::direct(form)
            && (self.shape.wg_size as usize).is_multiple_of(SUBGROUP)
            && self.mask.is_none();
        if direct && self.batches.rest.contains(&self.at) {
            // The first multiply-add of its run ran it.
            return Ok(());
        }
        if let Some(&count) = self.batches.first.get(&self.at).filter(|_| direct) {
            return self.batch_call(op, count);
        }
        let loaded = [self.loaded_place(0), self.loaded_place(1)];
        if !direct {
            self.skipped_loads(&operands, &lists)?;
            self.fill_loaded_rows([a, b]);
            self.native_call(op)?;
            return self.result_stores(&result, dsts, true);
        }
        // The index arithmetic of the result's stores runs first (`fused_products`).
        if let Some((_, early)) = &result {
            let ops = &self.ir.blocks[self.at.0 as usize].ops;
            for &e in early {
                self.op(&ops[e])?;
            }
        }
        // Every index keeps its operand (or the result) inside its variable: the places of the
        // variables' rows.
        let mut inside = None;
        let mut in_vars = [loaded[0], loaded[1], None, None];
        let targets = [
            operands[0],
            operands[1],
            operands[2],
            result.as_ref().map(|r| r.0),
        ];
        for (o, operand) in targets.iter().enumerate() {
            let Some(v) = operand else { continue };
            let idx = self.get(v.index);
            let Some(i) = self.scalar(&idx, self.bytes(v.index)) else {
                inside = None;
                break;
            };
            let i = self.fit(i, I64);
            // The analysis made this at least 0.
            let room = i64::from(v.var.len) - i64::from(v.offset) - lists[o].len() as i64;
            let fits = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, i, room);
            inside = Some(match inside {
                None => fits,
                Some(all) => self.b.ins().band(all, fits),
            });
            let stride = self.var_stride(v.var);
            // Below `len` after the check: the product stays inside the row offsets.
            let zero = self.b.ins().iconst(I64, 0);
            let safe = self.b.ins().select(fits, i, zero);
            let step = self.b.ins().imul_imm_s(safe, stride);
            let first = self.row_addr(v.var.base + v.offset);
            let stride = self.b.ins().iconst(I64, stride);
            in_vars[o] = Some((self.b.ins().iadd(first, step), stride));
        }
        let join = self.b.create_block();
        if let Some(inside) = inside {
            let fast = self.b.create_block();
            let slow = self.b.create_block();
            self.b.ins().brif(inside, fast, &[], slow, &[]);
            self.enter_sealed(fast);
            self.direct_call(op, &lists, in_vars)?;
            self.b.ins().jump(join, &[]);
            self.enter_sealed(slow);
        }
        self.skipped_loads(&operands, &lists)?;
        self.direct_call(op, &lists, [loaded[0], loaded[1], None, None])?;
        self.result_stores(&result, dsts, false)?;
        self.b.ins().jump(join, &[]);
        self.enter_sealed(join);
        Ok(())
    }

    /// The run of `count` multiply-adds that starts with `op` ([`batches`]) in one call of
    /// `ctx::product`: each one's operands where a load left them or at their rows.
    fn batch_call(&mut self, op: &Op, count: usize) -> JitResult<()> {
        let ir = self.ir;
        let (block, first) = self.at;
        let size = std::mem::size_of::<Operands>();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (count * size) as u32,
            3,
        ));
        let args = self.b.ins().stack_addr(I64, slot, 0);
        let mut results = Vec::new();
        for m in 0..count {
            let Some(Op::CoopMatMulAdd { dsts, a, b, c, .. }) =
                ir.blocks[block as usize].ops.get(first + m)
            else {
                return self.native_call(op);
            };
            let lists: [&[Reg]; 4] = [a, b, c, dsts];
            for (o, regs) in lists.iter().enumerate() {
                let place = if o < 2 {
                    self.loaded_place_at((block, first + m), o)
                } else {
                    None
                };
                let (base, stride) = match place {
                    Some(place) => place,
                    None => {
                        if o < 3 {
                            for &r in regs.iter() {
                                self.spill(r, false);
                            }
                        }
                        let stride = row_stride(self.layout, regs).unwrap_or(0);
                        (self.row_addr(regs[0]), self.b.ins().iconst(I64, stride))
                    }
                };
                let at = (m * size + 16 * o) as i32;
                self.b.ins().store(own_flags(), base, args, at);
                self.b.ins().store(own_flags(), stride, args, at + 8);
            }
            results.extend_from_slice(dsts);
        }
        self.natives.push(op.clone());
        let index = self.b.ins().iconst(I32, self.natives.len() as i64 - 1);
        let n = self.b.ins().iconst(I32, count as i64);
        let f = self.ctx_load(I64, field!(product_fn));
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.product, f, &[self.ctx, index, args, n]);
        let stop = self.b.inst_results(call)[0];
        self.abort_if(stop);
        for r in results {
            self.reload_result(r)?;
        }
        Ok(())
    }

    /// Runs the stores of the result into its variable that [`fused_products`] took (after
    /// their index arithmetic, unless it ran already: `with_arithmetic`).
    fn result_stores(
        &mut self,
        result: &Option<(VarOperand, Vec<usize>)>,
        dsts: &[Reg],
        with_arithmetic: bool,
    ) -> JitResult<()> {
        let Some((target, early)) = result else {
            return Ok(());
        };
        if with_arithmetic {
            let ops = &self.ir.blocks[self.at.0 as usize].ops;
            for &e in early {
                self.op(&ops[e])?;
            }
        }
        for (j, &value) in dsts.iter().enumerate() {
            // (`self.at` is the multiply-add's: these stores are not skipped.)
            self.op(&Op::StoreVar {
                var: target.var,
                offset: target.offset + j as u32,
                index: target.index,
                value,
            })?;
        }
        Ok(())
    }

    /// Runs the loads [`fused_products`] skipped for `operands` (into their temporaries).
    fn skipped_loads(
        &mut self,
        operands: &[Option<VarOperand>; 3],
        lists: &[&[Reg]; 4],
    ) -> JitResult<()> {
        for (o, operand) in operands.iter().enumerate() {
            let Some(v) = operand else { continue };
            for (i, &dst) in lists[o].iter().enumerate() {
                // (`self.at` is the multiply-add's: these loads are not skipped.)
                self.op(&Op::LoadVar {
                    dst,
                    var: v.var,
                    offset: v.offset + i as u32,
                    index: v.index,
                })?;
            }
        }
        Ok(())
    }

    /// The multiply-add `op` through `ctx::product`: operand `o` at `in_vars[o]` (first
    /// component, bytes between components: in its variable or where a load left it) when
    /// given, else at its registers' rows; through `ctx::coop` when those rows are not at one
    /// stride.
    fn direct_call(
        &mut self,
        op: &Op,
        lists: &[&[Reg]; 4],
        in_vars: [Option<(Value, Value)>; 4],
    ) -> JitResult<()> {
        let strides: Vec<Option<i64>> = lists
            .iter()
            .enumerate()
            .map(|(o, regs)| match in_vars.get(o).copied().flatten() {
                Some(_) => Some(0),
                None => row_stride(self.layout, regs),
            })
            .collect();
        if strides.iter().any(Option::is_none) {
            self.fill_loaded_rows([lists[0], lists[1]]);
            return self.native_call(op);
        }
        for (o, regs) in lists.iter().enumerate().take(3) {
            if in_vars[o].is_none() {
                for &r in regs.iter() {
                    self.spill(r, false);
                }
            }
        }
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<Operands>() as u32,
            3,
        ));
        let args = self.b.ins().stack_addr(I64, slot, 0);
        for (o, regs) in lists.iter().enumerate() {
            let (base, stride) = match in_vars.get(o).copied().flatten() {
                Some(place) => place,
                None => {
                    let stride = self.b.ins().iconst(I64, strides[o].unwrap_or(0));
                    (self.row_addr(regs[0]), stride)
                }
            };
            let at = (16 * o) as i32;
            self.b.ins().store(own_flags(), base, args, at);
            self.b.ins().store(own_flags(), stride, args, at + 8);
        }
        self.natives.push(op.clone());
        let index = self.b.ins().iconst(I32, self.natives.len() as i64 - 1);
        let one = self.b.ins().iconst(I32, 1);
        let f = self.ctx_load(I64, field!(product_fn));
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.product, f, &[self.ctx, index, args, one]);
        let stop = self.b.inst_results(call)[0];
        self.abort_if(stop);
        // A result written into its variable leaves its (dead) registers alone.
        if in_vars[3].is_none() {
            for &r in lists[3] {
                self.reload_result(r)?;
            }
        }
        Ok(())
    }
}
