//! Atomic updates in compiled code: an `Op::AtomicUpdate` (an integer add, sub, and, or, xor,
//! min or max whose old value nothing reads, `tessera_spirv::opt::unobserved_atomics`) leaves
//! its word the same whatever order lanes take it in, so it is not a sync op: a chunk takes it
//! where it is, under a divergent branch's mask too (only the active lanes), without yielding.
//!
//! Lanes at one address (a uniform one: `atomicAdd(count, 1)`) fold their values first (a sub's
//! by adding them) and update the word once; lanes at varying addresses update theirs one after
//! the other. Each lane's address is its address plus the op's offset (raw bits, wrapping, as
//! `Machine::address` takes them); a word not wholly inside the window (or, for a device
//! address, inside a live allocation) is left alone, as `mem::Raw::atomic` does. An aligned
//! buffer or device word takes the processor's atomic instruction (other threads may update it
//! at the same time); a misaligned one a plain load, the operation and a store, as
//! `Raw::atomic` does; shared memory belongs to the lane group's one thread and always takes
//! the plain path.
//!
//! Invariant: the code reads and writes only words inside a window or a live allocation, and
//! no lane outside the mask.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{AtomicRmwOp, BlockArg, InstBuilder, Type, Value};
use tessera_spirv::ir::{AtomicOp, DescIdx, Reg, Space};

use super::Gen;
use super::atomic_rounds::rmw_op;
use super::values::{app_flags, own_flags};
use crate::classes::LANES;
use crate::error::{JitError, JitResult};

/// How the lanes' words are found.
#[derive(Clone, Copy)]
enum Place {
    /// Bytes of a window at `ptr`: a buffer of a known descriptor or shared memory. A word
    /// at offset `at` lies inside it when `at < limit` (the window's length less the word's,
    /// plus 1; 0 for a window shorter than a word).
    Window {
        ptr: Value,
        limit: Value,
        shared: bool,
    },
    /// Device addresses, through the dispatch's allocation table (site slot `slot`).
    Physical { slot: usize },
}

/// How lanes' values fold before one update of a shared word: a sub's values add up.
fn fold_op(rmw: AtomicRmwOp) -> AtomicRmwOp {
    match rmw {
        AtomicRmwOp::Sub => AtomicRmwOp::Add,
        other => other,
    }
}

/// The word that leaves a word unchanged under `rmw` (`fold_op`'s identity) at `bits`.
fn identity(rmw: AtomicRmwOp, bits: u32) -> u64 {
    let top = 1u64 << (bits - 1);
    match rmw {
        AtomicRmwOp::And | AtomicRmwOp::Umin => u64::MAX >> (64 - bits),
        // The signed minimum and maximum at `bits`.
        AtomicRmwOp::Smax => top,
        AtomicRmwOp::Smin => top - 1,
        _ => 0,
    }
}

