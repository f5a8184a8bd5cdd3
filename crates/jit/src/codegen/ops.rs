//! Lowering of the IR's arithmetic ops, by operand representation: scalar code for uniform
//! operands, base arithmetic for affine ones, 128-bit vector code for varying ones, and per-lane
//! scalar code ("scalarised") where x86's vector instructions do not fit. Every lowering computes
//! exactly what `tessera_spirv::alu` computes for each lane (the interpreter's semantics); what
//! is not lowered goes to the interpreter through `Gen::callout`.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use tessera_spirv::alu::{self, Conv, FBin, FCmp, FUn, IBin, ICmp, IUn, width_bytes};
use tessera_spirv::ir::{Op, Reg, Var};

use super::Gen;
use super::values::{JVal, lane_flags, own_flags, per_vec, scalar_ty, vec_ty};
use crate::classes::{LANES, wrap};

/// The float type of a float width code, if the JIT computes in it.
pub(super) fn float_ty(width: u8) -> Option<Type> {
    match width {
        32 => Some(F32),
        64 => Some(F64),
        _ => None,
    }
}

/// Cranelift's condition for `op`.
fn int_cc(op: ICmp) -> IntCC {
    match op {
        ICmp::Eq => IntCC::Equal,
        ICmp::Ne => IntCC::NotEqual,
        ICmp::ULt => IntCC::UnsignedLessThan,
        ICmp::ULe => IntCC::UnsignedLessThanOrEqual,
        ICmp::UGt => IntCC::UnsignedGreaterThan,
        ICmp::UGe => IntCC::UnsignedGreaterThanOrEqual,
        ICmp::SLt => IntCC::SignedLessThan,
        ICmp::SLe => IntCC::SignedLessThanOrEqual,
        ICmp::SGt => IntCC::SignedGreaterThan,
        ICmp::SGe => IntCC::SignedGreaterThanOrEqual,
    }
}

/// The binary16 width code, computed in f32 (`half.rs`).
fn is_half(width: u8) -> bool {
    width == 16
}

fn float_vec(width: u8) -> Type {
    if width == 32 { F32X4 } else { F64X2 }
}

/// The f32 bits of every float8 code (E5M2 or E4M3), as `alu::conv` converts them; built once,
/// never freed (compiled code holds its address).
fn fp8_table(e5m2: bool) -> &'static [u32; 256] {
    static TABLES: std::sync::OnceLock<[[u32; 256]; 2]> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let table =
            |w: u8| std::array::from_fn(|code| alu::conv(Conv::FToF, w, 32, code as u64) as u32);
        [table(alu::W_E4M3), table(alu::W_E5M2)]
    });
    &tables[usize::from(e5m2)]
}

