//! The interpreter's op handlers ([`OpHandlers`] for [`Machine`]): each op runs over the lane
//! group's active lanes, reading and writing typed register rows.
//!
//! Lane loops are plain zips over typed rows that LLVM vectorises; the ALU functions (`alu`) are
//! total, so a partial mask computes every lane and keeps the active ones. A row that is both a
//! source and the destination is copied to scratch first (the op list's `lanewise` property lets
//! `opt` produce such ops).
//!
//! Invariants: registers of inactive lanes are never written; memory is touched only through
//! `mem` (checked).

use super::Scratch;
use super::machine::Machine;
use super::regfile::{Lane, by_bytes};
use crate::alu;
use crate::ir::{DescIdx, MemRef, OpHandlers, Reg, Space, TensorAcc, Var};
use crate::mem::{self, AtomicOp};
use crate::subgroup::{self, SUBGROUP_SIZE, SubOp};

impl Machine<'_> {
    /// `dst = f(src)` lane-wise over typed rows.
    #[inline(always)]
    pub(crate) fn un<D: Lane, S: Lane>(&mut self, dst: Reg, src: Reg, f: impl Fn(u64) -> u64) {
        let (lo, n) = (self.lo, self.hi);
        let full = self.full;
        let (mut rows, scratch, mask) = self.parts();
        let copied;
        let (out, x): (&mut [D], &[S]) = match rows.split::<D, S, 1>(dst, [src]) {
            Some((out, [x])) => (out, x),
            None => {
                copied = scratch.copy_row::<S>(rows.row::<S>(src), 0);
                (rows.row_mut::<D>(dst), copied)
            }
        };
        if full {
            for (o, &x) in out[lo..n].iter_mut().zip(&x[lo..n]) {
                *o = D::put(f(x.get()));
            }
        } else {
            for ((o, &x), &m) in out[lo..n].iter_mut().zip(&x[lo..n]).zip(&mask[lo..n]) {
                let v = D::put(f(x.get()));
                *o = if m { v } else { *o };
            }
        }
    }

    /// `dst = f(lhs, rhs)` lane-wise; `lhs` and `rhs` of the same width.
    #[inline(always)]
    pub(crate) fn bin<D: Lane, S: Lane>(
        &mut self,
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
        f: impl Fn(u64, u64) -> u64,
    ) {
        let (lo, n) = (self.lo, self.hi);
        let full = self.full;
        let (mut rows, scratch, mask) = self.parts();
        let (xs, ys);
        let (out, x, y): (&mut [D], &[S], &[S]) = match rows.split::<D, S, 2>(dst, [lhs, rhs]) {
            Some((out, [x, y])) => (out, x, y),
            None => {
                (xs, ys) = scratch.copy_rows2::<S>(rows.row::<S>(lhs), rows.row::<S>(rhs));
                (rows.row_mut::<D>(dst), xs, ys)
            }
        };
        if full {
            for ((o, &x), &y) in out[lo..n].iter_mut().zip(&x[lo..n]).zip(&y[lo..n]) {
                *o = D::put(f(x.get(), y.get()));
            }
        } else {
            for (((o, &x), &y), &m) in out[lo..n]
                .iter_mut()
                .zip(&x[lo..n])
                .zip(&y[lo..n])
                .zip(&mask[lo..n])
            {
                let v = D::put(f(x.get(), y.get()));
                *o = if m { v } else { *o };
            }
        }
    }

    /// `dst = f(a, b, c)` lane-wise; all of one width.
    #[inline(always)]
    fn tri<T: Lane>(&mut self, dst: Reg, srcs: [Reg; 3], f: impl Fn(u64, u64, u64) -> u64) {
        let (lo, n) = (self.lo, self.hi);
        let (mut rows, scratch, mask) = self.parts();
        let copies;
        let (out, [x, y, z]): (&mut [T], [&[T]; 3]) = match rows.split::<T, T, 3>(dst, srcs) {
            Some(split) => split,
            None => {
                copies = scratch.copy_rows3::<T>(srcs.map(|s| rows.row::<T>(s)));
                (rows.row_mut::<T>(dst), copies)
            }
        };
        for ((((o, &x), &y), &z), &m) in out[lo..n]
            .iter_mut()
            .zip(&x[lo..n])
            .zip(&y[lo..n])
            .zip(&z[lo..n])
            .zip(&mask[lo..n])
        {
            let v = T::put(f(x.get(), y.get(), z.get()));
            *o = if m { v } else { *o };
        }
    }

    /// Per-lane fallback: `dst = f(lane)` for every active lane, with generic register access.
    #[inline(always)]
    fn each_lane(&mut self, mut f: impl FnMut(&Machine<'_>, usize) -> Option<(Reg, u64)>) {
        for lane in self.lo..self.hi {
            if self.mask[lane]
                && let Some((r, v)) = f(self, lane)
            {
                self.set(r, lane, v);
            }
        }
    }

    /// The buffer window of a descriptor for `lane`.
    pub(crate) fn buffer(&self, slot: u32, desc: DescIdx, lane: usize) -> mem::Raw {
        let index = match desc {
            DescIdx::Const(c) => u64::from(c),
            DescIdx::Dyn(r) => self.get(r, lane),
        };
        self.env.bindings.buffer(slot, index)
    }

    /// Per-lane byte address `addr + offset`.
    #[inline(always)]
    pub(crate) fn address(&self, addr: Option<Reg>, offset: u64, lane: usize) -> u64 {
        match addr {
            Some(r) => self.get(r, lane).wrapping_add(offset),
            None => offset,
        }
    }

    /// `size` bytes at byte address `a` of `space` for `lane` (`None` when out of range).
    pub(crate) fn load_at(&self, space: Space, lane: usize, a: u64, size: usize) -> Option<u64> {
        match space {
            Space::Buffer { slot, desc } => self.buffer(slot, desc, lane).load(a, size),
            Space::Push => mem::slice_load(self.env.push, a, size),
            Space::Shared => mem::slice_load(&self.shared, a, size),
            Space::Physical => self
                .env
                .bindings
                .physical(a, size)
                .and_then(|raw| raw.load(0, size)),
        }
    }

    /// Stores the low `size` bytes of `v` at byte address `a` of `space` for `lane` (dropped
    /// when out of range).
    pub(crate) fn store_at(&mut self, space: Space, lane: usize, a: u64, size: usize, v: u64) {
        match space {
            Space::Buffer { slot, desc } => self.buffer(slot, desc, lane).store(a, size, v),
            Space::Push => {}
            Space::Shared => mem::slice_store(&mut self.shared, a, size, v),
            Space::Physical => {
                if let Some(raw) = self.env.bindings.physical(a, size) {
                    raw.store(0, size, v);
                }
            }
        }
    }

    /// An atomic `op` on `size` bytes at byte address `a` of `space` for `lane`: the old value
    /// (`None` when out of range).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn atomic_at(
        &mut self,
        space: Space,
        lane: usize,
        a: u64,
        size: usize,
        op: AtomicOp,
        v: u64,
        c: u64,
    ) -> Option<u64> {
        match space {
            Space::Buffer { slot, desc } => self.buffer(slot, desc, lane).atomic(a, size, op, v, c),
            Space::Push => None,
            Space::Shared => mem::slice_atomic(&mut self.shared, a, size, op, v, c),
            // A half-word is updated through its whole aligned word (a compare-and-swap of 4
            // bytes), so ask for that word's window when it is bound.
            Space::Physical => match self.env.bindings.physical(a & !3, 4) {
                Some(word) if size == 2 => word.atomic(a & 3, size, op, v, c),
                _ => self
                    .env
                    .bindings
                    .physical(a, size)
                    .and_then(|raw| raw.atomic(0, size, op, v, c)),
            },
        }
    }

    /// Loads of `N` bytes into `dst` (an `N`-byte register) from one buffer window.
    #[inline(always)]
    fn load_window<T: Lane>(&mut self, raw: mem::Raw, dst: Reg, addr: Option<Reg>, offset: u64) {
        let (lo, n) = (self.lo, self.hi);
        let (mut rows, scratch, mask) = self.parts();
        let addrs = scratch.addresses(&rows, addr, offset, n);
        let out = rows.row_mut::<T>(dst);
        for ((o, &a), &m) in out[lo..n].iter_mut().zip(&addrs[lo..n]).zip(&mask[lo..n]) {
            if m {
                *o = T::put(raw.load(a, T::BYTES).unwrap_or(0));
            }
        }
    }

    #[inline(always)]
    fn store_window<T: Lane>(&mut self, raw: mem::Raw, value: Reg, addr: Option<Reg>, offset: u64) {
        let (lo, n) = (self.lo, self.hi);
        let (rows, scratch, mask) = self.parts();
        let addrs = scratch.addresses(&rows, addr, offset, n);
        let values = rows.row::<T>(value);
        for ((&v, &a), &m) in values[lo..n].iter().zip(&addrs[lo..n]).zip(&mask[lo..n]) {
            if m {
                raw.store(a, T::BYTES, v.get());
            }
        }
    }
}

