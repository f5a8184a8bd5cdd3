//! The one list of IR operations, [`for_each_op!`], and everything generated from it: the
//! [`Op`] enum, its operand walker, its flags, its name and text form, and the interpreter's
//! dispatch trait [`OpHandlers`].
//!
//! Each entry is `Variant handler [flags] { field: role, … }`:
//! - flags (stated positively; an op without a flag does not have the property):
//!   - `pure`: the op has no effect besides writing its result registers, so it may be deleted
//!     when nothing reads them (loads are pure: an out-of-range load reads 0 and never faults);
//!   - `lanewise`: each lane's results depend only on that lane's operands, and the op reads all
//!     of a lane's operands before writing any of that lane's results (so a result may reuse an
//!     operand register);
//!   - `sync`: the op must run over the whole lane group at once, in lane order: it reads other
//!     lanes (subgroup operations), orders the lanes (atomics, whose returned values then match
//!     the interpreter's lane order on every backend) or is a workgroup barrier. A backend that
//!     runs lanes in chunks stops every chunk before a `sync` op.
//! - roles: `def`/`use` (one register written/read), `defs`/`uses` (a boxed slice of them),
//!   `opt_use` (an optional register read), `space`/`desc`/`tensor` (addressing operands that
//!   may read a descriptor-index register), `mem`/`opt_mem` (a byte address, [`MemRef`]: its
//!   space and address register), `var` (a per-lane variable: a register range the op
//!   indexes, not an operand of the walker) and `data(T)` (a plain `Copy` value).

use super::{DescIdx, MemRef, Reg, Space, TensorAcc, Var};
use crate::alu::{Conv, FBin, FCmp, FUn, IBin, ICmp, IUn, Tern};
use crate::mem::AtomicOp;
use crate::subgroup::SubOp;
use tessera_coop::matrix::{MatrixType, MulAdd};
use tessera_coop::{ComponentType, MatVec};

