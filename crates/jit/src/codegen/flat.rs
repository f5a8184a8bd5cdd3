//! Tensor accesses whose coordinates split one flat index by division and remainder, the way
//! generated elementwise kernels address an N-D tensor from a 1-D dispatch:
//! `c[n-1] = F % D[n-1]`, `c[k] = (F / D[n-1] / … / D[k+1]) % D[k]`, `c[0] = F / D[n-1] / … / D[1]`,
//! with `F` affine of step 1 across the lanes and the divisors `D` uniform.
//!
//! When the view's dimensions 1.. are the divisors and its strides are packed, element `c` lies
//! `F·size` bytes after element 0 and `c` is in bounds exactly when `F·size` is below
//! `dims[0]·strides[0]`: the 16 lanes read or write one packed run, found with a few scalar
//! compares per chunk instead of per-lane offsets (`tensor_flat`, the first choice of
//! `tensor_row`). The divisions then feed only the general path behind it, where Cranelift's
//! elaboration moves them.
//!
//! The pattern is matched in the IR block before the access through moves, by reaching
//! definitions: a register redefined between its use in a division and the access breaks the
//! match, so the flat index and the divisors read at the access are the values divided.
//! Signed divisions (`SDiv`, `SRem`, `SMod`) match too; the check then also requires `F` and the
//! divisors to be non-negative 32-bit values, where they agree with the unsigned ones.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{InstBuilder, Value};
use tessera_spirv::alu::IBin;
use tessera_spirv::ir::{Op, Reg, TensorAcc};

use super::Gen;
use super::values::JVal;
use crate::classes::LANES;

/// A register's value at a point of a block: the register and the op that defined it there
/// (`None`: it came into the block).
type Definition = (Reg, Option<usize>);

/// A coordinate as the block computes it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Derived {
    Leaf(Definition),
    /// Quotient by a divisor (unsigned or signed).
    Quotient(Box<Derived>, Definition),
    /// Remainder by a divisor (unsigned, signed remainder or signed modulo).
    Remainder(Box<Derived>, Definition),
}

/// How deep `derived` follows definitions (ranks are at most `MAX_RANK`; moves add a few).
const MAX_DEPTH: usize = 24;

/// The op before `end` that last defines `r`.
fn reaching(ops: &[Op], r: Reg, end: usize) -> Option<usize> {
    ops[..end].iter().rposition(|op| op.defines(r))
}

/// `r`'s value before op `end`, as a `Derived`; whether a signed division took part is or-ed into
/// `signed`.
fn derived(ops: &[Op], r: Reg, end: usize, depth: usize, signed: &mut bool) -> Derived {
    let def = reaching(ops, r, end);
    let leaf = Derived::Leaf((r, def));
    let Some(i) = def else { return leaf };
    if depth == 0 {
        return leaf;
    }
    match &ops[i] {
        Op::Mov { src, .. } => derived(ops, *src, i, depth - 1, signed),
        Op::IBin {
            op,
            width: 32,
            lhs,
            rhs,
            ..
        } => {
            let divisor = (*rhs, reaching(ops, *rhs, i));
            let quotient = matches!(op, IBin::UDiv | IBin::SDiv);
            let remainder = matches!(op, IBin::UMod | IBin::SRem | IBin::SMod);
            if !quotient && !remainder {
                return leaf;
            }
            *signed |= !matches!(op, IBin::UDiv | IBin::UMod);
            let of = Box::new(derived(ops, *lhs, i, depth - 1, signed));
            if quotient {
                Derived::Quotient(of, divisor)
            } else {
                Derived::Remainder(of, divisor)
            }
        }
        _ => leaf,
    }
}

/// A match: the flat index and the divisors `D[1..n]` (as registers readable at the access),
/// and whether a signed division took part.
struct Split {
    flat: Reg,
    divisors: Vec<Reg>,
    signed: bool,
}

