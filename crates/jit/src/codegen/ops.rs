//! The op dispatch (`Gen::op`: each IR op to its lowering, or to the interpreter through
//! `Gen::callout`) and the integer ops, by operand representation: scalar code for uniform
//! operands, base arithmetic for affine ones, 128-bit vector code for varying ones, and per-lane
//! scalar code ("scalarised") where x86's vector instructions do not fit. Float ops are in
//! `float.rs` and `math.rs`, conversions in `conv.rs` and `narrow.rs`, variables and selects in
//! `vars.rs`. Every lowering computes exactly what `tessera_spirv::alu` computes for each lane
//! (the interpreter's semantics). Integer comparisons are in `compare.rs`.

use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Opcode, Type, Value};
use tessera_spirv::alu::{self, IBin, IUn, width_bytes};
use tessera_spirv::ir::{Op, Reg};

use super::Gen;
use super::values::{JVal, lane_flags, per_vec, scalar_ty, vec_ty};
use super::vars::VarAccess;
use crate::classes::{LANES, wrap};

impl Gen<'_> {
    /// Lowers one op (natively, or through the interpreter).
    pub(crate) fn op(&mut self, op: &Op) -> JitResult<()> {
        // Loads, stores and index arithmetic a multiply-add made unnecessary or ran itself
        // (`product`).
        if self.fusions.skipped.contains(&self.at)
            && matches!(
                op,
                Op::LoadVar { .. }
                    | Op::StoreVar { .. }
                    | Op::Mov { .. }
                    | Op::IBin { .. }
                    | Op::IUn { .. }
                    | Op::ICmp { .. }
                    | Op::Conv { .. }
            )
        {
            return Ok(());
        }
        if !op.is_pure() {
            // It may write memory: what a tile holds may be stale after it.
            self.invalidate_tiles();
        }
        let done = match op {
            Op::Mov { dst, src } => {
                let v = self.get(*src);
                self.set(*dst, v)?;
                true
            }
            Op::IBin {
                op,
                width,
                dst,
                lhs,
                rhs,
            } => self.ibin(*op, *width, *dst, *lhs, *rhs)?,
            Op::IUn {
                op,
                width,
                dst,
                src,
            } => self.iun(*op, *width, *dst, *src)?,
            Op::ICmp {
                op,
                width,
                dst,
                lhs,
                rhs,
            } => self.icmp(*op, *width, *dst, *lhs, *rhs)?,
            Op::FBin {
                op,
                width,
                dst,
                lhs,
                rhs,
            } => self.fbin(*op, *width, *dst, *lhs, *rhs)?,
            Op::FUn {
                op,
                width,
                dst,
                src,
            } => self.fun(*op, *width, *dst, *src)?,
            Op::FCmp {
                op,
                width,
                dst,
                lhs,
                rhs,
            } => self.fcmp(*op, *width, *dst, *lhs, *rhs)?,
            Op::Conv {
                op,
                from,
                to,
                dst,
                src,
            } => self.conv(*op, *from, *to, *dst, *src)?,
            Op::IDot {
                in_width,
                out_width,
                lhs_signed,
                rhs_signed,
                sat_signed,
                dst,
                lhs,
                rhs,
                acc,
            } => self.idot(
                *in_width,
                *out_width,
                [*lhs_signed, *rhs_signed, *sat_signed],
                *dst,
                lhs,
                rhs,
                *acc,
            )?,
            Op::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => self.select(*dst, *cond, *if_true, *if_false)?,
            Op::Tern {
                op,
                width,
                dst,
                src0,
                src1,
                src2,
            } => self.tern(*op, *width, *dst, [*src0, *src1, *src2])?,
            Op::LoadVar {
                dst,
                var,
                offset,
                index,
            } => {
                if self.resident[var.base as usize] && self.get(*index).is_scalar() {
                    self.resident_var(*var, *offset, *index, VarAccess::Load(*dst))?
                } else if self.resident[var.base as usize] {
                    self.resident_var_gather(*var, *offset, *index, *dst)?
                } else {
                    let choices: Vec<Reg> = (var.base..var.base + var.len).collect();
                    self.pick_uniform(*dst, *index, *offset, &choices)?
                }
            }
            Op::Pick {
                dst,
                index,
                choices,
            } => self.pick_uniform(*dst, *index, 0, choices)?,
            Op::StoreVar {
                var,
                offset,
                index,
                value,
            } => {
                if self.resident[var.base as usize] && self.get(*index).is_scalar() {
                    self.resident_var(*var, *offset, *index, VarAccess::Store(*value))?
                } else {
                    self.store_var_uniform(*var, *offset, *index, *value)?
                }
            }
            Op::Load { .. }
            | Op::Store { .. }
            | Op::TensorRead { .. }
            | Op::TensorWrite { .. }
            | Op::TensorQuery { .. }
            | Op::ArrayLength { .. } => self.memory(op)?,
            Op::AtomicUpdate {
                op,
                space,
                bytes,
                addr,
                offset,
                value,
            } => self.atomic_update(*op, *space, *bytes, *addr, *offset, *value)?,
            Op::CoopMatMulAdd { .. } => {
                self.mul_add(op)?;
                true
            }
            Op::CoopMatVec { .. } | Op::CoopOuterProduct { .. } | Op::CoopReduceSum { .. } => {
                self.native_call(op)?;
                true
            }
            Op::CoopMatLoad { .. } => {
                self.coop_matrix_load(op)?;
                true
            }
            Op::CoopMatStore { .. } => {
                self.coop_matrix_store(op)?;
                true
            }
            _ => false,
        };
        if done {
            self.native_ops += 1;
            Ok(())
        } else {
            self.callout(op)
        }
    }

    // ------------------------------------------------------------------ integers

    /// Scalar `op` at `bits` (storage width `ty`) with `alu::ibin`'s semantics, or `None`.
    pub(super) fn ibin_scalar(
        &mut self,
        op: IBin,
        bits: u32,
        ty: Type,
        a: Value,
        b: Value,
    ) -> Option<Value> {
        Some(match op {
            IBin::Add => self.b.ins().iadd(a, b),
            IBin::Sub => self.b.ins().isub(a, b),
            IBin::Mul => self.b.ins().imul(a, b),
            IBin::And => self.b.ins().band(a, b),
            IBin::Or => self.b.ins().bor(a, b),
            IBin::Xor => self.b.ins().bxor(a, b),
            IBin::UMin => self.b.ins().umin(a, b),
            IBin::UMax => self.b.ins().umax(a, b),
            IBin::SMin => self.b.ins().smin(a, b),
            IBin::SMax => self.b.ins().smax(a, b),
            IBin::UMulHi => self.b.ins().umulhi(a, b),
            IBin::SMulHi => self.b.ins().smulhi(a, b),
            IBin::Shl | IBin::ShrL | IBin::ShrA => {
                // The amount (any width) as the value's type, saturated: `alu` gives 0 (or the
                // sign) for amounts of `bits` or more.
                let big =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, b, i64::from(bits));
                let amt = self.fit(b, ty);
                let shifted = match op {
                    IBin::Shl => self.b.ins().ishl(a, amt),
                    IBin::ShrL => self.b.ins().ushr(a, amt),
                    _ => self.b.ins().sshr(a, amt),
                };
                let over = match op {
                    IBin::ShrA => self.b.ins().sshr_imm_s(a, i64::from(bits - 1)),
                    _ => self.b.ins().iconst(ty, 0),
                };
                self.b.ins().select(big, over, shifted)
            }
            IBin::UDiv | IBin::UMod => {
                // Division by zero gives 0: divide by 1 instead, then select.
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let one = self.b.ins().iconst(ty, 1);
                let d = self.b.ins().select(zero, one, b);
                let q = if op == IBin::UDiv {
                    self.b.ins().udiv(a, d)
                } else {
                    self.b.ins().urem(a, d)
                };
                self.guarded_division(q);
                let z = self.b.ins().iconst(ty, 0);
                self.b.ins().select(zero, z, q)
            }
            IBin::SDiv | IBin::SRem => {
                // y = 0 gives 0; MIN / -1 wraps (x86 would trap): divide by 1 in both cases,
                // then fix the result up.
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let minus1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let bad = self.b.ins().bor(zero, minus1);
                let one = self.b.ins().iconst(ty, 1);
                let d = self.b.ins().select(bad, one, b);
                let q = if op == IBin::SDiv {
                    self.b.ins().sdiv(a, d)
                } else {
                    self.b.ins().srem(a, d)
                };
                self.guarded_division(q);
                let z = self.b.ins().iconst(ty, 0);
                let on_minus1 = if op == IBin::SDiv {
                    self.b.ins().ineg(a)
                } else {
                    z
                };
                let q = self.b.ins().select(minus1, on_minus1, q);
                self.b.ins().select(zero, z, q)
            }
            IBin::AddCarry => {
                let s = self.b.ins().iadd(a, b);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, s, a);
                // (An 8-bit carry is the comparison's own I8.)
                self.fit(c, ty)
            }
            IBin::SubBorrow => {
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, a, b);
                self.fit(c, ty)
            }
            IBin::SMod => {
                // The remainder with the sign of the divisor: `srem`, plus `b` when it is not 0
                // and its sign differs from `b`'s (y = 0 gives 0; y = -1 gives 0).
                let r = self.ibin_scalar(IBin::SRem, bits, ty, a, b)?;
                let z = self.b.ins().iconst(ty, 0);
                let nonzero = self.b.ins().icmp(IntCC::NotEqual, r, z);
                let r_neg = self.b.ins().icmp(IntCC::SignedLessThan, r, z);
                let b_neg = self.b.ins().icmp(IntCC::SignedLessThan, b, z);
                let differ = self.b.ins().bxor(r_neg, b_neg);
                let fix = self.b.ins().band(nonzero, differ);
                let sum = self.b.ins().iadd(r, b);
                self.b.ins().select(fix, sum, r)
            }
        })
    }

    /// Scalar `op` (one of the bit and sign functions) on a `bits`-bit integer of type `ty`, as
    /// `alu::iun` (a find of nothing gives all ones).
    fn iun_scalar(&mut self, op: IUn, ty: Type, bits: u32, x: Value) -> Value {
        let z = self.b.ins().iconst(ty, 0);
        let none = self.b.ins().iconst(ty, -1);
        let msb = |g: &mut Self, y: Value| {
            let lz = g.b.ins().clz(y);
            let top = g.b.ins().iconst(ty, i64::from(bits - 1));
            let r = g.b.ins().isub(top, lz);
            let empty = g.b.ins().icmp(IntCC::Equal, y, z);
            g.b.ins().select(empty, none, r)
        };
        match op {
            IUn::SAbs => self.b.ins().iabs(x),
            IUn::SSign => {
                let pos = self.b.ins().icmp(IntCC::SignedGreaterThan, x, z);
                let neg = self.b.ins().icmp(IntCC::SignedLessThan, x, z);
                let (pos, neg) = (self.fit(pos, ty), self.fit(neg, ty));
                self.b.ins().isub(pos, neg)
            }
            IUn::BitCount => self.b.ins().popcnt(x),
            IUn::BitReverse => self.b.ins().bitrev(x),
            IUn::FindILsb => {
                let tz = self.b.ins().ctz(x);
                let empty = self.b.ins().icmp(IntCC::Equal, x, z);
                self.b.ins().select(empty, none, tz)
            }
            IUn::FindUMsb => msb(self, x),
            IUn::FindSMsb => {
                let neg = self.b.ins().icmp(IntCC::SignedLessThan, x, z);
                let flipped = self.b.ins().bnot(x);
                let y = self.b.ins().select(neg, flipped, x);
                msb(self, y)
            }
            IUn::Neg => self.b.ins().ineg(x),
            IUn::Not => self.b.ins().bnot(x),
        }
    }

    /// Per-lane scalar code: lane `i` of the result is `f(lane i of each operand)`.
    pub(super) fn scalarise(
        &mut self,
        args: &[(JVal, usize)],
        out_bytes: usize,
        mut f: impl FnMut(&mut Self, &[Value]) -> Option<Value>,
    ) -> Option<JVal> {
        let pv = per_vec(out_bytes);
        let vt = vec_ty(out_bytes);
        let mut vecs = Vec::with_capacity(out_bytes);
        let mut cur = None;
        for i in 0..LANES {
            let lanes: Vec<Value> = args.iter().map(|(v, b)| self.lane(v, *b, i)).collect();
            let x = f(self, &lanes)?;
            let x = self.fit(x, scalar_ty(out_bytes));
            if i % pv == 0 {
                cur = Some(self.b.ins().splat(vt, x));
            } else {
                let c = cur.take()?;
                cur = Some(self.b.ins().insertlane(c, x, (i % pv) as u8));
            }
            if i % pv == pv - 1 {
                vecs.push(cur.take()?);
            }
        }
        Some(JVal::Varying(vecs))
    }

    fn ibin(&mut self, op: IBin, width: u8, dst: u32, lhs: u32, rhs: u32) -> JitResult<bool> {
        let bytes = width_bytes(width);
        let (bits, ty) = ((bytes * 8) as u32, scalar_ty(bytes));
        if u32::from(width) != bits && !matches!(op, IBin::And | IBin::Or | IBin::Xor) {
            return Ok(false); // 1-bit arithmetic other than the logical ops
        }
        let rb = self.bytes(rhs);
        let (a, b) = (self.get(lhs), self.get(rhs));
        let shift = matches!(op, IBin::Shl | IBin::ShrL | IBin::ShrA);
        let r = match (&a, &b) {
            (JVal::Const(x), JVal::Const(y)) => Some(JVal::Const(alu::ibin(op, width, *x, *y))),
            _ if a.is_scalar() && b.is_scalar() => {
                let x = self
                    .scalar(&a, bytes)
                    .ok_or(JitError::NotUniform("scalar"))?;
                let y = self
                    .scalar(&b, if shift { rb } else { bytes })
                    .ok_or(JitError::NotUniform("scalar"))?;
                self.ibin_scalar(op, bits, ty, x, y).map(JVal::Uniform)
            }
            (JVal::Affine(base, _), JVal::Const(k))
                if crate::classes::aligned_index(self.ir, &self.shape) == Some(lhs)
                    && crate::classes::aligned_ibin(op, bits, *k).is_some() =>
            {
                // Lane 0's result stands for the chunk (`classes::aligned_index`).
                let (x, y) = (*base, self.iconst(ty, *k));
                let x = self.fit(x, ty);
                self.ibin_scalar(op, bits, ty, x, y).map(|v| match op {
                    IBin::And => JVal::Affine(v, 1),
                    _ => JVal::Uniform(v),
                })
            }
            _ => self.ibin_affine(op, bits, &a, &b, bytes, rb),
        };
        let r = match r {
            Some(r) => Some(r),
            None => self.ibin_vector(op, bits, &a, &b, bytes, rb),
        };
        match r {
            Some(r) => {
                self.set(dst, r)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Affine results (the class rules of `classes`), if `op` keeps its operands affine.
    fn ibin_affine(
        &mut self,
        op: IBin,
        bits: u32,
        a: &JVal,
        b: &JVal,
        bytes: usize,
        rb: usize,
    ) -> Option<JVal> {
        let ty = scalar_ty(bytes);
        let w = |s: u64| wrap(s, bits);
        let mk = |g: &mut Self, base: Value, s: u64| {
            if w(s) == 0 {
                JVal::Uniform(base)
            } else {
                let _ = g;
                JVal::Affine(base, w(s))
            }
        };
        match (op, a, b) {
            (IBin::Add, JVal::Affine(x, s), y) | (IBin::Add, y, JVal::Affine(x, s))
                if y.is_scalar() =>
            {
                let y = self.scalar(y, bytes)?;
                let x = self.fit(*x, ty);
                let base = self.b.ins().iadd(x, y);
                Some(mk(self, base, *s))
            }
            (IBin::Add, JVal::Affine(x, s), JVal::Affine(y, t)) => {
                let (x, y) = (self.fit(*x, ty), self.fit(*y, ty));
                let base = self.b.ins().iadd(x, y);
                Some(mk(self, base, s.wrapping_add(*t)))
            }
            (IBin::Sub, JVal::Affine(x, s), y) if y.is_scalar() => {
                let y = self.scalar(y, bytes)?;
                let x = self.fit(*x, ty);
                let base = self.b.ins().isub(x, y);
                Some(mk(self, base, *s))
            }
            (IBin::Sub, x, JVal::Affine(y, s)) if x.is_scalar() => {
                let x = self.scalar(x, bytes)?;
                let y = self.fit(*y, ty);
                let base = self.b.ins().isub(x, y);
                Some(mk(self, base, s.wrapping_neg()))
            }
            (IBin::Sub, JVal::Affine(x, s), JVal::Affine(y, t)) => {
                let (x, y) = (self.fit(*x, ty), self.fit(*y, ty));
                let base = self.b.ins().isub(x, y);
                Some(mk(self, base, s.wrapping_sub(*t)))
            }
            (IBin::Mul, JVal::Affine(x, s), JVal::Const(k))
            | (IBin::Mul, JVal::Const(k), JVal::Affine(x, s)) => {
                let x = self.fit(*x, ty);
                let kv = self.iconst(ty, *k);
                let base = self.b.ins().imul(x, kv);
                Some(mk(self, base, s.wrapping_mul(*k)))
            }
            (IBin::Shl, JVal::Affine(x, s), JVal::Const(k)) if *k < u64::from(bits) => {
                let _ = rb;
                let x = self.fit(*x, ty);
                let base = self.b.ins().ishl_imm_s(x, *k as i64);
                Some(mk(self, base, s << k))
            }
            (IBin::UDiv | IBin::ShrL, JVal::Affine(x, s), JVal::Const(k)) => {
                // Exact when no lane wraps (`classes::exact_quotient_stride`); a chunk whose
                // lanes do is handed back (`wrap_check_may_hand_back`).
                let stride = crate::classes::exact_quotient_stride(op, *s, *k, bits)?;
                let x = self.fit(*x, ty);
                let span = (LANES as u64 - 1) * s;
                let limit = wrap(u64::MAX, bits) - span;
                let wraps = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThan, x, limit as i64);
                self.hand_back_if(wraps);
                let base = if op == IBin::UDiv {
                    self.b.ins().udiv_imm_u(x, *k as i64)
                } else {
                    self.b.ins().ushr_imm_u(x, *k as i64)
                };
                Some(mk(self, base, stride))
            }
            _ => None,
        }
    }

    /// Vector results over the 16 lanes.
    fn ibin_vector(
        &mut self,
        op: IBin,
        bits: u32,
        a: &JVal,
        b: &JVal,
        bytes: usize,
        rb: usize,
    ) -> Option<JVal> {
        let shift = matches!(op, IBin::Shl | IBin::ShrL | IBin::ShrA);
        if shift && b.is_scalar() {
            let amount = self.scalar(b, rb)?;
            let xs = self.vectors(a, bytes);
            let big =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, amount, i64::from(bits));
            let amt32 = self.fit(amount, I32);
            let out = xs
                .iter()
                .map(|&x| {
                    let shifted = match op {
                        IBin::Shl => self.b.ins().ishl(x, amt32),
                        IBin::ShrL => self.b.ins().ushr(x, amt32),
                        _ => self.b.ins().sshr(x, amt32),
                    };
                    let over = match op {
                        IBin::ShrA => self.b.ins().sshr_imm_s(x, i64::from(bits - 1)),
                        _ => {
                            let z = self.iconst(scalar_ty(bytes), 0);
                            self.b.ins().splat(vec_ty(bytes), z)
                        }
                    };
                    self.b.ins().select(big, over, shifted)
                })
                .collect::<Vec<Value>>();
            // A word shifted by whole bytes, which a truncation to 8 bits may follow (`quads`).
            if let (IBin::ShrL, 4, JVal::Const(c @ (0 | 8 | 16 | 24))) = (op, bytes, b) {
                self.shifted_words
                    .insert(out[0], (xs.clone(), (c / 8) as u8, out.clone()));
            }
            return Some(JVal::Varying(out));
        }
        let vector_ok = match op {
            IBin::Add | IBin::Sub | IBin::And | IBin::Or | IBin::Xor => true,
            IBin::Mul => bytes != 1,
            IBin::UMin | IBin::UMax | IBin::SMin | IBin::SMax => bytes != 8,
            _ => false,
        };
        if op == IBin::Mul
            && let Some(out) = self.mul_by_power_of_two(a, b, bytes)
        {
            return Some(JVal::Varying(out));
        }
        if op == IBin::Mul
            && bytes == 8
            && let Some(out) = self.mul_widened_by_uniform(a, b)
        {
            return Some(JVal::Varying(out));
        }
        if vector_ok && !shift {
            let xs = self.vectors(a, bytes);
            let ys = self.vectors(b, bytes);
            let out = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| match op {
                    IBin::Add => self.b.ins().iadd(x, y),
                    IBin::Sub => self.b.ins().isub(x, y),
                    IBin::And => self.b.ins().band(x, y),
                    IBin::Or => self.b.ins().bor(x, y),
                    IBin::Xor => self.b.ins().bxor(x, y),
                    IBin::Mul => self.b.ins().imul(x, y),
                    IBin::UMin => self.b.ins().umin(x, y),
                    IBin::UMax => self.b.ins().umax(x, y),
                    IBin::SMin => self.b.ins().smin(x, y),
                    _ => self.b.ins().smax(x, y),
                })
                .collect();
            return Some(JVal::Varying(out));
        }
        if op == IBin::Mul && bytes == 1 {
            // 8-bit products: widen to 16 bits, multiply, keep the low bytes.
            let x = self.vectors(a, 1)[0];
            let y = self.vectors(b, 1)[0];
            let (xl, xh) = (self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x));
            let (yl, yh) = (self.b.ins().uwiden_low(y), self.b.ins().uwiden_high(y));
            let (pl, ph) = (self.b.ins().imul(xl, yl), self.b.ins().imul(xh, yh));
            let ff = self.b.ins().iconst(I16, 0xff);
            let mask = self.b.ins().splat(I16X8, ff);
            let (pl, ph) = (self.b.ins().band(pl, mask), self.b.ins().band(ph, mask));
            return Some(JVal::Varying(vec![self.b.ins().unarrow(pl, ph)]));
        }
        if matches!(op, IBin::UDiv | IBin::UMod) && bytes == 4 && b.is_scalar() {
            return self.udiv_by_uniform(op, a, b);
        }
        let ty = scalar_ty(bytes);
        let args = [
            (a.clone(), bytes),
            (b.clone(), if shift { rb } else { bytes }),
        ];
        self.scalarise(&args, bytes, |g, l| g.ibin_scalar(op, bits, ty, l[0], l[1]))
    }

    /// 32-bit `UDiv`/`UMod` of varying lanes by a uniform divisor `d`, in vectors, without a
    /// division per lane (Granlund and Montgomery, "Division by invariant integers using
    /// multiplication", 1994, the round-up method): with `l = ⌈log₂ d⌉` and
    /// `m = ⌊2³²·(2ˡ − d) / d⌋ + 1` (below 2³²; one scalar division, hoisted out of loops when `d`
    /// is invariant), `t = ⌊m·n / 2³²⌋` and `n / d = (t + ((n − t) >> min(l, 1))) >> max(l − 1, 0)`
    /// for every 32-bit `n` and `d ≥ 1` (`d = 1`: `m = 1`, `t = 0`, shifts 0). `n mod d` is
    /// `n − (n / d)·d`. `d = 0` gives 0, as `alu::ibin`.
    fn udiv_by_uniform(&mut self, op: IBin, a: &JVal, b: &JVal) -> Option<JVal> {
        let d32 = self.scalar(b, 4)?;
        let d = self.b.ins().uextend(I64, d32);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let unit = self.b.ins().iconst(I64, 1);
        let safe = self.b.ins().select(zero, unit, d);
        let below = self.b.ins().iadd_imm_s(safe, -1);
        let leading = self.b.ins().clz(below);
        let width = self.b.ins().iconst(I64, 64);
        let l = self.b.ins().isub(width, leading);
        let pow = self.b.ins().ishl(unit, l);
        let excess = self.b.ins().isub(pow, safe);
        let numerator = self.b.ins().ishl_imm_u(excess, 32);
        let m = self.b.ins().udiv(numerator, safe);
        self.guarded_division(m);
        let m = self.b.ins().iadd_imm_s(m, 1);
        let sh1 = self.b.ins().umin(l, unit);
        let sh2 = self.b.ins().isub(l, sh1);
        let (sh1, sh2) = (
            self.b.ins().ireduce(I32, sh1),
            self.b.ins().ireduce(I32, sh2),
        );
        let m = self.b.ins().ireduce(I32, m);
        // Broadcast with a shuffle, not `splat`: Cranelift rewrites a widened splat into a
        // 64-bit splat, and the product then no longer lowers to `pmuludq`.
        let m = self.b.ins().scalar_to_vector(I32X4, m);
        let m = self.shuffle32(m, m, [0; 4]);
        // All ones, or 0 for d = 0.
        let keep = self.b.ins().iconst(I32, -1);
        let none = self.b.ins().iconst(I32, 0);
        let keep = self.b.ins().select(zero, none, keep);
        let keep = self.b.ins().splat(I32X4, keep);
        let divisor = self.b.ins().ireduce(I32, safe);
        let divisor = self.b.ins().splat(I32X4, divisor);
        let out = self
            .vectors(a, 4)
            .into_iter()
            .map(|n| {
                let t = self.mulhi_u32x4(n, m);
                let rest = self.b.ins().isub(n, t);
                let half = self.b.ins().ushr(rest, sh1);
                let sum = self.b.ins().iadd(t, half);
                let q = self.b.ins().ushr(sum, sh2);
                let r = if op == IBin::UDiv {
                    q
                } else {
                    let back = self.b.ins().imul(q, divisor);
                    self.b.ins().isub(n, back)
                };
                self.b.ins().band(r, keep)
            })
            .collect();
        Some(JVal::Varying(out))
    }

    /// A varying product by a constant power of two, as a shift: Cranelift lowers a vector
    /// `imul` by a splat constant as a general product (`pmulld`, or two `pmuludq` and more
    /// for 64-bit lanes). `None` for other operands and for bytes (no 8-bit vector shift).
    fn mul_by_power_of_two(&mut self, a: &JVal, b: &JVal, bytes: usize) -> Option<Vec<Value>> {
        let ((JVal::Varying(_), JVal::Const(k)) | (JVal::Const(k), JVal::Varying(_))) = (a, b)
        else {
            return None;
        };
        let x = if matches!(a, JVal::Varying(_)) { a } else { b };
        let bits = 8 * bytes as u32;
        let k = if bits == 64 {
            *k
        } else {
            *k & ((1u64 << bits) - 1)
        };
        if bytes == 1 || !k.is_power_of_two() {
            return None;
        }
        let shift = i64::from(k.trailing_zeros());
        Some(
            self.vectors(x, bytes)
                .into_iter()
                .map(|v| self.b.ins().ishl_imm_u(v, shift))
                .collect(),
        )
    }

    /// A 64-bit product of varying lanes that are zero-extended 32-bit values (each `I64X2` a
    /// `uwiden_low`/`uwiden_high` of an `I32X4`, as a 32 → 64-bit conversion makes them; a
    /// row index times a row pitch) by a uniform `u`: `x·u_low + (x·u_high) << 32`, two
    /// `pmuludq` per pair of lanes, where x64's general 64-bit product takes three and five
    /// more instructions. `None` for other operands.
    fn mul_widened_by_uniform(&mut self, a: &JVal, b: &JVal) -> Option<Vec<Value>> {
        let (lanes, uniform) = match (a, b) {
            (JVal::Varying(v), u) | (u, JVal::Varying(v)) if u.is_scalar() => (v.clone(), u),
            _ => return None,
        };
        let halves: Option<Vec<(Value, bool)>> = lanes
            .iter()
            .map(|&v| {
                let inst = self.b.func.dfg.value_def(v).inst()?;
                let data = &self.b.func.dfg.insts[inst];
                let high = match data.opcode() {
                    Opcode::UwidenLow => false,
                    Opcode::UwidenHigh => true,
                    _ => return None,
                };
                let src = self.b.func.dfg.inst_args(inst)[0];
                (self.b.func.dfg.value_type(src) == I32X4).then_some((src, high))
            })
            .collect();
        let halves = halves?;
        let u = self.scalar(uniform, 8)?;
        let u = self.fit(u, I64);
        let low = self.b.ins().ireduce(I32, u);
        let high = self.b.ins().ushr_imm_u(u, 32);
        let high = self.b.ins().ireduce(I32, high);
        // Broadcast with a shuffle, not `splat` (see `udiv_by_uniform`).
        let broadcast = |g: &mut Self, x: Value| {
            let v = g.b.ins().scalar_to_vector(I32X4, x);
            let v = g.shuffle32(v, v, [0; 4]);
            g.b.ins().uwiden_low(v)
        };
        let (low, high) = (broadcast(self, low), broadcast(self, high));
        Some(
            halves
                .into_iter()
                .map(|(src, upper)| {
                    let x = if upper {
                        self.b.ins().uwiden_high(src)
                    } else {
                        self.b.ins().uwiden_low(src)
                    };
                    let p_low = self.b.ins().imul(x, low);
                    let p_high = self.b.ins().imul(x, high);
                    let p_high = self.b.ins().ishl_imm_u(p_high, 32);
                    self.b.ins().iadd(p_low, p_high)
                })
                .collect(),
        )
    }

    /// The high 32 bits of each lane's unsigned 64-bit product of two `I32X4` (two
    /// `pmuludq` and a `shufps`).
    fn mulhi_u32x4(&mut self, x: Value, y: Value) -> Value {
        let (xl, yl) = (self.b.ins().uwiden_low(x), self.b.ins().uwiden_low(y));
        let (xh, yh) = (self.b.ins().uwiden_high(x), self.b.ins().uwiden_high(y));
        let low = self.b.ins().imul(xl, yl);
        let high = self.b.ins().imul(xh, yh);
        let low = self.b.ins().bitcast(I32X4, lane_flags(), low);
        let high = self.b.ins().bitcast(I32X4, lane_flags(), high);
        self.shuffle32(low, high, [1, 3, 5, 7])
    }

    fn iun(&mut self, op: IUn, width: u8, dst: u32, src: u32) -> JitResult<bool> {
        let bytes = width_bytes(width);
        let bits = (bytes * 8) as u32;
        let a = self.get(src);
        let r = match (op, &a) {
            (_, JVal::Const(x)) => Some(JVal::Const(alu::iun(op, width, *x))),
            (IUn::Not | IUn::Neg, _) if u32::from(width) == bits || op == IUn::Not => {
                let flip = |g: &mut Self, x: Value, vector: bool| -> Value {
                    match (op, u32::from(width) == bits, vector) {
                        (IUn::Neg, _, _) => g.b.ins().ineg(x),
                        (_, true, _) => g.b.ins().bnot(x),
                        // A 1-bit not: 0 ↔ 1.
                        (_, false, false) => g.b.ins().bxor_imm_s(x, 1),
                        (_, false, true) => {
                            let one = g.b.ins().iconst(I8, 1);
                            let ones = g.b.ins().splat(I8X16, one);
                            g.b.ins().bxor(x, ones)
                        }
                    }
                };
                if let Some(x) = self.scalar(&a, bytes) {
                    Some(JVal::Uniform(flip(self, x, false)))
                } else {
                    let xs = self.vectors(&a, bytes);
                    let known = match (op, xs.as_slice()) {
                        (IUn::Not, [x]) if width == 1 => {
                            match (self.decided.get(x).copied(), self.lane_flags[src as usize]) {
                                (Some(k), _) => Some(k),
                                (None, Some((all, any))) => {
                                    Some((self.b.use_var(all), self.b.use_var(any)))
                                }
                                (None, None) => None,
                            }
                        }
                        _ => None,
                    };
                    let out: Vec<Value> = xs.into_iter().map(|x| flip(self, x, true)).collect();
                    if let Some((all, any)) = known {
                        // Every lane of the not is true when no lane was, some when not all.
                        let all_not = self.b.ins().bxor_imm_s(any, 1);
                        let any_not = self.b.ins().bxor_imm_s(all, 1);
                        self.decided.insert(out[0], (all_not, any_not));
                    }
                    Some(JVal::Varying(out))
                }
            }
            (IUn::SAbs, _) if matches!(bytes, 1 | 2) && u32::from(width) == bits => {
                // pabsb / pabsw (the most negative value stays itself, as `alu` wraps);
                // a uniform operand is splat and lane 0 kept.
                let scalar = a.is_scalar();
                let out: Vec<Value> = self
                    .vectors(&a, bytes)
                    .into_iter()
                    .map(|x| self.b.ins().iabs(x))
                    .collect();
                Some(if scalar {
                    JVal::Uniform(self.b.ins().extractlane(out[0], 0))
                } else {
                    JVal::Varying(out)
                })
            }
            (_, _) if matches!(bytes, 4 | 8) && u32::from(width) == bits => {
                let ty = scalar_ty(bytes);
                if let Some(x) = self.scalar(&a, bytes) {
                    Some(JVal::Uniform(self.iun_scalar(op, ty, bits, x)))
                } else {
                    self.scalarise(&[(a.clone(), bytes)], bytes, |g, l| {
                        Some(g.iun_scalar(op, ty, bits, l[0]))
                    })
                }
            }
            _ => None,
        };
        match r {
            Some(r) => {
                self.set(dst, r)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
