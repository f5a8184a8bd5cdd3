//! Command pools, command buffers and the commands they record.
//!
//! Recording is dumb: each `vkCmd*` validates its arguments and appends one [`Command`] holding
//! `Arc` clones of the objects it uses. The first invalid command sets a sticky error that
//! `vkEndCommandBuffer` returns (Vulkan's `vkCmd*` return nothing). `vkEndCommandBuffer` freezes
//! the list into an immutable [`Recording`] that submissions share.

pub mod buffer;
pub mod command;
pub mod pool;
pub mod record;

pub use buffer::{CommandBuffer, Level, Recording, State, UsageFlags};
pub use command::{BufferCopy, Command, ComputeState, DispatchState, TensorCopy};
pub use pool::CommandPool;
pub use record::{Recorder, check_update_size};