/// Matches `coords` (before op `at` of `ops`) against the split of the module docs.
fn split(ops: &[Op], coords: &[Reg], at: usize) -> Option<Split> {
    let rank = coords.len();
    if rank < 2 {
        return None;
    }
    let mut signed = false;
    let terms: Vec<Derived> = coords
        .iter()
        .map(|&c| derived(ops, c, at, MAX_DEPTH, &mut signed))
        .collect();
    let Derived::Remainder(flat, _) = &terms[rank - 1] else {
        return None;
    };
    let Derived::Leaf(flat) = **flat else {
        return None;
    };
    let mut divisors = vec![None; rank];
    let mut quotient = Derived::Leaf(flat);
    for k in (0..rank).rev() {
        match &terms[k] {
            Derived::Remainder(of, d) if k > 0 && **of == quotient => {
                divisors[k] = Some(*d);
                quotient = Derived::Quotient(Box::new(quotient), *d);
            }
            t if k == 0 && *t == quotient => {}
            _ => return None,
        }
    }
    // The flat index and the divisors must still hold the values divided.
    let current = |(r, def): Definition| reaching(ops, r, at) == def;
    if !current(flat) {
        return None;
    }
    let divisors: Option<Vec<Reg>> = divisors[1..]
        .iter()
        .map(|d| d.filter(|&d| current(d)).map(|(r, _)| r))
        .collect();
    Some(Split {
        flat: flat.0,
        divisors: divisors?,
        signed,
    })
}