/// Calls `$callback!` with the op list (see the module docs for the format).
macro_rules! for_each_op {
    ($callback:ident) => {
        $callback! {
            /// `dst = src`, any width (both registers have the same storage width).
            Mov mov [pure lanewise] { dst: def, src: use },
            /// Integer arithmetic on `width`-bit values.
            IBin ibin [pure lanewise] { op: data(IBin), width: data(u8), dst: def, lhs: use, rhs: use },
            /// Integer unary operation on `width`-bit values.
            IUn iun [pure lanewise] { op: data(IUn), width: data(u8), dst: def, src: use },
            /// Integer comparison of `width`-bit values; `dst` is a bool.
            ICmp icmp [pure lanewise] { op: data(ICmp), width: data(u8), dst: def, lhs: use, rhs: use },
            /// Float arithmetic in format `width` (see `alu` for the width codes).
            FBin fbin [pure lanewise] { op: data(FBin), width: data(u8), dst: def, lhs: use, rhs: use },
            /// Float unary operation (including the GLSL.std.450 functions) in format `width`.
            FUn fun [pure lanewise] { op: data(FUn), width: data(u8), dst: def, src: use },
            /// Float comparison in format `width`; `dst` is a bool.
            FCmp fcmp [pure lanewise] { op: data(FCmp), width: data(u8), dst: def, lhs: use, rhs: use },
            /// Three-operand arithmetic (fma, clamps, mix, smoothstep) on `width` values.
            Tern tern [pure lanewise] { op: data(Tern), width: data(u8), dst: def, src0: use, src1: use, src2: use },
            /// Conversion from width `from` to width `to`.
            Conv conv [pure lanewise] { op: data(Conv), from: data(u8), to: data(u8), dst: def, src: use },
            /// `dst = cond ? if_true : if_false` (`cond` is a bool).
            Select select [pure lanewise] { dst: def, cond: use, if_true: use, if_false: use },
            /// `dst = choices[index]`, 0 when `index` is out of range.
            Pick pick [pure lanewise] { dst: def, index: use, choices: uses },
            /// `dst = var[offset + index]`, 0 when out of range.
            LoadVar load_var [pure] { dst: def, var: var, offset: data(u32), index: use },
            /// `var[offset + index] = value`, dropped when out of range.
            StoreVar store_var [] { var: var, offset: data(u32), index: use, value: use },
            /// Load of `bytes` bytes at `addr + offset` (`addr` optional) from `space`; an
            /// out-of-range load reads 0.
            Load load [pure] { space: space, bytes: data(u8), dst: def, addr: opt_use, offset: data(u64) },
            /// Store of the low `bytes` bytes of `value`; dropped when out of range.
            Store store [] { space: space, bytes: data(u8), value: use, addr: opt_use, offset: data(u64) },
            /// Atomic read-modify-write; `dst` gets the old value (0 when out of range).
            Atomic atomic [sync] { op: data(AtomicOp), space: space, bytes: data(u8), dst: def, addr: opt_use, offset: data(u64), value: use, comparator: use },
            /// An atomic read-modify-write whose old value nobody reads, of an operation whose
            /// result does not depend on the order the lanes take it in (`AtomicOp::commutes`,
            /// and every atomic on its memory of that operation): not a sync op, so each lane
            /// takes it where it is (`opt::unobserved_atomics`).
            AtomicUpdate atomic_update [] { op: data(AtomicOp), space: space, bytes: data(u8), addr: opt_use, offset: data(u64), value: use },
            /// Element count of the runtime array at byte `offset` (element `stride`) of a buffer.
            ArrayLength array_length [pure] { slot: data(u32), desc: desc, offset: data(u64), stride: data(u64), dst: def },
            /// `OpTensorReadARM`: `dsts.len()` consecutive elements from `coords` (each
            /// `coord_width` bits, `signed` per `OpTensorReadARM`'s operands); out-of-bounds
            /// elements read `oob` (or 0).
            TensorRead tensor_read [pure] { tensor: tensor, coords: uses, signed: data(bool), coord_width: data(u8), dsts: defs, oob: opt_use },
            /// `OpTensorWriteARM`: out-of-bounds elements are dropped.
            TensorWrite tensor_write [] { tensor: tensor, coords: uses, signed: data(bool), coord_width: data(u8), values: uses },
            /// `OpTensorQuerySizeARM`: size of dimension `dim` (0 when out of range), `width` bits.
            TensorQuery tensor_query [pure] { tensor: tensor, dim: use, width: data(u8), dst: def },
            /// Integer dot product (`OpSDot`, `OpUDot`, `OpSUDot` and their `AccSat` forms) of
            /// `in_width`-bit components, exact; without `acc` the low `out_width` bits, with
            /// `acc` the sum saturated to the signed (`sat_signed`) or unsigned range.
            IDot idot [pure lanewise] { in_width: data(u8), out_width: data(u8), lhs_signed: data(bool), rhs_signed: data(bool), sat_signed: data(bool), dst: def, lhs: uses, rhs: uses, acc: opt_use },
            /// A subgroup operation on `width` values (see `subgroup`): `value` is the data
            /// operand, `operand` the lane / delta / mask operand.
            Subgroup subgroup [pure sync] { op: data(SubOp), width: data(u8), dst: def, value: use, operand: use },
            /// `OpControlBarrier` with workgroup (or wider) execution scope: every lane of the
            /// workgroup reaches it before any goes on.
            Barrier barrier [sync] {},
            /// A meeting point the lowering adds before a memory access of a program with
            /// subgroup operations (`converge`), not an `OpControlBarrier`: lanes that reach it
            /// go on; a backend that runs lanes in chunks lets every chunk's effects before it
            /// come before any chunk's after it, as in lockstep, where it does nothing.
            Converge converge [sync] {},
            /// `OpCooperativeVectorMatrixMulNV`/`MulAddNV` (`tessera_coop::vector`): per lane,
            /// `dsts` (`form.m` components) = the stored matrix at `matrix` (`stride` bytes
            /// between rows or columns, for the layouts that have one) times the lane's `input`
            /// components, plus the bias at `bias`.
            CoopMatVec coop_mat_vec [pure lanewise] { form: data(MatVec), dsts: defs, input: uses, matrix: mem, stride: opt_use, bias: opt_mem },
            /// `OpCooperativeVectorOuterProductAccumulateNV`: atomically adds `a ⊗ b` (f16
            /// components) into the `a.len() × b.len()` training-optimal matrix of `elem`s at
            /// `matrix`.
            CoopOuterProduct coop_outer_product [] { elem: data(ComponentType), a: uses, b: uses, matrix: mem },
            /// `OpCooperativeVectorReduceSumAccumulateNV`: atomically adds each of `values`
            /// (`elem`s) to the consecutive `elem`s at `target`.
            CoopReduceSum coop_reduce_sum [] { elem: data(ComponentType), values: uses, target: mem },
            /// `OpCooperativeMatrixLoadKHR` (`tessera_coop::matrix`): each lane's `dsts`, its
            /// components of a `ty` matrix stored at `src`, row-major (`column_major` false) or
            /// column-major, `stride` (a register, 0 when absent) units of `unit` bytes from one
            /// row or column to the next. Out-of-range elements read 0.
            CoopMatLoad coop_mat_load [pure] { ty: data(MatrixType), column_major: data(bool), unit: data(u32), dsts: defs, src: mem, stride: opt_use },
            /// `OpCooperativeMatrixStoreKHR`: stores each element of the subgroup's matrix once
            /// (see `CoopMatLoad` for the operands); out-of-range elements are dropped. Each
            /// half-subgroup stores the elements it holds (`B`'s first half all of them); where
            /// the subgroup reads that memory again with no sync op between, a meeting point
            /// comes first (`converge`), so every lane sees the whole store.
            CoopMatStore coop_mat_store [] { ty: data(MatrixType), column_major: data(bool), unit: data(u32), values: uses, dst: mem, stride: opt_use },
            /// `OpCooperativeMatrixMulAddKHR`: `dsts = a · b + c` over each half-subgroup of 16
            /// lanes (which holds all its operands, see `tessera_coop::matrix`).
            CoopMatMulAdd coop_mat_mul_add [pure] { form: data(MulAdd), dsts: defs, a: uses, b: uses, c: uses },
        }
    };
}

