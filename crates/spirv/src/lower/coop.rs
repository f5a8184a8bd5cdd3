//! `SPV_NV_cooperative_vector` (and the replicated composites glslang emits for every
//! cooperative-vector splat). A cooperative vector type is a vector here (`types`: its leaves are
//! its components), so element-wise arithmetic, conversions, composites and variables need
//! nothing new. Loads and stores become one `Load`/`Store` per component at consecutive
//! addresses; the matrix-vector products and the training accumulations become the IR's
//! `CoopMatVec`, `CoopOuterProduct` and `CoopReduceSum` ops, their constant operands folded into
//! a [`MatVec`] form checked here, the device-dependent rules left to the runtime (see
//! `Program::cooperative`).

use super::memory::PointerKind;
use super::types::{Leaf, SpvType};
use super::{Id, LowerResult, Lowerer, Val, err, idref};
use crate::alu::Conv;
use crate::alu::IBin;
use crate::ir::{MemRef, Op, Reg};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op as S;
use std::collections::HashMap;
use tessera_coop::matrix::{MatrixType, MulAdd, Use};
use tessera_coop::{ComponentType, MatVec, MatrixLayout};

/// `MatrixBSignedComponentsKHR`: the input vector's integers are signed.
const INPUT_SIGNED: u32 = 0x2;
/// `MatrixResultSignedComponentsKHR`: the integer result is signed.
const RESULT_SIGNED: u32 = 0x8;

impl<'m> Lowerer<'m> {
    /// The component type of a register leaf of SPIR-V scalar type `sc`, integers signed as
    /// `signed` says.
    fn component_of(&self, sc: Leaf, signed: bool) -> LowerResult<ComponentType> {
        use ComponentType::*;
        Ok(match sc {
            Leaf::Float(16) => Float16,
            Leaf::Float(32) => Float32,
            Leaf::Float(64) => Float64,
            Leaf::Float(crate::alu::W_BF16) => BFloat16,
            Leaf::Float(crate::alu::W_E4M3) => FloatE4M3,
            Leaf::Float(crate::alu::W_E5M2) => FloatE5M2,
            Leaf::Int(8, _) => {
                if signed {
                    SInt8
                } else {
                    UInt8
                }
            }
            Leaf::Int(16, _) => {
                if signed {
                    SInt16
                } else {
                    UInt16
                }
            }
            Leaf::Int(32, _) => {
                if signed {
                    SInt32
                } else {
                    UInt32
                }
            }
            Leaf::Int(64, _) => {
                if signed {
                    SInt64
                } else {
                    UInt64
                }
            }
            other => {
                return err(format!(
                    "{}: {other:?} is not a cooperative vector component",
                    self.at
                ));
            }
        })
    }

    /// A constant `ComponentType` operand.
    fn component_operand(&self, id: Id) -> LowerResult<ComponentType> {
        let v = self.const_u32(id)?;
        ComponentType::from_raw(v).ok_or_else(|| {
            crate::SpirvError::new(format!("{}: unknown component type {v}", self.at))
        })
    }

    /// The address `pointer` (to an array in memory) plus the byte offset `offset` (a constant
    /// or a register).
    pub(super) fn byte_address(
        &mut self,
        vals: &HashMap<Id, Val>,
        pointer: Id,
        offset: Id,
    ) -> LowerResult<MemRef> {
        let p = self.ptr(vals, pointer)?;
        let PointerKind::Mem(space) = p.pk else {
            return err(format!(
                "{}: the pointer does not point into memory",
                self.at
            ));
        };
        let mut m = MemRef {
            space,
            addr: p.dynr,
            offset: p.off,
        };
        if let Some(c) = self.consts.get(&offset).and_then(|v| v.first().copied()) {
            m.offset = m.offset.wrapping_add(c);
            return Ok(m);
        }
        let r = self.reg1(vals, offset)?;
        let r64 = match self.typed_leaves(offset)?.as_slice() {
            [Leaf::Int(64, _)] => r,
            [Leaf::Int(w, _)] => {
                let d = self.alloc(1)?;
                self.emit(Op::Conv {
                    op: Conv::UToU,
                    from: *w,
                    to: 64,
                    dst: d,
                    src: r,
                });
                d
            }
            _ => return err(format!("{}: a byte offset must be an integer", self.at)),
        };
        m.addr = Some(match m.addr {
            None => r64,
            Some(a) => {
                let d = self.alloc(1)?;
                self.emit(Op::IBin {
                    op: IBin::Add,
                    width: 64,
                    dst: d,
                    lhs: a,
                    rhs: r64,
                });
                d
            }
        });
        Ok(m)
    }

