//! Pointers held as values. A `PhysicalStorageBuffer` pointer is its 64-bit address. Under
//! `VariablePointers*`, a `StorageBuffer` or `Workgroup` pointer stays a compile-time
//! descriptor (`memory::Ptr`) until it must be a value (selected, phied, returned, stored,
//! compared); then [`Lowerer::pointer_value`] makes it one 64-bit register: a `Workgroup`
//! pointer its byte offset, a buffer pointer the address of its byte in the descriptor's window
//! (`crate::exec::bind::descriptor_address`), which the dispatch registers as physical memory, so
//! accesses through it are physical accesses bounded by what the descriptor binds.

use super::memory::{PointerKind, Ptr};
use super::types::{Leaf, PointerRepr, SpvType};
use super::{Id, LowerResult, Lowerer, Val, err, idref};
use crate::SpirvError;
use crate::alu::{Conv, IBin};
use crate::ir::{DescIdx, Reg, RegType, Space};
use rspirv::dr::Instruction;
use rspirv::spirv::Decoration;
use std::collections::HashMap;

/// The `VariablePointers*` capabilities a module declares, and what lowering made of them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct VariablePointers {
    /// `StorageBuffer` pointers are values (`VariablePointersStorageBuffer` or `VariablePointers`).
    pub(super) storage_buffer: bool,
    /// `Workgroup` pointers are values (`VariablePointers`).
    pub(super) workgroup: bool,
    /// A buffer pointer became a descriptor address: the dispatch must register every bound
    /// buffer's window (`Program::descriptor_addresses`).
    pub(super) descriptor_addresses: bool,
}

impl<'m> Lowerer<'m> {
    /// Whether `p` can be held as a value (`pointer_value`): a physical pointer, or a
    /// variable pointer into storage buffers or workgroup memory the module allows.
    pub(super) fn is_value_pointer(&self, p: &Ptr) -> bool {
        match p.pk {
            PointerKind::Mem(Space::Physical) => true,
            PointerKind::Mem(Space::Buffer { .. }) => self.variable_pointers.storage_buffer,
            PointerKind::Mem(Space::Shared) => self.variable_pointers.workgroup,
            _ => false,
        }
    }

    /// `p` as one 64-bit register (see the module's docs): a physical address, a descriptor
    /// address, or a byte offset into workgroup memory.
    pub(super) fn pointer_value(&mut self, mut p: Ptr) -> LowerResult<Reg> {
        match p.pk {
            PointerKind::Mem(Space::Physical | Space::Shared) => {}
            PointerKind::Mem(Space::Buffer { slot, desc }) => {
                let too_many = || {
                    SpirvError::new(format!(
                        "a variable pointer into descriptor slot {slot}: at most 32 768 buffer \
                         bindings and 65 536 array elements can be addressed"
                    ))
                };
                let base = match desc {
                    DescIdx::Const(index) => {
                        let a = crate::exec::bind::descriptor_address(slot, index)
                            .ok_or_else(too_many)?;
                        self.imm(a)?
                    }
                    DescIdx::Dyn(index) => {
                        let first =
                            crate::exec::bind::descriptor_address(slot, 0).ok_or_else(too_many)?;
                        let from = match self.reg_types.get(index as usize) {
                            Some(Some(RegType::Int(w))) => *w,
                            _ => 32,
                        };
                        let wide = self.conv(Conv::UToU, from, 64, index)?;
                        let shift = self.imm(32)?;
                        let shifted = self.ibin(IBin::Shl, 64, wide, shift)?;
                        let first = self.imm(first)?;
                        self.ibin(IBin::Add, 64, shifted, first)?
                    }
                };
                p.dynr = Some(match p.dynr {
                    None => base,
                    Some(offset) => self.ibin(IBin::Add, 64, base, offset)?,
                });
                self.variable_pointers.descriptor_addresses = true;
            }
            _ => {
                return err(format!(
                    "{}: a pointer that is not a physical or variable pointer used as a value",
                    self.at
                ));
            }
        }
        self.fold_offset(&mut p)?;
        p.dynr
            .ok_or_else(|| SpirvError::new("pointer value without a register"))
    }

    /// The pointer a value of pointer type `repr` (to `pointee`) held in `value` stands for:
    /// physical and buffer pointers are physical addresses, workgroup pointers offsets.
    pub(super) fn pointer_from_value(value: Reg, pointee: Id, repr: PointerRepr) -> Option<Ptr> {
        match repr {
            PointerRepr::Physical | PointerRepr::VariableBuffer => {
                Some(Self::physical_ptr(value, pointee))
            }
            PointerRepr::VariableWorkgroup => Some(Ptr {
                pk: PointerKind::Mem(Space::Shared),
                ty: pointee,
                off: 0,
                dynr: Some(value),
                explicit: false,
                mstride: None,
            }),
            PointerRepr::Descriptor => None,
        }
    }

    /// `OpPtrDiff`: the signed distance from the second pointer to the first, in elements of
    /// their pointee (the pointer type's `ArrayStride`, else the pointee's size).
    pub(super) fn lower_ptr_diff(
        &mut self,
        inst: &Instruction,
        vals: &mut HashMap<Id, Val>,
    ) -> LowerResult<()> {
        let o = &inst.operands;
        let first = idref(o.first())?;
        let a = self.reg1(vals, first)?;
        let b = self.reg1(vals, idref(o.get(1))?)?;
        let pt = self.id_types.get(&first).copied().unwrap_or(0);
        let stride = match (
            self.deco_lit(pt, Decoration::ArrayStride),
            self.ty(pt)?.clone(),
        ) {
            (Some(stride), _) => u64::from(stride),
            (None, SpvType::Pointer { pointee, repr }) => {
                if repr == PointerRepr::VariableWorkgroup {
                    let (size, align) = self.nat(pointee, 0)?;
                    size.div_ceil(align.max(1)) * align.max(1)
                } else {
                    self.explicit_size(pointee)?
                }
            }
            _ => return err(format!("{}: OpPtrDiff of a non-pointer", self.at)),
        };
        let mut diff = self.ibin(IBin::Sub, 64, a, b)?;
        if stride > 1 {
            let k = self.imm(stride)?;
            diff = self.ibin(IBin::SDiv, 64, diff, k)?;
        }
        let out = match self.result_leaves(inst)?.as_slice() {
            [Leaf::Int(w, _)] => self.conv(Conv::SToS, 64, *w, diff)?,
            _ => return err(format!("{}: OpPtrDiff to a non-integer", self.at)),
        };
        if let Some(r) = inst.result_id {
            vals.insert(r, Val::Regs(vec![out]));
        }
        Ok(())
    }
}
