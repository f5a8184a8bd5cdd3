//! The lowered, scalarised IR: what `lower` produces, `opt` cleans up, and every backend runs
//! (the interpreter in `exec`, the JIT in the `tessera-jit` crate). This module is the backend
//! interface; its text form (`print`) is what the `expected.ir` snapshots hold.
//!
//! Invariants (established by `lower`, checked by [`Ir::verify`], relied on by the backends):
//! - every register index is `< Ir::reg_types.len()`, and every register has one [`RegType`]: a
//!   storage width of 1, 2, 4 or 8 bytes per lane and a kind (int, float, bool). Every op reads
//!   and writes registers of the widths it states (a `Mov` copies between registers of the same
//!   width, which is how bit casts are expressed);
//! - block 0 is the entry; blocks are numbered in a *structured topological order*: for every
//!   non-back edge `a → b`, `a < b`, and every block of a loop or selection construct comes before
//!   the construct's merge block. Running the lowest-numbered block any live lane waits at makes
//!   diverged lanes reconverge at merge blocks;
//! - edge moves (from `OpPhi`) are parallel copies;
//! - constant registers (`Ir::consts`) are never written by any op;
//! - `sync` ops (see `ops`) are the only ops that look at other lanes or must see every lane of
//!   the workgroup, but for `CoopMatMulAdd`, which reads the lanes of its aligned 16-lane
//!   half-subgroup (cooperative matrix ops run in subgroup-uniform control flow, so all of them
//!   reach it together, in any backend's chunk of 16); everything else is per lane, in program
//!   order.

pub mod liveness;
pub mod loops;
mod ops;
pub mod postdom;
pub(crate) mod print;
pub mod sched;
pub(crate) mod typing;
pub(crate) mod verify;

pub use crate::mem::AtomicOp;
pub use ops::{Op, Role};
pub(crate) use ops::{OpHandlers, dispatch};

/// A register index.
pub type Reg = u32;

/// What a register holds in each lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegType {
    /// A boolean, stored as one byte that is 0 or 1.
    Bool,
    /// An integer (signless) of 8, 16, 32 or 64 bits.
    Int(u8),
    /// A float of `alu` width code 16, 32, 64, `W_BF16`, `W_E4M3` or `W_E5M2`.
    Float(u8),
}

impl RegType {
    /// Storage bytes per lane.
    pub fn bytes(self) -> usize {
        match self {
            RegType::Bool => 1,
            RegType::Int(bits) | RegType::Float(bits) => crate::alu::width_bytes(bits),
        }
    }

    /// The integer type of the same storage width.
    pub fn int_of_width(self) -> RegType {
        RegType::Int((self.bytes() * 8) as u8)
    }
}

impl std::fmt::Display for RegType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RegType::Bool => write!(f, "bool"),
            RegType::Int(bits) => write!(f, "i{bits}"),
            RegType::Float(code) => write!(f, "{}", crate::alu::float_name(code)),
        }
    }
}

/// Which element of a descriptor array an access uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescIdx {
    Const(u32),
    Dyn(Reg),
}

impl DescIdx {
    fn visit(&mut self, f: &mut dyn FnMut(&mut Reg, Role)) {
        if let DescIdx::Dyn(r) = self {
            f(r, Role::Use);
        }
    }
}

/// A byte-addressed memory space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// A storage or uniform buffer: resource slot and descriptor-array index.
    Buffer { slot: u32, desc: DescIdx },
    /// Push-constant bytes.
    Push,
    /// Workgroup shared memory.
    Shared,
    /// `PhysicalStorageBuffer`: the address register holds a 64-bit device address, resolved
    /// against the live allocations at each access (unresolved addresses read 0, writes drop).
    Physical,
}

impl Space {
    fn visit(&mut self, f: &mut dyn FnMut(&mut Reg, Role)) {
        if let Space::Buffer { desc, .. } = self {
            desc.visit(f);
        }
    }
}

/// A byte address in a memory space: `addr + offset` (`addr` an optional 64-bit register: a
/// per-lane offset, or the device address for `Space::Physical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemRef {
    pub space: Space,
    pub addr: Option<Reg>,
    pub offset: u64,
}

impl MemRef {
    fn visit(&mut self, f: &mut dyn FnMut(&mut Reg, Role)) {
        self.space.visit(f);
        if let Some(r) = &mut self.addr {
            f(r, Role::Use);
        }
    }
}

