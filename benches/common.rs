//! What the Vulkan benchmarks (`shaders`, `pipelines`) share: the benchmark id of the driver
//! being measured and the workload selection, both from the environment.
//!
//! - `TESSERA_BENCH_ICD`: another ICD manifest to measure instead of Tessera (see
//!   `tessera_e2e::bench`).
//! - `TESSERA_SHADER_BACKEND`: Tessera's shader backend (`interp`, `jit` or `auto`, the
//!   default), read by the driver at pipeline creation; here it only names the results.
//! - `TESSERA_BENCH_WORKLOADS`: a comma-separated list of workload names (as in [`selected`]);
//!   unset or empty = all.
//! - `TESSERA_BENCH_REFERENCE=0`: skip the host references (plain Rust) of `shaders`.

/// The name of the driver being measured, which the benches' criterion function ids start with,
/// so that criterion compares runs of the same driver and backend only and
/// `cargo xtask bench-compare` finds each run's results: `tessera_<backend>` for Tessera
/// (backend from `TESSERA_SHADER_BACKEND`, default `auto`), `bench_icd` for a driver named by
/// `TESSERA_BENCH_ICD`.
pub fn driver_label() -> String {
    if std::env::var_os("TESSERA_BENCH_ICD").is_some() {
        return "bench_icd".into();
    }
    let backend = std::env::var("TESSERA_SHADER_BACKEND")
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "auto".into());
    let clean: String = backend
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("tessera_{clean}")
}

/// Whether workload `name` is selected by `TESSERA_BENCH_WORKLOADS` (a comma-separated list of
/// names; unset or empty selects every workload).
pub fn selected(name: &str) -> bool {
    match std::env::var("TESSERA_BENCH_WORKLOADS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|w| w.trim() == name),
        _ => true,
    }
}

/// Whether the plain-Rust host references run (`TESSERA_BENCH_REFERENCE` is not `0`).
#[allow(dead_code)] // `pipelines` has no host reference.
pub fn references_enabled() -> bool {
    std::env::var("TESSERA_BENCH_REFERENCE").map_or(true, |v| v != "0")
}