impl Gen<'_> {
    /// The fast path of a tensor access of one element per lane at coordinates split from a
    /// flat index (module docs): (fast, address) as `tensor_row` returns them, or `None` when
    /// the coordinates do not match.
    pub(super) fn tensor_flat(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed_coords: bool,
        cw: u8,
        count: usize,
    ) -> Option<(Value, Value)> {
        if count != 1 || cw != 32 || coords.len() != t.rank as usize {
            return None;
        }
        if coords.len() > crate::ctx::MAX_RANK {
            return None;
        }
        let (block, at) = self.at;
        let found = split(&self.ir.blocks[block as usize].ops, coords, at)?;
        let JVal::Affine(first, 1) = self.get(found.flat) else {
            return None;
        };
        let mut divisors = Vec::with_capacity(found.divisors.len());
        for &d in &found.divisors {
            divisors.push(match self.get(d) {
                JVal::Const(v) => self.b.ins().iconst(I64, (v & 0xffff_ffff) as i64),
                JVal::Uniform(x) => {
                    let x = self.fit(x, I32);
                    self.b.ins().uextend(I64, x)
                }
                _ => return None,
            });
        }
        let size = t.elem.bytes() as i64;
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        let mut fast = self.b.ins().ireduce(I8, ok);
        // Dimensions 1.. are the divisors, strides packed from the innermost out.
        let mut stride = self.b.ins().iconst(I64, size);
        let signed_max = i64::from(i32::MAX);
        for k in (1..coords.len()).rev() {
            let dim = self.inv_load(I64, dims, (8 * k) as i32);
            let have = self.inv_load(I64, strides, (8 * k) as i32);
            let divisor = divisors[k - 1];
            let same = self.b.ins().icmp(IntCC::Equal, dim, divisor);
            let packed = self.b.ins().icmp(IntCC::Equal, have, stride);
            let both = self.b.ins().band(same, packed);
            fast = self.b.ins().band(fast, both);
            if found.signed {
                let small =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, divisor, signed_max);
                fast = self.b.ins().band(fast, small);
            }
            stride = self.b.ins().imul(stride, dim);
        }
        let outer = self.inv_load(I64, strides, 0);
        let packed = self.b.ins().icmp(IntCC::Equal, outer, stride);
        fast = self.b.ins().band(fast, packed);
        // Every lane in bounds: lane 15's element `F + 15` below dims[0]·strides[0] / size
        // (with `ok`, the view's footprint fits the window: no product wraps). Lane 15's index
        // must not wrap in 32 bits (nor pass i32::MAX for signed divisions or coordinates).
        let dim0 = self.inv_load(I64, dims, 0);
        let extent = self.b.ins().imul(dim0, outer);
        let first = self.fit(first, I32);
        let first = self.b.ins().uextend(I64, first);
        let last = self.b.ins().iadd_imm_s(first, LANES as i64 - 1);
        let end = self.b.ins().imul_imm_s(last, size);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, end, extent);
        fast = self.b.ins().band(fast, inside);
        // (Signed coordinates read a quotient past i32::MAX as negative: out of bounds.)
        let top = if found.signed || signed_coords {
            signed_max
        } else {
            i64::from(u32::MAX)
        };
        let no_wrap = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, last, top);
        fast = self.b.ins().band(fast, no_wrap);
        let offset = self.b.ins().imul_imm_s(first, size);
        let address = self.b.ins().iadd(ptr, offset);
        Some((fast, address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ibin(op: IBin, dst: Reg, lhs: Reg, rhs: Reg) -> Op {
        Op::IBin {
            op,
            width: 32,
            dst,
            lhs,
            rhs,
        }
    }

    /// `%0` flat, `%1..%3` divisors; rank 4 as `nd_add` splits it (`%5` reused as the IR
    /// reuses registers).
    fn rank4() -> Vec<Op> {
        vec![
            ibin(IBin::UMod, 4, 0, 3),
            ibin(IBin::UDiv, 5, 0, 3),
            ibin(IBin::UMod, 6, 5, 2),
            ibin(IBin::UDiv, 5, 5, 2),
            ibin(IBin::UDiv, 7, 5, 1),
            ibin(IBin::UMod, 8, 5, 1),
            Op::Mov { dst: 9, src: 6 },
        ]
    }

    #[test]
    fn matches_a_mixed_radix_split() {
        let ops = rank4();
        let found = split(&ops, &[7, 8, 9, 4], ops.len()).expect("a split");
        assert_eq!(
            (found.flat, found.divisors, found.signed),
            (0, vec![1, 2, 3], false)
        );
        let signed = [
            ibin(IBin::SRem, 4, 0, 2),
            ibin(IBin::SDiv, 5, 0, 2),
            ibin(IBin::SDiv, 6, 5, 1),
            ibin(IBin::SMod, 7, 5, 1),
        ];
        let found = split(&signed, &[6, 7, 4], signed.len()).expect("a signed split");
        assert_eq!(
            (found.flat, found.divisors, found.signed),
            (0, vec![1, 2], true)
        );
    }

    #[test]
    fn rejects_other_coordinates() {
        let ops = rank4();
        // Coordinates out of order, a quotient where a remainder belongs, rank 1.
        assert!(split(&ops, &[8, 7, 9, 4], ops.len()).is_none());
        assert!(split(&ops, &[7, 5, 9, 4], ops.len()).is_none());
        assert!(split(&ops, &[4], ops.len()).is_none());
        // A divisor or the flat index redefined before the access.
        for redefined in [2, 0] {
            let mut later = rank4();
            later.push(ibin(IBin::Add, redefined, redefined, 1));
            assert!(split(&later, &[7, 8, 9, 4], later.len()).is_none());
        }
        // Different divisors for a remainder and the quotient it continues from.
        let mixed = [
            ibin(IBin::UMod, 4, 0, 2),
            ibin(IBin::UDiv, 5, 0, 3),
            ibin(IBin::UDiv, 6, 5, 1),
            ibin(IBin::UMod, 7, 5, 1),
        ];
        assert!(split(&mixed, &[6, 7, 4], mixed.len()).is_none());
        // A 64-bit division.
        let wide = [
            Op::IBin {
                op: IBin::UMod,
                width: 64,
                dst: 4,
                lhs: 0,
                rhs: 1,
            },
            ibin(IBin::UDiv, 5, 0, 1),
        ];
        assert!(split(&wide, &[5, 4], wide.len()).is_none());
    }
}
