//! Specialisation and lowering: `rspirv` module + entry point + spec constants → [`Ir`].
//!
//! [`lower`] runs the passes in order: `check_caps` (`caps`), `collect` (decorations, functions,
//! result types), `types_and_consts` (`types`), `entry` (entry point and workgroup size), then
//! inlines the entry function behind block 0 (`cfg`), orders the blocks, runs `opt` (again after
//! `unroll` writes out small counted loops and `constants` folds what that makes known) and
//! verifies the IR. This file owns the [`Lowerer`] state, the shared helpers (operand decoding, register
//! allocation, `emit`, value lookup) and `lower_inst`, which hands each instruction to its
//! family's module: `arith` (ALU ops, conversions, selects, dot products, matrices, bitcasts, bit
//! fields), `composite` (construct, extract, insert, shuffles, copies), `glsl450` (`OpExtInst`),
//! `memory` (variables, globals, access chains, loads, stores, atomics), `subgroup`, `tensor`,
//! `coop`.
//!
//! Invariants: every id lookup is checked (a bad id is an error, never a panic); values are
//! scalarised into registers, one per leaf scalar in `Lowerer::leaves` order; pointers are
//! compile-time descriptors (`memory::Ptr`: base + constant offset + optional per-lane dynamic
//! offset register), except `PhysicalStorageBuffer` pointers, which are 64-bit address values
//! (one `u64` register; `memory` turns them into `Space::Physical` accesses). Other than
//! `PhysicalStorageBuffer64`, only `Logical` addressing is accepted. `emit` appends to block `cur`,
//! or to `scratch` while a spec-constant operation is folded; constants live in registers that
//! `imm` allocates once per value and that no op writes.

mod arith;
mod caps;
mod cfg;
mod composite;
mod coop;
mod glsl450;
mod layout;
mod memory;
mod pointers;
mod subgroup;
mod tensor;
mod types;
mod typing;

use self::cfg::order_blocks;
use self::memory::Ptr;
use self::types::SpvType;
use crate::ir::{Block, Builtins, Edge, Ir, Op, Reg, RegType, Role, Space, TensorAcc, Term};
use crate::{Module, Program, ResourceDecl, SpirvError};
use rspirv::dr::{Function, Instruction, Operand};
use rspirv::spirv::{
    BuiltIn, Decoration, ExecutionMode, ExecutionModel, Op as S, Scope, StorageClass,
};
use std::collections::HashMap;

type Id = u32;
type LowerResult<T> = Result<T, SpirvError>;

const MAX_LEAVES: u64 = 1 << 16;
const MAX_REGS: u32 = 1 << 18;

fn err<T>(msg: impl Into<String>) -> LowerResult<T> {
    Err(SpirvError::new(msg))
}

#[derive(Debug, Clone)]
enum Val {
    Regs(Vec<Reg>),
    Ptr(Ptr),
    Tensor(TensorAcc),
}

