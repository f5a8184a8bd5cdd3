//! GLSL.std.450's float-bits and packing functions, expanded into IR: `modf`, `frexp`, `ldexp`
//! (and their struct forms), and the pack/unpack family (norm 4×8 and 2×16, half 2×16, double
//! 2×32).

use super::super::{Id, LowerResult, Lowerer, Val, err, idref};
use super::glsl;
use crate::alu::{Conv, FBin, FUn, IBin};
use crate::ir::Op;
use rspirv::dr::{Instruction, Operand};
use std::collections::HashMap;

impl Lowerer<'_> {
    /// Frexp (51: the exponent goes through the pointer operand) and FrexpStruct (52:
    /// { significand, exponent }): significand in [0.5, 1) with x's sign, per component.
    pub(super) fn glsl_frexp(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        n: u32,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.regs(vals, idref(args.first())?)?;
        let w = self.fw(inst)?;
        let out_ptr = if n == glsl::FREXP {
            Some(self.ptr(vals, idref(args.get(1))?)?)
        } else {
            None
        };
        let ew = match &out_ptr {
            Some(p) => self.leaves(p.ty)?.last().map(|l| l.width_code()),
            None => self.result_leaves(inst)?.last().map(|l| l.width_code()),
        }
        .unwrap_or(32);
        let mut sig = Vec::with_capacity(x.len());
        let mut exp = Vec::with_capacity(x.len());
        for xi in &x {
            let (m, e) = self.frexp(w, ew, *xi)?;
            sig.push(m);
            exp.push(e);
        }
        let result = match out_ptr {
            Some(p) => {
                self.store(p, &exp)?;
                sig
            }
            None => sig.into_iter().chain(exp).collect(),
        };
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(result));
        }
        Ok(())
    }

    /// Modf (35: the whole part goes through the pointer operand) and ModfStruct (36:
    /// { fract, whole }): whole = trunc(x), fract = x - whole with x's sign.
    pub(super) fn glsl_modf(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        n: u32,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.regs(vals, idref(args.first())?)?;
        let w = self.fw(inst)?;
        let whole = self.map_n(std::slice::from_ref(&x), x.len(), |_, d, a| Op::FUn {
            op: FUn::Trunc,
            width: w,
            dst: d,
            src: a[0],
        })?;
        let fract = self.map_n(&[x.clone(), whole.clone()], x.len(), |_, d, a| Op::FBin {
            op: FBin::Sub,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let fract = self.copysign_all(w, &fract, &x)?;
        let result = if n == glsl::MODF {
            let p = self.ptr(vals, idref(args.get(1))?)?;
            self.store(p, &whole)?;
            fract
        } else {
            fract.into_iter().chain(whole).collect()
        };
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(result));
        }
        Ok(())
    }

    /// Ldexp: x * 2^exp.
    pub(super) fn glsl_ldexp(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x_id = idref(args.first())?;
        let x = self.regs(vals, x_id)?;
        let e_id = idref(args.get(1))?;
        let e = self.regs(vals, e_id)?;
        let w = self.fw(inst)?;
        let ew = self
            .typed_leaves(e_id)?
            .first()
            .map(|s| s.width_code())
            .unwrap_or(32);
        let ef = self.map_n(&[e], x.len(), |_, d, a| Op::Conv {
            op: Conv::SToF,
            from: ew,
            to: w,
            dst: d,
            src: a[0],
        })?;
        let scale = self.map_n(&[ef], x.len(), |_, d, a| Op::FUn {
            op: FUn::Exp2,
            width: w,
            dst: d,
            src: a[0],
        })?;
        let n = x.len();
        let out = self.map_n(&[x, scale], n, |_, d, a| Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// Pack{Snorm,Unorm}{4x8,2x16}: each component clamped, scaled, rounded to the nearest
    /// integer (ties to even) and packed, component 0 in the low bits.
    pub(super) fn glsl_pack_norm(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        n: u32,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.regs(vals, idref(args.first())?)?;
        let (bits, signed) = match n {
            glsl::PACK_SNORM4X8 => (8u8, true),
            glsl::PACK_UNORM4X8 => (8, false),
            glsl::PACK_SNORM2X16 => (16, true),
            _ => (16, false),
        };
        if x.len() != (32 / bits) as usize {
            return err(format!("{}: wrong vector size for a pack", self.at));
        }
        let d = self.pack_norm(&x, bits, signed)?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// Unpack{Snorm,Unorm}{2x16,4x8}: each field as a float in [-1, 1] or [0, 1].
    pub(super) fn glsl_unpack_norm(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        n: u32,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.reg1(vals, idref(args.first())?)?;
        let (bits, signed) = match n {
            glsl::UNPACK_SNORM2X16 => (16u8, true),
            glsl::UNPACK_UNORM2X16 => (16, false),
            glsl::UNPACK_SNORM4X8 => (8, true),
            _ => (8, false),
        };
        let out = self.unpack_norm(x, bits, signed)?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// PackDouble2x32: a uvec2 as the bits of a double (component 0 low).
    pub(super) fn glsl_pack_double(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.regs(vals, idref(args.first())?)?;
        if x.len() != 2 {
            return err(format!("{}: PackDouble2x32 needs a 2-vector", self.at));
        }
        let (hi, d) = (self.alloc(1)?, self.alloc(1)?);
        let (sh, lo, wide_hi) = (self.imm(32)?, self.alloc(1)?, self.alloc(1)?);
        for (dst, src) in [(lo, x[0]), (wide_hi, x[1])] {
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: 32,
                to: 64,
                dst,
                src,
            });
        }
        self.emit(Op::IBin {
            op: IBin::Shl,
            width: 64,
            dst: hi,
            lhs: wide_hi,
            rhs: sh,
        });
        self.emit(Op::IBin {
            op: IBin::Or,
            width: 64,
            dst: d,
            lhs: hi,
            rhs: lo,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// UnpackDouble2x32: the bits of a double as a uvec2 (low word first).
    pub(super) fn glsl_unpack_double(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.reg1(vals, idref(args.first())?)?;
        let (lo, hi, sh) = (self.alloc(1)?, self.alloc(1)?, self.imm(32)?);
        let wide_hi = self.alloc(1)?;
        self.emit(Op::Conv {
            op: Conv::UToU,
            from: 64,
            to: 32,
            dst: lo,
            src: x,
        });
        self.emit(Op::IBin {
            op: IBin::ShrL,
            width: 64,
            dst: wide_hi,
            lhs: x,
            rhs: sh,
        });
        self.emit(Op::Conv {
            op: Conv::UToU,
            from: 64,
            to: 32,
            dst: hi,
            src: wide_hi,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![lo, hi]));
        }
        Ok(())
    }

    /// PackHalf2x16: two f32 → f16 bit patterns in one u32 (x in the low half).
    pub(super) fn glsl_pack_half(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.regs(vals, idref(args.first())?)?;
        if x.len() != 2 {
            return err(format!("{}: PackHalf2x16 needs a 2-vector", self.at));
        }
        let sixteen = self.imm(16)?;
        let [lo, hi, shifted, d] = [0; 4].map(|_| self.alloc(1));
        let [lo, hi, shifted, d] = [lo?, hi?, shifted?, d?];
        for (dst, src) in [(lo, x[0]), (hi, x[1])] {
            // The f16 bit pattern, zero-extended to 32 bits.
            let half = self.alloc(1)?;
            self.emit(Op::Conv {
                op: Conv::FToF,
                from: 32,
                to: 16,
                dst: half,
                src,
            });
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: 16,
                to: 32,
                dst,
                src: half,
            });
        }
        self.emit(Op::IBin {
            op: IBin::Shl,
            width: 32,
            dst: shifted,
            lhs: hi,
            rhs: sixteen,
        });
        self.emit(Op::IBin {
            op: IBin::Or,
            width: 32,
            dst: d,
            lhs: shifted,
            rhs: lo,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// UnpackHalf2x16: the two f16 halves of a u32 as a 2-vector of f32.
    pub(super) fn glsl_unpack_half(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let x = self.reg1(vals, idref(args.first())?)?;
        let sixteen = self.imm(16)?;
        let [lo_bits, hi_word, hi_bits, lo, hi] = [0; 5].map(|_| self.alloc(1));
        let [lo_bits, hi_word, hi_bits, lo, hi] = [lo_bits?, hi_word?, hi_bits?, lo?, hi?];
        self.emit(Op::IBin {
            op: IBin::ShrL,
            width: 32,
            dst: hi_word,
            lhs: x,
            rhs: sixteen,
        });
        for (dst, src) in [(lo_bits, x), (hi_bits, hi_word)] {
            self.emit(Op::Conv {
                op: Conv::UToU,
                from: 32,
                to: 16,
                dst,
                src,
            });
        }
        for (dst, src) in [(lo, lo_bits), (hi, hi_bits)] {
            self.emit(Op::Conv {
                op: Conv::FToF,
                from: 16,
                to: 32,
                dst,
                src,
            });
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![lo, hi]));
        }
        Ok(())
    }
}
