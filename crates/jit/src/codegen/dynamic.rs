//! Tensor accesses whose descriptor index is a run-time value (an array of tensors indexed by a
//! push constant, a loop counter or `nonuniformEXT(i)`): before the access, one call of
//! `ctx::tensor_site` finds the view the index names and fills the op's dynamic site, whose
//! fields the access then reads instead of a static site's (`Gen::site`). A varying index is
//! checked once per chunk: when every lane names the same tensor the access runs natively on
//! it; a chunk whose lanes name different tensors runs the access once for each tensor named,
//! under the mask of the lanes naming it (`by_tensor`), lowest lane first: each pass finds its
//! tensor's view, reads into the lanes of its mask (the others keep what the passes before
//! read) or writes their elements by the edge path. A write checks its view first (the edge
//! path under a mask does not); a hand-back inside a pass restarts the whole op in the
//! interpreter (`Restart::Op`), or, under a region's mask, the region.
//!
//! Invariants: the site's fields are loaded after the call, in the op's own code, never
//! hoisted (the call rewrites them: `cold_loads` is on for the op); `Gen::dyn_site` holds
//! them for the op being generated only (keyed by its position), and every path of the op is
//! dominated by the loads; a pass runs for a lane of the active ones only, each lane's once.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::ir::{DescIdx, Reg, TensorAcc};

use super::Gen;
use super::masked::{Masked, Restart};
use super::values::{JVal, own_flags, scalar_ty, vec_ty};
use crate::ctx::field;
use crate::error::{JitError, JitResult};

