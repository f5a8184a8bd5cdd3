//! `PhysicalStorageBuffer` loads and stores in compiled code. A device address becomes a host
//! address through `ctx::physical` (the dispatch's allocation table); an address no live
//! allocation holds reads 0 and drops the write, as in the interpreter.
//!
//! `ctx::physical` leaves the allocation it found in `Ctx::physical_cache`, and each access site
//! copies it into its own slot (`Ctx::physical_sites`); compiled code checks a range against
//! its site's window first and calls only when it misses, so sites that read and write
//! different buffers do not evict each other.
//!
//! A uniform address resolves once. A varying one resolves once per chunk too: the span from
//! the lowest to the highest lane address (plus the access size) is checked against the table
//! in one call, and when one allocation holds it all, each lane's host address is the span's
//! plus the lane's distance from the lowest lane (contiguous lanes load and store as vectors,
//! lanes at an affine address with a fixed stride at immediate offsets).
//! Only a chunk whose lanes straddle allocations (or miss them) resolves lane by lane. Packed
//! `vec4<i8>`s at addresses that vary in no affine way go through `quads` (dense or shared rows
//! checked four lanes at a time inside the span).

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::ir::Reg;

use super::Gen;
use super::values::{JVal, app_flags, per_vec, scalar_ty, vec_ty};
use crate::classes::LANES;
use crate::ctx::field;

/// Where a chunk's lanes are: their device addresses, and the span that holds them.
pub(super) struct Span {
    /// Each lane's device address (`I64`).
    pub(super) lanes: Vec<Value>,
    /// The lowest lane address.
    low: Value,
    /// Whether lane `i` is at `low + i·size` (an affine address of stride = access size).
    contiguous: bool,
    /// The stride when lane `i` is at `low + i·stride` (an affine address of a small
    /// non-negative stride): its accesses take immediate offsets from the span's address.
    stride: Option<u64>,
}

