//! Memory ops in compiled code: buffer, push-constant and shared-memory loads and stores, and
//! tensor reads, writes and size queries, through the windows of the context (`ctx::Window`,
//! `ctx::TensorSite`).
//!
//! Every access is checked against its window before it happens. An access that fails the check
//! is redirected to the context's scratch bytes (a load then gives 0, a store lands there), so
//! the checks are branch-free. Fast paths: a uniform address (one access per chunk), an affine
//! address of stride = access size (contiguous vectors), a tensor row (innermost coordinate
//! `x0 + i·count`, the others uniform: one compare of `x0` against a call-invariant limit, then
//! vectors), an affine tensor coordinate set (one range check per chunk, then vectors or strided
//! scalars); an address that varies in no affine way, checked four lanes at a time at run time
//! for dense or shared rows (`quads`, which also loads a packed `vec4<i8>` per lane as one
//! word); bool elements are bytes, read as true when not zero. A contiguous access whose lanes
//! are not all inside the window takes each lane in a loop of generated code (`lane_loop`):
//! unrolled, the 16 lanes' addresses, which depend only on the address's base, were hoisted out
//! of the shader's loops by Cranelift and kept live (spilled) around them. `PhysicalStorageBuffer`
//! accesses are `physical.rs`'s; the tensor ops' code is `tensor.rs`'s. Tensor accesses whose lanes are not all in bounds go to the
//! interpreter; a run-time descriptor index of a tensor looks its view up first (`dynamic`), one
//! of a buffer goes to the interpreter.

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::ir::{DescIdx, Op, Reg, Space, TensorAcc};

use super::Gen;
use super::quads::Window;
use super::values::{JVal, app_flags, own_flags, scalar_ty, vec_ty};
use crate::classes::LANES;
use crate::ctx::field;

/// The buffers and tensors compiled code reads through the context, in table order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sites {
    /// (resource slot, descriptor index).
    pub(crate) buffers: Vec<(u32, u32)>,
    pub(crate) tensors: Vec<TensorAcc>,
    /// Tensor accesses with a run-time descriptor index, one per op (`ctx::tensor_site`).
    pub(crate) dynamic: Vec<TensorAcc>,
}

/// Bytes of `ctx::Window` and `ctx::TensorSite`.
const WINDOW: i32 = 16;
pub(super) const SITE: i32 = std::mem::size_of::<crate::ctx::TensorSite>() as i32;

