//! The driver's error type. Each variant maps to one `VkResult` at the FFI edge.

/// A failed driver operation.
///
/// `Validation` carries the VUID (or the spec rule) that the application broke, so that the log
/// line names it; the edge maps it to `VK_ERROR_VALIDATION_FAILED`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The application broke a valid-usage rule.
    #[error("{vuid}: {msg}")]
    Validation { vuid: &'static str, msg: String },
    /// A host allocation failed.
    #[error("out of host memory: {0}")]
    OutOfHostMemory(String),
    /// A device-memory allocation failed or exceeded its heap.
    #[error("out of device memory: {0}")]
    OutOfDeviceMemory(String),
    /// A requested device feature is not supported.
    #[error("feature not present: {0}")]
    FeatureNotPresent(String),
    /// A requested extension is not supported.
    #[error("extension not present: {0}")]
    ExtensionNotPresent(String),
    /// A requested layer is not available (layers belong to the loader).
    #[error("layer not present: {0}")]
    LayerNotPresent(String),
    /// A descriptor pool has no room left (`VK_ERROR_OUT_OF_POOL_MEMORY`).
    #[error("out of pool memory: {0}")]
    OutOfPoolMemory(String),
    /// The requested format/usage combination is not supported.
    #[error("format not supported: {0}")]
    FormatNotSupported(String),
    /// The device hit an internal failure while executing work.
    #[error("device lost: {0}")]
    DeviceLost(String),
    /// Valid usage that Tessera does not implement (yet); names the tracking issue.
    #[error("not supported by Tessera: {0}")]
    NotSupported(String),
}

impl Error {
    /// A valid-usage violation naming its VUID.
    pub fn invalid(vuid: &'static str, msg: impl Into<String>) -> Self {
        Error::Validation {
            vuid,
            msg: msg.into(),
        }
    }
}

/// Result with the driver's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns `Err(Error::Validation)` naming `vuid` unless `cond` holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $vuid:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::Error::invalid($vuid, format!($($fmt)+)));
        }
    };
}
