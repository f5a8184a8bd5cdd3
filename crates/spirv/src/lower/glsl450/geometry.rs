//! GLSL.std.450's geometric and matrix functions, expanded into IR: `length`, `distance`,
//! `normalize`, `cross`, `faceforward`, `reflect`, `refract`, `determinant` and `inverse` (by
//! cofactors).

use super::super::{Id, LowerResult, Lowerer, Val, err, idref};
use super::glsl;
use crate::alu::{Conv, FBin, FCmp, FUn};
use crate::ir::{Op, Reg};
use rspirv::dr::{Instruction, Operand};
use std::collections::HashMap;

impl Lowerer<'_> {
    /// `LENGTH | DISTANCE | NORMALIZE | CROSS`.
    pub(super) fn glsl_vector_geometry(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        n: u32,
        args: &[Operand],
    ) -> LowerResult<()> {
        let w = self.fw(inst)?;
        let mut x = self.regs(vals, idref(args.first())?)?;
        if n == glsl::DISTANCE {
            let y = self.regs(vals, idref(args.get(1))?)?;
            let len = x.len();
            x = self.map_n(&[x, y], len, |_, d, a| Op::FBin {
                op: FBin::Sub,
                width: w,
                dst: d,
                lhs: a[0],
                rhs: a[1],
            })?;
        }
        let out = if n == glsl::CROSS {
            let y = self.regs(vals, idref(args.get(1))?)?;
            if x.len() != 3 || y.len() != 3 {
                return err(format!("{}: cross needs 3-vectors", self.at));
            }
            let mut out = Vec::new();
            for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                let p = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Mul,
                    width: w,
                    dst: p,
                    lhs: x[i],
                    rhs: y[j],
                });
                let q = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Mul,
                    width: w,
                    dst: q,
                    lhs: x[j],
                    rhs: y[i],
                });
                let d = self.alloc(1)?;
                self.emit(Op::FBin {
                    op: FBin::Sub,
                    width: w,
                    dst: d,
                    lhs: p,
                    rhs: q,
                });
                out.push(d);
            }
            out
        } else {
            let dd = self.dot(w, &x, &x)?;
            let len = self.alloc(1)?;
            self.emit(Op::FUn {
                op: FUn::Sqrt,
                width: w,
                dst: len,
                src: dd,
            });
            if n == glsl::NORMALIZE {
                let l = x.len();
                self.map_n(&[x, vec![len]], l, |_, d, a| Op::FBin {
                    op: FBin::Div,
                    width: w,
                    dst: d,
                    lhs: a[0],
                    rhs: a[1],
                })?
            } else {
                vec![len]
            }
        };
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// FaceForward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N.
    pub(super) fn glsl_face_forward(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let w = self.fw(inst)?;
        let nv = self.regs(vals, idref(args.first())?)?;
        let iv = self.regs(vals, idref(args.get(1))?)?;
        let nref = self.regs(vals, idref(args.get(2))?)?;
        let dp = self.dot(w, &nref, &iv)?;
        let zero = self.imm(0)?;
        let neg = self.alloc(1)?;
        self.emit(Op::FCmp {
            op: FCmp::OLt,
            width: w,
            dst: neg,
            lhs: dp,
            rhs: zero,
        });
        let l = nv.len();
        let minus = self.map_n(std::slice::from_ref(&nv), l, |_, d, a| Op::FUn {
            op: FUn::Neg,
            width: w,
            dst: d,
            src: a[0],
        })?;
        let out = self.map_n(&[vec![neg], nv, minus], l, |_, d, a| Op::Select {
            dst: d,
            cond: a[0],
            if_true: a[1],
            if_false: a[2],
        })?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// Reflect(I, N) = I - 2·dot(N, I)·N.
    pub(super) fn glsl_reflect(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let w = self.fw(inst)?;
        let iv = self.regs(vals, idref(args.first())?)?;
        let nv = self.regs(vals, idref(args.get(1))?)?;
        let dp = self.dot(w, &nv, &iv)?;
        let two = self.fconst(w, 2.0)?;
        let k = self.alloc(1)?;
        self.emit(Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: k,
            lhs: dp,
            rhs: two,
        });
        let l = iv.len();
        let kn = self.map_n(&[vec![k], nv], l, |_, d, a| Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let out = self.map_n(&[iv, kn], l, |_, d, a| Op::FBin {
            op: FBin::Sub,
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

    /// Refract(I, N, eta): k = 1 - eta²·(1 - dot(N, I)²); 0 if k < 0, else
    /// eta·I - (eta·dot(N, I) + sqrt(k))·N.
    pub(super) fn glsl_refract(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let w = self.fw(inst)?;
        let iv = self.regs(vals, idref(args.first())?)?;
        let nv = self.regs(vals, idref(args.get(1))?)?;
        let eta = self.reg1(vals, idref(args.get(2))?)?;
        let ew = self
            .typed_leaves(idref(args.get(2))?)?
            .first()
            .map(|s| s.width_code())
            .unwrap_or(w);
        let eta = if ew == w {
            eta
        } else {
            let d = self.alloc(1)?;
            self.emit(Op::Conv {
                op: Conv::FToF,
                from: ew,
                to: w,
                dst: d,
                src: eta,
            });
            d
        };
        let one = self.fconst(w, 1.0)?;
        let zero = self.imm(0)?;
        let dp = self.dot(w, &nv, &iv)?;
        let f = |l: &mut Self, op: FBin, a: Reg, b: Reg| -> LowerResult<Reg> {
            let d = l.alloc(1)?;
            l.emit(Op::FBin {
                op,
                width: w,
                dst: d,
                lhs: a,
                rhs: b,
            });
            Ok(d)
        };
        let dp2 = f(self, FBin::Mul, dp, dp)?;
        let t = f(self, FBin::Sub, one, dp2)?;
        let eta2 = f(self, FBin::Mul, eta, eta)?;
        let et = f(self, FBin::Mul, eta2, t)?;
        let k = f(self, FBin::Sub, one, et)?;
        let neg = self.alloc(1)?;
        self.emit(Op::FCmp {
            op: FCmp::OLt,
            width: w,
            dst: neg,
            lhs: k,
            rhs: zero,
        });
        let sq = self.alloc(1)?;
        self.emit(Op::FUn {
            op: FUn::Sqrt,
            width: w,
            dst: sq,
            src: k,
        });
        let ed = f(self, FBin::Mul, eta, dp)?;
        let c = f(self, FBin::Add, ed, sq)?;
        let l = iv.len();
        let ei = self.map_n(&[vec![eta], iv], l, |_, d, a| Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let cn = self.map_n(&[vec![c], nv], l, |_, d, a| Op::FBin {
            op: FBin::Mul,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let r = self.map_n(&[ei, cn], l, |_, d, a| Op::FBin {
            op: FBin::Sub,
            width: w,
            dst: d,
            lhs: a[0],
            rhs: a[1],
        })?;
        let out = self.map_n(&[vec![neg], vec![zero], r], l, |_, d, a| Op::Select {
            dst: d,
            cond: a[0],
            if_true: a[1],
            if_false: a[2],
        })?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }

    /// Determinant of a square matrix, by cofactor expansion along the first column.
    pub(super) fn glsl_determinant(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let m_id = idref(args.first())?;
        let m = self.regs(vals, m_id)?;
        let n = self.matrix_rows(m_id)?;
        if n == 0 || m.len() != n * n || n > 4 {
            return err(format!(
                "{}: Determinant needs a 2x2, 3x3 or 4x4 matrix",
                self.at
            ));
        }
        let w = self.fw(inst)?;
        let d = self.determinant(w, &m, n)?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }

    /// MatrixInverse: adjugate over determinant (the result is undefined for a singular
    /// matrix; this gives infinities or NaNs then).
    pub(super) fn glsl_matrix_inverse(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
        args: &[Operand],
    ) -> LowerResult<()> {
        let m_id = idref(args.first())?;
        let m = self.regs(vals, m_id)?;
        let n = self.matrix_rows(m_id)?;
        if n < 2 || m.len() != n * n || n > 4 {
            return err(format!(
                "{}: MatrixInverse needs a 2x2, 3x3 or 4x4 matrix",
                self.at
            ));
        }
        let w = self.fw(inst)?;
        let out = self.inverse(w, &m, n)?;
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }
}