struct Lowerer<'m> {
    m: &'m Module,
    spec: &'m [(u32, Vec<u8>)],
    types: HashMap<Id, SpvType>,
    consts: HashMap<Id, Vec<u64>>,
    const_regs: HashMap<Id, Vec<Reg>>,
    imms: HashMap<u64, Reg>,
    known: HashMap<Reg, u64>,
    decos: HashMap<Id, Vec<&'m Instruction>>,
    member_decos: HashMap<(Id, u32), Vec<&'m Instruction>>,
    globals: HashMap<Id, (Id, StorageClass, Option<Id>)>,
    global_vals: HashMap<Id, Val>,
    funcs: HashMap<Id, &'m Function>,
    id_types: HashMap<Id, Id>,
    glsl: Option<Id>,
    ignored_sets: Vec<Id>,
    /// The type of every register allocated so far (`None` until an op or `typing` fixes it).
    reg_types: Vec<Option<RegType>>,
    consts_init: Vec<(Reg, u64)>,
    blocks: Vec<Block>,
    cur: usize,
    scratch: Option<Vec<Op>>,
    resources: Vec<ResourceDecl>,
    push_size: u32,
    shared_size: u64,
    /// Shapes of shaped tensor types (`TensorAcc::shape` indexes this).
    shapes: Vec<Box<[u64]>>,
    /// See `Program::warnings`.
    warnings: Vec<String>,
    /// Register ranges of variables (built-ins, private and function variables): stored more
    /// than once and read out of SSA order, so `opt` never treats them as SSA values.
    var_ranges: Vec<(Reg, u32)>,
    /// Headers (blocks as lowered) of loops marked `DontUnroll`: `unroll` leaves them.
    dont_unroll: Vec<u32>,
    builtins: Builtins,
    needs_whole: bool,
    local_size: [u32; 3],
    call_stack: Vec<Id>,
    entry_init: Vec<Op>,
    /// What the program uses of cooperative vectors and matrices.
    cooperative: crate::Cooperative,
    /// The `VariablePointers*` the module declares, and whether a buffer pointer became a value.
    variable_pointers: pointers::VariablePointers,
    /// Where we are, for error messages.
    at: String,
}

fn lit(op: Option<&Operand>) -> LowerResult<u32> {
    match op {
        Some(Operand::LiteralBit32(v)) => Ok(*v),
        Some(Operand::LiteralExtInstInteger(v)) => Ok(*v),
        other => err(format!("expected a 32-bit literal, found {other:?}")),
    }
}

fn idref(op: Option<&Operand>) -> LowerResult<Id> {
    match op {
        Some(Operand::IdRef(v))
        | Some(Operand::IdScope(v))
        | Some(Operand::IdMemorySemantics(v)) => Ok(*v),
        other => err(format!("expected an id operand, found {other:?}")),
    }
}

fn opname(inst: &Instruction) -> String {
    format!("Op{} ({})", inst.class.opname, inst.class.opcode as u32)
}

/// Writes out small counted loops (`unroll`; not those with headers in `kept_loops`, marked
/// `DontUnroll`), reads the values that makes known (`constants`: variables at constant indices
/// become registers) and runs the clean-up passes again over what that leaves.
fn small_loops_written_out(
    blocks: &mut Vec<Block>,
    reg_types: &mut Vec<RegType>,
    consts: &mut Vec<(Reg, u64)>,
    vars: &[(Reg, u32)],
    builtins: &Builtins,
    kept_loops: Vec<usize>,
) {
    let mut pinned = crate::opt::pinned_registers(reg_types.len(), vars, builtins);
    for &(r, _) in consts.iter() {
        if let Some(p) = pinned.get_mut(r as usize) {
            *p = true;
        }
    }
    let mut constants = crate::constants::Constants::new(reg_types, consts);
    if !crate::unroll::unroll_small_loops(blocks, &mut constants, &pinned, &kept_loops) {
        return;
    }
    crate::constants::fold_known(blocks, &mut constants);
    // Variables stay pinned even where no access indexes them any more: a variable may still
    // be read before its store (a value carried around a loop), which `opt`'s SSA steps would
    // get wrong.
    crate::opt::merge_blocks(blocks);
    crate::opt::optimize(blocks, reg_types.len() as u32, vars, consts, builtins);
    crate::opt::merge_blocks(blocks);
    crate::loop_exits::sink_loop_copies(blocks, reg_types.len() as u32);
    crate::coalesce::coalesce_edge_copies(blocks, reg_types, vars, consts, builtins);
    // Once the empty blocks are gone, chains they separated can merge.
    crate::unroll::drop_unreachable(blocks);
    crate::opt::merge_blocks(blocks);
    crate::unroll::drop_unreachable(blocks);
}

impl Lowerer<'_> {
    /// `opt`'s clean-up passes over `blocks` (registers `0..nregs`).
    fn optimize(&self, blocks: &mut [Block], nregs: usize) {
        crate::opt::optimize(
            blocks,
            nregs as u32,
            &self.var_ranges,
            &self.consts_init,
            &self.builtins,
        );
    }
}

