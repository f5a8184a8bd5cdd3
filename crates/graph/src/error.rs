//! [`GraphError`]: why a graph module could not be read, decoded or run. Every error names the
//! rule it enforces (a Vulkan VUID, a SPIR-V rule, or a TOSA `ERROR_IF`/`REQUIRE` of the
//! operator), so that the creation log and the `tracing` line can say why.

use std::fmt;

/// Why a graph module could not be read, decoded or run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphError {
    /// The rule: a VUID, `SPV_ARM_graph`, `TOSA <OP>: ERROR_IF …`, or `Tessera` for a limit of
    /// this implementation.
    pub rule: String,
    /// What was wrong, with the ids or shapes involved.
    pub message: String,
}

impl GraphError {
    /// An error for `rule` with `message`.
    pub fn new(rule: impl Into<String>, message: impl Into<String>) -> GraphError {
        GraphError {
            rule: rule.into(),
            message: message.into(),
        }
    }

    /// A malformed module (`SPV_ARM_graph` or core SPIR-V structure).
    pub(crate) fn spirv(message: impl Into<String>) -> GraphError {
        GraphError::new("SPIR-V", message)
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for GraphError {}

/// `Result` with a [`GraphError`].
pub type Result<T> = std::result::Result<T, GraphError>;
