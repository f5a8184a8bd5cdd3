//! The implementations of the commands, one file per object family. `cargo xtask gen` finds each
//! by its name (`vkCmdCopyTensorARM` → `cmd_copy_tensor_arm`) and writes its `extern "system"`
//! entry point ([`crate::generated::entrypoints`]), which converts the arguments it can (handles
//! to runtime objects, structs and arrays to owned mirrors, with the implicit checks) and passes
//! the rest (output pointers, arrays the spec lets hold anything) as they are. An implementation
//! calls the runtime, which holds every rule, and writes its results through [`crate::conv`].
//!
//! # Safety
//! The `unsafe fn`s here take the application's output pointers; their contract is the Vulkan
//! spec's: those pointers must be valid as the spec's "valid usage (implicit)" rules say.

pub mod buffer;
pub mod command;
pub mod cooperative;
pub mod data_graph;
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
