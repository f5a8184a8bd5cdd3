//! Cooperative vectors on the lane-group machine, two ways:
//! - the reference, one lane at a time ([`Machine::mat_vec_lane`] and friends): what the
//!   interpreter's handlers run, every memory access checked (out-of-range elements read 0,
//!   out-of-range accumulations are dropped);
//! - the native path for compiled code ([`Machine::coop_native`]), over one chunk of lanes: a
//!   matrix-vector product whose lanes share one matrix (the usual case) is one GEMM of
//!   `tessera_coop::batch`, and the training ops sum over the chunk's lanes before their one
//!   atomic add per element. Lanes with different matrices, or a matrix the memory does not
//!   hold whole, take the reference.
//!
//! Both compute what `tessera_coop::vector` defines, bit for bit for products; accumulations
//! may differ in float rounding between the two (atomic adds have no defined order).
//!
//! Cooperative matrices the same way: the reference loads, stores and multiplies lane by lane
//! and half-subgroup by half-subgroup; compiled code's chunk (a half-subgroup) multiplies with
//! `tessera_coop::product::HalfProduct` straight from and to its register rows. A store writes
//! each element once: each half-subgroup the elements it holds (`B`'s first half all of
//! them); where the subgroup reads that memory again with no sync op between, lowering puts a
//! meeting point first (`Op::CoopMatStore`).

use tessera_coop::batch::LANES;
use tessera_coop::layout::{Number, decode};
use tessera_coop::{ComponentType, MatVec};

use super::machine::Machine;
use crate::ir::{DescIdx, MemRef, Op, Reg, Space};
use crate::mem::AtomicOp;

