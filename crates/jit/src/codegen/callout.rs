//! Calls from compiled code into Rust: an op run by the interpreter for the chunk
//! (`ctx::run_op`) or by a native cooperative kernel (`ctx::coop`, told which lanes are active:
//! the training ops run under a divergent branch's mask), with its operands spilled to the
//! register file first and its results reloaded after.

use crate::error::JitResult;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::ir::{Op, Reg, Role};

use super::Gen;
use super::values::{JVal, own_flags, scalar_ty, vec_ty};
use crate::classes::Class;
use crate::ctx::field;

impl Gen<'_> {
    /// Hands op `op` to the interpreter: its operands go to the register file, the interpreter
    /// runs it over the chunk, its results come back.
    pub(crate) fn callout(&mut self, op: &Op) -> JitResult<()> {
        self.call_rust(op, false)
    }

    /// Runs cooperative op `op` through `ctx::coop`: its operands go to the register file,
    /// `tessera-coop`'s kernels run it over the chunk, its results come back.
    pub(crate) fn native_call(&mut self, op: &Op) -> JitResult<()> {
        self.call_rust(op, true)
    }

    /// [`Self::callout`] (`native` false) or [`Self::native_call`].
    pub(super) fn call_rust(&mut self, op: &Op, native: bool) -> JitResult<()> {
        if let Some(super::masked::Restart::Pcs) = self.mask.as_ref().map(|m| &m.restart) {
            // Its operands' and results' rows would change for every lane (`stepping`).
            return Err(crate::error::JitError::SteppedCallout);
        }
        let mut uses = Vec::new();
        let mut defs = Vec::new();
        op.for_each_reg(&mut |r, role| {
            if role == Role::Use {
                uses.push(r);
            }
        });
        if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
            uses.extend(var.base..var.base + var.len);
        }
        op.for_each_def(|r| defs.push(r));
        uses.sort_unstable();
        uses.dedup();
        for &r in &uses {
            self.spill(r, false);
        }
        let c = self.chunk();
        let call = if native {
            self.natives.push(op.clone());
            let index = self.b.ins().iconst(I32, self.natives.len() as i64 - 1);
            let f = self.ctx_load(I64, field!(coop_fn));
            let active = self.active_bits();
            self.b
                .ins()
                .call_indirect(self.sigs.coop, f, &[self.ctx, index, c, active])
        } else {
            self.callouts.push(op.clone());
            let index = self.b.ins().iconst(I32, self.callouts.len() as i64 - 1);
            let f = self.ctx_load(I64, field!(run_op_fn));
            self.b
                .ins()
                .call_indirect(self.sigs.run_op, f, &[self.ctx, index, c])
        };
        let stop = self.b.inst_results(call)[0];
        self.abort_if(stop);
        defs.sort_unstable();
        defs.dedup();
        for r in defs {
            self.reload_result(r)?;
        }
        Ok(())
    }

    /// The chunk's active lanes as an `I32` of 16 bits (lane `i`: bit `i`): the divergent
    /// branch's mask under one (`masked`), every lane otherwise.
    fn active_bits(&mut self) -> Value {
        match self.mask.as_ref().map(|m| m.lanes) {
            Some(lanes) => self.lane_bits(lanes),
            None => self.b.ins().iconst(I32, 0xffff),
        }
    }

    /// Reads a result the interpreter wrote: lane 0 for a uniform or affine register (the
    /// analysis says every lane agrees), all lanes for a varying one.
    pub(super) fn reload_result(&mut self, r: Reg) -> JitResult<()> {
        if self.resident[r as usize] {
            return Ok(()); // Its row is its home.
        }
        let bytes = self.bytes(r);
        let addr = self.row_addr(r);
        match self.classes[r as usize] {
            Class::Const(_) => Ok(()),
            Class::Varying => {
                let vs = (0..bytes)
                    .map(|j| {
                        self.b
                            .ins()
                            .load(vec_ty(bytes), own_flags(), addr, (16 * j) as i32)
                    })
                    .collect();
                self.set(r, JVal::Varying(vs))
            }
            Class::Affine(s) => {
                let x = self.b.ins().load(scalar_ty(bytes), own_flags(), addr, 0);
                self.set(r, JVal::Affine(x, s))
            }
            _ => {
                let x = self.b.ins().load(scalar_ty(bytes), own_flags(), addr, 0);
                self.set(r, JVal::Uniform(x))
            }
        }
    }
}
