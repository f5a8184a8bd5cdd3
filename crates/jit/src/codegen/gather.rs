//! Tensor reads and writes at coordinates that vary from lane to lane in no affine way (a flat
//! index split by division and remainder, clamped or gathered coordinates): each lane's byte
//! offset and bounds are computed on its own, once per access; a chunk with a lane out of
//! bounds takes the edge path (`edge`: each element checked, reading the `oob` value or
//! dropping the write), and a chunk whose lanes turn out to hold back-to-back packed runs
//! takes the vector path, checked at run time. (A flat index split over a view whose sizes
//! are the divisors is caught before this path, with no per-lane offsets: `flat`.)
//!
//! Before any per-lane offset, a chunk checks its 32-bit coordinates themselves (`run_path`):
//! when the innermost one holds `x0 + i·count` in lane `i` and every other one the same value
//! in all lanes (a clamp that clamps nothing, workgroup ids of one-invocation workgroups in a
//! row), the access is affine after all, and takes the affine bounds check and the vector
//! load or store.
//!
//! Invariants: no load or store happens before every lane's coordinates were checked against
//! the view's dimensions; in bounds, an element lies inside the window (`ok` includes the
//! view's footprint, as for the affine paths in `memory`).

use crate::error::JitResult;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::ir::{Reg, TensorAcc};

use super::Gen;
use super::tensor::coords_fit;
use super::values::{JVal, app_flags, per_vec, scalar_ty, vec_ty};
use crate::classes::LANES;

/// Each lane's byte offset of its first element, and whether every lane is in bounds.
struct LaneOffsets {
    offsets: Offsets,
    all_in: Value,
    /// Bytes between consecutive elements of a lane's run (the innermost stride).
    element_step: Value,
}

/// The lanes' offsets: 16 `I64` scalars, or 8 `I64X2` vectors (lanes `2v`, `2v + 1`), what
/// 32-bit coordinates give.
enum Offsets {
    Lanes(Vec<Value>),
    Pairs(Vec<Value>),
}