impl OpHandlers for Machine<'_> {
    fn mov(&mut self, dst: Reg, src: Reg) {
        let bytes = self.layout.bytes[dst as usize];
        if self.full {
            // The window's lanes, row to row.
            let b = usize::from(bytes);
            let (d, s) = (self.layout.row(dst).start, self.layout.row(src).start);
            let (lo, hi) = (self.lo * b, self.hi * b);
            self.file.bytes_mut().copy_within(s + lo..s + hi, d + lo);
        } else {
            by_bytes!(bytes, T => self.un::<T, T>(dst, src, |x| x));
        }
    }

    fn ibin(&mut self, op: alu::IBin, width: u8, dst: Reg, lhs: Reg, rhs: Reg) {
        use alu::IBin as I;
        let bytes = alu::width_bytes(width);
        if usize::from(self.layout.bytes[rhs as usize]) != bytes {
            // A shift amount of another width: its zero-extended value, per lane.
            return self.each_lane(|m, lane| {
                Some((
                    dst,
                    alu::ibin(op, width, m.get(lhs, lane), m.get(rhs, lane)),
                ))
            });
        }
        // Each arm passes a literal op so `alu::ibin` folds to one operation per loop.
        macro_rules! arms {
            ($($v:ident),*) => {
                match op {
                    $(I::$v => by_bytes!(bytes, T => self.bin::<T, T>(dst, lhs, rhs, |x, y| alu::ibin(I::$v, width, x, y))),)*
                }
            };
        }
        arms!(
            Add, Sub, Mul, UDiv, SDiv, UMod, SRem, SMod, Shl, ShrL, ShrA, And, Or, Xor, UMin, SMin,
            UMax, SMax, UMulHi, SMulHi, AddCarry, SubBorrow
        )
    }

    fn iun(&mut self, op: alu::IUn, width: u8, dst: Reg, src: Reg) {
        by_bytes!(alu::width_bytes(width), T => self.un::<T, T>(dst, src, |x| alu::iun(op, width, x)))
    }

    fn icmp(&mut self, op: alu::ICmp, width: u8, dst: Reg, lhs: Reg, rhs: Reg) {
        use alu::ICmp as C;
        macro_rules! arms {
            ($($v:ident),*) => {
                match op {
                    $(C::$v => by_bytes!(alu::width_bytes(width), T => self.bin::<u8, T>(dst, lhs, rhs, |x, y| alu::icmp(C::$v, width, x, y))),)*
                }
            };
        }
        arms!(Eq, Ne, ULt, ULe, UGt, UGe, SLt, SLe, SGt, SGe)
    }

    fn fbin(&mut self, op: alu::FBin, width: u8, dst: Reg, lhs: Reg, rhs: Reg) {
        use alu::FBin as F;
        macro_rules! arms {
            ($($v:ident),*) => {
                match (op, width) {
                    $((F::$v, 32) => self.bin::<u32, u32>(dst, lhs, rhs, |x, y| alu::fbin(F::$v, 32, x, y)),)*
                    $((F::$v, 64) => self.bin::<u64, u64>(dst, lhs, rhs, |x, y| alu::fbin(F::$v, 64, x, y)),)*
                    _ => by_bytes!(alu::width_bytes(width), T => self.bin::<T, T>(dst, lhs, rhs, |x, y| alu::fbin(op, width, x, y))),
                }
            };
        }
        arms!(Add, Sub, Mul, Div, Min, Max)
    }

    fn fun(&mut self, op: alu::FUn, width: u8, dst: Reg, src: Reg) {
        by_bytes!(alu::width_bytes(width), T => self.un::<T, T>(dst, src, |x| alu::fun(op, width, x)))
    }

    fn fcmp(&mut self, op: alu::FCmp, width: u8, dst: Reg, lhs: Reg, rhs: Reg) {
        by_bytes!(alu::width_bytes(width), T => self.bin::<u8, T>(dst, lhs, rhs, |x, y| alu::fcmp(op, width, x, y)))
    }

    fn tern(&mut self, op: alu::Tern, width: u8, dst: Reg, src0: Reg, src1: Reg, src2: Reg) {
        by_bytes!(alu::width_bytes(width), T => self.tri::<T>(dst, [src0, src1, src2], |x, y, z| alu::tern(op, width, x, y, z)))
    }

    fn conv(&mut self, op: alu::Conv, from: u8, to: u8, dst: Reg, src: Reg) {
        by_bytes!(alu::width_bytes(to), D => by_bytes!(alu::width_bytes(from), S => self.un::<D, S>(dst, src, |x| alu::conv(op, from, to, x))))
    }

    fn select(&mut self, dst: Reg, cond: Reg, if_true: Reg, if_false: Reg) {
        let (lo, n) = (self.lo, self.hi);
        let bytes = self.layout.bytes[dst as usize];
        let (mut rows, scratch, mask) = self.parts();
        let Scratch { a, b, bools, .. } = scratch;
        bools[lo..n].copy_from_slice(&rows.row::<u8>(cond)[lo..n]);
        let conds = &bools[..n];
        by_bytes!(bytes, T => {
            let (xs, ys): (&mut [T], &mut [T]) = (bytemuck::cast_slice_mut(&mut a[..]), bytemuck::cast_slice_mut(&mut b[..]));
            let (out, [x, y]): (&mut [T], [&[T]; 2]) = match rows.split::<T, T, 2>(dst, [if_true, if_false]) {
                Some(split) => split,
                None => {
                    xs[lo..n].copy_from_slice(&rows.row::<T>(if_true)[lo..n]);
                    ys[lo..n].copy_from_slice(&rows.row::<T>(if_false)[lo..n]);
                    (rows.row_mut::<T>(dst), [&xs[..n], &ys[..n]])
                }
            };
            for ((((o, &x), &y), &c), &m) in out[lo..n].iter_mut().zip(&x[lo..n]).zip(&y[lo..n]).zip(&conds[lo..n]).zip(&mask[lo..n]) {
                let v = if c != 0 { x } else { y };
                *o = if m { v } else { *o };
            }
        })
    }

    fn pick(&mut self, dst: Reg, index: Reg, choices: &[Reg]) {
        self.each_lane(|m, lane| {
            let k = m.get(index, lane);
            let v = usize::try_from(k)
                .ok()
                .and_then(|k| choices.get(k))
                .map_or(0, |&s| m.get(s, lane));
            Some((dst, v))
        });
    }

    fn load_var(&mut self, dst: Reg, var: Var, offset: u32, index: Reg) {
        self.each_lane(|m, lane| {
            let k = m.get(index, lane).wrapping_add(u64::from(offset));
            let v = if k < u64::from(var.len) {
                m.get(var.base + k as u32, lane)
            } else {
                0
            };
            Some((dst, v))
        });
    }

    fn store_var(&mut self, var: Var, offset: u32, index: Reg, value: Reg) {
        for lane in self.lo..self.hi {
            if self.mask[lane] {
                let k = self.get(index, lane).wrapping_add(u64::from(offset));
                if k < u64::from(var.len) {
                    let v = self.get(value, lane);
                    self.set(var.base + k as u32, lane, v);
                }
            }
        }
    }

    fn load(&mut self, space: Space, bytes: u8, dst: Reg, addr: Option<Reg>, offset: u64) {
        if let Space::Buffer {
            slot,
            desc: DescIdx::Const(c),
        } = space
        {
            let raw = self.env.bindings.buffer(slot, u64::from(c));
            return by_bytes!(bytes, T => self.load_window::<T>(raw, dst, addr, offset));
        }
        let size = usize::from(bytes);
        self.each_lane(|m, lane| {
            let a = m.address(addr, offset, lane);
            Some((dst, m.load_at(space, lane, a, size).unwrap_or(0)))
        });
    }

    fn store(&mut self, space: Space, bytes: u8, value: Reg, addr: Option<Reg>, offset: u64) {
        if let Space::Buffer {
            slot,
            desc: DescIdx::Const(c),
        } = space
        {
            let raw = self.env.bindings.buffer(slot, u64::from(c));
            return by_bytes!(bytes, T => self.store_window::<T>(raw, value, addr, offset));
        }
        let size = usize::from(bytes);
        for lane in self.lo..self.hi {
            if !self.mask[lane] {
                continue;
            }
            let a = self.address(addr, offset, lane);
            let v = self.get(value, lane);
            self.store_at(space, lane, a, size, v);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        op: AtomicOp,
        space: Space,
        bytes: u8,
        dst: Reg,
        addr: Option<Reg>,
        offset: u64,
        value: Reg,
        comparator: Reg,
    ) {
        let size = usize::from(bytes);
        for lane in self.lo..self.hi {
            if !self.mask[lane] {
                continue;
            }
            let a = self.address(addr, offset, lane);
            let (v, c) = (self.get(value, lane), self.get(comparator, lane));
            let old = self.atomic_at(space, lane, a, size, op, v, c);
            self.set(dst, lane, old.unwrap_or(0));
        }
    }

    fn atomic_update(
        &mut self,
        op: AtomicOp,
        space: Space,
        bytes: u8,
        addr: Option<Reg>,
        offset: u64,
        value: Reg,
    ) {
        let size = usize::from(bytes);
        for lane in self.lo..self.hi {
            if self.mask[lane] {
                let a = self.address(addr, offset, lane);
                let v = self.get(value, lane);
                self.atomic_at(space, lane, a, size, op, v, 0);
            }
        }
    }

    fn array_length(&mut self, slot: u32, desc: DescIdx, offset: u64, stride: u64, dst: Reg) {
        self.each_lane(|m, lane| {
            let len = m.buffer(slot, desc, lane).len() as u64;
            let n = len.saturating_sub(offset).checked_div(stride).unwrap_or(0);
            Some((dst, alu::trunc(n, 32)))
        });
    }

    fn tensor_read(
        &mut self,
        tensor: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        coord_width: u8,
        dsts: &[Reg],
        oob: Option<Reg>,
    ) {
        self.tensor_access(
            tensor,
            coords,
            signed,
            coord_width,
            super::tensor::Access::Read { dsts, oob },
        );
    }

    fn tensor_write(
        &mut self,
        tensor: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        coord_width: u8,
        values: &[Reg],
    ) {
        self.tensor_access(
            tensor,
            coords,
            signed,
            coord_width,
            super::tensor::Access::Write { values },
        );
    }

    fn tensor_query(&mut self, tensor: &TensorAcc, dim: Reg, width: u8, dst: Reg) {
        self.each_lane(|m, lane| {
            let k = m.get(dim, lane);
            let v = match m.tensor_view(tensor, lane) {
                Some(view) => usize::try_from(k)
                    .ok()
                    .and_then(|k| view.dims.get(k))
                    .copied()
                    .unwrap_or(0),
                None => 0,
            };
            Some((dst, alu::trunc(v, width)))
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn idot(
        &mut self,
        in_width: u8,
        out_width: u8,
        lhs_signed: bool,
        rhs_signed: bool,
        sat_signed: bool,
        dst: Reg,
        lhs: &[Reg],
        rhs: &[Reg],
        acc: Option<Reg>,
    ) {
        self.each_lane(|m, lane| {
            let v = alu::idot(
                in_width,
                out_width,
                lhs_signed,
                rhs_signed,
                sat_signed,
                lhs.iter().map(|&r| m.get(r, lane)),
                rhs.iter().map(|&r| m.get(r, lane)),
                acc.map(|r| m.get(r, lane)),
            );
            Some((dst, v))
        });
    }

    fn subgroup(&mut self, op: SubOp, width: u8, dst: Reg, value: Reg, operand: Reg) {
        // Subgroups run over the whole lane group; lanes outside the window are inactive. One
        // subgroup at a time, on the stack: the inactive lanes' values are never read
        // (`subgroup::segment` reads active lanes only) nor written back.
        let n = self.hi;
        let uses_operand = op.reads_operand();
        let wgs = (self.env.shape.wg_size as usize).max(1);
        for wg in (0..n).step_by(wgs) {
            let wg_end = (wg + wgs).min(n);
            for s in (wg..wg_end).step_by(SUBGROUP_SIZE) {
                let e = (s + SUBGROUP_SIZE).min(wg_end);
                if !self.mask[s..e].iter().any(|&m| m) {
                    continue;
                }
                let len = e - s;
                let (mut a, mut b, mut out) = (
                    [0u64; SUBGROUP_SIZE],
                    [0u64; SUBGROUP_SIZE],
                    [0u64; SUBGROUP_SIZE],
                );
                for i in 0..len {
                    if self.mask[s + i] {
                        a[i] = self.get(value, s + i);
                        if uses_operand {
                            b[i] = self.get(operand, s + i);
                        }
                    }
                }
                subgroup::segment(
                    op,
                    width,
                    &self.mask[s..e],
                    &a[..len],
                    &b[..len],
                    &mut out[..len],
                );
                for (i, &v) in out[..len].iter().enumerate() {
                    if self.mask[s + i] {
                        self.set(dst, s + i, v);
                    }
                }
            }
        }
    }

    fn barrier(&mut self) {
        // Lockstep: every op already runs over all lanes before the next starts.
    }

    fn converge(&mut self) {
        // Lockstep: lanes that reach it already meet here.
    }

    fn coop_mat_vec(
        &mut self,
        form: tessera_coop::MatVec,
        dsts: &[Reg],
        input: &[Reg],
        matrix: MemRef,
        stride: Option<Reg>,
        bias: Option<MemRef>,
    ) {
        let (lo, hi) = (self.lo, self.hi);
        for lane in lo..hi {
            if self.mask[lane] {
                self.mat_vec_lane(&form, dsts, input, matrix, stride, bias, lane);
            }
        }
    }

    fn coop_outer_product(
        &mut self,
        elem: tessera_coop::ComponentType,
        a: &[Reg],
        b: &[Reg],
        matrix: MemRef,
    ) {
        let (lo, hi) = (self.lo, self.hi);
        for lane in lo..hi {
            if self.mask[lane] {
                self.outer_product_lane(elem, a, b, matrix, lane);
            }
        }
    }

    fn coop_mat_load(
        &mut self,
        ty: tessera_coop::matrix::MatrixType,
        column_major: bool,
        unit: u32,
        dsts: &[Reg],
        src: MemRef,
        stride: Option<Reg>,
    ) {
        let at = super::coop::MatrixAccess {
            ty,
            column_major,
            unit,
            mem: src,
            stride,
        };
        for lane in self.lo..self.hi {
            if self.mask[lane] {
                self.matrix_load_lane(&at, dsts, lane);
            }
        }
    }

    fn coop_mat_store(
        &mut self,
        ty: tessera_coop::matrix::MatrixType,
        column_major: bool,
        unit: u32,
        values: &[Reg],
        dst: MemRef,
        stride: Option<Reg>,
    ) {
        let at = super::coop::MatrixAccess {
            ty,
            column_major,
            unit,
            mem: dst,
            stride,
        };
        // Whole active half-subgroups by runs of elements (as compiled code stores a chunk's
        // part); the other lanes one by one.
        let half = tessera_coop::matrix::HALF;
        let mut lane = self.lo;
        while lane < self.hi {
            let end = (lane / half + 1) * half;
            if lane.is_multiple_of(half)
                && end <= self.hi
                && self.mask[lane..end].iter().all(|&m| m)
            {
                self.matrix_store_chunk(&at, values, lane, end);
                lane = end;
                continue;
            }
            if self.mask[lane] {
                self.matrix_store_lane(&at, values, lane);
            }
            lane += 1;
        }
    }

    fn coop_mat_mul_add(
        &mut self,
        form: tessera_coop::matrix::MulAdd,
        dsts: &[Reg],
        a: &[Reg],
        b: &[Reg],
        c: &[Reg],
    ) {
        self.matrix_mul_add(&form, dsts, [a, b, c]);
    }

    fn coop_reduce_sum(
        &mut self,
        elem: tessera_coop::ComponentType,
        values: &[Reg],
        target: MemRef,
    ) {
        let (lo, hi) = (self.lo, self.hi);
        for lane in lo..hi {
            if self.mask[lane] {
                self.reduce_sum_lane(elem, values, target, lane);
            }
        }
    }
}
