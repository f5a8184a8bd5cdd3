//! Subgroup reductions in compiled rounds: a block that holds one clustered reduction
//! (`subgroupAdd`, `subgroupMax`, …, `subgroupClusteredAdd`) and jumps on is a sync block like a
//! barrier: every chunk yields at it. When all of a call's chunks have (a round of the whole
//! group, `Gen::next_round`), compiled code computes the reduction for every lane from the
//! rows the chunks just wrote, writes the results' rows, and enters the block it jumps to,
//! as a barrier round does. Without this the driver ran the block on the interpreter and
//! resumed compiled code: a round trip per reduction that cost far more than the reduction.
//!
//! The fold takes each cluster's lanes in order with the interpreter's arithmetic
//! (`subgroup::segment`: `alu::ibin` / `alu::fbin` as the code generator compiles them,
//! `Gen::ibin_scalar` and `Gen::fop`), so floats give the same bits. A chunk reaches the
//! round only when its 16 lanes yielded at the block (every lane is active), and rounds run
//! only for a workgroup of whole chunks; clusters must not cross its end.
//!
//! Invariants: a block is a subgroup round ([`subgroup_jumps`]) only for a reduction of
//! 32-bit values whose arithmetic is listed in [`supported`], clusters that divide the
//! workgroup, and a jump without edge copies; the round reads only the value operand's rows
//! and writes only the result's rows, for lanes `0..chunk_end·16`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::alu::{FBin, IBin};
use tessera_spirv::ir::{Ir, Op, Term};
use tessera_spirv::subgroup::{Arith, SUBGROUP_SIZE, Scan, SubOp};

use super::Gen;
use super::values::own_flags;
use crate::classes::LANES;
use crate::ctx::field;
use crate::error::{JitError, JitResult};

/// Whether a round folds `arith` (on 32-bit values).
fn supported(arith: Arith) -> bool {
    match arith {
        Arith::I(op) => matches!(
            op,
            IBin::Add
                | IBin::Mul
                | IBin::And
                | IBin::Or
                | IBin::Xor
                | IBin::UMin
                | IBin::UMax
                | IBin::SMin
                | IBin::SMax
        ),
        Arith::F(op) => matches!(op, FBin::Add | FBin::Mul | FBin::Min | FBin::Max),
    }
}

/// The reduction a round computes for block `op`, with its cluster size: `None` for any
/// other op (see the module docs).
fn round_reduction(op: &Op, wg_size: u32) -> Option<(Arith, usize)> {
    let Op::Subgroup {
        op: SubOp::Reduce(arith, Scan::Clustered(size)),
        width: 32,
        ..
    } = op
    else {
        return None;
    };
    let size = (*size as usize).clamp(1, SUBGROUP_SIZE);
    let whole = (wg_size as usize).is_multiple_of(LANES) && (wg_size as usize).is_multiple_of(size);
    (supported(*arith) && size.is_power_of_two() && whole).then_some((*arith, size))
}

/// Per block: `Some(target)` when it is a subgroup round (one reduction compiled code folds
/// in a round, see the module docs) that jumps to `target` with no edge copies.
pub(super) fn subgroup_jumps(ir: &Ir, wg_size: u32) -> Vec<Option<u32>> {
    ir.blocks
        .iter()
        .map(|blk| match (&blk.term, blk.ops.as_slice()) {
            (Term::Jump(e), [op])
                if e.moves.is_empty() && round_reduction(op, wg_size).is_some() =>
            {
                Some(e.target)
            }
            _ => None,
        })
        .collect()
}

impl Gen<'_> {
    /// In a round every chunk of the group entered at subgroup block `block`: computes its
    /// reduction for lanes `0..chunk_end·16` from the value operand's rows into the result's.
    pub(super) fn subgroup_round(&mut self, block: usize) -> JitResult<()> {
        let Some(op) = self.ir.blocks.get(block).and_then(|b| b.ops.first()) else {
            return Err(JitError::Unexpected(
                "a subgroup round at a block with no op",
            ));
        };
        let (Some((arith, size)), Op::Subgroup { dst, value, .. }) =
            (round_reduction(op, self.shape.wg_size), op)
        else {
            return Err(JitError::Unexpected("a subgroup round at another op"));
        };
        let offset = |r: u32| self.layout.offsets[r as usize] as i64;
        let (from, to) = (offset(*value), offset(*dst));
        let end = self.ctx_load(I32, field!(chunk_end));
        let end = self.b.ins().uextend(I64, end);
        let total = self.b.ins().imul_imm_s(end, (LANES * 4) as i64);
        let regfile = self.ctx_load(I64, field!(regfile));
        let src = self.b.ins().iadd_imm_s(regfile, from);
        let dst_row = self.b.ins().iadd_imm_s(regfile, to);
        // One cluster of `size` lanes per iteration, `at` its first lane's byte offset.
        let head = self.b.create_block();
        let at = self.b.append_block_param(head, I64);
        let body = self.b.create_block();
        let after = self.b.create_block();
        let zero = self.b.ins().iconst(I64, 0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, at, total);
        self.b.ins().brif(more, body, &[], after, &[]);
        self.b.switch_to_block(body);
        let from_lane = self.b.ins().iadd(src, at);
        let mut acc = self.b.ins().load(I32, own_flags(), from_lane, 0);
        for lane in 1..size {
            let x = self
                .b
                .ins()
                .load(I32, own_flags(), from_lane, (4 * lane) as i32);
            acc = self.reduce_step(arith, acc, x)?;
        }
        let to_lane = self.b.ins().iadd(dst_row, at);
        if size >= 4 {
            let v = self.b.ins().splat(I32X4, acc);
            for quad in 0..size / 4 {
                self.b
                    .ins()
                    .store(own_flags(), v, to_lane, (16 * quad) as i32);
            }
        } else {
            for lane in 0..size {
                self.b
                    .ins()
                    .store(own_flags(), acc, to_lane, (4 * lane) as i32);
            }
        }
        let next = self.b.ins().iadd_imm_s(at, (4 * size) as i64);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(after);
        Ok(())
    }

    /// `x ∘ y` on 32-bit values as `alu` computes it (`arith` is [`supported`]).
    fn reduce_step(&mut self, arith: Arith, x: Value, y: Value) -> JitResult<Value> {
        match arith {
            Arith::I(op) => self
                .ibin_scalar(op, 32, I32, x, y)
                .ok_or(JitError::Unexpected("a subgroup round's integer operation")),
            Arith::F(op) => {
                let (fx, fy) = (self.bits_to_float(x, F32), self.bits_to_float(y, F32));
                let z = self.fop(op, fx, fy);
                Ok(self.float_to_bits(z, I32))
            }
        }
    }
}
