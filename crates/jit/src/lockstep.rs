//! Which programs compiled code cannot run exactly as the interpreter does ([`lockstep_reason`]).
//!
//! Compiled code runs a lane group in chunks of 16 lanes, half a subgroup: a chunk runs ahead
//! of its subgroup's other lanes up to the next sync op. The lowering puts a meeting point
//! (`Op::Converge`) wherever that could show in memory (`tessera_spirv::converge`), so every
//! program it lowers runs compiled; a program built otherwise with such accesses runs its lane
//! groups on the interpreter in lockstep.

use tessera_spirv::ir::Ir;

/// Why compiled code cannot run `ir` exactly as the interpreter does, if it cannot (see the
/// module docs).
pub fn lockstep_reason(ir: &Ir) -> Option<&'static str> {
    tessera_spirv::converge::conflict(&ir.blocks).then_some(
        "subgroup operations with memory accessed twice between sync ops, once to write \
         (subgroup lockstep)",
    )
}
