//! Specialisation and lowering: `rspirv` module + entry point + spec constants → [`Ir`].
//!
//! [`lower`] runs the passes in order: `check_caps` (`caps`), `collect` (decorations, functions,
//! result types), `types_and_consts` (`types`), `entry` (entry point and workgroup size), then
//! inlines the entry function behind block 0 (`cfg`), orders the blocks, runs `opt` and verifies
//! the IR. This file owns the [`Lowerer`] state, the shared helpers (operand decoding, register
//! allocation, `emit`, value lookup) and `lower_inst`, which lowers the plain instructions itself
//! (composites, conversions, selects, simple arithmetic) and hands each family to its module:
//! `arith` (ALU ops, dot products, matrices, bitcasts, bit fields), `glsl450` (`OpExtInst`),
//! `memory` (globals, access chains, loads, stores, atomics), `subgroup`, `tensor`.
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
mod coop;
mod glsl450;
mod layout;
mod memory;
mod subgroup;
mod tensor;
mod types;
mod typing;

use self::arith::AluKind;
use self::cfg::order_blocks;
use self::memory::{PointerKind, Ptr};
use self::types::{Leaf, SpvType};
use crate::alu::{Conv, FBin, FCmp, FUn, IBin, ICmp, IUn};
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
    builtins: Builtins,
    needs_whole: bool,
    local_size: [u32; 3],
    call_stack: Vec<Id>,
    entry_init: Vec<Op>,
    /// What the program uses of cooperative vectors and matrices.
    cooperative: crate::Cooperative,
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
        builtins: Builtins::default(),
        needs_whole: false,
        local_size: [1, 1, 1],
        call_stack: Vec::new(),
        entry_init: Vec::new(),
        cooperative: crate::Cooperative::default(),
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
    let mut blocks = order_blocks(std::mem::take(&mut l.blocks))?;
    let reg_types = typing::finish(&mut blocks, &mut l.reg_types, &mut l.consts_init)?;
    crate::opt::optimize(
        &mut blocks,
        reg_types.len() as u32,
        &l.var_ranges,
        &l.consts_init,
        &l.builtins,
    );
    crate::opt::merge_blocks(&mut blocks);
    let blocks = crate::opt::isolate_sync_ops(blocks);
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
        Op::Load { space, .. } | Op::Store { space, .. } | Op::Atomic { space, .. } => {
            *space == Space::Physical
        }
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
            // A physical pointer is a value: its 64-bit address.
            Val::Ptr(p) if matches!(p.pk, PointerKind::Mem(Space::Physical)) => {
                Ok(vec![self.physical_addr(p)?])
            }
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
            // A `PhysicalStorageBuffer` pointer held as a value (loaded, converted, selected).
            Val::Regs(r) => {
                let pointee = self
                    .id_types
                    .get(&id)
                    .and_then(|&t| self.physical_pointee(t));
                match (pointee, r.as_slice()) {
                    (Some(pointee), [a]) => Ok(Self::physical_ptr(*a, pointee)),
                    _ => err(format!("{}: %{id} is not a pointer", self.at)),
                }
            }
            _ => err(format!("{}: %{id} is not a pointer", self.at)),
        }
    }

    // ----------------------------------------------------------------- instructions

    fn lower_inst(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> LowerResult<()> {
        use AluKind as K;
        let o = &inst.operands;
        let rid = inst.result_id;
        let rt = inst.result_type.unwrap_or(0);
        macro_rules! alu {
            ($k:expr) => {
                self.alu(inst, vals, o, $k)?
            };
        }
        let set = |vals: &mut HashMap<Id, Val>, v: Val| {
            if let Some(r) = rid {
                vals.insert(r, v);
            }
        };
        match inst.class.opcode {
            S::IAdd => alu!(K::I(IBin::Add)),
            S::ISub => alu!(K::I(IBin::Sub)),
            S::IMul => alu!(K::I(IBin::Mul)),
            S::UDiv => alu!(K::I(IBin::UDiv)),
            S::SDiv => alu!(K::I(IBin::SDiv)),
            S::UMod => alu!(K::I(IBin::UMod)),
            S::SRem => alu!(K::I(IBin::SRem)),
            S::SMod => alu!(K::I(IBin::SMod)),
            S::ShiftLeftLogical => alu!(K::I(IBin::Shl)),
            S::ShiftRightLogical => alu!(K::I(IBin::ShrL)),
            S::ShiftRightArithmetic => alu!(K::I(IBin::ShrA)),
            S::BitwiseAnd | S::LogicalAnd => alu!(K::I(IBin::And)),
            S::BitwiseOr | S::LogicalOr => alu!(K::I(IBin::Or)),
            S::BitwiseXor | S::LogicalNotEqual => alu!(K::I(IBin::Xor)),
            S::LogicalEqual => alu!(K::IC(ICmp::Eq)),
            S::LogicalNot | S::Not => alu!(K::IU(IUn::Not)),
            S::SNegate => alu!(K::IU(IUn::Neg)),
            S::BitCount => alu!(K::IU(IUn::BitCount)),
            S::BitFieldUExtract | S::BitFieldSExtract | S::BitFieldInsert => {
                let out = self.bitfield(inst, vals)?;
                set(vals, Val::Regs(out));
            }
            S::Transpose => {
                // Matrices are scalarised column-major: transposing is a renaming.
                let m_id = idref(o.first())?;
                let m = self.regs(vals, m_id)?;
                let rows = self.matrix_rows(m_id)?;
                let cols = m.len() / rows.max(1);
                let out = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (c, r)))
                    .map(|(c, r)| m[c * rows + r])
                    .collect();
                set(vals, Val::Regs(out));
            }
            S::OuterProduct => {
                // result column j, row i = a[i] * b[j]
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let mut out = Vec::with_capacity(a.len() * b.len());
                for bj in &b {
                    for ai in &a {
                        let d = self.alloc(1)?;
                        self.emit(Op::FBin {
                            op: FBin::Mul,
                            width: w,
                            dst: d,
                            lhs: *ai,
                            rhs: *bj,
                        });
                        out.push(d);
                    }
                }
                set(vals, Val::Regs(out));
            }
            S::BitReverse => alu!(K::IU(IUn::BitReverse)),
            S::IEqual => alu!(K::IC(ICmp::Eq)),
            S::INotEqual => alu!(K::IC(ICmp::Ne)),
            S::UGreaterThan => alu!(K::IC(ICmp::UGt)),
            S::UGreaterThanEqual => alu!(K::IC(ICmp::UGe)),
            S::ULessThan => alu!(K::IC(ICmp::ULt)),
            S::ULessThanEqual => alu!(K::IC(ICmp::ULe)),
            S::SGreaterThan => alu!(K::IC(ICmp::SGt)),
            S::SGreaterThanEqual => alu!(K::IC(ICmp::SGe)),
            S::SLessThan => alu!(K::IC(ICmp::SLt)),
            S::SLessThanEqual => alu!(K::IC(ICmp::SLe)),
            S::FAdd => alu!(K::F(FBin::Add)),
            S::FSub => alu!(K::F(FBin::Sub)),
            S::FMul | S::VectorTimesScalar => alu!(K::F(FBin::Mul)),
            S::FDiv => alu!(K::F(FBin::Div)),
            S::FRem => alu!(K::F(FBin::Rem)),
            S::FMod => alu!(K::F(FBin::Mod)),
            S::FNegate => alu!(K::FU(FUn::Neg)),
            S::FOrdEqual => alu!(K::FC(FCmp::OEq)),
            S::FOrdNotEqual => alu!(K::FC(FCmp::ONe)),
            S::FOrdLessThan => alu!(K::FC(FCmp::OLt)),
            S::FOrdLessThanEqual => alu!(K::FC(FCmp::OLe)),
            S::FOrdGreaterThan => alu!(K::FC(FCmp::OGt)),
            S::FOrdGreaterThanEqual => alu!(K::FC(FCmp::OGe)),
            S::FUnordEqual => alu!(K::FC(FCmp::UEq)),
            S::FUnordNotEqual => alu!(K::FC(FCmp::UNe)),
            S::FUnordLessThan => alu!(K::FC(FCmp::ULt)),
            S::FUnordLessThanEqual => alu!(K::FC(FCmp::ULe)),
            S::FUnordGreaterThan => alu!(K::FC(FCmp::UGt)),
            S::FUnordGreaterThanEqual => alu!(K::FC(FCmp::UGe)),
            S::IsNan => alu!(K::FC(FCmp::IsNan)),
            S::IsInf => alu!(K::FC(FCmp::IsInf)),
            S::ConvertFToU => alu!(K::C(Conv::FToU)),
            S::ConvertFToS => alu!(K::C(Conv::FToS)),
            S::ConvertUToF => alu!(K::C(Conv::UToF)),
            S::ConvertSToF => alu!(K::C(Conv::SToF)),
            S::UConvert => alu!(K::C(Conv::UToU)),
            S::SConvert => alu!(K::C(Conv::SToS)),
            S::QuantizeToF16 => {
                // Round to f16 and back; values below f16's normal range become signed zeros.
                let x = self.regs(vals, idref(o.first())?)?;
                let min_normal = self.imm(u64::from((2f32.powi(-14)).to_bits()))?;
                let sign_mask = self.imm(0x8000_0000)?;
                let mut out = Vec::with_capacity(x.len());
                for &xi in &x {
                    let [h, f, abs, small, sign] = [0; 5].map(|_| self.alloc(1));
                    let [h, f, abs, small, sign] = [h?, f?, abs?, small?, sign?];
                    let d = self.alloc(1)?;
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 32,
                        to: 16,
                        dst: h,
                        src: xi,
                    });
                    self.emit(Op::Conv {
                        op: Conv::FToF,
                        from: 16,
                        to: 32,
                        dst: f,
                        src: h,
                    });
                    self.emit(Op::FUn {
                        op: FUn::Abs,
                        width: 32,
                        dst: abs,
                        src: f,
                    });
                    self.emit(Op::FCmp {
                        op: FCmp::OLt,
                        width: 32,
                        dst: small,
                        lhs: abs,
                        rhs: min_normal,
                    });
                    self.emit(Op::IBin {
                        op: IBin::And,
                        width: 32,
                        dst: sign,
                        lhs: f,
                        rhs: sign_mask,
                    });
                    // `sign` keeps only the sign bit: the signed zero.
                    self.emit(Op::Select {
                        dst: d,
                        cond: small,
                        if_true: sign,
                        if_false: f,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::FConvert
                if inst.result_id.is_some_and(|r| {
                    self.deco(r, Decoration::SaturatedToLargestFloat8NormalConversionEXT)
                        .is_some()
                }) =>
            {
                alu!(K::C(Conv::FToFSat))
            }
            S::FConvert => {
                // FPRoundingMode: RTE = 0 is the default rounding; RTZ/RTP/RTN are directed.
                let dir = inst.result_id.and_then(|r| {
                    self.deco(r, Decoration::FPRoundingMode)
                        .and_then(|d| match d.operands.get(2) {
                            Some(Operand::FPRoundingMode(m)) => Some(*m as u32),
                            Some(Operand::LiteralBit32(m)) => Some(*m),
                            _ => None,
                        })
                });
                match dir {
                    Some(d @ 1..=3) => alu!(K::C(Conv::FToFDirected(d as u8))),
                    _ => alu!(K::C(Conv::FToF)),
                }
            }
            S::Bitcast => {
                let src = self.regs(vals, idref(o.first())?)?;
                let sl = self.typed_leaves(idref(o.first())?)?;
                let dl = self.result_leaves(inst)?;
                let out = self.bitcast(&src, &sl, &dl)?;
                set(vals, Val::Regs(out));
            }
            S::Select => {
                let s = self.srcs(vals, &o[..3.min(o.len())])?;
                if s.len() != 3 {
                    return err(format!("{}: malformed OpSelect", self.at));
                }
                let n = self.nleaves(rt)? as usize;
                let out = self.map_n(&s, n, |_, d, a| Op::Select {
                    dst: d,
                    cond: a[0],
                    if_true: a[1],
                    if_false: a[2],
                })?;
                // The result's type is known here: state it, or a select of two constants
                // takes the type of its first "any integer" use (a switch selector, a shift
                // amount: 32 bits) instead of its own.
                for (&d, sc) in out.iter().zip(self.leaves(rt)?) {
                    self.reg_types[d as usize] = Some(sc.reg_type());
                }
                set(vals, Val::Regs(out));
            }
            S::Any | S::All => {
                let s = self.regs(vals, idref(o.first())?)?;
                let op = if inst.class.opcode == S::Any {
                    IBin::Or
                } else {
                    IBin::And
                };
                let mut acc = *s.first().ok_or_else(|| SpirvError::new("empty vector"))?;
                for &r in &s[1..] {
                    let d = self.alloc(1)?;
                    self.emit(Op::IBin {
                        op,
                        width: 1,
                        dst: d,
                        lhs: acc,
                        rhs: r,
                    });
                    acc = d;
                }
                set(vals, Val::Regs(vec![acc]));
            }
            S::SDot | S::UDot | S::SUDot | S::SDotAccSat | S::UDotAccSat | S::SUDotAccSat => {
                self.int_dot(inst, vals)?;
            }
            S::Dot => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let w = self.fw(inst)?;
                let d = self.dot(w, &a, &b)?;
                set(vals, Val::Regs(vec![d]));
            }
            S::MatrixTimesScalar
                if self.is_coop_matrix_result(inst)
                    && matches!(self.result_leaves(inst)?.first(), Some(Leaf::Int(..))) =>
            {
                // glslang multiplies integer cooperative matrices by scalars with it too.
                alu!(K::I(IBin::Mul))
            }
            S::MatrixTimesScalar => alu!(K::F(FBin::Mul)),
            S::MatrixTimesVector | S::VectorTimesMatrix | S::MatrixTimesMatrix => {
                self.matmul(inst, vals)?;
            }
            S::IAddCarry | S::ISubBorrow | S::UMulExtended | S::SMulExtended => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let leaves = self.result_leaves(inst)?;
                let n = leaves.len() / 2;
                let (lo, hi) = match inst.class.opcode {
                    S::IAddCarry => (IBin::Add, IBin::AddCarry),
                    S::ISubBorrow => (IBin::Sub, IBin::SubBorrow),
                    S::UMulExtended => (IBin::Mul, IBin::UMulHi),
                    _ => (IBin::Mul, IBin::SMulHi),
                };
                let w = leaves.first().map(|s| s.width_code()).unwrap_or(32);
                let l = self.map_n(&[a.clone(), b.clone()], n, |_, d, x| Op::IBin {
                    op: lo,
                    width: w,
                    dst: d,
                    lhs: x[0],
                    rhs: x[1],
                })?;
                let h = self.map_n(&[a, b], n, |_, d, x| Op::IBin {
                    op: hi,
                    width: w,
                    dst: d,
                    lhs: x[0],
                    rhs: x[1],
                })?;
                set(vals, Val::Regs(l.into_iter().chain(h).collect()));
            }
            S::CompositeConstruct if o.len() == 1 && self.is_coop_matrix_result(inst) => {
                // One scalar fills every component a lane holds.
                self.replicate(inst, vals)?
            }
            S::CompositeConstruct => {
                let mut out = Vec::new();
                for x in o {
                    out.extend(self.regs(vals, idref(Some(x))?)?);
                }
                if out.len() as u32 != self.nleaves(rt)? {
                    return err(format!("{}: wrong number of constituents", self.at));
                }
                set(vals, Val::Regs(out));
            }
            S::CompositeExtract => {
                let cid = idref(o.first())?;
                let c = self.regs(vals, cid)?;
                let mut ty = *self
                    .id_types
                    .get(&cid)
                    .ok_or_else(|| SpirvError::new(format!("{}: untyped composite", self.at)))?;
                let mut off = 0;
                for x in &o[1..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)?;
                let r = c
                    .get(off as usize..(off + n) as usize)
                    .ok_or_else(|| SpirvError::new("extract out of range"))?;
                set(vals, Val::Regs(r.to_vec()));
            }
            S::CompositeInsert => {
                let obj = self.regs(vals, idref(o.first())?)?;
                let mut c = self.regs(vals, idref(o.get(1))?)?;
                let mut ty = rt;
                let mut off = 0;
                for x in &o[2..] {
                    let (t, lo) = self.sub(ty, lit(Some(x))?)?;
                    ty = t;
                    off += lo;
                }
                let n = self.nleaves(ty)? as usize;
                if obj.len() != n || off as usize + n > c.len() {
                    return err(format!("{}: inserted object has the wrong type", self.at));
                }
                c[off as usize..off as usize + n].copy_from_slice(&obj);
                set(vals, Val::Regs(c));
            }
            S::VectorShuffle => {
                let a = self.regs(vals, idref(o.first())?)?;
                let b = self.regs(vals, idref(o.get(1))?)?;
                let z = self.imm(0)?;
                let mut out = Vec::new();
                for x in &o[2..] {
                    let k = lit(Some(x))? as usize;
                    out.push(if k < a.len() {
                        a[k]
                    } else {
                        b.get(k - a.len()).copied().unwrap_or(z)
                    });
                }
                set(vals, Val::Regs(out));
            }
            S::VectorExtractDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let idx = self.reg1(vals, idref(o.get(1))?)?;
                let d = self.alloc(1)?;
                self.emit(Op::Pick {
                    dst: d,
                    index: idx,
                    choices: v.into(),
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::VectorInsertDynamic => {
                let v = self.regs(vals, idref(o.first())?)?;
                let comp = self.reg1(vals, idref(o.get(1))?)?;
                let idx = self.reg1(vals, idref(o.get(2))?)?;
                let iw = self
                    .typed_leaves(idref(o.get(2))?)?
                    .first()
                    .map(|s| s.width_code())
                    .unwrap_or(32);
                let mut out = Vec::new();
                for (i, &r) in v.iter().enumerate() {
                    let k = self.imm(i as u64)?;
                    let c = self.alloc(1)?;
                    self.emit(Op::ICmp {
                        op: ICmp::Eq,
                        width: iw,
                        dst: c,
                        lhs: idx,
                        rhs: k,
                    });
                    let d = self.alloc(1)?;
                    self.emit(Op::Select {
                        dst: d,
                        cond: c,
                        if_true: comp,
                        if_false: r,
                    });
                    out.push(d);
                }
                set(vals, Val::Regs(out));
            }
            S::CopyObject | S::CopyLogical => {
                let v = self.val(vals, idref(o.first())?)?;
                set(vals, v);
            }
            S::Undef => {
                let n = self.nleaves(rt)?;
                let z = self.imm(0)?;
                set(vals, Val::Regs(vec![z; n as usize]));
            }
            S::ExtInst => self.ext_inst(inst, vals)?,
            S::Variable => {
                let Some(SpvType::Pointer { pointee, .. }) = self.types.get(&rt).cloned() else {
                    return err(format!("{}: variable without pointer type", self.at));
                };
                let n = self.nleaves(pointee)?;
                let base = self.alloc_leaves(pointee)?;
                self.var_ranges.push((base, n));
                if let Some(init) = o.get(1) {
                    let src = self.regs(vals, idref(Some(init))?)?;
                    for (k, s) in src.into_iter().enumerate() {
                        self.emit(Op::Mov {
                            dst: base + k as u32,
                            src: s,
                        });
                    }
                }
                set(
                    vals,
                    Val::Ptr(Ptr {
                        pk: PointerKind::Var { base, len: n },
                        ty: pointee,
                        off: 0,
                        dynr: None,
                        explicit: false,
                        mstride: None,
                    }),
                );
            }
            S::AccessChain | S::InBoundsAccessChain => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let p = self.chain(vals, p, &o[1..])?;
                set(vals, Val::Ptr(p));
            }
            S::PtrAccessChain | S::InBoundsPtrAccessChain => {
                // Base is element 0 of an array whose stride is its pointer type's ArrayStride.
                let base = idref(o.first())?;
                let mut p = self.ptr(vals, base)?;
                if !matches!(p.pk, PointerKind::Mem(Space::Physical)) {
                    return err(format!(
                        "{}: OpPtrAccessChain is only supported on PhysicalStorageBuffer pointers \
                         (VariablePointers is not supported)",
                        self.at
                    ));
                }
                let bt = self.id_types.get(&base).copied().unwrap_or(0);
                let Some(stride) = self.deco_lit(bt, Decoration::ArrayStride) else {
                    return err(format!(
                        "{}: the PhysicalStorageBuffer pointer type %{bt} of an OpPtrAccessChain \
                         base needs an ArrayStride decoration (SPIR-V's shader validation rules: the Base of \
                         every OpPtrAccessChain has an ArrayStride)",
                        self.at
                    ));
                };
                self.add_index(vals, &mut p, idref(o.get(1))?, u64::from(stride))?;
                let p = self.chain(vals, p, &o[2..])?;
                set(vals, Val::Ptr(p));
            }
            S::ConvertUToPtr => {
                if self.physical_pointee(rt).is_none() {
                    return err(format!(
                        "{}: OpConvertUToPtr to a pointer that is not PhysicalStorageBuffer",
                        self.at
                    ));
                }
                let src_id = idref(o.first())?;
                let src = self.reg1(vals, src_id)?;
                let a = match self.typed_leaves(src_id)?.as_slice() {
                    [Leaf::Int(64, _)] => src,
                    [Leaf::Int(w, _)] => {
                        let d = self.alloc(1)?;
                        self.emit(Op::Conv {
                            op: Conv::UToU,
                            from: *w,
                            to: 64,
                            dst: d,
                            src,
                        });
                        d
                    }
                    _ => return err(format!("{}: OpConvertUToPtr of a non-integer", self.at)),
                };
                set(vals, Val::Regs(vec![a]));
            }
            S::ConvertPtrToU => {
                let src_id = idref(o.first())?;
                let is_physical = self
                    .id_types
                    .get(&src_id)
                    .is_some_and(|&t| self.physical_pointee(t).is_some());
                if !is_physical {
                    return err(format!(
                        "{}: OpConvertPtrToU of a pointer that is not PhysicalStorageBuffer",
                        self.at
                    ));
                }
                let a = self.reg1(vals, src_id)?;
                let v = match self.result_leaves(inst)?.as_slice() {
                    [Leaf::Int(64, _)] => a,
                    [Leaf::Int(w, _)] => {
                        let d = self.alloc(1)?;
                        self.emit(Op::Conv {
                            op: Conv::UToU,
                            from: 64,
                            to: *w,
                            dst: d,
                            src: a,
                        });
                        d
                    }
                    _ => return err(format!("{}: OpConvertPtrToU to a non-integer", self.at)),
                };
                set(vals, Val::Regs(vec![v]));
            }
            S::Load => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let v = self.load(p)?;
                set(vals, v);
            }
            S::Store => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let v = self.regs(vals, idref(o.get(1))?)?;
                self.store(p, &v)?;
            }
            S::CopyMemory => {
                let dst = self.ptr(vals, idref(o.first())?)?;
                let src = self.ptr(vals, idref(o.get(1))?)?;
                let Val::Regs(v) = self.load(src)? else {
                    return err(format!("{}: cannot copy descriptors", self.at));
                };
                self.store(dst, &v)?;
            }
            S::ArrayLength => {
                let p = self.ptr(vals, idref(o.first())?)?;
                let k = lit(o.get(1))?;
                let PointerKind::Mem(Space::Buffer { slot, desc }) = p.pk else {
                    return err(format!("{}: OpArrayLength on a non-buffer", self.at));
                };
                let moff = self.member_offset(p.ty, k, true)?;
                let SpvType::Struct { members } = self.ty(p.ty)?.clone() else {
                    return err("OpArrayLength on a non-struct");
                };
                let arr = *members
                    .get(k as usize)
                    .ok_or_else(|| SpirvError::new("bad member"))?;
                let (_, stride) = self.elem_stride(arr, true, None)?;
                let d = self.alloc(1)?;
                self.emit(Op::ArrayLength {
                    slot,
                    desc,
                    offset: p.off + moff,
                    stride,
                    dst: d,
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::ControlBarrier => {
                // A subgroup-scope barrier is free in lockstep (a subgroup's lanes always run
                // together) and does not stop fusion; a wider one is a `Barrier` op.
                let scope = idref(o.first()).and_then(|id| self.const_u32(id)).ok();
                if scope != Some(Scope::Subgroup as u32) {
                    self.needs_whole = true;
                    self.emit(Op::Barrier {});
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
