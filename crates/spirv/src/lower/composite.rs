//! Composites and vector components: `OpCompositeConstruct` (and its one-scalar form for a
//! cooperative matrix), `OpCompositeExtract`/`Insert`, `OpVectorShuffle`, dynamic vector
//! extract and insert, copies and `OpUndef`. Values are scalarised (one register per leaf), so
//! these are mostly renamings of registers; dynamic indices become `Pick`s and selects.

use super::{Id, LowerResult, Lowerer, Val, err, idref, lit};
use crate::SpirvError;
use crate::alu::ICmp;
use crate::ir::Op;
use rspirv::dr::Instruction;
use rspirv::spirv::Op as S;
use std::collections::HashMap;

impl<'m> Lowerer<'m> {
    /// Lowers a composite or vector-component instruction (construct, extract, insert, shuffle, copies, undef). Returns false, having done nothing, for an instruction of another family.
    pub(super) fn lower_composite(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<bool> {
        let o = &inst.operands;
        let rid = inst.result_id;
        let rt = inst.result_type.unwrap_or(0);
        let set = |vals: &mut HashMap<Id, Val>, v: Val| {
            if let Some(r) = rid {
                vals.insert(r, v);
            }
        };
        match inst.class.opcode {
            S::CompositeConstruct if o.len() == 1 && self.is_coop_matrix_result(inst) => {
                // One scalar fills every component a lane holds.
                self.replicate(inst, vals)?
            }
            S::CompositeConstruct => {
                let mut out = Vec::new();
                for x in o {
                    out.extend(self.regs(vals, idref(Some(x))?)?);
                }
                if out.len() as u32 != self.nleaves(rt)? {
                    return err(format!("{}: wrong number of constituents", self.at));
                }
                set(vals, Val::Regs(out));
            }
            S::CompositeExtract => {
                let cid = idref(o.first())?;
                let c = self.regs(vals, cid)?;
                let mut ty = *self
                    .id_types
                    .get(&cid)
                    .ok_or_else(|| SpirvError::new(format!("{}: untyped composite", self.at)))?;
                let mut off = 0;
                for x in &o[1..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)?;
                let r = c
                    .get(off as usize..(off + n) as usize)
                    .ok_or_else(|| SpirvError::new("extract out of range"))?;
                set(vals, Val::Regs(r.to_vec()));
            }
            S::CompositeInsert => {
                let obj = self.regs(vals, idref(o.first())?)?;
                let mut c = self.regs(vals, idref(o.get(1))?)?;
                let mut ty = rt;
                let mut off = 0;
                for x in &o[2..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)? as usize;
                if obj.len() != n || off as usize + n > c.len() {
                    return err(format!("{}: inserted object has the wrong type", self.at));
                }
                c[off as usize..off as usize + n].copy_from_slice(&obj);
                set(vals, Val::Regs(c));
            }
            S::VectorShuffle => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let z = self.imm(0)?;
                let mut out = Vec::new();
                for x in &o[2..] {
                    let k = lit(Some(x))? as usize;
                    out.push(if k < a.len() {
                        a[k]
                    } else {
                        b.get(k - a.len()).copied().unwrap_or(z)
                    });
                }
                set(vals, Val::Regs(out));
            }
            S::VectorExtractDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let idx = self.reg1(vals, idref(o.get(1))?)?;
                let d = self.alloc(1)?;
                self.emit(Op::Pick {
                    dst: d,
                    index: idx,
                    choices: v.into(),
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::VectorInsertDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let comp = self.reg1(vals, idref(o.get(1))?)?;
                let idx = self.reg1(vals, idref(o.get(2))?)?;
                let iw = self
                    .typed_leaves(idref(o.get(2))?)?
                    .first()
                    .map(|s| s.width_code())
                    .unwrap_or(32);
                let mut out = Vec::new();
                for (i, &r) in v.iter().enumerate() {
                    let k = self.imm(i as u64)?;
                    let c = self.alloc(1)?;
                    self.emit(Op::ICmp {
                        op: ICmp::Eq,
                        width: iw,
                        dst: c,
                        lhs: idx,
                        rhs: k,
                    });
                    let d = self.alloc(1)?;
                    self.emit(Op::Select {
                        dst: d,
                        cond: c,
                        if_true: comp,
                        if_false: r,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::CopyObject | S::CopyLogical => {
                let v = self.val(vals, idref(o.first())?)?;
                set(vals, v);
            }
            S::Undef => {
                let n = self.nleaves(rt)?;
                let z = self.imm(0)?;
                set(vals, Val::Regs(vec![z; n as usize]));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
