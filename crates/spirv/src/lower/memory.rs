//! Pointers and memory: global variables (materialised on first use, see `Lowerer::val`),
//! resource slots, access chains, loads, stores and atomics.
//!
//! A pointer ([`Ptr`]) is a compile-time descriptor: what it points into ([`PointerKind`]), the pointee
//! type, a constant offset and an optional per-lane dynamic offset register. Offsets count leaves
//! in register-backed variables (built-ins, `Private`/`Function` variables) and bytes in memory
//! (buffers and push constants in explicit layout, `Workgroup` memory in natural layout, see
//! `layout`). Descriptor arrays stay unindexed (`BufArr`, `TensorArr`) until an access chain picks
//! an element. A `PhysicalStorageBuffer` pointer is a value, its 64-bit address in one register:
//! `Lowerer::ptr` turns it into a `Space::Physical` pointer whose `dynr` is that register, access
//! chains on it fold their offsets back into one address register (`fold_offset`), and
//! `OpPtrAccessChain` steps by its pointer type's `ArrayStride` (on buffer and workgroup
//! pointers too; a workgroup pointer type without one steps by its pointee's natural size). Resource slots index
//! `Lowerer::resources` in order of first use. Bools are 32 bits in memory. `Private` variables
//! are initialised in the entry block; function-scope `OpVariable`s are lowered in `lower_inst`.
//! Pointers that are values (physical and variable pointers) are `pointers`'s.

