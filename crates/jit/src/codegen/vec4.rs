//! Four 32-bit loads or stores at one strided address and consecutive offsets (`a[i].x`, `.y`,
//! `.z`, `.w` of a `vec4` per lane, as IREE emits for a row per lane): one 16-byte access per
//! lane and a 4×4 transpose per four lanes, instead of sixteen single-lane accesses per
//! component.
//!
//! The first load of such a group ([`Gen::load_group`]) loads all four components; the other
//! three take theirs from `Gen::grouped_loads` when the code generator reaches them (they are
//! the next three ops of the block, so nothing runs in between). The first store of a group
//! ([`Gen::vec4_store_group`]) stores all four (their values are computed before it: stores
//! define no register) and the other three are marked done in `Gen::grouped_stores`. The span
//! check is the strided access's, widened to the 16 bytes of the last lane; when it fails each
//! component goes lane by lane, in op order, as single accesses do.
//!
//! Invariants: a group is formed only when the three ops that follow access the same space
//! through the same address register at offsets +4, +8, +12, with a stride of at least 16 (no
//! two lanes' 16 bytes overlap; a load group at a varying address is `quads`'s), and no load of
//! the group writes that register (so every access
//! of the group sees the address the first one saw); stores under a branch mask are never
//! grouped.

use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use tessera_spirv::ir::{Op, Reg, Space};

use super::Gen;
use super::values::{JVal, app_flags};
use crate::classes::LANES;

/// Lane indices (0..4 from the first input, 4..8 from the second) of the shuffles of a 4×4
/// transpose of 32-bit lanes (x86: `punpckldq`, `punpckhdq`, `punpcklqdq`, `punpckhqdq`).
const UNPACK_LO32: [u8; 4] = [0, 4, 1, 5];
const UNPACK_HI32: [u8; 4] = [2, 6, 3, 7];
const UNPACK_LO64: [u8; 4] = [0, 1, 4, 5];
const UNPACK_HI64: [u8; 4] = [2, 3, 6, 7];

