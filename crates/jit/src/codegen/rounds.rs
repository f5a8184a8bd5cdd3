//! Subgroup operations in compiled rounds: a block that holds one subgroup operation compiled
//! code can compute from rows ([`RoundOp`]: reductions, clustered reductions and scans of 8-,
//! 16-, 32- and 64-bit integers and of 16-, 32- and 64-bit floats, `subgroupBroadcastFirst`,
//! broadcasts, shuffles and quad operations of such values whose lane operand is a constant, and
//! shuffles whose 32-bit lane operand varies; votes and ballots) and jumps on is a sync block
//! like a barrier: every chunk yields at it. When all of a call's chunks have (a round of the
//! whole group, `Gen::next_round`), compiled code computes the operation for every lane from
//! the rows the chunks just wrote, writes the result's rows, and enters the block it jumps to,
//! as a barrier round does. Without this the driver ran the block on the interpreter and
//! resumed compiled code: a round trip per operation that cost far more than the operation.
//!
//! Each subgroup's lanes are taken as `subgroup::segment` takes them, every lane active (a
//! chunk reaches the round only when its 16 lanes yielded at the block, and rounds run only
//! for a workgroup of whole chunks): folds and scans in lane order with the interpreter's
//! arithmetic (`alu::ibin` / `alu::fbin` as the code generator compiles them,
//! `Gen::ibin_scalar` and `Gen::fop`), so floats give the same bits; a lane a shuffle names
//! outside the subgroup reads 0.
//!
//! A built-in value operand (`subgroupBroadcastFirst(gl_WorkGroupID.x)`) is read from the rows
//! the driver then writes at the start of every group (`Output::builtin_rows`): built-ins are
//! not live registers a yield stores. Constants' rows are written once per dispatch.
//!
//! Invariants: a block is a subgroup round ([`subgroup_jumps`]) only for an op [`RoundOp::of`]
//! takes, in a workgroup of whole subgroups (whole clusters for a clustered reduction), with a
//! jump without edge copies; the round reads only the value operand's rows and writes only the
//! result's rows, for lanes `0..chunk_end·16`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Type, Value};
use tessera_spirv::alu::{FBin, IBin};
use tessera_spirv::ir::{Ir, Op, Reg, Term};
use tessera_spirv::subgroup::{Arith, SUBGROUP_SIZE, Scan, SubOp, identity};

use super::Gen;
use super::values::own_flags;
use crate::classes::{Class, LANES};
use crate::ctx::field;
use crate::error::{JitError, JitResult};

/// A subgroup operation a round computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RoundOp {
    /// Every lane of each cluster of `size` lanes gets the cluster's fold.
    Fold(Arith, usize),
    /// Lane `i` gets the fold of lanes `0..=i` (`inclusive`) or `0..i`.
    Scan(Arith, bool),
    /// Lane `i` gets lane `source(i)`'s value, or 0 where that is `None`.
    Permute(SubOp, u64),
    /// A broadcast or shuffle (`Broadcast`, `ShuffleXor`, `ShuffleUp`, `ShuffleDown`) whose
    /// 32-bit lane operand varies: each lane's source is computed from the operand's row.
    Shuffle(SubOp),
    /// A vote or ballot over the subgroup (`Elect`, `All`, `Any`, integer `AllEqual`,
    /// `Ballot`, `InverseBallot`, `BitCount`), every lane active.
    Vote(SubOp),
}

/// Whether a fold or scan takes `arith` at `width` bits on values of `bytes` bytes: integers
/// of 8 to 64 bits, booleans (and, or, xor), floats of 16, 32 or 64 bits (binary16 as `alu`
/// computes it: in f32, rounded back once, `half`'s conversions).
fn supported(arith: Arith, width: u8, bytes: usize) -> bool {
    if width == 1 {
        // Booleans (a byte of 0 or 1 each): `subgroupAnd(p)` and the like.
        return bytes == 1 && matches!(arith, Arith::I(IBin::And | IBin::Or | IBin::Xor));
    }
    let fits = usize::from(width) == 8 * bytes;
    fits && match arith {
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
        Arith::F(op) => {
            matches!(width, 16 | 32 | 64)
                && matches!(op, FBin::Add | FBin::Mul | FBin::Min | FBin::Max)
        }
    }
}

