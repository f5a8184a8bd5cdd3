//! Vulkan-agnostic strided tensor copies: the engine behind `vkCmdCopyTensorARM`.
//!
//! A tensor is an n-dimensional array of `elem_size`-byte elements with
//! extents `dims` (outermost first) and byte strides; the element at
//! `coord` lives at `base + Σ coord[i]·strides[i]`. A copy moves every element
//! from a source layout to a destination layout, bit-exact.
//!
//! The crate is split in three layers:
//!
//! * [`CopyPlan::new`] (module `plan`, safe code) validates the layouts,
//!   normalises them (drops size-1 dimensions, orders dimensions by
//!   destination stride, merges dimensions contiguous on both sides) and picks
//!   a kernel ([`KernelKind`]) once, including run-time CPU feature detection.
//! * `kernels` (the only module with scalar `unsafe` code) executes a plan:
//!   an odometer over the outer dimensions around a monomorphised inner
//!   kernel, optionally split across threads for large copies.
//! * `simd` holds the architecture-specific kernels; each has a scalar twin
//!   in `kernels` that the tests compare against.
//!
//! [`reference_copy`] is the obviously-correct scalar oracle that the tests
//! compare every kernel with.
//!
//! Invariants relied upon by the unsafe code: a plan only exists for layouts
//! whose destination elements never share a byte (checked in
//! [`CopyPlan::new`]), and whose extents fit in `isize`.

#![cfg_attr(not(test), warn(missing_docs))]

mod error;
mod kernels;
mod plan;
mod reference;
mod simd;

#[cfg(test)]
mod tests;

pub use error::PlanError;
pub use plan::{CopyPlan, KernelKind, PlanOptions};
pub use reference::reference_copy;

/// Largest supported tensor rank.
pub const MAX_RANK: usize = 16;
