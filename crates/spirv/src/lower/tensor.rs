//! `SPV_ARM_tensors` accesses: `OpTensorReadARM`, `OpTensorWriteARM`, `OpTensorQuerySizeARM`.
//! Tensor types are declared in `types`, tensor descriptors bound in `memory` (loading a tensor
//! pointer gives a `Val::Tensor`); here the operand must have a declared rank and as many
//! integer coordinates; their signedness and width, and the `OutOfBoundsValueARM` operand, go
//! into the op for `exec`.

use super::types::Leaf;
use super::{Id, LowerResult, Lowerer, Val, err, idref};
use crate::ir::Op;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op as S;
use std::collections::HashMap;

impl<'m> Lowerer<'m> {
    pub(super) fn tensor(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let t = match self.val(vals, idref(o.first())?)? {
            Val::Tensor(t) => t,
            // Tolerate a pointer to a tensor (loaded implicitly).
            Val::Ptr(p) => match self.load(p)? {
                Val::Tensor(t) => t,
                _ => return err(format!("{}: operand is not a tensor", self.at)),
            },
            _ => return err(format!("{}: operand is not a tensor", self.at)),
        };
        if t.rank == 0 {
            return err(format!(
                "{}: SPV_ARM_tensors accesses need an OpTypeTensorARM with a Rank",
                self.at
            ));
        }
        if inst.class.opcode == S::TensorQuerySizeARM {
            let dim = self.reg1(vals, idref(o.get(1))?)?;
            let w = self.fw(inst)?;
            let d = self.alloc(1)?;
            self.emit(Op::TensorQuery {
                tensor: t,
                dim,
                width: w,
                dst: d,
            });
            if let Some(r) = inst.result_id {
                vals.insert(r, Val::Regs(vec![d]));
            }
            return Ok(());
        }
        let cid = idref(o.get(1))?;
        let coords = self.regs(vals, cid)?;
        if coords.len() != t.rank as usize {
            return err(format!(
                "{}: {} coordinates for a rank-{} tensor",
                self.at,
                coords.len(),
                t.rank
            ));
        }
        let csc = self
            .typed_leaves(cid)?
            .first()
            .copied()
            .unwrap_or(Leaf::Int(32, false));
        let (signed, cw) = match csc {
            Leaf::Int(w, s) => (s, w),
            _ => return err(format!("{}: tensor coordinates must be integers", self.at)),
        };
        let (operands_at, value) = if inst.class.opcode == S::TensorWriteARM {
            (3, Some(self.regs(vals, idref(o.get(2))?)?))
        } else {
            (2, None)
        };
        let mut oob = None;
        if let Some(Operand::TensorOperands(mask)) = o.get(operands_at)
            && mask.contains(rspirv::spirv::TensorOperands::OUT_OF_BOUNDS_VALUE_ARM)
        {
            oob = Some(self.reg1(vals, idref(o.get(operands_at + 1))?)?);
        }
        match value {
            Some(v) => {
                if v.is_empty() {
                    return err(format!("{}: empty tensor write", self.at));
                }
                self.emit(Op::TensorWrite {
                    tensor: t,
                    coords: coords.into(),
                    signed,
                    coord_width: cw,
                    values: v.into(),
                });
            }
            None => {
                let n = self.nleaves(inst.result_type.unwrap_or(0))?;
                if n == 0 {
                    return err(format!("{}: tensor read of an empty type", self.at));
                }
                let d = self.alloc_v(n)?;
                self.emit(Op::TensorRead {
                    tensor: t,
                    coords: coords.into(),
                    signed,
                    coord_width: cw,
                    dsts: d.clone().into(),
                    oob,
                });
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(d));
                }
            }
        }
        Ok(())
    }
}
