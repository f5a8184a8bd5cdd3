//! Test statuses: the `qpTestResult` names deqp writes into its `.qpa` log, plus the runner's own
//! `Skip` (listed in `skips.txt`, never run).

use std::fmt;

/// The outcome of one CTS case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// The case ran and passed.
    Pass,
    /// The case ran and failed.
    Fail,
    /// The driver lacks a feature, extension or format the case needs.
    NotSupported,
    /// Passed, with a quality remark (e.g. precision).
    QualityWarning,
    /// Passed, with a compatibility remark.
    CompatibilityWarning,
    /// The case hit an error inside the CTS itself.
    InternalError,
    /// The case ran out of some resource (usually memory).
    ResourceError,
    /// The device was lost (`VK_ERROR_DEVICE_LOST`).
    DeviceLost,
    /// The failure is waived by Khronos for this implementation.
    Waiver,
    /// The process died (signal, abort, abnormal exit) while the case was running.
    Crash,
    /// The case made no progress for longer than the timeout and was killed.
    Timeout,
    /// Listed in `skips.txt`: never run.
    Skip,
}

impl Status {
    /// Every status, in the order tables list them.
    pub const ALL: [Status; 12] = [
        Status::Pass,
        Status::Fail,
        Status::NotSupported,
        Status::QualityWarning,
        Status::CompatibilityWarning,
        Status::InternalError,
        Status::ResourceError,
        Status::DeviceLost,
        Status::Waiver,
        Status::Crash,
        Status::Timeout,
        Status::Skip,
    ];

    /// The name deqp uses in `StatusCode="…"` and `#terminateTestCaseResult …`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "Pass",
            Status::Fail => "Fail",
            Status::NotSupported => "NotSupported",
            Status::QualityWarning => "QualityWarning",
            Status::CompatibilityWarning => "CompatibilityWarning",
            Status::InternalError => "InternalError",
            Status::ResourceError => "ResourceError",
            Status::DeviceLost => "DeviceLost",
            Status::Waiver => "Waiver",
            Status::Crash => "Crash",
            Status::Timeout => "Timeout",
            Status::Skip => "Skip",
        }
    }

    /// Parses a deqp status name (exact spelling, as in the `.qpa` log and `fails.txt`).
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// True for results that never need a baseline entry: `Pass`, `NotSupported`, `Waiver`
    /// (a Khronos-granted waiver) and `Skip` (the runner did not run the case on purpose).
    pub fn is_ok(self) -> bool {
        matches!(
            self,
            Status::Pass | Status::NotSupported | Status::Waiver | Status::Skip
        )
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for st in Status::ALL {
            assert_eq!(Status::parse(st.as_str()), Some(st));
        }
        assert_eq!(Status::parse("pass"), None);
        assert_eq!(Status::parse("Pending"), None);
    }

    #[test]
    fn ok_statuses() {
        assert!(Status::Pass.is_ok());
        assert!(Status::NotSupported.is_ok());
        assert!(Status::Skip.is_ok());
        assert!(!Status::Fail.is_ok());
        assert!(!Status::QualityWarning.is_ok());
        assert!(!Status::Crash.is_ok());
    }
}
