//! Core arithmetic: the per-component ALU ops ([`AluKind`] via `Lowerer::alu`, scalars broadcast
//! by `map_n`), float dot products (bfloat16 accumulates in float32), integer dot products
//! (`SPV_KHR_integer_dot_product`), matrix products, bitcasts between widths and bit-field
//! extract/insert.
//!
//! Matrices are scalarised column-major. An ALU op takes its width from the result leaf, except
//! comparisons and conversions, which take the operand's (source) width.

use super::types::{Leaf, SpvType};
use super::{Id, LowerResult, Lowerer, Val, err, idref};
use crate::SpirvError;
use crate::alu::{self, Conv, FBin, FCmp, FUn, IBin, ICmp, IUn, Tern};
use crate::ir::{Op, Reg};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op as S};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy)]
pub(super) enum AluKind {
    I(IBin),
    IU(IUn),
    IC(ICmp),
    F(FBin),
    FU(FUn),
    FC(FCmp),
    T(Tern),
    C(Conv),
}

impl<'m> Lowerer<'m> {
    /// Lowers an arithmetic, comparison, conversion, bit or matrix instruction. Returns false, having done nothing, for an instruction of another family.
    pub(super) fn lower_arith(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<bool> {
        use AluKind as K;
        let o = &inst.operands;
        let rid = inst.result_id;
        let rt = inst.result_type.unwrap_or(0);
        macro_rules! alu {
            ($k:expr) => {
                self.alu(inst, vals, o, $k)?
            };
        }
        let set = |vals: &mut HashMap<Id, Val>, v: Val| {
            if let Some(r) = rid {
                vals.insert(r, v);
            }
        };
        match inst.class.opcode {
            S::IAdd => alu!(K::I(IBin::Add)),
            S::ISub => alu!(K::I(IBin::Sub)),
            S::IMul => alu!(K::I(IBin::Mul)),
            S::UDiv => alu!(K::I(IBin::UDiv)),
            S::SDiv => alu!(K::I(IBin::SDiv)),
            S::UMod => alu!(K::I(IBin::UMod)),
            S::SRem => alu!(K::I(IBin::SRem)),
            S::SMod => alu!(K::I(IBin::SMod)),
            S::ShiftLeftLogical => alu!(K::I(IBin::Shl)),
            S::ShiftRightLogical => alu!(K::I(IBin::ShrL)),
            S::ShiftRightArithmetic => alu!(K::I(IBin::ShrA)),
            S::BitwiseAnd | S::LogicalAnd => alu!(K::I(IBin::And)),
            S::BitwiseOr | S::LogicalOr => alu!(K::I(IBin::Or)),
            S::BitwiseXor | S::LogicalNotEqual => alu!(K::I(IBin::Xor)),
            S::LogicalEqual => alu!(K::IC(ICmp::Eq)),
            S::LogicalNot | S::Not => alu!(K::IU(IUn::Not)),
            S::SNegate => alu!(K::IU(IUn::Neg)),
            S::BitCount => alu!(K::IU(IUn::BitCount)),
            S::BitFieldUExtract | S::BitFieldSExtract | S::BitFieldInsert => {
                let out = self.bitfield(inst, vals)?;
                set(vals, Val::Regs(out));
            }
            S::Transpose => {
                // Matrices are scalarised column-major: transposing is a renaming.
                let m_id = idref(o.first())?;
                let m = self.regs(vals, m_id)?;
                let rows = self.matrix_rows(m_id)?;
                let cols = m.len() / rows.max(1);
                let out = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (c, r)))
                    .map(|(c, r)| m[c * rows + r])
                    .collect();
                set(vals, Val::Regs(out));
            }
            S::OuterProduct => {
                // result column j, row i = a[i] * b[j]
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let mut out = Vec::with_capacity(a.len() * b.len());
                for bj in &b {
                    for ai in &a {
                        let d = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Mul,
                            width: w,
                            dst: d,
                            lhs: *ai,
                            rhs: *bj,
                        });
                        out.push(d);
                    }
                }
                set(vals, Val::Regs(out));
            }
            S::BitReverse => alu!(K::IU(IUn::BitReverse)),
            S::IEqual => alu!(K::IC(ICmp::Eq)),
            S::INotEqual => alu!(K::IC(ICmp::Ne)),
            S::UGreaterThan => alu!(K::IC(ICmp::UGt)),
            S::UGreaterThanEqual => alu!(K::IC(ICmp::UGe)),
            S::ULessThan => alu!(K::IC(ICmp::ULt)),
            S::ULessThanEqual => alu!(K::IC(ICmp::ULe)),
            S::SGreaterThan => alu!(K::IC(ICmp::SGt)),
            S::SGreaterThanEqual => alu!(K::IC(ICmp::SGe)),
            S::SLessThan => alu!(K::IC(ICmp::SLt)),
            S::SLessThanEqual => alu!(K::IC(ICmp::SLe)),
            S::FAdd => alu!(K::F(FBin::Add)),
            S::FSub => alu!(K::F(FBin::Sub)),
            S::FMul | S::VectorTimesScalar => alu!(K::F(FBin::Mul)),
            S::FDiv => alu!(K::F(FBin::Div)),
            S::FRem => alu!(K::F(FBin::Rem)),
            S::FMod => alu!(K::F(FBin::Mod)),
            S::FNegate => alu!(K::FU(FUn::Neg)),
            S::FOrdEqual => alu!(K::FC(FCmp::OEq)),
            S::FOrdNotEqual => alu!(K::FC(FCmp::ONe)),
            S::FOrdLessThan => alu!(K::FC(FCmp::OLt)),
            S::FOrdLessThanEqual => alu!(K::FC(FCmp::OLe)),
            S::FOrdGreaterThan => alu!(K::FC(FCmp::OGt)),
            S::FOrdGreaterThanEqual => alu!(K::FC(FCmp::OGe)),
            S::FUnordEqual => alu!(K::FC(FCmp::UEq)),
            S::FUnordNotEqual => alu!(K::FC(FCmp::UNe)),
            S::FUnordLessThan => alu!(K::FC(FCmp::ULt)),
            S::FUnordLessThanEqual => alu!(K::FC(FCmp::ULe)),
            S::FUnordGreaterThan => alu!(K::FC(FCmp::UGt)),
            S::FUnordGreaterThanEqual => alu!(K::FC(FCmp::UGe)),
            S::IsNan => alu!(K::FC(FCmp::IsNan)),
            S::IsInf => alu!(K::FC(FCmp::IsInf)),
            S::ConvertFToU => alu!(K::C(Conv::FToU)),
            S::ConvertFToS => alu!(K::C(Conv::FToS)),
            S::ConvertUToF => alu!(K::C(Conv::UToF)),
            S::ConvertSToF => alu!(K::C(Conv::SToF)),
            S::UConvert => alu!(K::C(Conv::UToU)),
            S::SConvert => alu!(K::C(Conv::SToS)),
            S::QuantizeToF16 => {
                // Round to f16 and back; values below f16's normal range become signed zeros.
                let x = self.regs(vals, idref(o.first())?)?;
                let min_normal = self.imm(u64::from((2f32.powi(-14)).to_bits()))?;
                let sign_mask = self.imm(0x8000_0000)?;
                let mut out = Vec::with_capacity(x.len());
                for &xi in &x {
                    let [h, f, abs, small, sign] = [0; 5].map(|_| self.alloc(1));
                    let [h, f, abs, small, sign] = [h?, f?, abs?, small?, sign?];
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 32,
                        to: 16,
                        dst: h,
                        src: xi,
                    });
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 16,
                        to: 32,
                        dst: f,
                        src: h,
                    });
                    self.emit(Op::FUn {
                        op: FUn::Abs,
                        width: 32,
                        dst: abs,
                        src: f,
                    });
                    self.emit(Op::FCmp {
                        op: FCmp::OLt,
                        width: 32,
                        dst: small,
                        lhs: abs,
                        rhs: min_normal,
                    });
                    self.emit(Op::IBin {
                        op: IBin::And,
                        width: 32,
                        dst: sign,
                        lhs: f,
                        rhs: sign_mask,
                    });
                    // `sign` keeps only the sign bit: the signed zero.
                    self.emit(Op::Select {
                        dst: d,
                        cond: small,
                        if_true: sign,
                        if_false: f,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::FConvert
                if inst.result_id.is_some_and(|r| {
                    self.deco(r, Decoration::SaturatedToLargestFloat8NormalConversionEXT)
                        .is_some()
                }) =>
            {
                alu!(K::C(Conv::FToFSat))
            }
            S::FConvert => {
                // FPRoundingMode: RTE = 0 is the default rounding, RTZ = 1 directed.
                let dir = inst.result_id.and_then(|r| {
                    self.deco(r, Decoration::FPRoundingMode)
                        .and_then(|d| match d.operands.get(2) {
                            Some(Operand::FPRoundingMode(m)) => Some(*m as u32),
                            Some(Operand::LiteralBit32(m)) => Some(*m),
                            _ => None,
                        })
                });
                match dir {
                    Some(1) => alu!(K::C(Conv::FToFDirected(1))),
                    Some(d @ 2..=3) => {
                        return err(format!(
                            "{}: FPRoundingMode {} on a conversion: Vulkan allows only RTE and \
                             RTZ (VUID-StandaloneSpirv-FPRoundingMode-04675)",
                            self.at,
                            if d == 2 { "RTP" } else { "RTN" }
                        ));
                    }
                    _ => alu!(K::C(Conv::FToF)),
                }
            }
            S::Bitcast => {
                let src = self.regs(vals, idref(o.first())?)?;
                let sl = self.typed_leaves(idref(o.first())?)?;
                let dl = self.result_leaves(inst)?;
                let out = self.bitcast(&src, &sl, &dl)?;
                set(vals, Val::Regs(out));
            }
            S::Select => {
                let s = self.srcs(vals, &o[..3.min(o.len())])?;
                if s.len() != 3 {
                    return err(format!("{}: malformed OpSelect", self.at));
                }
                let n = self.nleaves(rt)? as usize;
                let out = self.map_n(&s, n, |_, d, a| Op::Select {
                    dst: d,
                    cond: a[0],
                    if_true: a[1],
                    if_false: a[2],
                })?;
                // The result's type is known here: state it, or a select of two constants
                // takes the type of its first "any integer" use (a switch selector, a shift
                // amount: 32 bits) instead of its own.
                for (&d, sc) in out.iter().zip(self.leaves(rt)?) {
                    self.reg_types[d as usize] = Some(sc.reg_type());
                }
                set(vals, Val::Regs(out));
            }
            S::Any | S::All => {
                let s = self.regs(vals, idref(o.first())?)?;
                let op = if inst.class.opcode == S::Any {
                    IBin::Or
                } else {
                    IBin::And
                };
                let mut acc = *s.first().ok_or_else(|| SpirvError::new("empty vector"))?;
                for &r in &s[1..] {
                    let d = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op,
                        width: 1,
                        dst: d,
                        lhs: acc,
                        rhs: r,
                    });
                    acc = d;
                }
                set(vals, Val::Regs(vec![acc]));
            }
            S::SDot | S::UDot | S::SUDot | S::SDotAccSat | S::UDotAccSat | S::SUDotAccSat => {
                self.int_dot(inst, vals)?;
            }
            S::Dot => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let d = self.dot(w, &a, &b)?;
                set(vals, Val::Regs(vec![d]));
            }
            S::MatrixTimesScalar
                if self.is_coop_matrix_result(inst)
                    && matches!(self.result_leaves(inst)?.first(), Some(Leaf::Int(..))) =>
            {
                // glslang multiplies integer cooperative matrices by scalars with it too.
                alu!(K::I(IBin::Mul))
            }
            S::MatrixTimesScalar => alu!(K::F(FBin::Mul)),
            S::MatrixTimesVector | S::VectorTimesMatrix | S::MatrixTimesMatrix => {
                self.matmul(inst, vals)?;
            }
            S::IAddCarry | S::ISubBorrow | S::UMulExtended | S::SMulExtended => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let leaves = self.result_leaves(inst)?;
                let n = leaves.len() / 2;
                let (lo, hi) = match inst.class.opcode {
                    S::IAddCarry => (IBin::Add, IBin::AddCarry),
                    S::ISubBorrow => (IBin::Sub, IBin::SubBorrow),
                    S::UMulExtended => (IBin::Mul, IBin::UMulHi),
                    _ => (IBin::Mul, IBin::SMulHi),
                };
                let w = leaves.first().map(|s| s.width_code()).unwrap_or(32);
                let l = self.map_n(&[a.clone(), b.clone()], n, |_, d, x| Op::IBin {
                    op: lo,
                    width: w,
                    dst: d,
                    lhs: x[0],
                    rhs: x[1],
                })?;
                let h = self.map_n(&[a, b], n, |_, d, x| Op::IBin {
                    op: hi,
                    width: w,
                    dst: d,
                    lhs: x[0],
                    rhs: x[1],
                })?;
                set(vals, Val::Regs(l.into_iter().chain(h).collect()));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Emits one op per leaf; `b`/`c` may be scalars broadcast over `a`'s length.
    pub(super) fn map_n(
        &mut self,
        srcs: &[Vec<Reg>],
        n: usize,
        mut f: impl FnMut(usize, Reg, &[Reg]) -> Op,
    ) -> LowerResult<Vec<Reg>> {
        for s in srcs {
            if s.len() != n && s.len() != 1 {
                return err(format!(
                    "{}: operand has {} components, expected {n}",
                    self.at,
                    s.len()
                ));
            }
        }
        let mut out = Vec::with_capacity(n);
        let mut ops = Vec::with_capacity(srcs.len());
        for i in 0..n {
            let d = self.alloc(1)?;
            ops.clear();
            ops.extend(srcs.iter().map(|s| if s.len() == 1 { s[0] } else { s[i] }));
            let op = f(i, d, &ops);
            self.emit(op);
            out.push(d);
        }
        Ok(out)
    }

    pub(super) fn srcs(
        &mut self,
        vals: &HashMap<Id, Val>,
        ids: &[Operand],
    ) -> LowerResult<Vec<Vec<Reg>>> {
        ids.iter()
            .map(|o| {
                let id = idref(Some(o))?;
                self.regs(vals, id)
            })
            .collect()
    }

    pub(super) fn alu(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
        kind: AluKind,
    ) -> LowerResult<()> {
        let res = self.result_leaves(inst)?;
        let first = idref(args.first())?;
        let opl = self.typed_leaves(first).unwrap_or_else(|_| res.clone());
        self.check_alu_operands(inst, args, kind, &res, &opl)?;
        let s = self.srcs(vals, args)?;
        let n = res.len();
        let out = self.map_n(&s, n, |i, d, a| {
            let rw = res[i].width_code();
            let ow = opl
                .get(i)
                .or(opl.first())
                .map(|x| x.width_code())
                .unwrap_or(rw);
            let g = |k: usize| a.get(k).copied().unwrap_or(a[0]);
            match kind {
                AluKind::I(op) => Op::IBin {
                    op,
                    width: rw,
                    dst: d,
                    lhs: a[0],
                    rhs: g(1),
                },
                AluKind::IU(op) => Op::IUn {
                    op,
                    width: rw,
                    dst: d,
                    src: a[0],
                },
                AluKind::IC(op) => Op::ICmp {
                    op,
                    width: ow,
                    dst: d,
                    lhs: a[0],
                    rhs: g(1),
                },
                AluKind::F(op) => Op::FBin {
                    op,
                    width: rw,
                    dst: d,
                    lhs: a[0],
                    rhs: g(1),
                },
                AluKind::FU(op) => Op::FUn {
                    op,
                    width: rw,
                    dst: d,
                    src: a[0],
                },
                AluKind::FC(op) => Op::FCmp {
                    op,
                    width: ow,
                    dst: d,
                    lhs: a[0],
                    rhs: g(1),
                },
                AluKind::T(op) => Op::Tern {
                    op,
                    width: rw,
                    dst: d,
                    src0: a[0],
                    src1: g(1),
                    src2: g(2),
                },
                AluKind::C(op) => Op::Conv {
                    op,
                    from: ow,
                    to: rw,
                    dst: d,
                    src: a[0],
                },
            }
        })?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// SPIR-V's rule that an ALU instruction's operands have the widths its result type implies
    /// (the same as the result, or as the first operand for comparisons; any integer for shift
    /// amounts; any for a conversion's source). Registers are typed, so a module breaking it
    /// is rejected here rather than computed at a wrong width.
    fn check_alu_operands(
        &self,
        inst: &Instruction,
        args: &[Operand],
        kind: AluKind,
        res: &[Leaf],
        first: &[Leaf],
    ) -> LowerResult<()> {
        let shift = matches!(kind, AluKind::I(IBin::Shl | IBin::ShrL | IBin::ShrA));
        for (k, arg) in args.iter().enumerate() {
            let id = idref(Some(arg))?;
            let Ok(leaves) = self.typed_leaves(id) else {
                continue;
            };
            let expected = match kind {
                AluKind::C(_) => continue,
                AluKind::IC(_) | AluKind::FC(_) => first,
                _ if shift && k == 1 => {
                    if leaves.iter().all(|l| matches!(l, Leaf::Int(..))) {
                        continue;
                    }
                    return err(format!(
                        "{}: the shift amount %{id} is not an integer",
                        self.at
                    ));
                }
                _ => res,
            };
            // A one-component operand may stand for every component (`map_n` broadcasts it).
            let expected_bits = |i: usize| expected.get(i).or(expected.first()).map(|e| e.bits());
            let bad = leaves
                .iter()
                .enumerate()
                .any(|(i, l)| Some(l.bits()) != expected_bits(i));
            if bad {
                return err(format!(
                    "{}: operand %{id} of {} has type {leaves:?}, but the instruction needs {expected:?} \
                     (SPIR-V: the operands of an arithmetic instruction have the width of its result)",
                    self.at,
                    super::opname(inst)
                ));
            }
        }
        Ok(())
    }

    pub(super) fn fw(&self, inst: &Instruction) -> LowerResult<u8> {
        Ok(self
            .result_leaves(inst)?
            .first()
            .map(|s| s.width_code())
            .unwrap_or(32))
    }

    /// Dot product of two float vectors into a new register.
    pub(super) fn dot(&mut self, w: u8, a: &[Reg], b: &[Reg]) -> LowerResult<Reg> {
        if a.len() != b.len() || a.is_empty() {
            return err(format!("{}: dot of mismatched vectors", self.at));
        }
        if w == alu::W_BF16 {
            // bfloat16 dot products accumulate in float32 and round once at the end.
            let mut wide = |v: &[Reg]| -> LowerResult<Vec<Reg>> {
                v.iter()
                    .map(|&x| {
                        let d = self.alloc(1)?;
                        self.emit(Op::Conv {
                            op: Conv::FToF,
                            from: w,
                            to: 32,
                            dst: d,
                            src: x,
                        });
                        Ok(d)
                    })
                    .collect()
            };
            let (a, b) = (wide(a)?, wide(b)?);
            let s = self.dot(32, &a, &b)?;
            let d = self.alloc(1)?;
            self.emit(Op::Conv {
                op: Conv::FToF,
                from: 32,
                to: w,
                dst: d,
                src: s,
            });
            return Ok(d);
        }
        let mut acc = self.alloc(1)?;
        self.emit(Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: acc,
            lhs: a[0],
            rhs: b[0],
        });
        for i in 1..a.len() {
            let t = self.alloc(1)?;
            self.emit(Op::FBin {
                op: FBin::Mul,
                width: w,
                dst: t,
                lhs: a[i],
                rhs: b[i],
            });
            let s = self.alloc(1)?;
            self.emit(Op::FBin {
                op: FBin::Add,
                width: w,
                dst: s,
                lhs: acc,
                rhs: t,
            });
            acc = s;
        }
        Ok(acc)
    }

    pub(super) fn bitcast(
        &mut self,
        src: &[Reg],
        sl: &[Leaf],
        dl: &[Leaf],
    ) -> LowerResult<Vec<Reg>> {
        let sw = sl.first().map(|s| s.bits()).unwrap_or(32);
        let dw = dl.first().map(|s| s.bits()).unwrap_or(32);
        if src.len() != sl.len()
            || u32::from(sw) * sl.len() as u32 != u32::from(dw) * dl.len() as u32
        {
            return err(format!(
                "{}: bitcast between types of different sizes",
                self.at
            ));
        }
        if sw == dw {
            return Ok(src.to_vec());
        }
        let mut out = Vec::new();
        if dw > sw {
            let k = (dw / sw) as usize;
            for chunk in src.chunks(k) {
                let mut acc = self.alloc(1)?;
                self.emit(Op::Conv {
                    op: Conv::UToU,
                    from: sw,
                    to: dw,
                    dst: acc,
                    src: chunk[0],
                });
                for (j, &s) in chunk.iter().enumerate().skip(1) {
                    let t = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::UToU,
                        from: sw,
                        to: dw,
                        dst: t,
                        src: s,
                    });
                    let sh = self.imm(j as u64 * u64::from(sw))?;
                    let t2 = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Shl,
                        width: dw,
                        dst: t2,
                        lhs: t,
                        rhs: sh,
                    });
                    let n = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::Or,
                        width: dw,
                        dst: n,
                        lhs: acc,
                        rhs: t2,
                    });
                    acc = n;
                }
                out.push(acc);
            }
        } else {
            let k = sw / dw;
            for &s in src {
                for j in 0..k {
                    let sh = self.imm(u64::from(j) * u64::from(dw))?;
                    let t = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op: IBin::ShrL,
                        width: sw,
                        dst: t,
                        lhs: s,
                        rhs: sh,
                    });
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::UToU,
                        from: sw,
                        to: dw,
                        dst: d,
                        src: t,
                    });
                    out.push(d);
                }
            }
        }
        Ok(out)
    }

    pub(super) fn matmul(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let a_id = idref(o.first())?;
        let b_id = idref(o.get(1))?;
        let a = self.regs(vals, a_id)?;
        let b = self.regs(vals, b_id)?;
        let w = self.fw(inst)?;
        let col_len = |l: &Lowerer, id: Id| -> LowerResult<usize> {
            let t = *l
                .id_types
                .get(&id)
                .ok_or_else(|| SpirvError::new("untyped matrix"))?;
            match l.ty(t)? {
                SpvType::Matrix { col, .. } => Ok(l.nleaves(*col)? as usize),
                _ => err("expected a matrix"),
            }
        };
        let mut out = Vec::new();
        match inst.class.opcode {
            S::MatrixTimesVector => {
                // result[r] = sum_c a[c][r] * b[c]
                let rows = col_len(self, a_id)?;
                for r in 0..rows {
                    let row: Vec<Reg> = (0..b.len())
                        .map(|c| a.get(c * rows + r).copied().unwrap_or(a[0]))
                        .collect();
                    out.push(self.dot(w, &row, &b)?);
                }
            }
            S::VectorTimesMatrix => {
                let rows = col_len(self, b_id)?;
                for col in b.chunks(rows.max(1)) {
                    out.push(self.dot(w, &a, col)?);
                }
            }
            _ => {
                let rows = col_len(self, a_id)?;
                let inner = col_len(self, b_id)?;
                for bc in b.chunks(inner.max(1)) {
                    for r in 0..rows {
                        let row: Vec<Reg> = (0..inner)
                            .map(|c| a.get(c * rows + r).copied().unwrap_or(a[0]))
                            .collect();
                        out.push(self.dot(w, &row, bc)?);
                    }
                }
            }
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// `OpSDot` & co. (SPV_KHR_integer_dot_product), including the packed 4×8-bit form.
    pub(super) fn int_dot(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let op = inst.class.opcode;
        let (a_signed, b_signed, sat_signed) = match op {
            S::SDot | S::SDotAccSat => (true, true, true),
            S::UDot | S::UDotAccSat => (false, false, false),
            _ => (true, false, true),
        };
        let has_acc = matches!(op, S::SDotAccSat | S::UDotAccSat | S::SUDotAccSat);
        let a_id = idref(o.first())?;
        let mut a = self.regs(vals, a_id)?;
        let mut b = self.regs(vals, idref(o.get(1))?)?;
        let acc = if has_acc {
            Some(self.reg1(vals, idref(o.get(2))?)?)
        } else {
            None
        };
        let packed = o
            .iter()
            .any(|x| matches!(x, Operand::PackedVectorFormat(_)));
        let int_width = |l: &[Leaf]| match l.first() {
            Some(Leaf::Int(w, _)) if *w <= 64 => Some(*w),
            _ => None,
        };
        let Some(w_out) = int_width(&self.result_leaves(inst)?) else {
            return err(format!(
                "{}: an integer dot product needs an integer result",
                self.at
            ));
        };
        for id in o.iter().take(if has_acc { 3 } else { 2 }) {
            let id = idref(Some(id))?;
            if int_width(&self.typed_leaves(id)?).is_none() {
                return err(format!(
                    "{}: integer dot product operand %{id} is not an integer",
                    self.at
                ));
            }
        }
        let w_in = if packed {
            // Four 8-bit components in each 32-bit operand, component 0 in the low byte.
            let mut split = |x: Reg| -> LowerResult<Vec<Reg>> {
                (0..4u64)
                    .map(|k| {
                        let sh = self.imm(8 * k)?;
                        let (t, d) = (self.alloc(1)?, self.alloc(1)?);
                        self.emit(Op::IBin {
                            op: IBin::ShrL,
                            width: 32,
                            dst: t,
                            lhs: x,
                            rhs: sh,
                        });
                        self.emit(Op::Conv {
                            op: Conv::UToU,
                            from: 32,
                            to: 8,
                            dst: d,
                            src: t,
                        });
                        Ok(d)
                    })
                    .collect()
            };
            let (Some(&pa), Some(&pb)) = (a.first(), b.first()) else {
                return err(format!("{}: empty dot-product operand", self.at));
            };
            a = split(pa)?;
            b = split(pb)?;
            8
        } else {
            int_width(&self.typed_leaves(a_id)?).unwrap_or(32)
        };
        if a.len() != b.len() || a.is_empty() || w_out < w_in {
            return err(format!(
                "{}: integer dot product of mismatched operands",
                self.at
            ));
        }
        let d = self.alloc(1)?;
        self.emit(Op::IDot {
            in_width: w_in,
            out_width: w_out,
            lhs_signed: a_signed,
            rhs_signed: b_signed,
            sat_signed,
            dst: d,
            lhs: a.into_boxed_slice(),
            rhs: b.into_boxed_slice(),
            acc,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// `OpBitFieldUExtract` / `SExtract` / `Insert`, per component, with the shift semantics of
    /// `alu` (a shift by the full width gives 0), so `count == width` selects every bit.
    pub(super) fn bitfield(
        &mut self,
        inst: &Instruction,
        vals: &HashMap<Id, Val>,
    ) -> LowerResult<Vec<Reg>> {
        let o = &inst.operands;
        let insert = inst.class.opcode == S::BitFieldInsert;
        let base = self.regs(vals, idref(o.first())?)?;
        let ins = if insert {
            self.regs(vals, idref(o.get(1))?)?
        } else {
            Vec::new()
        };
        let k = usize::from(insert);
        let offset = self.reg1(vals, idref(o.get(1 + k))?)?;
        let count = self.reg1(vals, idref(o.get(2 + k))?)?;
        let res = self.result_leaves(inst)?;
        let one = self.imm(1)?;
        let mut out = Vec::with_capacity(base.len());
        for (i, b) in base.iter().enumerate() {
            let w = res
                .get(i)
                .or(res.first())
                .map(|x| x.width_code())
                .unwrap_or(32);
            let bin = |l: &mut Self, op: IBin, a: Reg, b: Reg| -> LowerResult<Reg> {
                let d = l.alloc(1)?;
                l.emit(Op::IBin {
                    op,
                    width: w,
                    dst: d,
                    lhs: a,
                    rhs: b,
                });
                Ok(d)
            };
            // mask = (1 << count) - 1: all ones when count == width (the shift gives 0).
            let shifted_one = bin(self, IBin::Shl, one, count)?;
            let mask = bin(self, IBin::Sub, shifted_one, one)?;
            let d = match inst.class.opcode {
                S::BitFieldUExtract | S::BitFieldSExtract => {
                    let v = bin(self, IBin::ShrL, *b, offset)?;
                    let field = bin(self, IBin::And, v, mask)?;
                    if inst.class.opcode == S::BitFieldUExtract {
                        field
                    } else {
                        // Sign-extend from `count` bits: shift the field to the top and back.
                        let width = self.imm(u64::from(w))?;
                        let up = bin(self, IBin::Sub, width, count)?;
                        let top = bin(self, IBin::Shl, field, up)?;
                        bin(self, IBin::ShrA, top, up)?
                    }
                }
                _ => {
                    let placed_mask = bin(self, IBin::Shl, mask, offset)?;
                    let keep = self.alloc(1)?;
                    self.emit(Op::IUn {
                        op: IUn::Not,
                        width: w,
                        dst: keep,
                        src: placed_mask,
                    });
                    let kept = bin(self, IBin::And, *b, keep)?;
                    let v = ins.get(i).copied().unwrap_or(ins[0]);
                    let moved = bin(self, IBin::Shl, v, offset)?;
                    let new_bits = bin(self, IBin::And, moved, placed_mask)?;
                    bin(self, IBin::Or, kept, new_bits)?
                }
            };
            out.push(d);
        }
        Ok(out)
    }
}
