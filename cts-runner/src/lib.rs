//! # tessera-cts-runner
//!
//! Runs Vulkan CTS cases from an external, separately built `deqp-vk` (VK-GL-CTS, pinned in
//! `cts-runner/cts-revision.txt`) against Tessera, and compares the results with the committed
//! Mesa-style baseline in `cts-runner/expectations/`. The design follows SwiftShader's `regres`
//! and Mesa's `deqp-runner`:
//!
//! 1. build the release ICD and point the loader at Tessera's manifest only
//!    (`VK_ICD_FILENAMES`/`VK_DRIVER_FILES`, implicit layers disabled);
//! 2. ask `deqp-vk` for its case list ([`caselist`]) and select cases by glob ([`glob`]);
//! 3. run the cases in batches, several `deqp-vk` processes at once ([`exec`]); each process
//!    logs to a `.qpa` file ([`qpa`]); a crash or a hang (watchdog on log progress) costs only
//!    the case that was running, and the rest of the batch runs in a fresh process;
//! 4. re-run regressions to tell flakes from real failures, compare with `fails.txt`,
//!    `flakes.txt`, `skips.txt` and `amber.txt` ([`baseline`]);
//! 5. write `results.csv`, `junit.xml` and `summary.txt` ([`report`]) and exit 1 on regressions.
//!
//! The runner never builds or ships CTS code. Its integration tests drive it against a fake
//! `deqp-vk` (`tests/fake/deqp_vk.rs`) whose cases behave as their names say.

pub mod baseline;
pub mod caselist;
pub mod cli;
pub mod exec;
pub mod glob;
pub mod qpa;
pub mod report;
pub mod run;
pub mod status;
