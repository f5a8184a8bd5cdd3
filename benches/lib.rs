//! Criterion benchmarks for the Tessera Vulkan ICD.
//!
//! This library target is intentionally empty: cargo needs one non-bench
//! target per package. The benchmarks live in `submit.rs` and are run with
//! `cargo bench -p tessera-benches` after `cargo build --release -p tessera-icd`.