impl RoundOp {
    /// The round form of `op` of `ir` in a workgroup of `wg_size` invocations whose registers
    /// have `classes`, if it has one (see the module docs).
    fn of(op: &Op, ir: &Ir, wg_size: u32, classes: &[Class]) -> Option<RoundOp> {
        let Op::Subgroup {
            op: sub,
            width,
            operand,
            value,
            dst,
        } = op
        else {
            return None;
        };
        let builtin = |r: &Reg| is_builtin(ir, *r);
        let wg = wg_size as usize;
        let whole = |size: usize| wg.is_multiple_of(LANES) && wg.is_multiple_of(size);
        let bytes = ir.reg_types.get(*value as usize).map_or(0, |t| t.bytes());
        // A value the round copies: 1 to 8 bytes, all of them its width's.
        let copied = matches!(bytes, 1 | 2 | 4 | 8) && usize::from(*width) == 8 * bytes;
        let constant = || match classes.get(*operand as usize) {
            Some(Class::Const(c)) => Some(*c),
            _ => None,
        };
        let round = match *sub {
            SubOp::Reduce(arith, Scan::Clustered(size)) => {
                let size = (size as usize).clamp(1, SUBGROUP_SIZE);
                (supported(arith, *width, bytes) && size.is_power_of_two() && whole(size))
                    .then_some(RoundOp::Fold(arith, size))?
            }
            SubOp::Reduce(arith, scan) => supported(arith, *width, bytes)
                .then_some(RoundOp::Scan(arith, scan == Scan::Inclusive))?,
            SubOp::BroadcastFirst => RoundOp::Permute(SubOp::BroadcastFirst, 0),
            SubOp::Elect
            | SubOp::All
            | SubOp::Any
            | SubOp::AllEqual { float: false }
            | SubOp::Ballot
            | SubOp::InverseBallot
            | SubOp::BitCount(_) => {
                let dst_bytes = ir.reg_types.get(*dst as usize).map_or(0, |t| t.bytes());
                (matches!(bytes, 1 | 2 | 4 | 8) && matches!(dst_bytes, 1 | 2 | 4 | 8))
                    .then_some(RoundOp::Vote(*sub))?
            }
            SubOp::Broadcast
            | SubOp::ShuffleXor
            | SubOp::ShuffleUp
            | SubOp::ShuffleDown
            | SubOp::QuadBroadcast
            | SubOp::QuadSwap => match constant() {
                Some(b) => RoundOp::Permute(*sub, b),
                None if matches!(
                    sub,
                    SubOp::Broadcast | SubOp::ShuffleXor | SubOp::ShuffleUp | SubOp::ShuffleDown
                ) && !builtin(operand)
                    && ir.reg_types.get(*operand as usize).map(|t| t.bytes()) == Some(4) =>
                {
                    RoundOp::Shuffle(*sub)
                }
                None => return None,
            },
            _ => return None,
        };
        match round {
            RoundOp::Fold(..) => Some(round),
            RoundOp::Scan(..) => whole(SUBGROUP_SIZE).then_some(round),
            RoundOp::Permute(..) | RoundOp::Shuffle(_) => {
                (copied && whole(SUBGROUP_SIZE)).then_some(round)
            }
            RoundOp::Vote(_) => whole(SUBGROUP_SIZE).then_some(round),
        }
    }

    /// The lanes a round computes at once: a cluster, or a subgroup.
    fn span(self) -> usize {
        match self {
            RoundOp::Fold(_, size) => size,
            _ => SUBGROUP_SIZE,
        }
    }
}

/// Whether `r` is a built-in's register: not a live register a yield stores; its row holds
/// values only where the driver wrote them (`Output::builtin_rows`).
pub(super) fn is_builtin(ir: &Ir, r: Reg) -> bool {
    ir.builtins
        .ranges()
        .any(|(base, len)| (base..base + len).contains(&r))
}

