//! Memory layout of types: natural layout (`nat`: every scalar aligned to its size, as workgroup
//! memory is allocated) and explicit layout (buffers and push constants: `Offset`, `ArrayStride`
//! and `MatrixStride` decorations, falling back to natural layout where one is missing), and the
//! member-decoration lookups they use. `MatrixStride` comes from the enclosing struct member and
//! is passed down as `mstride`. Row-major matrices in explicit layout are rejected.
//!
//! Invariant: `mem_leaves` lists the leaves in the same order as `Lowerer::leaves`, so leaf `k` of
//! a loaded or stored value is register `k`; it stops at `MAX_LEAVES` leaves.

use super::types::{Leaf, PointerRepr, SpvType};
use super::{Id, LowerResult, Lowerer, MAX_LEAVES, err, lit};
use rspirv::dr::Operand;
use rspirv::spirv::Decoration;

impl<'m> Lowerer<'m> {
    pub(super) fn member_deco_lit(&self, id: Id, m: u32, d: Decoration) -> Option<u32> {
        let v = self.member_decos.get(&(id, m))?;
        let i = v
            .iter()
            .find(|i| matches!(i.operands.get(2), Some(Operand::Decoration(x)) if *x == d))?;
        lit(i.operands.get(3)).ok()
    }
    pub(super) fn has_member_deco(&self, id: Id, m: u32, d: Decoration) -> bool {
        self.member_decos.get(&(id, m)).is_some_and(|v| {
            v.iter()
                .any(|i| matches!(i.operands.get(2), Some(Operand::Decoration(x)) if *x == d))
        })
    }

    /// Natural (size, align) in bytes.
    pub(super) fn nat(&self, id: Id, depth: u32) -> LowerResult<(u64, u64)> {
        if depth > 64 {
            return err("type nesting too deep");
        }
        Ok(match self.ty(id)?.clone() {
            SpvType::Scalar(s) => (s.bytes(), s.bytes()),
            SpvType::Pointer {
                repr: PointerRepr::Physical,
                ..
            } => (8, 8),
            SpvType::Vector { elem, n }
            | SpvType::Matrix { col: elem, n }
            | SpvType::Array { elem, len: n } => {
                let (s, a) = self.nat(elem, depth + 1)?;
                let stride = s.div_ceil(a) * a;
                (stride.saturating_mul(u64::from(n)), a)
            }
            SpvType::Struct { members } => {
                let (mut off, mut al) = (0u64, 1u64);
                for m in members {
                    let (s, a) = self.nat(m, depth + 1)?;
                    off = off.div_ceil(a) * a + s;
                    al = al.max(a);
                }
                (off.div_ceil(al) * al, al)
            }
            _ => return err(format!("type %{id} has no natural memory layout")),
        })
    }

    pub(super) fn member_offset(&self, st: Id, k: u32, explicit: bool) -> LowerResult<u64> {
        if explicit && let Some(o) = self.member_deco_lit(st, k, Decoration::Offset) {
            return Ok(u64::from(o));
        }
        let SpvType::Struct { members } = self.ty(st)?.clone() else {
            return err("not a struct");
        };
        let mut off = 0u64;
        for (i, m) in members.iter().enumerate() {
            let (s, a) = self.nat(*m, 0)?;
            off = off.div_ceil(a) * a;
            if i as u32 == k {
                return Ok(off);
            }
            off += s;
        }
        err(format!("{}: member {k} out of range", self.at))
    }

    pub(super) fn elem_stride(
        &self,
        id: Id,
        explicit: bool,
        mstride: Option<u32>,
    ) -> LowerResult<(Id, u64)> {
        match self.ty(id)?.clone() {
            SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => {
                if explicit && let Some(s) = self.deco_lit(id, Decoration::ArrayStride) {
                    return Ok((elem, u64::from(s)));
                }
                let (s, a) = self.nat(elem, 0)?;
                Ok((elem, s.div_ceil(a) * a))
            }
            SpvType::Matrix { col, .. } => {
                if let (true, Some(s)) = (explicit, mstride) {
                    return Ok((col, u64::from(s)));
                }
                Ok((col, self.nat(col, 0)?.0))
            }
            SpvType::Vector { elem, .. } => Ok((elem, self.nat(elem, 0)?.0)),
            _ => err(format!("{}: cannot index %{id}", self.at)),
        }
    }

    /// Byte offsets and scalar types of every leaf of `id` laid out at `base`.
    pub(super) fn mem_leaves(
        &self,
        id: Id,
        explicit: bool,
        mstride: Option<u32>,
        base: u64,
        out: &mut Vec<(u64, Leaf)>,
    ) -> LowerResult<()> {
        if out.len() as u64 > MAX_LEAVES {
            return err("memory access too large");
        }
        match self.ty(id)?.clone() {
            SpvType::Scalar(s) => out.push((base, s)),
            SpvType::Pointer {
                repr: PointerRepr::Physical,
                ..
            } => out.push((base, Leaf::Int(64, false))),
            SpvType::Vector { n, .. }
            | SpvType::Matrix { n, .. }
            | SpvType::Array { len: n, .. } => {
                let (elem, stride) = self.elem_stride(id, explicit, mstride)?;
                for i in 0..u64::from(n) {
                    self.mem_leaves(elem, explicit, mstride, base + i * stride, out)?;
                }
            }
            SpvType::Struct { members } => {
                for (i, m) in members.iter().enumerate() {
                    let off = self.member_offset(id, i as u32, explicit)?;
                    let ms = self.member_deco_lit(id, i as u32, Decoration::MatrixStride);
                    if explicit && self.has_member_deco(id, i as u32, Decoration::RowMajor) {
                        return err("row-major matrices in buffers are not supported");
                    }
                    self.mem_leaves(*m, explicit, ms, base + off, out)?;
                }
            }
            _ => {
                return err(format!(
                    "{}: type %{id} cannot be loaded or stored as a whole",
                    self.at
                ));
            }
        }
        Ok(())
    }

    pub(super) fn explicit_size(&self, id: Id) -> LowerResult<u64> {
        let mut v = Vec::new();
        match self.mem_leaves(id, true, None, 0, &mut v) {
            Ok(()) => Ok(v.iter().map(|(o, s)| o + s.bytes()).max().unwrap_or(0)),
            Err(_) => Ok(0),
        }
    }
}
