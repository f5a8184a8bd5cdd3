//! Tensor accesses with some lanes out of bounds (the edges of a tensor that a dispatch's
//! chunks run past), lane by lane in compiled code rather than by the interpreter: each lane's
//! coordinates are checked on their own and each element of its run against the innermost
//! dimension, as the interpreter does (`tessera_spirv`'s `exec::tensor`). An element out of
//! bounds reads the op's `oob` operand (or 0); a write of one is dropped.
//!
//! The fast paths (`tensor`, `gather`) check the whole chunk at once and branch here when a
//! lane is out; a run of several elements at coordinates uniform across the chunk with some
//! out of bounds still hands the chunk back, and so does an access this path does not take
//! (64-bit coordinates, an `oob` operand of another width than the element). Under a mask (a
//! masked region or loop), every tensor write takes this path, its inactive lanes' elements
//! counted out of bounds ([`maskable_tensor_write`] says which writes can), and masked loops
//! keep none. Masked regions and loops check their tensor accesses' views before they start
//! ([`Gen::check_tensor_views`]), so that they never hand back for a view after a store.
//!
//! The path is a loop over the chunk's 16 lanes in generated code, its operands (coordinates,
//! values, the mask, a varying `oob`) spilled to stack slots first, so its size does not grow
//! with the lanes (a rank-8 access is a few dozen instructions); a write runs one loop per
//! element of its run, so elements are written element-major, then in lane order, as the
//! interpreter writes them.
//!
//! Invariants: the path runs only when the site's view is one compiled code may access (`ok`:
//! it matches the access and its whole footprint lies inside the window; else the chunk goes
//! to the interpreter, which also checks each element against the memory); an element is
//! loaded or stored only when every coordinate of its lane lies inside its dimension and its
//! innermost coordinate plus its index in the run lies below the innermost dimension, so it
//! lies inside the window. Every other lane's access goes to the context's scratch bytes, and
//! a read's value there is replaced by `oob`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value};
use tessera_spirv::ir::{DescIdx, Op, Reg, TensorAcc};

use super::Gen;
use super::tensor::coords_fit;
use super::values::{JVal, app_flags, own_flags, scalar_ty, vec_ty};
use crate::error::JitResult;

/// Bytes a coordinate's or a value's lanes take in the spill slots (16 lanes of at most 8).
const ROW: u32 = 16 * 8;

/// What an edge loop does with each lane: read `count` elements into a slot, or write element
/// `element` of the lane's `values` (spilled to a slot).
#[derive(Clone, Copy)]
enum Work {
    Read { count: usize, results: Value },
    Write { element: usize, values: Value },
}

/// The fields and spilled operands an edge loop reads.
struct EdgeSite {
    ptr: Value,
    /// The site's view is one compiled code may access (`I8`; see `driver::tensor_site`).
    ok: Value,
    dims: Vec<Value>,
    strides: Vec<Value>,
    /// Where the coordinates' lanes lie (coordinate `k` at `k·ROW`, its register's width
    /// apart) and that width.
    coords: Value,
    widths: Vec<usize>,
    /// The active lanes' flags (a byte each), under a mask.
    active: Option<Value>,
    /// What an out-of-bounds element reads: one value, or each lane's in a slot.
    oob: Oob,
    scratch: Value,
}

#[derive(Clone, Copy)]
enum Oob {
    Same(Value),
    Lanes(Value),
}