/// A tensor operand: resource slot, descriptor index, SPIR-V element type, declared rank (0 for an
/// unranked type until an access fixes it) and, for a shaped type, its index in `Ir::shapes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorAcc {
    pub slot: u32,
    pub desc: DescIdx,
    pub elem: crate::ScalarType,
    pub rank: u32,
    pub shape: Option<u16>,
}

/// A per-lane variable that `LoadVar`/`StoreVar` index: registers `base..base + len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    pub base: Reg,
    pub len: u32,
}

/// A control-flow edge with the parallel copies (`dst`, `src`) of the target's `OpPhi`s.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub target: u32,
    pub moves: Vec<(Reg, Reg)>,
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Jump(Edge),
    /// On a bool register.
    Branch {
        cond: Reg,
        if_true: Edge,
        if_false: Edge,
    },
    /// `edges[0]` is the default; `cases` map a selector value to an edge index.
    Switch {
        selector: Reg,
        cases: Vec<(u64, usize)>,
        edges: Vec<Edge>,
    },
    /// The lane is finished (return from the entry point, kill, unreachable).
    Exit,
}

impl Term {
    /// The outgoing edges.
    pub fn edges(&self) -> Vec<&Edge> {
        match self {
            Term::Jump(e) => vec![e],
            Term::Branch {
                if_true, if_false, ..
            } => vec![if_true, if_false],
            Term::Switch { edges, .. } => edges.iter().collect(),
            Term::Exit => Vec::new(),
        }
    }

    /// The register the terminator reads, if any.
    pub fn condition(&self) -> Option<Reg> {
        match self {
            Term::Branch { cond, .. } => Some(*cond),
            Term::Switch { selector, .. } => Some(*selector),
            Term::Jump(_) | Term::Exit => None,
        }
    }
}

/// A straight-line run of ops plus its terminator.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub ops: Vec<Op>,
    pub term: Term,
    /// Extra successors used only to order blocks (continue target → loop merge, header → merge).
    pub order_succ: Vec<u32>,
}

impl Block {
    /// `ops` ending in `term`, with no ordering successors (what every pass after ordering
    /// makes).
    pub fn new(ops: Vec<Op>, term: Term) -> Block {
        Block {
            ops,
            term,
            order_succ: Vec::new(),
        }
    }
}

impl Edge {
    /// An edge to block `target` with no copies.
    pub fn to(target: u32) -> Edge {
        Edge {
            target,
            moves: Vec::new(),
        }
    }
}

/// Registers holding the compute built-ins (base of 3 consecutive 32-bit registers, or 1 for the
/// local index).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builtins {
    pub global_id: Option<Reg>,
    pub local_id: Option<Reg>,
    pub workgroup_id: Option<Reg>,
    pub num_workgroups: Option<Reg>,
    pub local_index: Option<Reg>,
}

impl Builtins {
    /// Every built-in register range (base, length).
    pub fn ranges(&self) -> impl Iterator<Item = (Reg, u32)> {
        [
            (self.global_id, 3),
            (self.local_id, 3),
            (self.workgroup_id, 3),
            (self.num_workgroups, 3),
            (self.local_index, 1),
        ]
        .into_iter()
        .filter_map(|(r, n)| Some((r?, n)))
    }
}

/// A lowered entry point.
#[derive(Debug, Clone, PartialEq)]
pub struct Ir {
    pub blocks: Vec<Block>,
    /// The type of every register; its length is the register count.
    pub reg_types: Vec<RegType>,
    /// Registers holding a constant (raw bits, zero-extended), set before the first block.
    pub consts: Vec<(Reg, u64)>,
    pub builtins: Builtins,
    /// Bytes of workgroup memory.
    pub shared_size: u32,
    /// Workgroup-scope barriers, shared memory or anything else that forbids fusing workgroups
    /// (subgroup operations do not: backends never let a subgroup span two workgroups).
    pub needs_whole_group: bool,
    /// Declared shapes of shaped tensor types.
    pub shapes: Vec<Box<[u64]>>,
}

impl Ir {
    /// The register count.
    pub fn nregs(&self) -> u32 {
        self.reg_types.len() as u32
    }

    /// The IR's text form (see `print`).
    pub fn to_text(&self) -> String {
        print::ir(self)
    }
}