impl Gen<'_> {
    /// `OpTensorReadARM` (see the module docs for a run-time descriptor index).
    pub(super) fn tensor_read(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        dsts: &[Reg],
    ) -> JitResult<bool> {
        self.with_site(t, Access::Read(dsts), |g| {
            g.tensor_read_at(t, coords, signed, cw, dsts)
        })
    }

    /// `OpTensorWriteARM` (see the module docs for a run-time descriptor index).
    pub(super) fn tensor_write(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
    ) -> JitResult<bool> {
        self.with_site(t, Access::Write, |g| {
            g.tensor_write_at(t, coords, signed, cw, values)
        })
    }

    /// `OpTensorQuerySizeARM` (see the module docs for a run-time descriptor index).
    pub(super) fn tensor_query(
        &mut self,
        t: &TensorAcc,
        dim: Reg,
        width: u8,
        dst: Reg,
    ) -> JitResult<bool> {
        self.with_site(t, Access::Read(&[dst]), |g| {
            g.tensor_query_at(t, dim, width, dst)
        })
    }

    /// Runs `access` with `t`'s site: the static one, or the op's dynamic one found first; for
    /// a varying index, once on the tensor every lane names, or, when the lanes disagree, once
    /// for each tensor named (`by_tensor`).
    fn with_site(
        &mut self,
        t: &TensorAcc,
        kind: Access,
        access: impl Fn(&mut Self) -> JitResult<bool>,
    ) -> JitResult<bool> {
        let DescIdx::Dyn(index) = t.desc else {
            return access(self);
        };
        let v = self.get(index);
        let bytes = self.bytes(index);
        let (chosen, agreed) = self.first_lane_agreed(&v, bytes);
        let Some(agreed) = agreed else {
            return self.on_site(t, chosen, false, &access);
        };
        let same = self.b.create_block();
        let split = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(agreed, same, &[], split, &[]);
        self.enter_sealed(same);
        let taken = self.on_site(t, chosen, false, &access)?;
        self.b.ins().jump(join, &[]);
        self.enter_sealed(split);
        if taken {
            self.by_tensor(t, &v, bytes, kind, &access)?;
        }
        self.b.ins().jump(join, &[]);
        self.enter_sealed(join);
        Ok(taken)
    }

    /// Runs `access` on the site of the tensor whose index is `index` (a scalar), after a
    /// check of its view when `check_view` (a write under a mask: the edge path leaves that
    /// check to its caller).
    fn on_site(
        &mut self,
        t: &TensorAcc,
        index: Value,
        check_view: bool,
        access: &impl Fn(&mut Self) -> JitResult<bool>,
    ) -> JitResult<bool> {
        let fields = self.dynamic_site(t, index);
        if check_view {
            let not_ok = self.b.ins().icmp_imm_s(IntCC::Equal, fields[2], 0);
            self.hand_back_if(not_ok);
        }
        self.dyn_site = Some((self.at, fields));
        let cold = std::mem::replace(&mut self.cold_loads, true);
        let done = access(self);
        self.cold_loads = cold;
        self.dyn_site = None;
        done
    }

    /// The access for a chunk whose active lanes name different tensors (their indices `v`,
    /// `bytes` wide): a loop in generated code that takes the lowest lane left, runs `access`
    /// on its tensor under the mask of the lanes left that name it, and drops those lanes,
    /// until none is left (see the module docs).
    fn by_tensor(
        &mut self,
        t: &TensorAcc,
        v: &JVal,
        bytes: usize,
        kind: Access,
        access: &impl Fn(&mut Self) -> JitResult<bool>,
    ) -> JitResult<()> {
        let outer = self.mask.clone();
        let active = match &outer {
            Some(m) => m.lanes,
            None => {
                let one = self.b.ins().iconst(I8, 1);
                self.b.ins().splat(I8X16, one)
            }
        };
        let indices = self.edge_slot((16 * bytes) as u32);
        self.edge_spill(v, bytes, indices, 0);
        let head = self.b.create_block();
        let left = self.b.append_block_param(head, I8X16);
        let pass = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(active)]);
        self.b.switch_to_block(head);
        let any = self.b.ins().vany_true(left);
        self.b.ins().brif(any, pass, &[], done, &[]);
        self.enter_sealed(pass);
        // The lowest lane left, and its index.
        let lane = self.first_lane(left);
        let at = self.b.ins().imul_imm_s(lane, bytes as i64);
        let at = self.b.ins().iadd(indices, at);
        let index = self.b.ins().load(scalar_ty(bytes), own_flags(), at, 0);
        // The lanes left that name the same tensor.
        let wanted = self.b.ins().splat(vec_ty(bytes), index);
        let masks: Vec<Value> = self
            .vectors(v, bytes)
            .into_iter()
            .map(|x| self.b.ins().icmp(IntCC::Equal, x, wanted))
            .collect();
        let naming = self.bools_from_masks(&masks, bytes);
        let lanes = self.b.ins().band(naming, left);
        let dsts: &[Reg] = match kind {
            Access::Read(dsts) => dsts,
            Access::Write => &[],
        };
        let before: Vec<JVal> = dsts.iter().map(|&d| self.get(d)).collect();
        let restart = outer.as_ref().map_or(Restart::Op, |m| m.restart.clone());
        self.mask = Some(Masked { lanes, restart });
        let taken = self.on_site(t, index, matches!(kind, Access::Write), access);
        self.mask = outer;
        if !taken? {
            return Err(JitError::Unexpected(
                "a tensor access taken on one tensor refused under a mask",
            ));
        }
        for (&d, old) in dsts.iter().zip(before) {
            let new = self.get(d);
            let bytes = self.bytes(d);
            let merged = self.blend(lanes, &new, &old, bytes);
            self.set(d, merged)?;
        }
        let rest = self.b.ins().band_not(left, lanes);
        self.b.ins().jump(head, &[BlockArg::Value(rest)]);
        self.b.seal_block(head);
        self.enter_sealed(done);
        Ok(())
    }

    /// The call of `ctx::tensor_site` for `t` with `index` (a scalar), and the site's fields:
    /// (ptr, len, ok, rank, dims, strides).
    fn dynamic_site(&mut self, t: &TensorAcc, index: Value) -> [Value; 6] {
        let chosen = self.fit(index, I64);
        self.sites.dynamic.push(*t);
        let site = self
            .b
            .ins()
            .iconst(I64, self.sites.dynamic.len() as i64 - 1);
        let f = self.ctx_load(I64, field!(tensor_site_fn));
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.physical, f, &[self.ctx, site, chosen]);
        let p = self.b.inst_results(call)[0];
        std::array::from_fn(|k| self.b.ins().load(I64, own_flags(), p, (8 * k) as i32))
    }
}

/// What a tensor access does with its results: reads into registers, or writes.
#[derive(Clone, Copy)]
enum Access<'a> {
    /// A read or a size query, into these registers.
    Read(&'a [Reg]),
    Write,
}