impl Gen<'_> {
    /// A stack slot of `bytes`, 16-byte aligned, and its address.
    pub(super) fn edge_slot(&mut self, bytes: u32) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes.max(16),
            4,
        ));
        self.b.ins().stack_addr(I64, slot, 0)
    }

    /// Spills `v`'s 16 lanes of `bytes` bytes to `at + offset`, in lane order.
    pub(super) fn edge_spill(&mut self, v: &JVal, bytes: usize, at: Value, offset: i32) {
        for (m, x) in self.vectors(v, bytes).into_iter().enumerate() {
            self.b
                .ins()
                .store(own_flags(), x, at, offset + (16 * m) as i32);
        }
    }

    /// The site and operands of an edge access, spilled where the loop reads them; `None` for
    /// an access this path does not take.
    #[allow(clippy::too_many_arguments)]
    fn edge_site(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        cw: u8,
        active: Option<Value>,
        read: bool,
    ) -> Option<EdgeSite> {
        let size = t.elem.bytes();
        if !coords_fit(t, coords, cw)
            || (read && self.tensor_oob.is_some_and(|r| self.bytes(r) != size))
        {
            return None;
        }
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        let ok = self.b.ins().ireduce(I8, ok);
        let rank = coords.len();
        let dims: Vec<Value> = (0..rank)
            .map(|k| self.inv_load(I64, dims, (8 * k) as i32))
            .collect();
        let strides: Vec<Value> = (0..rank)
            .map(|k| self.inv_load(I64, strides, (8 * k) as i32))
            .collect();
        let slot = self.edge_slot(ROW * rank as u32);
        let mut widths = Vec::with_capacity(rank);
        for (k, &c) in coords.iter().enumerate() {
            let (v, bytes) = (self.get(c), self.bytes(c));
            self.edge_spill(&v, bytes, slot, (ROW as usize * k) as i32);
            widths.push(bytes);
        }
        let active = active.map(|lanes| {
            let at = self.edge_slot(16);
            self.b.ins().store(own_flags(), lanes, at, 0);
            at
        });
        let ty = scalar_ty(size);
        let oob = match self.tensor_oob.filter(|_| read).map(|r| self.get(r)) {
            None => Oob::Same(self.b.ins().iconst(ty, 0)),
            Some(JVal::Const(c)) => Oob::Same(self.iconst(ty, c)),
            Some(JVal::Uniform(x)) => Oob::Same(self.fit(x, ty)),
            Some(v) => {
                let at = self.edge_slot(ROW);
                self.edge_spill(&v, size, at, 0);
                Oob::Lanes(at)
            }
        };
        let scratch = self.scratch_addr();
        Some(EdgeSite {
            ptr,
            ok,
            dims,
            strides,
            coords: slot,
            widths,
            active,
            oob,
            scratch,
        })
    }

    /// Hands the chunk back, at the current op, unless every tensor access of `blocks` at a
    /// descriptor known at compile time has a view compiled code may access (`ok`): masked
    /// code (a region or loop starting here) may then take the edge path without handing back
    /// for a view after it has stored something. (`ok` is the same for the whole call.)
    pub(super) fn check_tensor_views(&mut self, blocks: &[usize]) {
        let ir = self.ir;
        for &b in blocks {
            for op in &ir.blocks[b].ops {
                let (Op::TensorRead { tensor, .. } | Op::TensorWrite { tensor, .. }) = op else {
                    continue;
                };
                if matches!(tensor.desc, DescIdx::Const(_)) {
                    let (_, _, ok, ..) = self.site(tensor);
                    let not_ok = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
                    self.hand_back_if(not_ok);
                }
            }
        }
    }

    /// Hands the chunk back unless the site's view is one compiled code may access (`ok`): a
    /// view that does not match the access, or whose memory ends before its footprint, is the
    /// interpreter's, which checks each element against the memory too.
    fn edge_needs_view(&mut self, site: &EdgeSite) {
        let not_ok = self.b.ins().bxor_imm_s(site.ok, 1);
        self.hand_back_if(not_ok);
    }

    /// A loop over the 16 lanes doing `work` for each (see the module docs for the checks), in
    /// the current block, which continues after it.
    fn edge_loop(&mut self, t: &TensorAcc, signed: bool, cw: u8, site: &EdgeSite, work: Work) {
        let cb = usize::from(cw / 8).max(1);
        let size = t.elem.bytes();
        let ty = scalar_ty(size);
        let last = site.dims.len() - 1;
        self.lane_loop(|g, lane| {
            let zero = g.b.ins().iconst(I64, 0);
            let mut inside = site.ok;
            let mut offset = zero;
            let mut inner = zero;
            for (k, &bytes) in site.widths.iter().enumerate() {
                // The coordinate is the low `cw` bits of the register's lane.
                let at = g.b.ins().imul_imm_s(lane, bytes as i64);
                let at = g.b.ins().iadd(site.coords, at);
                let x =
                    g.b.ins()
                        .load(scalar_ty(bytes), own_flags(), at, (ROW as usize * k) as i32);
                let x = g.fit(x, scalar_ty(cb));
                let x = if signed {
                    g.b.ins().sextend(I64, x)
                } else {
                    g.b.ins().uextend(I64, x)
                };
                // Dimensions are below 2^40 and x within ±2^32: signed compares are exact.
                if signed {
                    let nonneg = g.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x, 0);
                    inside = g.b.ins().band(inside, nonneg);
                }
                if k == last {
                    inner = x;
                } else {
                    let below = g.b.ins().icmp(IntCC::SignedLessThan, x, site.dims[k]);
                    inside = g.b.ins().band(inside, below);
                }
                let term = g.b.ins().imul(x, site.strides[k]);
                offset = g.b.ins().iadd(offset, term);
            }
            if let Some(flags) = site.active {
                let at = g.b.ins().iadd(flags, lane);
                let on = g.b.ins().load(I8, own_flags(), at, 0);
                inside = g.b.ins().band(inside, on);
            }
            let base = g.b.ins().iadd(site.ptr, offset);
            let lane_at = g.b.ins().imul_imm_s(lane, size as i64);
            // Element `j` of this lane: its address when in bounds, else the scratch bytes.
            let element = |g: &mut Self, j: usize| {
                let at = g.b.ins().iadd_imm_s(inner, j as i64);
                let below = g.b.ins().icmp(IntCC::SignedLessThan, at, site.dims[last]);
                let inb = g.b.ins().band(inside, below);
                let step = g.b.ins().imul_imm_s(site.strides[last], j as i64);
                let p = g.b.ins().iadd(base, step);
                (g.b.ins().select(inb, p, site.scratch), inb)
            };
            match work {
                Work::Read { count, results } => {
                    for j in 0..count {
                        let (p, inb) = element(g, j);
                        let x = g.b.ins().load(ty, app_flags(), p, 0);
                        let fallback = match site.oob {
                            Oob::Same(v) => v,
                            Oob::Lanes(at) => {
                                let at = g.b.ins().iadd(at, lane_at);
                                g.b.ins().load(ty, own_flags(), at, 0)
                            }
                        };
                        let x = g.b.ins().select(inb, x, fallback);
                        let at = g.b.ins().iadd(results, lane_at);
                        g.b.ins().store(own_flags(), x, at, (16 * size * j) as i32);
                    }
                }
                Work::Write { element: j, values } => {
                    let (p, _) = element(g, j);
                    let at = g.b.ins().iadd(values, lane_at);
                    let x = g.b.ins().load(ty, own_flags(), at, (16 * size * j) as i32);
                    g.b.ins().store(app_flags(), x, p, 0);
                }
            }
        });
    }

    /// Where `out` is set (a lane out of bounds): `edge`, which ends its block when it takes
    /// the access (`true`), else a hand-back. Continues in a new block where `out` is clear.
    fn edge_if(
        &mut self,
        out: Value,
        edge: impl FnOnce(&mut Self) -> JitResult<bool>,
    ) -> JitResult<()> {
        let taken_block = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(out, taken_block, &[], cont, &[]);
        self.enter_sealed(taken_block);
        let cold = std::mem::replace(&mut self.cold_loads, true);
        let taken = edge(self);
        self.cold_loads = cold;
        if !taken? {
            self.hand_back();
        }
        self.enter_sealed(cont);
        Ok(())
    }

    /// Where `out` is set: the edge read of `count` elements, which ends at `join` with the
    /// values as `gather`'s lane-by-lane read passes them (see [`Self::edge_if`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn edge_read_if(
        &mut self,
        out: Value,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        count: usize,
        join: Block,
    ) -> JitResult<()> {
        self.edge_if(out, |g| g.edge_read(t, coords, signed, cw, count, join))
    }

    /// The edge read (see [`Self::edge_read_if`]); `false`, with nothing emitted but pure
    /// values, when this path does not take the access.
    fn edge_read(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        count: usize,
        join: Block,
    ) -> JitResult<bool> {
        let Some(site) = self.edge_site(t, coords, cw, None, true) else {
            return Ok(false);
        };
        self.edge_needs_view(&site);
        let size = t.elem.bytes();
        let results = self.edge_slot((16 * size * count) as u32);
        self.edge_loop(t, signed, cw, &site, Work::Read { count, results });
        let vt = vec_ty(size);
        let args: Vec<BlockArg> = (0..count * size)
            .map(|m| {
                let x = self.b.ins().load(vt, own_flags(), results, (16 * m) as i32);
                BlockArg::Value(x)
            })
            .collect();
        self.b.ins().jump(join, &args);
        Ok(true)
    }

    /// Where `out` is set: the edge write of `values` (see [`Self::edge_write`]), which ends
    /// at `done` (see [`Self::edge_if`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn edge_write_if(
        &mut self,
        out: Value,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
        done: Block,
    ) -> JitResult<()> {
        self.edge_if(out, |g| {
            let taken = g.edge_write(t, coords, signed, cw, values, None)?;
            if taken {
                g.b.ins().jump(done, &[]);
            }
            Ok(taken)
        })
    }

    /// The edge write of `values`, element-major then in lane order as the interpreter writes,
    /// of the lanes of `active` (an `I8X16` of 0 or 1 per lane; every lane when `None`), in
    /// the current block. `false`, with nothing stored, when this path does not take the
    /// access.
    pub(super) fn edge_write(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
        active: Option<Value>,
    ) -> JitResult<bool> {
        let Some(site) = self.edge_site(t, coords, cw, active, false) else {
            return Ok(false);
        };
        if active.is_none() {
            // Under a mask, the region checked the view before it started.
            self.edge_needs_view(&site);
        }
        let size = t.elem.bytes();
        let spilled = self.edge_slot((16 * size * values.len()) as u32);
        for (j, &v) in values.iter().enumerate() {
            let value = self.get(v);
            self.edge_spill(&value, size, spilled, (16 * size * j) as i32);
        }
        // Element-major, then lane order: one loop over the lanes per element.
        for element in 0..values.len() {
            let work = Work::Write {
                element,
                values: spilled,
            };
            self.edge_loop(t, signed, cw, &site, work);
        }
        Ok(true)
    }
}