use super::types::{Leaf, PointerRepr, SpvType};
use super::{Id, LowerResult, Lowerer, Val, err, idref, lit};
use crate::alu;
use crate::alu::{Conv, IBin, ICmp};
use crate::ir::{DescIdx, Op, Reg, RegType, Space, TensorAcc, Var};
use crate::mem::AtomicOp;
use crate::{ResourceDecl, ResourceKind, SpirvError};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op as S, StorageClass};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy)]
pub(super) enum PointerKind {
    /// Per-lane registers `base..base+len`; offsets count leaves.
    Var {
        base: Reg,
        len: u32,
    },
    /// Byte-addressed memory.
    Mem(Space),
    /// An array of buffer descriptors, not yet indexed.
    BufArr {
        slot: u32,
    },
    Tensor {
        slot: u32,
        desc: DescIdx,
    },
    TensorArr {
        slot: u32,
    },
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Ptr {
    pub(super) pk: PointerKind,
    pub(super) ty: Id,
    pub(super) off: u64,
    pub(super) dynr: Option<Reg>,
    /// Explicit layout (buffers, push constants) vs natural (shared memory).
    pub(super) explicit: bool,
    /// MatrixStride inherited from the struct member being pointed into.
    pub(super) mstride: Option<u32>,
}

impl<'m> Lowerer<'m> {
    /// Lowers a variable, pointer or memory instruction. Returns false, having done nothing, for an instruction of another family.
    pub(super) fn lower_memory(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<bool> {
        let o = &inst.operands;
        let rid = inst.result_id;
        let rt = inst.result_type.unwrap_or(0);
        let set = |vals: &mut HashMap<Id, Val>, v: Val| {
            if let Some(r) = rid {
                vals.insert(r, v);
            }
        };
        match inst.class.opcode {
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
                let bt = self.id_types.get(&base).copied().unwrap_or(0);
                let stride = match (p.pk, self.deco_lit(bt, Decoration::ArrayStride)) {
                    (
                        PointerKind::Mem(Space::Physical | Space::Buffer { .. } | Space::Shared),
                        Some(stride),
                    ) => u64::from(stride),
                    // Natural layout: the element's size rounded up to its alignment.
                    (PointerKind::Mem(Space::Shared), None) => {
                        let (size, align) = self.nat(p.ty, 0)?;
                        size.div_ceil(align.max(1)) * align.max(1)
                    }
                    (PointerKind::Mem(Space::Physical | Space::Buffer { .. }), None) => {
                        return err(format!(
                            "{}: the pointer type %{bt} of an OpPtrAccessChain base needs an \
                             ArrayStride decoration (SPIR-V's shader validation rules: the Base of \
                             every OpPtrAccessChain into explicitly laid out memory has an ArrayStride)",
                            self.at
                        ));
                    }
                    _ => {
                        return err(format!(
                            "{}: OpPtrAccessChain on a pointer that is not into a storage buffer, \
                             workgroup memory or PhysicalStorageBuffer memory",
                            self.at
                        ));
                    }
                };
                self.add_index(vals, &mut p, idref(o.get(1))?, stride)?;
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
                    [Leaf::Int(w, _)] => self.conv(Conv::UToU, *w, 64, src)?,
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
                    [Leaf::Int(w, _)] => self.conv(Conv::UToU, 64, *w, a)?,
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
            S::PtrEqual | S::PtrNotEqual => {
                let a = self.reg1(vals, idref(o.first())?)?;
                let b = self.reg1(vals, idref(o.get(1))?)?;
                let d = self.alloc(1)?;
                self.emit(Op::ICmp {
                    op: if inst.class.opcode == S::PtrEqual {
                        ICmp::Eq
                    } else {
                        ICmp::Ne
                    },
                    width: 64,
                    dst: d,
                    lhs: a,
                    rhs: b,
                });
                set(vals, Val::Regs(vec![d]));
            }
            S::PtrDiff => self.lower_ptr_diff(inst, vals)?,
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
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether a declaration or a struct member of the module is decorated `Aliased`,
    /// `Coherent` or `Volatile`: its memory may change under a register copy of it.
    pub(super) fn may_alias_memory(&self) -> bool {
        let marks = |i: &&Instruction| {
            i.operands.iter().any(|o| {
                matches!(
                    o,
                    Operand::Decoration(
                        Decoration::Aliased | Decoration::Coherent | Decoration::Volatile
                    )
                )
            })
        };
        self.decos.values().flatten().any(&marks) || self.member_decos.values().flatten().any(marks)
    }

    fn binding(&self, id: Id) -> (u32, u32) {
        (
            self.deco_lit(id, Decoration::DescriptorSet).unwrap_or(0),
            self.deco_lit(id, Decoration::Binding).unwrap_or(0),
        )
    }

    fn add_resource(&mut self, id: Id, kind: ResourceKind, array_len: Option<u32>) -> u32 {
        let (set, binding) = self.binding(id);
        self.resources.push(ResourceDecl {
            set,
            binding,
            kind,
            array_len,
        });
        (self.resources.len() - 1) as u32
    }

    pub(super) fn global(&mut self, id: Id) -> LowerResult<Val> {
        let (pty, sc, init) = self.globals[&id];
        let pointee = match self.ty(pty)? {
            SpvType::Pointer { pointee, .. } => *pointee,
            _ => return err(format!("variable %{id} does not have a pointer type")),
        };
        let mk = |pk, explicit| Ptr {
            pk,
            ty: pointee,
            off: 0,
            dynr: None,
            explicit,
            mstride: None,
        };
        match sc {
            StorageClass::Input => {
                let Some(d) = self.deco(id, Decoration::BuiltIn) else {
                    return err(format!("Input variable %{id} is not a compute built-in"));
                };
                let Some(Operand::BuiltIn(b)) = d.operands.get(2) else {
                    return err("malformed BuiltIn");
                };
                let n = self.nleaves(pointee)?;
                if let Some(base) = self.subgroup_builtin(*b, pointee, n)? {
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PointerKind::Var { base, len: n }, false)));
                }
                if *b == BuiltIn::LocalInvocationIndex && n == 1 {
                    let base = self.local_index_reg()?;
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PointerKind::Var { base, len: n }, false)));
                }
                if *b == BuiltIn::DeviceIndex && n == 1 {
                    // One physical device per device group: always device 0.
                    let base = self.alloc_typed(&[RegType::Int(32)])?;
                    let zero = self.imm(0)?;
                    self.entry_init.push(Op::Mov {
                        dst: base,
                        src: zero,
                    });
                    self.var_ranges.push((base, n));
                    return Ok(Val::Ptr(mk(PointerKind::Var { base, len: n }, false)));
                }
                let base = self.alloc_typed(&vec![RegType::Int(32); n as usize])?;
                let slot = match b {
                    BuiltIn::GlobalInvocationId => &mut self.builtins.global_id,
                    BuiltIn::LocalInvocationId => &mut self.builtins.local_id,
                    BuiltIn::WorkgroupId => &mut self.builtins.workgroup_id,
                    BuiltIn::NumWorkgroups => &mut self.builtins.num_workgroups,
                    BuiltIn::LocalInvocationIndex => &mut self.builtins.local_index,
                    other => return err(format!("unsupported built-in {other:?}")),
                };
                let want = if *b == BuiltIn::LocalInvocationIndex {
                    1
                } else {
                    3
                };
                if n != want {
                    return err(format!(
                        "built-in {b:?} has {n} components, expected {want}"
                    ));
                }
                *slot = Some(base);
                self.var_ranges.push((base, n));
                Ok(Val::Ptr(mk(PointerKind::Var { base, len: n }, false)))
            }
            StorageClass::Private | StorageClass::Function => {
                let n = self.nleaves(pointee)?;
                let base = self.alloc_leaves(pointee)?;
                // Private variables start from their initializer, or zero (deterministic rather
                // than whatever the previous lane group left in the registers).
                let src = match init {
                    Some(i) => self.regs(&HashMap::new(), i)?,
                    None => vec![self.imm(0)?; n as usize],
                };
                for (k, s) in src.into_iter().enumerate() {
                    self.entry_init.push(Op::Mov {
                        dst: base + k as u32,
                        src: s,
                    });
                }
                self.var_ranges.push((base, n));
                Ok(Val::Ptr(mk(PointerKind::Var { base, len: n }, false)))
            }
            StorageClass::Workgroup => {
                let (size, align) = self.nat(pointee, 0)?;
                let off = self.shared_size.div_ceil(align) * align;
                self.shared_size = off + size;
                if self.shared_size > (1 << 26) {
                    return err("workgroup memory too large");
                }
                self.needs_whole = true;
                let mut p = mk(PointerKind::Mem(Space::Shared), false);
                p.off = off;
                Ok(Val::Ptr(p))
            }
            StorageClass::PushConstant => {
                let size = self.explicit_size(pointee)?;
                self.push_size = self.push_size.max(u32::try_from(size).unwrap_or(u32::MAX));
                Ok(Val::Ptr(mk(PointerKind::Mem(Space::Push), true)))
            }
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                let (block, arr) = match self.ty(pointee)?.clone() {
                    SpvType::Array { elem, len } => (elem, Some(len)),
                    SpvType::RuntimeArray { elem } => (elem, Some(0)),
                    _ => (pointee, None),
                };
                let kind = if sc == StorageClass::StorageBuffer
                    || self.deco(block, Decoration::BufferBlock).is_some()
                {
                    ResourceKind::StorageBuffer
                } else {
                    ResourceKind::UniformBuffer
                };
                let slot = self.add_resource(id, kind, arr);
                if arr.is_some() {
                    Ok(Val::Ptr(mk(PointerKind::BufArr { slot }, true)))
                } else {
                    Ok(Val::Ptr(mk(
                        PointerKind::Mem(Space::Buffer {
                            slot,
                            desc: DescIdx::Const(0),
                        }),
                        true,
                    )))
                }
            }
            StorageClass::UniformConstant => {
                let (tt, arr) = match self.ty(pointee)?.clone() {
                    SpvType::Array { elem, len } => (elem, Some(len)),
                    SpvType::RuntimeArray { elem } => (elem, Some(0)),
                    _ => (pointee, None),
                };
                let SpvType::Tensor { elem, rank, .. } = self.ty(tt)?.clone() else {
                    return err(format!(
                        "UniformConstant variable %{id} is not a tensor (images/samplers are not supported)"
                    ));
                };
                let slot = self.add_resource(
                    id,
                    ResourceKind::Tensor {
                        rank,
                        element: elem.scalar_type(),
                    },
                    arr,
                );
                let mut p = mk(
                    if arr.is_some() {
                        PointerKind::TensorArr { slot }
                    } else {
                        PointerKind::Tensor {
                            slot,
                            desc: DescIdx::Const(0),
                        }
                    },
                    false,
                );
                p.ty = if arr.is_some() { pointee } else { tt };
                Ok(Val::Ptr(p))
            }
            other => err(format!(
                "unsupported storage class {other:?} for variable %{id}"
            )),
        }
    }

    pub(super) fn chain(
        &mut self,
        vals: &HashMap<Id, Val>,
        mut p: Ptr,
        idx: &[Operand],
    ) -> LowerResult<Ptr> {
        for x in idx {
            let id = idref(Some(x))?;
            let cst = self.consts.get(&id).and_then(|v| v.first().copied());
            let desc_of = |l: &mut Lowerer, id: Id| -> LowerResult<DescIdx> {
                Ok(match cst {
                    Some(c) => DescIdx::Const(c as u32),
                    None => DescIdx::Dyn(l.reg1(vals, id)?),
                })
            };
            match p.pk {
                PointerKind::BufArr { slot } => {
                    let desc = desc_of(self, id)?;
                    let (elem, _) = self.elem_stride(p.ty, false, None)?;
                    p.pk = PointerKind::Mem(Space::Buffer { slot, desc });
                    p.ty = elem;
                    continue;
                }
                PointerKind::TensorArr { slot } => {
                    let desc = desc_of(self, id)?;
                    let (elem, _) = self.elem_stride(p.ty, false, None).or_else(|_| match self
                        .ty(p.ty)?
                    {
                        SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => {
                            Ok((*elem, 0))
                        }
                        _ => err("bad tensor array"),
                    })?;
                    p.pk = PointerKind::Tensor { slot, desc };
                    p.ty = elem;
                    continue;
                }
                PointerKind::Tensor { .. } => {
                    return err(format!("{}: cannot index into a tensor", self.at));
                }
                _ => {}
            }
            let is_struct = matches!(self.ty(p.ty)?, SpvType::Struct { .. });
            let is_var = matches!(p.pk, PointerKind::Var { .. });
            if is_struct {
                let Some(k) = cst else {
                    return err(format!("{}: struct index must be constant", self.at));
                };
                let k = k as u32;
                if is_var {
                    let (t, lo) = self.sub(p.ty, k)?;
                    p.off += u64::from(lo);
                    p.ty = t;
                } else {
                    let off = self.member_offset(p.ty, k, p.explicit)?;
                    if p.explicit && self.has_member_deco(p.ty, k, Decoration::RowMajor) {
                        return err(format!(
                            "{}: row-major matrices in buffers are not supported",
                            self.at
                        ));
                    }
                    p.mstride = self.member_deco_lit(p.ty, k, Decoration::MatrixStride);
                    let (t, _) = self.sub(p.ty, k)?;
                    p.off += off;
                    p.ty = t;
                }
                continue;
            }
            let (elem, stride) = if is_var {
                let elem = match self.ty(p.ty)? {
                    SpvType::Vector { elem, .. }
                    | SpvType::CoopMat { elem, .. }
                    | SpvType::Array { elem, .. }
                    | SpvType::RuntimeArray { elem } => *elem,
                    SpvType::Matrix { col, .. } => *col,
                    _ => return err(format!("{}: cannot index %{}", self.at, p.ty)),
                };
                (elem, u64::from(self.nleaves(elem)?))
            } else {
                self.elem_stride(p.ty, p.explicit, p.mstride)?
            };
            // A member's MatrixStride also covers matrices inside arrays of that member: keep it
            // through array indexing, drop it once a matrix or vector is indexed.
            if !matches!(
                self.ty(p.ty)?,
                SpvType::Array { .. } | SpvType::RuntimeArray { .. }
            ) {
                p.mstride = None;
            }
            p.ty = elem;
            self.add_index(vals, &mut p, id, stride)?;
        }
        if matches!(p.pk, PointerKind::Mem(Space::Physical)) {
            self.fold_offset(&mut p)?;
        }
        Ok(p)
    }

    /// Adds index `id` (a constant or a per-lane register, signed per its type) times `stride`
    /// to `p`'s offset.
    pub(super) fn add_index(
        &mut self,
        vals: &HashMap<Id, Val>,
        p: &mut Ptr,
        id: Id,
        stride: u64,
    ) -> LowerResult<()> {
        let cst = self.consts.get(&id).and_then(|v| v.first().copied());
        match cst {
            Some(c) => {
                let sw = self.typed_leaves(id).ok().and_then(|l| l.first().copied());
                let c = match sw {
                    Some(Leaf::Int(w, true)) => alu::sext(c, w) as u64,
                    _ => c,
                };
                p.off = p.off.wrapping_add(c.wrapping_mul(stride));
            }
            None => {
                let r = self.reg1(vals, id)?;
                let sc = self
                    .typed_leaves(id)?
                    .first()
                    .copied()
                    .unwrap_or(Leaf::Int(32, false));
                let r64 = match sc {
                    // Byte offsets are 64-bit: widen the index by its signedness.
                    Leaf::Int(w, signed) => {
                        let op = if signed { Conv::SToS } else { Conv::UToU };
                        self.conv(op, w, 64, r)?
                    }
                    _ => r,
                };
                let scaled = if stride == 1 {
                    r64
                } else {
                    let k = self.imm(stride)?;
                    self.ibin(IBin::Mul, 64, r64, k)?
                };
                p.dynr = Some(match p.dynr {
                    None => scaled,
                    Some(prev) => self.ibin(IBin::Add, 64, prev, scaled)?,
                });
            }
        }
        Ok(())
    }

    /// The pointee of `PhysicalStorageBuffer` pointer type `t`, if it is one.
    pub(super) fn physical_pointee(&self, t: Id) -> Option<Id> {
        match self.types.get(&t)? {
            SpvType::Pointer {
                pointee,
                repr: PointerRepr::Physical,
            } => Some(*pointee),
            _ => None,
        }
    }

    /// A physical pointer to `pointee` at the address in 64-bit register `addr`.
    pub(super) fn physical_ptr(addr: Reg, pointee: Id) -> Ptr {
        Ptr {
            pk: PointerKind::Mem(Space::Physical),
            ty: pointee,
            off: 0,
            dynr: Some(addr),
            explicit: true,
            mstride: None,
        }
    }

    /// Folds a pointer's constant offset into its address (or offset) register, so that the
    /// pointer is one 64-bit value (`dynr`, with `off == 0`) that can be stored, selected,
    /// converted or passed through a phi. Address arithmetic wraps, as on a GPU.
    pub(super) fn fold_offset(&mut self, p: &mut Ptr) -> LowerResult<()> {
        let base = match p.dynr {
            Some(r) => r,
            None => self.imm(0)?,
        };
        if p.off == 0 {
            p.dynr = Some(base);
            return Ok(());
        }
        let k = self.imm(p.off)?;
        p.dynr = Some(self.ibin(IBin::Add, 64, base, k)?);
        p.off = 0;
        Ok(())
    }

    pub(super) fn load(&mut self, p: Ptr) -> LowerResult<Val> {
        match p.pk {
            PointerKind::Var { base, len } => {
                let n = self.nleaves(p.ty)?;
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let d = self.alloc(1)?;
                    let off = p.off.wrapping_add(u64::from(i));
                    match p.dynr {
                        None => {
                            if off < u64::from(len) {
                                self.emit(Op::Mov {
                                    dst: d,
                                    src: base + off as u32,
                                });
                            } else {
                                let z = self.imm(0)?;
                                self.emit(Op::Mov { dst: d, src: z });
                            }
                        }
                        Some(idx) => self.emit(Op::LoadVar {
                            dst: d,
                            var: Var { base, len },
                            offset: off.min(u64::from(u32::MAX)) as u32,
                            index: idx,
                        }),
                    }
                    out.push(d);
                }
                Ok(Val::Regs(out))
            }
            PointerKind::Mem(sp) => {
                let mut leaves = Vec::new();
                self.mem_leaves(p.ty, p.explicit, p.mstride, p.off, &mut leaves)?;
                let mut out = Vec::with_capacity(leaves.len());
                for (off, sc) in leaves {
                    let d = self.alloc(1)?;
                    self.emit(Op::Load {
                        space: sp,
                        bytes: sc.bytes() as u8,
                        dst: d,
                        addr: p.dynr,
                        offset: off,
                    });
                    if sc == Leaf::Bool {
                        let z = self.imm(0)?;
                        let b = self.alloc(1)?;
                        self.emit(Op::ICmp {
                            op: ICmp::Ne,
                            width: 32,
                            dst: b,
                            lhs: d,
                            rhs: z,
                        });
                        out.push(b);
                    } else {
                        out.push(d);
                    }
                }
                Ok(Val::Regs(out))
            }
            PointerKind::Tensor { slot, desc } => {
                let SpvType::Tensor { elem, rank, shape } = self.ty(p.ty)?.clone() else {
                    return err(format!("{}: load of a non-tensor descriptor", self.at));
                };
                Ok(Val::Tensor(TensorAcc {
                    slot,
                    desc,
                    elem: elem.scalar_type(),
                    rank: rank.unwrap_or(0),
                    shape,
                }))
            }
            PointerKind::BufArr { .. } | PointerKind::TensorArr { .. } => {
                err(format!("{}: cannot load a whole descriptor array", self.at))
            }
        }
    }

    pub(super) fn store(&mut self, p: Ptr, v: &[Reg]) -> LowerResult<()> {
        match p.pk {
            PointerKind::Var { base, len } => {
                let n = self.nleaves(p.ty)?;
                if v.len() != n as usize {
                    return err(format!("{}: stored value has the wrong type", self.at));
                }
                for (i, &r) in v.iter().enumerate() {
                    let off = p.off.wrapping_add(i as u64);
                    match p.dynr {
                        None => {
                            if off < u64::from(len) {
                                self.emit(Op::Mov {
                                    dst: base + off as u32,
                                    src: r,
                                });
                            }
                        }
                        Some(idx) => self.emit(Op::StoreVar {
                            var: Var { base, len },
                            offset: off.min(u64::from(u32::MAX)) as u32,
                            index: idx,
                            value: r,
                        }),
                    }
                }
                Ok(())
            }
            PointerKind::Mem(sp) => {
                if sp == Space::Push {
                    return err(format!("{}: store to push constants", self.at));
                }
                let mut leaves = Vec::new();
                self.mem_leaves(p.ty, p.explicit, p.mstride, p.off, &mut leaves)?;
                if leaves.len() != v.len() {
                    return err(format!("{}: stored value has the wrong type", self.at));
                }
                for ((off, sc), &r) in leaves.into_iter().zip(v) {
                    self.emit(Op::Store {
                        space: sp,
                        bytes: sc.bytes() as u8,
                        value: r,
                        addr: p.dynr,
                        offset: off,
                    });
                }
                Ok(())
            }
            _ => err(format!("{}: cannot store to a descriptor", self.at)),
        }
    }

    pub(super) fn atomic(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let p = self.ptr(vals, idref(o.first())?)?;
        let PointerKind::Mem(sp) = p.pk else {
            return err(format!(
                "{}: atomics are only supported on buffer, workgroup and physical-storage-buffer memory",
                self.at
            ));
        };
        if sp == Space::Push {
            return err(format!("{}: atomic on push constants", self.at));
        }
        let SpvType::Scalar(sc) = self.ty(p.ty)?.clone() else {
            return err(format!("{}: atomic on a non-scalar", self.at));
        };
        let size = sc.bytes() as u8;
        if size != 4 && size != 8 {
            return err(format!("{}: atomics need 32- or 64-bit integers", self.at));
        }
        let z = self.imm(0)?;
        let one = self.imm(1)?;
        let (op, v, cmp) = match inst.class.opcode {
            S::AtomicLoad => (AtomicOp::Load, z, z),
            S::AtomicStore => (AtomicOp::Store, self.reg1(vals, idref(o.get(3))?)?, z),
            S::AtomicIIncrement => (AtomicOp::Add, one, z),
            S::AtomicIDecrement => (AtomicOp::Sub, one, z),
            S::AtomicCompareExchange => (
                AtomicOp::CompareExchange,
                self.reg1(vals, idref(o.get(4))?)?,
                self.reg1(vals, idref(o.get(5))?)?,
            ),
            other => {
                let v = self.reg1(vals, idref(o.get(3))?)?;
                let op = match other {
                    S::AtomicExchange => AtomicOp::Exchange,
                    S::AtomicIAdd => AtomicOp::Add,
                    S::AtomicISub => AtomicOp::Sub,
                    S::AtomicSMin => AtomicOp::SMin,
                    S::AtomicUMin => AtomicOp::UMin,
                    S::AtomicSMax => AtomicOp::SMax,
                    S::AtomicUMax => AtomicOp::UMax,
                    S::AtomicAnd => AtomicOp::And,
                    S::AtomicOr => AtomicOp::Or,
                    _ => AtomicOp::Xor,
                };
                (op, v, z)
            }
        };
        let d = self.alloc(1)?;
        self.emit(Op::Atomic {
            op,
            space: sp,
            bytes: size,
            dst: d,
            addr: p.dynr,
            offset: p.off,
            value: v,
            comparator: cmp,
        });
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![d]));
        }
        Ok(())
    }
}