impl Gen<'_> {
    /// Lowers one op (natively, or through the interpreter).
    pub(crate) fn op(&mut self, op: &Op) -> Result<(), String> {
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
            Op::CoopMatVec { .. }
            | Op::CoopOuterProduct { .. }
            | Op::CoopReduceSum { .. }
            | Op::CoopMatMulAdd { .. } => {
                self.native_call(op)?;
                true
            }
            Op::CoopMatLoad { .. } => {
                self.coop_matrix_load(op)?;
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
    fn ibin_scalar(&mut self, op: IBin, bits: u32, ty: Type, a: Value, b: Value) -> Option<Value> {
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

    fn ibin(&mut self, op: IBin, width: u8, dst: u32, lhs: u32, rhs: u32) -> Result<bool, String> {
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
                let x = self.scalar(&a, bytes).ok_or("scalar")?;
                let y = self
                    .scalar(&b, if shift { rb } else { bytes })
                    .ok_or("scalar")?;
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
                .collect();
            return Some(JVal::Varying(out));
        }
        let vector_ok = match op {
            IBin::Add | IBin::Sub | IBin::And | IBin::Or | IBin::Xor => true,
            IBin::Mul => bytes != 1,
            IBin::UMin | IBin::UMax | IBin::SMin | IBin::SMax => bytes != 8,
            _ => false,
        };
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

    /// 32-bit `UDiv`/`UMod` of varying lanes by a uniform divisor `d`, without a division per
    /// lane (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019): with
    /// `M = ⌊(2⁶⁴ − 1) / d⌋ + 1` (one division, hoisted out of loops when `d` is invariant),
    /// `n / d` is the high 64 bits of `M·n` and `n mod d` the high 64 bits of
    /// `(M·n mod 2⁶⁴)·d`, exact for every 32-bit `n` and `d > 1`. `d = 1` (where `M` wraps to 0)
    /// gives `n` and 0; `d = 0` gives 0, as `alu::ibin`.
    fn udiv_by_uniform(&mut self, op: IBin, a: &JVal, b: &JVal) -> Option<JVal> {
        let d = self.scalar(b, 4)?;
        let d = self.b.ins().uextend(I64, d);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let one = self.b.ins().icmp_imm_s(IntCC::Equal, d, 1);
        let unit = self.b.ins().iconst(I64, 1);
        let safe = self.b.ins().select(zero, unit, d);
        let all = self.b.ins().iconst(I64, -1);
        let m = self.b.ins().udiv(all, safe);
        self.guarded_division(m);
        let m = self.b.ins().iadd_imm_s(m, 1);
        self.scalarise(&[(a.clone(), 4)], 4, |g, l| {
            let n = g.b.ins().uextend(I64, l[0]);
            let r = if op == IBin::UDiv {
                let q = g.b.ins().umulhi(m, n);
                g.b.ins().select(one, n, q)
            } else {
                let low = g.b.ins().imul(m, n);
                let r = g.b.ins().umulhi(low, d);
                let z = g.b.ins().iconst(I64, 0);
                g.b.ins().select(one, z, r)
            };
            let z = g.b.ins().iconst(I64, 0);
            let r = g.b.ins().select(zero, z, r);
            Some(g.b.ins().ireduce(I32, r))
        })
    }

    fn iun(&mut self, op: IUn, width: u8, dst: u32, src: u32) -> Result<bool, String> {
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

    fn icmp(&mut self, op: ICmp, width: u8, dst: u32, lhs: u32, rhs: u32) -> Result<bool, String> {
        let bytes = width_bytes(width);
        if u32::from(width) != (bytes * 8) as u32 && !matches!(op, ICmp::Eq | ICmp::Ne) {
            return Ok(false);
        }
        let cc = int_cc(op);
        let (a, b) = (self.get(lhs), self.get(rhs));
        let r = match (&a, &b) {
            (JVal::Const(x), JVal::Const(y)) => JVal::Const(alu::icmp(op, width, *x, *y)),
            _ if a.is_scalar() && b.is_scalar() => {
                let x = self.scalar(&a, bytes).ok_or("scalar")?;
                let y = self.scalar(&b, bytes).ok_or("scalar")?;
                JVal::Uniform(self.b.ins().icmp(cc, x, y))
            }
            _ if u32::from(width) == (bytes * 8) as u32 && bytes <= 4 => {
                match self.icmp_affine(op, bytes, &a, &b) {
                    Some(v) => v,
                    None => JVal::Varying(vec![self.icmp_vectors(cc, bytes, &a, &b)]),
                }
            }
            _ => JVal::Varying(vec![self.icmp_vectors(cc, bytes, &a, &b)]),
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `a cc b` lane by lane, as bools (`I8X16` of 0/1).
    fn icmp_vectors(&mut self, cc: IntCC, bytes: usize, a: &JVal, b: &JVal) -> Value {
        let xs = self.vectors(a, bytes);
        let ys = self.vectors(b, bytes);
        let masks: Vec<Value> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| self.b.ins().icmp(cc, x, y))
            .collect();
        self.bools_from_masks(&masks, bytes)
    }

    /// `op` between an affine operand of step 1 (lanes `x0 + i`) and a uniform one `y`, at a
    /// width of at most 32 bits, without the affine operand's vectors: when `x0 + 15` does not
    /// wrap, lane `i` compares as `i` against the threshold `y - x0` (in 64 bits), so one `I8X16`
    /// comparison of the lane numbers gives the bools (`i >= t` for the orders, `i == t` for
    /// `Eq`/`Ne`, negated for `<`, `<=` and `Ne`). A chunk whose lanes wrap takes the vector
    /// comparison. `None` when the operands are not of that form.
    fn icmp_affine(&mut self, op: ICmp, bytes: usize, a: &JVal, b: &JVal) -> Option<JVal> {
        let mirror = |op| match op {
            ICmp::ULt => ICmp::UGt,
            ICmp::ULe => ICmp::UGe,
            ICmp::UGt => ICmp::ULt,
            ICmp::UGe => ICmp::ULe,
            ICmp::SLt => ICmp::SGt,
            ICmp::SLe => ICmp::SGe,
            ICmp::SGt => ICmp::SLt,
            ICmp::SGe => ICmp::SLe,
            other => other,
        };
        let (x0, y, op) = match (a, b) {
            (JVal::Affine(x, 1), y) if y.is_scalar() => (*x, y.clone(), op),
            (y, JVal::Affine(x, 1)) if y.is_scalar() => (*x, y.clone(), mirror(op)),
            _ => return None,
        };
        let signed = matches!(op, ICmp::SLt | ICmp::SLe | ICmp::SGt | ICmp::SGe);
        let ty = scalar_ty(bytes);
        let x0 = self.fit(x0, ty);
        let y0 = self.scalar(&y, bytes)?;
        let (x, y) = if signed {
            (self.b.ins().sextend(I64, x0), self.b.ins().sextend(I64, y0))
        } else {
            (self.b.ins().uextend(I64, x0), self.b.ins().uextend(I64, y0))
        };
        let bits = 8 * bytes as u32;
        let max = if signed {
            (1i64 << (bits - 1)) - 1
        } else {
            (1i64 << bits) - 1
        };
        let nowrap = self.b.ins().icmp_imm_s(
            IntCC::SignedLessThanOrEqual,
            x,
            max - (crate::classes::LANES as i64 - 1),
        );
        // Only whether every lane is true, and some lane, are decided on the way (as scalars,
        // `decided`, for a branch); the bools themselves are pure values of what dominates the
        // join, which Cranelift computes where they are used (a divergent arm, a hand-back),
        // off the path of a chunk whose lanes agree.
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let all = self.b.append_block_param(join, I8);
        let any = self.b.append_block_param(join, I8);
        self.b.ins().brif(nowrap, fast, &[], slow, &[]);
        let block_args = |xs: [Value; 2]| xs.map(cranelift_codegen::ir::BlockArg::Value);

        self.b.switch_to_block(fast);
        // From the two ends, lanes x..=x+15 against y (exact in 64 bits, compared signed: both
        // are extensions of 32-bit or narrower values).
        let hi = self.b.ins().iadd_imm_s(x, LANES as i64 - 1);
        let cmp = |g: &mut Self, cc, a, b| g.b.ins().icmp(cc, a, b);
        use IntCC::{
            SignedGreaterThan as Gt, SignedGreaterThanOrEqual as Ge, SignedLessThan as Lt,
            SignedLessThanOrEqual as Le,
        };
        let (all_t, any_t) = match op {
            ICmp::ULt | ICmp::SLt => (cmp(self, Lt, hi, y), cmp(self, Lt, x, y)),
            ICmp::ULe | ICmp::SLe => (cmp(self, Le, hi, y), cmp(self, Le, x, y)),
            ICmp::UGt | ICmp::SGt => (cmp(self, Gt, x, y), cmp(self, Gt, hi, y)),
            ICmp::UGe | ICmp::SGe => (cmp(self, Ge, x, y), cmp(self, Ge, hi, y)),
            ICmp::Eq | ICmp::Ne => {
                let from = cmp(self, Le, x, y);
                let to = cmp(self, Le, y, hi);
                let hit = self.b.ins().band(from, to);
                let miss = self.b.ins().bxor_imm_s(hit, 1);
                let yes = self.b.ins().iconst(I8, 1);
                let no = self.b.ins().iconst(I8, 0);
                if op == ICmp::Ne {
                    (miss, yes)
                } else {
                    (no, hit)
                }
            }
        };
        self.b.ins().jump(join, &block_args([all_t, any_t]));

        self.b.switch_to_block(slow);
        let lanes = JVal::Affine(x0, 1);
        let other = JVal::Uniform(self.fit(y0, ty));
        let v = self.icmp_vectors(int_cc(op), bytes, &lanes, &other);
        let all_s = self.b.ins().vall_true(v);
        let any_s = self.b.ins().vany_true(v);
        self.b.ins().jump(join, &block_args([all_s, any_s]));

        self.b.switch_to_block(join);
        let (t, negate, eq) = self.lane_threshold(op, x, y);
        let t8 = self.b.ins().ireduce(I8, t);
        let ts = self.b.ins().splat(I8X16, t8);
        let iota = self.const_vec(1, 0, |i| i as u64);
        let cc = if eq {
            IntCC::Equal
        } else {
            IntCC::SignedGreaterThanOrEqual
        };
        let m = self.b.ins().icmp(cc, iota, ts);
        let m = if negate { self.b.ins().bnot(m) } else { m };
        let one = self.b.ins().iconst(I8, 1);
        let ones = self.b.ins().splat(I8X16, one);
        let by_threshold = self.b.ins().band(m, ones);
        let by_vectors = self.icmp_vectors(int_cc(op), bytes, &lanes, &other);
        let out = self.b.ins().select(nowrap, by_threshold, by_vectors);
        self.decided.insert(out, (all, any));
        Some(JVal::Varying(vec![out]))
    }

    /// `icmp_affine`'s threshold for lanes `x + i` (no wrap) against `y`, both exact in 64
    /// bits: (t in -1..=16, negate, eq), lane i being `i >= t` (`i == t` when `eq`), negated
    /// when `negate`.
    fn lane_threshold(&mut self, op: ICmp, x: Value, y: Value) -> (Value, bool, bool) {
        let d = self.b.ins().isub(y, x);
        let (t, negate, eq) = match op {
            ICmp::UGe | ICmp::SGe => (d, false, false),
            ICmp::UGt | ICmp::SGt => (self.b.ins().iadd_imm_s(d, 1), false, false),
            ICmp::ULt | ICmp::SLt => (d, true, false),
            ICmp::ULe | ICmp::SLe => (self.b.ins().iadd_imm_s(d, 1), true, false),
            ICmp::Eq => (d, false, true),
            ICmp::Ne => (d, true, true),
        };
        let lo = self.b.ins().iconst(I64, -1);
        let hi = self.b.ins().iconst(I64, LANES as i64);
        let t = self.b.ins().smax(t, lo);
        let t = self.b.ins().smin(t, hi);
        (t, negate, eq)
    }

    // ------------------------------------------------------------------ floats

    pub(super) fn bits_to_float(&mut self, x: Value, fty: Type) -> Value {
        self.b
            .ins()
            .bitcast(fty, cranelift_codegen::ir::MemFlagsData::new(), x)
    }

    pub(super) fn float_to_bits(&mut self, x: Value, ity: Type) -> Value {
        self.b
            .ins()
            .bitcast(ity, cranelift_codegen::ir::MemFlagsData::new(), x)
    }

    pub(super) fn vec_to_float(&mut self, x: Value, width: u8) -> Value {
        self.b.ins().bitcast(float_vec(width), lane_flags(), x)
    }

    pub(super) fn vec_from_float(&mut self, x: Value, width: u8) -> Value {
        let bytes = width_bytes(width);
        self.b.ins().bitcast(vec_ty(bytes), lane_flags(), x)
    }

    fn fbin(&mut self, op: FBin, width: u8, dst: u32, lhs: u32, rhs: u32) -> Result<bool, String> {
        if !matches!(
            op,
            FBin::Add | FBin::Sub | FBin::Mul | FBin::Div | FBin::Min | FBin::Max
        ) {
            return self.fbin_formula(op, width, dst, [lhs, rhs]);
        }
        if is_half(width) {
            return self.fbin_half(op, width, dst, lhs, rhs);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let ity = scalar_ty(bytes);
        let (a, b) = (self.get(lhs), self.get(rhs));
        let r = match (&a, &b) {
            (JVal::Const(x), JVal::Const(y)) => JVal::Const(alu::fbin(op, width, *x, *y)),
            _ if a.is_scalar() && b.is_scalar() => {
                let x = self.scalar(&a, bytes).ok_or("scalar")?;
                let y = self.scalar(&b, bytes).ok_or("scalar")?;
                let (x, y) = (self.bits_to_float(x, fty), self.bits_to_float(y, fty));
                let z = self.fop(op, x, y);
                JVal::Uniform(self.float_to_bits(z, ity))
            }
            _ => {
                let xs = self.vectors(&a, bytes);
                let ys = self.vectors(&b, bytes);
                let out = xs
                    .iter()
                    .zip(&ys)
                    .map(|(&x, &y)| {
                        let (x, y) = (self.vec_to_float(x, width), self.vec_to_float(y, width));
                        let z = self.fop(op, x, y);
                        self.vec_from_float(z, width)
                    })
                    .collect();
                JVal::Varying(out)
            }
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `fbin` on binary16: in f32 on vectors (`half.rs`); uniform operands are splat and
    /// lane 0 of the result kept.
    fn fbin_half(
        &mut self,
        op: FBin,
        width: u8,
        dst: u32,
        lhs: u32,
        rhs: u32,
    ) -> Result<bool, String> {
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fbin(op, width, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let xs = self.vectors(&a, 2);
        let ys = self.vectors(&b, 2);
        let mut out: Vec<Value> = Vec::with_capacity(xs.len());
        for (k, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            if scalar && k > 0 {
                break;
            }
            let v = if matches!(op, FBin::Min | FBin::Max) {
                self.half_min_max(op == FBin::Max, x, y)
            } else {
                self.half_vectors(&[x, y], &mut |g, v| g.fop(op, v[0], v[1]))
            };
            out.push(v);
        }
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(out[0], 0))
        } else {
            JVal::Varying(out)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `alu::fbin`'s Min or Max of binary16 lanes (`I16X8`) on their bits: `y` when it is the
    /// smaller (larger) one or `x` is NaN, else `x` (so ±0 compare equal, and a NaN `y` is
    /// taken only for a NaN `x`); a NaN result gets the quiet bit, as the widening and
    /// narrowing the other operations go through give it.
    fn half_min_max(&mut self, max: bool, x: Value, y: Value) -> Value {
        let splat = |g: &mut Self, v: u16| g.const_vec(2, 0, |_| u64::from(v));
        let magnitude = splat(self, 0x7fff);
        let inf = splat(self, 0x7c00);
        let (ax, ay) = (
            self.b.ins().band(x, magnitude),
            self.b.ins().band(y, magnitude),
        );
        let x_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, ax, inf);
        let y_nan = self.b.ins().icmp(IntCC::SignedGreaterThan, ay, inf);
        // Sign-magnitude to two's-complement order: negative values have their magnitude bits
        // flipped.
        let key = |g: &mut Self, v: Value| {
            let sign = g.b.ins().sshr_imm_s(v, 15);
            let flip = g.b.ins().band(sign, magnitude);
            g.b.ins().bxor(v, flip)
        };
        let (kx, ky) = (key(self, x), key(self, y));
        let cc = if max {
            IntCC::SignedGreaterThan
        } else {
            IntCC::SignedLessThan
        };
        let better = self.b.ins().icmp(cc, ky, kx);
        let either = self.b.ins().bor(ax, ay);
        let zero = splat(self, 0);
        let not_both_zero = self.b.ins().icmp(IntCC::NotEqual, either, zero);
        let any_nan = self.b.ins().bor(x_nan, y_nan);
        let ordered = self.b.ins().bnot(any_nan);
        let better = self.b.ins().band(better, not_both_zero);
        let better = self.b.ins().band(better, ordered);
        let take_y = self.b.ins().bor(better, x_nan);
        let r = self.b.ins().bitselect(take_y, y, x);
        let both_nan = self.b.ins().band(x_nan, y_nan);
        let quiet = splat(self, 0x0200);
        let quiet = self.b.ins().band(both_nan, quiet);
        self.b.ins().bor(r, quiet)
    }

    /// `x op y` on float scalars or vectors, as `alu::fbin` defines it.
    pub(super) fn fop(&mut self, op: FBin, x: Value, y: Value) -> Value {
        match op {
            FBin::Add => self.b.ins().fadd(x, y),
            FBin::Sub => self.b.ins().fsub(x, y),
            FBin::Mul => self.b.ins().fmul(x, y),
            FBin::Div => self.b.ins().fdiv(x, y),
            // y if (y < x or x is NaN) else x, and the same with > for Max.
            _ => {
                let cc = if op == FBin::Min {
                    FloatCC::LessThan
                } else {
                    FloatCC::GreaterThan
                };
                let better = self.b.ins().fcmp(cc, y, x);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                let pick = self.b.ins().bor(better, nan);
                let ty = self.b.func.dfg.value_type(x);
                if ty.is_vector() {
                    let pick = self.b.ins().bitcast(ty, lane_flags(), pick);
                    self.b.ins().bitselect(pick, y, x)
                } else {
                    self.b.ins().select(pick, y, x)
                }
            }
        }
    }

    fn fun(&mut self, op: FUn, width: u8, dst: u32, src: u32) -> Result<bool, String> {
        if is_half(width) && matches!(op, FUn::Neg | FUn::Abs) {
            // Sign-bit operations on the bits, as `alu::fun` does.
            let a = self.get(src);
            let r = match (&a, op) {
                (JVal::Const(x), _) => JVal::Const(alu::fun(op, width, *x)),
                _ if a.is_scalar() => {
                    let x = self.scalar(&a, 2).ok_or("scalar")?;
                    JVal::Uniform(if op == FUn::Neg {
                        self.b.ins().bxor_imm_s(x, 0x8000)
                    } else {
                        self.b.ins().band_imm_s(x, 0x7fff)
                    })
                }
                _ => {
                    let xs = self.vectors(&a, 2);
                    let k = if op == FUn::Neg { 0x8000 } else { 0x7fff };
                    let mask = self.const_vec(2, 0, |_| k);
                    JVal::Varying(
                        xs.iter()
                            .map(|&x| {
                                if op == FUn::Neg {
                                    self.b.ins().bxor(x, mask)
                                } else {
                                    self.b.ins().band(x, mask)
                                }
                            })
                            .collect(),
                    )
                }
            };
            self.set(dst, r)?;
            return Ok(true);
        }
        if !matches!(
            op,
            FUn::Neg | FUn::Abs | FUn::Sqrt | FUn::Floor | FUn::Ceil | FUn::Trunc | FUn::RoundEven
        ) || is_half(width)
        {
            return self.fun_formula(op, width, dst, src);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let ity = scalar_ty(bytes);
        let a = self.get(src);
        let r = match &a {
            JVal::Const(x) => JVal::Const(alu::fun(op, width, *x)),
            _ if a.is_scalar() => {
                let x = self.scalar(&a, bytes).ok_or("scalar")?;
                let x = self.bits_to_float(x, fty);
                let z = self.funop(op, x);
                JVal::Uniform(self.float_to_bits(z, ity))
            }
            _ => {
                let xs = self.vectors(&a, bytes);
                let out = xs
                    .iter()
                    .map(|&x| {
                        let x = self.vec_to_float(x, width);
                        let z = self.funop(op, x);
                        self.vec_from_float(z, width)
                    })
                    .collect();
                JVal::Varying(out)
            }
        };
        self.set(dst, r)?;
        Ok(true)
    }

    pub(super) fn funop(&mut self, op: FUn, x: Value) -> Value {
        match op {
            FUn::Neg => self.b.ins().fneg(x),
            FUn::Abs => self.b.ins().fabs(x),
            FUn::Sqrt => self.b.ins().sqrt(x),
            FUn::Floor => self.b.ins().floor(x),
            FUn::Ceil => self.b.ins().ceil(x),
            FUn::Trunc => self.b.ins().trunc(x),
            _ => self.b.ins().nearest(x),
        }
    }

    fn fcmp(&mut self, op: FCmp, width: u8, dst: u32, lhs: u32, rhs: u32) -> Result<bool, String> {
        if is_half(width) {
            return self.fcmp_half(op, dst, lhs, rhs);
        }
        let Some(fty) = float_ty(width) else {
            return Ok(false);
        };
        let bytes = width_bytes(width);
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fcmp(op, width, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let cmp = |g: &mut Self, x: Value, y: Value| g.fcmp_values(op, x, y);
        let r = if scalar {
            let x = self.scalar(&a, bytes).ok_or("scalar")?;
            let y = self.scalar(&b, bytes).ok_or("scalar")?;
            let (x, y) = (self.bits_to_float(x, fty), self.bits_to_float(y, fty));
            JVal::Uniform(cmp(self, x, y))
        } else {
            let xs = self.vectors(&a, bytes);
            let ys = self.vectors(&b, bytes);
            let masks: Vec<Value> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| {
                    let (x, y) = (self.vec_to_float(x, width), self.vec_to_float(y, width));
                    let m = cmp(self, x, y);
                    if self.b.func.dfg.value_type(m) == vec_ty(bytes) {
                        m
                    } else {
                        self.b.ins().bitcast(vec_ty(bytes), lane_flags(), m)
                    }
                })
                .collect();
            JVal::Varying(vec![self.bools_from_masks(&masks, bytes)])
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `fcmp` on binary16: both operands widened to f32 (exactly), compared there, the two
    /// `I32X4` masks of each `I16X8` narrowed back; uniform operands are splat and lane 0's
    /// bool kept.
    fn fcmp_half(&mut self, op: FCmp, dst: u32, lhs: u32, rhs: u32) -> Result<bool, String> {
        let (a, b) = (self.get(lhs), self.get(rhs));
        if let (JVal::Const(x), JVal::Const(y)) = (&a, &b) {
            self.set(dst, JVal::Const(alu::fcmp(op, 16, *x, *y)))?;
            return Ok(true);
        }
        let scalar = a.is_scalar() && b.is_scalar();
        let xs = self.vectors(&a, 2);
        let ys = self.vectors(&b, 2);
        let mut masks = Vec::with_capacity(2);
        for (&x, &y) in xs.iter().zip(&ys) {
            let mut parts = [x; 2];
            for (k, high) in [false, true].into_iter().enumerate() {
                let widen = |g: &mut Self, v: Value| {
                    let w = if high {
                        g.b.ins().uwiden_high(v)
                    } else {
                        g.b.ins().uwiden_low(v)
                    };
                    g.half_to_f32(w)
                };
                let (fx, fy) = (widen(self, x), widen(self, y));
                let m = self.fcmp_values(op, fx, fy);
                parts[k] = if self.b.func.dfg.value_type(m) == I32X4 {
                    m
                } else {
                    self.b.ins().bitcast(I32X4, lane_flags(), m)
                };
            }
            masks.push(self.b.ins().snarrow(parts[0], parts[1]));
        }
        let bools = self.bools_from_masks(&masks, 2);
        let r = if scalar {
            JVal::Uniform(self.b.ins().extractlane(bools, 0))
        } else {
            JVal::Varying(vec![bools])
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// One float predicate on two float values (scalars or vectors: a bool or a lane mask),
    /// as a disjunction/conjunction of ones x86 has for vectors too.
    fn fcmp_values(&mut self, op: FCmp, x: Value, y: Value) -> Value {
        let cmp = |g: &mut Self, x: Value, y: Value| -> Value {
            let c = |g: &mut Self, cc: FloatCC, p: Value, q: Value| g.b.ins().fcmp(cc, p, q);
            match op {
                FCmp::OEq => c(g, FloatCC::Equal, x, y),
                FCmp::ONe => {
                    let o = c(g, FloatCC::Ordered, x, y);
                    let ne = c(g, FloatCC::NotEqual, x, y);
                    g.b.ins().band(o, ne)
                }
                FCmp::OLt => c(g, FloatCC::LessThan, x, y),
                FCmp::OLe => c(g, FloatCC::LessThanOrEqual, x, y),
                FCmp::OGt => c(g, FloatCC::LessThan, y, x),
                FCmp::OGe => c(g, FloatCC::LessThanOrEqual, y, x),
                FCmp::UEq => {
                    let u = c(g, FloatCC::Unordered, x, y);
                    let eq = c(g, FloatCC::Equal, x, y);
                    g.b.ins().bor(u, eq)
                }
                FCmp::UNe => c(g, FloatCC::NotEqual, x, y),
                FCmp::ULt => {
                    let ge = c(g, FloatCC::LessThanOrEqual, y, x);
                    g.bool_not(ge)
                }
                FCmp::ULe => {
                    let gt = c(g, FloatCC::LessThan, y, x);
                    g.bool_not(gt)
                }
                FCmp::UGt => {
                    let le = c(g, FloatCC::LessThanOrEqual, x, y);
                    g.bool_not(le)
                }
                FCmp::UGe => {
                    let lt = c(g, FloatCC::LessThan, x, y);
                    g.bool_not(lt)
                }
                FCmp::IsNan => c(g, FloatCC::Unordered, x, x),
                FCmp::IsInf => {
                    let ax = g.b.ins().fabs(x);
                    let ty = g.b.func.dfg.value_type(x);
                    let inf = if ty.lane_type() == F32 {
                        let i = g.b.ins().f32const(f32::INFINITY);
                        if ty.is_vector() {
                            g.b.ins().splat(ty, i)
                        } else {
                            i
                        }
                    } else {
                        let i = g.b.ins().f64const(f64::INFINITY);
                        if ty.is_vector() {
                            g.b.ins().splat(ty, i)
                        } else {
                            i
                        }
                    };
                    c(g, FloatCC::Equal, ax, inf)
                }
            }
        };
        cmp(self, x, y)
    }

    /// Logical not of a comparison result (a scalar `I8` 0/1 or a vector mask).
    fn bool_not(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        if ty.is_vector() {
            self.b.ins().bnot(x)
        } else {
            self.b.ins().bxor_imm_s(x, 1)
        }
    }

    // ------------------------------------------------------------------ conversions, selects

    fn conv(&mut self, op: Conv, from: u8, to: u8, dst: u32, src: u32) -> Result<bool, String> {
        let (fb, tb) = (width_bytes(from), width_bytes(to));
        let a = self.get(src);
        if let JVal::Const(x) = a {
            self.set(dst, JVal::Const(alu::conv(op, from, to, x)))?;
            return Ok(true);
        }
        let int_bits_ok = |w: u8| w == 8 || w == 16 || w == 32 || w == 64;
        let r = match op {
            Conv::UToU | Conv::SToS if int_bits_ok(from) && int_bits_ok(to) => {
                let signed = op == Conv::SToS;
                match &a {
                    JVal::Uniform(x) => Some(JVal::Uniform(self.int_resize(*x, fb, tb, signed))),
                    JVal::Affine(x, s) => self.affine_resize(*x, *s, fb, tb, signed),
                    _ => {
                        let xs = self.vectors(&a, fb);
                        Some(JVal::Varying(self.vec_resize(&xs, fb, tb, signed)))
                    }
                }
            }
            Conv::FToFSat | Conv::FToFDirected(_) => self.narrow_float_conv(op, from, to, &a),
            Conv::FToF if matches!(to, alu::W_E4M3 | alu::W_E5M2) => {
                self.narrow_float_conv(op, from, to, &a)
            }
            Conv::FToS | Conv::FToU | Conv::SToF | Conv::UToF | Conv::FToF => {
                self.float_conv(op, from, to, &a)
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

    fn int_resize(&mut self, x: Value, fb: usize, tb: usize, signed: bool) -> Value {
        let ty = scalar_ty(tb);
        let x = self.fit(x, scalar_ty(fb));
        if tb < fb {
            self.b.ins().ireduce(ty, x)
        } else if tb > fb && signed {
            self.b.ins().sextend(ty, x)
        } else if tb > fb {
            self.b.ins().uextend(ty, x)
        } else {
            x
        }
    }

    /// An affine value resized. Widening is affine only when no lane wraps at the source width:
    /// checked here, with a hand-back when one does.
    fn affine_resize(
        &mut self,
        x: Value,
        s: u64,
        fb: usize,
        tb: usize,
        signed: bool,
    ) -> Option<JVal> {
        let fbits = (fb * 8) as u32;
        let tbits = (tb * 8) as u32;
        if tb <= fb {
            let base = self.int_resize(x, fb, tb, signed);
            let t = wrap(s, tbits);
            return Some(if t == 0 {
                JVal::Uniform(base)
            } else {
                JVal::Affine(base, t)
            });
        }
        // Lanes base + i·s for i < 16 at fbits: no wrap iff the last lane, computed exactly
        // in 64 bits (fbits <= 32 here), stays in the source range.
        if fbits > 32 {
            return None;
        }
        let stride = if signed {
            alu::sext(s, fbits as u8)
        } else {
            s as i64
        };
        let span = stride.checked_mul((LANES - 1) as i64)?;
        let x64 = if signed {
            self.b.ins().sextend(I64, x)
        } else {
            self.b.ins().uextend(I64, x)
        };
        let last = self.b.ins().iadd_imm_s(x64, span);
        let (lo, hi) = if signed {
            (-(1i64 << (fbits - 1)), (1i64 << (fbits - 1)) - 1)
        } else {
            (0, (1i64 << fbits) - 1)
        };
        let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, last, lo);
        let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, last, hi);
        let wraps = self.b.ins().bor(below, above);
        self.hand_back_if(wraps);
        let base = self.int_resize(x, fb, tb, signed);
        Some(JVal::Affine(base, wrap(stride as u64, tbits)))
    }

    /// Vectors of `fb`-byte lanes resized to `tb`-byte lanes (truncating or extending).
    fn vec_resize(&mut self, xs: &[Value], fb: usize, tb: usize, signed: bool) -> Vec<Value> {
        let mut cur = xs.to_vec();
        let mut b = fb;
        while b < tb {
            cur = cur
                .iter()
                .flat_map(|&v| {
                    if signed {
                        [self.b.ins().swiden_low(v), self.b.ins().swiden_high(v)]
                    } else {
                        [self.b.ins().uwiden_low(v), self.b.ins().uwiden_high(v)]
                    }
                })
                .collect();
            b *= 2;
        }
        while b > tb {
            let half = b / 2;
            cur = cur
                .chunks(2)
                .map(|p| self.truncate_pair(p[0], p[1], b, half))
                .collect();
            b = half;
        }
        cur
    }

    /// Two vectors of `b`-byte lanes truncated to one of `half`-byte lanes.
    fn truncate_pair(&mut self, x: Value, y: Value, b: usize, half: usize) -> Value {
        if b == 8 {
            // Keep the low 4 bytes of each 8-byte lane.
            let x8 = self.b.ins().bitcast(I8X16, lane_flags(), x);
            let y8 = self.b.ins().bitcast(I8X16, lane_flags(), y);
            let mask: Vec<u8> = [0u8, 8, 16, 24]
                .iter()
                .flat_map(|&s| (0..4).map(move |k| s + k))
                .collect();
            let s = self.shuffle(x8, y8, &mask);
            return self.b.ins().bitcast(I32X4, lane_flags(), s);
        }
        let low = (1u64 << (half * 8)) - 1;
        let m = self.iconst(scalar_ty(b), low);
        let mv = self.b.ins().splat(vec_ty(b), m);
        let (x, y) = (self.b.ins().band(x, mv), self.b.ins().band(y, mv));
        self.b.ins().unarrow(x, y)
    }

    /// `x` (float) to integer type `ty`, saturating (NaN gives 0), signed or not.
    fn fcvt_to_int(&mut self, signed: bool, ty: Type, x: Value) -> Value {
        if signed {
            self.b.ins().fcvt_to_sint_sat(ty, x)
        } else {
            self.b.ins().fcvt_to_uint_sat(ty, x)
        }
    }

    /// Integer `x`, signed or not, to float type `ty`.
    fn fcvt_from_int(&mut self, signed: bool, ty: Type, x: Value) -> Value {
        if signed {
            self.b.ins().fcvt_from_sint(ty, x)
        } else {
            self.b.ins().fcvt_from_uint(ty, x)
        }
    }

    /// float8 (`W_E4M3` or `W_E5M2`) to f32 bits: a lookup in a table of all 256 codes, made
    /// with `alu::conv` itself (so the same bits, NaNs included), one load per lane.
    fn fp8_to_f32(&mut self, from: u8, a: &JVal) -> Option<JVal> {
        let table = fp8_table(from == alu::W_E5M2).as_ptr() as i64;
        let base = self.b.ins().iconst(I64, table);
        let flags = MemFlagsData::trusted().with_readonly();
        let lookup = |g: &mut Self, code: Value| -> Value {
            let index = g.b.ins().uextend(I64, code);
            let offset = g.b.ins().ishl_imm_u(index, 2);
            let at = g.b.ins().iadd(base, offset);
            g.b.ins().load(I32, flags, at, 0)
        };
        if let Some(code) = self.scalar(a, 1) {
            return Some(JVal::Uniform(lookup(self, code)));
        }
        self.scalarise(&[(a.clone(), 1)], 4, |g, l| Some(lookup(g, l[0])))
    }

    /// A constant of `ty`'s lanes (`I32` or `I32X4`).
    fn i32_const(&mut self, ty: Type, v: i64) -> Value {
        let c = self.b.ins().iconst(I32, v);
        if ty.is_vector() {
            self.b.ins().splat(ty, c)
        } else {
            c
        }
    }

    /// `cond ? x : y` for `I32` (`cond` an `I8`) or `I32X4` (`cond` a lane mask).
    fn select_lanes(&mut self, cond: Value, x: Value, y: Value) -> Value {
        if self.b.func.dfg.value_type(x).is_vector() {
            self.b.ins().bitselect(cond, x, y)
        } else {
            self.b.ins().select(cond, x, y)
        }
    }

    /// bfloat16 bits (zero-extended in `I32` lanes) to f32 bits: the same bits shifted up, a NaN
    /// quieted (as the interpreter's widening through f64 does).
    fn bf16_to_f32_bits(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let bits = self.b.ins().ishl_imm_u(x, 16);
        let mask = self.i32_const(ty, 0x7fff_ffff);
        let magnitude = self.b.ins().band(bits, mask);
        let inf = self.i32_const(ty, 0x7f80_0000);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, magnitude, inf);
        let quiet_bit = self.i32_const(ty, 0x0040_0000);
        let quiet = self.b.ins().bor(bits, quiet_bit);
        self.select_lanes(nan, quiet, bits)
    }

    /// f32 bits (`I32` lanes) to bfloat16 bits (zero-extended), rounded to nearest even, a NaN
    /// kept with its upper mantissa and the quiet bit: `half::bf16::from_f32`, as `alu`.
    fn f32_bits_to_bf16(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let vector = ty.is_vector();
        let mask = self.i32_const(ty, 0x7fff_ffff);
        let magnitude = self.b.ins().band(x, mask);
        let inf = self.i32_const(ty, 0x7f80_0000);
        let nan = self.b.ins().icmp(IntCC::SignedGreaterThan, magnitude, inf);
        let high = self.b.ins().ushr_imm_u(x, 16);
        let quiet_bit = self.i32_const(ty, 0x40);
        let nan_bits = self.b.ins().bor(high, quiet_bit);
        // Round up when the first dropped bit is set and the rest or the kept lsb is.
        let zero = self.i32_const(ty, 0);
        let half_bit = self.i32_const(ty, 0x8000);
        let first = self.b.ins().band(x, half_bit);
        let first = self.b.ins().icmp(IntCC::NotEqual, first, zero);
        let sticky_mask = self.i32_const(ty, 3 * 0x8000 - 1);
        let sticky = self.b.ins().band(x, sticky_mask);
        let sticky = self.b.ins().icmp(IntCC::NotEqual, sticky, zero);
        let up = self.b.ins().band(first, sticky);
        let rounded = if vector {
            // Lane masks are all ones (-1) where true.
            self.b.ins().isub(high, up)
        } else {
            let up = self.b.ins().uextend(I32, up);
            self.b.ins().iadd(high, up)
        };
        self.select_lanes(nan, nan_bits, rounded)
    }

    /// A float to an 8- or 16-bit integer as `alu::conv`: saturated to the target's range, NaN
    /// to 0. Through a saturating conversion to 32 bits, a clamp and a narrowing (exact once
    /// clamped); f32 lanes four to a vector, f64 lane by lane.
    fn float_to_narrow(&mut self, signed: bool, from: u8, to: u8, a: &JVal) -> Option<JVal> {
        let fty = float_ty(from)?;
        let (lo, hi) = if signed {
            (-(1i64 << (to - 1)), (1i64 << (to - 1)) - 1)
        } else {
            (0, (1i64 << to) - 1)
        };
        let tb = width_bytes(to);
        let clamp32 = |g: &mut Self, x: Value, ty: Type| -> Value {
            let vector = ty.is_vector();
            let k = |g: &mut Self, v: i64| {
                let c = g.b.ins().iconst(I32, v);
                if vector { g.b.ins().splat(ty, c) } else { c }
            };
            let (l, h) = (k(g, lo), k(g, hi));
            if signed {
                let m = g.b.ins().smax(x, l);
                g.b.ins().smin(m, h)
            } else {
                g.b.ins().umin(x, h)
            }
        };
        if a.is_scalar() || from != 32 {
            let fb = width_bytes(from);
            let one = |g: &mut Self, bits: Value| -> Value {
                let f = g.bits_to_float(bits, fty);
                let i = g.fcvt_to_int(signed, I32, f);
                let i = clamp32(g, i, I32);
                g.b.ins().ireduce(scalar_ty(tb), i)
            };
            if let Some(x) = self.scalar(a, fb) {
                return Some(JVal::Uniform(one(self, x)));
            }
            return self.scalarise(&[(a.clone(), fb)], tb, |g, l| Some(one(g, l[0])));
        }
        // f32 vectors: four I32X4 of clamped values, narrowed to the target's vectors.
        let xs = self.vectors(a, 4);
        let ints: Vec<Value> = xs
            .iter()
            .map(|&x| {
                let f = self.vec_to_float(x, 32);
                let i = self.fcvt_to_int(signed, I32X4, f);
                clamp32(self, i, I32X4)
            })
            .collect();
        // Saturating narrows are exact on clamped values; `unarrow` reads its input as signed,
        // which the clamped unsigned values (below 2^16) are.
        let halves: Vec<Value> = ints
            .chunks(2)
            .map(|p| {
                if signed {
                    self.b.ins().snarrow(p[0], p[1])
                } else {
                    self.b.ins().unarrow(p[0], p[1])
                }
            })
            .collect();
        if to == 16 {
            return Some(JVal::Varying(halves));
        }
        let bytes = if signed {
            self.b.ins().snarrow(halves[0], halves[1])
        } else {
            self.b.ins().unarrow(halves[0], halves[1])
        };
        Some(JVal::Varying(vec![bytes]))
    }

    /// Float conversions the JIT computes (f32/f64 with 32/64-bit integers).
    fn float_conv(&mut self, op: Conv, from: u8, to: u8, a: &JVal) -> Option<JVal> {
        let (fb, tb) = (width_bytes(from), width_bytes(to));
        let scalar = a.is_scalar();
        match op {
            Conv::FToS | Conv::FToU if matches!(to, 8 | 16) => {
                self.float_to_narrow(op == Conv::FToS, from, to, a)
            }
            Conv::FToS | Conv::FToU => {
                let fty = float_ty(from)?;
                if !matches!(to, 32 | 64) {
                    return None;
                }
                let ity = scalar_ty(tb);
                let signed = op == Conv::FToS;
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let x = self.bits_to_float(x, fty);
                    let r = self.fcvt_to_int(signed, ity, x);
                    Some(JVal::Uniform(r))
                } else if from == 32 && to == 32 {
                    let xs = self.vectors(a, 4);
                    let out = xs
                        .iter()
                        .map(|&x| {
                            let f = self.vec_to_float(x, 32);
                            self.fcvt_to_int(signed, I32X4, f)
                        })
                        .collect();
                    Some(JVal::Varying(out))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let f = g.bits_to_float(l[0], fty);
                        Some(g.fcvt_to_int(signed, ity, f))
                    })
                }
            }
            Conv::SToF | Conv::UToF if matches!(from, 8 | 16) => {
                // 8- and 16-bit integers are exact in f32 and f64: widened to 32 bits by their
                // signedness, they convert as signed 32-bit values.
                float_ty(to)?;
                let signed = op == Conv::SToF;
                let wide = match a {
                    JVal::Uniform(x) => JVal::Uniform(self.int_resize(*x, fb, 4, signed)),
                    _ => {
                        let xs = self.vectors(a, fb);
                        JVal::Varying(self.vec_resize(&xs, fb, 4, signed))
                    }
                };
                self.float_conv(Conv::SToF, 32, to, &wide)
            }
            Conv::SToF | Conv::UToF => {
                let fty = float_ty(to)?;
                if !matches!(from, 32 | 64) {
                    return None;
                }
                let ity = scalar_ty(tb);
                let signed = op == Conv::SToF;
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let f = self.fcvt_from_int(signed, fty, x);
                    Some(JVal::Uniform(self.float_to_bits(f, ity)))
                } else if from == 32 && to == 32 {
                    let xs = self.vectors(a, 4);
                    let out = xs
                        .iter()
                        .map(|&x| {
                            let f = self.fcvt_from_int(signed, F32X4, x);
                            self.vec_from_float(f, 32)
                        })
                        .collect();
                    Some(JVal::Varying(out))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let f = g.fcvt_from_int(signed, fty, l[0]);
                        Some(g.float_to_bits(f, ity))
                    })
                }
            }
            Conv::FToF if (from, to) == (16, 32) && !scalar => {
                // binary16 → f32 exactly, eight lanes (one I16X8) into two I32X4 at a time.
                let xs = self.vectors(a, 2);
                let mut out = Vec::with_capacity(4);
                for &x in &xs {
                    for high in [false, true] {
                        let w = if high {
                            self.b.ins().uwiden_high(x)
                        } else {
                            self.b.ins().uwiden_low(x)
                        };
                        let f = self.half_to_f32(w);
                        out.push(self.b.ins().bitcast(I32X4, lane_flags(), f));
                    }
                }
                Some(JVal::Varying(out))
            }
            Conv::FToF if (from, to) == (32, 16) && !scalar => {
                // f32 → binary16, rounded to nearest even, two I32X4 into one I16X8.
                let xs = self.vectors(a, 4);
                let mut out = Vec::with_capacity(2);
                for pair in xs.chunks(2) {
                    let lo = self.b.ins().bitcast(F32X4, lane_flags(), pair[0]);
                    let hi = self.b.ins().bitcast(F32X4, lane_flags(), pair[1]);
                    let (lo, hi) = (self.f32_to_half(lo), self.f32_to_half(hi));
                    out.push(self.b.ins().unarrow(lo, hi));
                }
                Some(JVal::Varying(out))
            }
            Conv::FToF if matches!(from, alu::W_E4M3 | alu::W_E5M2) && to == 32 => {
                self.fp8_to_f32(from, a)
            }
            Conv::FToF if (from, to) == (alu::W_BF16, 32) => {
                if let Some(x) = self.scalar(a, 2) {
                    let x = self.b.ins().uextend(I32, x);
                    return Some(JVal::Uniform(self.bf16_to_f32_bits(x)));
                }
                let xs = self.vectors(a, 2);
                let mut out = Vec::with_capacity(4);
                for &x in &xs {
                    for high in [false, true] {
                        let w = if high {
                            self.b.ins().uwiden_high(x)
                        } else {
                            self.b.ins().uwiden_low(x)
                        };
                        out.push(self.bf16_to_f32_bits(w));
                    }
                }
                Some(JVal::Varying(out))
            }
            Conv::FToF if (from, to) == (32, alu::W_BF16) => {
                if let Some(x) = self.scalar(a, 4) {
                    let r = self.f32_bits_to_bf16(x);
                    return Some(JVal::Uniform(self.b.ins().ireduce(I16, r)));
                }
                let xs = self.vectors(a, 4);
                let mut out = Vec::with_capacity(2);
                for pair in xs.chunks(2) {
                    let (lo, hi) = (
                        self.f32_bits_to_bf16(pair[0]),
                        self.f32_bits_to_bf16(pair[1]),
                    );
                    // Every lane is below 2^16: the saturating narrow is exact.
                    out.push(self.b.ins().unarrow(lo, hi));
                }
                Some(JVal::Varying(out))
            }
            _ => {
                // FToF between f32 and f64.
                let (ft, tt) = (float_ty(from)?, float_ty(to)?);
                if ft == tt {
                    return Some(a.clone());
                }
                let ity = scalar_ty(tb);
                if scalar {
                    let x = self.scalar(a, fb)?;
                    let x = self.bits_to_float(x, ft);
                    let r = if tt == F64 {
                        self.b.ins().fpromote(F64, x)
                    } else {
                        self.b.ins().fdemote(F32, x)
                    };
                    Some(JVal::Uniform(self.float_to_bits(r, ity)))
                } else {
                    self.scalarise(&[(a.clone(), fb)], tb, |g, l| {
                        let x = g.bits_to_float(l[0], ft);
                        let r = if tt == F64 {
                            g.b.ins().fpromote(F64, x)
                        } else {
                            g.b.ins().fdemote(F32, x)
                        };
                        Some(g.float_to_bits(r, ity))
                    })
                }
            }
        }
    }

    /// `dst = choices[offset + index]` (0 out of range): a chain of selects on the index, lane
    /// by lane for a varying one (more than 16 choices with a varying index, or more than 64,
    /// go to the interpreter).
    fn pick_uniform(
        &mut self,
        dst: u32,
        index: u32,
        offset: u32,
        choices: &[Reg],
    ) -> Result<bool, String> {
        let idx = self.get(index);
        if choices.len() > 64 || (!idx.is_scalar() && choices.len() > 16) {
            return Ok(false);
        }
        let bytes = self.bytes(dst);
        let ib = self.bytes(index);
        if !idx.is_scalar() {
            // A varying index: lane by lane, a select chain over the lane's choices.
            let mut args = vec![(idx, ib)];
            args.extend(choices.iter().map(|&r| (self.get(r), bytes)));
            let ty = scalar_ty(bytes);
            let r = self.scalarise(&args, bytes, |g, l| {
                let i = g.fit(l[0], I64);
                let i = g.b.ins().iadd_imm_s(i, i64::from(offset));
                let mut acc = g.iconst(ty, 0);
                for (k, &c) in l[1..].iter().enumerate() {
                    let eq = g.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
                    acc = g.b.ins().select(eq, c, acc);
                }
                Some(acc)
            });
            let Some(r) = r else { return Ok(false) };
            self.set(dst, r)?;
            return Ok(true);
        }
        if let JVal::Const(k) = idx {
            let at = k.wrapping_add(u64::from(offset));
            let v = match usize::try_from(at).ok().and_then(|i| choices.get(i)) {
                Some(&r) => self.get(r),
                None => JVal::Const(0),
            };
            self.set(dst, v)?;
            return Ok(true);
        }
        let i = self.scalar(&idx, ib).ok_or("scalar")?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        let vals: Vec<JVal> = choices.iter().map(|&r| self.get(r)).collect();
        let scalar = vals.iter().all(JVal::is_scalar);
        let mut acc: Vec<Value> = if scalar {
            vec![self.iconst(scalar_ty(bytes), 0)]
        } else {
            self.vectors(&JVal::Const(0), bytes)
        };
        for (k, v) in vals.iter().enumerate() {
            let eq = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
            let parts = if scalar {
                vec![self.scalar(v, bytes).ok_or("scalar")?]
            } else {
                self.vectors(v, bytes)
            };
            for (a, p) in acc.iter_mut().zip(parts) {
                *a = self.b.ins().select(eq, p, *a);
            }
        }
        let r = if scalar {
            JVal::Uniform(acc[0])
        } else {
            JVal::Varying(acc)
        };
        self.set(dst, r)?;
        Ok(true)
    }

    /// `var[offset + index] = value` (dropped out of range) for a uniform or constant index:
    /// every element of the variable selects between its value and `value`.
    /// A load or store of register `index + offset` of resident variable `var` (uniform
    /// `index`): its row's address is computed; an index out of the variable reads zero and
    /// writes nothing, as `pick_uniform` and `store_var_uniform` do.
    fn resident_var(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        access: VarAccess,
    ) -> Result<bool, String> {
        let base = var.base as usize;
        let bytes = self.bytes(var.base);
        let stride = (self.layout.offsets[base + 1] - self.layout.offsets[base]) as i64;
        let idx = self.get(index);
        let i = self
            .scalar(&idx, self.bytes(index))
            .ok_or("resident variable: a varying index")?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, i, i64::from(var.len));
        let zero = self.b.ins().iconst(I64, 0);
        let safe = self.b.ins().select(inside, i, zero);
        let step = self.b.ins().imul_imm_s(safe, stride);
        let row = self.row_addr(var.base);
        let addr = self.b.ins().iadd(row, step);
        let vt = vec_ty(bytes);
        let loaded: Vec<Value> = (0..bytes)
            .map(|j| self.b.ins().load(vt, own_flags(), addr, (16 * j) as i32))
            .collect();
        match access {
            VarAccess::Load(dst) => {
                let zeros = self.vectors(&JVal::Const(0), bytes);
                let vs = loaded
                    .iter()
                    .zip(zeros)
                    .map(|(&x, z)| self.b.ins().select(inside, x, z))
                    .collect();
                self.set(dst, JVal::Varying(vs))?;
            }
            VarAccess::Store(value) => {
                let v = self.get(value);
                let new = self.vectors(&v, bytes);
                for (j, (&old, n)) in loaded.iter().zip(new).enumerate() {
                    let x = self.b.ins().select(inside, n, old);
                    self.b.ins().store(own_flags(), x, addr, (16 * j) as i32);
                }
            }
        }
        Ok(true)
    }

    /// A store into a variable at a varying index: each element takes the value in the lanes
    /// whose index selects it (a lane mask per element, up to 64 elements).
    fn store_var_varying(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        value: u32,
    ) -> Result<bool, String> {
        let regs: Vec<Reg> = (var.base..var.base + var.len).collect();
        if regs.len() > 64
            || regs
                .iter()
                .any(|&r| !matches!(self.classes[r as usize], crate::classes::Class::Varying))
        {
            return Ok(false);
        }
        let ib = self.bytes(index);
        let idx = self.get(index);
        let offset_vec = self.const_vec(ib, 0, |_| u64::from(offset));
        let idx: Vec<Value> = self
            .vectors(&idx, ib)
            .into_iter()
            .map(|x| self.b.ins().iadd(x, offset_vec))
            .collect();
        let v = self.get(value);
        for (k, &r) in regs.iter().enumerate() {
            let bytes = self.bytes(r);
            let key = self.const_vec(ib, 0, |_| k as u64);
            let hits: Vec<Value> = idx
                .iter()
                .map(|&x| self.b.ins().icmp(IntCC::Equal, x, key))
                .collect();
            let bools = self.bools_from_masks(&hits, ib);
            let masks = self.masks_from_bools(bools, bytes);
            let old = self.get(r);
            let (os, ns) = (self.vectors(&old, bytes), self.vectors(&v, bytes));
            let new = os
                .iter()
                .zip(&ns)
                .zip(&masks)
                .map(|((&o, &n), &m)| self.b.ins().bitselect(m, n, o))
                .collect();
            self.set(r, JVal::Varying(new))?;
        }
        Ok(true)
    }

    fn store_var_uniform(
        &mut self,
        var: Var,
        offset: u32,
        index: u32,
        value: u32,
    ) -> Result<bool, String> {
        let idx = self.get(index);
        if !idx.is_scalar() {
            return self.store_var_varying(var, offset, index, value);
        }
        if var.len > 256 {
            return Ok(false);
        }
        let regs: Vec<Reg> = (var.base..var.base + var.len).collect();
        if regs
            .iter()
            .any(|&r| matches!(self.classes[r as usize], crate::classes::Class::Affine(_)))
        {
            return Ok(false);
        }
        let v = self.get(value);
        if let JVal::Const(k) = idx {
            let at = k.wrapping_add(u64::from(offset));
            if let Some(&r) = usize::try_from(at).ok().and_then(|i| regs.get(i)) {
                self.set(r, v)?;
            }
            return Ok(true);
        }
        let ib = self.bytes(index);
        let i = self.scalar(&idx, ib).ok_or("scalar")?;
        let i = self.fit(i, I64);
        let i = self.b.ins().iadd_imm_s(i, i64::from(offset));
        for (k, &r) in regs.iter().enumerate() {
            let bytes = self.bytes(r);
            let old = self.get(r);
            let eq = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
            let new = if old.is_scalar() && v.is_scalar() {
                let (o, n) = (
                    self.scalar(&old, bytes).ok_or("scalar")?,
                    self.scalar(&v, bytes).ok_or("scalar")?,
                );
                JVal::Uniform(self.b.ins().select(eq, n, o))
            } else {
                let (os, ns) = (self.vectors(&old, bytes), self.vectors(&v, bytes));
                JVal::Varying(
                    os.iter()
                        .zip(&ns)
                        .map(|(&o, &n)| self.b.ins().select(eq, n, o))
                        .collect(),
                )
            };
            self.set(r, new)?;
        }
        Ok(true)
    }

    fn select(&mut self, dst: u32, cond: u32, if_true: u32, if_false: u32) -> Result<bool, String> {
        let bytes = self.bytes(dst);
        let c = self.get(cond);
        let (t, f) = (self.get(if_true), self.get(if_false));
        let r = match &c {
            JVal::Const(k) => {
                if *k != 0 {
                    t
                } else {
                    f
                }
            }
            JVal::Uniform(k) => match (&t, &f) {
                _ if t.is_scalar() && f.is_scalar() => {
                    let x = self.scalar(&t, bytes).ok_or("scalar")?;
                    let y = self.scalar(&f, bytes).ok_or("scalar")?;
                    JVal::Uniform(self.b.ins().select(*k, x, y))
                }
                (JVal::Affine(x, s), JVal::Affine(y, u)) if s == u => {
                    JVal::Affine(self.b.ins().select(*k, *x, *y), *s)
                }
                _ => {
                    let xs = self.vectors(&t, bytes);
                    let ys = self.vectors(&f, bytes);
                    JVal::Varying(
                        xs.iter()
                            .zip(&ys)
                            .map(|(&x, &y)| self.b.ins().select(*k, x, y))
                            .collect(),
                    )
                }
            },
            JVal::Varying(b) => {
                let masks = self.masks_from_bools(b[0], bytes);
                let xs = self.vectors(&t, bytes);
                let ys = self.vectors(&f, bytes);
                JVal::Varying(
                    masks
                        .iter()
                        .zip(xs.iter().zip(&ys))
                        .map(|(&m, (&x, &y))| self.b.ins().bitselect(m, x, y))
                        .collect(),
                )
            }
            JVal::Affine(..) => return Err("affine select condition".into()),
        };
        self.set(dst, r)?;
        Ok(true)
    }
}

/// What `Gen::resident_var` does.
#[derive(Debug, Clone, Copy)]
enum VarAccess {
    /// Into this register.
    Load(Reg),
    /// This register's value.
    Store(Reg),
}
