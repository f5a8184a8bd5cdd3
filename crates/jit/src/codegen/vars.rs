//! Function variables (local arrays) and selects in compiled code: loads from and stores to a
//! variable at a constant, uniform or varying index (a variable's elements are registers;
//! resident variables live in their register-file rows), picks and `OpSelect`.

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value};
use tessera_spirv::alu::FCmp;
use tessera_spirv::ir::{Op, Reg, Var};

use super::Gen;
use super::float::float_vec;
use super::values::{JVal, lane_flags, own_flags, scalar_ty, vec_ty};

/// How many ops before a select `Gen::min_max_select` looks for its condition's compare.
const MIN_MAX_WINDOW: usize = 32;

impl Gen<'_> {
    /// `dst = choices[offset + index]` (0 out of range): a chain of selects on the index, lane
    /// by lane for a varying one (more than 16 choices with a varying index, or more than 64,
    /// go to the interpreter).
    pub(super) fn pick_uniform(
        &mut self,
        dst: u32,
        index: u32,
        offset: u32,
        choices: &[Reg],
    ) -> JitResult<bool> {
        let idx = self.get(index);
        if choices.len() > 64 {
            return self.pick_from_table(dst, index, offset, choices);
        }
        let bytes = self.bytes(dst);
        let ib = self.bytes(index);
        if !idx.is_scalar() {
            return self.pick_varying(dst, index, offset, choices);
        }
        if let JVal::Const(k) = idx {
            let at = k.wrapping_add(u64::from(offset));
            let v = match usize::try_from(at).ok().and_then(|i| choices.get(i)) {
                Some(&r) => self.get(r),
                None => JVal::Const(0),
            };
            self.set(dst, v)?;
            return Ok(true);
        }
        let i = self
            .scalar(&idx, ib)
            .ok_or(JitError::NotUniform("scalar"))?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        let vals: Vec<JVal> = choices.iter().map(|&r| self.get(r)).collect();
        let scalar = vals.iter().all(JVal::is_scalar);
        let mut acc: Vec<Value> = if scalar {
            vec![self.iconst(scalar_ty(bytes), 0)]
        } else {
            self.vectors(&JVal::Const(0), bytes)
        };
        for (k, v) in vals.iter().enumerate() {
            let eq = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
            let parts = if scalar {
                vec![
                    self.scalar(v, bytes)
                        .ok_or(JitError::NotUniform("scalar"))?,
                ]
            } else {
                self.vectors(v, bytes)
            };
            for (a, p) in acc.iter_mut().zip(parts) {
                *a = self.b.ins().select(eq, p, *a);
            }
        }
        let r = if scalar {
            JVal::Uniform(acc[0])
        } else {
            JVal::Varying(acc)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// The vectors of `index + offset` (at the index's width), for `lanes_selecting`.
    fn offset_index(&mut self, index: u32, offset: u32) -> Vec<Value> {
        let ib = self.bytes(index);
        let idx = self.get(index);
        let offset_vec = self.const_vec(ib, 0, |_| u64::from(offset));
        self.vectors(&idx, ib)
            .into_iter()
            .map(|x| self.b.ins().iadd(x, offset_vec))
            .collect()
    }

    /// Lane masks of `bytes`-byte lanes: the lanes whose index (`idx`, `ib`-byte lanes) is `k`.
    fn lanes_selecting(&mut self, idx: &[Value], ib: usize, k: usize, bytes: usize) -> Vec<Value> {
        let key = self.const_vec(ib, 0, |_| k as u64);
        let hits: Vec<Value> = idx
            .iter()
            .map(|&x| self.b.ins().icmp(IntCC::Equal, x, key))
            .collect();
        let bools = self.bools_from_masks(&hits, ib);
        self.masks_from_bools(bools, bytes)
    }

    /// `dst = choices[index + offset]` (0 out of range) over more choices than a select chain
    /// is worth, when every choice is the same in all lanes (a lookup table a shader copies
    /// into a local array, as ggml's quantisation grids): the choices go to a stack table and
    /// each lane loads its entry (one load for a uniform index).
    fn pick_from_table(
        &mut self,
        dst: u32,
        index: u32,
        offset: u32,
        choices: &[Reg],
    ) -> JitResult<bool> {
        let bytes = self.bytes(dst);
        let values: Vec<JVal> = choices.iter().map(|&r| self.get(r)).collect();
        // At most 4 KiB of stack per site (ggml's grids: 256 × 4 bytes).
        if choices.len() * bytes > 4096
            || !values.iter().all(JVal::is_scalar)
            || choices.iter().any(|&r| self.bytes(r) != bytes)
        {
            return Ok(false);
        }
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (choices.len() * bytes) as u32,
            3,
        ));
        let table = self.b.ins().stack_addr(I64, slot, 0);
        for (k, v) in values.iter().enumerate() {
            let x = self
                .scalar(v, bytes)
                .ok_or(JitError::NotUniform("a table entry"))?;
            self.b
                .ins()
                .store(own_flags(), x, table, (k * bytes) as i32);
        }
        let (idx, ib) = (self.get(index), self.bytes(index));
        let ty = scalar_ty(bytes);
        let count = choices.len() as i64;
        let entry = |g: &mut Self, i: Value| {
            let i = g.fit(i, I64);
            let i = g.b.ins().iadd_imm_s(i, i64::from(offset));
            let inside = g.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, i, count);
            let zero = g.b.ins().iconst(I64, 0);
            let safe = g.b.ins().select(inside, i, zero);
            let at = g.b.ins().imul_imm_s(safe, bytes as i64);
            let addr = g.b.ins().iadd(table, at);
            let x = g.b.ins().load(ty, own_flags(), addr, 0);
            let none = g.iconst(ty, 0);
            g.b.ins().select(inside, x, none)
        };
        let result = if idx.is_scalar() {
            let i = self
                .scalar(&idx, ib)
                .ok_or(JitError::NotUniform("a table index"))?;
            JVal::Uniform(entry(self, i))
        } else {
            JVal::Varying(self.lanes_to_vectors(bytes, |g, lane| {
                let i = g.lane(&idx, ib, lane);
                entry(g, i)
            }))
        };
        self.set(dst, result)?;
        Ok(true)
    }

    /// `dst = choices[index + offset]` (0 out of range) for a varying index: each choice fills
    /// the lanes whose index selects it (a lane mask per choice, up to 64 choices), as
    /// `store_var_varying` writes.
    fn pick_varying(
        &mut self,
        dst: u32,
        index: u32,
        offset: u32,
        choices: &[Reg],
    ) -> JitResult<bool> {
        let bytes = self.bytes(dst);
        let ib = self.bytes(index);
        let idx = self.offset_index(index, offset);
        let mut acc = self.vectors(&JVal::Const(0), bytes);
        for (k, &r) in choices.iter().enumerate() {
            let masks = self.lanes_selecting(&idx, ib, k, bytes);
            let value = self.get(r);
            let parts = self.vectors(&value, bytes);
            for ((a, &p), &m) in acc.iter_mut().zip(&parts).zip(&masks) {
                *a = self.b.ins().bitselect(m, p, *a);
            }
        }
        self.set(dst, JVal::Varying(acc))?;
        Ok(true)
    }

    /// The distance between the rows of resident variable `var`'s registers (one stride:
    /// `resident_registers` keeps only such variables in their rows).
    pub(super) fn var_stride(&self, var: Var) -> i64 {
        let base = var.base as usize;
        self.layout.offsets[base + 1] as i64 - self.layout.offsets[base] as i64
    }

    /// A load of register `index + offset` of resident variable `var` at a varying `index`:
    /// each lane reads its element from the row its index selects (0 out of range, as
    /// `resident_var` reads).
    pub(super) fn resident_var_gather(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        dst: Reg,
    ) -> JitResult<bool> {
        let bytes = self.bytes(var.base);
        let stride = self.var_stride(var);
        let (idx, ib) = (self.get(index), self.bytes(index));
        let row = self.row_addr(var.base);
        let ty = scalar_ty(bytes);
        let vs = self.lanes_to_vectors(bytes, |g, lane| {
            let i = g.lane(&idx, ib, lane);
            let i = g.fit(i, I64);
            let i = g.b.ins().iadd_imm_s(i, i64::from(offset));
            let inside =
                g.b.ins()
                    .icmp_imm_s(IntCC::UnsignedLessThan, i, i64::from(var.len));
            let zero = g.b.ins().iconst(I64, 0);
            let safe = g.b.ins().select(inside, i, zero);
            let step = g.b.ins().imul_imm_s(safe, stride);
            let addr = g.b.ins().iadd(row, step);
            let x = g.b.ins().load(ty, own_flags(), addr, (lane * bytes) as i32);
            let none = g.iconst(ty, 0);
            g.b.ins().select(inside, x, none)
        });
        self.set(dst, JVal::Varying(vs))?;
        Ok(true)
    }

    /// `var[offset + index] = value` (dropped out of range) for a uniform or constant index:
    /// every element of the variable selects between its value and `value`.
    /// A load or store of register `index + offset` of resident variable `var` (uniform
    /// `index`): its row's address is computed; an index out of the variable reads zero and
    /// writes nothing, as `pick_uniform` and `store_var_uniform` do.
    pub(super) fn resident_var(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        access: VarAccess,
    ) -> JitResult<bool> {
        let bytes = self.bytes(var.base);
        let stride = self.var_stride(var);
        let idx = self.get(index);
        let i = self
            .scalar(&idx, self.bytes(index))
            .ok_or(JitError::NotUniform("a resident variable's index"))?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, i, i64::from(var.len));
        let zero = self.b.ins().iconst(I64, 0);
        let safe = self.b.ins().select(inside, i, zero);
        let step = self.b.ins().imul_imm_s(safe, stride);
        let row = self.row_addr(var.base);
        let addr = self.b.ins().iadd(row, step);
        let vt = vec_ty(bytes);
        match access {
            VarAccess::Load(dst) => {
                let loaded: Vec<Value> = (0..bytes)
                    .map(|j| self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32))
                    .collect();
                let zeros = self.vectors(&JVal::Const(0), bytes);
                let vs = loaded
                    .iter()
                    .zip(zeros)
                    .map(|(&x, z)| self.b.ins().select(inside, x, z))
                    .collect();
                self.set(dst, JVal::Varying(vs))?;
            }
            VarAccess::Store(value) => {
                // Out of range, the row goes to the context's scratch bytes (at most 128 of
                // its 512) instead.
                let mut v = self.get(value);
                let scratch = self.scratch_addr();
                let target = self.b.ins().select(inside, addr, scratch);
                if let Some(lanes) = self.mask.as_ref().map(|m| m.lanes) {
                    // Under a mask only the active lanes' elements change (as `set` does).
                    let old = JVal::Varying(
                        (0..bytes)
                            .map(|j| self.b.ins().load(vt, own_flags(), target, (16 * j) as i32))
                            .collect(),
                    );
                    v = self.blend(lanes, &v, &old, bytes);
                }
                let new = self.vectors(&v, bytes);
                for (j, n) in new.into_iter().enumerate() {
                    self.b.ins().store(own_flags(), n, target, (16 * j) as i32);
                }
            }
        }
        Ok(true)
    }

    /// A store into a variable at a varying index: each element takes the value in the lanes
    /// whose index selects it (a lane mask per element, up to 64 elements).
    pub(super) fn store_var_varying(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        value: u32,
    ) -> JitResult<bool> {
        let regs: Vec<Reg> = (var.base..var.base + var.len).collect();
        if regs.len() > 64
            || regs
                .iter()
                .any(|&r| !matches!(self.classes[r as usize], crate::classes::Class::Varying))
        {
            return Ok(false);
        }
        let ib = self.bytes(index);
        let idx = self.offset_index(index, offset);
        let v = self.get(value);
        for (k, &r) in regs.iter().enumerate() {
            let bytes = self.bytes(r);
            let masks = self.lanes_selecting(&idx, ib, k, bytes);
            let old = self.get(r);
            let (os, ns) = (self.vectors(&old, bytes), self.vectors(&v, bytes));
            let new = os
                .iter()
                .zip(&ns)
                .zip(&masks)
                .map(|((&o, &n), &m)| self.b.ins().bitselect(m, n, o))
                .collect();
            self.set(r, JVal::Varying(new))?;
        }
        Ok(true)
    }

    pub(super) fn store_var_uniform(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        value: u32,
    ) -> JitResult<bool> {
        let idx = self.get(index);
        if !idx.is_scalar() {
            return self.store_var_varying(var, offset, index, value);
        }
        if var.len > 256 {
            return Ok(false);
        }
        let regs: Vec<Reg> = (var.base..var.base + var.len).collect();
        if regs
            .iter()
            .any(|&r| matches!(self.classes[r as usize], crate::classes::Class::Affine(_)))
        {
            return Ok(false);
        }
        let v = self.get(value);
        if let JVal::Const(k) = idx {
            let at = k.wrapping_add(u64::from(offset));
            if let Some(&r) = usize::try_from(at).ok().and_then(|i| regs.get(i)) {
                self.set(r, v)?;
            }
            return Ok(true);
        }
        let ib = self.bytes(index);
        let i = self
            .scalar(&idx, ib)
            .ok_or(JitError::NotUniform("scalar"))?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        for (k, &r) in regs.iter().enumerate() {
            let bytes = self.bytes(r);
            let old = self.get(r);
            let eq = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
            let new = if old.is_scalar() && v.is_scalar() {
                let (o, n) = (
                    self.scalar(&old, bytes)
                        .ok_or(JitError::NotUniform("scalar"))?,
                    self.scalar(&v, bytes)
                        .ok_or(JitError::NotUniform("scalar"))?,
                );
                JVal::Uniform(self.b.ins().select(eq, n, o))
            } else {
                let (os, ns) = (self.vectors(&old, bytes), self.vectors(&v, bytes));
                JVal::Varying(
                    os.iter()
                        .zip(&ns)
                        .map(|(&o, &n)| self.b.ins().select(eq, n, o))
                        .collect(),
                )
            };
            self.set(r, new)?;
        }
        Ok(true)
    }

    pub(super) fn select(
        &mut self,
        dst: u32,
        cond: u32,
        if_true: u32,
        if_false: u32,
    ) -> JitResult<bool> {
        let bytes = self.bytes(dst);
        let c = self.get(cond);
        let (t, f) = (self.get(if_true), self.get(if_false));
        let r = match &c {
            JVal::Const(k) => {
                if *k != 0 {
                    t
                } else {
                    f
                }
            }
            JVal::Uniform(k) => match (&t, &f) {
                _ if t.is_scalar() && f.is_scalar() => {
                    let x = self
                        .scalar(&t, bytes)
                        .ok_or(JitError::NotUniform("scalar"))?;
                    let y = self
                        .scalar(&f, bytes)
                        .ok_or(JitError::NotUniform("scalar"))?;
                    JVal::Uniform(self.b.ins().select(*k, x, y))
                }
                (JVal::Affine(x, s), JVal::Affine(y, u)) if s == u => {
                    JVal::Affine(self.b.ins().select(*k, *x, *y), *s)
                }
                _ => {
                    let xs = self.vectors(&t, bytes);
                    let ys = self.vectors(&f, bytes);
                    JVal::Varying(
                        xs.iter()
                            .zip(&ys)
                            .map(|(&x, &y)| self.b.ins().select(*k, x, y))
                            .collect(),
                    )
                }
            },
            JVal::Varying(b) => match self.min_max_select(cond, if_true, if_false) {
                Some(r) => r,
                None => self.blend(b[0], &t, &f, bytes),
            },
            JVal::Affine(..) => return Err(JitError::Unexpected("affine select condition")),
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// A select of one of a float compare's operands by that compare (`x < y ? x : y` and its
    /// mirror images, strict compares only, so that equal operands and NaNs pick the same
    /// operand as the select): one `minps`/`maxps` per vector, in the `bitselect` form
    /// Cranelift lowers to them, instead of a compare and a blend. The compare must be the
    /// condition's definition in the current block with both operands unchanged since.
    fn min_max_select(&mut self, cond: Reg, if_true: Reg, if_false: Reg) -> Option<JVal> {
        let (block, at) = self.at;
        let ops = &self.ir.blocks[block as usize].ops;
        // (Compilers put the compare just before its select; a bounded look keeps long blocks
        // of selects linear.)
        let from = at.saturating_sub(MIN_MAX_WINDOW);
        let def = from + ops[from..at].iter().rposition(|op| op.defines(cond))?;
        let Op::FCmp {
            op,
            width: width @ (32 | 64),
            lhs,
            rhs,
            ..
        } = ops[def]
        else {
            return None;
        };
        if ops[def + 1..at]
            .iter()
            .any(|o| o.defines(lhs) || o.defines(rhs))
        {
            return None;
        }
        // `cond` as `[not] (u < v)`, ordered.
        let (u, v, negated) = match op {
            FCmp::OLt => (lhs, rhs, false),
            FCmp::UGe => (lhs, rhs, true),
            FCmp::OGt => (rhs, lhs, false),
            FCmp::ULe => (rhs, lhs, true),
            _ => return None,
        };
        let (t, f) = if negated {
            (if_false, if_true)
        } else {
            (if_true, if_false)
        };
        // `u < v ? u : v` (minps) or `u < v ? v : u` (maxps).
        let min = match (t, f) {
            _ if (t, f) == (u, v) => true,
            _ if (t, f) == (v, u) => false,
            _ => return None,
        };
        let bytes = usize::from(width / 8);
        let (a, b) = (self.get(u), self.get(v));
        let xs = self.vectors(&a, bytes);
        let ys = self.vectors(&b, bytes);
        let fvec = float_vec(width);
        let out = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| {
                let (x, y) = (self.vec_to_float(x, width), self.vec_to_float(y, width));
                let less = self.b.ins().fcmp(FloatCC::LessThan, x, y);
                let mask = self.b.ins().bitcast(fvec, lane_flags(), less);
                let r = if min {
                    self.b.ins().bitselect(mask, x, y)
                } else {
                    self.b.ins().bitselect(mask, y, x)
                };
                self.vec_from_float(r, width)
            })
            .collect();
        Some(JVal::Varying(out))
    }

    /// Lane by lane `cond ? on_true : on_false` for values of `bytes`-byte lanes (`cond` an
    /// `I8X16` of 0/1 bools): how a select with a varying condition and the merges after
    /// masked branches combine their two values.
    pub(super) fn blend(
        &mut self,
        cond: Value,
        on_true: &JVal,
        on_false: &JVal,
        bytes: usize,
    ) -> JVal {
        let masks = self.masks_from_bools(cond, bytes);
        let xs = self.vectors(on_true, bytes);
        let ys = self.vectors(on_false, bytes);
        JVal::Varying(
            masks
                .iter()
                .zip(xs.iter().zip(&ys))
                .map(|(&m, (&x, &y))| self.lane_select(m, x, y))
                .collect(),
        )
    }
}

/// What `Gen::resident_var` does.
#[derive(Debug, Clone, Copy)]
pub(super) enum VarAccess {
    /// Into this register.
    Load(Reg),
    /// This register's value.
    Store(Reg),
}