impl Machine<'_> {
    /// The byte address `m` names for `lane`.
    fn mem_address(&self, m: MemRef, lane: usize) -> u64 {
        self.address(m.addr, m.offset, lane)
    }

    /// One lane of a matrix-vector product (the reference).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mat_vec_lane(
        &mut self,
        form: &MatVec,
        dsts: &[Reg],
        input: &[Reg],
        matrix: MemRef,
        stride: Option<Reg>,
        bias: Option<MemRef>,
        lane: usize,
    ) {
        let raw: Vec<u64> = input.iter().map(|&r| self.get(r, lane)).collect();
        let stride = stride.map_or(0, |r| self.get(r, lane)) as usize;
        let stored = form.stored(stride);
        let width = stored.ty.bytes();
        let base = self.mem_address(matrix, lane);
        let element = |r: usize, c: usize| {
            let a = base.wrapping_add(stored.offset(r, c) as u64);
            let bits = self.load_at(matrix.space, lane, a, width).unwrap_or(0);
            decode(stored.ty, bits)
        };
        let bias_ty = form.bias.unwrap_or(form.result);
        let bias_at = bias.map(|b| (b.space, self.mem_address(b, lane)));
        let bias_of = |i: usize| match bias_at {
            Some((space, a)) => {
                let es = bias_ty.bytes();
                let bits = self
                    .load_at(space, lane, a.wrapping_add((i * es) as u64), es)
                    .unwrap_or(0);
                decode(bias_ty, bits)
            }
            None => Number::Int(0),
        };
        let out = form.reference(&raw, element, bias_of);
        for (&d, v) in dsts.iter().zip(out) {
            self.set(d, lane, v);
        }
    }

    /// One lane of `OpCooperativeVectorOuterProductAccumulateNV` (the reference).
    pub(crate) fn outer_product_lane(
        &mut self,
        elem: ComponentType,
        a: &[Reg],
        b: &[Reg],
        matrix: MemRef,
        lane: usize,
    ) {
        let half = |bits: u64| f64::from(half::f16::from_bits(bits as u16).to_f32());
        let xs: Vec<f64> = a.iter().map(|&r| half(self.get(r, lane))).collect();
        let ys: Vec<f64> = b.iter().map(|&r| half(self.get(r, lane))).collect();
        let base = self.mem_address(matrix, lane);
        let es = elem.bytes();
        for (i, x) in xs.iter().enumerate() {
            for (j, y) in ys.iter().enumerate() {
                let at = base.wrapping_add(((i * ys.len() + j) * es) as u64);
                let add = (x * y).to_bits();
                self.atomic_at(matrix.space, lane, at, es, AtomicOp::FAdd, add, 0);
            }
        }
    }

    /// One lane of `OpCooperativeVectorReduceSumAccumulateNV` (the reference).
    pub(crate) fn reduce_sum_lane(
        &mut self,
        elem: ComponentType,
        values: &[Reg],
        target: MemRef,
        lane: usize,
    ) {
        let base = self.mem_address(target, lane);
        let es = elem.bytes();
        for (i, &r) in values.iter().enumerate() {
            let add = elem.float_of(self.get(r, lane)).to_bits();
            let at = base.wrapping_add((i * es) as u64);
            self.atomic_at(target.space, lane, at, es, AtomicOp::FAdd, add, 0);
        }
    }

    /// Runs cooperative op `op` natively over lanes `lo..hi`: the path of compiled code. Every
    /// lane is active, except for the training ops, which add only the lanes whose bit (lane
    /// `lo + i`, bit `i`) is set in `active` (compiled code runs them under a divergent
    /// branch's mask). Returns false for an op that is not a cooperative one.
    pub(crate) fn coop_native(&mut self, op: &Op, lo: usize, hi: usize, active: u16) -> bool {
        match op {
            Op::CoopMatVec {
                form,
                dsts,
                input,
                matrix,
                stride,
                bias,
            } => {
                if !(hi - lo == LANES
                    && self.mat_vec_batch(form, dsts, input, *matrix, *stride, *bias, lo))
                {
                    for lane in lo..hi {
                        self.mat_vec_lane(form, dsts, input, *matrix, *stride, *bias, lane);
                    }
                }
            }
            Op::CoopOuterProduct { elem, a, b, matrix } => {
                let lanes = active_lanes(lo, hi, active);
                if self.chunk_shares(*matrix, lo, hi) {
                    self.outer_product_chunk(*elem, a, b, *matrix, &lanes);
                } else {
                    for lane in lanes {
                        self.outer_product_lane(*elem, a, b, *matrix, lane);
                    }
                }
            }
            Op::CoopReduceSum {
                elem,
                values,
                target,
            } => {
                let lanes = active_lanes(lo, hi, active);
                if self.chunk_shares(*target, lo, hi) {
                    self.reduce_sum_chunk(*elem, values, *target, &lanes);
                } else {
                    for lane in lanes {
                        self.reduce_sum_lane(*elem, values, *target, lane);
                    }
                }
            }
            Op::CoopMatLoad {
                ty,
                column_major,
                unit,
                dsts,
                src,
                stride,
            } => {
                let at = MatrixAccess {
                    ty: *ty,
                    column_major: *column_major,
                    unit: *unit,
                    mem: *src,
                    stride: *stride,
                };
                self.matrix_load_chunk(&at, dsts, lo, hi);
            }
            Op::CoopMatStore {
                ty,
                column_major,
                unit,
                values,
                dst,
                stride,
            } => {
                let at = MatrixAccess {
                    ty: *ty,
                    column_major: *column_major,
                    unit: *unit,
                    mem: *dst,
                    stride: *stride,
                };
                self.matrix_store_chunk(&at, values, lo, hi);
            }
            Op::CoopMatMulAdd {
                form,
                dsts,
                a,
                b,
                c,
            } => {
                if hi - lo == tessera_coop::matrix::HALF
                    && lo.is_multiple_of(tessera_coop::matrix::HALF)
                {
                    self.matrix_mul_add_chunk(form, dsts, [a, b, c], lo);
                } else {
                    let (save_lo, save_hi) = (self.lo, self.hi);
                    (self.lo, self.hi) = (lo, hi);
                    let saved: Vec<bool> = self.mask[lo..hi].to_vec();
                    self.mask[lo..hi].fill(true);
                    self.matrix_mul_add(form, dsts, [a, b, c]);
                    self.mask[lo..hi].copy_from_slice(&saved);
                    (self.lo, self.hi) = (save_lo, save_hi);
                }
            }
            _ => return false,
        }
        true
    }

    /// Whether register `r` (if any) holds the same value in lanes `lo..lo + LANES`.
    fn uniform(&self, r: Option<Reg>, lo: usize) -> bool {
        r.is_none_or(|r| {
            let first = self.get(r, lo);
            (lo + 1..lo + LANES).all(|lane| self.get(r, lane) == first)
        })
    }

    /// The host bytes at `m` for lane `lo`, if `len` of them are addressable there.
    fn host_bytes(&mut self, m: MemRef, lo: usize, len: usize) -> Option<*const u8> {
        let a = self.mem_address(m, lo);
        match m.space {
            Space::Buffer { slot, desc } => {
                let raw = self.buffer(slot, desc, lo);
                let start = usize::try_from(a).ok()?;
                (start.checked_add(len)? <= raw.len())
                    .then(|| raw.ptr().wrapping_add(start).cast_const())
            }
            Space::Physical => self
                .env
                .bindings
                .physical(a, len)
                .map(|raw| raw.ptr().cast_const()),
            Space::Shared => {
                let start = usize::try_from(a).ok()?;
                (start.checked_add(len)? <= self.shared.len())
                    .then(|| self.shared[start..].as_ptr())
            }
            Space::Push => {
                let start = usize::try_from(a).ok()?;
                let push = self.env.push;
                (start.checked_add(len)? <= push.len()).then(|| push[start..].as_ptr())
            }
        }
    }

    /// A chunk's product as one GEMM, when its lanes share the matrix, stride and bias and the
    /// memory holds them whole. False (nothing written) otherwise.
    #[allow(clippy::too_many_arguments)]
    fn mat_vec_batch(
        &mut self,
        form: &MatVec,
        dsts: &[Reg],
        input: &[Reg],
        matrix: MemRef,
        stride: Option<Reg>,
        bias: Option<MemRef>,
        lo: usize,
    ) -> bool {
        let shared = [matrix.addr, stride, bias.and_then(|b| b.addr)]
            .into_iter()
            .all(|r| self.uniform(r, lo))
            && [Some(matrix), bias]
                .into_iter()
                .flatten()
                .all(|m| match m.space {
                    Space::Buffer {
                        desc: crate::ir::DescIdx::Dyn(r),
                        ..
                    } => self.uniform(Some(r), lo),
                    _ => true,
                });
        if !shared {
            return false;
        }
        let stride = stride.map_or(0, |r| self.get(r, lo)) as usize;
        let stored = form.stored(stride);
        let Some(w) = self.host_bytes(matrix, lo, stored.footprint()) else {
            return false;
        };
        let bias_len = bias.map_or(0, |_| form.m as usize * form.bias.map_or(0, |t| t.bytes()));
        let b = match bias {
            Some(b) => match self.host_bytes(b, lo, bias_len) {
                Some(p) => p,
                None => return false,
            },
            None => std::ptr::null(),
        };
        let mut batch = std::mem::take(&mut self.scratch.coop);
        batch.begin(form);
        let file = self.file.bytes();
        for (c, &r) in input.iter().enumerate() {
            let row = self.layout.row(r);
            let es = usize::from(self.layout.bytes[r as usize]);
            batch.gather(c, &file[row.start + lo * es..row.start + (lo + LANES) * es]);
        }
        // SAFETY: `w` and `b` point at `stored.footprint()` and `bias_len` bytes of bound
        // memory (checked above), valid for the dispatch.
        let ok = unsafe { batch.run(w, stored.footprint(), stride, b, bias_len) };
        if ok {
            let file = self.file.bytes_mut();
            for (m, &r) in dsts.iter().enumerate() {
                let row = self.layout.row(r);
                let es = usize::from(self.layout.bytes[r as usize]);
                batch.scatter(
                    m,
                    &mut file[row.start + lo * es..row.start + (lo + LANES) * es],
                );
            }
        }
        self.scratch.coop = batch;
        ok
    }

    /// Whether every lane of chunk `lo..hi` (a whole one) names the same `mem`: its address and
    /// descriptor index agree, so the chunk's sums go to one place.
    fn chunk_shares(&self, mem: MemRef, lo: usize, hi: usize) -> bool {
        self.uniform(mem.addr, lo)
            && hi - lo == LANES
            && match mem.space {
                Space::Buffer {
                    desc: crate::ir::DescIdx::Dyn(r),
                    ..
                } => self.uniform(Some(r), lo),
                _ => true,
            }
    }

    /// The outer products of `lanes`, which share the matrix (`chunk_shares`): per element, the
    /// sum over them, then one atomic add (none when no lane is active).
    fn outer_product_chunk(
        &mut self,
        elem: ComponentType,
        a: &[Reg],
        b: &[Reg],
        matrix: MemRef,
        lanes: &[usize],
    ) {
        let Some(&first) = lanes.first() else {
            return;
        };
        let half = |bits: u64| f64::from(half::f16::from_bits(bits as u16).to_f32());
        let base = self.mem_address(matrix, first);
        let es = elem.bytes();
        let ys: Vec<Vec<f64>> = b
            .iter()
            .map(|&r| lanes.iter().map(|&lane| half(self.get(r, lane))).collect())
            .collect();
        for (i, &ra) in a.iter().enumerate() {
            let xs: Vec<f64> = lanes.iter().map(|&lane| half(self.get(ra, lane))).collect();
            for (j, y) in ys.iter().enumerate() {
                let sum: f64 = xs.iter().zip(y).map(|(x, y)| x * y).sum();
                let at = base.wrapping_add(((i * b.len() + j) * es) as u64);
                self.atomic_at(
                    matrix.space,
                    first,
                    at,
                    es,
                    AtomicOp::FAdd,
                    sum.to_bits(),
                    0,
                );
            }
        }
    }

    /// The reduce-sums of `lanes`, which share the target (`chunk_shares`): per element, the
    /// sum over them, then one atomic add (none when no lane is active).
    fn reduce_sum_chunk(
        &mut self,
        elem: ComponentType,
        values: &[Reg],
        target: MemRef,
        lanes: &[usize],
    ) {
        let Some(&first) = lanes.first() else {
            return;
        };
        let base = self.mem_address(target, first);
        let es = elem.bytes();
        for (i, &r) in values.iter().enumerate() {
            let sum: f64 = lanes
                .iter()
                .map(|&lane| elem.float_of(self.get(r, lane)))
                .sum();
            let at = base.wrapping_add((i * es) as u64);
            self.atomic_at(
                target.space,
                first,
                at,
                es,
                AtomicOp::FAdd,
                sum.to_bits(),
                0,
            );
        }
    }
}