/// The lane of its subgroup whose value lane `lane` of a permutation `sub` with constant lane
/// operand `b` gets (`subgroup::segment`, every lane active), or `None` for 0.
fn source(sub: SubOp, b: u64, lane: usize) -> Option<usize> {
    let i = lane as u64;
    let src = match sub {
        SubOp::BroadcastFirst => Some(0),
        SubOp::Broadcast => Some(b),
        SubOp::ShuffleXor => Some(i ^ b),
        SubOp::ShuffleUp => i.checked_sub(b),
        SubOp::ShuffleDown => Some(i.saturating_add(b)),
        SubOp::QuadBroadcast => (b < 4).then(|| (i & !3) + b),
        SubOp::QuadSwap => (b < 3).then(|| i ^ (b + 1)),
        _ => None,
    }?;
    usize::try_from(src).ok().filter(|&s| s < SUBGROUP_SIZE)
}

/// Per block: `Some(target)` when it is a subgroup round (one op [`RoundOp::of`] takes) that
/// jumps to `target` with no edge copies.
pub(super) fn subgroup_jumps(ir: &Ir, wg_size: u32, classes: &[Class]) -> Vec<Option<u32>> {
    ir.blocks
        .iter()
        .map(|blk| match (&blk.term, blk.ops.as_slice()) {
            (Term::Jump(e), [op])
                if e.moves.is_empty() && RoundOp::of(op, ir, wg_size, classes).is_some() =>
            {
                Some(e.target)
            }
            _ => None,
        })
        .collect()
}

