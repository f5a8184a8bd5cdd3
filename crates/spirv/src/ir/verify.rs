//! [`Ir::verify`]: the IR invariants the backends index by, checked once at pipeline creation so
//! that a lowering bug is an error there instead of a wrong access at dispatch.

use super::typing::{Want, operand_types};
use super::{Ir, Op, Reg, RegType, Role, Term};
use crate::SpirvError;

fn invalid(what: String) -> SpirvError {
    SpirvError::new(format!("internal error: invalid IR: {what}"))
}

/// The register operands of `op` paired with what each must be, in walker order.
pub(crate) fn typed_operands(op: &Op) -> Result<Vec<(Reg, Role, Want)>, String> {
    let (reads, writes) = operand_types(op);
    let mut regs = Vec::new();
    op.for_each_reg(&mut |r, role| regs.push((r, role)));
    let n_reads = regs.iter().filter(|(_, role)| *role == Role::Use).count();
    if n_reads != reads.len() || regs.len() - n_reads != writes.len() {
        return Err(format!(
            "the typing table does not match the operands of {} ({} reads, {} writes)",
            op.name(),
            reads.len(),
            writes.len()
        ));
    }
    let mut wants = reads.into_iter().chain(writes);
    Ok(regs
        .into_iter()
        .map(|(r, role)| (r, role, wants.next().unwrap_or(Want::Any)))
        .collect())
}

impl Ir {
    /// Checks the invariants listed in the module docs: every register in range and of the type
    /// its op needs (`typing`), every edge target an existing block, constants, variables and
    /// built-ins in range.
    pub(crate) fn verify(&self) -> Result<(), SpirvError> {
        let n = self.nregs();
        if self.blocks.is_empty() {
            return Err(invalid("no blocks".into()));
        }
        let types: Vec<Option<RegType>> = self.reg_types.iter().copied().map(Some).collect();
        let check = |r: Reg, want: Want, at: &dyn Fn() -> String| -> Result<(), SpirvError> {
            let Some(&ty) = self.reg_types.get(r as usize) else {
                return Err(invalid(format!(
                    "register %{r} out of range ({n} registers) in {}",
                    at()
                )));
            };
            if want.accepts(ty, &types) {
                Ok(())
            } else {
                Err(invalid(format!(
                    "register %{r} has type {ty}, which {} cannot take ({want:?})",
                    at()
                )))
            }
        };
        for (i, b) in self.blocks.iter().enumerate() {
            for op in &b.ops {
                let at = || format!("block{i}: {}", self.op_text(op));
                for (r, _, want) in typed_operands(op).map_err(invalid)? {
                    check(r, want, &at)?;
                }
                if let Op::LoadVar { var, .. } | Op::StoreVar { var, .. } = op {
                    let end = var.base.checked_add(var.len);
                    if var.len == 0 || end.is_none_or(|end| end > n) {
                        return Err(invalid(format!("variable out of range in {}", at())));
                    }
                    let first = self.reg_types[var.base as usize].bytes();
                    if (var.base..var.base + var.len)
                        .any(|r| self.reg_types[r as usize].bytes() != first)
                    {
                        return Err(invalid(format!("variable of mixed widths in {}", at())));
                    }
                }
            }
            let at = || format!("the terminator of block{i}");
            match &b.term {
                Term::Branch { cond, .. } => check(*cond, Want::Bool, &at)?,
                Term::Switch {
                    selector,
                    cases,
                    edges,
                } => {
                    check(*selector, Want::AnyInt, &at)?;
                    if edges.is_empty() || cases.iter().any(|(_, e)| *e >= edges.len()) {
                        return Err(invalid(format!("malformed switch in block{i}")));
                    }
                }
                Term::Jump(_) | Term::Exit => {}
            }
            for e in b.term.edges() {
                if e.target as usize >= self.blocks.len() {
                    return Err(invalid(format!(
                        "edge from block{i} to missing block{}",
                        e.target
                    )));
                }
                let at = || format!("an edge copy of block{i}");
                for &(dst, src) in &e.moves {
                    check(src, Want::Any, &at)?;
                    check(dst, Want::SameAs(src), &at)?;
                }
            }
        }
        for (base, len) in self.builtins.ranges() {
            for r in base..base.saturating_add(len) {
                check(r, Want::Int(32), &|| "a built-in".to_string())?;
            }
        }
        for &(r, _) in &self.consts {
            check(r, Want::Any, &|| "a constant".to_string())?;
        }
        Ok(())
    }

    /// One op's text form (for messages).
    pub(crate) fn op_text(&self, op: &Op) -> String {
        let mut s = String::new();
        let _ = op.print(&mut s, &super::print::Names::new(self));
        s
    }
}