/// The Rust type of a field with a role.
macro_rules! field_type {
    (def) => { Reg };
    (use) => { Reg };
    (defs) => { Box<[Reg]> };
    (uses) => { Box<[Reg]> };
    (opt_use) => { Option<Reg> };
    (var) => { Var };
    (space) => { Space };
    (desc) => { DescIdx };
    (tensor) => { TensorAcc };
    (mem) => { MemRef };
    (opt_mem) => { Option<MemRef> };
    (data($t:ty)) => { $t };
}

/// The argument type a handler receives for a field with a role.
macro_rules! handler_type {
    (def) => { Reg };
    (use) => { Reg };
    (defs) => { &[Reg] };
    (uses) => { &[Reg] };
    (opt_use) => { Option<Reg> };
    (var) => { Var };
    (space) => { Space };
    (desc) => { DescIdx };
    (tensor) => { &TensorAcc };
    (mem) => { MemRef };
    (opt_mem) => { Option<MemRef> };
    (data($t:ty)) => { $t };
}

/// Passes a field (bound by reference in a match) to a handler.
macro_rules! handler_arg {
    (defs, $f:ident) => {
        &**$f
    };
    (uses, $f:ident) => {
        &**$f
    };
    (tensor, $f:ident) => {
        $f
    };
    ($role:ident, $f:ident) => {
        *$f
    };
    ($role:ident($t:ty), $f:ident) => {
        *$f
    };
}

/// Visits the registers a field reads (`reads`) or writes (`writes`).
macro_rules! visit_field {
    (reads, use, $x:ident, $f:ident) => {
        $f($x, Role::Use)
    };
    (reads, uses, $x:ident, $f:ident) => {
        for r in $x.iter_mut() {
            $f(r, Role::Use)
        }
    };
    (reads, opt_use, $x:ident, $f:ident) => {
        if let Some(r) = $x {
            $f(r, Role::Use)
        }
    };
    (reads, desc, $x:ident, $f:ident) => {
        $x.visit(&mut *$f)
    };
    (reads, space, $x:ident, $f:ident) => {
        $x.visit(&mut *$f)
    };
    (reads, tensor, $x:ident, $f:ident) => {
        $x.desc.visit(&mut *$f)
    };
    (reads, mem, $x:ident, $f:ident) => {
        $x.visit(&mut *$f)
    };
    (reads, opt_mem, $x:ident, $f:ident) => {
        if let Some(m) = $x {
            m.visit(&mut *$f)
        }
    };
    (writes, def, $x:ident, $f:ident) => {
        $f($x, Role::Def)
    };
    (writes, defs, $x:ident, $f:ident) => {
        for r in $x.iter_mut() {
            $f(r, Role::Def)
        }
    };
    ($pass:ident, $role:ident $(($t:ty))?, $x:ident, $f:ident) => {
        let _ = $x;
    };
}