    /// The component type and count of cooperative vector (or vector) type `t`.
    fn vector_of(&self, t: Id) -> LowerResult<(Leaf, u32)> {
        match self.ty(t)? {
            SpvType::Vector { elem, n } => match self.ty(*elem)? {
                SpvType::Scalar(sc) => Ok((*sc, *n)),
                _ => err(format!("{}: not a vector of scalars", self.at)),
            },
            _ => err(format!(
                "{}: %{t} is not a cooperative vector type",
                self.at
            )),
        }
    }

    pub(super) fn coop_vector(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let id = |k: usize| idref(o.get(k));
        match inst.class.opcode {
            S::CooperativeVectorLoadNV => {
                let (sc, n) = self.vector_of(inst.result_type.unwrap_or(0))?;
                let at = self.byte_address(vals, id(0)?, id(1)?)?;
                let es = sc.bytes();
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..u64::from(n) {
                    let d = self.alloc_typed(&[sc.reg_type()])?;
                    self.emit(Op::Load {
                        space: at.space,
                        bytes: es as u8,
                        dst: d,
                        addr: at.addr,
                        offset: at.offset.wrapping_add(i * es),
                    });
                    out.push(d);
                }
                if let Some(r) = inst.result_id {
                    vals.insert(r, Val::Regs(out));
                }
            }
            S::CooperativeVectorStoreNV => {
                let object = id(2)?;
                let (sc, _) = self.vector_of(*self.id_types.get(&object).unwrap_or(&0))?;
                let at = self.byte_address(vals, id(0)?, id(1)?)?;
                let values = self.regs(vals, object)?;
                let es = sc.bytes();
                for (i, v) in values.into_iter().enumerate() {
                    self.emit(Op::Store {
                        space: at.space,
                        bytes: es as u8,
                        value: v,
                        addr: at.addr,
                        offset: at.offset.wrapping_add(i as u64 * es),
                    });
                }
            }
            S::CooperativeVectorMatrixMulNV | S::CooperativeVectorMatrixMulAddNV => {
                self.mat_vec(inst, vals)?;
            }
            S::CooperativeVectorOuterProductAccumulateNV => {
                let matrix = self.byte_address(vals, id(0)?, id(1)?)?;
                let a = self.regs(vals, id(2)?)?;
                let b = self.regs(vals, id(3)?)?;
                let layout = self.const_u32(id(4)?)?;
                let elem = self.component_operand(id(5)?)?;
                for v in [id(2)?, id(3)?] {
                    let (sc, _) = self.vector_of(*self.id_types.get(&v).unwrap_or(&0))?;
                    if sc != Leaf::Float(16) {
                        return err(format!(
                            "{}: the vectors of an outer product must have 16-bit float components \
                             (VUID-RuntimeSpirv-OpCooperativeVectorOuterProductAccumulateNV-10093)",
                            self.at
                        ));
                    }
                }
                if MatrixLayout::from_raw(layout) != Some(MatrixLayout::TrainingOptimal)
                    || !matches!(elem, ComponentType::Float16 | ComponentType::Float32)
                {
                    return err(format!(
                        "{}: an outer product accumulates into a training-optimal float16 or \
                         float32 matrix (VUID-RuntimeSpirv-OpCooperativeVectorOuterProductAccumulateNV-10093)",
                        self.at
                    ));
                }
                self.emit(Op::CoopOuterProduct {
                    elem,
                    a: a.into(),
                    b: b.into(),
                    matrix,
                });
            }
            S::CooperativeVectorReduceSumAccumulateNV => {
                let target = self.byte_address(vals, id(0)?, id(1)?)?;
                let v = id(2)?;
                let (sc, _) = self.vector_of(*self.id_types.get(&v).unwrap_or(&0))?;
                let elem = match sc {
                    Leaf::Float(16) => ComponentType::Float16,
                    Leaf::Float(32) => ComponentType::Float32,
                    _ => {
                        return err(format!(
                            "{}: a reduce-sum accumulates 16- or 32-bit floats \
                             (VUID-RuntimeSpirv-OpCooperativeVectorReduceSumAccumulateNV-10092)",
                            self.at
                        ));
                    }
                };
                let values = self.regs(vals, v)?;
                self.emit(Op::CoopReduceSum {
                    elem,
                    values: values.into(),
                    target,
                });
            }
            _ => return err(format!("unsupported instruction {}", self.at)),
        }
        Ok(())
    }

