//! Cooperative vectors and matrices, Vulkan-agnostic: the component types
//! (`VkComponentTypeKHR`), narrow floats, the matrix layouts of `VK_NV_cooperative_vector` and
//! their conversion, and the arithmetic of `OpCooperativeVectorMatrixMulNV`: a reference that
//! the interpreter runs and SIMD kernels that compiled shaders call.
//!
//! The crate knows nothing of SPIR-V or Vulkan objects: the runtime validates and converts
//! matrices with it, the SPIR-V interpreter and the JIT run its kernels on register rows.

pub mod batch;
pub mod component;
pub mod convert;
pub mod float;
pub mod layout;
pub mod matrix;
pub mod product;
pub mod vector;

pub use component::ComponentType;
pub use convert::{ConvertError, check, convert};
pub use layout::{Matrix, MatrixLayout, Number};
pub use vector::MatVec;
