//! The IR's text form, for snapshots (`expected.ir` beside every `spirv-tests` case) and
//! debugging. One line per op, `%dst:type = name key=value …` with fields in the op list's
//! order; registers are `%N`, blocks `blockN`. The format is stable: a change shows up as a
//! snapshot diff, which is the point.

use super::{DescIdx, Edge, Ir, MemRef, Reg, Space, TensorAcc, Term, Var};
use std::fmt::Write as _;

/// Register naming with the IR's register types.
pub(crate) struct Names<'a> {
    ir: &'a Ir,
}

impl<'a> Names<'a> {
    pub(crate) fn new(ir: &'a Ir) -> Names<'a> {
        Names { ir }
    }

    pub(crate) fn name(&self, r: Reg) -> String {
        format!("%{r}")
    }

    pub(crate) fn names(&self, regs: &[Reg]) -> String {
        regs.iter()
            .map(|&r| self.name(r))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `%d:type` for each def.
    pub(crate) fn typed_names(&self, regs: &[Reg]) -> String {
        regs.iter()
            .map(|&r| match self.ir.reg_types.get(r as usize) {
                Some(t) => format!("%{r}:{t}"),
                None => format!("%{r}:?"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn var(&self, v: Var) -> String {
        format!("%{}..%{}", v.base, v.base.saturating_add(v.len))
    }

    pub(crate) fn desc(&self, d: DescIdx) -> String {
        match d {
            DescIdx::Const(c) => format!("{c}"),
            DescIdx::Dyn(r) => self.name(r),
        }
    }

    pub(crate) fn space(&self, s: Space) -> String {
        match s {
            Space::Buffer { slot, desc } => {
                format!("buffer(slot {slot}, desc {})", self.desc(desc))
            }
            Space::Push => "push".into(),
            Space::Shared => "shared".into(),
            Space::Physical => "physical".into(),
        }
    }

    pub(crate) fn mem(&self, m: MemRef) -> String {
        match m.addr {
            Some(r) => format!("{}[{} + {}]", self.space(m.space), self.name(r), m.offset),
            None => format!("{}[{}]", self.space(m.space), m.offset),
        }
    }

    pub(crate) fn tensor(&self, t: &TensorAcc) -> String {
        let mut s = format!(
            "tensor(slot {}, desc {}, {:?}, rank {}",
            t.slot,
            self.desc(t.desc),
            t.elem,
            t.rank
        );
        if let Some(shape) = t.shape {
            let _ = write!(s, ", shape {shape}");
        }
        s.push(')');
        s
    }

    fn edge(&self, e: &Edge) -> String {
        let mut s = format!("block{}", e.target);
        if !e.moves.is_empty() {
            let moves: Vec<String> = e
                .moves
                .iter()
                .map(|&(d, a)| format!("{} <- {}", self.name(d), self.name(a)))
                .collect();
            let _ = write!(s, " ({})", moves.join(", "));
        }
        s
    }
}

/// The whole IR as text.
pub(crate) fn ir(ir: &Ir) -> String {
    let names = Names::new(ir);
    let mut out = String::new();
    let _ = write(ir, &names, &mut out);
    out
}

fn write(ir: &Ir, names: &Names<'_>, out: &mut String) -> std::fmt::Result {
    writeln!(
        out,
        "; {} registers, {} blocks, {} bytes of shared memory{}",
        ir.nregs(),
        ir.blocks.len(),
        ir.shared_size,
        if ir.needs_whole_group {
            ", whole workgroups"
        } else {
            ""
        }
    )?;
    let b = &ir.builtins;
    for (name, reg, len) in [
        ("global_id", b.global_id, 3),
        ("local_id", b.local_id, 3),
        ("workgroup_id", b.workgroup_id, 3),
        ("num_workgroups", b.num_workgroups, 3),
        ("local_index", b.local_index, 1),
    ] {
        if let Some(r) = reg {
            if len == 1 {
                writeln!(out, "builtin {name} = %{r}")?;
            } else {
                writeln!(out, "builtin {name} = %{r}..%{}", r + len)?;
            }
        }
    }
    for (i, shape) in ir.shapes.iter().enumerate() {
        writeln!(out, "shape {i} = {shape:?}")?;
    }
    for &(r, v) in &ir.consts {
        writeln!(out, "const {} = {v:#x}", names.typed_names(&[r]))?;
    }
    for (i, block) in ir.blocks.iter().enumerate() {
        write!(out, "block{i}:")?;
        if !block.order_succ.is_empty() {
            let succ: Vec<String> = block
                .order_succ
                .iter()
                .map(|s| format!("block{s}"))
                .collect();
            write!(out, " ; ordered before {}", succ.join(", "))?;
        }
        writeln!(out)?;
        for op in &block.ops {
            out.push_str("  ");
            op.print(out, names)?;
            out.push('\n');
        }
        match &block.term {
            Term::Exit => writeln!(out, "  exit")?,
            Term::Jump(e) => writeln!(out, "  jump {}", names.edge(e))?,
            Term::Branch {
                cond,
                if_true,
                if_false,
            } => writeln!(
                out,
                "  branch {} ? {} : {}",
                names.name(*cond),
                names.edge(if_true),
                names.edge(if_false)
            )?,
            Term::Switch {
                selector,
                cases,
                edges,
            } => {
                write!(
                    out,
                    "  switch {} default {}",
                    names.name(*selector),
                    names.edge(&edges[0])
                )?;
                for (value, e) in cases {
                    if let Some(edge) = edges.get(*e) {
                        write!(out, ", {value:#x} => {}", names.edge(edge))?;
                    }
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}
