//! What each register looks like across the [`LANES`] lanes of a chunk, assuming the chunk runs
//! *convergently* (all its lanes active and taking the same branches; compiled code checks
//! this and hands the chunk to the interpreter when it breaks):
//! - [`Class::Const`]: one known value in every lane;
//! - [`Class::Uniform`]: one value in every lane, known at run time (a scalar in compiled code);
//! - [`Class::Affine`]: lane `i` holds `base + i·stride` modulo 2^width (a scalar base);
//! - [`Class::Varying`]: anything (vectors).
//!
//! The classes are flow-insensitive (one per register, the join over all its definitions), so
//! compiled code keeps each register in one representation everywhere. Built-ins get their
//! class from the lane grouping ([`builtin_classes`]); the fixed point then runs over the ops and
//! edge copies. The local invocation index, when chunks are aligned to it, also makes the
//! subgroup id uniform and the subgroup invocation id affine ([`aligned_index`]).
//! Divergence that compiled code runs under masks makes the registers that merge values of
//! several lanes' paths varying ([`divergence_rules`]), and a loop whose lanes may leave at
//! different iterations (masked or stepped) makes what it writes varying after its exits
//! ([`loop_exit_rules`]).

use tessera_spirv::alu::{self, Conv, IBin};
use tessera_spirv::exec::GroupShape;
use tessera_spirv::ir::liveness::Liveness;
use tessera_spirv::ir::{DescIdx, Ir, Op, Reg, RegType, Space};

/// Lanes per chunk: the unit compiled code runs (one 16-byte vector per byte of lane width).
pub const LANES: usize = 16;

/// The shape of a register's values across a chunk's lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Not defined anywhere yet (the fixed point's bottom).
    Undefined,
    Const(u64),
    Uniform,
    /// `base + i·stride` (stride reduced modulo 2^width, never 0: that is `Uniform`).
    Affine(u64),
    Varying,
}

impl Class {
    fn join(self, other: Class) -> Class {
        use Class::*;
        match (self, other) {
            (Undefined, x) | (x, Undefined) => x,
            (Const(a), Const(b)) if a == b => Const(a),
            (Const(_) | Uniform, Const(_) | Uniform) => Uniform,
            (Affine(a), Affine(b)) if a == b => Affine(a),
            _ => Varying,
        }
    }

    /// Uniform or constant.
    pub fn is_uniform(self) -> bool {
        matches!(self, Class::Const(_) | Class::Uniform | Class::Undefined)
    }
}