/// The lanes of `lo..hi` whose bit is set in `active` (lane `lo + i`: bit `i`).
fn active_lanes(lo: usize, hi: usize, active: u16) -> Vec<usize> {
    (lo..hi)
        .filter(|lane| (lane - lo) < 16 && active & (1 << (lane - lo)) != 0)
        .collect()
}

/// A cooperative-matrix load or store's operands.
pub(crate) struct MatrixAccess {
    pub(crate) ty: tessera_coop::matrix::MatrixType,
    pub(crate) column_major: bool,
    pub(crate) unit: u32,
    pub(crate) mem: MemRef,
    pub(crate) stride: Option<Reg>,
}

impl Machine<'_> {
    /// Lane `lane`'s invocation index in its subgroup.
    fn subgroup_lane(&self, lane: usize) -> usize {
        let wg = (self.env.shape.wg_size as usize).max(1);
        lane % wg % tessera_coop::matrix::SUBGROUP
    }

    /// The byte address of component `i` of lane `lane` (whose subgroup index is `sl`).
    fn matrix_element_address(
        &self,
        at: &MatrixAccess,
        base: u64,
        stride: u64,
        sl: usize,
        i: usize,
    ) -> u64 {
        let cols = at.ty.cols as usize;
        let e = at.ty.element(sl, i);
        let (r, c) = ((e / cols) as u64, (e % cols) as u64);
        let (major, minor) = if at.column_major { (c, r) } else { (r, c) };
        let es = at.ty.elem.bytes() as u64;
        base.wrapping_add(major.wrapping_mul(stride).wrapping_mul(u64::from(at.unit)))
            .wrapping_add(minor.wrapping_mul(es))
    }

    /// One lane's components of a matrix load (the reference).
    pub(crate) fn matrix_load_lane(&mut self, at: &MatrixAccess, dsts: &[Reg], lane: usize) {
        let base = self.mem_address(at.mem, lane);
        let stride = at.stride.map_or(0, |r| self.get(r, lane));
        let sl = self.subgroup_lane(lane);
        let es = at.ty.elem.bytes();
        for (i, &d) in dsts.iter().enumerate() {
            let a = self.matrix_element_address(at, base, stride, sl, i);
            let v = self.load_at(at.mem.space, lane, a, es).unwrap_or(0);
            self.set(d, lane, v);
        }
    }

    /// One lane's part of a matrix store: the elements it holds that it stores.
    pub(crate) fn matrix_store_lane(&mut self, at: &MatrixAccess, values: &[Reg], lane: usize) {
        let sl = self.subgroup_lane(lane);
        if !at.ty.stores(sl) {
            return;
        }
        let base = self.mem_address(at.mem, lane);
        let stride = at.stride.map_or(0, |r| self.get(r, lane));
        let es = at.ty.elem.bytes();
        for (i, &v) in values.iter().enumerate() {
            let a = self.matrix_element_address(at, base, stride, sl, i);
            let x = self.get(v, lane);
            self.store_at(at.mem.space, lane, a, es, x);
        }
    }

    /// A multiply-add over every half-subgroup of lanes `lo..hi` with an active lane (the
    /// reference): each half's operands gathered row-major, multiplied, its rows of the result
    /// written to its active lanes.
    pub(crate) fn matrix_mul_add(
        &mut self,
        form: &tessera_coop::matrix::MulAdd,
        dsts: &[Reg],
        operands: [&[Reg]; 3],
    ) {
        use tessera_coop::matrix::HALF;
        let start = self.lo / HALF * HALF;
        for first in (start..self.hi).step_by(HALF) {
            let lanes = first..(first + HALF).min(self.hi);
            if !lanes.clone().any(|l| l >= self.lo && self.mask[l]) {
                continue;
            }
            let gather = |m: &Machine<'_>, regs: &[Reg]| -> Vec<u64> {
                let mut v = vec![0u64; regs.len() * HALF];
                for (i, &r) in regs.iter().enumerate() {
                    for j in 0..HALF {
                        if first + j < m.layout.lanes {
                            v[i * HALF + j] = m.get(r, first + j);
                        }
                    }
                }
                v
            };
            let [a, b, c] = operands.map(|regs| gather(self, regs));
            let d = form.reference(&a, &b, &c);
            for (i, &r) in dsts.iter().enumerate() {
                for lane in lanes.clone() {
                    if lane >= self.lo && self.mask[lane] {
                        self.set(r, lane, d[i * HALF + lane - first]);
                    }
                }
            }
        }
    }

    /// A matrix load for one chunk of compiled code (lanes `lo..hi`, all active).
    fn matrix_load_chunk(&mut self, at: &MatrixAccess, dsts: &[Reg], lo: usize, hi: usize) {
        if !self.matrix_runs(at, dsts, lo, hi, Direction::Load) {
            for lane in lo..hi {
                self.matrix_load_lane(at, dsts, lane);
            }
        }
    }

    /// A matrix store for one chunk (lanes `lo..hi`, all active).
    pub(crate) fn matrix_store_chunk(
        &mut self,
        at: &MatrixAccess,
        values: &[Reg],
        lo: usize,
        hi: usize,
    ) {
        if !self.matrix_runs(at, values, lo, hi, Direction::Store) {
            for lane in lo..hi {
                self.matrix_store_lane(at, values, lane);
            }
        }
    }

    /// A chunk's matrix load or store by runs of elements that are consecutive in memory, when
    /// its lanes are one half of a subgroup that agree on the address, the stride and the
    /// buffer: component `i` of the half's 16 lanes is 16 consecutive row-major elements (see
    /// `tessera_coop::matrix`), a run of a row-major line each, copied between memory and the
    /// register rows at once (a run out of range goes element by element, as the lanes would).
    /// False, with nothing done, otherwise.
    fn matrix_runs(
        &mut self,
        at: &MatrixAccess,
        regs: &[Reg],
        lo: usize,
        hi: usize,
        direction: Direction,
    ) -> bool {
        use tessera_coop::matrix::HALF;
        let es = at.ty.elem.bytes();
        let sl = self.subgroup_lane(lo);
        if hi - lo != HALF
            || !sl.is_multiple_of(HALF)
            || self.subgroup_lane(hi - 1) != sl + HALF - 1
            || regs
                .iter()
                .any(|&r| usize::from(self.layout.bytes[r as usize]) != es)
            || matches!(at.mem.space, Space::Buffer { desc, .. } if !matches!(desc, DescIdx::Const(_)))
        {
            return false;
        }
        let base = self.mem_address(at.mem, lo);
        let stride = at.stride.map_or(0, |r| self.get(r, lo));
        if (lo + 1..hi).any(|l| {
            self.mem_address(at.mem, l) != base
                || at.stride.is_some_and(|r| self.get(r, l) != stride)
        }) {
            return false;
        }
        if direction == Direction::Store && !at.ty.stores(sl) {
            return true; // B's second half stores nothing.
        }
        let cols = at.ty.cols as usize;
        let line = stride.wrapping_mul(u64::from(at.unit));
        let mut tmp = [0u8; HALF * 8];
        // A buffer's window, found once (the descriptor is the same for every lane).
        let window = match at.mem.space {
            Space::Buffer { slot, desc } => Some(self.buffer(slot, desc, lo)),
            _ => None,
        };
        for (i, &r) in regs.iter().enumerate() {
            let row = self.layout.row(r).start;
            let first = at.ty.element(sl, i);
            let mut j = 0;
            while j < HALF {
                let e = first + j;
                let (mr, mc) = ((e / cols) as u64, (e % cols) as u64);
                let (run, addr) = if at.column_major {
                    (
                        1,
                        base.wrapping_add(mc.wrapping_mul(line))
                            .wrapping_add(mr * es as u64),
                    )
                } else {
                    (
                        (HALF - j).min(cols - e % cols),
                        base.wrapping_add(mr.wrapping_mul(line))
                            .wrapping_add(mc * es as u64),
                    )
                };
                let bytes = &mut tmp[..run * es];
                let file = row + (lo + j) * es..row + (lo + j + run) * es;
                match direction {
                    Direction::Load => {
                        if window
                            .is_some_and(|w| w.read(addr, &mut self.file.bytes_mut()[file.clone()]))
                        {
                            j += run;
                            continue;
                        }
                        if !self.read_bytes(at.mem.space, lo, addr, bytes) {
                            // Out of range in part: element by element (0 where out).
                            for (x, out) in bytes.chunks_exact_mut(es).enumerate() {
                                let a = addr.wrapping_add((x * es) as u64);
                                let v = self.load_at(at.mem.space, lo, a, es).unwrap_or(0);
                                out.copy_from_slice(&v.to_le_bytes()[..es]);
                            }
                        }
                        self.file.bytes_mut()[file].copy_from_slice(bytes);
                    }
                    Direction::Store => {
                        if window.is_some_and(|w| w.write(addr, &self.file.bytes()[file.clone()])) {
                            j += run;
                            continue;
                        }
                        bytes.copy_from_slice(&self.file.bytes()[file]);
                        if !self.write_bytes(at.mem.space, lo, addr, bytes) {
                            for (x, v) in bytes.chunks_exact(es).enumerate() {
                                let a = addr.wrapping_add((x * es) as u64);
                                let v = ComponentType::UInt64.load(v);
                                self.store_at(at.mem.space, lo, a, es, v);
                            }
                        }
                    }
                }
                j += run;
            }
        }
        true
    }

    /// Copies `dst.len()` bytes at `addr` of `space` (as lane `lane` sees it) into `dst`; false
    /// (nothing copied) unless all of them are addressable.
    fn read_bytes(&self, space: Space, lane: usize, addr: u64, dst: &mut [u8]) -> bool {
        match space {
            Space::Buffer { slot, desc } => self.buffer(slot, desc, lane).read(addr, dst),
            Space::Physical => self
                .env
                .bindings
                .physical(addr, dst.len())
                .is_some_and(|raw| raw.read(0, dst)),
            Space::Shared | Space::Push => {
                let mem: &[u8] = if space == Space::Shared {
                    &self.shared
                } else {
                    self.env.push
                };
                let src = usize::try_from(addr)
                    .ok()
                    .and_then(|a| mem.get(a..a.checked_add(dst.len())?));
                src.map(|s| dst.copy_from_slice(s)).is_some()
            }
        }
    }

    /// Copies `src` to `addr` of `space` (as lane `lane` sees it); false (nothing copied)
    /// unless all of it is addressable.
    fn write_bytes(&mut self, space: Space, lane: usize, addr: u64, src: &[u8]) -> bool {
        match space {
            Space::Buffer { slot, desc } => self.buffer(slot, desc, lane).write(addr, src),
            Space::Physical => self
                .env
                .bindings
                .physical(addr, src.len())
                .is_some_and(|raw| raw.write(0, src)),
            Space::Shared => {
                let dst = usize::try_from(addr)
                    .ok()
                    .and_then(|a| self.shared.get_mut(a..a.checked_add(src.len())?));
                dst.map(|d| d.copy_from_slice(src)).is_some()
            }
            Space::Push => false,
        }
    }

    /// A multiply-add for one chunk of compiled code: the half's registers straight into the
    /// kernel (`tessera_coop::product::HalfProduct`) and back.
    fn matrix_mul_add_chunk(
        &mut self,
        form: &tessera_coop::matrix::MulAdd,
        dsts: &[Reg],
        operands: [&[Reg]; 3],
        lo: usize,
    ) {
        use tessera_coop::matrix::HALF;
        let regs = [operands[0], operands[1], operands[2], dsts];
        {
            // The rows' offsets for this chunk, in a reused list (no clearing, no copies).
            let mut offsets = std::mem::take(&mut self.scratch.offsets);
            offsets.clear();
            for &r in regs.iter().flat_map(|regs| regs.iter()) {
                offsets.push(
                    self.layout.offsets[r as usize]
                        + lo * usize::from(self.layout.bytes[r as usize]),
                );
            }
            let (na, nb, nc) = (regs[0].len(), regs[1].len(), regs[2].len());
            let rows = tessera_coop::product::Rows {
                a: &offsets[..na],
                b: &offsets[na..na + nb],
                c: &offsets[na + nb..na + nb + nc],
                d: &offsets[na + nb + nc..],
            };
            let done = self
                .scratch
                .half
                .run_rows(form, self.file.bytes_mut(), rows);
            self.scratch.offsets = offsets;
            if done {
                return;
            }
        }
        let mut p = std::mem::take(&mut self.scratch.half);
        p.begin(form);
        let file = self.file.bytes();
        for (which, regs) in operands.into_iter().enumerate() {
            for (i, &r) in regs.iter().enumerate() {
                let row = self.layout.row(r);
                let es = usize::from(self.layout.bytes[r as usize]);
                p.set(
                    which,
                    i,
                    &file[row.start + lo * es..row.start + (lo + HALF) * es],
                );
            }
        }
        p.run();
        let file = self.file.bytes_mut();
        for (i, &r) in dsts.iter().enumerate() {
            let row = self.layout.row(r);
            let es = usize::from(self.layout.bytes[r as usize]);
            p.get(
                i,
                &mut file[row.start + lo * es..row.start + (lo + HALF) * es],
            );
        }
        self.scratch.half = p;
    }
}

/// Which way `Machine::matrix_runs` copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Load,
    Store,
}
