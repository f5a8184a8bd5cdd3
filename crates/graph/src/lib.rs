//! Tessera's Vulkan-agnostic data-graph pipeline (`VK_ARM_data_graph` with
//! `TOSA.001000.1`): no Vulkan types here, so it builds and tests on its own.
//!
//! Stages:
//! 1. [`reader::Module::read`] — SPIR-V words (with `SPV_ARM_graph`) → types, constants,
//!    interface variables, graph entry points and bodies. Never panics on any input.
//! 2. [`decode::decode`] — one entry point + the application's graph constants and
//!    specialization values → a checked [`ir::Graph`]: every TOSA operator from the one list in
//!    [`tosa`], its constant operands decoded, its `ERROR_IF` rules and result type checked
//!    (`kernels::validate`). Everything rejected names its rule ([`error::GraphError`]).
//! 3. [`exec::run`] — runs a graph on host tensors with the reference kernels (`kernels`).
//!
//! Invariants: a [`ir::Graph`] is immutable and checked; running it only reads its inputs and
//! writes fresh outputs; no input makes any stage panic or index out of bounds.

pub mod decode;
pub mod dtype;
pub mod error;
pub mod exec;
pub mod gemm;
pub mod ir;
pub mod kernels;
pub mod npy;
pub mod plan;
pub mod reader;
pub mod tosa;

/// A small SPIR-V graph-module assembler, for tests (this crate's and the end-to-end tests');
/// not part of the API.
#[doc(hidden)]
pub mod testing;

pub use decode::{Inputs, decode};
pub use dtype::DType;
pub use error::GraphError;
pub use exec::{Tensor, run};
pub use ir::Graph;
pub use reader::Module;

/// Reads `words` and decodes entry point `entry` (stages 1 and 2).
pub fn compile(words: &[u32], entry: &str, inputs: &Inputs) -> error::Result<Graph> {
    decode(&Module::read(words)?, entry, inputs)
}

#[cfg(test)]
mod tests;
