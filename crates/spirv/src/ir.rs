//! The lowered, scalarised IR that the interpreter runs (and a later JIT would consume).
//!
//! Invariants (established by `lower`, relied on by `exec`):
//! - every register index is `< Ir::nregs`; every register holds one `u64` per lane with the
//!   value's raw bits zero-extended (see `alu`);
//! - block 0 is the entry; blocks are numbered in a *structured topological order*: for every
//!   non-back edge `a → b`, `a < b`, and every block of a loop or selection construct comes before
//!   the construct's merge block. The scheduler always runs the lowest-numbered block any live lane
//!   waits at, which makes diverged lanes reconverge at merge blocks;
//! - edge moves (from `OpPhi`) are parallel copies;
//! - constant registers (`Ir::consts`) are never written by any op.

use crate::ScalarType;
use crate::alu::{Conv, FBin, FCmp, FUn, IBin, ICmp, IUn, Tern};
use crate::mem::AtomicOp;
use crate::subgroup::SubOp;

/// A register index.
pub(crate) type Reg = u32;

/// Which element of a descriptor array an access uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DescIdx {
    Const(u32),
    Dyn(Reg),
}

/// A byte-addressed memory space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    /// A storage or uniform buffer: resource slot and descriptor-array index.
    Buffer { slot: u32, desc: DescIdx },
    /// Push-constant bytes.
    Push,
    /// Workgroup shared memory.
    Shared,
}

/// A tensor operand: resource slot, descriptor index, SPIR-V element type, declared rank (0 for an
/// unranked type until an access fixes it) and, for a shaped type, its index in `Ir::shapes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TensorAcc {
    pub slot: u32,
    pub desc: DescIdx,
    pub elem: ScalarType,
    pub rank: u32,
    pub shape: Option<u16>,
}

