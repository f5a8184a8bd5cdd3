//! Integer comparisons (`ICmp`), moved out of `ops.rs`: scalar for uniform operands, vector
//! compares for varying ones, and for lanes `x0 + i` against a uniform `y` one comparison of the
//! lane numbers with a threshold (`icmp_affine`). Every result is what `tessera_spirv::alu`
//! gives each lane.

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::alu::{self, ICmp, width_bytes};

use super::Gen;
use super::values::{JVal, scalar_ty};
use crate::classes::LANES;

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

impl Gen<'_> {
    pub(super) fn icmp(
        &mut self,
        op: ICmp,
        width: u8,
        dst: u32,
        lhs: u32,
        rhs: u32,
    ) -> JitResult<bool> {
        let bytes = width_bytes(width);
        if u32::from(width) != (bytes * 8) as u32 && !matches!(op, ICmp::Eq | ICmp::Ne) {
            return Ok(false);
        }
        let cc = int_cc(op);
        let (a, b) = (self.get(lhs), self.get(rhs));
        let r = match (&a, &b) {
            (JVal::Const(x), JVal::Const(y)) => JVal::Const(alu::icmp(op, width, *x, *y)),
            _ if a.is_scalar() && b.is_scalar() => {
                let (x, y) = self.scalar_pair(&a, &b, bytes)?;
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

        self.enter_sealed(fast);
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

        self.enter_sealed(slow);
        let lanes = JVal::Affine(x0, 1);
        let other = JVal::Uniform(self.fit(y0, ty));
        let v = self.icmp_vectors(int_cc(op), bytes, &lanes, &other);
        let all_s = self.b.ins().vall_true(v);
        let any_s = self.b.ins().vany_true(v);
        self.b.ins().jump(join, &block_args([all_s, any_s]));

        self.enter_sealed(join);
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
}
