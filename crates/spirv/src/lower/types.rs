//! The type table, type queries and constants: `OpType*` → [`SpvType`] (leaf scalars as [`Leaf`]);
//! `leaves`, `sub`, `result_leaves`, `typed_leaves`, `matrix_rows`; `OpConstant*` and
//! `OpSpecConstant*` → leaf values in `Lowerer::consts`, with specialization values applied and
//! `OpSpecConstantOp` folded (`fold`: the op is lowered into `Lowerer::scratch` and evaluated with
//! the same `alu` functions the interpreter uses). Global `OpVariable`s are only recorded here
//! (`memory` materialises them on first use).
//!
//! Invariants: types and constants are read in module order, so an operand must be declared
//! first (an unknown id is an error where it is looked up); a constant holds one `u64` per leaf, truncated to the leaf's
//! width (bools 0 or 1); leaves are listed in declaration order (vector components, matrix
//! columns, array elements, struct members), at most `MAX_LEAVES` of them, at most 64 deep.
//! 8-bit float types reach this module as `OpTypeInt 8` and are restored from
//! `Module::float8_types`.

use super::{Id, LowerResult, Lowerer, MAX_LEAVES, Val, err, idref, lit, opname};
use crate::alu;
use crate::ir::{Op, Reg, RegType};
use crate::{ScalarType, SpirvError};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op as S, StorageClass};
use std::collections::HashMap;

/// A leaf scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Leaf {
    Bool,
    Int(u8, bool),
    Float(u8),
}