impl Gen<'_> {
    /// Compiles an `Op::AtomicUpdate`; `false` where compiled code does not take it (a buffer
    /// chosen at run time), for the interpreter.
    pub(super) fn atomic_update(
        &mut self,
        op: AtomicOp,
        space: Space,
        bytes: u8,
        addr: Option<Reg>,
        offset: u64,
        value: Reg,
    ) -> JitResult<bool> {
        let Some(Some(rmw)) = rmw_op(op).filter(|_| op.commutes()) else {
            return Err(JitError::Unexpected(
                "an atomic update of an order-dependent operation",
            ));
        };
        let size = usize::from(bytes);
        let ty = Type::int_with_byte_size(u16::from(bytes))
            .filter(|_| matches!(size, 4 | 8))
            .ok_or(JitError::Unexpected("an atomic update's width"))?;
        let place = match space {
            // Read-only: the interpreter leaves push constants alone too.
            Space::Push => return Ok(true),
            Space::Physical => {
                let slot = self.physical_site % crate::ctx::PHYSICAL_SITES;
                self.physical_site += 1;
                Place::Physical { slot }
            }
            Space::Buffer {
                desc: DescIdx::Const(_),
                ..
            }
            | Space::Shared => {
                let Some((ptr, len)) = self.window(space) else {
                    return Ok(false);
                };
                let fits =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, len, size as i64);
                let last = self.b.ins().iadd_imm_s(len, 1 - size as i64);
                let zero = self.b.ins().iconst(I64, 0);
                Place::Window {
                    ptr,
                    limit: self.b.ins().select(fits, last, zero),
                    shared: space == Space::Shared,
                }
            }
            Space::Buffer { .. } => return Ok(false),
        };
        let a = self.address(addr);
        let v = self.get(value);
        let active = self.mask.as_ref().map(|m| m.lanes);
        let uniform = a.as_ref().is_none_or(|(x, _)| x.is_scalar());
        if uniform {
            // One word: fold the active lanes' values, then update it once.
            let combine = fold_op(rmw);
            let mut folded = self.iconst(ty, identity(combine, ty.bits()));
            for i in 0..LANES {
                let x = self.lane(&v, size, i);
                let next = self.rmw_value(combine, folded, x);
                folded = match active {
                    Some(mask) => {
                        let on = self.b.ins().extractlane(mask, i as u8);
                        self.b.ins().select(on, next, folded)
                    }
                    None => next,
                };
            }
            let at = self.lane_offset(&a, offset, 0);
            let any = match active {
                Some(mask) => Some(self.b.ins().vany_true(mask)),
                None => None,
            };
            self.update_word(place, rmw, ty, at, any, |_| folded);
        } else {
            // Lane by lane in a loop over the lanes' addresses, values and flags spilled to the
            // stack: one update instruction for all of them (straight-line code with one per
            // lane ran 5× slower on a histogram, its updates' loads mispredicted against the
            // stores before them, each at an address of its own).
            let (x, abytes) = a.ok_or(JitError::Unexpected("a varying atomic address"))?;
            let (vat, mat) = (16 * abytes, 16 * (abytes + size));
            let spill = self.edge_slot((mat + 16) as u32);
            self.edge_spill(&x, abytes, spill, 0);
            // A value every lane shares (`atomicAdd(bins[b], 1)`) stays a register.
            let shared_value = if v.is_scalar() {
                self.scalar(&v, size)
            } else {
                None
            };
            if shared_value.is_none() {
                self.edge_spill(&v, size, spill, vat as i32);
            }
            if let Some(mask) = active {
                self.b.ins().store(own_flags(), mask, spill, mat as i32);
            }
            let aty = Type::int_with_byte_size(abytes as u16)
                .ok_or(JitError::Unexpected("an atomic update's address width"))?;
            let (head, body, done) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            let lane = self.b.append_block_param(head, I64);
            let zero = self.b.ins().iconst(I64, 0);
            self.b.ins().jump(head, &[BlockArg::Value(zero)]);
            self.b.switch_to_block(head);
            let more = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThan, lane, LANES as i64);
            self.b.ins().brif(more, body, &[], done, &[]);
            self.enter_sealed(body);
            let row = |g: &mut Self, bytes: usize, from: usize| {
                let step = g.b.ins().imul_imm_s(lane, bytes as i64);
                let p = g.b.ins().iadd(spill, step);
                g.b.ins().iadd_imm_s(p, from as i64)
            };
            let ap = row(self, abytes, 0);
            let at = self.b.ins().load(aty, own_flags(), ap, 0);
            let at = if aty == I64 {
                at
            } else {
                self.b.ins().uextend(I64, at)
            };
            let at = self.b.ins().iadd_imm_s(at, offset as i64);
            let on = match active {
                Some(_) => {
                    let mp = row(self, 1, mat);
                    Some(self.b.ins().load(I8, own_flags(), mp, 0))
                }
                None => None,
            };
            let x = match shared_value {
                Some(x) => x,
                None => {
                    let vp = row(self, size, vat);
                    self.b.ins().load(ty, own_flags(), vp, 0)
                }
            };
            self.update_word(place, rmw, ty, at, on, |_| x);
            let next = self.b.ins().iadd_imm_s(lane, 1);
            self.b.ins().jump(head, &[BlockArg::Value(next)]);
            self.b.seal_block(head);
            self.enter_sealed(done);
        }
        Ok(true)
    }

    /// Applies `rmw` with the value `operand` gives to the `ty` word at `at` (an `I64` window
    /// offset or device address) when it lies wholly inside its window or a live allocation,
    /// and `on` (a lane-active flag, if any) holds; see the module docs for the paths.
    fn update_word(
        &mut self,
        place: Place,
        rmw: AtomicRmwOp,
        ty: Type,
        at: Value,
        on: Option<Value>,
        operand: impl FnOnce(&mut Self) -> Value,
    ) {
        let size = i64::from(ty.bytes());
        let (p, inside, shared) = match place {
            Place::Window { ptr, limit, shared } => {
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, at, limit);
                (self.b.ins().iadd(ptr, at), inside, shared)
            }
            Place::Physical { slot } => {
                let len = self.b.ins().iconst(I64, size);
                let (host, found) = self.physical_range_in(slot, at, len);
                (host, found, false)
            }
        };
        let go = match on {
            Some(on) => self.b.ins().band(inside, on),
            None => inside,
        };
        let (update, plain, after) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(go, update, &[], after, &[]);
        self.enter_sealed(update);
        let x = operand(self);
        if shared {
            self.b.ins().jump(plain, &[]);
        } else {
            let atomic = self.b.create_block();
            let low = self.b.ins().band_imm_s(p, size - 1);
            let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            self.b.ins().brif(aligned, atomic, &[], plain, &[]);
            self.enter_sealed(atomic);
            self.b.ins().atomic_rmw(ty, app_flags(), rmw, p, x);
            self.b.ins().jump(after, &[]);
        }
        self.enter_sealed(plain);
        let was = self.b.ins().load(ty, app_flags(), p, 0);
        let new = self.rmw_value(rmw, was, x);
        self.b.ins().store(app_flags(), new, p, 0);
        self.b.ins().jump(after, &[]);
        self.enter_sealed(after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_leave_words_unchanged() {
        for bits in [32u32, 64] {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            assert_eq!(identity(AtomicRmwOp::And, bits), mask);
            assert_eq!(identity(AtomicRmwOp::Umin, bits), mask);
            assert_eq!(identity(AtomicRmwOp::Smax, bits), 1 << (bits - 1));
            assert_eq!(identity(AtomicRmwOp::Smin, bits), mask >> 1);
            for rmw in [
                AtomicRmwOp::Add,
                AtomicRmwOp::Or,
                AtomicRmwOp::Xor,
                AtomicRmwOp::Umax,
            ] {
                assert_eq!(identity(rmw, bits), 0);
            }
        }
        assert_eq!(fold_op(AtomicRmwOp::Sub), AtomicRmwOp::Add);
    }
}
