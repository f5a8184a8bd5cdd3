//! Tensor accesses whose descriptor index is a run-time value (an array of tensors indexed by a
//! push constant, a loop counter or `nonuniformEXT(i)`): before the access, one call of
//! `ctx::tensor_site` finds the view the index names and fills the op's dynamic site, whose
//! fields the access then reads instead of a static site's (`Gen::site`). A varying index is
//! checked once per chunk: when every lane names the same tensor the access runs natively on
//! it; a chunk whose lanes name different tensors goes to the interpreter, which takes each
//! lane's own.
//!
//! Invariants: the site's fields are loaded after the call, in the op's own code, never
//! hoisted (the call rewrites them: `cold_loads` is on for the op); `Gen::dyn_site` holds
//! them for the op being generated only (keyed by its position), and every path of the op is
//! dominated by the loads.

use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::ir::{DescIdx, Reg, TensorAcc};

use super::Gen;
use super::values::own_flags;
use crate::ctx::field;
use crate::error::JitResult;

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
        self.with_site(t, |g| g.tensor_read_at(t, coords, signed, cw, dsts))
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
        self.with_site(t, |g| g.tensor_write_at(t, coords, signed, cw, values))
    }

    /// `OpTensorQuerySizeARM` (see the module docs for a run-time descriptor index).
    pub(super) fn tensor_query(
        &mut self,
        t: &TensorAcc,
        dim: Reg,
        width: u8,
        dst: Reg,
    ) -> JitResult<bool> {
        self.with_site(t, |g| g.tensor_query_at(t, dim, width, dst))
    }

    /// Runs `access` with `t`'s site: the static one, or the op's dynamic one found first.
    fn with_site(
        &mut self,
        t: &TensorAcc,
        access: impl FnOnce(&mut Self) -> JitResult<bool>,
    ) -> JitResult<bool> {
        let DescIdx::Dyn(index) = t.desc else {
            return access(self);
        };
        let fields = self.dynamic_site(t, index)?;
        self.dyn_site = Some((self.at, fields));
        let cold = std::mem::replace(&mut self.cold_loads, true);
        let done = access(self);
        self.cold_loads = cold;
        self.dyn_site = None;
        done
    }

    /// The call of `ctx::tensor_site` for `t` with the index in register `index` (a varying
    /// one checked to be the same in every lane, else the chunk goes to the interpreter), and
    /// the site's fields: (ptr, len, ok, rank, dims, strides).
    fn dynamic_site(&mut self, t: &TensorAcc, index: Reg) -> JitResult<[Value; 6]> {
        let v = self.get(index);
        let bytes = self.bytes(index);
        let (chosen, agreed) = self.first_lane_agreed(&v, bytes);
        if let Some(one) = agreed {
            let differ = self.b.ins().bxor_imm_s(one, 1);
            self.hand_back_if(differ);
        }
        let chosen = self.fit(chosen, I64);
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
        Ok(std::array::from_fn(|k| {
            self.b.ins().load(I64, own_flags(), p, (8 * k) as i32)
        }))
    }
}