/// Calls the read-only visitor `$f` for one field (see `Op::for_each_reg`): as `visit_field!`,
/// on copies of the registers.
macro_rules! visit_field_ref {
    (reads, use, $x:ident, $f:ident) => {
        $f(*$x, Role::Use)
    };
    (reads, uses, $x:ident, $f:ident) => {
        for &r in $x.iter() {
            $f(r, Role::Use)
        }
    };
    (reads, opt_use, $x:ident, $f:ident) => {
        if let Some(r) = $x {
            $f(*r, Role::Use)
        }
    };
    (reads, desc, $x:ident, $f:ident) => {{
        let mut copy = *$x;
        copy.visit(&mut |r: &mut Reg, role| $f(*r, role))
    }};
    (reads, space, $x:ident, $f:ident) => {{
        let mut copy = *$x;
        copy.visit(&mut |r: &mut Reg, role| $f(*r, role))
    }};
    (reads, tensor, $x:ident, $f:ident) => {{
        let mut copy = $x.desc;
        copy.visit(&mut |r: &mut Reg, role| $f(*r, role))
    }};
    (reads, mem, $x:ident, $f:ident) => {{
        let mut copy = *$x;
        copy.visit(&mut |r: &mut Reg, role| $f(*r, role))
    }};
    (reads, opt_mem, $x:ident, $f:ident) => {
        if let Some(m) = $x {
            let mut copy = *m;
            copy.visit(&mut |r: &mut Reg, role| $f(*r, role))
        }
    };
    (writes, def, $x:ident, $f:ident) => {
        $f(*$x, Role::Def)
    };
    (writes, defs, $x:ident, $f:ident) => {
        for &r in $x.iter() {
            $f(r, Role::Def)
        }
    };
    ($pass:ident, $role:ident $(($t:ty))?, $x:ident, $f:ident) => {
        let _ = $x;
    };
}

/// Calls `$f` on a tensor operand field (see `Op::for_each_tensor`); other fields are skipped.
macro_rules! visit_tensor {
    (tensor, $x:ident, $f:ident) => {
        $f($x)
    };
    ($role:ident $(($t:ty))?, $x:ident, $f:ident) => {
        let _ = $x;
    };
}

/// Whether `$flags` contains `$want`.
macro_rules! has_flag {
    ($want:ident []) => { false };
    (pure [pure $($rest:ident)*]) => { true };
    (lanewise [lanewise $($rest:ident)*]) => { true };
    (sync [sync $($rest:ident)*]) => { true };
    ($want:ident [$other:ident $($rest:ident)*]) => { has_flag!($want [$($rest)*]) };
}

/// Prints one field (`key=value`) for the text form; defs are printed before the `=` instead.
macro_rules! print_field {
    ($out:ident, $regs:ident, def, $name:ident, $x:ident) => {{
        let _ = $x;
    }};
    ($out:ident, $regs:ident, defs, $name:ident, $x:ident) => {{
        let _ = $x;
    }};
    ($out:ident, $regs:ident, use, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.name(*$x))?
    };
    ($out:ident, $regs:ident, uses, $name:ident, $x:ident) => {
        write!($out, " {}=[{}]", stringify!($name), $regs.names($x))?
    };
    ($out:ident, $regs:ident, opt_use, $name:ident, $x:ident) => {
        if let Some(r) = $x {
            write!($out, " {}={}", stringify!($name), $regs.name(*r))?
        }
    };
    ($out:ident, $regs:ident, var, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.var(*$x))?
    };
    ($out:ident, $regs:ident, space, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.space(*$x))?
    };
    ($out:ident, $regs:ident, desc, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.desc(*$x))?
    };
    ($out:ident, $regs:ident, tensor, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.tensor($x))?
    };
    ($out:ident, $regs:ident, mem, $name:ident, $x:ident) => {
        write!($out, " {}={}", stringify!($name), $regs.mem(*$x))?
    };
    ($out:ident, $regs:ident, opt_mem, $name:ident, $x:ident) => {
        if let Some(m) = $x {
            write!($out, " {}={}", stringify!($name), $regs.mem(*m))?
        }
    };
    ($out:ident, $regs:ident, data($t:ty), $name:ident, $x:ident) => {
        write!($out, " {}={:?}", stringify!($name), $x)?
    };
}

/// Collects the defs of an op for the text form.
macro_rules! print_defs {
    ($defs:ident, def, $x:ident) => {
        $defs.push(*$x)
    };
    ($defs:ident, defs, $x:ident) => {
        $defs.extend($x.iter().copied())
    };
    ($defs:ident, $role:ident $(($t:ty))?, $x:ident) => {{
        let _ = $x;
    }};
}

