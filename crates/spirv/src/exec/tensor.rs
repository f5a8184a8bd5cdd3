//! Tensor reads and writes (`OpTensorReadARM`, `OpTensorWriteARM`) for the interpreter: a
//! lane-group path when every lane uses the same descriptor (the usual case; the view is checked
//! once and offsets are computed coordinate by coordinate over all lanes), and a per-lane path.
//!
//! Out-of-bounds reads give the `OutOfBoundsValueARM` operand (or 0), out-of-bounds writes are
//! dropped; a view whose format, rank or shape does not match the access is entirely out of
//! bounds. Every access goes through `mem::Raw`, which checks it against the bound range again.

use super::bind::{Bound, TensorView, compat};
use super::machine::Machine;
use super::regfile::{Lane, by_bytes};
use crate::ScalarType;
use crate::alu;
use crate::ir::{DescIdx, Reg, TensorAcc};
use crate::mem::Raw;

#[derive(Clone, Copy)]
pub(crate) enum Access<'o> {
    Read { dsts: &'o [Reg], oob: Option<Reg> },
    Write { values: &'o [Reg] },
}

impl<'e> Machine<'e> {
    /// The tensor view lane `lane`'s descriptor names, if it is a tensor.
    pub(crate) fn tensor_view(&self, t: &TensorAcc, lane: usize) -> Option<&'e TensorView> {
        let index = match t.desc {
            DescIdx::Const(c) => u64::from(c),
            DescIdx::Dyn(r) => self.get(r, lane),
        };
        match self.env.bindings.get(t.slot, index)? {
            Bound::Tensor(view) => Some(view),
            _ => None,
        }
    }

    /// Whether a bound view has the rank (and, for a shaped type, the shape) the access declares.
    /// A mismatch makes reads poison (we give the out-of-bounds value) and drops writes.
    fn view_matches(&self, t: &TensorAcc, dims: &[u64]) -> bool {
        !dims.is_empty()
            && dims.len() == t.rank as usize
            && t.shape
                .is_none_or(|s| self.ir.shapes.get(usize::from(s)).map(|s| &**s) == Some(dims))
    }

    pub(crate) fn tensor_access(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        coord_width: u8,
        access: Access<'_>,
    ) {
        if !self.tensor_group(t, coords, signed, coord_width, access) {
            for lane in self.lo..self.hi {
                if self.mask[lane] {
                    self.tensor_lane(t, coords, signed, coord_width, lane, access);
                }
            }
        }
    }

    /// The lane-group path; `false` if the descriptor differs per lane.
    fn tensor_group(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        access: Access<'_>,
    ) -> bool {
        let DescIdx::Const(c) = t.desc else {
            return false;
        };
        let (lo, n) = (self.lo, self.hi);
        let view = match self.env.bindings.get(t.slot, u64::from(c)) {
            Some(Bound::Tensor(view)) => compat(t.elem, view.format)
                .filter(|_| self.view_matches(t, &view.dims) && coords.len() == view.dims.len())
                .map(|size| (view, size)),
            _ => None,
        };
        let Some((view, size)) = view else {
            // Incompatible view, wrong rank or null descriptor: fully out of bounds.
            if let Access::Read { dsts, oob } = access {
                for &d in dsts {
                    for lane in lo..n {
                        if self.mask[lane] {
                            let v = oob.map_or(0, |r| self.get(r, lane));
                            self.set(d, lane, v);
                        }
                    }
                }
            }
            return true;
        };
        let raw = view.raw;
        // outer = byte offset of the outer coordinates, inner = innermost coordinate, ok = in
        // bounds so far. Branch-free lane loops: `outer` wraps instead of saturating, which only
        // matters for lanes `ok` already marks out of bounds, and every access is still checked
        // against `raw`.
        let last = view.dims.len() - 1;
        {
            let (rows, scratch, mask) = self.parts();
            let (outer, inner, ok) = scratch.tensor_rows(n);
            let (outer, inner, ok) = (&mut outer[lo..], &mut inner[lo..], &mut ok[lo..]);
            outer.fill(0);
            ok.copy_from_slice(&mask[lo..n]);
            for (k, &cr) in coords.iter().enumerate() {
                by_bytes!(alu::width_bytes(cw), C => {
                    let row = &rows.row::<C>(cr)[lo..n];
                    if k == last {
                        for ((o, &c), s) in inner.iter_mut().zip(row).zip(ok.iter_mut()) {
                            *o = c.get();
                            if signed {
                                *s &= alu::sext(c.get(), cw) >= 0;
                            }
                        }
                    } else {
                        let (dim, stride) = (view.dims[k], view.strides[k]);
                        for ((s, &c), o) in ok.iter_mut().zip(row).zip(outer.iter_mut()) {
                            let c = c.get();
                            let neg = signed && alu::sext(c, cw) < 0;
                            *s &= !neg & (c < dim);
                            *o = o.wrapping_add(c.wrapping_mul(stride));
                        }
                    }
                });
            }
        }
        let (dim, stride) = (view.dims[last], view.strides[last]);
        let is_bool = t.elem == ScalarType::Bool;
        match access {
            Access::Read { dsts: &[d], oob } if !is_bool => {
                by_bytes!(size, T => self.tensor_read1::<T>(raw, dim, stride, d, oob));
                return true;
            }
            Access::Write { values: &[v] } if !is_bool => {
                by_bytes!(size, T => self.tensor_write1::<T>(raw, dim, stride, v));
                return true;
            }
            _ => {}
        }
        let off = |base: u64, inner: u64, j: u64| -> Option<u64> {
            let e = inner.checked_add(j)?;
            (e < dim).then(|| base.saturating_add(e.saturating_mul(stride)))
        };
        match access {
            Access::Read { dsts, oob } => {
                for (j, &d) in dsts.iter().enumerate() {
                    for lane in lo..n {
                        if !self.mask[lane] {
                            continue;
                        }
                        let (outer, inner, ok) = self.scratch.tensor_lane(lane);
                        let v = if ok {
                            off(outer, inner, j as u64).and_then(|o| raw.load(o, size))
                        } else {
                            None
                        };
                        let v = match v {
                            Some(v) if is_bool => u64::from(v != 0),
                            Some(v) => v,
                            None => oob.map_or(0, |r| self.get(r, lane)),
                        };
                        self.set(d, lane, v);
                    }
                }
            }
            Access::Write { values } => {
                for (j, &v) in values.iter().enumerate() {
                    for lane in lo..n {
                        let (outer, inner, ok) = self.scratch.tensor_lane(lane);
                        if ok && let Some(o) = off(outer, inner, j as u64) {
                            let x = self.get(v, lane);
                            raw.store(o, size, if is_bool { u64::from(x != 0) } else { x });
                        }
                    }
                }
            }
        }
        true
    }

    /// [`Self::tensor_group`]'s read of one element per lane (`T` wide).
    #[inline(always)]
    fn tensor_read1<T: Lane>(&mut self, raw: Raw, dim: u64, stride: u64, d: Reg, oob: Option<Reg>) {
        let (lo, n) = (self.lo, self.hi);
        let (mut rows, scratch, mask) = self.parts();
        let (outer, inner, ok, fallback) = scratch.tensor_rows_with_fallback(n);
        let (outer, inner, ok, fallback) =
            (&outer[lo..], &inner[lo..], &ok[lo..], &mut fallback[lo..]);
        match oob {
            Some(r) => {
                for (f, &x) in fallback.iter_mut().zip(&rows.row::<T>(r)[lo..n]) {
                    *f = x.get();
                }
            }
            None => fallback.fill(0),
        }
        let out = &mut rows.row_mut::<T>(d)[lo..n];
        for (((o, &m), (&s, (&base, &inner))), &fb) in out
            .iter_mut()
            .zip(&mask[lo..n])
            .zip(ok.iter().zip(outer.iter().zip(inner.iter())))
            .zip(fallback.iter())
        {
            let v = if s && inner < dim {
                raw.load(base.wrapping_add(inner.wrapping_mul(stride)), T::BYTES)
            } else {
                None
            };
            if m {
                *o = T::put(v.unwrap_or(fb));
            }
        }
    }

    /// [`Self::tensor_group`]'s write of one element per lane (`T` wide).
    #[inline(always)]
    fn tensor_write1<T: Lane>(&mut self, raw: Raw, dim: u64, stride: u64, v: Reg) {
        let (lo, n) = (self.lo, self.hi);
        let (rows, scratch, _) = self.parts();
        let (outer, inner, ok) = scratch.tensor_rows(n);
        let (outer, inner, ok) = (&outer[lo..], &inner[lo..], &ok[lo..]);
        let values = &rows.row::<T>(v)[lo..n];
        for ((&x, &s), (&base, &inner)) in values
            .iter()
            .zip(ok.iter())
            .zip(outer.iter().zip(inner.iter()))
        {
            if s && inner < dim {
                raw.store(
                    base.wrapping_add(inner.wrapping_mul(stride)),
                    T::BYTES,
                    x.get(),
                );
            }
        }
    }

    /// One lane's tensor read or write (each element checked on its own).
    fn tensor_lane(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        lane: usize,
        access: Access<'_>,
    ) {
        // Location of element 0 of the run (None = whole access out of bounds / incompatible).
        let mut loc: Option<(Raw, usize, u64, u64, u64, u64)> = None; // raw, size, base, inner, dim, stride
        if let Some(view) = self.tensor_view(t, lane)
            && let (Some(size), true) = (
                compat(t.elem, view.format),
                self.view_matches(t, &view.dims),
            )
        {
            let (dims, strides) = (&view.dims, &view.strides);
            let mut base = 0u64;
            let mut ok = coords.len() == dims.len();
            let mut inner = 0;
            for (k, &c) in coords.iter().enumerate() {
                if !ok {
                    break;
                }
                let raw_c = self.get(c, lane);
                let c = if signed {
                    let s = alu::sext(raw_c, cw);
                    if s < 0 {
                        ok = false;
                        break;
                    }
                    s as u64
                } else {
                    raw_c
                };
                if k + 1 == coords.len() {
                    inner = c;
                } else {
                    if c >= dims[k] {
                        ok = false;
                        break;
                    }
                    match c.checked_mul(strides[k]).and_then(|x| x.checked_add(base)) {
                        Some(b) => base = b,
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if ok {
                let last = dims.len() - 1;
                loc = Some((view.raw, size, base, inner, dims[last], strides[last]));
            }
        }
        let elem_off = |j: u64| -> Option<(Raw, usize, u64)> {
            let (raw, size, base, inner, dim, stride) = loc?;
            let c = inner.checked_add(j)?;
            if c >= dim {
                return None;
            }
            Some((raw, size, c.checked_mul(stride)?.checked_add(base)?))
        };
        let is_bool = t.elem == ScalarType::Bool;
        match access {
            Access::Read { dsts, oob } => {
                let fallback = oob.map_or(0, |r| self.get(r, lane));
                for (j, &d) in dsts.iter().enumerate() {
                    let v = elem_off(j as u64)
                        .and_then(|(raw, size, off)| raw.load(off, size))
                        .map(|v| if is_bool { u64::from(v != 0) } else { v })
                        .unwrap_or(fallback);
                    self.set(d, lane, v);
                }
            }
            Access::Write { values } => {
                for (j, &r) in values.iter().enumerate() {
                    if let Some((raw, size, off)) = elem_off(j as u64) {
                        let x = self.get(r, lane);
                        raw.store(off, size, if is_bool { u64::from(x != 0) } else { x });
                    }
                }
            }
        }
    }
}