/// One scalar IR operation over all active lanes.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Mov {
        d: Reg,
        a: Reg,
    },
    IBin {
        op: IBin,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    IUn {
        op: IUn,
        w: u8,
        d: Reg,
        a: Reg,
    },
    ICmp {
        op: ICmp,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    FBin {
        op: FBin,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    FUn {
        op: FUn,
        w: u8,
        d: Reg,
        a: Reg,
    },
    FCmp {
        op: FCmp,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    Tern {
        op: Tern,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Conv {
        op: Conv,
        from: u8,
        to: u8,
        d: Reg,
        a: Reg,
    },
    Select {
        d: Reg,
        c: Reg,
        a: Reg,
        b: Reg,
    },
    /// `d = srcs[idx]`, 0 when out of range.
    Pick {
        d: Reg,
        idx: Reg,
        srcs: Box<[Reg]>,
    },
    /// `d = reg[base + off + idx]` for a per-lane variable of `len` registers (0 if out of range).
    LoadVar {
        d: Reg,
        base: Reg,
        len: u32,
        off: u32,
        idx: Reg,
    },
    /// `reg[base + off + idx] = v` (dropped if out of range).
    StoreVar {
        base: Reg,
        len: u32,
        off: u32,
        idx: Reg,
        v: Reg,
    },
    /// Load `size` bytes at `addr + off` (addr optional) from `sp`.
    Load {
        sp: Space,
        size: u8,
        d: Reg,
        addr: Option<Reg>,
        off: u64,
    },
    Store {
        sp: Space,
        size: u8,
        v: Reg,
        addr: Option<Reg>,
        off: u64,
    },
    Atomic {
        op: AtomicOp,
        sp: Space,
        size: u8,
        d: Reg,
        addr: Option<Reg>,
        off: u64,
        v: Reg,
        cmp: Reg,
    },
    /// Element count of a runtime array at byte `off` with `stride` in a buffer.
    ArrayLength {
        slot: u32,
        desc: DescIdx,
        off: u64,
        stride: u64,
        d: Reg,
    },
    TensorRead {
        t: TensorAcc,
        coords: Box<[Reg]>,
        signed: bool,
        cw: u8,
        d: Box<[Reg]>,
        oob: Option<Reg>,
    },
    TensorWrite {
        t: TensorAcc,
        coords: Box<[Reg]>,
        signed: bool,
        cw: u8,
        v: Box<[Reg]>,
    },
    TensorQuery {
        t: TensorAcc,
        dim: Reg,
        w: u8,
        d: Reg,
    },
    /// Integer dot product (`OpSDot`, `OpUDot`, `OpSUDot` and their `AccSat` forms): components
    /// of width `w_in` (sign-extended where `a_signed`/`b_signed`), summed exactly; without `acc`
    /// the result is the low `w_out` bits, with `acc` it is `acc + sum` saturated to the signed
    /// (`sat_signed`) or unsigned `w_out`-bit range.
    IDot {
        w_in: u8,
        w_out: u8,
        a_signed: bool,
        b_signed: bool,
        sat_signed: bool,
        d: Reg,
        a: Box<[Reg]>,
        b: Box<[Reg]>,
        acc: Option<Reg>,
    },
    /// A subgroup operation on values of width `w` (see `subgroup`): reads `a` and `b` of the
    /// active lanes of each subgroup, writes `d` of its active lanes.
    Sub {
        op: SubOp,
        w: u8,
        d: Reg,
        a: Reg,
        b: Reg,
    },
}

/// A control-flow edge with the parallel copies of the target's `OpPhi`s.
#[derive(Debug, Clone)]
pub(crate) struct Edge {
    pub target: u32,
    pub moves: Vec<(Reg, Reg)>,
}

/// How a block ends.
#[derive(Debug, Clone)]
pub(crate) enum Term {
    Jump(Edge),
    Branch {
        c: Reg,
        t: Edge,
        f: Edge,
    },
    /// `edges[0]` is the default; `cases` map a selector value (width `w`) to an edge index.
    Switch {
        sel: Reg,
        cases: Vec<(u64, usize)>,
        edges: Vec<Edge>,
    },
    /// The lane is finished (return from the entry point, kill, unreachable).
    Exit,
}

/// A straight-line run of ops plus its terminator.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub ops: Vec<Op>,
    pub term: Term,
    /// Extra successors used only to order blocks (continue target → loop merge, header → merge).
    pub order_succ: Vec<u32>,
}

/// Registers holding the compute built-ins (base of 3 consecutive registers, or 1 for the index).
#[derive(Debug, Clone, Default)]
pub(crate) struct Builtins {
    pub global_id: Option<Reg>,
    pub local_id: Option<Reg>,
    pub workgroup_id: Option<Reg>,
    pub num_workgroups: Option<Reg>,
    pub local_index: Option<Reg>,
}

/// A lowered entry point.
#[derive(Debug, Clone)]
pub(crate) struct Ir {
    pub blocks: Vec<Block>,
    pub nregs: u32,
    pub consts: Vec<(Reg, u64)>,
    pub builtins: Builtins,
    pub shared_size: u32,
    /// Workgroup-scope barriers, shared memory or anything else that forbids fusing workgroups
    /// (subgroup operations do not: `exec` never lets a subgroup span two workgroups).
    pub needs_whole_group: bool,
    /// Declared shapes of shaped tensor types.
    pub shapes: Vec<Box<[u64]>>,
}

/// Whether an operand register is read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Use,
    Def,
}

impl Op {
    /// Calls `f` on every register operand, reads first, then writes. The variable ranges that
    /// `LoadVar`/`StoreVar` index (`base..base + len`) are not operands: callers treat them as
    /// opaque (see `opt`).
    pub(crate) fn visit_regs(&mut self, f: &mut impl FnMut(&mut Reg, Role)) {
        use Role::{Def, Use};
        let desc = |d: &mut DescIdx, f: &mut dyn FnMut(&mut Reg, Role)| {
            if let DescIdx::Dyn(r) = d {
                f(r, Use);
            }
        };
        let space = |s: &mut Space, f: &mut dyn FnMut(&mut Reg, Role)| {
            if let Space::Buffer { desc: d, .. } = s {
                desc(d, f);
            }
        };
        match self {
            Op::Mov { d, a }
            | Op::IUn { d, a, .. }
            | Op::FUn { d, a, .. }
            | Op::Conv { d, a, .. } => {
                f(a, Use);
                f(d, Def);
            }
            Op::IBin { d, a, b, .. }
            | Op::ICmp { d, a, b, .. }
            | Op::FBin { d, a, b, .. }
            | Op::FCmp { d, a, b, .. }
            | Op::Sub { d, a, b, .. } => {
                f(a, Use);
                f(b, Use);
                f(d, Def);
            }
            Op::Tern { d, a, b, c, .. } | Op::Select { d, c, a, b } => {
                f(a, Use);
                f(b, Use);
                f(c, Use);
                f(d, Def);
            }
            Op::Pick { d, idx, srcs } => {
                f(idx, Use);
                for s in srcs.iter_mut() {
                    f(s, Use);
                }
                f(d, Def);
            }
            Op::LoadVar { d, idx, .. } => {
                f(idx, Use);
                f(d, Def);
            }
            Op::StoreVar { idx, v, .. } => {
                f(idx, Use);
                f(v, Use);
            }
            Op::Load { sp, d, addr, .. } => {
                space(sp, f);
                if let Some(a) = addr {
                    f(a, Use);
                }
                f(d, Def);
            }
            Op::Store { sp, v, addr, .. } => {
                space(sp, f);
                if let Some(a) = addr {
                    f(a, Use);
                }
                f(v, Use);
            }
            Op::Atomic {
                sp,
                d,
                addr,
                v,
                cmp,
                ..
            } => {
                space(sp, f);
                if let Some(a) = addr {
                    f(a, Use);
                }
                f(v, Use);
                f(cmp, Use);
                f(d, Def);
            }
            Op::ArrayLength { desc: dd, d, .. } => {
                desc(dd, f);
                f(d, Def);
            }
            Op::TensorRead {
                t, coords, d, oob, ..
            } => {
                desc(&mut t.desc, f);
                for c in coords.iter_mut() {
                    f(c, Use);
                }
                if let Some(o) = oob {
                    f(o, Use);
                }
                for r in d.iter_mut() {
                    f(r, Def);
                }
            }
            Op::TensorWrite { t, coords, v, .. } => {
                desc(&mut t.desc, f);
                for c in coords.iter_mut() {
                    f(c, Use);
                }
                for r in v.iter_mut() {
                    f(r, Use);
                }
            }
            Op::TensorQuery { t, dim, d, .. } => {
                desc(&mut t.desc, f);
                f(dim, Use);
                f(d, Def);
            }
            Op::IDot { d, a, b, acc, .. } => {
                for r in a.iter_mut().chain(b.iter_mut()) {
                    f(r, Use);
                }
                if let Some(r) = acc {
                    f(r, Use);
                }
                f(d, Def);
            }
        }
    }

    /// Whether the op only computes its results (no memory or variable writes), so it may be
    /// deleted when nothing reads them.
    pub(crate) fn is_pure(&self) -> bool {
        !matches!(
            self,
            Op::StoreVar { .. } | Op::Store { .. } | Op::Atomic { .. } | Op::TensorWrite { .. }
        )
    }

    /// Every register the op reads or writes (for verification).
    fn regs(&self, out: &mut Vec<Reg>) {
        let desc = |d: &DescIdx, out: &mut Vec<Reg>| {
            if let DescIdx::Dyn(r) = d {
                out.push(*r);
            }
        };
        let space = |s: &Space, out: &mut Vec<Reg>| {
            if let Space::Buffer { desc: d, .. } = s {
                desc(d, out);
            }
        };
        match self {
            Op::Mov { d, a }
            | Op::IUn { d, a, .. }
            | Op::FUn { d, a, .. }
            | Op::Conv { d, a, .. } => out.extend([*d, *a]),
            Op::IBin { d, a, b, .. }
            | Op::ICmp { d, a, b, .. }
            | Op::FBin { d, a, b, .. }
            | Op::FCmp { d, a, b, .. } => out.extend([*d, *a, *b]),
            Op::Tern { d, a, b, c, .. } => out.extend([*d, *a, *b, *c]),
            Op::Sub { d, a, b, .. } => out.extend([*d, *a, *b]),
            Op::Select { d, c, a, b } => out.extend([*d, *c, *a, *b]),
            Op::Pick { d, idx, srcs } => {
                out.extend([*d, *idx]);
                out.extend(srcs.iter());
            }
            Op::LoadVar {
                d, base, len, idx, ..
            } => {
                out.extend([*d, *idx, *base]);
                if *len > 0 {
                    out.push(base.saturating_add(len - 1));
                }
            }
            Op::StoreVar {
                base, len, idx, v, ..
            } => {
                out.extend([*v, *idx, *base]);
                if *len > 0 {
                    out.push(base.saturating_add(len - 1));
                }
            }
            Op::Load { sp, d, addr, .. } => {
                space(sp, out);
                out.push(*d);
                out.extend(addr.iter());
            }
            Op::Store { sp, v, addr, .. } => {
                space(sp, out);
                out.push(*v);
                out.extend(addr.iter());
            }
            Op::Atomic {
                sp,
                d,
                addr,
                v,
                cmp,
                ..
            } => {
                space(sp, out);
                out.extend([*d, *v, *cmp]);
                out.extend(addr.iter());
            }
            Op::ArrayLength { desc: dd, d, .. } => {
                desc(dd, out);
                out.push(*d);
            }
            Op::TensorRead {
                t, coords, d, oob, ..
            } => {
                desc(&t.desc, out);
                out.extend(coords.iter());
                out.extend(d.iter());
                out.extend(oob.iter());
            }
            Op::TensorWrite { t, coords, v, .. } => {
                desc(&t.desc, out);
                out.extend(coords.iter());
                out.extend(v.iter());
            }
            Op::TensorQuery { t, dim, d, .. } => {
                desc(&t.desc, out);
                out.extend([*dim, *d]);
            }
            Op::IDot { d, a, b, acc, .. } => {
                out.push(*d);
                out.extend(a.iter().chain(b.iter()));
                out.extend(acc.iter());
            }
        }
    }
}

impl Ir {
    /// Checks the invariants the interpreter indexes by: every register `< nregs`, every edge
    /// target an existing block, every constant register in range. Lowering establishes them;
    /// this makes a lowering bug an error at pipeline creation instead of a panic at dispatch.
    pub(crate) fn verify(&self) -> Result<(), crate::SpirvError> {
        let bad = |what: String| {
            Err(crate::SpirvError::new(format!(
                "internal error: invalid IR: {what}"
            )))
        };
        let n = self.blocks.len() as u32;
        let mut regs = Vec::new();
        for (i, b) in self.blocks.iter().enumerate() {
            for op in &b.ops {
                regs.clear();
                op.regs(&mut regs);
                if let Some(r) = regs.iter().find(|&&r| r >= self.nregs) {
                    return bad(format!("register {r} out of range in block {i}: {op:?}"));
                }
            }
            let edges: Vec<&Edge> = match &b.term {
                Term::Jump(e) => vec![e],
                Term::Branch { c, t, f } => {
                    if *c >= self.nregs {
                        return bad(format!("branch condition register {c}"));
                    }
                    vec![t, f]
                }
                Term::Switch { sel, cases, edges } => {
                    if *sel >= self.nregs
                        || edges.is_empty()
                        || cases.iter().any(|(_, e)| *e >= edges.len())
                    {
                        return bad(format!("malformed switch in block {i}"));
                    }
                    edges.iter().collect()
                }
                Term::Exit => vec![],
            };
            for e in edges {
                if e.target >= n
                    || e.moves
                        .iter()
                        .any(|(d, a)| *d >= self.nregs || *a >= self.nregs)
                {
                    return bad(format!("edge out of range in block {i}"));
                }
            }
        }
        let b = &self.builtins;
        for (r, len) in [
            (b.global_id, 3),
            (b.local_id, 3),
            (b.workgroup_id, 3),
            (b.num_workgroups, 3),
            (b.local_index, 1),
        ] {
            if let Some(r) = r {
                if r.saturating_add(len) > self.nregs {
                    return bad("built-in register out of range".into());
                }
            }
        }
        if self.consts.iter().any(|(r, _)| *r >= self.nregs) || self.blocks.is_empty() {
            return bad("constants".into());
        }
        Ok(())
    }
}