impl Leaf {
    pub(super) fn width_code(self) -> u8 {
        match self {
            Leaf::Bool => 1,
            Leaf::Int(w, _) | Leaf::Float(w) => w,
        }
    }
    /// Size in memory (bools are 32-bit where they can be stored at all).
    pub(super) fn bytes(self) -> u64 {
        match self {
            Leaf::Bool => 4,
            _ => u64::from(self.bits() / 8),
        }
    }
    /// Real bit width (float encodings use width codes in `w`).
    pub(super) fn bits(self) -> u8 {
        match self {
            Leaf::Float(alu::W_BF16) => 16,
            Leaf::Float(alu::W_E4M3 | alu::W_E5M2) => 8,
            other => other.width_code(),
        }
    }
    /// The register type of a leaf of this type.
    pub(super) fn reg_type(self) -> RegType {
        match self {
            Leaf::Bool => RegType::Bool,
            Leaf::Int(w, _) => RegType::Int(w),
            Leaf::Float(w) => RegType::Float(w),
        }
    }
    pub(super) fn scalar_type(self) -> ScalarType {
        match self {
            Leaf::Bool => ScalarType::Bool,
            Leaf::Int(8, false) => ScalarType::U8,
            Leaf::Int(8, true) => ScalarType::I8,
            Leaf::Int(16, false) => ScalarType::U16,
            Leaf::Int(16, true) => ScalarType::I16,
            Leaf::Int(32, false) => ScalarType::U32,
            Leaf::Int(32, true) => ScalarType::I32,
            Leaf::Int(_, false) => ScalarType::U64,
            Leaf::Int(_, true) => ScalarType::I64,
            Leaf::Float(16) => ScalarType::F16,
            Leaf::Float(32) => ScalarType::F32,
            Leaf::Float(alu::W_BF16) => ScalarType::BF16,
            Leaf::Float(alu::W_E4M3) => ScalarType::F8E4M3,
            Leaf::Float(alu::W_E5M2) => ScalarType::F8E5M2,
            Leaf::Float(_) => ScalarType::F64,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum SpvType {
    Void,
    Scalar(Leaf),
    Vector {
        elem: Id,
        n: u32,
    },
    Matrix {
        col: Id,
        n: u32,
    },
    Array {
        elem: Id,
        len: u32,
    },
    RuntimeArray {
        elem: Id,
    },
    Struct {
        members: Vec<Id>,
    },
    /// A pointer type; `repr` says whether its values exist at run time.
    Pointer {
        pointee: Id,
        repr: PointerRepr,
    },
    Function,
    /// `OpTypeCooperativeMatrixKHR` (subgroup scope): `ty.length()` components of `elem` per
    /// lane (see `tessera_coop::matrix` for which elements a lane holds).
    CoopMat {
        elem: Id,
        ty: tessera_coop::matrix::MatrixType,
    },
    /// `rank` is `None` for an unranked type; `shape` indexes `Lower::shapes` for a shaped one.
    Tensor {
        elem: Leaf,
        rank: Option<u32>,
        shape: Option<u16>,
    },
    Other(&'static str),
}

/// How the values of a pointer type exist at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PointerRepr {
    /// Compile time only: a `Ptr` descriptor with no leaves.
    Descriptor,
    /// `PhysicalStorageBuffer`: a 64-bit device address (one `u64` leaf, 8 bytes in memory).
    Physical,
    /// A `StorageBuffer` pointer under `VariablePointersStorageBuffer`: selected, phied, passed
    /// and stored as the 64-bit address of a descriptor's window
    /// (`crate::exec::bind::descriptor_address`), accessed as physical memory.
    VariableBuffer,
    /// A `Workgroup` pointer under `VariablePointers`: its 64-bit byte offset into the lane
    /// group's shared memory.
    VariableWorkgroup,
}

impl PointerRepr {
    /// Whether a value of this type is held in a register (one `u64` leaf).
    pub(super) fn is_value(self) -> bool {
        self != PointerRepr::Descriptor
    }
}

impl<'m> Lowerer<'m> {
    pub(super) fn ty(&self, id: Id) -> LowerResult<&SpvType> {
        self.types
            .get(&id)
            .ok_or_else(|| SpirvError::new(format!("{}: %{id} is not a type", self.at)))
    }

    pub(super) fn leaves(&self, id: Id) -> LowerResult<Vec<Leaf>> {
        let mut out = Vec::new();
        self.leaves_into(id, &mut out, 0)?;
        Ok(out)
    }
    fn leaves_into(&self, id: Id, out: &mut Vec<Leaf>, depth: u32) -> LowerResult<()> {
        if depth > 64 || out.len() as u64 > MAX_LEAVES {
            return err(format!("type %{id} is too large or too deeply nested"));
        }
        match self.ty(id)? {
            SpvType::Scalar(s) => out.push(*s),
            SpvType::Vector { elem, n } => {
                for _ in 0..*n {
                    self.leaves_into(*elem, out, depth + 1)?;
                }
            }
            SpvType::CoopMat { elem, ty } => {
                let n = ty.length();
                for _ in 0..n {
                    self.leaves_into(*elem, out, depth + 1)?;
                }
            }
            SpvType::Matrix { col: elem, n } | SpvType::Array { elem, len: n } => {
                let mut one = Vec::new();
                self.leaves_into(*elem, &mut one, depth + 1)?;
                if (one.len() as u64) * u64::from(*n) + out.len() as u64 > MAX_LEAVES {
                    return err(format!("type %{id} is too large to hold in registers"));
                }
                for _ in 0..*n {
                    out.extend_from_slice(&one);
                }
            }
            SpvType::Struct { members } => {
                for m in members.clone() {
                    self.leaves_into(m, out, depth + 1)?;
                }
            }
            SpvType::Pointer { repr, .. } if repr.is_value() => out.push(Leaf::Int(64, false)),
            SpvType::Void
            | SpvType::Pointer { .. }
            | SpvType::Tensor { .. }
            | SpvType::Function => {}
            SpvType::RuntimeArray { .. } => {
                return err(format!("runtime array %{id} cannot be held in registers"));
            }
            SpvType::Other(n) => return err(format!("unsupported type {n} (%{id})")),
        }
        Ok(())
    }
    /// Registers for the leaves of type `id`, typed.
    pub(super) fn alloc_leaves(&mut self, id: Id) -> LowerResult<Reg> {
        let types: Vec<RegType> = self.leaves(id)?.into_iter().map(Leaf::reg_type).collect();
        self.alloc_typed(&types)
    }

    pub(super) fn nleaves(&self, id: Id) -> LowerResult<u32> {
        Ok(self.leaves(id)?.len() as u32)
    }

    /// Member/element type and leaf offset of composite index `k`.
    pub(super) fn sub(&self, id: Id, k: u32) -> LowerResult<(Id, u32)> {
        match self.ty(id)?.clone() {
            SpvType::Vector { elem, n }
            | SpvType::Matrix { col: elem, n }
            | SpvType::Array { elem, len: n } => {
                if k >= n {
                    return err(format!("{}: index {k} out of range for %{id}", self.at));
                }
                Ok((elem, k * self.nleaves(elem)?))
            }
            SpvType::CoopMat { elem, ty } => {
                if k >= ty.length() {
                    return err(format!(
                        "{}: component {k} of a cooperative matrix with {} per invocation",
                        self.at,
                        ty.length()
                    ));
                }
                Ok((elem, k))
            }
            SpvType::Struct { members } => {
                let Some(&m) = members.get(k as usize) else {
                    return err(format!("{}: member {k} out of range for %{id}", self.at));
                };
                let mut off = 0;
                for &p in &members[..k as usize] {
                    off += self.nleaves(p)?;
                }
                Ok((m, off))
            }
            _ => err(format!(
                "{}: cannot index into non-composite %{id}",
                self.at
            )),
        }
    }

    pub(super) fn result_leaves(&self, inst: &Instruction) -> LowerResult<Vec<Leaf>> {
        self.leaves(
            inst.result_type
                .ok_or_else(|| SpirvError::new(format!("{}: missing result type", self.at)))?,
        )
    }

    pub(super) fn typed_leaves(&self, id: Id) -> LowerResult<Vec<Leaf>> {
        match self.id_types.get(&id) {
            Some(t) => self.leaves(*t),
            None => err(format!("{}: cannot determine the type of %{id}", self.at)),
        }
    }

    /// Rows of the matrix value `id` (the length of one scalarised column).
    pub(super) fn matrix_rows(&self, id: Id) -> LowerResult<usize> {
        let t = *self
            .id_types
            .get(&id)
            .ok_or_else(|| SpirvError::new("untyped matrix"))?;
        match self.ty(t)? {
            SpvType::Matrix { col, .. } => Ok(self.nleaves(*col)? as usize),
            _ => err(format!("{}: expected a matrix", self.at)),
        }
    }

    pub(super) fn types_and_consts(&mut self) -> LowerResult<()> {
        let dr = &self.m.dr;
        for inst in &dr.types_global_values {
            self.at = format!(
                "{} at word {}",
                opname(inst),
                inst.result_id
                    .and_then(|i| self.m.id_offsets.get(&i))
                    .copied()
                    .unwrap_or(0)
            );
            self.type_or_const(inst)?;
        }
        Ok(())
    }

    pub(super) fn const_u32(&self, id: Id) -> LowerResult<u32> {
        match self.consts.get(&id).map(|v| v.as_slice()) {
            Some([v]) => Ok(*v as u32),
            _ => err(format!("{}: %{id} is not a scalar constant", self.at)),
        }
    }

    fn spec_value(&self, id: Id, default: u64, w: u8) -> u64 {
        let Some(sid) = self.deco_lit(id, Decoration::SpecId) else {
            return default;
        };
        let Some((_, bytes)) = self.spec.iter().find(|(s, _)| *s == sid) else {
            return default;
        };
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        let v = u64::from_le_bytes(b);
        if w == 1 {
            u64::from(alu::trunc(v, 32) != 0)
        } else {
            alu::trunc(v, w)
        }
    }

    fn type_or_const(&mut self, inst: &'m Instruction) -> LowerResult<()> {
        let id = inst.result_id;
        let o = &inst.operands;
        let rid = || id.ok_or_else(|| SpirvError::new("missing result id"));
        let ty = match inst.class.opcode {
            S::TypeVoid => Some(SpvType::Void),
            S::TypeBool => Some(SpvType::Scalar(Leaf::Bool)),
            S::TypeInt => {
                const FLOAT8_E4M3: u32 = 4214;
                const FLOAT8_E5M2: u32 = 4215;
                match self.m.float8_types.get(&rid()?) {
                    Some(&FLOAT8_E4M3) => {
                        self.types
                            .insert(rid()?, SpvType::Scalar(Leaf::Float(alu::W_E4M3)));
                        return Ok(());
                    }
                    Some(&FLOAT8_E5M2) => {
                        self.types
                            .insert(rid()?, SpvType::Scalar(Leaf::Float(alu::W_E5M2)));
                        return Ok(());
                    }
                    Some(enc) => {
                        return err(format!(
                            "{}: unsupported float encoding {enc} for width 8",
                            self.at
                        ));
                    }
                    None => {}
                }
                let w = lit(o.first())?;
                let s = lit(o.get(1))? != 0;
                if !matches!(w, 8 | 16 | 32 | 64) {
                    return err(format!("{}: unsupported integer width {w}", self.at));
                }
                Some(SpvType::Scalar(Leaf::Int(w as u8, s)))
            }
            S::TypeFloat => {
                use rspirv::spirv::FPEncoding as E;
                let w = lit(o.first())?;
                if let Some(enc) = o.get(1) {
                    match (w, enc) {
                        (16, Operand::FPEncoding(E::BFloat16KHR)) => {
                            Some(SpvType::Scalar(Leaf::Float(alu::W_BF16)))
                        }
                        (8, Operand::FPEncoding(E::Float8E4M3EXT)) => {
                            Some(SpvType::Scalar(Leaf::Float(alu::W_E4M3)))
                        }
                        (8, Operand::FPEncoding(E::Float8E5M2EXT)) => {
                            Some(SpvType::Scalar(Leaf::Float(alu::W_E5M2)))
                        }
                        _ => {
                            return err(format!(
                                "{}: unsupported float encoding {enc:?} for width {w}",
                                self.at
                            ));
                        }
                    }
                } else if matches!(w, 16 | 32 | 64) {
                    Some(SpvType::Scalar(Leaf::Float(w as u8)))
                } else {
                    return err(format!("{}: unsupported float width {w}", self.at));
                }
            }
            S::TypeVector => Some(SpvType::Vector {
                elem: idref(o.first())?,
                n: lit(o.get(1))?,
            }),
            S::TypeCooperativeVectorNV => {
                // A cooperative vector is a vector of registers; its count may be a spec
                // constant (specialised by now).
                let n = self.const_u32(idref(o.get(1))?)?;
                if n == 0 {
                    return err(format!(
                        "{}: a cooperative vector needs components",
                        self.at
                    ));
                }
                self.cooperative.max_vector_components =
                    self.cooperative.max_vector_components.max(n);
                Some(SpvType::Vector {
                    elem: idref(o.first())?,
                    n,
                })
            }
            S::TypeCooperativeMatrixKHR => Some(self.coop_matrix_type(o)?),
            S::TypeMatrix => Some(SpvType::Matrix {
                col: idref(o.first())?,
                n: lit(o.get(1))?,
            }),
            S::TypeArray => {
                let len = self.const_u32(idref(o.get(1))?)?;
                Some(SpvType::Array {
                    elem: idref(o.first())?,
                    len,
                })
            }
            S::TypeRuntimeArray => Some(SpvType::RuntimeArray {
                elem: idref(o.first())?,
            }),
            S::TypeStruct => Some(SpvType::Struct {
                members: o
                    .iter()
                    .map(|x| idref(Some(x)))
                    .collect::<LowerResult<_>>()?,
            }),
            S::TypePointer => match o.first() {
                Some(Operand::StorageClass(sc)) => Some(SpvType::Pointer {
                    pointee: idref(o.get(1))?,
                    repr: match sc {
                        StorageClass::PhysicalStorageBuffer => PointerRepr::Physical,
                        StorageClass::StorageBuffer if self.variable_pointers.storage_buffer => {
                            PointerRepr::VariableBuffer
                        }
                        StorageClass::Workgroup if self.variable_pointers.workgroup => {
                            PointerRepr::VariableWorkgroup
                        }
                        _ => PointerRepr::Descriptor,
                    },
                }),
                _ => return err(format!("{}: malformed pointer type", self.at)),
            },
            S::TypeFunction => Some(SpvType::Function),
            S::TypeTensorARM => {
                let elem = match self.ty(idref(o.first())?)? {
                    SpvType::Scalar(s) => *s,
                    _ => return err(format!("{}: tensor element type must be a scalar", self.at)),
                };
                let rank = match o.get(1) {
                    Some(x) => Some(self.const_u32(idref(Some(x))?)?),
                    None => None,
                };
                if rank.is_none() {
                    self.warnings.push(format!(
                        "{}: OpTypeTensorARM without a Rank (VUID-RuntimeSpirv-OpTypeTensorARM-09907); \
                         it cannot be accessed",
                        self.at
                    ));
                }
                let shape = match o.get(2) {
                    Some(x) => {
                        let sid = idref(Some(x))?;
                        let dims = match self.consts.get(&sid) {
                            Some(v) if Some(v.len() as u32) == rank => v.clone(),
                            _ => {
                                return err(format!(
                                    "{}: the Shape of OpTypeTensorARM must be a constant array of Rank integers",
                                    self.at
                                ));
                            }
                        };
                        self.warnings.push(format!(
                            "{}: OpTypeTensorARM with a Shape (VUID-RuntimeSpirv-OpTypeTensorARM-09902); \
                             accesses to a tensor of another shape read zero and drop writes",
                            self.at
                        ));
                        let Ok(n) = u16::try_from(self.shapes.len()) else {
                            return err("too many shaped tensor types");
                        };
                        self.shapes.push(dims.into_boxed_slice());
                        Some(n)
                    }
                    None => None,
                };
                Some(SpvType::Tensor { elem, rank, shape })
            }
            S::TypeImage => Some(SpvType::Other("OpTypeImage")),
            S::TypeSampler => Some(SpvType::Other("OpTypeSampler")),
            S::TypeSampledImage => Some(SpvType::Other("OpTypeSampledImage")),
            S::TypeForwardPointer => {
                // Declares a pointer type that a later OpTypePointer defines; types are looked
                // up lazily, so only the storage class needs checking here.
                return match o.get(1) {
                    Some(Operand::StorageClass(StorageClass::PhysicalStorageBuffer)) => Ok(()),
                    other => err(format!(
                        "{}: OpTypeForwardPointer with storage class {other:?} (only \
                         PhysicalStorageBuffer pointers can be forward-declared)",
                        self.at
                    )),
                };
            }
            _ => None,
        };
        if let Some(t) = ty {
            self.types.insert(rid()?, t);
            return Ok(());
        }
        let rt = inst.result_type.unwrap_or(0);
        match inst.class.opcode {
            S::ConstantTrue | S::ConstantFalse => {
                self.consts.insert(
                    rid()?,
                    vec![u64::from(inst.class.opcode == S::ConstantTrue)],
                );
            }
            S::SpecConstantTrue | S::SpecConstantFalse => {
                let d = u64::from(inst.class.opcode == S::SpecConstantTrue);
                let v = self.spec_value(rid()?, d, 1);
                self.consts.insert(rid()?, vec![v]);
            }
            S::Constant | S::SpecConstant => {
                let leaves = self.leaves(rt)?;
                let [sc] = leaves.as_slice() else {
                    return err(format!("{}: constant of non-scalar type", self.at));
                };
                let v = match o.first() {
                    Some(Operand::LiteralBit32(v)) => u64::from(*v),
                    Some(Operand::LiteralBit64(v)) => *v,
                    _ => return err(format!("{}: malformed constant", self.at)),
                };
                let v = alu::trunc(v, sc.width_code());
                let v = if inst.class.opcode == S::SpecConstant {
                    self.spec_value(rid()?, v, sc.width_code())
                } else {
                    v
                };
                self.consts.insert(rid()?, vec![v]);
            }
            S::ConstantComposite | S::SpecConstantComposite
                if o.len() == 1 && matches!(self.ty(rt)?, SpvType::CoopMat { .. }) =>
            {
                // One constituent fills every component of a cooperative matrix.
                let c = idref(o.first())?;
                let Some(part) = self.consts.get(&c).cloned() else {
                    return err(format!("{}: constituent %{c} is not a constant", self.at));
                };
                let n = self.nleaves(rt)? as usize;
                self.consts
                    .insert(rid()?, part.iter().copied().cycle().take(n).collect());
            }
            S::ConstantComposite | S::SpecConstantComposite => {
                let mut v = Vec::new();
                for x in o {
                    let c = idref(Some(x))?;
                    match self.consts.get(&c) {
                        Some(cv) => v.extend_from_slice(cv),
                        None => {
                            return err(format!("{}: constituent %{c} is not a constant", self.at));
                        }
                    }
                }
                if v.len() as u32 != self.nleaves(rt)? {
                    return err(format!("{}: wrong number of constituents", self.at));
                }
                self.consts.insert(rid()?, v);
            }
            S::ConstantCompositeReplicateEXT | S::SpecConstantCompositeReplicateEXT => {
                let c = idref(o.first())?;
                let Some(part) = self.consts.get(&c).cloned() else {
                    return err(format!("{}: constituent %{c} is not a constant", self.at));
                };
                let n = self.nleaves(rt)? as usize;
                if part.is_empty() || !n.is_multiple_of(part.len()) {
                    return err(format!(
                        "{}: the constituent does not fill the result",
                        self.at
                    ));
                }
                self.consts
                    .insert(rid()?, part.iter().copied().cycle().take(n).collect());
            }
            S::ConstantNull | S::Undef => {
                let n = self.nleaves(rt)?;
                self.consts.insert(rid()?, vec![0; n as usize]);
            }
            S::SpecConstantOp => {
                let Some(Operand::LiteralSpecConstantOpInteger(op)) = o.first() else {
                    return err(format!("{}: malformed OpSpecConstantOp", self.at));
                };
                let inner =
                    Instruction::new(*op, inst.result_type, inst.result_id, o[1..].to_vec());
                self.fold(&inner)?;
            }
            S::Variable => {
                let sc = match o.first() {
                    Some(Operand::StorageClass(sc)) => *sc,
                    _ => return err(format!("{}: malformed OpVariable", self.at)),
                };
                let init = match o.get(1) {
                    Some(x) => Some(idref(Some(x))?),
                    None => None,
                };
                self.globals.insert(rid()?, (rt, sc, init));
            }
            S::String | S::Line | S::NoLine | S::ExtInst => {}
            _ => return err(format!("unsupported global instruction {}", self.at)),
        }
        Ok(())
    }

    /// Folds a spec-constant operation by lowering it into scratch IR and evaluating that.
    fn fold(&mut self, inst: &Instruction) -> LowerResult<()> {
        let rid = inst
            .result_id
            .ok_or_else(|| SpirvError::new("missing result id"))?;
        self.scratch = Some(Vec::new());
        let mut vals = HashMap::new();
        let res = self.lower_inst(inst, &mut vals);
        let ops = self.scratch.take().unwrap_or_default();
        res?;
        for op in &ops {
            let v = |r: &Reg| {
                self.known
                    .get(r)
                    .copied()
                    .ok_or_else(|| SpirvError::new("OpSpecConstantOp operand is not constant"))
            };
            let (d, x) = match op {
                Op::Mov { dst: d, src: a } => (*d, v(a)?),
                Op::IBin {
                    op,
                    width: w,
                    dst: d,
                    lhs: a,
                    rhs: b,
                } => (*d, alu::ibin(*op, *w, v(a)?, v(b)?)),
                Op::IUn {
                    op,
                    width: w,
                    dst: d,
                    src: a,
                } => (*d, alu::iun(*op, *w, v(a)?)),
                Op::ICmp {
                    op,
                    width: w,
                    dst: d,
                    lhs: a,
                    rhs: b,
                } => (*d, alu::icmp(*op, *w, v(a)?, v(b)?)),
                Op::FBin {
                    op,
                    width: w,
                    dst: d,
                    lhs: a,
                    rhs: b,
                } => (*d, alu::fbin(*op, *w, v(a)?, v(b)?)),
                Op::FUn {
                    op,
                    width: w,
                    dst: d,
                    src: a,
                } => (*d, alu::fun(*op, *w, v(a)?)),
                Op::FCmp {
                    op,
                    width: w,
                    dst: d,
                    lhs: a,
                    rhs: b,
                } => (*d, alu::fcmp(*op, *w, v(a)?, v(b)?)),
                Op::Tern {
                    op,
                    width: w,
                    dst: d,
                    src0: a,
                    src1: b,
                    src2: c,
                } => (*d, alu::tern(*op, *w, v(a)?, v(b)?, v(c)?)),
                Op::Conv {
                    op,
                    from,
                    to,
                    dst: d,
                    src: a,
                } => (*d, alu::conv(*op, *from, *to, v(a)?)),
                Op::Select {
                    dst: d,
                    cond: c,
                    if_true: a,
                    if_false: b,
                } => (*d, if v(c)? != 0 { v(a)? } else { v(b)? }),
                _ => {
                    return err(format!(
                        "{}: OpSpecConstantOp of a non-constant operation",
                        self.at
                    ));
                }
            };
            self.known.insert(d, x);
        }
        let Some(Val::Regs(regs)) = vals.get(&rid) else {
            return err(format!(
                "{}: OpSpecConstantOp did not produce a value",
                self.at
            ));
        };
        let mut out = Vec::new();
        for r in regs {
            out.push(
                self.known
                    .get(r)
                    .copied()
                    .ok_or_else(|| SpirvError::new("OpSpecConstantOp result is not constant"))?,
            );
        }
        self.consts.insert(rid, out);
        Ok(())
    }
}
