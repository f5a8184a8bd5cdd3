//! Tensor accesses in compiled code (`OpTensorReadARM`, `OpTensorWriteARM`, `OpTensorQuerySizeARM`):
//! each site's descriptor fields from the context, the affine view of an access whose coordinates
//! are uniform or affine (checked once per chunk), and the lane-by-lane path for the rest, with the
//! same bounds rules as `memory`'s buffer accesses (see its docs).

use super::Gen;
use super::memory::SITE;
use super::values::{JVal, app_flags, lane_flags, per_vec, scalar_ty, vec_ty};
use crate::classes::LANES;
use crate::ctx::field;
use crate::error::{JitError, JitResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, InstBuilder, Value};
use tessera_spirv::ScalarType;
use tessera_spirv::ir::{DescIdx, Reg, TensorAcc};

/// Whether compiled code addresses an access with these coordinates itself (the affine, lane
/// and edge paths): coordinates of at most 32 bits, as many as the tensor's rank, which the
/// site table holds.
pub(super) fn coords_fit(t: &TensorAcc, coords: &[Reg], cw: u8) -> bool {
    usize::from(cw / 8).max(1) <= 4
        && coords.len() == t.rank as usize
        && !coords.is_empty()
        && coords.len() <= crate::ctx::MAX_RANK
}