impl Gen<'_> {
    /// The host address of `len` bytes (`I64`) at device address `at` (`I64`) through
    /// `ctx::physical`, or the context's scratch bytes when no live allocation holds them; and
    /// whether one did.
    pub(super) fn physical_range(&mut self, at: Value, len: Value) -> (Value, Value) {
        let slot = self.physical_site % crate::ctx::PHYSICAL_SITES;
        self.physical_site += 1;
        self.physical_range_in(slot, at, len)
    }

    /// `physical_range` through site slot `slot` (lookups of one access that likely hit the
    /// same allocation share one).
    pub(super) fn physical_range_in(
        &mut self,
        slot: usize,
        at: Value,
        len: Value,
    ) -> (Value, Value) {
        // The allocation this site found last (`Ctx::physical_sites`) first: when it holds the
        // range, no call.
        let cache = field!(physical_sites) + (slot * 24) as i32;
        let base = self.ctx_load(I64, cache);
        let size = self.ctx_load(I64, cache + 8);
        let host = self.ctx_load(I64, cache + 16);
        let offset = self.b.ins().isub(at, base);
        let inside = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, offset, size);
        let room = self.b.ins().isub(size, offset);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, len, room);
        let hit = self.b.ins().band(inside, fits);
        let join = self.b.create_block();
        let p = self.b.append_block_param(join, I64);
        let (cached, lookup) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(hit, cached, &[], lookup, &[]);
        self.enter_sealed(cached);
        let q = self.b.ins().iadd(host, offset);
        self.b.ins().jump(join, &[BlockArg::Value(q)]);
        self.enter_sealed(lookup);
        let f = self.ctx_load(I64, field!(physical_fn));
        let call = self
            .b
            .ins()
            .call_indirect(self.sigs.physical, f, &[self.ctx, at, len]);
        let q = self.b.inst_results(call)[0];
        // The site keeps what the lookup found (unchanged when it found nothing).
        for k in 0..3 {
            let x = self.ctx_load(I64, field!(physical_cache) + 8 * k);
            self.ctx_store(x, cache + 8 * k);
        }
        self.b.ins().jump(join, &[BlockArg::Value(q)]);
        self.enter_sealed(join);
        let ok = self.b.ins().icmp_imm_s(IntCC::NotEqual, p, 0);
        let scratch = self.scratch_addr();
        (self.b.ins().select(ok, p, scratch), ok)
    }

    pub(super) fn physical_address(&mut self, at: Value, size: usize) -> (Value, Value) {
        let n = self.b.ins().iconst(I64, size as i64);
        self.physical_range(at, n)
    }

    /// The chunk's lane addresses and their span; the span's host address and whether one
    /// allocation holds it.
    pub(super) fn physical_span(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
        size: usize,
    ) -> (Span, Value, Value) {
        let lanes: Vec<Value> = (0..LANES).map(|i| self.lane_offset(a, offset, i)).collect();
        let stride = match a {
            Some((JVal::Affine(_, stride), _)) if *stride <= 1 << 20 => Some(*stride),
            _ => None,
        };
        let contiguous = stride == Some(size as u64);
        let (low, len) = if let Some(stride) = stride {
            let len = (LANES as u64 - 1) * stride + size as u64;
            (lanes[0], self.b.ins().iconst(I64, len as i64))
        } else {
            let (mut low, mut high) = (lanes[0], lanes[0]);
            for &x in &lanes[1..] {
                low = self.b.ins().umin(low, x);
                high = self.b.ins().umax(high, x);
            }
            // A span past the address space's end wraps and fails the lookup.
            let d = self.b.ins().isub(high, low);
            (low, self.b.ins().iadd_imm_s(d, size as i64))
        };
        let (p, ok) = self.physical_range(low, len);
        (
            Span {
                lanes,
                low,
                contiguous,
                stride,
            },
            p,
            ok,
        )
    }

    /// A `PhysicalStorageBuffer` load (see the module docs).
    pub(super) fn physical_load(
        &mut self,
        size: usize,
        dst: Reg,
        addr: Option<Reg>,
        offset: u64,
    ) -> JitResult<bool> {
        let a = self.address(addr);
        let ty = scalar_ty(size);
        if a.as_ref().is_none_or(|(v, _)| v.is_scalar()) {
            let at = self.lane_offset(&a, offset, 0);
            let (p, ok) = self.physical_address(at, size);
            let x = self.b.ins().load(ty, app_flags(), p, 0);
            let z = self.b.ins().iconst(ty, 0);
            let x = self.b.ins().select(ok, x, z);
            self.set(dst, JVal::Uniform(x))?;
            return Ok(true);
        }
        if let (Some((JVal::Affine(_, stride), _)), Some(r)) = (&a, addr)
            && size == 4
            && (16..=1 << 20).contains(stride)
            && let Some(group) =
                self.load_group(tessera_spirv::ir::Space::Physical, r, offset, dst, 4)
        {
            let stride = *stride;
            let [first, rest @ ..] = self.physical_vec4_load(&a, offset, stride);
            for ((k, _), comp) in group.iter().zip(rest) {
                self.grouped_loads.insert((self.at.0, *k), comp);
            }
            self.set(dst, JVal::Varying(first))?;
            return Ok(true);
        }
        // A `vec4` or a packed `vec4<i8>` per lane at addresses that vary in no affine way
        // (`quads`). (Single words stay with the span: the quad checks cost more than they save
        // when a chunk's lanes are neither dense nor shared, as IREE's attention and add rows
        // through device addresses are.)
        if let Some(r) = addr
            && size == 4
            && let Some(group) =
                self.load_group(tessera_spirv::ir::Space::Physical, r, offset, dst, 4)
            && let Some([first, rest @ ..]) = self.physical_vec4(&a, offset)
        {
            for ((k, _), comp) in group.iter().zip(rest) {
                self.grouped_loads.insert((self.at.0, *k), comp);
            }
            self.set(dst, JVal::Varying(first))?;
            return Ok(true);
        }
        if let Some(r) = addr
            && size == 1
            && let Some(group) =
                self.load_group(tessera_spirv::ir::Space::Physical, r, offset, dst, 1)
            && let Some(words) = self.physical_words(&a, offset)
        {
            let [first, rest @ ..] = self.split_words(&words);
            for ((k, _), byte) in group.iter().zip(rest) {
                self.grouped_loads.insert((self.at.0, *k), vec![byte]);
            }
            self.set(dst, JVal::Varying(vec![first]))?;
            return Ok(true);
        }
        let (span, p, ok) = self.physical_span(&a, offset, size);
        let vt = vec_ty(size);
        let join = self.b.create_block();
        let params: Vec<Value> = (0..size)
            .map(|_| self.b.append_block_param(join, vt))
            .collect();
        let (fast, slow) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.enter_sealed(fast);
        let vecs: Vec<Value> = if span.contiguous {
            (0..size)
                .map(|j| self.b.ins().load(vt, app_flags(), p, (16 * j) as i32))
                .collect()
        } else if let Some(stride) = span.stride {
            self.lanes_to_vectors(size, |g, i| {
                g.b.ins()
                    .load(ty, app_flags(), p, (i as u64 * stride) as i32)
            })
        } else {
            let hosts: Vec<Value> = span
                .lanes
                .iter()
                .map(|&x| {
                    let d = self.b.ins().isub(x, span.low);
                    self.b.ins().iadd(p, d)
                })
                .collect();
            self.lanes_to_vectors(size, |g, i| g.b.ins().load(ty, app_flags(), hosts[i], 0))
        };
        let args: Vec<BlockArg> = vecs.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);

        self.enter_sealed(slow);
        let vecs = self.lanes_to_vectors(size, |g, i| {
            let (q, lane_ok) = g.physical_address(span.lanes[i], size);
            let x = g.b.ins().load(ty, app_flags(), q, 0);
            let z = g.b.ins().iconst(ty, 0);
            g.b.ins().select(lane_ok, x, z)
        });
        let args: Vec<BlockArg> = vecs.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);

        self.enter_sealed(join);
        self.set(dst, JVal::Varying(params))?;
        Ok(true)
    }

    /// The `size`-byte lanes `lane(i)` gives, as vectors.
    pub(super) fn lanes_to_vectors(
        &mut self,
        size: usize,
        mut lane: impl FnMut(&mut Self, usize) -> Value,
    ) -> Vec<Value> {
        let pv = per_vec(size);
        let mut vecs = Vec::with_capacity(size);
        let mut cur = None;
        for i in 0..LANES {
            let x = lane(self, i);
            cur = Some(match cur {
                None => self.b.ins().splat(vec_ty(size), x),
                Some(c) => self.b.ins().insertlane(c, x, (i % pv) as u8),
            });
            if i % pv == pv - 1 {
                vecs.extend(cur.take());
            }
        }
        vecs
    }

    /// A `PhysicalStorageBuffer` store, lane by lane in lane order (an inactive lane under
    /// `self.mask` stores into the scratch bytes), or as vectors when the lanes are contiguous,
    /// all active and in one allocation.
    pub(super) fn physical_store(
        &mut self,
        size: usize,
        value: Reg,
        addr: Option<Reg>,
        offset: u64,
    ) -> JitResult<bool> {
        let a = self.address(addr);
        let v = self.get(value);
        let scratch = self.scratch_addr();
        let masked = self.mask.as_ref().map(|m| m.lanes);
        let store_lanes = |g: &mut Self, hosts: &dyn Fn(&mut Self, usize) -> Value| {
            for i in 0..LANES {
                let mut p = hosts(g, i);
                if let Some(mask) = masked {
                    let active = g.b.ins().extractlane(mask, i as u8);
                    p = g.b.ins().select(active, p, scratch);
                }
                let x = g.lane(&v, size, i);
                g.b.ins().store(app_flags(), x, p, 0);
            }
        };
        if a.as_ref().is_none_or(|(x, _)| x.is_scalar()) {
            let at = self.lane_offset(&a, offset, 0);
            let (p, _) = self.physical_address(at, size);
            store_lanes(self, &|_, _| p);
            return Ok(true);
        }
        if let (Some((JVal::Affine(_, stride), _)), Some(r), None) = (&a, addr, masked)
            && size == 4
            && (16..=1 << 20).contains(stride)
            && let Some(group) =
                self.vec4_store_group(tessera_spirv::ir::Space::Physical, r, offset)
        {
            let stride = *stride;
            let comps = [
                v.clone(),
                self.get(group[0].1),
                self.get(group[1].1),
                self.get(group[2].1),
            ];
            self.physical_vec4_store(&a, offset, stride, &comps);
            for (k, _) in group {
                self.grouped_stores.insert((self.at.0, k));
            }
            return Ok(true);
        }
        let (span, p, ok) = self.physical_span(&a, offset, size);
        let join = self.b.create_block();
        let (fast, slow) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);

        self.enter_sealed(fast);
        if span.contiguous && masked.is_none() {
            for (j, x) in self.vectors(&v, size).into_iter().enumerate() {
                self.b.ins().store(app_flags(), x, p, (16 * j) as i32);
            }
        } else if let Some(stride) = span.stride {
            store_lanes(self, &|g, i| {
                g.b.ins().iadd_imm_s(p, (i as u64 * stride) as i64)
            });
        } else {
            let (lanes, low) = (span.lanes.clone(), span.low);
            store_lanes(self, &|g, i| {
                let d = g.b.ins().isub(lanes[i], low);
                g.b.ins().iadd(p, d)
            });
        }
        self.b.ins().jump(join, &[]);

        self.enter_sealed(slow);
        let lanes = span.lanes;
        store_lanes(self, &|g, i| g.physical_address(lanes[i], size).0);
        self.b.ins().jump(join, &[]);

        self.enter_sealed(join);
        Ok(true)
    }
}