impl Gen<'_> {
    /// The lanes' offsets of an access of `count` elements from `coords` (`cw`-bit coordinates,
    /// `signed` as the op says), or `None` for an access this path does not take (64-bit
    /// coordinates, a rank the site table does not hold).
    #[allow(clippy::too_many_arguments)]
    fn lane_offsets(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        count: usize,
        dims: Value,
        strides: Value,
        ok: Value,
    ) -> Option<LaneOffsets> {
        let cb = usize::from(cw / 8).max(1);
        if !coords_fit(t, coords, cw) {
            return None;
        }
        if self.takes_runs(t, coords, cw) {
            return Some(self.lane_offsets_vectors(coords, signed, count, dims, strides, ok));
        }
        let last = coords.len() - 1;
        let values: Vec<(JVal, usize)> = coords
            .iter()
            .map(|&c| (self.get(c), self.bytes(c)))
            .collect();
        let mut offsets = vec![self.b.ins().iconst(I64, 0); LANES];
        // `ok` is 0 or 1: the site's view matches the access.
        let mut all_in = self.b.ins().ireduce(I8, ok);
        let mut element_step = None;
        for (k, (v, bytes)) in values.iter().enumerate() {
            let dim = self.inv_load(I64, dims, (8 * k) as i32);
            let stride = self.inv_load(I64, strides, (8 * k) as i32);
            // The last coordinate's run of `count` must fit: x + count - 1 < dim, i.e.
            // x < dim - (count - 1) (dims are below 2^40: no overflow either way).
            let limit = if k == last {
                self.b.ins().iadd_imm_s(dim, -(count as i64 - 1))
            } else {
                dim
            };
            for (i, offset) in offsets.iter_mut().enumerate() {
                // The coordinate is the low `cw` bits of the register's lane.
                let x = self.lane(v, *bytes, i);
                let x = self.fit(x, scalar_ty(cb));
                let x = if signed {
                    self.b.ins().sextend(I64, x)
                } else {
                    self.b.ins().uextend(I64, x)
                };
                // 0 <= x < limit as signed 64-bit values (a zero-extended x is never negative).
                let below = self.b.ins().icmp(IntCC::SignedLessThan, x, limit);
                let inside = if signed {
                    let nonneg = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x, 0);
                    self.b.ins().band(nonneg, below)
                } else {
                    below
                };
                all_in = self.b.ins().band(all_in, inside);
                let term = self.b.ins().imul(x, stride);
                *offset = self.b.ins().iadd(*offset, term);
            }
            if k == last {
                element_step = Some(stride);
            }
        }
        Some(LaneOffsets {
            offsets: Offsets::Lanes(offsets),
            all_in,
            element_step: element_step?,
        })
    }

    /// `lane_offsets` for 32-bit coordinates, four lanes to a vector: the bounds as vector
    /// compares against the dimension clamped to the coordinate's range (a coordinate at the
    /// clamp is reported out of bounds and the interpreter decides), the offsets as `I64X2`
    /// products.
    fn lane_offsets_vectors(
        &mut self,
        coords: &[Reg],
        signed: bool,
        count: usize,
        dims: Value,
        strides: Value,
        ok: Value,
    ) -> LaneOffsets {
        let last = coords.len() - 1;
        let zero = self.b.ins().iconst(I64, 0);
        let mut mask: Option<Value> = None;
        let mut element_step = zero;
        let top = if signed {
            i64::from(i32::MAX)
        } else {
            i64::from(u32::MAX)
        };
        // Per coordinate: its 16 lanes (four `I32X4`) and its stride.
        let mut terms = Vec::with_capacity(coords.len());
        // Whether every in-bounds offset fits in 32 bits: each (dim - 1)·stride below 2³² (dim
        // and stride each below 2³², so no product wraps), and so their sum (at most 8 terms,
        // below 2³⁵).
        let mut extent = zero;
        let mut narrow = self.b.ins().iconst(I8, 1);
        for (k, &c) in coords.iter().enumerate() {
            let v = self.get(c);
            let xs = self.vectors(&v, 4);
            let dim = self.inv_load(I64, dims, (8 * k) as i32);
            let stride = self.inv_load(I64, strides, (8 * k) as i32);
            let limit = if k == last {
                self.b.ins().iadd_imm_s(dim, -(count as i64 - 1))
            } else {
                dim
            };
            let limit = self.b.ins().smax(limit, zero);
            let cap = self.b.ins().iconst(I64, top);
            let limit = self.b.ins().smin(limit, cap);
            let limit = self.b.ins().ireduce(I32, limit);
            let limits = self.b.ins().splat(I32X4, limit);
            for &x in &xs {
                // Signed: 0 <= x < limit; unsigned: x < limit (limit <= 2^32 - 1).
                let inside = if signed {
                    let below = self.b.ins().icmp(IntCC::SignedLessThan, x, limits);
                    let z = self.b.ins().iconst(I32, 0);
                    let zs = self.b.ins().splat(I32X4, z);
                    let nonneg = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, x, zs);
                    self.b.ins().band(below, nonneg)
                } else {
                    self.b.ins().icmp(IntCC::UnsignedLessThan, x, limits)
                };
                mask = Some(match mask {
                    None => inside,
                    Some(m) => self.b.ins().band(m, inside),
                });
            }
            let reach = self.b.ins().iadd_imm_s(dim, -1);
            let u32_max = i64::from(u32::MAX);
            for bounded in [reach, stride] {
                let fits =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, bounded, u32_max);
                narrow = self.b.ins().band(narrow, fits);
            }
            // (Clamped so that nothing wraps when `narrow` is already false.)
            let most = self.b.ins().iconst(I64, u32_max);
            let reach = self.b.ins().umin(reach, most);
            let stride32 = self.b.ins().umin(stride, most);
            let term = self.b.ins().imul(reach, stride32);
            let over = self.b.ins().iconst(I64, u32_max + 1);
            let term = self.b.ins().umin(term, over);
            extent = self.b.ins().iadd(extent, term);
            if k == last {
                element_step = stride;
            }
            terms.push((xs, stride));
        }
        let fits =
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, extent, i64::from(u32::MAX));
        let narrow = self.b.ins().band(narrow, fits);
        // In bounds, every coordinate is non-negative: zero-extended either way. Offsets in
        // 32-bit lanes (`pmulld`) when they fit, else in 64-bit pairs.
        let join = self.b.create_block();
        let pairs: Vec<Value> = (0..LANES / 2)
            .map(|_| self.b.append_block_param(join, I64X2))
            .collect();
        let (short, wide) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(narrow, short, &[], wide, &[]);
        self.enter_sealed(short);
        let mut sums: Option<Vec<Value>> = None;
        for (xs, stride) in &terms {
            let stride = self.b.ins().ireduce(I32, *stride);
            let stride = self.b.ins().splat(I32X4, stride);
            let products: Vec<Value> = xs.iter().map(|&x| self.b.ins().imul(x, stride)).collect();
            sums = Some(match sums {
                None => products,
                Some(s) => s
                    .iter()
                    .zip(&products)
                    .map(|(&a, &b)| self.b.ins().iadd(a, b))
                    .collect(),
            });
        }
        let args: Vec<BlockArg> = sums
            .unwrap_or_default()
            .into_iter()
            .flat_map(|x| [self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x)])
            .map(BlockArg::Value)
            .collect();
        self.b.ins().jump(join, &args);
        self.enter_sealed(wide);
        let zeros = self.b.ins().splat(I64X2, zero);
        let mut offsets = vec![zeros; LANES / 2];
        for (xs, stride) in &terms {
            let strides2 = self.b.ins().splat(I64X2, *stride);
            for (j, &x) in xs.iter().enumerate() {
                for (half, wide) in [self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x)]
                    .into_iter()
                    .enumerate()
                {
                    let term = self.b.ins().imul(wide, strides2);
                    let at = &mut offsets[2 * j + half];
                    *at = self.b.ins().iadd(*at, term);
                }
            }
        }
        let args: Vec<BlockArg> = offsets.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);
        self.enter_sealed(join);
        let offsets = pairs;
        let all = match mask {
            Some(m) => self.b.ins().vall_true(m),
            None => self.b.ins().iconst(I8, 1),
        };
        let site = self.b.ins().ireduce(I8, ok);
        LaneOffsets {
            offsets: Offsets::Pairs(offsets),
            all_in: self.b.ins().band(all, site),
            element_step,
        }
    }

    /// The run check of `run_path` for an access this path takes with 32-bit coordinates
    /// (`lane_offsets_vectors`): emits, in the current block, the check that the lanes'
    /// coordinates form one run of `count` elements, in bounds and packed, and in that case
    /// calls `body` with the run's first byte; then continues in a new block for the other
    /// chunks. `body` must end its block. Does nothing for coordinates of another shape.
    #[allow(clippy::too_many_arguments)]
    fn run_path(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        count: usize,
        (ptr, dims, strides, ok): (Value, Value, Value, Value),
        body: impl FnOnce(&mut Self, Value),
    ) {
        let last = coords.len() - 1;
        // A uniform innermost coordinate gives every lane the same element: never a run.
        if self.get(coords[last]).is_scalar() {
            return;
        }
        let mut values = Vec::with_capacity(coords.len());
        let mut same: Option<Value> = None;
        for (k, &c) in coords.iter().enumerate() {
            let v = self.get(c);
            let value = match &v {
                JVal::Varying(xs) => {
                    let x0 = self.b.ins().extractlane(xs[0], 0);
                    let first = self.b.ins().splat(I32X4, x0);
                    let step = if k == last { count as u64 } else { 0 };
                    for (j, &x) in xs.iter().enumerate() {
                        let want = self.const_vec(4, j, |i| step * i as u64);
                        let want = self.b.ins().iadd(first, want);
                        let eq = self.b.ins().icmp(IntCC::Equal, x, want);
                        same = Some(match same {
                            None => eq,
                            Some(a) => self.b.ins().band(a, eq),
                        });
                    }
                    if k == last {
                        JVal::Affine(x0, count as u64)
                    } else {
                        JVal::Uniform(x0)
                    }
                }
                JVal::Affine(_, stride) if k != last || *stride != count as u64 => return,
                other => other.clone(),
            };
            values.push(value);
        }
        let Some(same) = same else {
            return;
        };
        let Some((base, step, estep, inb, _)) =
            self.tensor_affine_of(&values, signed, 32, count, dims, strides, ok)
        else {
            return;
        };
        let size = t.elem.bytes();
        let run = self.b.ins().vall_true(same);
        let packed = self.runs_packed(step, estep, count, size);
        let take = self.b.ins().band(run, inb);
        let take = self.b.ins().band(take, packed);
        let (fast, other) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(take, fast, &[], other, &[]);
        self.enter_sealed(fast);
        // In bounds, so inside the window (`ok` includes the view's footprint).
        let first = self.b.ins().iadd(ptr, base);
        body(self, first);
        self.enter_sealed(other);
    }

    /// Whether the access has 32-bit coordinates in 32-bit registers: `lane_offsets` then
    /// takes them four lanes to a vector (`lane_offsets_vectors`), and `run_path` applies.
    fn takes_runs(&self, t: &TensorAcc, coords: &[Reg], cw: u8) -> bool {
        cw == 32 && coords_fit(t, coords, cw) && coords.iter().all(|&c| self.bytes(c) == 4)
    }

    /// Lane `i`'s offset (`I64`).
    fn lane_offset_of(&mut self, lanes: &LaneOffsets, i: usize) -> Value {
        match &lanes.offsets {
            Offsets::Lanes(v) => v[i],
            Offsets::Pairs(v) => self.b.ins().extractlane(v[i / 2], (i % 2) as u8),
        }
    }

    /// Whether the lanes' runs of `count` elements of `size` bytes lie back to back from lane
    /// 0's (lane `i` at `offsets[0] + i·count·size`, elements `size` apart).
    fn runs_back_to_back(&mut self, lanes: &LaneOffsets, count: usize, size: usize) -> Value {
        let run = (count * size) as i64;
        let mut packed = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, lanes.element_step, size as i64);
        match &lanes.offsets {
            Offsets::Lanes(v) => {
                for i in 1..LANES {
                    let step = self.b.ins().isub(v[i], v[0]);
                    let eq = self.b.ins().icmp_imm_s(IntCC::Equal, step, run * i as i64);
                    packed = self.b.ins().band(packed, eq);
                }
            }
            Offsets::Pairs(v) => {
                // Pair p holds lanes 2p and 2p + 1: compare with lane 0's offset plus
                // (2p, 2p + 1)·run.
                let first = self.b.ins().extractlane(v[0], 0);
                let base = self.b.ins().splat(I64X2, first);
                let mut all: Option<Value> = None;
                for (p, &pair) in v.iter().enumerate() {
                    let lo = self.b.ins().iconst(I64, run * (2 * p) as i64);
                    let hi = self.b.ins().iconst(I64, run * (2 * p + 1) as i64);
                    let want = self.b.ins().scalar_to_vector(I64X2, lo);
                    let want = self.b.ins().insertlane(want, hi, 1);
                    let want = self.b.ins().iadd(base, want);
                    let eq = self.b.ins().icmp(IntCC::Equal, pair, want);
                    all = Some(match all {
                        None => eq,
                        Some(a) => self.b.ins().band(a, eq),
                    });
                }
                if let Some(a) = all {
                    let a = self.b.ins().vall_true(a);
                    packed = self.b.ins().band(packed, a);
                }
            }
        }
        packed
    }

    /// A tensor read at coordinates of any shape (see the module docs). `Ok(false)` when the
    /// access is not one this path takes.
    pub(super) fn tensor_read_lanes(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        dsts: &[Reg],
    ) -> JitResult<bool> {
        let size = t.elem.bytes();
        let count = dsts.len();
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        let vt = vec_ty(size);
        let join = self.b.create_block();
        let params: Vec<Vec<Value>> = (0..count)
            .map(|_| {
                (0..size)
                    .map(|_| self.b.append_block_param(join, vt))
                    .collect()
            })
            .collect();
        if self.takes_runs(t, coords, cw) {
            let site = (ptr, dims, strides, ok);
            self.run_path(t, coords, signed, count, site, |g, first| {
                g.packed_read(first, count, size, join)
            });
        }
        let Some(lanes) = self.lane_offsets(t, coords, signed, cw, count, dims, strides, ok) else {
            return Ok(false);
        };
        let out = self.b.ins().bxor_imm_s(lanes.all_in, 1);
        self.edge_read_if(out, t, coords, signed, cw, count, join)?;
        let packed = self.runs_back_to_back(&lanes, count, size);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.ins().brif(packed, fast, &[], slow, &[]);
        self.enter_sealed(fast);
        let lane0 = self.lane_offset_of(&lanes, 0);
        let first = self.b.ins().iadd(ptr, lane0);
        self.packed_read(first, count, size, join);
        // Lane by lane: element j of lane i at its offset + j·element step.
        self.enter_sealed(slow);
        let ty = scalar_ty(size);
        let pv = per_vec(size);
        let mut args = Vec::new();
        for j in 0..count {
            let ej = self.b.ins().imul_imm_s(lanes.element_step, j as i64);
            let mut cur = None;
            for i in 0..LANES {
                let offset = self.lane_offset_of(&lanes, i);
                let at = self.b.ins().iadd(offset, ej);
                let p = self.b.ins().iadd(ptr, at);
                let x = self.b.ins().load(ty, app_flags(), p, 0);
                cur = Some(match cur {
                    None => self.b.ins().splat(vt, x),
                    Some(c) => self.b.ins().insertlane(c, x, (i % pv) as u8),
                });
                if i % pv == pv - 1 {
                    args.extend(cur.take().map(BlockArg::Value));
                }
            }
        }
        self.b.ins().jump(join, &args);
        self.enter_sealed(join);
        for (d, vs) in dsts.iter().zip(params) {
            self.set(*d, JVal::Varying(vs))?;
        }
        Ok(true)
    }

    /// A tensor write at coordinates of any shape (see the module docs), element-major then in
    /// lane order, as the interpreter writes. `Ok(false)` when the access is not one this path
    /// takes.
    pub(super) fn tensor_write_lanes(
        &mut self,
        t: &TensorAcc,
        coords: &[Reg],
        signed: bool,
        cw: u8,
        values: &[Reg],
    ) -> JitResult<bool> {
        let size = t.elem.bytes();
        let count = values.len();
        let (ptr, _, ok, _, dims, strides) = self.site(t);
        let join = self.b.create_block();
        let vals: Vec<JVal> = values.iter().map(|&v| self.get(v)).collect();
        if self.takes_runs(t, coords, cw) {
            let site = (ptr, dims, strides, ok);
            self.run_path(t, coords, signed, count, site, |g, first| {
                g.packed_write(first, &vals, size);
                g.b.ins().jump(join, &[]);
            });
        }
        let Some(lanes) = self.lane_offsets(t, coords, signed, cw, count, dims, strides, ok) else {
            return Ok(false);
        };
        let out = self.b.ins().bxor_imm_s(lanes.all_in, 1);
        self.edge_write_if(out, t, coords, signed, cw, values, join)?;
        let packed = self.runs_back_to_back(&lanes, count, size);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.ins().brif(packed, fast, &[], slow, &[]);
        self.enter_sealed(fast);
        let lane0 = self.lane_offset_of(&lanes, 0);
        let first = self.b.ins().iadd(ptr, lane0);
        self.packed_write(first, &vals, size);
        self.b.ins().jump(join, &[]);
        self.enter_sealed(slow);
        for (j, v) in vals.iter().enumerate() {
            let ej = self.b.ins().imul_imm_s(lanes.element_step, j as i64);
            for i in 0..LANES {
                let offset = self.lane_offset_of(&lanes, i);
                let at = self.b.ins().iadd(offset, ej);
                let p = self.b.ins().iadd(ptr, at);
                let x = self.lane(v, size, i);
                self.b.ins().store(app_flags(), x, p, 0);
            }
        }
        self.b.ins().jump(join, &[]);
        self.enter_sealed(join);
        Ok(true)
    }
}