/// Expands the op list into the enum and its generated methods.
macro_rules! define_ops {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident $handler:ident [$($flag:ident)*] { $($field:ident : $role:ident $(($ty:ty))?),* $(,)? }
    ),* $(,)?) => {
        /// One scalar IR operation over the active lanes (see the module docs of `ir`).
        #[derive(Debug, Clone, PartialEq)]
        pub enum Op {
            $( $(#[doc = $doc])* $name { $( $field: field_type!($role $(($ty))?) ),* }, )*
        }

        impl Op {
            /// The op's name in the text form.
            pub fn name(&self) -> &'static str {
                match self { $( Op::$name { .. } => stringify!($handler), )* }
            }

            /// Whether the op has no effect besides writing its results (see `for_each_op!`).
            pub fn is_pure(&self) -> bool {
                match self { $( Op::$name { .. } => has_flag!(pure [$($flag)*]), )* }
            }

            /// Whether the op is lane-wise (see `for_each_op!`).
            pub fn is_lanewise(&self) -> bool {
                match self { $( Op::$name { .. } => has_flag!(lanewise [$($flag)*]), )* }
            }

            /// Whether the op must run over the whole lane group at once (see `for_each_op!`).
            pub fn is_sync(&self) -> bool {
                match self { $( Op::$name { .. } => has_flag!(sync [$($flag)*]), )* }
            }

            /// Calls `f` on every register operand, reads first, then writes. The registers of a
            /// `var` range are not operands: callers treat variables as opaque (see `opt`).
            pub fn visit_regs(&mut self, f: &mut impl FnMut(&mut Reg, Role)) {
                match self {
                    $( Op::$name { $($field),* } => {
                        $( visit_field!(reads, $role $(($ty))?, $field, f); )*
                        $( visit_field!(writes, $role $(($ty))?, $field, f); )*
                    } )*
                }
            }

            /// [`Op::visit_regs`] without changing the op: `f` gets each register operand by
            /// value, reads first, then writes.
            pub fn for_each_reg(&self, f: &mut impl FnMut(Reg, Role)) {
                match self {
                    $( Op::$name { $($field),* } => {
                        $( visit_field_ref!(reads, $role $(($ty))?, $field, f); )*
                        $( visit_field_ref!(writes, $role $(($ty))?, $field, f); )*
                    } )*
                }
            }

            /// Calls `f` on every tensor operand of the op.
            pub fn for_each_tensor(&self, f: &mut impl FnMut(&TensorAcc)) {
                match self {
                    $( Op::$name { $($field),* } => {
                        $( visit_tensor!($role $(($ty))?, $field, f); )*
                    } )*
                }
            }

            /// Writes the op's text form: `%d = name key=value …`.
            pub(crate) fn print(&self, out: &mut dyn std::fmt::Write, regs: &super::print::Names<'_>) -> std::fmt::Result {
                let mut defs: Vec<Reg> = Vec::new();
                match self {
                    $( Op::$name { $($field),* } => {
                        $( print_defs!(defs, $role $(($ty))?, $field); )*
                        if !defs.is_empty() {
                            write!(out, "{} = ", regs.typed_names(&defs))?;
                        }
                        write!(out, "{}", stringify!($handler))?;
                        $( print_field!(out, regs, $role $(($ty))?, $field, $field); )*
                    } )*
                }
                Ok(())
            }
        }

        /// The interpreter's side of the op list: one method per op, receiving its fields.
        #[allow(clippy::too_many_arguments)]
        pub(crate) trait OpHandlers {
            $( fn $handler(&mut self, $( $field: handler_type!($role $(($ty))?) ),* ); )*
        }

        /// Calls the handler of `op`.
        #[inline(always)]
        pub(crate) fn dispatch<H: OpHandlers>(handlers: &mut H, op: &Op) {
            match op {
                $( Op::$name { $($field),* } => handlers.$handler($( handler_arg!($role $(($ty))?, $field) ),*), )*
            }
        }
    };
}

/// Whether an operand register is read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Use,
    Def,
}

for_each_op!(define_ops);

impl Op {
    /// Calls `f` on every register the op writes: its def operands and, for a `StoreVar`, every
    /// register of its variable (which `visit_regs` leaves out: it may write any of them).
    pub fn for_each_def(&self, mut f: impl FnMut(Reg)) {
        self.for_each_reg(&mut |r, role| {
            if role == Role::Def {
                f(r);
            }
        });
        if let Op::StoreVar { var, .. } = self {
            (var.base..var.base + var.len).for_each(f);
        }
    }

    /// Whether the op writes register `r` (see [`Op::for_each_def`]).
    pub fn defines(&self, r: Reg) -> bool {
        let mut hit = false;
        self.for_each_def(|d| hit |= d == r);
        hit
    }
}