/// Whether a tensor write can run under a mask (in a masked region or loop): by the edge path,
/// whose lanes it takes every time (32-bit or narrower coordinates, a descriptor known at
/// compile time, the rank the site table holds).
pub(crate) fn maskable_tensor_write(op: &Op) -> bool {
    matches!(op, Op::TensorWrite { tensor, coords, coord_width, .. }
        if matches!(tensor.desc, DescIdx::Const(_)) && coords_fit(tensor, coords, *coord_width))
}

impl Gen<'_> {
    /// Whether a tensor read may still hand its chunk back (see the module docs): 64-bit
    /// coordinates, a descriptor chosen at run time, an `oob` operand not of the element's
    /// width (the edge path refuses it), or coordinates uniform across the chunk with a run of
    /// several elements or an `oob` operand that is not uniform. Masked regions, loops and
    /// stepped blocks restart a hand-back before their effects, so they keep such a read before
    /// every store.
    pub(crate) fn tensor_read_may_hand_back(&self, op: &Op) -> bool {
        let Op::TensorRead {
            tensor,
            coords,
            dsts,
            oob,
            coord_width,
            ..
        } = op
        else {
            return false;
        };
        let uniform = |r: Reg| self.classes[r as usize].is_uniform();
        let other_width = oob.is_some_and(|r| self.bytes(r) != tensor.elem.bytes());
        let varying_oob = oob.is_some_and(|r| !uniform(r));
        *coord_width > 32
            || matches!(tensor.desc, DescIdx::Dyn(_))
            || other_width
            || (coords.iter().all(|&c| uniform(c)) && (dsts.len() > 1 || varying_oob))
    }
}