impl Gen<'_> {
    /// In a round every chunk of the group entered at subgroup block `block`: computes its
    /// operation for lanes `0..chunk_end·16` from the value operand's rows into the result's.
    pub(super) fn subgroup_round(&mut self, block: usize) -> JitResult<()> {
        let Some(op) = self.ir.blocks.get(block).and_then(|b| b.ops.first()) else {
            return Err(JitError::Unexpected(
                "a subgroup round at a block with no op",
            ));
        };
        let (
            Some(round),
            Op::Subgroup {
                dst,
                value,
                operand,
                width,
                ..
            },
        ) = (
            RoundOp::of(op, self.ir, self.shape.wg_size, &self.classes),
            op,
        )
        else {
            return Err(JitError::Unexpected("a subgroup round at another op"));
        };
        let (dst, value, operand, width): (Reg, Reg, Reg, u8) = (*dst, *value, *operand, *width);
        if is_builtin(self.ir, value) {
            // Its rows, written by the driver when a group starts.
            self.builtin_rows = true;
        }
        let bytes = self.bytes(value);
        let ty = Type::int_with_byte_size(bytes as u16)
            .ok_or(JitError::Unexpected("a subgroup round's value width"))?;
        let dst_bytes = self.bytes(dst);
        let dst_ty = Type::int_with_byte_size(dst_bytes as u16)
            .ok_or(JitError::Unexpected("a subgroup round's result width"))?;
        let offset = |r: Reg| self.layout.offsets[r as usize] as i64;
        let (from, to, lane_of) = (offset(value), offset(dst), offset(operand));
        let end = self.ctx_load(I32, field!(chunk_end));
        let end = self.b.ins().uextend(I64, end);
        let total = self.b.ins().imul_imm_s(end, LANES as i64);
        let regfile = self.ctx_load(I64, field!(regfile));
        let src = self.b.ins().iadd_imm_s(regfile, from);
        let dst_row = self.b.ins().iadd_imm_s(regfile, to);
        // One span (a cluster or a subgroup) per iteration, `at` its first lane.
        let span = round.span();
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
        let value_at = self.b.ins().imul_imm_s(at, bytes as i64);
        let from_lane = self.b.ins().iadd(src, value_at);
        let dst_at = self.b.ins().imul_imm_s(at, dst_bytes as i64);
        let to_lane = self.b.ins().iadd(dst_row, dst_at);
        let lanes: Vec<Value> = (0..span)
            .map(|k| {
                self.b
                    .ins()
                    .load(ty, own_flags(), from_lane, (bytes * k) as i32)
            })
            .collect();
        let out = match round {
            RoundOp::Shuffle(sub) => {
                let operands = self.b.ins().iadd_imm_s(regfile, lane_of);
                let operand_at = self.b.ins().ishl_imm_u(at, 2);
                let operands = self.b.ins().iadd(operands, operand_at);
                self.shuffle_values(sub, ty, from_lane, operands, span)
            }
            RoundOp::Vote(sub) => self.vote_values(sub, ty, dst_ty, &lanes)?,
            _ => self.round_values(round, ty, width, &lanes)?,
        };
        for (k, v) in out.into_iter().enumerate() {
            self.b
                .ins()
                .store(own_flags(), v, to_lane, (dst_bytes * k) as i32);
        }
        let next = self.b.ins().iadd_imm_s(at, span as i64);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(after);
        Ok(())
    }

    /// The results of `round` for one span's `lanes` (values of type `ty`, `width` bits).
    fn round_values(
        &mut self,
        round: RoundOp,
        ty: Type,
        width: u8,
        lanes: &[Value],
    ) -> JitResult<Vec<Value>> {
        Ok(match round {
            RoundOp::Fold(arith, _) => {
                let mut acc = lanes[0];
                for &x in &lanes[1..] {
                    acc = self.reduce_step(arith, ty, width, acc, x)?;
                }
                vec![acc; lanes.len()]
            }
            RoundOp::Scan(arith, inclusive) => {
                let mut out = Vec::with_capacity(lanes.len());
                let mut acc: Option<Value> = None;
                for &x in lanes {
                    let next = match acc {
                        None => x,
                        Some(a) => self.reduce_step(arith, ty, width, a, x)?,
                    };
                    out.push(match (inclusive, acc) {
                        (true, _) => next,
                        (false, Some(a)) => a,
                        (false, None) => self.b.ins().iconst(ty, identity(arith, width) as i64),
                    });
                    acc = Some(next);
                }
                out
            }
            RoundOp::Permute(sub, b) => {
                let zero = self.b.ins().iconst(ty, 0);
                (0..lanes.len())
                    .map(|i| source(sub, b, i).map_or(zero, |s| lanes[s]))
                    .collect()
            }
            RoundOp::Shuffle(_) | RoundOp::Vote(_) => {
                return Err(JitError::Unexpected(
                    "a shuffle's or a vote's values are not a fold's",
                ));
            }
        })
    }

    /// The results of a shuffle `sub` with a varying lane operand for one subgroup whose values
    /// (of type `ty`) are at `values` and lane operands at `operands` (a 32-bit row): lane `i`
    /// reads the value of the lane its operand names, or 0 when that lane is outside the
    /// subgroup (`subgroup::segment`, every lane active).
    fn shuffle_values(
        &mut self,
        sub: SubOp,
        ty: Type,
        values: Value,
        operands: Value,
        span: usize,
    ) -> Vec<Value> {
        let last = self.b.ins().iconst(I64, (span - 1) as i64);
        let zero = self.b.ins().iconst(ty, 0);
        let shift = i64::from(ty.bytes().trailing_zeros());
        (0..span)
            .map(|i| {
                let b = self
                    .b
                    .ins()
                    .load(I32, own_flags(), operands, (4 * i) as i32);
                let b = self.b.ins().uextend(I64, b);
                let lane = self.b.ins().iconst(I64, i as i64);
                let src = match sub {
                    SubOp::ShuffleXor => self.b.ins().bxor(lane, b),
                    SubOp::ShuffleUp => self.b.ins().isub(lane, b),
                    SubOp::ShuffleDown => self.b.ins().iadd(lane, b),
                    _ => b,
                };
                let mut valid = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, src, last);
                if sub == SubOp::ShuffleUp {
                    // `lane - b` below 0 names no lane.
                    let up = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, b, lane);
                    valid = self.b.ins().band(valid, up);
                }
                let at = self.b.ins().select(valid, src, last);
                let at = self.b.ins().ishl_imm_u(at, shift);
                let at = self.b.ins().iadd(values, at);
                let x = self.b.ins().load(ty, own_flags(), at, 0);
                self.b.ins().select(valid, x, zero)
            })
            .collect()
    }

    /// The results of vote or ballot `sub` for one subgroup's `lanes` (values of type `ty`,
    /// every lane active; results of type `dst_ty`), as `subgroup::segment` computes them.
    fn vote_values(
        &mut self,
        sub: SubOp,
        ty: Type,
        dst_ty: Type,
        lanes: &[Value],
    ) -> JitResult<Vec<Value>> {
        let wide: Vec<Value> = lanes
            .iter()
            .map(|&x| {
                if ty == I64 {
                    x
                } else {
                    self.b.ins().uextend(I64, x)
                }
            })
            .collect();
        let narrow = |g: &mut Self, x: Value| {
            if dst_ty == I64 {
                x
            } else {
                g.b.ins().ireduce(dst_ty, x)
            }
        };
        let flag = |g: &mut Self, c: Value| {
            let one = g.b.ins().iconst(dst_ty, 1);
            let zero = g.b.ins().iconst(dst_ty, 0);
            g.b.ins().select(c, one, zero)
        };
        Ok(match sub {
            SubOp::Elect => (0..lanes.len())
                .map(|i| self.b.ins().iconst(dst_ty, i64::from(i == 0)))
                .collect(),
            SubOp::All | SubOp::Any | SubOp::AllEqual { .. } => {
                let mut acc: Option<Value> = None;
                for &x in &wide {
                    let c = match sub {
                        SubOp::AllEqual { .. } => self.b.ins().icmp(IntCC::Equal, x, wide[0]),
                        _ => self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0),
                    };
                    acc = Some(match (acc, sub) {
                        (None, _) => c,
                        (Some(a), SubOp::Any) => self.b.ins().bor(a, c),
                        (Some(a), _) => self.b.ins().band(a, c),
                    });
                }
                let all = acc.unwrap_or_else(|| self.b.ins().iconst(I8, 1));
                let r = flag(self, all);
                vec![r; lanes.len()]
            }
            SubOp::Ballot => {
                let mut bits = self.b.ins().iconst(I64, 0);
                for (i, &x) in wide.iter().enumerate() {
                    let set = self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0);
                    let bit = self.b.ins().uextend(I64, set);
                    let bit = self.b.ins().ishl_imm_u(bit, i as i64);
                    bits = self.b.ins().bor(bits, bit);
                }
                let r = narrow(self, bits);
                vec![r; lanes.len()]
            }
            SubOp::InverseBallot => wide
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let y = self.b.ins().ushr_imm_u(x, i as i64);
                    let y = self.b.ins().band_imm_s(y, 1);
                    narrow(self, y)
                })
                .collect(),
            SubOp::BitCount(scan) => wide
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let keep = match scan {
                        Scan::Clustered(_) => u64::from(u32::MAX),
                        Scan::Inclusive => (2u64 << i) - 1,
                        Scan::Exclusive => (1u64 << i) - 1,
                    };
                    let keep = self.b.ins().iconst(I64, keep as i64);
                    let y = self.b.ins().band(x, keep);
                    let y = self.b.ins().popcnt(y);
                    narrow(self, y)
                })
                .collect(),
            _ => return Err(JitError::Unexpected("a vote round at another operation")),
        })
    }

    /// `x ∘ y` on values of type `ty` (`width` bits) as `alu` computes it (`arith` is
    /// [`supported`] there).
    fn reduce_step(
        &mut self,
        arith: Arith,
        ty: Type,
        width: u8,
        x: Value,
        y: Value,
    ) -> JitResult<Value> {
        match arith {
            Arith::I(IBin::And) if width == 1 => Ok(self.b.ins().band(x, y)),
            Arith::I(IBin::Or) if width == 1 => Ok(self.b.ins().bor(x, y)),
            Arith::I(IBin::Xor) if width == 1 => Ok(self.b.ins().bxor(x, y)),
            Arith::I(op) => self
                .ibin_scalar(op, u32::from(width), ty, x, y)
                .ok_or(JitError::Unexpected("a subgroup round's integer operation")),
            Arith::F(op) if ty == I16 => {
                // In f32 on one lane of a vector, with the vector conversions of `half`.
                let widen = |g: &mut Self, h: Value| {
                    let h = g.b.ins().uextend(I32, h);
                    let v = g.b.ins().splat(I32X4, h);
                    g.half_to_f32(v)
                };
                let (fx, fy) = (widen(self, x), widen(self, y));
                let z = self.fop(op, fx, fy);
                let h = self.f32_to_half(z);
                let h = self.b.ins().extractlane(h, 0);
                Ok(self.b.ins().ireduce(I16, h))
            }
            Arith::F(op) => {
                let fty = if ty == I64 { F64 } else { F32 };
                let (fx, fy) = (self.bits_to_float(x, fty), self.bits_to_float(y, fty));
                let z = self.fop(op, fx, fy);
                Ok(self.float_to_bits(z, ty))
            }
        }
    }
}
