//! Entry points, one file per object family. Each function has the C name and signature of its
//! Vulkan command (checked against the `vulkan-headers` PFN type by [`crate::dispatch`]), reads and
//! validates its arguments through [`crate::conv`], calls the runtime and writes its results.
//!
//! # Safety
//! Every entry point is an `unsafe extern "system" fn` whose contract is the Vulkan spec's: the
//! pointers it receives must be valid as the spec's "valid usage (implicit)" rules say. Beyond
//! that contract, bad values (null where not allowed, wrong `sType`, stale handles, out-of-range
//! numbers) are reported as errors.

#![allow(non_snake_case)]

pub mod buffer;
pub mod command;
pub mod descriptor;
pub mod device;
pub mod instance;
pub mod memory;
pub mod physical_device;
pub mod pipeline;
pub mod query;
pub mod queue;
pub mod sampler;
pub mod sync;
pub mod tensor;
pub mod unsupported;