impl Gen<'_> {
    /// Sixteen lanes' `vec4`s (one `I32X4` per lane) as four components of four vectors of
    /// four lanes.
    pub(crate) fn rows_to_components(&mut self, rows: &[Value]) -> [Vec<Value>; 4] {
        let mut comps: [Vec<Value>; 4] = Default::default();
        for four in rows.chunks(4) {
            let t0 = self.shuffle32(four[0], four[1], UNPACK_LO32);
            let t1 = self.shuffle32(four[2], four[3], UNPACK_LO32);
            let t2 = self.shuffle32(four[0], four[1], UNPACK_HI32);
            let t3 = self.shuffle32(four[2], four[3], UNPACK_HI32);
            comps[0].push(self.shuffle32(t0, t1, UNPACK_LO64));
            comps[1].push(self.shuffle32(t0, t1, UNPACK_HI64));
            comps[2].push(self.shuffle32(t2, t3, UNPACK_LO64));
            comps[3].push(self.shuffle32(t2, t3, UNPACK_HI64));
        }
        comps
    }

    /// The inverse of [`Self::rows_to_components`] (a 4×4 transpose is its own inverse).
    fn components_to_rows(&mut self, comps: &[Vec<Value>]) -> Vec<Value> {
        let mut rows = Vec::with_capacity(LANES);
        let quarters = comps[0].iter().zip(&comps[1]).zip(&comps[2]).zip(&comps[3]);
        for (((&c0, &c1), &c2), &c3) in quarters {
            let t0 = self.shuffle32(c0, c1, UNPACK_LO32);
            let t1 = self.shuffle32(c2, c3, UNPACK_LO32);
            let t2 = self.shuffle32(c0, c1, UNPACK_HI32);
            let t3 = self.shuffle32(c2, c3, UNPACK_HI32);
            rows.push(self.shuffle32(t0, t1, UNPACK_LO64));
            rows.push(self.shuffle32(t0, t1, UNPACK_HI64));
            rows.push(self.shuffle32(t2, t3, UNPACK_LO64));
            rows.push(self.shuffle32(t2, t3, UNPACK_HI64));
        }
        rows
    }

    /// The three loads after the current op that complete a group with it (a `size`-byte load
    /// of `space` through `addr` at `offset` into `dst`; the others at `offset + size`,
    /// `+ 2·size`, `+ 3·size`): their op indices and results. A `vec4` group has `size` 4, a
    /// byte group (`quads`) 1.
    pub(super) fn load_group(
        &self,
        space: Space,
        addr: Reg,
        offset: u64,
        dst: Reg,
        size: u8,
    ) -> Option<[(usize, Reg); 3]> {
        let (block, at) = self.at;
        let ops = &self.ir.blocks.get(block as usize)?.ops;
        if dst == addr {
            return None;
        }
        let mut group = [(0, 0); 3];
        for (j, slot) in group.iter_mut().enumerate() {
            let k = at + 1 + j;
            match ops.get(k)? {
                Op::Load {
                    space: s,
                    bytes,
                    dst: d,
                    addr: Some(r),
                    offset: o,
                } if *s == space
                    && *bytes == size
                    && *r == addr
                    && *d != addr
                    && *o == offset.checked_add(u64::from(size) * (j as u64 + 1))? =>
                {
                    *slot = (k, *d);
                }
                _ => return None,
            }
        }
        Some(group)
    }

    /// The three stores after the current op that complete a `vec4` group with it (a 4-byte
    /// store to `space` through `addr` at `offset`): their op indices and values.
    pub(super) fn vec4_store_group(
        &self,
        space: Space,
        addr: Reg,
        offset: u64,
    ) -> Option<[(usize, Reg); 3]> {
        let (block, at) = self.at;
        let ops = &self.ir.blocks.get(block as usize)?.ops;
        let mut group = [(0, 0); 3];
        for (j, slot) in group.iter_mut().enumerate() {
            let k = at + 1 + j;
            match ops.get(k)? {
                Op::Store {
                    space: s,
                    bytes: 4,
                    value,
                    addr: Some(r),
                    offset: o,
                } if *s == space
                    && *r == addr
                    && *o == offset.checked_add(4 * (j as u64 + 1))? =>
                {
                    *slot = (k, *value);
                }
                _ => return None,
            }
        }
        Some(group)
    }

    /// Stores `comps` (four components, each four vectors of four lanes) as a `vec4` per lane
    /// at `base + lane·stride + offset` (see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vec4_store(
        &mut self,
        ptr: Value,
        len: Value,
        base: Value,
        abytes: usize,
        stride: u64,
        a: &Option<(JVal, usize)>,
        offset: u64,
        comps: &[JVal; 4],
    ) {
        let span = (LANES as u64 - 1) * stride + 16;
        let (p, ok) = self.checked_lanes(ptr, len, base, abytes, offset, stride, span);
        self.vec4_rows_store(p, ok, stride, comps, |g, c, comp| {
            g.scatter(ptr, len, a, offset + 4 * c as u64, 4, comp);
        });
    }

    /// The four components of a `vec4` per lane at `base + lane·stride + offset` (see the
    /// module docs): `[component][quarter]` vectors of four lanes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vec4_load(
        &mut self,
        ptr: Value,
        len: Value,
        base: Value,
        abytes: usize,
        stride: u64,
        a: &Option<(JVal, usize)>,
        offset: u64,
    ) -> [Vec<Value>; 4] {
        let span = (LANES as u64 - 1) * stride + 16;
        let (p, ok) = self.checked_lanes(ptr, len, base, abytes, offset, stride, span);
        self.vec4_rows_load(p, ok, stride, |g, c| {
            g.gather_lanes(ptr, len, a, offset + 4 * c, 4)
        })
    }

    /// [`Self::vec4_load`] at device addresses: one lookup of the 16 lanes' span; lanes that
    /// straddle or miss an allocation go one by one (0 where nothing is mapped).
    pub(super) fn physical_vec4_load(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
        stride: u64,
    ) -> [Vec<Value>; 4] {
        let (span, p, ok) = self.physical_span(a, offset, 16);
        self.vec4_rows_load(p, ok, stride, |g, c| {
            g.lanes_to_vectors(4, |g, i| {
                let at = g.b.ins().iadd_imm_s(span.lanes[i], 4 * c as i64);
                let (q, lane_ok) = g.physical_address(at, 4);
                let x = g.b.ins().load(I32, app_flags(), q, 0);
                let z = g.b.ins().iconst(I32, 0);
                g.b.ins().select(lane_ok, x, z)
            })
        })
    }

    /// The shape both `vec4` loads share: when `ok`, a 16-byte load per lane from `p` at
    /// `lane·stride` and the transpose; else component `c`'s vectors from `slow(c)`.
    fn vec4_rows_load(
        &mut self,
        p: Value,
        ok: Value,
        stride: u64,
        mut slow: impl FnMut(&mut Self, u64) -> Vec<Value>,
    ) -> [Vec<Value>; 4] {
        let join = self.b.create_block();
        let params: Vec<Value> = (0..16)
            .map(|_| self.b.append_block_param(join, I32X4))
            .collect();
        let (fast, slow_block) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow_block, &[]);

        self.enter_sealed(fast);
        let rows: Vec<Value> = (0..LANES)
            .map(|lane| {
                self.b
                    .ins()
                    .load(I32X4, app_flags(), p, (lane as u64 * stride) as i32)
            })
            .collect();
        let comps = self.rows_to_components(&rows);
        let args: Vec<BlockArg> = comps
            .iter()
            .flatten()
            .map(|&v| BlockArg::Value(v))
            .collect();
        self.b.ins().jump(join, &args);

        self.enter_sealed(slow_block);
        let mut args = Vec::with_capacity(16);
        for c in 0..4u64 {
            args.extend(slow(self, c).into_iter().map(BlockArg::Value));
        }
        self.b.ins().jump(join, &args);

        self.enter_sealed(join);
        let mut out: [Vec<Value>; 4] = Default::default();
        for (c, comp) in out.iter_mut().enumerate() {
            comp.extend_from_slice(&params[4 * c..4 * c + 4]);
        }
        out
    }

    /// [`Self::vec4_store`] at device addresses (never under a branch mask): one lookup of the
    /// 16 lanes' span; lanes that straddle or miss an allocation go one by one, component by
    /// component (a store where nothing is mapped is dropped).
    pub(super) fn physical_vec4_store(
        &mut self,
        a: &Option<(JVal, usize)>,
        offset: u64,
        stride: u64,
        comps: &[JVal; 4],
    ) {
        let (span, p, ok) = self.physical_span(a, offset, 16);
        self.vec4_rows_store(p, ok, stride, comps, |g, c, comp| {
            for i in 0..LANES {
                let at = g.b.ins().iadd_imm_s(span.lanes[i], 4 * c as i64);
                let (q, _) = g.physical_address(at, 4);
                let x = g.lane(comp, 4, i);
                g.b.ins().store(app_flags(), x, q, 0);
            }
        });
    }

    /// The shape both `vec4` stores share: when `ok`, the transpose and a 16-byte store per
    /// lane to `p` at `lane·stride`; else `slow(c, comp)` stores component `c`, in order.
    fn vec4_rows_store(
        &mut self,
        p: Value,
        ok: Value,
        stride: u64,
        comps: &[JVal; 4],
        mut slow: impl FnMut(&mut Self, usize, &JVal),
    ) {
        let vecs: Vec<Vec<Value>> = comps.iter().map(|c| self.vectors(c, 4)).collect();
        let join = self.b.create_block();
        let (fast, slow_block) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow_block, &[]);

        self.enter_sealed(fast);
        let rows = self.components_to_rows(&vecs);
        for (lane, row) in rows.into_iter().enumerate() {
            self.b
                .ins()
                .store(app_flags(), row, p, (lane as u64 * stride) as i32);
        }
        self.b.ins().jump(join, &[]);

        self.enter_sealed(slow_block);
        for (c, comp) in comps.iter().enumerate() {
            slow(self, c, comp);
        }
        self.b.ins().jump(join, &[]);
        self.enter_sealed(join);
    }
}
