//! Tiles: a cache for strided tensor reads in loops whose innermost coordinate is the loop's
//! uniform counter, such as a dense layer's `W[row, k]` with one lane per row.
//!
//! Such a read gathers 16 elements one row apart each iteration; rows a power of two apart map
//! to one L1 set, so every element comes from L2. A tile instead reads each lane's next 16
//! elements with 4 vector loads (one cache line a lane), transposes the 16×16 block in registers
//! and keeps it in a 1 KiB stack slot: the next 15 iterations read their element vectors from
//! the slot (4 loads), and the block's lines are each read once.
//!
//! A site's tile is tagged with the byte offset (plus one; 0 = empty) of its lane 0, element 0:
//! with the lane step and the element step fixed for the site (call invariants), that offset
//! decides every byte the tile holds, so a read whose `base - sub·estep` equals the tag finds its
//! elements there. Tags live in Cranelift variables, which start at 0 in every call, and every op
//! that may write memory (`!Op::is_pure`: stores, tensor writes, atomics, barriers, callouts of
//! those) empties every tile. A tile is filled only where its first element is the one being
//! read (`sub == 0`), so a read whose coordinate jumps about never pays for fills it cannot use,
//! and only when all 16·16 elements lie inside the tensor's window (`step < 2^40`, packed
//! elements, `base0 + 15·step + 64 <= len`).
//!
//! Only reads of a tensor known at compile time get tiles: through an array indexed at run time,
//! one offset may lie in another tensor each iteration.
//!
//! Invariant: a tile's bytes are what the window held when it was filled, and nothing wrote
//! memory since (within this call; other invocations' unsynchronised writes are a data race).

