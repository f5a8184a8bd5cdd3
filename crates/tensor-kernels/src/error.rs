//! [`PlanError`]: why a copy could not be planned or executed.
//!
//! Every variant carries enough context for a driver log line; none of them
//! is recoverable by retrying with the same arguments.

use std::fmt;

/// Why [`CopyPlan::new`](crate::CopyPlan::new) or
/// [`CopyPlan::execute`](crate::CopyPlan::execute) rejected a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// `dims` is empty.
    RankZero,
    /// More dimensions than [`MAX_RANK`](crate::MAX_RANK).
    RankTooLarge {
        /// The requested rank.
        rank: usize,
    },
    /// `dims`, `src_strides` and `dst_strides` do not have the same length.
    LengthMismatch {
        /// `dims.len()`.
        dims: usize,
        /// `src_strides.len()`.
        src_strides: usize,
        /// `dst_strides.len()`.
        dst_strides: usize,
    },
    /// `elem_size` is not a power of two in `1..=16`.
    BadElemSize(usize),
    /// A dimension has extent 0.
    ZeroDim {
        /// Index (outermost first) of the offending dimension.
        index: usize,
    },
    /// The payload size or a layout's byte extent does not fit in `isize`.
    Overflow,
    /// Two destination elements would share at least one byte.
    DstOverlap,
    /// The source slice is shorter than [`CopyPlan::src_extent`](crate::CopyPlan::src_extent).
    SrcTooSmall {
        /// Bytes the plan reads.
        needed: u64,
        /// Bytes available.
        len: usize,
    },
    /// The destination slice is shorter than [`CopyPlan::dst_extent`](crate::CopyPlan::dst_extent).
    DstTooSmall {
        /// Bytes the plan writes.
        needed: u64,
        /// Bytes available.
        len: usize,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RankZero => write!(f, "tensor copy of rank 0"),
            Self::RankTooLarge { rank } => {
                write!(
                    f,
                    "tensor rank {rank} exceeds the maximum {}",
                    crate::MAX_RANK
                )
            }
            Self::LengthMismatch {
                dims,
                src_strides,
                dst_strides,
            } => write!(
                f,
                "mismatched lengths: {dims} dims, {src_strides} src strides, {dst_strides} dst strides"
            ),
            Self::BadElemSize(e) => {
                write!(f, "element size {e} is not a power of two in 1..=16")
            }
            Self::ZeroDim { index } => write!(f, "dimension {index} has extent 0"),
            Self::Overflow => write!(f, "tensor size or byte extent overflows"),
            Self::DstOverlap => write!(f, "destination elements overlap each other"),
            Self::SrcTooSmall { needed, len } => {
                write!(f, "source holds {len} bytes, copy reads {needed}")
            }
            Self::DstTooSmall { needed, len } => {
                write!(f, "destination holds {len} bytes, copy writes {needed}")
            }
        }
    }
}

impl std::error::Error for PlanError {}
