//! Atomics in compiled rounds: a block that holds one integer atomic read-modify-write on a
//! buffer of a known descriptor or on shared memory, and jumps on, is a round block like a
//! subgroup operation's (`rounds`): every chunk yields at it, and when all of a call's chunks
//! have, compiled code runs the atomic for lanes `0..chunk_end·16` one after the other, in lane
//! order, as the interpreter does, with the processor's atomic instructions; then it enters the
//! block the atomic jumps to. Without this the driver ran the block on the interpreter and
//! resumed compiled code, a round trip per atomic.
//!
//! Each lane's address is its address register's row plus the op's offset (raw bits,
//! wrapping, `Machine::address`); `size` bytes past it must lie inside the window, else the
//! lane reads 0 and writes nothing (`mem::Raw::atomic`). An aligned buffer word takes the
//! atomic instruction; a misaligned one (no atomic exists) a plain load, the operation and a
//! store, as `Raw::atomic` does. Shared memory belongs to the lane group's one thread: it
//! always takes the plain path, as `mem::slice_atomic` does.
//!
//! Invariants: a block is an atomic round ([`atomic_jumps`]) only for an op [`round_atomic`]
//! takes (4- or 8-byte words; not `Load`, `Store` or `FAdd`, whose results differ between the
//! interpreter's windows), with operands that are not built-ins (their rows hold values only
//! where the driver wrote them), and a jump without edge copies; the round reads only the
//! operands' rows and the window, and writes only the result's rows and the window's bytes.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{AtomicRmwOp, BlockArg, InstBuilder, Type, Value};
use tessera_spirv::ir::{AtomicOp, DescIdx, Ir, Op, Reg, Space, Term};

use super::Gen;
use super::values::{app_flags, own_flags};
use crate::ctx::field;
use crate::error::{JitError, JitResult};

/// The instruction an atomic round runs for `op` (`None`: compare-and-swap).
pub(super) fn rmw_op(op: AtomicOp) -> Option<Option<AtomicRmwOp>> {
    Some(Some(match op {
        AtomicOp::Add => AtomicRmwOp::Add,
        AtomicOp::Sub => AtomicRmwOp::Sub,
        AtomicOp::And => AtomicRmwOp::And,
        AtomicOp::Or => AtomicRmwOp::Or,
        AtomicOp::Xor => AtomicRmwOp::Xor,
        AtomicOp::UMin => AtomicRmwOp::Umin,
        AtomicOp::UMax => AtomicRmwOp::Umax,
        AtomicOp::SMin => AtomicRmwOp::Smin,
        AtomicOp::SMax => AtomicRmwOp::Smax,
        AtomicOp::Exchange => AtomicRmwOp::Xchg,
        AtomicOp::CompareExchange => return Some(None),
        AtomicOp::Load | AtomicOp::Store | AtomicOp::FAdd => return None,
    }))
}

/// An atomic a round runs: its operands, and the instruction (`None`: compare-and-swap).
#[derive(Debug, Clone, Copy)]
struct RoundAtomic {
    rmw: Option<AtomicRmwOp>,
    space: Space,
    bytes: u8,
    dst: Reg,
    addr: Option<Reg>,
    offset: u64,
    value: Reg,
    comparator: Reg,
}

/// `op` of `ir` as an atomic round runs it, if one does (see the module docs).
fn round_atomic(op: &Op, ir: &Ir) -> Option<RoundAtomic> {
    let Op::Atomic {
        op: kind,
        space,
        bytes,
        dst,
        addr,
        offset,
        value,
        comparator,
    } = *op
    else {
        return None;
    };
    let width = |r: Reg| ir.reg_types.get(r as usize).map(|t| t.bytes());
    let size = usize::from(bytes);
    let takes = matches!(size, 4 | 8)
        && matches!(
            space,
            Space::Shared
                | Space::Buffer {
                    desc: DescIdx::Const(_),
                    ..
                }
        )
        && [dst, value, comparator]
            .iter()
            .all(|&r| width(r) == Some(size))
        && addr.is_none_or(|a| matches!(width(a), Some(4 | 8)))
        && ![Some(value), Some(comparator), addr]
            .iter()
            .flatten()
            .any(|&r| super::rounds::is_builtin(ir, r));
    Some(RoundAtomic {
        rmw: rmw_op(kind)?,
        space,
        bytes,
        dst,
        addr,
        offset,
        value,
        comparator,
    })
    .filter(|_| takes)
}

/// Per block: `Some(target)` when it is an atomic round (one op [`round_atomic`] takes) that
/// jumps to `target` with no edge copies.
pub(super) fn atomic_jumps(ir: &Ir) -> Vec<Option<u32>> {
    ir.blocks
        .iter()
        .map(|blk| match (&blk.term, blk.ops.as_slice()) {
            (Term::Jump(e), [op]) if e.moves.is_empty() && round_atomic(op, ir).is_some() => {
                Some(e.target)
            }
            _ => None,
        })
        .collect()
}