impl Gen<'_> {
    /// The site fields: (ptr, len, ok, rank, dims, strides).
    pub(super) fn site(&mut self, t: &TensorAcc) -> (Value, Value, Value, Value, Value, Value) {
        if let (DescIdx::Dyn(_), Some((at, [ptr, len, ok, rank, dims, strides]))) =
            (t.desc, self.dyn_site)
            && at == self.at
        {
            return (ptr, len, ok, rank, dims, strides);
        }
        let k = self.tensor_site(t) as i32;
        let ctx = self.ctx;
        let table = self.inv_load(I64, ctx, field!(tensors));
        let at = |g: &mut Self, o: i32, ty| g.inv_load(ty, table, k * SITE + o);
        (
            at(self, 0, I64),
            at(self, 8, I64),
            at(self, 16, I64),
            at(self, 24, I64),
            at(self, 32, I64),
            at(self, 40, I64),
        )
    }

    /// The affine view of a tensor access: every coordinate uniform or affine, every lane's
    /// whole run of `count` elements in bounds (checked, else a hand to the interpreter is
    /// needed: `None` from the check value). Returns (byte offset of lane 0's element 0, byte
    /// step between lanes, byte step between elements, in-bounds flag, lane 0's innermost
    /// coordinate as an `I64`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tensor_affine(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        count: usize,
        dims: Value,
        strides: Value,
        ok: Value,
    ) -> Option<(Value, Value, Value, Value, Value)> {
        if !coords_fit(t, coords, cw) {
            return None;
        }
        let values: Vec<JVal> = coords.iter().map(|&c| self.get(c)).collect();
        self.tensor_affine_of(&values, signed, cw, count, dims, strides, ok)
    }

    /// `tensor_affine` for coordinates with the values `coords` (which `coords_fit` admits).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tensor_affine_of(
        &mut self,
        coords: &[JVal],
        signed: bool,
        cw: u8,
        count: usize,
        dims: Value,
        strides: Value,
        ok: Value,
    ) -> Option<(Value, Value, Value, Value, Value)> {
        let cb = usize::from(cw / 8).max(1);
        let mut base = self.b.ins().iconst(I64, 0);
        let mut step = self.b.ins().iconst(I64, 0);
        // `ok` is 0 or 1 (the driver's `TensorSite`): usable as the flag itself.
        let mut inb = self.b.ins().ireduce(I8, ok);
        let last = coords.len() - 1;
        let mut elem_step = None;
        let mut innermost = None;
        for (k, c) in coords.iter().enumerate() {
            let (c0, s) = match *c {
                JVal::Const(v) => (self.iconst(scalar_ty(cb), v), 0i64),
                JVal::Uniform(x) => (self.fit(x, scalar_ty(cb)), 0),
                JVal::Affine(x, s) => {
                    let s = if signed {
                        tessera_spirv::alu::sext(s, cw)
                    } else {
                        s as i64
                    };
                    (self.fit(x, scalar_ty(cb)), s)
                }
                JVal::Varying(_) => return None,
            };
            // Exact lane-0 and lane-15 coordinates in 64 bits.
            let lo = if signed {
                self.b.ins().sextend(I64, c0)
            } else {
                self.b.ins().uextend(I64, c0)
            };
            let hi = self.b.ins().iadd_imm_s(lo, s * (LANES as i64 - 1));
            let extra = if k == last { count as i64 - 1 } else { 0 };
            // In bounds: `coords.len()` is the site's rank (`ok` says the view matches it).
            let dim = self.inv_load(I64, dims, (8 * k) as i32);
            let stride = self.inv_load(I64, strides, (8 * k) as i32);
            // Every lane's coordinate lies between the two ends (exact in 64 bits), the
            // smallest at lane 0 for a positive step: 0 <= smallest and largest + extra < dim
            // (as signed 64-bit: dims are below 2^40, which `ok` includes). A zero-extended
            // lane 0 is never negative.
            let (least, most) = if s < 0 { (hi, lo) } else { (lo, hi) };
            let xe = self.b.ins().iadd_imm_s(most, extra);
            // The largest coordinate must not wrap in the coordinate width either (lanes of an
            // 8-bit `x + i` pass 255 back to 0): `most <= max` folded into the bound, as
            // `most + extra < min(dim, max + 1 + extra)` (call-invariant, hoisted).
            let bits = 8 * cb as u32;
            let max = if signed {
                (1i64 << (bits - 1)) - 1
            } else {
                (1i64 << bits) - 1
            };
            let cap = self.b.ins().iconst(I64, max + 1 + extra);
            let mut dim = self.b.ins().smin(dim, cap);
            if k == last {
                // Everything decided so far (the site's flag, the other coordinates) folds into
                // the last coordinate's bound, which fails every coordinate when it is
                // `i64::MIN`: one value instead of two stays live where the others are
                // invariant (a uniform coordinate in a loop, like a dense layer's `x[k]`).
                let never = self.b.ins().iconst(I64, i64::MIN);
                dim = self.b.ins().select(inb, dim, never);
            }
            let below = self.b.ins().icmp(IntCC::SignedLessThan, xe, dim);
            let both = if signed || s < 0 {
                let nonneg = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, least, 0);
                self.b.ins().band(nonneg, below)
            } else {
                below
            };
            inb = if k == last {
                both
            } else {
                self.b.ins().band(inb, both)
            };
            let term = self.b.ins().imul(lo, stride);
            base = self.b.ins().iadd(base, term);
            if s != 0 {
                let t = self.b.ins().imul_imm_s(stride, s);
                step = self.b.ins().iadd(step, t);
            }
            if k == last {
                elem_step = Some(stride);
                innermost = Some(lo);
            }
        }
        Some((base, step, elem_step?, inb, innermost?))
    }

    /// The fast path of a tensor access at coordinates split from a flat index (`flat`), or
    /// else the row fast path of one whose innermost coordinate is affine with step
    /// `count` (lane `i` at `x0 + i·count`) and whose other coordinates are uniform: the 16
    /// lanes' `count` elements each lie back to back along one row. Returns (fast, address):
    /// `fast` says the whole run is in bounds, does not wrap in the coordinate width and is
    /// packed (innermost stride = element size), and `address` is its first byte then.
    ///
    /// All but one compare is call- or group-invariant (Cranelift hoists it): `fast` is
    /// `x0 < limit` (unsigned, so a negative signed `x0` fails), where `limit` is 0 unless the
    /// site is usable, the other coordinates are in bounds and the row packed, and then the
    /// smaller of `dim - (16·count - 1)` and the coordinate width's largest `x0` whose lane 15
    /// does not wrap. Only the limit and the row's start pointer stay live across a loop.
    pub(super) fn tensor_row(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        count: usize,
    ) -> Option<(Value, Value)> {
        if let Some(flat) = self.tensor_flat(t, coords, signed, cw, count) {
            return Some(flat);
        }
        let cb = usize::from(cw / 8).max(1);
        if cb > 4
            || coords.len() != t.rank as usize
            || coords.is_empty()
            || coords.len() > crate::ctx::MAX_RANK
        {
            return None;
        }
        let last = coords.len() - 1;
        let JVal::Affine(x0, s) = self.get(coords[last]) else {
            return None;
        };
        let s = if signed {
            tessera_spirv::alu::sext(s, cw)
        } else {
            s as i64
        };
        if s != count as i64 {
            return None;
        }
        let mut outer = Vec::with_capacity(last);
        for &c in &coords[..last] {
            outer.push(match self.get(c) {
                JVal::Const(v) => self.iconst(scalar_ty(cb), v),
                JVal::Uniform(x) => self.fit(x, scalar_ty(cb)),
                _ => return None,
            });
        }
        let widen = |g: &mut Self, x: Value| {
            if signed {
                g.b.ins().sextend(I64, x)
            } else {
                g.b.ins().uextend(I64, x)
            }
        };
        let size = t.elem.bytes();
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        // `ok` is 0 or 1 (the driver's `TensorSite`): usable as the flag itself.
        let mut usable = self.b.ins().ireduce(I8, ok);
        let mut start = ptr;
        for (k, c) in outer.into_iter().enumerate() {
            let c = widen(self, c);
            let dim = self.inv_load(I64, dims, (8 * k) as i32);
            let stride = self.inv_load(I64, strides, (8 * k) as i32);
            // Unsigned: a negative (sign-extended) coordinate is out of bounds too.
            let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, c, dim);
            usable = self.b.ins().band(usable, inb);
            let term = self.b.ins().imul(c, stride);
            start = self.b.ins().iadd(start, term);
        }
        let dim = self.inv_load(I64, dims, (8 * last) as i32);
        let stride = self.inv_load(I64, strides, (8 * last) as i32);
        let packed = self.b.ins().icmp_imm_s(IntCC::Equal, stride, size as i64);
        usable = self.b.ins().band(usable, packed);
        // The run's last element: x0 + 15·count + (count - 1). Lane 15's coordinate
        // x0 + 15·count must not wrap: x0 <= max - 15·count.
        let reach = (LANES * count - 1) as i64;
        let bits = 8 * cb as u32;
        let max = if signed {
            (1i64 << (bits - 1)) - 1
        } else {
            (1i64 << bits) - 1
        };
        let no_wrap = self.b.ins().iconst(I64, max - (LANES as i64 - 1) * s + 1);
        // dims are below 2^40 when `ok` (no overflow here); without `ok` the limit is 0.
        let room = self.b.ins().iadd_imm_s(dim, -reach);
        let limit = self.b.ins().smin(room, no_wrap);
        let zero = self.b.ins().iconst(I64, 0);
        let limit = self.b.ins().smax(limit, zero);
        let limit = self.b.ins().select(usable, limit, zero);
        let x0 = self.fit(x0, scalar_ty(cb));
        let x = widen(self, x0);
        let fast = self.b.ins().icmp(IntCC::UnsignedLessThan, x, limit);
        let offset = self.b.ins().imul_imm_s(x, size as i64);
        let address = self.b.ins().iadd(start, offset);
        Some((fast, address))
    }

    /// Whether a tensor access's lanes' runs of `count` elements lie back to back with their
    /// elements packed (`step` bytes between lanes, `estep` between elements of `size` bytes).
    pub(super) fn runs_packed(
        &mut self,
        step: Value,
        estep: Value,
        count: usize,
        size: usize,
    ) -> Value {
        let run = (count * size) as i64;
        let step_is_run = self.b.ins().icmp_imm_s(IntCC::Equal, step, run);
        let packed = self.b.ins().icmp_imm_s(IntCC::Equal, estep, size as i64);
        self.b.ins().band(step_is_run, packed)
    }

    /// A tensor read. A read along a row (`tensor_row`) takes one compare and the vector loads
    /// when the row is in bounds and packed, else the general path (`tensor_read_general`).
    pub(super) fn tensor_read_at(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        dsts: &[Reg],
    ) -> JitResult<bool> {
        if !self.tensor_read_elements(t, coords, signed, cw, dsts)? {
            return Ok(false);
        }
        if t.elem == ScalarType::Bool {
            // A bool element is true when its byte is not zero (bool registers hold 0 or 1).
            for &d in dsts {
                let v = match self.get(d) {
                    JVal::Uniform(x) => {
                        JVal::Uniform(self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0))
                    }
                    v => {
                        let zero = self.const_vec(1, 0, |_| 0);
                        let one = self.const_vec(1, 0, |_| 1);
                        let out = self
                            .vectors(&v, 1)
                            .into_iter()
                            .map(|x| {
                                let set = self.b.ins().icmp(IntCC::NotEqual, x, zero);
                                self.b.ins().band(set, one)
                            })
                            .collect();
                        JVal::Varying(out)
                    }
                };
                self.set(d, v)?;
            }
        }
        Ok(true)
    }

    /// A tensor read's raw elements, along a row (`tensor_row`) or by the general path.
    pub(super) fn tensor_read_elements(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        dsts: &[Reg],
    ) -> JitResult<bool> {
        let size = t.elem.bytes();
        let count = dsts.len();
        let Some((fast, addr)) = self.tensor_row(t, coords, signed, cw, count) else {
            return self.tensor_read_general(t, coords, signed, cw, dsts);
        };
        let vt = vec_ty(size);
        let join = self.b.create_block();
        let params: Vec<Vec<Value>> = (0..count)
            .map(|_| {
                (0..size)
                    .map(|_| self.b.append_block_param(join, vt))
                    .collect()
            })
            .collect();
        let row = self.b.create_block();
        let general = self.b.create_block();
        self.b.ins().brif(fast, row, &[], general, &[]);
        self.b.switch_to_block(row);
        self.packed_read(addr, count, size, join);
        self.b.switch_to_block(general);
        let cold = std::mem::replace(&mut self.cold_loads, true);
        let general_done = self.tensor_read_general(t, coords, signed, cw, dsts);
        self.cold_loads = cold;
        if !general_done? {
            return Err(JitError::Unexpected(
                "tensor read: a row access the general path does not take",
            ));
        }
        let mut args = Vec::new();
        for &d in dsts {
            let v = self.get(d);
            args.extend(
                self.vectors(&v, size)
                    .into_iter()
                    .map(cranelift_codegen::ir::BlockArg::Value),
            );
        }
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        for (d, vs) in dsts.iter().zip(params) {
            self.set(*d, JVal::Varying(vs))?;
        }
        Ok(true)
    }

    /// The general tensor read: a uniform element, packed runs, a tile or strided elements,
    /// every lane in bounds (else a hand to the interpreter).
    pub(super) fn tensor_read_general(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        dsts: &[Reg],
    ) -> JitResult<bool> {
        let size = t.elem.bytes();
        let (ptr, len, ok, _, dims, strides) = self.site(t);
        let Some((base, step, estep, inb, innermost)) =
            self.tensor_affine(t, coords, signed, cw, dsts.len(), dims, strides, ok)
        else {
            return self.tensor_read_lanes(t, coords, signed, cw, dsts);
        };
        let uniform = coords
            .iter()
            .all(|&c| self.classes[c as usize].is_uniform());
        let notinb = self.b.ins().bxor_imm_s(inb, 1);
        let ty = scalar_ty(size);
        let count = dsts.len();
        if uniform {
            // Every lane reads the same elements.
            if let Some(fallback) = self.uniform_oob(count, size) {
                // One element: out of bounds, every lane reads `oob` (or 0), loading the
                // scratch bytes instead; a view compiled code may not access (one short of
                // memory: its elements in the memory are still read) is the interpreter's.
                let not_ok = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
                self.hand_back_if(not_ok);
                let d = dsts[0];
                let p = self.b.ins().iadd(ptr, base);
                let scratch = self.scratch_addr();
                let p = self.b.ins().select(inb, p, scratch);
                let x = self.b.ins().load(ty, app_flags(), p, 0);
                let x = self.b.ins().select(inb, x, fallback);
                self.set(d, JVal::Uniform(x))?;
                return Ok(true);
            }
            // A run of elements (each checked on its own) or a varying `oob`: the
            // interpreter's path when out of bounds.
            self.hand_back_if(notinb);
            for (j, &d) in dsts.iter().enumerate() {
                let e = self.b.ins().imul_imm_s(estep, j as i64);
                let at = self.b.ins().iadd(base, e);
                // In bounds, so inside the window (`ok` includes the view's footprint).
                let p = self.b.ins().iadd(ptr, at);
                let x = self.b.ins().load(ty, app_flags(), p, 0);
                self.set(d, JVal::Uniform(x))?;
            }
            return Ok(true);
        }
        let join = self.b.create_block();
        let vt = vec_ty(size);
        let params: Vec<Vec<Value>> = (0..count)
            .map(|_| {
                (0..size)
                    .map(|_| self.b.append_block_param(join, vt))
                    .collect()
            })
            .collect();
        // Lanes not all in bounds: element by element (`edge`).
        self.edge_read_if(notinb, t, coords, signed, cw, count, join)?;
        // A strided read in a loop may find its elements in its tile (`tile`).
        let probe = self.tile_probe(base, estep, innermost, join);
        // Every lane's elements are in bounds, so inside the window (`ok` includes the view's
        // footprint): no window checks from here on.
        let p = self.b.ins().iadd(ptr, base);
        let fast_ok = self.runs_packed(step, estep, count, size);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.ins().brif(fast_ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.packed_read(p, count, size, join);
        // Strided (in bounds): lane i's element j at base + i·step + j·estep, one range check.
        self.b.switch_to_block(slow);
        if let Some(probe) = &probe {
            self.tile_fill(probe, ptr, len, step, estep);
        }
        let pv = per_vec(size);
        let mut outs: Vec<Vec<Value>> = Vec::new();
        let lane0 = self.b.ins().iadd(ptr, base);
        for j in 0..count {
            let mut vecs = Vec::new();
            let mut cur = None;
            let ej = self.b.ins().imul_imm_s(estep, j as i64);
            let mut addr = self.b.ins().iadd(lane0, ej);
            for i in 0..LANES {
                // A chain from lane 0's address (which varies): nothing here is call-invariant
                // for Cranelift to hoist (16 offsets `i·step` would stay live in registers, or
                // spilled, across every loop of the function).
                if i > 0 {
                    addr = self.b.ins().iadd(addr, step);
                }
                let x = self.b.ins().load(ty, app_flags(), addr, 0);
                cur = Some(match cur {
                    None => self.b.ins().splat(vt, x),
                    Some(c) => self.b.ins().insertlane(c, x, (i % pv) as u8),
                });
                if i % pv == pv - 1 {
                    vecs.extend(cur.take());
                }
            }
            outs.push(vecs);
        }
        let args: Vec<cranelift_codegen::ir::BlockArg> = outs
            .iter()
            .flatten()
            .map(|&v| cranelift_codegen::ir::BlockArg::Value(v))
            .collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        for (d, vs) in dsts.iter().zip(params) {
            self.set(*d, JVal::Varying(vs))?;
        }
        Ok(true)
    }

    /// What a uniform read of one element gives out of bounds, the same for every lane: the
    /// read's `oob` operand when it is uniform (or 0 without one); `None` for a run of several
    /// elements or a varying `oob`.
    fn uniform_oob(&mut self, count: usize, size: usize) -> Option<Value> {
        if count != 1 {
            return None;
        }
        let ty = scalar_ty(size);
        match self.tensor_oob {
            None => Some(self.b.ins().iconst(ty, 0)),
            Some(r) if self.bytes(r) == size => match self.get(r) {
                JVal::Const(c) => Some(self.iconst(ty, c)),
                JVal::Uniform(x) => Some(self.fit(x, ty)),
                _ => None,
            },
            Some(_) => None,
        }
    }

    /// Loads the 16 lanes' packed runs of `count` elements of `size` bytes from `p` (every byte
    /// in bounds) and jumps to `join` with one vector set per element.
    pub(super) fn packed_read(&mut self, p: Value, count: usize, size: usize, join: Block) {
        let vt = vec_ty(size);
        let raw: Vec<Value> = (0..count * size)
            .map(|j| self.b.ins().load(vt, app_flags(), p, (16 * j) as i32))
            .collect();
        let per = self.deinterleave(&raw, count, size);
        let args: Vec<cranelift_codegen::ir::BlockArg> = per
            .iter()
            .flatten()
            .map(|&v| cranelift_codegen::ir::BlockArg::Value(v))
            .collect();
        self.b.ins().jump(join, &args);
    }

    /// Stores `vals` (one per element) as the 16 lanes' packed runs at `p` (every byte in
    /// bounds).
    pub(super) fn packed_write(&mut self, p: Value, vals: &[JVal], size: usize) {
        let per: Vec<Vec<Value>> = vals.iter().map(|v| self.vectors(v, size)).collect();
        let raw = self.interleave(&per, size);
        for (k, &v) in raw.iter().enumerate() {
            self.b.ins().store(app_flags(), v, p, (16 * k) as i32);
        }
    }

    /// `count` interleaved element streams (lane-major: lane 0's elements, then lane 1's, …) of
    /// `size`-byte elements split into one 16-lane vector set per element.
    pub(super) fn deinterleave(
        &mut self,
        raw: &[Value],
        count: usize,
        size: usize,
    ) -> Vec<Vec<Value>> {
        if count == 1 {
            return vec![raw.to_vec()];
        }
        // Byte-level gather: output element j, lane i comes from byte (i·count + j)·size.
        let bytes: Vec<Value> = raw
            .iter()
            .map(|&v| self.b.ins().bitcast(I8X16, lane_flags(), v))
            .collect();
        let mut out = Vec::with_capacity(count);
        for j in 0..count {
            let mut vecs = Vec::with_capacity(size);
            for v in 0..size {
                // Output vector v of element j holds lanes v·16/size .. (v+1)·16/size.
                let pv = per_vec(size);
                let mut acc: Option<Value> = None;
                for (src, src_vec) in bytes.iter().enumerate() {
                    // Indices into this source vector, or 0x80 (zero) elsewhere.
                    let mut mask = [0x80u8; 16];
                    let mut any = false;
                    for k in 0..pv {
                        let lane = v * pv + k;
                        let byte0 = (lane * count + j) * size;
                        for b in 0..size {
                            let byte = byte0 + b;
                            if byte / 16 == src {
                                mask[k * size + b] = (byte % 16) as u8;
                                any = true;
                            }
                        }
                    }
                    if !any {
                        continue;
                    }
                    acc = Some(self.swizzle_or(acc, *src_vec, mask));
                }
                let acc = acc.unwrap_or_else(|| self.const_vec(1, 0, |_| 0));
                vecs.push(self.b.ins().bitcast(vec_ty(size), lane_flags(), acc));
            }
            out.push(vecs);
        }
        out
    }

    /// `acc | swizzle(src, mask)` (`acc` absent: the swizzle alone); mask bytes of 0x80 give 0.
    pub(super) fn swizzle_or(&mut self, acc: Option<Value>, src: Value, mask: [u8; 16]) -> Value {
        let c = self.b.func.dfg.constants.insert(mask.to_vec().into());
        let m = self.b.ins().vconst(I8X16, c);
        let part = self.b.ins().swizzle(src, m);
        match acc {
            None => part,
            Some(a) => self.b.ins().bor(a, part),
        }
    }

    /// The inverse of [`Self::deinterleave`].
    pub(super) fn interleave(&mut self, per: &[Vec<Value>], size: usize) -> Vec<Value> {
        let count = per.len();
        if count == 1 {
            return per[0].clone();
        }
        let bytes: Vec<Vec<Value>> = per
            .iter()
            .map(|vs| {
                vs.iter()
                    .map(|&v| self.b.ins().bitcast(I8X16, lane_flags(), v))
                    .collect()
            })
            .collect();
        let pv = per_vec(size);
        let mut out = Vec::new();
        for dst in 0..count * size {
            let mut acc: Option<Value> = None;
            for (j, vs) in bytes.iter().enumerate() {
                for (v, src_vec) in vs.iter().enumerate() {
                    let mut mask = [0x80u8; 16];
                    let mut any = false;
                    for k in 0..pv {
                        let lane = v * pv + k;
                        let byte0 = (lane * count + j) * size;
                        for b in 0..size {
                            let byte = byte0 + b;
                            if byte / 16 == dst {
                                mask[byte % 16] = (k * size + b) as u8;
                                any = true;
                            }
                        }
                    }
                    if !any {
                        continue;
                    }
                    acc = Some(self.swizzle_or(acc, *src_vec, mask));
                }
            }
            let acc = acc.unwrap_or_else(|| self.const_vec(1, 0, |_| 0));
            out.push(acc);
        }
        out
    }

    /// A tensor write, along a row (`tensor_row`) or by the general path.
    pub(super) fn tensor_write_at(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
    ) -> JitResult<bool> {
        if let Some(active) = self.mask.as_ref().map(|m| m.lanes) {
            // Under a mask, lane by lane (`edge`), the inactive lanes' elements dropped.
            if !self.edge_write(t, coords, signed, cw, values, Some(active))? {
                return Err(JitError::Unexpected(
                    "a masked tensor write the edge path refuses",
                ));
            }
            return Ok(true);
        }
        // Bool registers hold 0 or 1, the bytes a bool element stores.
        let size = t.elem.bytes();
        let Some((fast, addr)) = self.tensor_row(t, coords, signed, cw, values.len()) else {
            return self.tensor_write_general(t, coords, signed, cw, values);
        };
        let join = self.b.create_block();
        let row = self.b.create_block();
        let general = self.b.create_block();
        self.b.ins().brif(fast, row, &[], general, &[]);
        self.b.switch_to_block(row);
        let vals: Vec<JVal> = values.iter().map(|&v| self.get(v)).collect();
        self.packed_write(addr, &vals, size);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(general);
        let cold = std::mem::replace(&mut self.cold_loads, true);
        let general_done = self.tensor_write_general(t, coords, signed, cw, values);
        self.cold_loads = cold;
        if !general_done? {
            return Err(JitError::Unexpected(
                "tensor write: a row access the general path does not take",
            ));
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(true)
    }

    /// The general tensor write: as `tensor_read_general`, element-major then lane order.
    pub(super) fn tensor_write_general(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
    ) -> JitResult<bool> {
        let size = t.elem.bytes();
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        let Some((base, step, estep, inb, _)) =
            self.tensor_affine(t, coords, signed, cw, values.len(), dims, strides, ok)
        else {
            return self.tensor_write_lanes(t, coords, signed, cw, values);
        };
        // Lanes not all in bounds: element by element (`edge`).
        let join = self.b.create_block();
        let notinb = self.b.ins().bxor_imm_s(inb, 1);
        self.edge_write_if(notinb, t, coords, signed, cw, values, join)?;
        let uniform = coords
            .iter()
            .all(|&c| self.classes[c as usize].is_uniform());
        let vals: Vec<JVal> = values.iter().map(|&v| self.get(v)).collect();
        let count = values.len();
        if uniform {
            // Every lane writes the same elements: the last lane's values stay.
            for (j, v) in vals.iter().enumerate() {
                let e = self.b.ins().imul_imm_s(estep, j as i64);
                let at = self.b.ins().iadd(base, e);
                // In bounds, so inside the window (`ok` includes the view's footprint).
                let p = self.b.ins().iadd(ptr, at);
                let x = self.lane(v, size, LANES - 1);
                self.b.ins().store(app_flags(), x, p, 0);
            }
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            return Ok(true);
        }
        // Every lane's elements are in bounds, so inside the window (`ok` includes the view's
        // footprint): no window checks from here on.
        let p = self.b.ins().iadd(ptr, base);
        let fast_ok = self.runs_packed(step, estep, count, size);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.ins().brif(fast_ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.packed_write(p, &vals, size);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        // Element-major, then lane order: as the interpreter writes.
        let lane0 = self.b.ins().iadd(ptr, base);
        for (j, v) in vals.iter().enumerate() {
            let ej = self.b.ins().imul_imm_s(estep, j as i64);
            let mut addr = self.b.ins().iadd(lane0, ej);
            for i in 0..LANES {
                // A chain from lane 0's address, as in `tensor_read`.
                if i > 0 {
                    addr = self.b.ins().iadd(addr, step);
                }
                let x = self.lane(v, size, i);
                self.b.ins().store(app_flags(), x, addr, 0);
            }
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(true)
    }

    pub(super) fn tensor_query_at(
        &mut self,
        t: &TensorAcc,
        dim: Reg,
        width: u8,
        dst: Reg,
    ) -> JitResult<bool> {
        let d = self.get(dim);
        let db = self.bytes(dim);
        let out_ty = scalar_ty(tessera_spirv::alu::width_bytes(width));
        if let JVal::Const(index) = d
            && index < crate::ctx::MAX_RANK as u64
            && let DescIdx::Const(_) = t.desc
        {
            // The site's dims are zero-padded to MAX_RANK: a constant dimension index is one
            // load in the entry block, hoisted out of every chunk loop.
            let k = self.tensor_site(t) as i32;
            let ctx = self.ctx;
            let table = self.inv_load(I64, ctx, field!(tensors));
            let dims = self.inv_load(I64, table, k * SITE + 32);
            let v = self.inv_load(I64, dims, (8 * index) as i32);
            let out = self.fit(v, out_ty);
            self.set(dst, JVal::Uniform(out))?;
            return Ok(true);
        }
        let Some(k) = self.scalar(&d, db) else {
            return Ok(false);
        };
        let (_, _, _, rank, dims, _) = self.site(t);
        let k64 = self.fit(k, I64);
        let inr = self.b.ins().icmp(IntCC::UnsignedLessThan, k64, rank);
        let off = self.b.ins().imul_imm_s(k64, 8);
        let at = self.b.ins().iadd(dims, off);
        let scratch = self.scratch_addr();
        let p = self.b.ins().select(inr, at, scratch);
        let v = self.b.ins().load(I64, app_flags(), p, 0);
        let z = self.b.ins().iconst(I64, 0);
        let v = self.b.ins().select(inr, v, z);
        let out = self.fit(v, out_ty);
        self.set(dst, JVal::Uniform(out))?;
        Ok(true)
    }
}