/// Lowers `entry` of `m` with the given specialization values.
pub(crate) fn lower(m: &Module, entry: &str, spec: &[(u32, Vec<u8>)]) -> LowerResult<Program> {
    let mut l = Lowerer {
        m,
        spec,
        types: HashMap::new(),
        consts: HashMap::new(),
        const_regs: HashMap::new(),
        imms: HashMap::new(),
        known: HashMap::new(),
        decos: HashMap::new(),
        member_decos: HashMap::new(),
        globals: HashMap::new(),
        global_vals: HashMap::new(),
        funcs: HashMap::new(),
        id_types: HashMap::new(),
        glsl: None,
        ignored_sets: Vec::new(),
        reg_types: Vec::new(),
        consts_init: Vec::new(),
        blocks: Vec::new(),
        cur: 0,
        scratch: None,
        resources: Vec::new(),
        push_size: 0,
        shared_size: 0,
        shapes: Vec::new(),
        warnings: Vec::new(),
        var_ranges: Vec::new(),
        dont_unroll: Vec::new(),
        builtins: Builtins::default(),
        needs_whole: false,
        local_size: [1, 1, 1],
        call_stack: Vec::new(),
        entry_init: Vec::new(),
        cooperative: crate::Cooperative::default(),
        variable_pointers: pointers::VariablePointers::default(),
        at: String::new(),
    };
    l.check_caps()?;
    l.collect()?;
    l.types_and_consts()?;
    let (func, local_size) = l.entry(entry)?;
    l.local_size = local_size;
    // Block 0 runs the private-variable initialisers, then jumps to the entry function.
    l.blocks.push(Block {
        ops: Vec::new(),
        term: Term::Exit,
        order_succ: Vec::new(),
    });
    l.cur = 0;
    l.call_stack.push(func);
    let first = l.lower_function(func, Vec::new(), None)?;
    let init = std::mem::take(&mut l.entry_init);
    l.blocks[0].ops = init;
    l.blocks[0].term = Term::Jump(Edge {
        target: first,
        moves: Vec::new(),
    });
    let (mut blocks, new_numbers) = order_blocks(std::mem::take(&mut l.blocks))?;
    let kept_loops: Vec<usize> = l
        .dont_unroll
        .iter()
        .filter_map(|&b| new_numbers.get(b as usize).copied())
        .filter(|&b| b != u32::MAX)
        .map(|b| b as usize)
        .collect();
    let mut reg_types = typing::finish(&mut blocks, &mut l.reg_types, &mut l.consts_init)?;
    l.optimize(&mut blocks, reg_types.len());
    crate::opt::merge_blocks(&mut blocks);
    crate::loop_exits::sink_loop_copies(&mut blocks, reg_types.len() as u32);
    crate::coalesce::coalesce_edge_copies(
        &mut blocks,
        &reg_types,
        &l.var_ranges,
        &l.consts_init,
        &l.builtins,
    );
    small_loops_written_out(
        &mut blocks,
        &mut reg_types,
        &mut l.consts_init,
        &l.var_ranges,
        &l.builtins,
        kept_loops,
    );
    // Loop accumulators in buffer words become registers, unless a declaration may alias
    // another or memory is reached through device addresses (`promote`).
    if !l.may_alias_memory()
        && !l.variable_pointers.descriptor_addresses
        && !blocks.iter().flat_map(|b| &b.ops).any(uses_physical)
        && crate::promote::loop_accumulators(
            &mut blocks,
            &mut reg_types,
            &l.consts_init,
            &l.var_ranges,
        )
    {
        l.optimize(&mut blocks, reg_types.len());
    }
    crate::opt::unobserved_atomics(&mut blocks, reg_types.len(), &l.var_ranges);
    crate::converge::insert(&mut blocks);
    let blocks = crate::opt::isolate_sync_ops(blocks);
    let blocks = crate::switches::switch_chains(blocks, &mut reg_types, &mut l.consts_init);
    let shared_size = u32::try_from(l.shared_size)
        .map_err(|_| SpirvError::new("workgroup memory larger than 4 GiB"))?;
    let ir = Ir {
        blocks,
        reg_types,
        consts: l.consts_init,
        builtins: l.builtins,
        shared_size,
        needs_whole_group: l.needs_whole || shared_size > 0,
        shapes: l.shapes,
    };
    ir.verify()?;
    let shape = crate::exec::GroupShape::new(&ir, local_size)?;
    let layout = crate::exec::regfile::RegLayout::new(&ir, shape.lanes as usize);
    let physical = ir.blocks.iter().flat_map(|b| &b.ops).any(uses_physical);
    Ok(Program {
        cooperative: l.cooperative,
        local_ids: crate::exec::local_id_rows(local_size),
        physical,
        descriptor_addresses: l.variable_pointers.descriptor_addresses,
        ir,
        local_size,
        resources: l.resources,
        push_size: l.push_size,
        warnings: l.warnings,
        shape,
        layout,
    })
}

