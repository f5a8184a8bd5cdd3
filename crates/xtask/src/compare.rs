//! `cargo xtask bench-compare`: the Vulkan benchmarks on Tessera and on lavapipe with Arm's tensor
//! emulation layer, one after the other in one command, and their ratios.
//!
//! Criterion keeps each benchmark's estimate in `target/criterion/<group>/<function>/new/
//! estimates.json`; this reads the mean of each after each run (the tensor-copy benchmarks use the
//! same names on both drivers, so they are read before the next run overwrites them).
//!
//! - Shaders (`benches/shaders.rs`): Tessera's time divided by lavapipe's (lower is better).
//! - Tensor copies (`benches/tensor_vulkan.rs`): each driver's copy throughput divided by a plain
//!   `memcpy` of the same bytes measured in the same run, so the two drivers' runs compare even if
//!   the machine's speed drifts between them.
//!
//! Only the tensor layer sits on lavapipe: with `VK_LAYER_ML_Graph_Emulation` stacked on top as
//! well, the graph layer's `vkCreateDevice` fails on Debian's loader (it does not see the tensor
//! layer's `VK_ARM_tensors`), and these benchmarks need no graph.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::{cargo, root, run, setup, setup_python};

/// Debian's lavapipe manifest (package `mesa-vulkan-drivers`).
pub(crate) const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

const SHADERS: &[&str] = &[
    "shader_tensor_add",
    "shader_row_sum",
    "shader_transpose",
    "shader_tiny_groups",
];
const COPIES: &[&str] = &[
    "tensor_packed_64MiB",
    "tensor_padded_rank4",
    "tensor_rows_1B",
    "tensor_rows_2B",
    "tensor_rows_4B",
    "tensor_rows_16B",
    "tensor_rows_64B",
];

/// The mean time in ns of criterion benchmark `group/function`, if it ran.
fn mean_ns(group: &str, function: &str) -> Option<f64> {
    let path = root()
        .join("target/criterion")
        .join(group)
        .join(function)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("mean")?.get("point_estimate")?.as_f64()
}

/// Results of one driver: shader times (ns) and copy speeds relative to memcpy.
#[derive(Default)]
struct Run {
    shader_ns: BTreeMap<&'static str, f64>,
    copy_vs_memcpy: BTreeMap<&'static str, f64>,
}

/// Variables that would point the benchmarks at another driver or add layers; each run sets
/// exactly the ones it needs.
const DRIVER_VARS: &[&str] = &[
    "TESSERA_BENCH_ICD",
    "VK_INSTANCE_LAYERS",
    "VK_LOADER_LAYERS_ENABLE",
    "VK_LAYER_PATH",
];

/// `cargo bench --bench <bench>` with `env` on top of a clean driver environment, after removing
/// the previous estimates of `groups` (so a benchmark that does not run leaves a gap, not an old
/// number).
fn bench(bench: &str, groups: &[&str], env: &[(&str, String)]) -> Result<(), String> {
    for g in groups {
        let _ = std::fs::remove_dir_all(root().join("target/criterion").join(g));
    }
    let mut cmd = cargo();
    cmd.args(["bench", "-p", "tessera-benches", "--bench", bench]);
    for k in DRIVER_VARS {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(&mut cmd)
}

fn bench_run(name: &str, env: &[(&str, String)]) -> Result<Run, String> {
    eprintln!("xtask: benchmarks on {name}");
    let mut out = Run::default();
    bench("shaders", SHADERS, env)?;
    let function = if env.is_empty() {
        "tessera_submit_wait"
    } else {
        "bench_icd_submit_wait"
    };
    for g in SHADERS {
        if let Some(ns) = mean_ns(g, function) {
            out.shader_ns.insert(g, ns);
        }
    }
    bench("tensor_vulkan", COPIES, env)?;
    for g in COPIES {
        if let (Some(copy), Some(memcpy)) = (
            mean_ns(g, "vkCmdCopyTensorARM_submit_wait"),
            mean_ns(g, "memcpy_copy_from_slice"),
        ) {
            out.copy_vs_memcpy.insert(g, memcpy / copy);
        }
    }
    Ok(out)
}

/// Arm's emulation layer's `deploy` directory, from the Python that has the package.
fn emulation_layer(python: &Path) -> Result<String, String> {
    let out = Command::new(python)
        .args([
            "-c",
            "import emulation_layer, os; print(os.path.dirname(emulation_layer.__file__))",
        ])
        .output()
        .map_err(|e| format!("cannot run {python:?}: {e}"))?;
    if !out.status.success() {
        return Err("Arm's emulation layer (ai-ml-emulation-layer-for-vulkan) is missing".into());
    }
    Ok(format!(
        "{}/deploy",
        String::from_utf8_lossy(&out.stdout).trim()
    ))
}

/// The two tables, in Markdown; "n/a" where a benchmark did not run.
fn report(tessera: &Run, lavapipe: &Run) -> String {
    let na = || "n/a".to_string();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "| shader workload | Tessera (ms) | lavapipe + tensor layer (ms) | Tessera time / lavapipe time |\n|---|---:|---:|---:|"
    );
    for g in SHADERS {
        let (t, l) = (tessera.shader_ns.get(g), lavapipe.shader_ns.get(g));
        let ms = |v: Option<&f64>| v.map_or_else(na, |v| format!("{:.2}", v / 1e6));
        let ratio = t.zip(l).map_or_else(na, |(t, l)| format!("{:.2}", t / l));
        let _ = writeln!(md, "| {g} | {} | {} | {ratio} |", ms(t), ms(l));
    }
    let _ = writeln!(
        md,
        "\n| tensor copy | Tessera (× memcpy) | lavapipe + tensor layer (× memcpy) | Tessera speed / lavapipe speed |\n|---|---:|---:|---:|"
    );
    for g in COPIES {
        let (t, l) = (
            tessera.copy_vs_memcpy.get(g),
            lavapipe.copy_vs_memcpy.get(g),
        );
        let x = |v: Option<&f64>| v.map_or_else(na, |v| format!("{v:.3}"));
        let ratio = t.zip(l).map_or_else(na, |(t, l)| format!("{:.1}", t / l));
        let _ = writeln!(md, "| {g} | {} | {} | {ratio} |", x(t), x(l));
    }
    md
}

pub(crate) fn bench_compare() -> Result<(), String> {
    setup(&["libvulkan1", "mesa-vulkan-drivers"])?;
    let python = setup_python()?;
    let layer = emulation_layer(&python)?;
    run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
    let tessera = bench_run("Tessera", &[])?;
    let library_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(old) if !old.is_empty() => format!("{layer}/lib:{old}"),
        _ => format!("{layer}/lib"),
    };
    let lavapipe = bench_run(
        "lavapipe + VK_LAYER_ML_Tensor_Emulation",
        &[
            ("TESSERA_BENCH_ICD", LAVAPIPE_ICD.to_string()),
            (
                "VK_LAYER_PATH",
                format!("{layer}/share/vulkan/explicit_layer.d"),
            ),
            ("LD_LIBRARY_PATH", library_path),
            ("VK_INSTANCE_LAYERS", "VK_LAYER_ML_Tensor_Emulation".into()),
        ],
    )?;
    let md = report(&tessera, &lavapipe);
    println!("\n{md}");
    let path = root().join("target/bench-compare.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask: written to {}", path.display());
    Ok(())
}
