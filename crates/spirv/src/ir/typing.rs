//! What type each operand of an op must have: one table ([`operand_types`]) that gives, in the
//! operand walker's order ([`Op::visit_regs`]: reads, then writes), the type every register
//! operand needs. Lowering uses it to type the registers it allocates (a result takes its op's
//! result type; a constant takes the type its uses ask for), and [`Ir::verify`] checks the IR
//! against it.
//!
//! Storage width is what a type fixes: a `Want::Int(16)` operand accepts an f16 register (bit
//! manipulation of floats is integer arithmetic on their bits), never a 32-bit one.

use super::{Op, Reg, RegType, Space};
use crate::ScalarType;
use crate::alu::{self, Conv, IBin, Tern, width_bytes};
use crate::subgroup::{Arith, SubOp};

/// What an operand must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// An integer of this many bits (or any register of the same storage width).
    Int(u8),
    /// A float of this width code (or any register of the same storage width).
    Float(u8),
    Bool,
    /// Any integer (indices, selectors, shift amounts, descriptor indices); constants default
    /// to 32 bits.
    AnyInt,
    /// The same storage width as another register.
    SameAs(Reg),
    /// Anything (an operand the op ignores).
    Any,
}

impl Want {
    /// Whether a register of type `t` satisfies this (with `types` for `SameAs`).
    pub(crate) fn accepts(self, t: RegType, types: &[Option<RegType>]) -> bool {
        match self {
            Want::Int(bits) => t.bytes() == width_bytes(bits),
            Want::Float(code) => t.bytes() == width_bytes(code),
            Want::Bool => t == RegType::Bool,
            Want::AnyInt => matches!(t, RegType::Int(_)),
            Want::SameAs(r) => types
                .get(r as usize)
                .copied()
                .flatten()
                .is_none_or(|o| o.bytes() == t.bytes()),
            Want::Any => true,
        }
    }

    /// The type a register that has none yet gets from this use or definition.
    pub(crate) fn default_type(self, types: &[Option<RegType>]) -> Option<RegType> {
        match self {
            Want::Int(1) | Want::Bool => Some(RegType::Bool),
            Want::Int(bits) => Some(RegType::Int(bits)),
            Want::Float(code) => Some(RegType::Float(code)),
            Want::AnyInt => Some(RegType::Int(32)),
            Want::SameAs(r) => types.get(r as usize).copied().flatten(),
            Want::Any => None,
        }
    }
}

fn int(width: u8) -> Want {
    if width == 1 {
        Want::Bool
    } else {
        Want::Int(width)
    }
}

fn address(space: Space) -> Want {
    match space {
        Space::Physical => Want::Int(64),
        _ => Want::AnyInt,
    }
}

/// A register holding one component of cooperative-vector type `t` (a packed type is its u32).
pub(crate) fn component(t: tessera_coop::ComponentType) -> Want {
    use tessera_coop::ComponentType as C;
    match t {
        C::Float16 => Want::Float(16),
        C::Float32 => Want::Float(32),
        C::Float64 => Want::Float(64),
        C::BFloat16 => Want::Float(alu::W_BF16),
        C::FloatE4M3 => Want::Float(alu::W_E4M3),
        C::FloatE5M2 => Want::Float(alu::W_E5M2),
        other => Want::Int((other.bytes() * 8) as u8),
    }
}

fn element(elem: ScalarType) -> Want {
    use ScalarType as S;
    match elem {
        S::Bool => Want::Bool,
        S::F16 => Want::Float(16),
        S::F32 => Want::Float(32),
        S::F64 => Want::Float(64),
        S::BF16 => Want::Float(alu::W_BF16),
        S::F8E4M3 => Want::Float(alu::W_E4M3),
        S::F8E5M2 => Want::Float(alu::W_E5M2),
        other => Want::Int((other.bytes() * 8) as u8),
    }
}

