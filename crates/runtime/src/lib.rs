//! Tessera's safe driver core.
//!
//! This crate owns every driver object (device, queues, memory, buffers, command pools and buffers,
//! fences, semaphores, events, query pools, private data) and everything they do: validation of the
//! rules the Vulkan spec gives for them, command recording into a flat [`cmd::Command`] list, the
//! queue worker threads and the executor that replays recorded commands.
//!
//! It knows nothing about the C ABI: the `tessera-icd` crate converts raw Vulkan structs into the
//! owned values used here and maps [`Error`] back to `VkResult`. Apart from [`memory`], which owns the
//! host allocation behind a `VkDeviceMemory` (the application maps it, so it is shared with foreign
//! code), the crate is safe Rust.
//!
//! Invariants:
//! - Objects are shared as `Arc`s; recorded commands hold their own clones, so an object the
//!   application destroys early stays alive until the work that uses it has finished.
//! - Every check that can fail at execution time is done at record or submit time; the executor
//!   re-checks memory ranges and never touches memory outside an allocation.

pub mod buffer;
pub mod cmd;
pub mod cooperative;
pub mod data_graph;
pub mod deferred;
pub mod descriptor;
pub mod device;
pub mod error;
pub mod exec;
pub mod format;
pub mod instance;
pub mod limits;
pub mod memory;
pub mod physical_device;
pub mod pipeline;
pub mod pipeline_cache;
pub mod private_data;
pub mod query;
pub mod queue;
pub mod sampler;
pub mod shader;
pub mod sync;
pub mod tensor;
pub mod unsupported;
pub mod vk;

pub use error::{Error, Result};