    fn mat_vec(&mut self, inst: &Instruction, vals: &mut HashMap<Id, Val>) -> LowerResult<()> {
        let add = inst.class.opcode == S::CooperativeVectorMatrixMulAddNV;
        let ids: Vec<Id> = inst
            .operands
            .iter()
            .filter_map(|x| match x {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect();
        let flags = inst
            .operands
            .iter()
            .find_map(|x| match x {
                Operand::CooperativeMatrixOperands(m) => Some(m.bits()),
                _ => None,
            })
            .unwrap_or(0);
        let need = if add { 12 } else { 9 };
        if ids.len() < need {
            return err(format!("{}: too few operands", self.at));
        }
        let get = |k: usize| ids[k];
        let (input_id, interp, matrix_id, matrix_offset, matrix_interp) =
            (get(0), get(1), get(2), get(3), get(4));
        let (bias, rest) = if add {
            (Some((get(5), get(6), get(7))), 8)
        } else {
            (None, 5)
        };
        let m = self.const_u32(get(rest))?;
        let k = self.const_u32(get(rest + 1))?;
        let layout_raw = self.const_u32(get(rest + 2))?;
        let transpose = self.const_u32(get(rest + 3))? != 0;
        let stride = ids.get(rest + 4).copied();
        let layout = MatrixLayout::from_raw(layout_raw).ok_or_else(|| {
            crate::SpirvError::new(format!("{}: unknown matrix layout {layout_raw}", self.at))
        })?;
        let (in_sc, _) = self.vector_of(*self.id_types.get(&input_id).unwrap_or(&0))?;
        let (out_sc, out_n) = self.vector_of(inst.result_type.unwrap_or(0))?;
        let form = MatVec {
            m,
            k,
            input: self.component_of(in_sc, flags & INPUT_SIGNED != 0)?,
            interpretation: self.component_operand(interp)?,
            matrix: self.component_operand(matrix_interp)?,
            layout,
            transpose,
            bias: match bias {
                Some((_, _, t)) => Some(self.component_operand(t)?),
                None => None,
            },
            result: self.component_of(out_sc, flags & RESULT_SIGNED != 0)?,
        };
        form.check()
            .map_err(|e| crate::SpirvError::new(format!("{}: {e}", self.at)))?;
        if out_n != m {
            return err(format!(
                "{}: the result has {out_n} components, M is {m}",
                self.at
            ));
        }
        let input = self.regs(vals, input_id)?;
        if (input.len() as u32) < form.input_len() {
            return err(format!(
                "{}: the input has {} components, K = {k} needs {}",
                self.at,
                input.len(),
                form.input_len()
            ));
        }
        if transpose && layout.is_strided() {
            return err(format!(
                "{}: Transpose is not supported for the RowMajorNV and ColumnMajorNV layouts \
                 (SPV_NV_cooperative_vector)",
                self.at
            ));
        }
        if matches!(
            form.matrix,
            ComponentType::FloatE4M3 | ComponentType::FloatE5M2
        ) && layout.is_strided()
        {
            return err(format!(
                "{}: a float8 matrix must have an optimal layout \
                 (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10090)",
                self.at
            ));
        }
        let matrix = self.byte_address(vals, matrix_id, matrix_offset)?;
        let bias = match bias {
            Some((b, off, _)) => Some(self.byte_address(vals, b, off)?),
            None => None,
        };
        let stride = match stride {
            Some(s) if layout.is_strided() => Some(self.reg1(vals, s)?),
            _ => None,
        };
        let dsts = self.alloc_v(m)?;
        self.emit(Op::CoopMatVec {
            form,
            dsts: dsts.clone().into(),
            input: input[..form.input_len() as usize].into(),
            matrix,
            stride,
            bias,
        });
        if !self.cooperative.mat_vecs.contains(&form) {
            self.cooperative.mat_vecs.push(form);
        }
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(dsts));
        }
        Ok(())
    }

    /// `OpCompositeConstructReplicateEXT`: every leaf of the result from the one constituent.
    pub(super) fn replicate(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let part = self.regs(vals, idref(inst.operands.first())?)?;
        let n = self.nleaves(inst.result_type.unwrap_or(0))? as usize;
        if part.is_empty() || !n.is_multiple_of(part.len()) {
            return err(format!(
                "{}: the constituent does not fill the result",
                self.at
            ));
        }
        let out: Vec<Reg> = part.iter().copied().cycle().take(n).collect();
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(out));
        }
        Ok(())
    }
}

// ----------------------------------------------------------------- cooperative matrices