impl Gen<'_> {
    /// The word `rmw` leaves where `was` was, given operand `v`.
    pub(super) fn rmw_value(&mut self, rmw: AtomicRmwOp, was: Value, v: Value) -> Value {
        match rmw {
            AtomicRmwOp::Add => self.b.ins().iadd(was, v),
            AtomicRmwOp::Sub => self.b.ins().isub(was, v),
            AtomicRmwOp::And => self.b.ins().band(was, v),
            AtomicRmwOp::Or => self.b.ins().bor(was, v),
            AtomicRmwOp::Xor => self.b.ins().bxor(was, v),
            AtomicRmwOp::Umin => self.b.ins().umin(was, v),
            AtomicRmwOp::Umax => self.b.ins().umax(was, v),
            AtomicRmwOp::Smin => self.b.ins().smin(was, v),
            AtomicRmwOp::Smax => self.b.ins().smax(was, v),
            _ => v,
        }
    }

    /// Whether block `block` is an atomic round's.
    pub(super) fn is_atomic_round(&self, block: usize) -> bool {
        self.ir
            .blocks
            .get(block)
            .and_then(|b| b.ops.first())
            .is_some_and(|op| round_atomic(op, self.ir).is_some())
    }

    /// In a round every chunk of the group entered atomic block `block`: runs its atomic for
    /// lanes `0..chunk_end·16` in lane order (see the module docs).
    pub(super) fn atomic_round(&mut self, block: usize) -> JitResult<()> {
        let RoundAtomic {
            rmw,
            space,
            bytes,
            dst,
            addr,
            offset,
            value,
            comparator,
        } = self
            .ir
            .blocks
            .get(block)
            .and_then(|b| b.ops.first())
            .and_then(|op| round_atomic(op, self.ir))
            .ok_or(JitError::Unexpected("an atomic round at another op"))?;
        let size = i64::from(bytes);
        let ty = Type::int_with_byte_size(u16::from(bytes))
            .ok_or(JitError::Unexpected("an atomic round's width"))?;
        let (ptr, len) = self
            .window(space)
            .ok_or(JitError::Unexpected("an atomic round's window"))?;
        let row = |g: &Self, r: Reg| g.layout.offsets[r as usize] as i64;
        let regfile = self.ctx_load(I64, field!(regfile));
        let end = self.ctx_load(I32, field!(chunk_end));
        let end = self.b.ins().uextend(I64, end);
        let lanes = self.b.ins().imul_imm_s(end, crate::classes::LANES as i64);
        // The last offset a word may start at (none when the window is shorter than a word).
        let fits = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, len, size);
        let room = self.b.ins().iadd_imm_s(len, -size);

        let head = self.b.create_block();
        let lane = self.b.append_block_param(head, I64);
        let body = self.b.create_block();
        let atomic = self.b.create_block();
        let outside_or_misaligned = self.b.create_block();
        let misaligned = self.b.create_block();
        let join = self.b.create_block();
        let old = self.b.append_block_param(join, ty);
        let after = self.b.create_block();
        let zero = self.b.ins().iconst(I64, 0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);

        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, lane, lanes);
        self.b.ins().brif(more, body, &[], after, &[]);

        self.b.switch_to_block(body);
        let lane_row = |g: &mut Self, r: Reg, bytes: i64| {
            let at = g.b.ins().imul_imm_s(lane, bytes);
            let offset = row(g, r);
            let base = g.b.ins().iadd_imm_s(regfile, offset);
            g.b.ins().iadd(base, at)
        };
        let at = match addr {
            Some(r) => {
                let abytes = i64::from(self.bytes(r) as u32);
                let p = lane_row(self, r, abytes);
                let aty = Type::int_with_byte_size(abytes as u16)
                    .ok_or(JitError::Unexpected("an atomic round's address width"))?;
                let a = self.b.ins().load(aty, own_flags(), p, 0);
                let a = if aty == I64 {
                    a
                } else {
                    self.b.ins().uextend(I64, a)
                };
                self.b.ins().iadd_imm_s(a, offset as i64)
            }
            None => self.b.ins().iconst(I64, offset as i64),
        };
        let vp = lane_row(self, value, size);
        let v = self.b.ins().load(ty, own_flags(), vp, 0);
        // Only a compare-and-swap reads its comparator.
        let c = if rmw.is_none() {
            let cp = lane_row(self, comparator, size);
            self.b.ins().load(ty, own_flags(), cp, 0)
        } else {
            v
        };
        let below = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, at, room);
        let inside = self.b.ins().band(fits, below);
        let p = self.b.ins().iadd(ptr, at);
        if space == Space::Shared {
            // The lane group's own memory: no other thread reads or writes it.
            self.b.ins().jump(outside_or_misaligned, &[]);
        } else {
            let low = self.b.ins().band_imm_s(p, size - 1);
            let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            let both = self.b.ins().band(inside, aligned);
            self.b
                .ins()
                .brif(both, atomic, &[], outside_or_misaligned, &[]);
        }

        self.b.switch_to_block(atomic);
        let was = match rmw {
            Some(rmw) => self.b.ins().atomic_rmw(ty, app_flags(), rmw, p, v),
            None => self.b.ins().atomic_cas(app_flags(), p, c, v),
        };
        self.b.ins().jump(join, &[BlockArg::Value(was)]);

        self.b.switch_to_block(outside_or_misaligned);
        let nothing = self.b.ins().iconst(ty, 0);
        self.b
            .ins()
            .brif(inside, misaligned, &[], join, &[BlockArg::Value(nothing)]);

        // No atomic instruction takes a misaligned word, and shared memory needs none: a plain
        // read-modify-write.
        self.b.switch_to_block(misaligned);
        let was = self.b.ins().load(ty, app_flags(), p, 0);
        let new = match rmw {
            Some(rmw) => self.rmw_value(rmw, was, v),
            None => {
                let equal = self.b.ins().icmp(IntCC::Equal, was, c);
                self.b.ins().select(equal, v, was)
            }
        };
        self.b.ins().store(app_flags(), new, p, 0);
        self.b.ins().jump(join, &[BlockArg::Value(was)]);

        self.b.switch_to_block(join);
        // The old values' row, unless nothing reads it after the block (`atomicAdd(bins[b], 1)`).
        if self.live.live_out[block].contains(dst) {
            let out = lane_row(self, dst, size);
            self.b.ins().store(own_flags(), old, out, 0);
        }
        let next = self.b.ins().iadd_imm_s(lane, 1);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);

        self.b.switch_to_block(after);
        Ok(())
    }
}