use std::collections::{BTreeMap, HashMap};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::*;
use cranelift_codegen::ir::{Block, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::Variable;
use tessera_spirv::ir::{DescIdx, Ir, Op};

use super::Gen;
use super::values::{lane_flags, own_flags};
use crate::classes::{Class, LANES};

/// Elements a tile holds per lane (one 64-byte line of 4-byte elements).
const DEPTH: usize = 16;
/// Element size the tiles handle.
const ELEM: usize = 4;

/// One tile: its tag variable and its stack slot.
#[derive(Clone, Copy)]
pub(crate) struct Tile {
    tag: Variable,
    slot: StackSlot,
}

/// A read's tile lookup, for the fill in its strided path.
#[derive(Clone, Copy)]
pub(crate) struct TileProbe {
    tile: Tile,
    /// The element the read wants: its innermost coordinate mod 16 (`I64`).
    sub: Value,
    /// The byte offset of the tile's lane 0, element 0, and that plus one (the tag).
    base0: Value,
    want: Value,
    /// Reads the element vectors from the tile and jumps to the read's join.
    read: Block,
}

/// The tiles of a function, by the (block, op index) of their read.
#[derive(Default)]
pub(crate) struct Tiles {
    sites: BTreeMap<(u32, usize), Tile>,
}

/// Whether block `blk` lies on a cycle of the control-flow graph.
fn in_loop(ir: &Ir, blk: usize) -> bool {
    let mut seen = vec![false; ir.blocks.len()];
    let mut stack: Vec<usize> = ir.blocks[blk]
        .term
        .edges()
        .iter()
        .map(|e| e.target as usize)
        .collect();
    while let Some(b) = stack.pop() {
        if b == blk {
            return true;
        }
        if b >= seen.len() || std::mem::replace(&mut seen[b], true) {
            continue;
        }
        stack.extend(ir.blocks[b].term.edges().iter().map(|e| e.target as usize));
    }
    false
}

impl Gen<'_> {
    /// Declares a tile for every tensor read that may use one: in a loop, one element of 4
    /// bytes, its innermost coordinate uniform and another affine, of a tensor known at compile
    /// time (through an array indexed at run time, the same offset may be another tensor's). Before any code is
    /// generated, so that every store can empty every tile.
    pub(crate) fn plan_tiles(&mut self) {
        let ir = self.ir;
        let mut loops: HashMap<usize, bool> = HashMap::new();
        for (bi, block) in ir.blocks.iter().enumerate() {
            for (k, op) in block.ops.iter().enumerate() {
                let Op::TensorRead {
                    tensor,
                    coords,
                    dsts,
                    ..
                } = op
                else {
                    continue;
                };
                let Some((&innermost, outer)) = coords.split_last() else {
                    continue;
                };
                let class = |r: u32| self.classes[r as usize];
                if dsts.len() != 1
                    || !matches!(tensor.desc, DescIdx::Const(_))
                    || tensor.elem.bytes() != ELEM
                    || class(innermost) != Class::Uniform
                    || !outer.iter().any(|&c| matches!(class(c), Class::Affine(_)))
                    || !*loops.entry(bi).or_insert_with(|| in_loop(ir, bi))
                {
                    continue;
                }
                let tag = self.b.declare_var(I64);
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    (LANES * DEPTH * ELEM) as u32,
                    4,
                ));
                self.tiles.sites.insert((bi as u32, k), Tile { tag, slot });
            }
        }
    }

    /// Empties every tile (an op that may write memory is being generated).
    pub(crate) fn invalidate_tiles(&mut self) {
        if self.tiles.sites.is_empty() {
            return;
        }
        let zero = self.b.ins().iconst(I64, 0);
        let tags: Vec<Variable> = self.tiles.sites.values().map(|t| t.tag).collect();
        for tag in tags {
            self.b.def_var(tag, zero);
        }
    }

    /// Looks the read at `self.at` up in its tile, if it has one: on a hit, jumps to `join` with
    /// the 4 element vectors (the tile's bytes were in the window when it was filled, and the
    /// caller checked the coordinates already); otherwise continues in a new block, and the
    /// returned probe lets the strided path fill the tile (`tile_fill`). `base` is lane 0's
    /// byte offset, `estep` the byte step between elements, `coord` the innermost coordinate
    /// (`I64`).
    pub(crate) fn tile_probe(
        &mut self,
        base: Value,
        estep: Value,
        coord: Value,
        join: Block,
    ) -> Option<TileProbe> {
        let &tile = self.tiles.sites.get(&self.at)?;
        if self.mask.is_some() {
            return None;
        }
        let sub = self.b.ins().band_imm_s(coord, (DEPTH - 1) as i64);
        let back = self.b.ins().imul(sub, estep);
        let base0 = self.b.ins().isub(base, back);
        let want = self.b.ins().iadd_imm_s(base0, 1);
        let tag = self.b.use_var(tile.tag);
        let hit = self.b.ins().icmp(IntCC::Equal, tag, want);
        let read = self.b.create_block();
        let miss = self.b.create_block();
        self.b.ins().brif(hit, read, &[], miss, &[]);
        self.b.switch_to_block(read);
        let slot = self.b.ins().stack_addr(I64, tile.slot, 0);
        let off = self.b.ins().imul_imm_s(sub, (LANES * ELEM) as i64);
        let at = self.b.ins().iadd(slot, off);
        let vs: Vec<cranelift_codegen::ir::BlockArg> = (0..LANES / 4)
            .map(|v| {
                let x = self.b.ins().load(I32X4, own_flags(), at, (16 * v) as i32);
                cranelift_codegen::ir::BlockArg::Value(x)
            })
            .collect();
        self.b.ins().jump(join, &vs);
        self.b.switch_to_block(miss);
        Some(TileProbe {
            tile,
            sub,
            base0,
            want,
            read,
        })
    }

    /// In the strided path of a read that missed its tile: fills the tile and reads it when
    /// this read is at the tile's first element and the whole tile lies in the window
    /// (`ptr`, `len`), else continues in a new block (the per-lane path). `step` is the byte
    /// step between lanes, `estep` between elements.
    pub(crate) fn tile_fill(
        &mut self,
        probe: &TileProbe,
        ptr: Value,
        len: Value,
        step: Value,
        estep: Value,
    ) {
        let TileProbe {
            tile,
            sub,
            base0,
            want,
            read,
        } = *probe;
        let fill = self.b.create_block();
        let gather = self.b.create_block();
        let first = self.b.ins().icmp_imm_s(IntCC::Equal, sub, 0);
        let packed = self.b.ins().icmp_imm_s(IntCC::Equal, estep, ELEM as i64);
        let step_ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, step, 1 << 40);
        let lanes_span = self.b.ins().imul_imm_s(step, LANES as i64 - 1);
        let span = self.b.ins().iadd_imm_s(lanes_span, (DEPTH * ELEM) as i64);
        let span_fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, span, len);
        let room = self.b.ins().isub(len, span);
        let within = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, base0, room);
        let mut ok = self.b.ins().band(first, packed);
        for c in [step_ok, span_fits, within] {
            ok = self.b.ins().band(ok, c);
        }
        self.b.ins().brif(ok, fill, &[], gather, &[]);

        self.b.switch_to_block(fill);
        let slot = self.b.ins().stack_addr(I64, tile.slot, 0);
        // Four lanes at a time (few live values, so that filling spills nothing the loop keeps
        // in registers): lanes 4p..4p+4's elements 4q..4q+4 form a 4×4 block; its column r is
        // element j = 4q + r of those lanes, stored at (16·j + 4·p)·4 bytes of the slot, so
        // element j's 16 lanes are 64 contiguous bytes.
        let mut addr = self.b.ins().iadd(ptr, base0);
        for p in 0..LANES / 4 {
            let mut lanes = [addr; 4];
            for (m, lane) in lanes.iter_mut().enumerate() {
                if p + m > 0 {
                    addr = self.b.ins().iadd(addr, step);
                }
                *lane = addr;
            }
            for q in 0..DEPTH / 4 {
                let [a, b, c, d] = lanes.map(|at| {
                    self.b
                        .ins()
                        .load(I32X4, super::values::app_flags(), at, (16 * q) as i32)
                });
                let ab_lo = self.shuffle32(a, b, [0, 4, 1, 5]);
                let cd_lo = self.shuffle32(c, d, [0, 4, 1, 5]);
                let ab_hi = self.shuffle32(a, b, [2, 6, 3, 7]);
                let cd_hi = self.shuffle32(c, d, [2, 6, 3, 7]);
                let cols = [
                    self.shuffle32(ab_lo, cd_lo, [0, 1, 4, 5]),
                    self.shuffle32(ab_lo, cd_lo, [2, 3, 6, 7]),
                    self.shuffle32(ab_hi, cd_hi, [0, 1, 4, 5]),
                    self.shuffle32(ab_hi, cd_hi, [2, 3, 6, 7]),
                ];
                for (r, col) in cols.into_iter().enumerate() {
                    let j = 4 * q + r;
                    let at = ((LANES * j + 4 * p) * ELEM) as i32;
                    self.b.ins().store(own_flags(), col, slot, at);
                }
            }
        }
        self.b.def_var(tile.tag, want);
        self.b.ins().jump(read, &[]);
        self.b.switch_to_block(gather);
    }

    /// Lanes `idx` (0..4 from `x`, 4..8 from `y`) of two `I32X4` vectors.
    pub(super) fn shuffle32(&mut self, x: Value, y: Value, idx: [u8; 4]) -> Value {
        let mut mask = [0u8; 16];
        for (k, &l) in idx.iter().enumerate() {
            for byte in 0..4 {
                mask[4 * k + byte] = 4 * l + byte as u8;
            }
        }
        let imm = self.b.func.dfg.immediates.push(mask.to_vec().into());
        let xb = self.b.ins().bitcast(I8X16, lane_flags(), x);
        let yb = self.b.ins().bitcast(I8X16, lane_flags(), y);
        let s = self.b.ins().shuffle(xb, yb, imm);
        self.b.ins().bitcast(I32X4, lane_flags(), s)
    }
}
