//! Subgroups: the subgroup built-ins and `OpGroupNonUniform*` (Subgroup scope only).
//!
//! The subgroup size is fixed (`SUBGROUP_SIZE`, 32 lanes), so masks and ballots are `uvec4`s with
//! only `x` meaningful (`y`, `z`, `w` are zero). Built-ins are computed from
//! `LocalInvocationIndex` by ops in the entry block; group operations become `Op::Sub` (see the
//! crate's `subgroup`), except ballot bit extraction and find-LSB/MSB, which are plain per-lane
//! ALU ops. Vector operands are scalarised, one op per component.

use super::types::Leaf;
use super::{Id, LowerResult, Lowerer, Val, err, idref};
use crate::SpirvError;
use crate::alu::{FBin, IBin, ICmp, IUn};
use crate::ir::{Op, Reg, RegType};
use crate::subgroup::{Arith, SUBGROUP_SIZE, Scan, SubOp};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, GroupOperation, Op as S, Scope};
use std::collections::HashMap;

impl<'m> Lowerer<'m> {
    /// The `LocalInvocationIndex` register (allocated on first use; `exec` fills it).
    pub(super) fn local_index_reg(&mut self) -> LowerResult<Reg> {
        if let Some(r) = self.builtins.local_index {
            return Ok(r);
        }
        let r = self.alloc_typed(&[RegType::Int(32)])?;
        self.builtins.local_index = Some(r);
        Ok(r)
    }

    /// Registers of a subgroup built-in (`None` if `b` is not one), computed from
    /// `LocalInvocationIndex` by ops run in the entry block. Masks are `uvec4` with only `x`
    /// meaningful (32 lanes).
    pub(super) fn subgroup_builtin(
        &mut self,
        b: BuiltIn,
        pointee: Id,
        n: u32,
    ) -> LowerResult<Option<Reg>> {
        let leaves = self.leaves(pointee)?;
        let is_mask = matches!(
            b,
            BuiltIn::SubgroupEqMask
                | BuiltIn::SubgroupGeMask
                | BuiltIn::SubgroupGtMask
                | BuiltIn::SubgroupLeMask
                | BuiltIn::SubgroupLtMask
        );
        let is_scalar = matches!(
            b,
            BuiltIn::SubgroupSize
                | BuiltIn::SubgroupLocalInvocationId
                | BuiltIn::NumSubgroups
                | BuiltIn::SubgroupId
        );
        if !is_mask && !is_scalar {
            return Ok(None);
        }
        let want = if is_mask { 4 } else { 1 };
        if n != want || leaves.iter().any(|s| !matches!(s, Leaf::Int(32, _))) {
            return err(format!(
                "built-in {b:?} must be a {}",
                if is_mask { "uvec4" } else { "32-bit integer" }
            ));
        }
        let base = self.alloc_typed(&vec![RegType::Int(32); n as usize])?;
        let li = self.local_index_reg()?;
        let [x, y, z] = self.local_size.map(u64::from);
        let sg = SUBGROUP_SIZE as u64;
        let mut ops = Vec::new();
        let mut bin = |l: &mut Self, op: IBin, d: Reg, a: Reg, bv: u64| -> LowerResult<()> {
            let b = l.imm(bv)?;
            ops.push(Op::IBin {
                op,
                width: 32,
                dst: d,
                lhs: a,
                rhs: b,
            });
            Ok(())
        };
        match b {
            BuiltIn::SubgroupSize => {
                let a = self.imm(sg)?;
                ops.push(Op::Mov { dst: base, src: a });
            }
            BuiltIn::NumSubgroups => {
                let a = self.imm((x * y * z).div_ceil(sg))?;
                ops.push(Op::Mov { dst: base, src: a });
            }
            BuiltIn::SubgroupId => bin(self, IBin::ShrL, base, li, sg.trailing_zeros().into())?,
            BuiltIn::SubgroupLocalInvocationId => bin(self, IBin::And, base, li, sg - 1)?,
            _ => {
                let lane = self.alloc(1)?;
                bin(self, IBin::And, lane, li, sg - 1)?;
                let ones = self.imm(0xffff_ffff)?;
                let (start, invert) = match b {
                    BuiltIn::SubgroupEqMask => (1, false),
                    BuiltIn::SubgroupGeMask => (0xffff_ffff, false),
                    BuiltIn::SubgroupGtMask => (0xffff_fffe, false),
                    BuiltIn::SubgroupLeMask => (0xffff_fffe, true),
                    _ => (0xffff_ffff, true),
                };
                let s = self.imm(start)?;
                let t = if invert { self.alloc(1)? } else { base };
                ops.push(Op::IBin {
                    op: IBin::Shl,
                    width: 32,
                    dst: t,
                    lhs: s,
                    rhs: lane,
                });
                if invert {
                    ops.push(Op::IBin {
                        op: IBin::Xor,
                        width: 32,
                        dst: base,
                        lhs: t,
                        rhs: ones,
                    });
                }
                let zero = self.imm(0)?;
                for k in 1..4 {
                    ops.push(Op::Mov {
                        dst: base + k,
                        src: zero,
                    });
                }
            }
        }
        self.entry_init.extend(ops);
        Ok(Some(base))
    }

