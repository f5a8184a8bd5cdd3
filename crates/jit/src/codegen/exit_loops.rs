//! Loops inside a masked region: after an early `return` (a region joined where its lanes
//! finish, `masked::EXIT_JOIN`), `if (row >= rows) return; for (k = 0; k < cols; k++) { … }`
//! runs the loop under the mask of the lanes that did not return, and in a branch whose paths
//! meet again (ggml's mat-vec epilogue, `if (tid == 0) for (j …) for (n …) d[…] = temp[j][n]`)
//! the loops run under the mask of the branch's lanes, instead of handing the chunk to the
//! interpreter.
//!
//! Such a loop ([`ExitLoop`]) is a natural loop with one latch, which lanes leave only at its
//! header's branch (a loop inside it must be one too: the region's walk takes it when it gets
//! there, or refuses the region); the region takes it when the branch's condition is
//! the same for every lane (`Gen::maskable_region` checks the class), so the loop runs as real
//! control flow whose blocks run under the region's mask, and leaves with every lane at once.
//! The back edge polls the watchdog.
//!
//! Invariant: a region with such a loop has no op that may hand back (`Gen::maskable_region`):
//! a hand-back restarts the region at its branch, which must come before every store, and a
//! later iteration comes after the stores of the earlier ones.

use cranelift_codegen::ir::InstBuilder;
use tessera_spirv::ir::loops::{natural_loop, predecessors};
use tessera_spirv::ir::{Edge, Ir, Term};

use super::Gen;
use super::masked::Pass;
use crate::error::{JitError, JitResult};

/// A loop a masked region may run under its mask (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExitLoop {
    /// Whether the header's branch stays in the loop on its true edge.
    pub(crate) stays_on_true: bool,
    /// The block the header's other edge leaves to.
    pub(crate) leaves_to: usize,
}

/// The loop whose header is block `header`, if it has the shape of an [`ExitLoop`]; `ok`
/// says which blocks may run under a mask, `headers` which blocks are loop headers
/// (`back_edge_targets`: most blocks are not, and are refused at once).
pub(crate) fn exit_loop_at(
    ir: &Ir,
    ok: &dyn Fn(usize) -> bool,
    headers: &[bool],
    header: usize,
) -> Option<ExitLoop> {
    if !headers.get(header).copied().unwrap_or(false) {
        return None;
    }
    // Blocks are in structured order: an edge to a block no later is a back edge.
    let latches: Vec<usize> = (header..ir.blocks.len())
        .filter(|&a| {
            ir.blocks[a]
                .term
                .edges()
                .iter()
                .any(|e| e.target as usize == header)
        })
        .collect();
    let [latch] = latches[..] else {
        return None;
    };
    let preds = predecessors(&ir.blocks);
    let body = natural_loop(&preds, header, latch);
    let Term::Branch {
        if_true, if_false, ..
    } = &ir.blocks[header].term
    else {
        return None;
    };
    let (stays_on_true, leaves_to) = match (
        body[if_true.target as usize],
        body[if_false.target as usize],
    ) {
        (true, false) => (true, if_false.target as usize),
        (false, true) => (false, if_true.target as usize),
        _ => return None,
    };
    for (b, _) in body.iter().enumerate().filter(|&(_, &inside)| inside) {
        if !ok(b) {
            return None;
        }
        // No other way out (a loop inside is the walk's to take or refuse when it gets there).
        if b != header
            && ir.blocks[b]
                .term
                .edges()
                .iter()
                .any(|e| !body[e.target as usize])
        {
            return None;
        }
    }
    Some(ExitLoop {
        stays_on_true,
        leaves_to,
    })
}

impl Gen<'_> {
    /// Runs the [`ExitLoop`] `lp` with header `header` under `pass`'s lanes (`lanes`), as
    /// real control flow, and leaves in a new block with its exit edge's copies made; returns
    /// the block the loop leaves to.
    pub(super) fn exit_loop(
        &mut self,
        pass: &Pass<'_>,
        header: usize,
        lp: ExitLoop,
        lanes: cranelift_codegen::ir::Value,
    ) -> JitResult<usize> {
        let ir = self.ir;
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);
        // Sealed once the back edge is in.
        self.b.switch_to_block(head);
        self.mask = Some(super::masked::Masked {
            lanes,
            ..pass.base.clone()
        });
        for (k, op) in ir.blocks[header].ops.iter().enumerate() {
            if let Some(after_loads) = pass.check_only
                && (!super::masked::runs_in_check_pass(op)
                    || after_loads.contains(&(header as u32, k)))
            {
                continue;
            }
            self.at = (header as u32, k);
            self.op(op)?;
        }
        self.at = (header as u32, ir.blocks[header].ops.len());
        let Term::Branch {
            cond,
            if_true,
            if_false,
        } = &ir.blocks[header].term
        else {
            return Err(JitError::Unexpected("a masked loop header with no branch"));
        };
        let (stay, leave): (&Edge, &Edge) = if lp.stays_on_true {
            (if_true, if_false)
        } else {
            (if_false, if_true)
        };
        let go_on = match self.get(*cond) {
            super::values::JVal::Uniform(x) => x,
            super::values::JVal::Const(v) => self
                .b
                .ins()
                .iconst(cranelift_codegen::ir::types::I8, i64::from(v != 0)),
            _ => {
                return Err(JitError::Unexpected(
                    "a masked loop with a varying condition",
                ));
            }
        };
        let (body, out) = (self.b.create_block(), self.b.create_block());
        if lp.stays_on_true {
            self.b.ins().brif(go_on, body, &[], out, &[]);
        } else {
            self.b.ins().brif(go_on, out, &[], body, &[]);
        }
        self.enter_sealed(body);
        self.side(pass, stay, header, lanes)?;
        let again = self.b.create_block();
        self.poll_then(again);
        self.enter_sealed(again);
        self.b.ins().jump(head, &[]);
        self.b.seal_block(head);
        self.enter_sealed(out);
        self.copies(leave)?;
        Ok(lp.leaves_to)
    }
}