/// `v` modulo 2^bits.
pub fn wrap(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn bits_of(t: RegType) -> u32 {
    (t.bytes() * 8) as u32
}

/// The classes of the built-in registers for chunks of [`LANES`] lanes of a lane group of
/// `shape`: a component is affine (stride 1) or uniform when it is so in *every* chunk of the
/// group, else varying.
pub fn builtin_classes(ir: &Ir, shape: &GroupShape) -> Vec<(Reg, Class)> {
    let lanes = shape.lanes as usize;
    let wgs = shape.wg_size as usize;
    let [lx, ly, _] = shape.local;
    // Per lane: (workgroup in group, local x, y, z, local index).
    let lane = |i: usize| -> [u64; 5] {
        let (k, li) = (i / wgs, i % wgs);
        let li32 = li as u32;
        [
            k as u64,
            u64::from(li32 % lx),
            u64::from((li32 / lx) % ly),
            u64::from(li32 / (lx * ly)),
            li as u64,
        ]
    };
    // How component `f` behaves over every full chunk: Some(0) uniform, Some(1) affine, None.
    let pattern = |f: &dyn Fn([u64; 5]) -> u64| -> Option<u64> {
        let mut stride = None;
        for c in 0..lanes / LANES {
            let first = f(lane(c * LANES));
            let s = f(lane(c * LANES + 1)).wrapping_sub(first);
            if s > 1 {
                return None;
            }
            if (0..LANES).any(|i| f(lane(c * LANES + i)) != first.wrapping_add(s * i as u64)) {
                return None;
            }
            match stride {
                None => stride = Some(s),
                Some(t) if t != s => return None,
                _ => {}
            }
        }
        Some(stride.unwrap_or(0))
    };
    let class_of = |p: Option<u64>| match p {
        Some(0) => Class::Uniform,
        Some(s) => Class::Affine(s),
        None => Class::Varying,
    };
    let same_wg = pattern(&|l| l[0]) == Some(0);
    let mut out = Vec::new();
    let b = &ir.builtins;
    for c in 0..3 {
        let local = class_of(pattern(&|l| l[1 + c]));
        if let Some(r) = b.local_id {
            out.push((r + c as u32, local));
        }
        let per_wg = if same_wg {
            Class::Uniform
        } else {
            Class::Varying
        };
        if let Some(r) = b.workgroup_id {
            out.push((r + c as u32, per_wg));
        }
        if let Some(r) = b.num_workgroups {
            out.push((r + c as u32, Class::Uniform));
        }
        if let Some(r) = b.global_id {
            // workgroup_id·size + local_id: affine like local_id when the chunk is in one
            // workgroup.
            out.push((r + c as u32, if same_wg { local } else { Class::Varying }));
        }
    }
    if let Some(r) = b.local_index {
        out.push((r, class_of(pattern(&|l| l[4]))));
    }
    out
}

/// What divergence compiled code runs under masks does to classes: pairs (conditions,
/// registers) where the registers are varying once one of the conditions is.
/// - A branch with a region (`codegen::masked`): lanes may take both sides, so the registers
///   its sides write that its join reads merge values of both.
/// - A loop compiled code can mask (`codegen::loops`), when a branch of it with no region of
///   its own diverges: lanes leave at different iterations, so the registers the loop writes
///   that its exit block reads hold each lane's last values, and the registers a branch of the
///   loop merges where its sides meet (or at the header, when they meet only at the end of an
///   iteration) merge values of both sides, when lanes of both may get there.
fn divergence_rules(ir: &Ir, live: &Liveness) -> Vec<(Vec<Reg>, Vec<Reg>)> {
    use crate::codegen::{loops, masked};
    let sync: Vec<bool> = ir
        .blocks
        .iter()
        .map(|b| b.ops.first().is_some_and(|o| o.is_sync()))
        .collect();
    let guarded = tessera_spirv::ir::sched::guarded_latches(ir);
    let post = tessera_spirv::ir::postdom::post_dominators(ir);
    let headers = tessera_spirv::ir::loops::back_edge_targets(&ir.blocks);
    let regions: Vec<_> = (0..ir.blocks.len())
        .map(|b| masked::region_of(ir, &sync, &guarded, &post, &headers, b))
        .collect();
    let mut rules = Vec::new();
    for (b, region) in regions.iter().enumerate() {
        let (Some(cond), Some(region)) = (ir.blocks[b].term.condition(), region) else {
            continue;
        };
        rules.push((vec![cond], read_at(&region.written, live, region.join)));
    }
    let (_, shapes) =
        loops::loop_shapes(ir, &|b| masked::loop_block(ir, &sync, &guarded, b), &post);
    for shape in &shapes {
        let triggers: Vec<Reg> = shape
            .blocks
            .iter()
            .filter(|&&b| regions[b].is_none())
            .filter_map(|&b| ir.blocks[b].term.condition())
            .collect();
        if triggers.is_empty() {
            continue;
        }
        rules.push((triggers, read_at(&shape.written, live, shape.exit)));
        for (&b, split) in &shape.splits {
            let Some(cond) = ir.blocks[b].term.condition() else {
                continue;
            };
            if !split.merges() {
                continue;
            }
            let meet = split.join.unwrap_or(shape.header);
            rules.push((vec![cond], read_at(&split.written, live, meet)));
        }
    }
    rules.extend(loop_exit_rules(ir, live, &regions));
    rules
}

/// Temporal divergence of every natural loop, masked by compiled code or not: when lanes may
/// leave the loop at different iterations (the stepper runs such a loop lane by lane), a
/// register the loop writes that is read after an exit holds each lane's last value, even one
/// that every iteration computes alike for the lanes still in the loop (`s += i·j` with
/// uniform `i`, `j`). The triggers are the conditions of the loop's branches without a masked
/// region of their own (`regions`) that may send lanes two ways, inside the loop or out of
/// it; the rule makes varying the loop's registers live into an exit target and the
/// destinations of the moves on exit edges. An early `return` counts too: the stepper runs the
/// lowest block first, so lanes that returned at different iterations run the return's block
/// together.
fn loop_exit_rules(
    ir: &Ir,
    live: &Liveness,
    regions: &[Option<crate::codegen::masked::Region>],
) -> Vec<(Vec<Reg>, Vec<Reg>)> {
    use tessera_spirv::ir::loops::{natural_loop, predecessors};
    let preds = predecessors(&ir.blocks);
    let mut rules = Vec::new();
    for (latch, block) in ir.blocks.iter().enumerate() {
        for e in block.term.edges() {
            let header = e.target as usize;
            if header > latch {
                continue;
            }
            let body = natural_loop(&preds, header, latch);
            let inside = |b: u32| body.get(b as usize).copied().unwrap_or(false);
            let mut triggers = Vec::new();
            let mut exits = Vec::new();
            let mut regs = Vec::new();
            for b in (0..body.len()).filter(|&b| body[b]) {
                let term = &ir.blocks[b].term;
                let mut ways: Vec<u32> = Vec::new();
                for x in term.edges() {
                    ways.push(x.target);
                    if !inside(x.target) {
                        exits.push(x.target as usize);
                        regs.extend(x.moves.iter().map(|&(d, _)| d));
                    }
                }
                ways.sort_unstable();
                ways.dedup();
                if ways.len() > 1 && regions.get(b).is_none_or(|r| r.is_none()) {
                    triggers.extend(term.condition());
                }
            }
            if triggers.is_empty() || exits.is_empty() {
                continue;
            }
            let mut written = Vec::new();
            for b in (0..body.len()).filter(|&b| body[b]) {
                for op in &ir.blocks[b].ops {
                    op.for_each_def(|r| written.push(r));
                }
                for x in ir.blocks[b].term.edges() {
                    written.extend(x.moves.iter().map(|&(d, _)| d));
                }
            }
            written.sort_unstable();
            written.dedup();
            for &exit in &exits {
                regs.extend(read_at(&written, live, exit));
            }
            regs.sort_unstable();
            regs.dedup();
            if !regs.is_empty() {
                rules.push((triggers, regs));
            }
        }
    }
    rules
}

/// The registers of `written` that block `at` reads (live into it).
fn read_at(written: &[Reg], live: &Liveness, at: usize) -> Vec<Reg> {
    // Where lanes finish (`masked::EXIT_JOIN`), nothing is read.
    let Some(reads) = live.live_in.get(at) else {
        return Vec::new();
    };
    written
        .iter()
        .copied()
        .filter(|&r| reads.contains(r))
        .collect()
}

/// The class of every register of `ir` (see the module docs); `live` is `ir`'s liveness.
pub fn classes(ir: &Ir, shape: &GroupShape, live: &Liveness) -> Vec<Class> {
    let n = ir.nregs() as usize;
    let mut cls = vec![Class::Undefined; n];
    for &(r, v) in &ir.consts {
        cls[r as usize] = Class::Const(v);
    }
    for (r, c) in builtin_classes(ir, shape) {
        cls[r as usize] = c;
    }
    let pinned: Vec<bool> = {
        let mut p = vec![false; n];
        for &(r, _) in &ir.consts {
            p[r as usize] = true;
        }
        for (base, len) in ir.builtins.ranges() {
            for r in base..base + len {
                p[r as usize] = true;
            }
        }
        p
    };
    let aligned = aligned_index(ir, shape);
    let rules = divergence_rules(ir, live);
    for _ in 0..64 {
        let mut changed = false;
        let mut set = |cls: &mut Vec<Class>, r: Reg, c: Class| {
            let r = r as usize;
            if pinned[r] {
                return;
            }
            let j = cls[r].join(c);
            if j != cls[r] {
                cls[r] = j;
                changed = true;
            }
        };
        for b in &ir.blocks {
            for op in &b.ops {
                for (r, c) in results(ir, &cls, op, aligned) {
                    set(&mut cls, r, c);
                }
            }
            for e in b.term.edges() {
                for &(d, s) in &e.moves {
                    let c = cls[s as usize];
                    set(&mut cls, d, c);
                }
            }
        }
        for (triggers, regs) in &rules {
            if triggers.iter().any(|&c| cls[c as usize] == Class::Varying) {
                for &r in regs {
                    set(&mut cls, r, Class::Varying);
                }
            }
        }
        if !changed {
            break;
        }
    }
    // A register nothing defines reads as whatever the register file holds: varying.
    for (r, c) in cls.iter_mut().enumerate() {
        if *c == Class::Undefined && !pinned[r] {
            *c = Class::Varying;
        }
    }
    cls
}

/// The local invocation index when every chunk's lanes hold `16c .. 16c + 16` of it (the
/// workgroup size is a multiple of [`LANES`]): then `index >> k` (`k` ≥ 4) and `index / d` (`d` a
/// multiple of 16) are uniform over a chunk — the subgroup id is one — and `index & (2^k - 1)`
/// is affine with stride 1 (the subgroup invocation id).
pub fn aligned_index(ir: &Ir, shape: &GroupShape) -> Option<Reg> {
    ir.builtins
        .local_index
        .filter(|_| (shape.wg_size as usize).is_multiple_of(LANES))
}

/// The class of `op lhs, rhs` when `lhs` is the [`aligned_index`] and `rhs` the constant `k`
/// (`width` bits), if the module docs' rules give one besides the general ones.
pub fn aligned_ibin(op: IBin, width: u32, k: u64) -> Option<Class> {
    match op {
        IBin::ShrL if (4..u64::from(width)).contains(&k) => Some(Class::Uniform),
        IBin::UDiv if k != 0 && k.is_multiple_of(LANES as u64) => Some(Class::Uniform),
        IBin::And if k >= 15 && wrap(k + 1, width).is_power_of_two() => Some(Class::Affine(1)),
        _ => None,
    }
}

/// The classes an op gives its results.
fn results(ir: &Ir, cls: &[Class], op: &Op, aligned: Option<Reg>) -> Vec<(Reg, Class)> {
    use Class::*;
    let c = |r: Reg| cls[r as usize];
    let bits = |r: Reg| bits_of(ir.reg_types[r as usize]);
    let all_uniform = |regs: &[Reg]| regs.iter().all(|&r| c(r).is_uniform());
    let desc_uniform = |d: &DescIdx| match d {
        DescIdx::Const(_) => true,
        DescIdx::Dyn(r) => c(*r).is_uniform(),
    };
    let fold1 = |f: &dyn Fn(u64) -> u64, a: Reg| match c(a) {
        Const(x) => Const(f(x)),
        x if x.is_uniform() => Uniform,
        _ => Varying,
    };
    match *op {
        Op::Mov { dst, src } => vec![(dst, c(src))],
        Op::IBin {
            op,
            width,
            dst,
            lhs,
            rhs,
        } => {
            let w = u32::from(width);
            let r = match (op, c(lhs), c(rhs)) {
                (_, Const(x), Const(y)) => Const(alu::ibin(op, width, x, y)),
                (_, x, y) if x.is_uniform() && y.is_uniform() => Uniform,
                (IBin::Add, Affine(s), y) | (IBin::Add, y, Affine(s)) if y.is_uniform() => {
                    Affine(s)
                }
                (IBin::Add, Affine(s), Affine(t)) => affine(wrap(s.wrapping_add(t), w)),
                (IBin::Sub, Affine(s), y) if y.is_uniform() => Affine(s),
                (IBin::Sub, x, Affine(s)) if x.is_uniform() => affine(wrap(s.wrapping_neg(), w)),
                (IBin::Sub, Affine(s), Affine(t)) => affine(wrap(s.wrapping_sub(t), w)),
                (IBin::Mul, Affine(s), Const(k)) | (IBin::Mul, Const(k), Affine(s)) => {
                    affine(wrap(s.wrapping_mul(k), w))
                }
                (IBin::Shl, Affine(s), Const(k)) if k < u64::from(w) => affine(wrap(s << k, w)),
                (op, Affine(1), Const(k)) if aligned == Some(lhs) => {
                    aligned_ibin(op, w, k).unwrap_or(Varying)
                }
                (IBin::UDiv | IBin::ShrL, Affine(s), Const(k)) => {
                    exact_quotient_stride(op, s, k, w).map_or(Varying, affine)
                }
                _ => Varying,
            };
            vec![(dst, r)]
        }
        Op::IUn {
            op,
            width,
            dst,
            src,
        } => {
            vec![(dst, fold1(&|x| alu::iun(op, width, x), src))]
        }
        Op::FUn {
            op,
            width,
            dst,
            src,
        } => {
            vec![(dst, fold1(&|x| alu::fun(op, width, x), src))]
        }
        Op::Conv {
            op,
            from,
            to,
            dst,
            src,
        } => {
            let r = match (op, c(src)) {
                (_, Const(x)) => Const(alu::conv(op, from, to, x)),
                (_, x) if x.is_uniform() => Uniform,
                // Truncating an affine value keeps it affine (modular arithmetic); widening
                // does when no lane wraps at the source width, which compiled code checks,
                // with the stride taken as signed (`codegen::conv::affine_resize`).
                (Conv::UToU | Conv::SToS, Affine(s)) => {
                    let (fb, tb) = (bits(src), bits(dst));
                    if tb <= fb {
                        affine(wrap(s, tb))
                    } else {
                        Affine(wrap(alu::sext(s, from) as u64, tb))
                    }
                }
                _ => Varying,
            };
            vec![(dst, r)]
        }
        Op::ICmp { dst, lhs, rhs, .. }
        | Op::FBin { dst, lhs, rhs, .. }
        | Op::FCmp { dst, lhs, rhs, .. } => vec![(dst, uniform_if(all_uniform(&[lhs, rhs])))],
        Op::Tern {
            dst,
            src0,
            src1,
            src2,
            ..
        } => vec![(dst, uniform_if(all_uniform(&[src0, src1, src2])))],
        Op::Select {
            dst,
            cond,
            if_true,
            if_false,
        } => {
            let r = if c(cond).is_uniform() {
                if let Const(k) = c(cond) {
                    c(if k != 0 { if_true } else { if_false })
                } else {
                    match (c(if_true), c(if_false)) {
                        (x, y) if x.is_uniform() && y.is_uniform() => Uniform,
                        (Affine(s), Affine(t)) if s == t => Affine(s),
                        _ => Varying,
                    }
                }
            } else {
                Varying
            };
            vec![(dst, r)]
        }
        Op::Pick {
            dst,
            index,
            ref choices,
        } => {
            let mut regs = vec![index];
            regs.extend(choices.iter());
            vec![(dst, uniform_if(all_uniform(&regs)))]
        }
        Op::LoadVar {
            dst, var, index, ..
        } => {
            let regs: Vec<Reg> = (var.base..var.base + var.len).collect();
            vec![(dst, uniform_if(c(index).is_uniform() && all_uniform(&regs)))]
        }
        Op::StoreVar {
            var, index, value, ..
        } => {
            // Writes one element per lane: uniform only if index and value are.
            let k = uniform_if(c(index).is_uniform() && c(value).is_uniform());
            (var.base..var.base + var.len).map(|r| (r, k)).collect()
        }
        Op::Load {
            space, dst, addr, ..
        } => {
            let space_uniform = match space {
                Space::Buffer { desc, .. } => desc_uniform(&desc),
                _ => true,
            };
            vec![(
                dst,
                uniform_if(space_uniform && addr.is_none_or(|a| c(a).is_uniform())),
            )]
        }
        Op::ArrayLength { desc, dst, .. } => vec![(dst, uniform_if(desc_uniform(&desc)))],
        Op::TensorRead {
            ref tensor,
            ref coords,
            ref dsts,
            oob,
            ..
        } => {
            let u = desc_uniform(&tensor.desc)
                && all_uniform(coords)
                && oob.is_none_or(|o| c(o).is_uniform());
            dsts.iter().map(|&d| (d, uniform_if(u))).collect()
        }
        Op::TensorQuery {
            ref tensor,
            dim,
            dst,
            ..
        } => vec![(
            dst,
            uniform_if(desc_uniform(&tensor.desc) && c(dim).is_uniform()),
        )],
        Op::IDot {
            dst,
            ref lhs,
            ref rhs,
            acc,
            ..
        } => {
            let mut regs: Vec<Reg> = lhs.iter().chain(rhs.iter()).copied().collect();
            regs.extend(acc);
            vec![(dst, uniform_if(all_uniform(&regs)))]
        }
        // Atomics' and subgroup operations' results (rounds or the interpreter) vary.
        Op::Atomic { dst, .. } | Op::Subgroup { dst, .. } => vec![(dst, Varying)],
        Op::CoopMatVec { ref dsts, .. }
        | Op::CoopMatLoad { ref dsts, .. }
        | Op::CoopMatMulAdd { ref dsts, .. } => dsts.iter().map(|&d| (d, Varying)).collect(),
        Op::Store { .. }
        | Op::AtomicUpdate { .. }
        | Op::TensorWrite { .. }
        | Op::Barrier {}
        | Op::Converge {}
        | Op::CoopOuterProduct { .. }
        | Op::CoopReduceSum { .. }
        | Op::CoopMatStore { .. } => Vec::new(),
    }
}

fn uniform_if(u: bool) -> Class {
    if u { Class::Uniform } else { Class::Varying }
}

/// The stride of `x / k` (`op` `UDiv`, or `ShrL` by `k`) for an affine `x` of stride `s`
/// (`width` bits), when each lane's quotient is lane 0's plus `i·(s / k)`: `s` positive (below
/// 2^(width-1)), a multiple of the divisor, and `15·s` below 2^width, so that a chunk whose lanes
/// do not wrap (`x₀ + 15·s < 2^width`, checked at run time: `Gen::ibin_affine`) divides exactly.
pub fn exact_quotient_stride(op: IBin, s: u64, k: u64, width: u32) -> Option<u64> {
    if width == 0 {
        return None;
    }
    let divisor = match op {
        IBin::UDiv => k,
        IBin::ShrL if k < u64::from(width) && k < 63 => 1u64 << k,
        _ => return None,
    };
    let positive = width <= 64 && s < 1u64 << (width - 1).min(63);
    let span = s.checked_mul((LANES - 1) as u64)?;
    let fits = width >= 64 || span < 1u64 << width;
    (divisor != 0 && positive && fits && s.is_multiple_of(divisor)).then(|| s / divisor)
}

fn affine(s: u64) -> Class {
    if s == 0 {
        Class::Uniform
    } else {
        Class::Affine(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(b + 4i) / 2` and `(b + 8i) >> 2` are affine (strides 2 and 2); a divisor that does not
    /// divide the stride, a negative stride, or one whose 16 lanes span more than the width
    /// keep the quotient varying.
    #[test]
    fn exact_quotients_of_affine_values() {
        assert_eq!(exact_quotient_stride(IBin::UDiv, 4, 2, 32), Some(2));
        assert_eq!(exact_quotient_stride(IBin::ShrL, 8, 2, 32), Some(2));
        assert_eq!(exact_quotient_stride(IBin::UDiv, 6, 4, 32), None);
        assert_eq!(exact_quotient_stride(IBin::UDiv, 4, 0, 32), None);
        assert_eq!(exact_quotient_stride(IBin::UDiv, 0xffff_fffc, 2, 32), None);
        assert_eq!(exact_quotient_stride(IBin::UDiv, 1 << 29, 2, 32), None);
        assert_eq!(exact_quotient_stride(IBin::ShrL, 4, 32, 32), None);
        assert_eq!(exact_quotient_stride(IBin::SDiv, 4, 2, 32), None);
    }

    use tessera_spirv::ir::{Block, Builtins, Edge, Term};

    fn edge(target: u32, moves: Vec<(Reg, Reg)>) -> Edge {
        Edge { target, moves }
    }

    fn branch(cond: Reg, if_true: Edge, if_false: Edge) -> Term {
        Term::Branch {
            cond,
            if_true,
            if_false,
        }
    }

    /// `%dst = %lhs + %rhs` on 32 bits.
    fn add(dst: Reg, lhs: Reg, rhs: Reg) -> Op {
        Op::IBin {
            op: IBin::Add,
            width: 32,
            dst,
            lhs,
            rhs,
        }
    }

    /// An IR of `blocks` (ops, terminator) whose registers `ints` are 32-bit integers, the
    /// others bools, and `%2` is the constant 1.
    fn loop_ir(blocks: Vec<(Vec<Op>, Term)>, regs: usize, ints: &[usize]) -> Ir {
        let mut reg_types = vec![RegType::Bool; regs];
        for &r in ints {
            reg_types[r] = RegType::Int(32);
        }
        Ir {
            blocks: blocks
                .into_iter()
                .map(|(ops, term)| Block {
                    ops,
                    term,
                    order_succ: Vec::new(),
                })
                .collect(),
            reg_types,
            consts: vec![(2, 1)],
            builtins: Builtins::default(),
            shared_size: 0,
            needs_whole_group: false,
            shapes: Vec::new(),
        }
    }

    /// A loop whose exit branch reads `%0` writes `%1` (read after the exit) and `%3` (not
    /// read after it), and its exit edge moves `%1` into `%4`: `%1` and `%4` hold each lane's
    /// last values once `%0` is varying, `%3` is dead there.
    #[test]
    fn loop_exits_make_live_outs_varying() {
        let ir = loop_ir(
            vec![
                (Vec::new(), Term::Jump(edge(1, Vec::new()))),
                (
                    vec![add(1, 1, 2), Op::Mov { dst: 3, src: 2 }],
                    branch(0, edge(1, Vec::new()), edge(2, vec![(4, 1)])),
                ),
                (vec![Op::Mov { dst: 5, src: 1 }], Term::Exit),
            ],
            6,
            &[1, 2, 3, 4, 5],
        );
        let rules = loop_exit_rules(&ir, &Liveness::of(&ir), &[]);
        assert_eq!(rules, vec![(vec![0], vec![1, 4])]);
    }

    /// A loop with an early return (to block 6) and a branch whose two sides stay in the loop
    /// (block 2) before a latch that leaves on `%5`: all three conditions are triggers (lanes
    /// that return at different iterations run block 6 together), and `%1`, which both exits
    /// read, is varying.
    #[test]
    fn early_returns_and_inner_branches() {
        let to = |target: u32| edge(target, Vec::new());
        let ir = loop_ir(
            vec![
                (Vec::new(), branch(0, to(1), to(7))),
                (vec![add(1, 1, 2)], branch(3, to(2), to(6))),
                (Vec::new(), branch(4, to(3), to(4))),
                (Vec::new(), Term::Jump(to(4))),
                (Vec::new(), branch(5, to(1), to(5))),
                (vec![Op::Mov { dst: 8, src: 1 }], Term::Jump(to(7))),
                (vec![Op::Mov { dst: 9, src: 1 }], Term::Exit),
                (Vec::new(), Term::Exit),
            ],
            10,
            &[1, 2, 8, 9],
        );
        let rules = loop_exit_rules(&ir, &Liveness::of(&ir), &[]);
        assert_eq!(rules, vec![(vec![3, 4, 5], vec![1])]);
    }

    /// Every class `aligned_ibin` claims holds over each chunk-aligned run of 16 indices.
    #[test]
    fn aligned_index_rules_hold() {
        let mut claims = 0;
        for op in [IBin::ShrL, IBin::UDiv, IBin::And, IBin::Add] {
            for k in 0..70u64 {
                let Some(class) = aligned_ibin(op, 32, k) else {
                    continue;
                };
                claims += 1;
                for base in (0..4096u64).step_by(LANES) {
                    let lane0 = alu::ibin(op, 32, base, k);
                    for i in 0..LANES as u64 {
                        let want = match class {
                            Class::Uniform => lane0,
                            Class::Affine(s) => wrap(lane0 + s * i, 32),
                            other => panic!("{op:?} {k}: {other:?}"),
                        };
                        assert_eq!(
                            alu::ibin(op, 32, base + i, k),
                            want,
                            "{op:?} {k} {base}+{i}"
                        );
                    }
                }
            }
        }
        // ShrL by 4..31, UDiv by 16, 32, 48, 64, And with 15, 31, 63.
        assert_eq!(claims, 28 + 4 + 3);
    }
}