impl<'m> Lowerer<'m> {
    /// `OpTypeCooperativeMatrixKHR` (component type, scope, rows, columns, use).
    pub(super) fn coop_matrix_type(&mut self, o: &[Operand]) -> LowerResult<SpvType> {
        let elem = idref(o.first())?;
        let sc = match self.ty(elem)? {
            SpvType::Scalar(sc) => *sc,
            _ => {
                return err(format!(
                    "{}: a cooperative matrix has scalar components",
                    self.at
                ));
            }
        };
        let scope = self.const_u32(idref(o.get(1))?)?;
        if scope != rspirv::spirv::Scope::Subgroup as u32 {
            return err(format!(
                "{}: cooperative matrices of scope {scope} are not supported: only Subgroup (3) \
                 (VUID-RuntimeSpirv-cooperativeMatrixWorkgroupScope-10164)",
                self.at
            ));
        }
        let rows = self.const_u32(idref(o.get(2))?)?;
        let cols = self.const_u32(idref(o.get(3))?)?;
        let usage_raw = self.const_u32(idref(o.get(4))?)?;
        let usage = Use::from_raw(usage_raw).ok_or_else(|| {
            crate::SpirvError::new(format!(
                "{}: unknown cooperative matrix use {usage_raw}",
                self.at
            ))
        })?;
        let signed = matches!(sc, Leaf::Int(_, true));
        let ty = MatrixType {
            elem: self.component_of(sc, signed)?,
            rows,
            cols,
            usage,
        };
        ty.check()
            .map_err(|why| crate::SpirvError::new(format!("{}: {ty:?}: {why}", self.at)))?;
        if !self.cooperative.matrix_types.contains(&ty) {
            self.cooperative.matrix_types.push(ty);
        }
        Ok(SpvType::CoopMat { elem, ty })
    }

    /// The cooperative matrix type of value `id`.
    fn coop_matrix_of(&self, id: Id) -> LowerResult<MatrixType> {
        let t = self.id_types.get(&id).copied().unwrap_or(0);
        self.coop_matrix_type_id(t)
    }

    fn coop_matrix_type_id(&self, t: Id) -> LowerResult<MatrixType> {
        match self.ty(t)? {
            SpvType::CoopMat { ty, .. } => Ok(*ty),
            _ => err(format!(
                "{}: %{t} is not a cooperative matrix type",
                self.at
            )),
        }
    }

    /// The pointer, layout and stride operands of a matrix load or store.
    fn matrix_access(
        &mut self,
        vals: &HashMap<Id, Val>,
        pointer: Id,
        layout: Id,
        stride: Option<Id>,
    ) -> LowerResult<(MemRef, bool, u32, Option<Reg>)> {
        let p = self.ptr(vals, pointer)?;
        let PointerKind::Mem(space) = p.pk else {
            return err(format!(
                "{}: a cooperative matrix load or store needs a StorageBuffer, Workgroup or \
                 PhysicalStorageBuffer pointer (VUID-StandaloneSpirv-Pointer-08973)",
                self.at
            ));
        };
        if space == crate::ir::Space::Push {
            return err(format!(
                "{}: cooperative matrices cannot be loaded from push constants \
                 (VUID-StandaloneSpirv-Pointer-08973)",
                self.at
            ));
        }
        let unit = u32::try_from(self.nat(p.ty, 0)?.0)
            .map_err(|_| crate::SpirvError::new("pointee too large"))?;
        let column_major = match self.const_u32(layout)? {
            0 => false,
            1 => true,
            other => {
                return err(format!(
                    "{}: cooperative matrix layout {other} is not supported (RowMajorKHR 0 or \
                     ColumnMajorKHR 1)",
                    self.at
                ));
            }
        };
        let stride = match stride {
            Some(s) => Some(self.reg1(vals, s)?),
            None => None,
        };
        let at = MemRef {
            space,
            addr: p.dynr,
            offset: p.off,
        };
        Ok((at, column_major, unit, stride))
    }