impl Gen<'_> {
    fn buffer_site(&mut self, slot: u32, desc: u32) -> usize {
        let key = (slot, desc);
        match self.sites.buffers.iter().position(|&k| k == key) {
            Some(i) => i,
            None => {
                self.sites.buffers.push(key);
                self.sites.buffers.len() - 1
            }
        }
    }

    pub(super) fn tensor_site(&mut self, t: &TensorAcc) -> usize {
        match self.sites.tensors.iter().position(|k| k == t) {
            Some(i) => i,
            None => {
                self.sites.tensors.push(*t);
                self.sites.tensors.len() - 1
            }
        }
    }

    /// The (pointer, length) of the window an access to `space` uses, if compiled code reads
    /// it directly.
    pub(super) fn window(&mut self, space: Space) -> Option<(Value, Value)> {
        let (table, offset) = match space {
            Space::Buffer {
                slot,
                desc: DescIdx::Const(d),
            } => {
                let k = self.buffer_site(slot, d) as i32;
                let ctx = self.ctx;
                (Some(self.inv_load(I64, ctx, field!(buffers))), k * WINDOW)
            }
            Space::Push => (None, field!(push)),
            Space::Shared => (None, field!(shared)),
            _ => return None,
        };
        let base = table.unwrap_or(self.ctx);
        let ptr = self.inv_load(I64, base, offset);
        let len = self.inv_load(I64, base, offset + 8);
        Some((ptr, len))
    }

    /// The address of `size` bytes at byte offset `at` (an `I64`) of window `(ptr, len)` when
    /// they lie inside it, else the context's scratch bytes; and whether they did.
    pub(super) fn checked(
        &mut self,
        ptr: Value,
        len: Value,
        at: Value,
        size: u64,
    ) -> (Value, Value) {
        let fits = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, len, size as i64);
        let room = self.b.ins().iadd_imm_s(len, -(size as i64));
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, at, room);
        let ok = self.b.ins().band(fits, within);
        let addr = self.b.ins().iadd(ptr, at);
        let scratch = self.scratch_addr();
        (self.b.ins().select(ok, addr, scratch), ok)
    }

    /// A per-lane byte offset `addr + offset` (`I64`) of lane `i`.
    pub(super) fn lane_offset(
        &mut self,
        addr: &Option<(JVal, usize)>,
        offset: u64,
        i: usize,
    ) -> Value {
        match addr {
            None => self.b.ins().iconst(I64, offset as i64),
            Some((v, bytes)) => {
                let x = self.lane(v, *bytes, i);
                let x = self.fit(x, I64);
                self.b.ins().iadd_imm_s(x, offset as i64)
            }
        }
    }

    pub(crate) fn memory(&mut self, op: &Op) -> JitResult<bool> {
        match op {
            Op::Load {
                space,
                bytes,
                dst,
                addr,
                offset,
            } => self.load(*space, usize::from(*bytes), *dst, *addr, *offset),
            Op::Store {
                space,
                bytes,
                value,
                addr,
                offset,
            } => self.store(*space, usize::from(*bytes), *value, *addr, *offset),
            Op::ArrayLength {
                slot,
                desc: DescIdx::Const(d),
                offset,
                stride,
                dst,
            } => {
                let Some((_, len)) = self.window(Space::Buffer {
                    slot: *slot,
                    desc: DescIdx::Const(*d),
                }) else {
                    return Ok(false);
                };
                // (len - offset) / stride saturating, 0 for stride 0, truncated to 32 bits.
                let off = self.b.ins().iconst(I64, *offset as i64);
                // (Cranelift has no scalar `usub_sat` on x86-64.)
                let diff = self.b.ins().isub(len, off);
                let zero = self.b.ins().iconst(I64, 0);
                let fits = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, len, off);
                let rest = self.b.ins().select(fits, diff, zero);
                let n = if *stride == 0 {
                    self.b.ins().iconst(I64, 0)
                } else {
                    self.b.ins().udiv_imm_s(rest, *stride as i64)
                };
                let n = self.b.ins().ireduce(I32, n);
                self.set(*dst, JVal::Uniform(n))?;
                Ok(true)
            }
            Op::TensorRead {
                tensor,
                coords,
                signed,
                coord_width,
                dsts,
                oob,
            } => {
                // Read by the edge path (`gather`), where some lanes are out of bounds.
                self.tensor_oob = *oob;
                let done = self.tensor_read(tensor, coords, *signed, *coord_width, dsts);
                self.tensor_oob = None;
                done
            }
            Op::TensorWrite {
                tensor,
                coords,
                signed,
                coord_width,
                values,
            } => self.tensor_write(tensor, coords, *signed, *coord_width, values),
            Op::TensorQuery {
                tensor,
                dim,
                width,
                dst,
            } => self.tensor_query(tensor, *dim, *width, *dst),
            _ => Ok(false),
        }
    }

    pub(super) fn address(&mut self, addr: Option<Reg>) -> Option<(JVal, usize)> {
        addr.map(|r| (self.get(r), self.bytes(r)))
    }

    fn load(
        &mut self,
        space: Space,
        size: usize,
        dst: Reg,
        addr: Option<Reg>,
        offset: u64,
    ) -> JitResult<bool> {
        // The later loads of a `vec4` group (`vec4`) were loaded by its first.
        if let Some(grouped) = self.grouped_loads.remove(&self.at) {
            self.set(dst, JVal::Varying(grouped))?;
            return Ok(true);
        }
        let Some((ptr, len)) = self.window(space) else {
            if space == Space::Physical {
                return self.physical_load(size, dst, addr, offset);
            }
            return Ok(false);
        };
        let a = self.address(addr);
        let ty = scalar_ty(size);
        let uniform = a.as_ref().is_none_or(|(v, _)| v.is_scalar());
        if uniform {
            let at = self.lane_offset(&a, offset, 0);
            let (p, ok) = self.checked(ptr, len, at, size as u64);
            let x = self.b.ins().load(ty, app_flags(), p, 0);
            let z = self.b.ins().iconst(ty, 0);
            let v = self.b.ins().select(ok, x, z);
            self.set(dst, JVal::Uniform(v))?;
            return Ok(true);
        }
        // A packed `vec4<i8>` per lane (`quads`).
        if size == 1
            && let Some(r) = addr
            && let Some(group) = self.load_group(space, r, offset, dst, 1)
            && let Some(words) = self.byte_group_words(ptr, len, &a, offset)
        {
            let [first, rest @ ..] = self.split_words(&words);
            for ((k, _), byte) in group.iter().zip(rest) {
                self.grouped_loads.insert((self.at.0, *k), vec![byte]);
            }
            self.set(dst, JVal::Varying(vec![first]))?;
            return Ok(true);
        }
        if size == 4 && Self::quad_address(&a) {
            if let Some(r) = addr
                && let Some(group) = self.load_group(space, r, offset, dst, 4)
                && let Some([first, rest @ ..]) = {
                    let gather = |g: &mut Self| {
                        (0..4u64)
                            .flat_map(|c| g.gather_lanes(ptr, len, &a, offset + 4 * c, 4))
                            .collect()
                    };
                    self.quad_vec4(Window::Bound { ptr, len }, &a, offset, gather)
                }
            {
                for ((k, _), comp) in group.iter().zip(rest) {
                    self.grouped_loads.insert((self.at.0, *k), comp);
                }
                self.set(dst, JVal::Varying(first))?;
                return Ok(true);
            }
            let gather = |g: &mut Self| g.gather_lanes(ptr, len, &a, offset, 4);
            if let Some(words) = self.quad_words(Window::Bound { ptr, len }, &a, offset, gather) {
                self.set(dst, JVal::Varying(words))?;
                return Ok(true);
            }
        }
        if let Some((JVal::Affine(base, s), abytes)) = &a
            && *s == size as u64
            && let Some(v) = self.contiguous(ptr, len, *base, *abytes, offset, size, true, None)
        {
            self.set(dst, JVal::Varying(v))?;
            return Ok(true);
        }
        if let Some((JVal::Affine(base, stride), abytes)) = &a
            && *stride > size as u64
            && *stride <= 1 << 20
        {
            let (base, stride, abytes) = (*base, *stride, *abytes);
            if size == 4
                && stride >= 16
                && let Some(r) = addr
                && let Some(group) = self.load_group(space, r, offset, dst, 4)
            {
                let [first, rest @ ..] = self.vec4_load(ptr, len, base, abytes, stride, &a, offset);
                for ((k, _), comp) in group.iter().zip(rest) {
                    self.grouped_loads.insert((self.at.0, *k), comp);
                }
                self.set(dst, JVal::Varying(first))?;
                return Ok(true);
            }
            let v = self.strided_load(ptr, len, base, abytes, stride, &a, offset, size);
            self.set(dst, JVal::Varying(v))?;
            return Ok(true);
        }
        let vecs = self.gather_lanes(ptr, len, &a, offset, size);
        self.set(dst, JVal::Varying(vecs))?;
        Ok(true)
    }

    /// An affine address with a fixed stride wider than the access (`base + i·stride`, e.g. one
    /// component of a vector per lane): one check of the whole span (15 strides plus the access,
    /// not wrapping at the address width), then loads at immediate offsets; a span that leaves
    /// the window gathers lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn strided_load(
        &mut self,
        ptr: Value,
        len: Value,
        base: Value,
        abytes: usize,
        stride: u64,
        a: &Option<(JVal, usize)>,
        offset: u64,
        size: usize,
    ) -> Vec<Value> {
        let span = (LANES as u64 - 1) * stride + size as u64;
        let (p, ok) = self.checked_lanes(ptr, len, base, abytes, offset, stride, span);
        let vt = vec_ty(size);
        let ty = scalar_ty(size);
        let join = self.b.create_block();
        let params: Vec<Value> = (0..size)
            .map(|_| self.b.append_block_param(join, vt))
            .collect();
        let (fast, slow) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.enter_sealed(fast);
        let vecs = self.lanes_to_vectors(size, |g, i| {
            g.b.ins()
                .load(ty, app_flags(), p, (i as u64 * stride) as i32)
        });
        let args: Vec<cranelift_codegen::ir::BlockArg> = vecs
            .into_iter()
            .map(cranelift_codegen::ir::BlockArg::Value)
            .collect();
        self.b.ins().jump(join, &args);
        self.enter_sealed(slow);
        let vecs = self.gather_lanes(ptr, len, a, offset, size);
        let args: Vec<cranelift_codegen::ir::BlockArg> = vecs
            .into_iter()
            .map(cranelift_codegen::ir::BlockArg::Value)
            .collect();
        self.b.ins().jump(join, &args);
        self.enter_sealed(join);
        params
    }

    /// `checked` for the `span` bytes from lane 0 of an affine address `base + i·stride`
    /// (+ `offset`), also false when the lanes' addresses wrap at the address width.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn checked_lanes(
        &mut self,
        ptr: Value,
        len: Value,
        base: Value,
        abytes: usize,
        offset: u64,
        stride: u64,
        span: u64,
    ) -> (Value, Value) {
        let b64 = self.fit(base, I64);
        let first = self.b.ins().iadd_imm_s(b64, offset as i64);
        let (p, ok) = self.checked(ptr, len, first, span);
        if abytes >= 8 {
            return (p, ok);
        }
        let last = self
            .b
            .ins()
            .iadd_imm_s(b64, ((LANES as u64 - 1) * stride) as i64);
        let wraps = self.b.ins().icmp_imm_s(
            IntCC::UnsignedGreaterThan,
            last,
            ((1u64 << (abytes * 8)) - 1) as i64,
        );
        let notwrap = self.b.ins().bxor_imm_s(wraps, 1);
        (p, self.b.ins().band(ok, notwrap))
    }

    /// A gather: each lane checked on its own (0 where it is outside the window).
    pub(super) fn gather_lanes(
        &mut self,
        ptr: Value,
        len: Value,
        a: &Option<(JVal, usize)>,
        offset: u64,
        size: usize,
    ) -> Vec<Value> {
        let ty = scalar_ty(size);
        self.lanes_to_vectors(size, |g, i| {
            let at = g.lane_offset(a, offset, i);
            let (p, ok) = g.checked(ptr, len, at, size as u64);
            let x = g.b.ins().load(ty, app_flags(), p, 0);
            let z = g.b.ins().iconst(ty, 0);
            g.b.ins().select(ok, x, z)
        })
    }

    /// Runs `body` for lanes 0 to 15 in a loop of generated code (its lane index an `I64`
    /// block parameter), in the current block, which continues after it. Nothing a lane needs
    /// is computed before the loop, so Cranelift cannot hoist it out of a shader's loop.
    pub(super) fn lane_loop(&mut self, mut body: impl FnMut(&mut Self, Value)) {
        let head = self.b.create_block();
        let lane = self.b.append_block_param(head, I64);
        let step = self.b.create_block();
        let after = self.b.create_block();
        let zero = self.b.ins().iconst(I64, 0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let done = self.b.ins().icmp_imm_s(IntCC::Equal, lane, LANES as i64);
        self.b.ins().brif(done, after, &[], step, &[]);
        self.enter_sealed(step);
        body(self, lane);
        let next = self.b.ins().iadd_imm_s(lane, 1);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.seal_block(head);
        self.enter_sealed(after);
    }

    /// The byte offset (`I64`) of lane `lane` (an `I64`) of the affine address `base +
    /// lane·stride` (+ `offset`): computed at the address's width (`abytes`), where it wraps,
    /// as [`Gen::lane_offset`] computes it for a constant lane.
    fn affine_lane_offset(
        &mut self,
        base: Value,
        abytes: usize,
        stride: u64,
        offset: u64,
        lane: Value,
    ) -> Value {
        let ty = scalar_ty(abytes);
        let base = self.fit(base, ty);
        let lane = self.fit(lane, ty);
        let step = self.b.ins().imul_imm_s(lane, stride as i64);
        let x = self.b.ins().iadd(base, step);
        let x = self.fit(x, I64);
        self.b.ins().iadd_imm_s(x, offset as i64)
    }

    /// The contiguous fast path of an affine address `base + i·size` (+ `offset`): loads
    /// (`load`) or stores `values` as 16-lane vectors when all 16 lanes lie inside the window
    /// and the address does not wrap at its width; otherwise lane by lane, in a loop of
    /// generated code (`lane_loop`): a lane outside the window reads 0 or stores nothing.
    /// Returns the loaded vectors (none for a store).
    #[allow(clippy::too_many_arguments)]
    fn contiguous(
        &mut self,
        ptr: Value,
        len: Value,
        base: Value,
        abytes: usize,
        offset: u64,
        size: usize,
        load: bool,
        values: Option<&[Value]>,
    ) -> Option<Vec<Value>> {
        let total = (LANES * size) as u64;
        let (p, ok) = self.checked_lanes(ptr, len, base, abytes, offset, size as u64, total);
        if load {
            // A lane out of bounds: the slow path below (uncommon) takes each lane.
            let fast = self.b.create_block();
            let slow = self.b.create_block();
            let join = self.b.create_block();
            let vt = vec_ty(size);
            let params: Vec<Value> = (0..size)
                .map(|_| self.b.append_block_param(join, vt))
                .collect();
            self.b.ins().brif(ok, fast, &[], slow, &[]);
            self.enter_sealed(fast);
            let vs: Vec<Value> = (0..size)
                .map(|j| self.b.ins().load(vt, app_flags(), p, (16 * j) as i32))
                .collect();
            let args: Vec<cranelift_codegen::ir::BlockArg> = vs
                .iter()
                .map(|&v| cranelift_codegen::ir::BlockArg::Value(v))
                .collect();
            self.b.ins().jump(join, &args);
            self.enter_sealed(slow);
            // Lane by lane in a loop: 16 unrolled lanes' addresses, which depend only on
            // `base`, would be hoisted out of the shader's loops and kept live (spilled) there.
            let results = self.edge_slot((LANES * size) as u32);
            let ty = scalar_ty(size);
            self.lane_loop(|g, lane| {
                let at = g.affine_lane_offset(base, abytes, size as u64, offset, lane);
                let (q, ok) = g.checked(ptr, len, at, size as u64);
                let x = g.b.ins().load(ty, app_flags(), q, 0);
                let z = g.b.ins().iconst(ty, 0);
                let x = g.b.ins().select(ok, x, z);
                let to = g.b.ins().imul_imm_s(lane, size as i64);
                let to = g.b.ins().iadd(results, to);
                g.b.ins().store(own_flags(), x, to, 0);
            });
            let vecs: Vec<Value> = (0..size)
                .map(|j| self.b.ins().load(vt, own_flags(), results, (16 * j) as i32))
                .collect();
            let args: Vec<cranelift_codegen::ir::BlockArg> = vecs
                .iter()
                .map(|&v| cranelift_codegen::ir::BlockArg::Value(v))
                .collect();
            self.b.ins().jump(join, &args);
            self.enter_sealed(join);
            return Some(params);
        }
        let values = values?;
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.enter_sealed(fast);
        for (j, &v) in values.iter().enumerate() {
            self.b.ins().store(app_flags(), v, p, (16 * j) as i32);
        }
        self.b.ins().jump(join, &[]);
        self.enter_sealed(slow);
        // Lane by lane in a loop, in lane order (see the load's slow path).
        let spilled = self.edge_slot((LANES * size) as u32);
        self.edge_spill(&JVal::Varying(values.to_vec()), size, spilled, 0);
        let ty = scalar_ty(size);
        self.lane_loop(|g, lane| {
            let at = g.affine_lane_offset(base, abytes, size as u64, offset, lane);
            let (q, _) = g.checked(ptr, len, at, size as u64);
            let from = g.b.ins().imul_imm_s(lane, size as i64);
            let from = g.b.ins().iadd(spilled, from);
            let x = g.b.ins().load(ty, own_flags(), from, 0);
            g.b.ins().store(app_flags(), x, q, 0);
        });
        self.b.ins().jump(join, &[]);
        self.enter_sealed(join);
        Some(Vec::new())
    }

    /// Stores lane by lane, in lane order, each checked (a lane out of bounds, or inactive
    /// under `self.mask`, stores into the scratch slot).
    pub(super) fn scatter(
        &mut self,
        ptr: Value,
        len: Value,
        a: &Option<(JVal, usize)>,
        offset: u64,
        size: usize,
        v: &JVal,
    ) {
        let masked = self.mask.as_ref().map(|m| m.lanes).map(|mask| {
            let scratch = self.scratch_addr();
            (mask, scratch)
        });
        for i in 0..LANES {
            let at = self.lane_offset(a, offset, i);
            let (mut p, _) = self.checked(ptr, len, at, size as u64);
            if let Some((mask, scratch)) = masked {
                let active = self.b.ins().extractlane(mask, i as u8);
                p = self.b.ins().select(active, p, scratch);
            }
            let x = self.lane(v, size, i);
            self.b.ins().store(app_flags(), x, p, 0);
        }
    }

    fn store(
        &mut self,
        space: Space,
        size: usize,
        value: Reg,
        addr: Option<Reg>,
        offset: u64,
    ) -> JitResult<bool> {
        if self.grouped_stores.remove(&self.at) {
            return Ok(true); // Stored with its group's first store.
        }
        if space == Space::Push {
            // Push constants are read-only: the interpreter drops such stores too.
            return Ok(true);
        }
        let Some((ptr, len)) = self.window(space) else {
            if space == Space::Physical {
                return self.physical_store(size, value, addr, offset);
            }
            return Ok(false);
        };
        let a = self.address(addr);
        let v = self.get(value);
        if self.mask.is_some() {
            // Under a divergent branch's mask: lane by lane in lane order (the last active
            // lane's value stays where lanes share an address).
            self.scatter(ptr, len, &a, offset, size, &v);
            return Ok(true);
        }
        let uniform = a.as_ref().is_none_or(|(x, _)| x.is_scalar());
        if uniform {
            // Every lane stores to the same place: the last lane's value stays.
            let at = self.lane_offset(&a, offset, 0);
            let (p, _) = self.checked(ptr, len, at, size as u64);
            let x = self.lane(&v, size, LANES - 1);
            self.b.ins().store(app_flags(), x, p, 0);
            return Ok(true);
        }
        if let Some((JVal::Affine(base, stride), abytes)) = &a
            && size == 4
            && (16..=1 << 20).contains(stride)
            && let Some(r) = addr
            && let Some(group) = self.vec4_store_group(space, r, offset)
        {
            let (base, stride, abytes) = (*base, *stride, *abytes);
            let comps = [
                v,
                self.get(group[0].1),
                self.get(group[1].1),
                self.get(group[2].1),
            ];
            self.vec4_store(ptr, len, base, abytes, stride, &a, offset, &comps);
            for (k, _) in group {
                self.grouped_stores.insert((self.at.0, k));
            }
            return Ok(true);
        }
        if let Some((JVal::Affine(base, s), abytes)) = &a
            && *s == size as u64
        {
            let vs = self.vectors(&v, size);
            let (base, abytes) = (*base, *abytes);
            self.contiguous(ptr, len, base, abytes, offset, size, false, Some(&vs));
            return Ok(true);
        }
        self.scatter(ptr, len, &a, offset, size, &v);
        Ok(true)
    }
}