/// Whether `op` accesses `PhysicalStorageBuffer` memory.
fn uses_physical(op: &Op) -> bool {
    let physical = |m: &crate::ir::MemRef| m.space == Space::Physical;
    match op {
        Op::Load { space, .. }
        | Op::Store { space, .. }
        | Op::Atomic { space, .. }
        | Op::AtomicUpdate { space, .. } => *space == Space::Physical,
        Op::CoopMatVec { matrix, bias, .. } => {
            physical(matrix) || bias.as_ref().is_some_and(physical)
        }
        Op::CoopOuterProduct { matrix, .. } => physical(matrix),
        Op::CoopReduceSum { target, .. } => physical(target),
        Op::CoopMatLoad { src, .. } => physical(src),
        Op::CoopMatStore { dst, .. } => physical(dst),
        _ => false,
    }
}

impl<'m> Lowerer<'m> {
    fn collect(&mut self) -> LowerResult<()> {
        let dr = &self.m.dr;
        for inst in &dr.annotations {
            match inst.class.opcode {
                S::Decorate | S::DecorateId => {
                    let t = idref(inst.operands.first())?;
                    self.decos.entry(t).or_default().push(inst);
                }
                S::MemberDecorate => {
                    let t = idref(inst.operands.first())?;
                    let mi = lit(inst.operands.get(1))?;
                    self.member_decos.entry((t, mi)).or_default().push(inst);
                }
                _ => {}
            }
        }
        for f in &dr.functions {
            let Some(id) = f.def.as_ref().and_then(|d| d.result_id) else {
                return err("function without OpFunction");
            };
            self.funcs.insert(id, f);
            for inst in f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            {
                if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                    self.id_types.insert(r, t);
                }
            }
        }
        for inst in &dr.types_global_values {
            if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                self.id_types.insert(r, t);
            }
        }
        Ok(())
    }

    fn deco(&self, id: Id, d: Decoration) -> Option<&'m Instruction> {
        self.decos
            .get(&id)?
            .iter()
            .copied()
            .find(|i| matches!(i.operands.get(1), Some(Operand::Decoration(x)) if *x == d))
    }
    fn deco_lit(&self, id: Id, d: Decoration) -> Option<u32> {
        lit(self.deco(id, d)?.operands.get(2)).ok()
    }

    /// `n` consecutive registers whose types the ops that define them will fix.
    fn alloc(&mut self, n: u32) -> LowerResult<Reg> {
        let b = self.reg_types.len() as u32;
        let end = b
            .checked_add(n)
            .filter(|&x| x <= MAX_REGS)
            .ok_or_else(|| SpirvError::new("shader needs too many registers"))?;
        self.reg_types.resize(end as usize, None);
        Ok(b)
    }
    /// Consecutive registers of the given types.
    fn alloc_typed(&mut self, types: &[RegType]) -> LowerResult<Reg> {
        let b = self.alloc(types.len() as u32)?;
        for (k, t) in types.iter().enumerate() {
            self.reg_types[b as usize + k] = Some(*t);
        }
        Ok(b)
    }
    fn alloc_v(&mut self, n: u32) -> LowerResult<Vec<Reg>> {
        let b = self.alloc(n)?;
        Ok((b..b + n).collect())
    }
    /// The register holding constant `v` (raw bits); its type comes from its uses (`typing`).
    fn imm(&mut self, v: u64) -> LowerResult<Reg> {
        if let Some(&r) = self.imms.get(&v) {
            return Ok(r);
        }
        let r = self.alloc(1)?;
        self.consts_init.push((r, v));
        self.known.insert(r, v);
        self.imms.insert(v, r);
        Ok(r)
    }
    /// `lhs op rhs` at `width` bits, into a new register.
    fn ibin(&mut self, op: crate::alu::IBin, width: u8, lhs: Reg, rhs: Reg) -> LowerResult<Reg> {
        let dst = self.alloc(1)?;
        self.emit(Op::IBin {
            op,
            width,
            dst,
            lhs,
            rhs,
        });
        Ok(dst)
    }

    /// `src` converted by `op` from `from` to `to` bits, into a new register (`src` itself when
    /// the widths agree).
    fn conv(&mut self, op: crate::alu::Conv, from: u8, to: u8, src: Reg) -> LowerResult<Reg> {
        if from == to {
            return Ok(src);
        }
        let dst = self.alloc(1)?;
        self.emit(Op::Conv {
            op,
            from,
            to,
            dst,
            src,
        });
        Ok(dst)
    }

    fn emit(&mut self, op: Op) {
        // The op fixes the type of every result register that has none yet.
        if let Ok(operands) = crate::ir::verify::typed_operands(&op) {
            for (r, role, want) in operands {
                if role == Role::Def
                    && self.reg_types.get(r as usize).is_some_and(|t| t.is_none())
                    && let Some(t) = want.default_type(&self.reg_types)
                {
                    self.reg_types[r as usize] = Some(t);
                }
            }
        }
        match &mut self.scratch {
            Some(s) => s.push(op),
            None => self.blocks[self.cur].ops.push(op),
        }
    }

    // ----------------------------------------------------------------- entry point

    fn entry(&mut self, name: &str) -> LowerResult<(Id, [u32; 3])> {
        let dr = &self.m.dr;
        let mut found = None;
        for ep in &dr.entry_points {
            let model = matches!(
                ep.operands.first(),
                Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
            );
            let n = matches!(ep.operands.get(2), Some(Operand::LiteralString(s)) if s == name);
            if n && model {
                found = Some(idref(ep.operands.get(1))?);
            }
        }
        let Some(f) = found else {
            return err(format!("no GLCompute entry point named {name:?}"));
        };
        if !self.funcs.contains_key(&f) {
            return err(format!(
                "entry point {name:?} names %{f}, which is not a function"
            ));
        }
        let mut ls = [1u32, 1, 1];
        for em in &dr.execution_modes {
            if idref(em.operands.first())? != f {
                continue;
            }
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    for (i, l) in ls.iter_mut().enumerate() {
                        *l = lit(em.operands.get(2 + i))?;
                    }
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    for (i, l) in ls.iter_mut().enumerate() {
                        *l = self.const_u32(idref(em.operands.get(2 + i))?)?;
                    }
                }
                _ => {}
            }
        }
        for (ep, mode, ids) in &self.m.mode_ids {
            if *ep == f && *mode == ExecutionMode::LocalSizeId as u32 {
                for (i, l) in ls.iter_mut().enumerate() {
                    let id = *ids
                        .get(i)
                        .ok_or_else(|| SpirvError::new("LocalSizeId needs three ids"))?;
                    *l = self.const_u32(id)?;
                }
            }
        }
        // A constant decorated BuiltIn WorkgroupSize overrides the execution mode.
        for (&id, v) in &self.consts {
            let is_wgs = self.decos.get(&id).is_some_and(|ds| {
                ds.iter().any(|d| {
                    matches!(
                        (d.operands.get(1), d.operands.get(2)),
                        (
                            Some(Operand::Decoration(Decoration::BuiltIn)),
                            Some(Operand::BuiltIn(BuiltIn::WorkgroupSize))
                        )
                    )
                })
            });
            if is_wgs && v.len() == 3 {
                ls = [v[0] as u32, v[1] as u32, v[2] as u32];
            }
        }
        let total = u64::from(ls[0]) * u64::from(ls[1]) * u64::from(ls[2]);
        if total == 0 || total > 4096 {
            return err(format!("unsupported workgroup size {ls:?}"));
        }
        Ok((f, ls))
    }

    // ----------------------------------------------------------------- values

    fn val(&mut self, vals: &HashMap<Id, Val>, id: Id) -> LowerResult<Val> {
        if let Some(v) = vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(r) = self.const_regs.get(&id) {
            return Ok(Val::Regs(r.clone()));
        }
        if let Some(c) = self.consts.get(&id).cloned() {
            let mut regs = Vec::with_capacity(c.len());
            for v in c {
                regs.push(self.imm(v)?);
            }
            self.const_regs.insert(id, regs.clone());
            return Ok(Val::Regs(regs));
        }
        if let Some(v) = self.global_vals.get(&id) {
            return Ok(v.clone());
        }
        if self.globals.contains_key(&id) {
            let v = self.global(id)?;
            self.global_vals.insert(id, v.clone());
            return Ok(v);
        }
        err(format!(
            "{}: unknown or forward-referenced id %{id}",
            self.at
        ))
    }

    fn regs(&mut self, vals: &HashMap<Id, Val>, id: Id) -> LowerResult<Vec<Reg>> {
        match self.val(vals, id)? {
            Val::Regs(r) => Ok(r),
            // A physical or variable pointer is a value: its 64-bit address or offset.
            Val::Ptr(p) if self.is_value_pointer(&p) => Ok(vec![self.pointer_value(p)?]),
            Val::Ptr(_) => err(format!(
                "{}: %{id} is a pointer that is not a value: only PhysicalStorageBuffer \
                 pointers, and StorageBuffer or Workgroup pointers under VariablePointers \
                 (VariablePointersStorageBuffer: StorageBuffer only), can be selected, phied, \
                 returned or stored",
                self.at
            )),
            _ => err(format!("{}: %{id} is not a plain value", self.at)),
        }
    }
    fn reg1(&mut self, vals: &HashMap<Id, Val>, id: Id) -> LowerResult<Reg> {
        match self.regs(vals, id)?.as_slice() {
            [r] => Ok(*r),
            _ => err(format!("{}: %{id} is not a scalar", self.at)),
        }
    }
    fn ptr(&mut self, vals: &HashMap<Id, Val>, id: Id) -> LowerResult<Ptr> {
        match self.val(vals, id)? {
            Val::Ptr(p) => Ok(p),
            // A physical or variable pointer held as a value (loaded, converted, selected).
            Val::Regs(r) => {
                let ty = self.id_types.get(&id).and_then(|t| self.types.get(t));
                match (ty, r.as_slice()) {
                    (Some(SpvType::Pointer { pointee, repr }), [a]) => {
                        Self::pointer_from_value(*a, *pointee, *repr).ok_or_else(|| {
                            SpirvError::new(format!("{}: %{id} is not a pointer", self.at))
                        })
                    }
                    _ => err(format!("{}: %{id} is not a pointer", self.at)),
                }
            }
            _ => err(format!("{}: %{id} is not a pointer", self.at)),
        }
    }

    // ----------------------------------------------------------------- instructions

    /// Lowers one instruction: its family's function (`lower_arith`, `lower_composite`,
    /// `lower_memory`) when it has one, else here (extended instructions, barriers, subgroup
    /// operations, atomics, tensor and cooperative ops, which hand over to their modules).
    fn lower_inst(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> LowerResult<()> {
        let o = &inst.operands;
        if self.lower_arith(inst, vals)?
            || self.lower_composite(inst, vals)?
            || self.lower_memory(inst, vals)?
        {
            return Ok(());
        }
        match inst.class.opcode {
            S::ExtInst => self.ext_inst(inst, vals)?,
            S::ControlBarrier => {
                // A subgroup-scope barrier is a meeting point (`converge`): it does not stop
                // fusion, and lanes of a subgroup that run in chunks meet there; a wider one is
                // a `Barrier` op.
                let scope = idref(o.first()).and_then(|id| self.const_u32(id)).ok();
                if scope != Some(Scope::Subgroup as u32) {
                    self.needs_whole = true;
                    self.emit(Op::Barrier {});
                } else {
                    self.emit(Op::Converge {});
                }
            }
            S::GroupNonUniformElect
            | S::GroupNonUniformAll
            | S::GroupNonUniformAny
            | S::GroupNonUniformAllEqual
            | S::GroupNonUniformBroadcast
            | S::GroupNonUniformBroadcastFirst
            | S::GroupNonUniformBallot
            | S::GroupNonUniformInverseBallot
            | S::GroupNonUniformBallotBitExtract
            | S::GroupNonUniformBallotBitCount
            | S::GroupNonUniformBallotFindLSB
            | S::GroupNonUniformBallotFindMSB
            | S::GroupNonUniformShuffle
            | S::GroupNonUniformShuffleXor
            | S::GroupNonUniformShuffleUp
            | S::GroupNonUniformShuffleDown
            | S::GroupNonUniformIAdd
            | S::GroupNonUniformFAdd
            | S::GroupNonUniformIMul
            | S::GroupNonUniformFMul
            | S::GroupNonUniformSMin
            | S::GroupNonUniformUMin
            | S::GroupNonUniformFMin
            | S::GroupNonUniformSMax
            | S::GroupNonUniformUMax
            | S::GroupNonUniformFMax
            | S::GroupNonUniformBitwiseAnd
            | S::GroupNonUniformBitwiseOr
            | S::GroupNonUniformBitwiseXor
            | S::GroupNonUniformLogicalAnd
            | S::GroupNonUniformLogicalOr
            | S::GroupNonUniformLogicalXor
            | S::GroupNonUniformQuadBroadcast
            | S::GroupNonUniformQuadSwap => self.group(inst, vals)?,
            S::MemoryBarrier => {}
            S::AtomicLoad
            | S::AtomicStore
            | S::AtomicExchange
            | S::AtomicCompareExchange
            | S::AtomicIIncrement
            | S::AtomicIDecrement
            | S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicSMin
            | S::AtomicUMin
            | S::AtomicSMax
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor => {
                self.atomic(inst, vals)?;
            }
            S::TensorReadARM | S::TensorWriteARM | S::TensorQuerySizeARM => {
                self.tensor(inst, vals)?
            }
            S::CooperativeVectorLoadNV
            | S::CooperativeVectorStoreNV
            | S::CooperativeVectorMatrixMulNV
            | S::CooperativeVectorMatrixMulAddNV
            | S::CooperativeVectorOuterProductAccumulateNV
            | S::CooperativeVectorReduceSumAccumulateNV => self.coop_vector(inst, vals)?,
            S::CompositeConstructReplicateEXT => self.replicate(inst, vals)?,
            S::CooperativeMatrixLoadKHR
            | S::CooperativeMatrixStoreKHR
            | S::CooperativeMatrixMulAddKHR
            | S::CooperativeMatrixLengthKHR => self.coop_matrix(inst, vals)?,
            S::SelectionMerge
            | S::LoopMerge
            | S::Line
            | S::NoLine
            | S::Nop
            | S::Name
            | S::MemberName
            | S::String => {}
            _ => return err(format!("unsupported instruction {}", self.at)),
        }
        Ok(())
    }
}