    pub(super) fn coop_matrix(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let ids: Vec<Id> = o
            .iter()
            .filter_map(|x| match x {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect();
        let id = |k: usize| {
            ids.get(k)
                .copied()
                .ok_or_else(|| crate::SpirvError::new("missing operand"))
        };
        match inst.class.opcode {
            S::CooperativeMatrixLengthKHR => {
                let ty = self.coop_matrix_type_id(id(0)?)?;
                let r = self.imm(u64::from(ty.length()))?;
                if let Some(rid) = inst.result_id {
                    vals.insert(rid, Val::Regs(vec![r]));
                }
            }
            S::CooperativeMatrixLoadKHR => {
                let ty = self.coop_matrix_type_id(inst.result_type.unwrap_or(0))?;
                let (src, column_major, unit, stride) =
                    self.matrix_access(vals, id(0)?, id(1)?, ids.get(2).copied())?;
                let dsts = self.alloc_leaves(inst.result_type.unwrap_or(0))?;
                let dsts: Vec<Reg> = (dsts..dsts + ty.length()).collect();
                self.emit(Op::CoopMatLoad {
                    ty,
                    column_major,
                    unit,
                    dsts: dsts.clone().into(),
                    src,
                    stride,
                });
                if let Some(rid) = inst.result_id {
                    vals.insert(rid, Val::Regs(dsts));
                }
            }
            S::CooperativeMatrixStoreKHR => {
                let object = id(1)?;
                let ty = self.coop_matrix_of(object)?;
                let (dst, column_major, unit, stride) =
                    self.matrix_access(vals, id(0)?, id(2)?, ids.get(3).copied())?;
                let values = self.regs(vals, object)?;
                self.emit(Op::CoopMatStore {
                    ty,
                    column_major,
                    unit,
                    values: values.into(),
                    dst,
                    stride,
                });
            }
            S::CooperativeMatrixMulAddKHR => {
                let flags = o
                    .iter()
                    .find_map(|x| match x {
                        Operand::CooperativeMatrixOperands(m) => Some(m.bits()),
                        _ => None,
                    })
                    .unwrap_or(0);
                let [a, b, c] = [id(0)?, id(1)?, id(2)?];
                let [ta, tb, tc] = [a, b, c].map(|v| self.coop_matrix_of(v));
                let (ta, tb, tc) = (ta?, tb?, tc?);
                let tr = self.coop_matrix_type_id(inst.result_type.unwrap_or(0))?;
                let shapes_ok = ta.usage == Use::A
                    && tb.usage == Use::B
                    && tc.usage == Use::Accumulator
                    && tr.usage == Use::Accumulator
                    && ta.cols == tb.rows
                    && (ta.rows, tb.cols) == (tc.rows, tc.cols)
                    && (tc.rows, tc.cols) == (tr.rows, tr.cols);
                if !shapes_ok {
                    return err(format!(
                        "{}: OpCooperativeMatrixMulAddKHR needs A (M×K), B (K×N), C and a result \
                         (M×N) of uses A, B and accumulator; got {ta:?}, {tb:?}, {tc:?}, {tr:?}",
                        self.at
                    ));
                }
                let with =
                    |t: MatrixType, bit: u32| -> ComponentType { resign(t.elem, flags & bit != 0) };
                use tessera_coop::matrix::operands as f;
                let form = MulAdd {
                    m: ta.rows,
                    n: tb.cols,
                    k: ta.cols,
                    a: with(ta, f::A_SIGNED),
                    b: with(tb, f::B_SIGNED),
                    c: with(tc, f::C_SIGNED),
                    result: with(tr, f::RESULT_SIGNED),
                    operands: flags,
                };
                form.check().map_err(|why| {
                    crate::SpirvError::new(format!("{}: {form:?}: {why}", self.at))
                })?;
                let [ra, rb, rc] = [a, b, c].map(|v| self.regs(vals, v));
                let dsts = self.alloc_leaves(inst.result_type.unwrap_or(0))?;
                let dsts: Vec<Reg> = (dsts..dsts + tr.length()).collect();
                self.emit(Op::CoopMatMulAdd {
                    form,
                    dsts: dsts.clone().into(),
                    a: ra?.into(),
                    b: rb?.into(),
                    c: rc?.into(),
                });
                if !self.cooperative.mul_adds.contains(&form) {
                    self.cooperative.mul_adds.push(form);
                }
                if let Some(rid) = inst.result_id {
                    vals.insert(rid, Val::Regs(dsts));
                }
            }
            _ => return err(format!("unsupported instruction {}", self.at)),
        }
        Ok(())
    }

    /// Whether the result of `inst` is a cooperative matrix.
    pub(super) fn is_coop_matrix_result(&self, inst: &Instruction) -> bool {
        inst.result_type
            .is_some_and(|t| matches!(self.types.get(&t), Some(SpvType::CoopMat { .. })))
    }
}

/// `t` with the signedness `signed` (integers; floats unchanged).
fn resign(t: ComponentType, signed: bool) -> ComponentType {
    use ComponentType::*;
    match (t, signed) {
        (SInt8 | UInt8, true) => SInt8,
        (SInt8 | UInt8, false) => UInt8,
        (SInt16 | UInt16, true) => SInt16,
        (SInt16 | UInt16, false) => UInt16,
        (SInt32 | UInt32, true) => SInt32,
        (SInt32 | UInt32, false) => UInt32,
        (SInt64 | UInt64, true) => SInt64,
        (SInt64 | UInt64, false) => UInt64,
        (other, _) => other,
    }
}