/// The reads and the writes of `op`, each in [`Op::visit_regs`] order, with what they must be.
pub(crate) fn operand_types(op: &Op) -> (Vec<Want>, Vec<Want>) {
    use Want::*;
    let mut reads = Vec::new();
    let desc = |reads: &mut Vec<Want>, d: &super::DescIdx| {
        if let super::DescIdx::Dyn(_) = d {
            reads.push(AnyInt);
        }
    };
    let space = |reads: &mut Vec<Want>, s: &Space| {
        if let Space::Buffer { desc: d, .. } = s {
            desc(reads, d);
        }
    };
    let mem = |reads: &mut Vec<Want>, m: &super::MemRef| {
        space(reads, &m.space);
        if m.addr.is_some() {
            reads.push(address(m.space));
        }
    };
    let writes = match op {
        Op::Mov { dst, src } => {
            reads.push(SameAs(*dst));
            vec![SameAs(*src)]
        }
        Op::IBin { op, width, .. } => {
            let shift = matches!(op, IBin::Shl | IBin::ShrL | IBin::ShrA);
            reads.extend([int(*width), if shift { AnyInt } else { int(*width) }]);
            vec![int(*width)]
        }
        Op::IUn { width, .. } => {
            reads.push(int(*width));
            vec![int(*width)]
        }
        Op::ICmp { width, .. } => {
            reads.extend([int(*width), int(*width)]);
            vec![Bool]
        }
        Op::FBin { width, .. } => {
            reads.extend([Float(*width), Float(*width)]);
            vec![Float(*width)]
        }
        Op::FUn { width, .. } => {
            reads.push(Float(*width));
            vec![Float(*width)]
        }
        Op::FCmp { width, .. } => {
            reads.extend([Float(*width), Float(*width)]);
            vec![Bool]
        }
        Op::Tern { op, width, .. } => {
            let t = match op {
                Tern::UClamp | Tern::SClamp => int(*width),
                _ => Float(*width),
            };
            reads.extend([t, t, t]);
            vec![t]
        }
        Op::Conv { op, from, to, .. } => {
            let float_from = matches!(
                op,
                Conv::FToU | Conv::FToS | Conv::FToF | Conv::FToFDirected(_) | Conv::FToFSat
            );
            let float_to = matches!(
                op,
                Conv::UToF | Conv::SToF | Conv::FToF | Conv::FToFDirected(_) | Conv::FToFSat
            );
            reads.push(if float_from { Float(*from) } else { int(*from) });
            vec![if float_to { Float(*to) } else { int(*to) }]
        }
        Op::Select { dst, if_true, .. } => {
            reads.extend([Bool, SameAs(*dst), SameAs(*dst)]);
            vec![SameAs(*if_true)]
        }
        Op::Pick { dst, choices, .. } => {
            reads.push(AnyInt);
            reads.extend(choices.iter().map(|_| SameAs(*dst)));
            vec![choices.first().map_or(Any, |&c| SameAs(c))]
        }
        Op::LoadVar { var, .. } => {
            reads.push(AnyInt);
            vec![SameAs(var.base)]
        }
        Op::StoreVar { var, .. } => {
            reads.extend([AnyInt, SameAs(var.base)]);
            vec![]
        }
        Op::Load {
            space: sp,
            bytes,
            addr,
            ..
        } => {
            space(&mut reads, sp);
            if addr.is_some() {
                reads.push(address(*sp));
            }
            vec![Int(bytes * 8)]
        }
        Op::Store {
            space: sp,
            bytes,
            addr,
            ..
        } => {
            space(&mut reads, sp);
            reads.push(Int(bytes * 8));
            if addr.is_some() {
                reads.push(address(*sp));
            }
            vec![]
        }
        Op::Atomic {
            space: sp,
            bytes,
            addr,
            ..
        } => {
            space(&mut reads, sp);
            if addr.is_some() {
                reads.push(address(*sp));
            }
            reads.extend([Int(bytes * 8), Int(bytes * 8)]);
            vec![Int(bytes * 8)]
        }
        Op::AtomicUpdate {
            space: sp,
            bytes,
            addr,
            ..
        } => {
            space(&mut reads, sp);
            if addr.is_some() {
                reads.push(address(*sp));
            }
            reads.push(Int(bytes * 8));
            vec![]
        }
        Op::ArrayLength { desc: d, .. } => {
            desc(&mut reads, d);
            vec![Int(32)]
        }
        Op::TensorRead {
            tensor,
            coords,
            coord_width,
            dsts,
            oob,
            ..
        } => {
            desc(&mut reads, &tensor.desc);
            reads.extend(coords.iter().map(|_| int(*coord_width)));
            let e = element(tensor.elem);
            if oob.is_some() {
                reads.push(e);
            }
            dsts.iter().map(|_| e).collect()
        }
        Op::TensorWrite {
            tensor,
            coords,
            coord_width,
            values,
            ..
        } => {
            desc(&mut reads, &tensor.desc);
            reads.extend(coords.iter().map(|_| int(*coord_width)));
            let e = element(tensor.elem);
            reads.extend(values.iter().map(|_| e));
            vec![]
        }
        Op::TensorQuery { tensor, width, .. } => {
            desc(&mut reads, &tensor.desc);
            reads.push(AnyInt);
            vec![int(*width)]
        }
        Op::IDot {
            in_width,
            out_width,
            lhs,
            rhs,
            acc,
            ..
        } => {
            reads.extend(lhs.iter().chain(rhs.iter()).map(|_| int(*in_width)));
            if acc.is_some() {
                reads.push(int(*out_width));
            }
            vec![int(*out_width)]
        }
        Op::Subgroup { op, width, .. } => {
            let value = match op {
                SubOp::Reduce(Arith::F(_), _) => Float(*width),
                SubOp::AllEqual { float: true } => Float(*width),
                SubOp::All | SubOp::Any | SubOp::Ballot => Bool,
                SubOp::Elect => Any,
                SubOp::InverseBallot | SubOp::BitCount(_) => Int(32),
                _ => int(*width),
            };
            let operand = match op {
                SubOp::Broadcast
                | SubOp::ShuffleXor
                | SubOp::ShuffleUp
                | SubOp::ShuffleDown
                | SubOp::QuadBroadcast
                | SubOp::QuadSwap => AnyInt,
                _ => Any,
            };
            reads.extend([value, operand]);
            let result = match op {
                SubOp::Elect
                | SubOp::All
                | SubOp::Any
                | SubOp::AllEqual { .. }
                | SubOp::InverseBallot => Bool,
                SubOp::Ballot | SubOp::BitCount(_) => Int(32),
                _ => value,
            };
            vec![result]
        }
        Op::Barrier {} | Op::Converge {} => vec![],
        Op::CoopMatVec {
            form,
            input,
            matrix,
            stride,
            bias,
            dsts,
        } => {
            reads.extend(input.iter().map(|_| component(form.input)));
            mem(&mut reads, matrix);
            if stride.is_some() {
                reads.push(AnyInt);
            }
            if let Some(b) = bias {
                mem(&mut reads, b);
            }
            dsts.iter().map(|_| component(form.result)).collect()
        }
        Op::CoopOuterProduct { a, b, matrix, .. } => {
            reads.extend(a.iter().chain(b.iter()).map(|_| Float(16)));
            mem(&mut reads, matrix);
            vec![]
        }
        Op::CoopMatLoad {
            ty,
            dsts,
            src,
            stride,
            ..
        } => {
            mem(&mut reads, src);
            if stride.is_some() {
                reads.push(AnyInt);
            }
            dsts.iter().map(|_| component(ty.elem)).collect()
        }
        Op::CoopMatStore {
            ty,
            values,
            dst,
            stride,
            ..
        } => {
            reads.extend(values.iter().map(|_| component(ty.elem)));
            mem(&mut reads, dst);
            if stride.is_some() {
                reads.push(AnyInt);
            }
            vec![]
        }
        Op::CoopMatMulAdd {
            form,
            dsts,
            a,
            b,
            c,
        } => {
            reads.extend(a.iter().map(|_| component(form.a)));
            reads.extend(b.iter().map(|_| component(form.b)));
            reads.extend(c.iter().map(|_| component(form.c)));
            dsts.iter().map(|_| component(form.result)).collect()
        }
        Op::CoopReduceSum {
            elem,
            values,
            target,
        } => {
            reads.extend(values.iter().map(|_| component(*elem)));
            mem(&mut reads, target);
            vec![]
        }
    };
    (reads, writes)
}