    /// One subgroup op into a new register.
    fn sub1(&mut self, op: SubOp, w: u8, a: Reg, b: Reg) -> LowerResult<Reg> {
        let d = self.alloc(1)?;
        self.emit(Op::Subgroup {
            op,
            width: w,
            dst: d,
            value: a,
            operand: b,
        });
        Ok(d)
    }

    /// `OpGroupNonUniform*`: vectors are scalarised; ballots are `uvec4` whose `x` holds the 32
    /// lanes' bits (`y`, `z`, `w` are zero).
    pub(super) fn group(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let scope = self.const_u32(idref(o.first())?)?;
        if scope != Scope::Subgroup as u32 {
            return err(format!(
                "{}: only Subgroup scope is supported (scope {scope})",
                self.at
            ));
        }
        let res = self.result_leaves(inst)?;
        let zero = self.imm(0)?;
        let value = |l: &mut Self, k: usize| -> LowerResult<(Vec<Reg>, Vec<Leaf>)> {
            let id = idref(o.get(k))?;
            let v = l.regs(vals, id)?;
            let lv = l.typed_leaves(id)?;
            if lv.len() != v.len() || v.is_empty() {
                return err(format!("{}: operand %{id} has the wrong type", l.at));
            }
            Ok((v, lv))
        };
        let scan = |l: &Self, k: usize| -> LowerResult<Scan> {
            Ok(match o.get(k) {
                Some(Operand::GroupOperation(GroupOperation::Reduce)) => {
                    Scan::Clustered(SUBGROUP_SIZE as u32)
                }
                Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => Scan::Inclusive,
                Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => Scan::Exclusive,
                Some(Operand::GroupOperation(GroupOperation::ClusteredReduce)) => {
                    let c = l.const_u32(idref(o.get(k + 2))?)?;
                    if !c.is_power_of_two() {
                        return err(format!("{}: cluster size {c} is not a power of two", l.at));
                    }
                    Scan::Clustered(c)
                }
                other => return err(format!("{}: unsupported group operation {other:?}", l.at)),
            })
        };
        let out: Vec<Reg> = match inst.class.opcode {
            S::GroupNonUniformElect => vec![self.sub1(SubOp::Elect, 1, zero, zero)?],
            S::GroupNonUniformAll | S::GroupNonUniformAny => {
                let v = self.reg1(vals, idref(o.get(1))?)?;
                let op = if inst.class.opcode == S::GroupNonUniformAll {
                    SubOp::All
                } else {
                    SubOp::Any
                };
                vec![self.sub1(op, 1, v, zero)?]
            }
            S::GroupNonUniformAllEqual => {
                let (v, lv) = value(self, 1)?;
                let mut acc: Option<Reg> = None;
                for (&r, sc) in v.iter().zip(&lv) {
                    let float = matches!(sc, Leaf::Float(_));
                    let e = self.sub1(SubOp::AllEqual { float }, sc.width_code(), r, zero)?;
                    acc = Some(match acc {
                        None => e,
                        Some(x) => {
                            let d = self.alloc(1)?;
                            self.emit(Op::IBin {
                                op: IBin::And,
                                width: 1,
                                dst: d,
                                lhs: x,
                                rhs: e,
                            });
                            d
                        }
                    });
                }
                vec![acc.ok_or_else(|| SpirvError::new(format!("{}: empty value", self.at)))?]
            }
            S::GroupNonUniformBroadcast
            | S::GroupNonUniformBroadcastFirst
            | S::GroupNonUniformShuffle
            | S::GroupNonUniformShuffleXor
            | S::GroupNonUniformShuffleUp
            | S::GroupNonUniformShuffleDown
            | S::GroupNonUniformQuadBroadcast
            | S::GroupNonUniformQuadSwap => {
                let (v, lv) = value(self, 1)?;
                let op = match inst.class.opcode {
                    S::GroupNonUniformBroadcast | S::GroupNonUniformShuffle => SubOp::Broadcast,
                    S::GroupNonUniformBroadcastFirst => SubOp::BroadcastFirst,
                    S::GroupNonUniformShuffleXor => SubOp::ShuffleXor,
                    S::GroupNonUniformShuffleUp => SubOp::ShuffleUp,
                    S::GroupNonUniformShuffleDown => SubOp::ShuffleDown,
                    S::GroupNonUniformQuadBroadcast => SubOp::QuadBroadcast,
                    _ => SubOp::QuadSwap,
                };
                let b = if op == SubOp::BroadcastFirst {
                    zero
                } else {
                    self.reg1(vals, idref(o.get(2))?)?
                };
                let mut out = Vec::with_capacity(v.len());
                for (&r, sc) in v.iter().zip(&lv) {
                    out.push(self.sub1(op, sc.width_code(), r, b)?);
                }
                out
            }
            S::GroupNonUniformBallot => {
                let p = self.reg1(vals, idref(o.get(1))?)?;
                let x = self.sub1(SubOp::Ballot, 32, p, zero)?;
                vec![x, zero, zero, zero]
            }
            S::GroupNonUniformInverseBallot => {
                let (v, _) = value(self, 1)?;
                vec![self.sub1(SubOp::InverseBallot, 32, v[0], zero)?]
            }
            S::GroupNonUniformBallotBitCount => {
                let sc = scan(self, 1)?;
                if matches!(sc, Scan::Clustered(c) if c != SUBGROUP_SIZE as u32) {
                    return err(format!("{}: clustered ballot bit count", self.at));
                }
                let (v, _) = value(self, 2)?;
                vec![self.sub1(SubOp::BitCount(sc), 32, v[0], zero)?]
            }
            S::GroupNonUniformBallotFindLSB | S::GroupNonUniformBallotFindMSB => {
                let (v, _) = value(self, 1)?;
                let op = if inst.class.opcode == S::GroupNonUniformBallotFindLSB {
                    IUn::FindILsb
                } else {
                    IUn::FindUMsb
                };
                let d = self.alloc(1)?;
                self.emit(Op::IUn {
                    op,
                    width: 32,
                    dst: d,
                    src: v[0],
                });
                vec![d]
            }
            S::GroupNonUniformBallotBitExtract => {
                // Pure per lane: bit `index % 32` of component `index / 32`.
                let (v, _) = value(self, 1)?;
                let iid = idref(o.get(2))?;
                let idx = self.reg1(vals, iid)?;
                let iw = self
                    .typed_leaves(iid)?
                    .first()
                    .map(|s| s.width_code())
                    .unwrap_or(32);
                let (five, low, one) = (self.imm(5)?, self.imm(31)?, self.imm(1)?);
                let zero = self.imm(0)?;
                let [word, comp, bit, sh, low_bit, d] = [0; 6].map(|_| self.alloc(1));
                let [word, comp, bit, sh, low_bit, d] = [word?, comp?, bit?, sh?, low_bit?, d?];
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    width: iw,
                    dst: word,
                    lhs: idx,
                    rhs: five,
                });
                self.emit(Op::Pick {
                    dst: comp,
                    index: word,
                    choices: v.into(),
                });
                self.emit(Op::IBin {
                    op: IBin::And,
                    width: iw,
                    dst: bit,
                    lhs: idx,
                    rhs: low,
                });
                self.emit(Op::IBin {
                    op: IBin::ShrL,
                    width: 32,
                    dst: sh,
                    lhs: comp,
                    rhs: bit,
                });
                self.emit(Op::IBin {
                    op: IBin::And,
                    width: 32,
                    dst: low_bit,
                    lhs: sh,
                    rhs: one,
                });
                self.emit(Op::ICmp {
                    op: ICmp::Ne,
                    width: 32,
                    dst: d,
                    lhs: low_bit,
                    rhs: zero,
                });
                vec![d]
            }
            op => {
                let ar = match op {
                    S::GroupNonUniformIAdd => Arith::I(IBin::Add),
                    S::GroupNonUniformFAdd => Arith::F(FBin::Add),
                    S::GroupNonUniformIMul => Arith::I(IBin::Mul),
                    S::GroupNonUniformFMul => Arith::F(FBin::Mul),
                    S::GroupNonUniformSMin => Arith::I(IBin::SMin),
                    S::GroupNonUniformUMin => Arith::I(IBin::UMin),
                    S::GroupNonUniformFMin => Arith::F(FBin::Min),
                    S::GroupNonUniformSMax => Arith::I(IBin::SMax),
                    S::GroupNonUniformUMax => Arith::I(IBin::UMax),
                    S::GroupNonUniformFMax => Arith::F(FBin::Max),
                    S::GroupNonUniformBitwiseAnd | S::GroupNonUniformLogicalAnd => {
                        Arith::I(IBin::And)
                    }
                    S::GroupNonUniformBitwiseOr | S::GroupNonUniformLogicalOr => Arith::I(IBin::Or),
                    S::GroupNonUniformBitwiseXor | S::GroupNonUniformLogicalXor => {
                        Arith::I(IBin::Xor)
                    }
                    _ => return err(format!("unsupported instruction {}", self.at)),
                };
                let sc = scan(self, 1)?;
                let (v, lv) = value(self, 2)?;
                let mut out = Vec::with_capacity(v.len());
                for (&r, l) in v.iter().zip(&lv) {
                    out.push(self.sub1(SubOp::Reduce(ar, sc), l.width_code(), r, zero)?);
                }
                out
            }
        };
        if out.len() != res.len() {
            return err(format!("{}: result has the wrong type", self.at));
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }
}
