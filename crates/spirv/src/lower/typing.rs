//! Register types for the lowered IR. Lowering allocates registers without a type where the op
//! that defines them states it; [`finish`] then gives every register its type from the one
//! typing table (`ir::typing`):
//! - a register defined by an op takes the op's result type (already at `emit`);
//! - a copy (`Mov`, an edge move, `Select`, `Pick`) takes its source's type, or its source the
//!   copy's, until nothing changes;
//! - a constant takes the type its uses ask for; a constant used at several widths is split into
//!   one constant register per width, and each use is pointed at the right one.
//!
//! Invariant established: every register has a type that every use and definition accepts, or
//! lowering fails with an internal error naming the op (then `Ir::verify` would fail too).

use crate::SpirvError;
use crate::ir::typing::Want;
use crate::ir::verify::typed_operands;
use crate::ir::{Block, Reg, RegType, Role};
use std::collections::HashMap;

/// Types every register of `blocks` (`types[r]` is `Some` for those typed at allocation or
/// `emit`); constant registers may be split (new registers are appended and `consts` grows).
pub(super) fn finish(
    blocks: &mut [Block],
    types: &mut Vec<Option<RegType>>,
    consts: &mut Vec<(Reg, u64)>,
) -> Result<Vec<RegType>, SpirvError> {
    let is_const: Vec<bool> = {
        let mut v = vec![false; types.len()];
        for &(r, _) in consts.iter() {
            if let Some(c) = v.get_mut(r as usize) {
                *c = true;
            }
        }
        v
    };
    propagate(blocks, types, &is_const)?;
    type_constants(blocks, types, consts, &is_const)?;
    let none_constant = vec![false; types.len()];
    propagate(blocks, types, &none_constant)?;
    let mut out = Vec::with_capacity(types.len());
    for (r, t) in types.iter().enumerate() {
        match t {
            Some(t) => out.push(*t),
            // A register nothing defines or reads with a type (an unused variable leaf, say):
            // any width is right; 32 bits is the common case.
            None => out.push(RegType::Int(32)),
        }
        let _ = r;
    }
    Ok(out)
}

/// Types untyped non-constant registers from their definitions and uses until nothing changes.
fn propagate(
    blocks: &[Block],
    types: &mut [Option<RegType>],
    is_const: &[bool],
) -> Result<(), SpirvError> {
    let free = |r: Reg, types: &[Option<RegType>]| {
        types.get(r as usize).is_some_and(|t| t.is_none())
            && !is_const.get(r as usize).copied().unwrap_or(false)
    };
    for _ in 0..64 {
        let mut changed = false;
        for b in blocks {
            for op in &b.ops {
                for (r, _, want) in typed_operands(op).map_err(SpirvError::new)? {
                    if free(r, types) {
                        if let Some(t) = want.default_type(types) {
                            types[r as usize] = Some(t);
                            changed = true;
                        }
                    } else if let (Want::SameAs(other), Some(t)) =
                        (want, types.get(r as usize).copied().flatten())
                        && free(other, types)
                    {
                        types[other as usize] = Some(t);
                        changed = true;
                    }
                }
            }
            for e in b.term.edges() {
                for &(d, s) in &e.moves {
                    let (td, ts) = (types[d as usize], types[s as usize]);
                    if td.is_none() && ts.is_some() && free(d, types) {
                        types[d as usize] = ts;
                        changed = true;
                    } else if ts.is_none() && td.is_some() && free(s, types) {
                        types[s as usize] = td;
                        changed = true;
                    }
                }
            }
            if let Some(c) = b.term.condition()
                && free(c, types)
            {
                types[c as usize] = Some(match b.term {
                    crate::ir::Term::Branch { .. } => RegType::Bool,
                    _ => RegType::Int(32),
                });
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
    }
    Ok(())
}

/// Gives each constant the type its uses want, splitting it per width.
fn type_constants(
    blocks: &mut [Block],
    types: &mut Vec<Option<RegType>>,
    consts: &mut Vec<(Reg, u64)>,
    is_const: &[bool],
) -> Result<(), SpirvError> {
    let value: HashMap<Reg, u64> = consts.iter().copied().collect();
    // (constant, type) → register holding it with that type.
    let mut at_width: HashMap<(Reg, RegType), Reg> = HashMap::new();
    let mut fresh: Vec<(Reg, u64)> = Vec::new();
    let mut place = |c: Reg, t: RegType, types: &mut Vec<Option<RegType>>| -> Reg {
        let key = (c, t);
        if let Some(&r) = at_width.get(&key) {
            return r;
        }
        let r = if types[c as usize].is_none() {
            types[c as usize] = Some(t);
            c
        } else if types[c as usize] == Some(t) {
            c
        } else {
            let r = types.len() as Reg;
            types.push(Some(t));
            fresh.push((r, value.get(&c).copied().unwrap_or(0)));
            r
        };
        at_width.insert(key, r);
        r
    };
    let constant = |r: Reg| is_const.get(r as usize).copied().unwrap_or(false);
    for b in blocks.iter_mut() {
        for op in &mut b.ops {
            let wants = typed_operands(op).map_err(SpirvError::new)?;
            let mut k = 0;
            op.visit_regs(&mut |r, role| {
                let want = wants.get(k).map_or(Want::Any, |w| w.2);
                k += 1;
                if role == Role::Use && constant(*r) {
                    let t = match want {
                        Want::AnyInt => any_int(value.get(r).copied().unwrap_or(0)),
                        _ => want.default_type(types).unwrap_or(RegType::Int(32)),
                    };
                    *r = place(*r, t, types);
                }
            });
        }
        let cond = b.term.condition();
        let branch = matches!(b.term, crate::ir::Term::Branch { .. });
        for e in term_edges_mut(&mut b.term) {
            for (d, s) in e.moves.iter_mut() {
                if constant(*s) {
                    let t = types[*d as usize].unwrap_or(RegType::Int(32));
                    *s = place(*s, t, types);
                }
            }
        }
        if let Some(c) = cond
            && constant(c)
        {
            let t = if branch {
                RegType::Bool
            } else {
                any_int(value.get(&c).copied().unwrap_or(0))
            };
            let r = place(c, t, types);
            set_condition(&mut b.term, r);
        }
    }
    consts.extend(fresh);
    Ok(())
}

/// The type of a constant used where any integer width will do (a shift amount, an index, a
/// selector): 32 bits, or 64 where its value needs them. Constants are kept as raw bits at the
/// width of their SPIR-V type, so a value above `u32::MAX` came from a 64-bit constant, and a
/// 32-bit register would cut it (`x >> 0x8000_0000_0000_0001` would shift by 1).
fn any_int(value: u64) -> RegType {
    if value > u64::from(u32::MAX) {
        RegType::Int(64)
    } else {
        RegType::Int(32)
    }
}

fn term_edges_mut(t: &mut crate::ir::Term) -> Vec<&mut crate::ir::Edge> {
    use crate::ir::Term;
    match t {
        Term::Jump(e) => vec![e],
        Term::Branch {
            if_true, if_false, ..
        } => vec![if_true, if_false],
        Term::Switch { edges, .. } => edges.iter_mut().collect(),
        Term::Exit => Vec::new(),
    }
}

fn set_condition(t: &mut crate::ir::Term, r: Reg) {
    use crate::ir::Term;
    match t {
        Term::Branch { cond, .. } => *cond = r,
        Term::Switch { selector, .. } => *selector = r,
        Term::Jump(_) | Term::Exit => {}
    }
}
