//! `cargo xtask bench-compare [--quick] [--only NAME,…]`: the shader workloads of
//! `benches/shaders.rs` on Tessera (twice: `TESSERA_SHADER_BACKEND=jit` and `=interp`), on Mesa 25's
//! lavapipe with both of Arm's ML emulation layers, in numpy (`benches/reference.py`) and in plain
//! Rust (the `reference` group of the same bench), the TOSA data graphs of `benches/graphs.rs`
//! (`graph_add`, `graph_matmul`, `graph_conv2d`, `graph_conv2d_i8`) on Tessera, on the same
//! layered lavapipe (the graph layer implements `VK_ARM_data_graph` there) and in numpy, with their pipelines'
//! creation times, plus pipeline-creation cost over the spirv-tests corpus
//! (`benches/pipelines.rs`), tensor-copy throughput (`benches/tensor_vulkan.rs`) and the
//! cooperative-vector and -matrix workloads of `benches/cooperative.rs` on one core and on every
//! core (`compare_coop.rs`; `--only coop`), in tables (printed, and written to
//! `target/bench-compare.md`; `compare_report.rs`). Getting lavapipe 25 and Arm's layers is
//! `compare_lavapipe.rs`'s.
//!
//! - **lavapipe 25**: Debian 12's own Mesa is 22.3, 2–6× slower than Mesa 25, which users would
//!   pick. [`lavapipe::lavapipe25`] adds the `bookworm-backports` suite to apt's sources if missing,
//!   `apt-get download`s `mesa-vulkan-drivers` from it and whichever of its dependencies the
//!   system lacks at the required version (on Debian 12 that is `libdrm2` and `libdrm-common`;
//!   its LLVM is the system's `libllvm15`), `dpkg -x`es them into `target/lavapipe25/` and writes
//!   an ICD manifest there whose `library_path` is that `libvulkan_lvp.so`; the private
//!   libraries come through `LD_LIBRARY_PATH`. The system's Mesa is not touched. `vulkaninfo
//!   --summary` must report Mesa 25. `TESSERA_LAVAPIPE_ICD` (+ `TESSERA_LAVAPIPE_LIBS`) names
//!   another lavapipe manifest instead (e.g. on a distribution without bookworm-backports).
//! - **Arm's layers**: `VK_LAYER_PATH` lists the two manifest *files*, graph layer first, and
//!   `VK_INSTANCE_LAYERS` enables both: Debian 12's loader (1.3.239) orders explicit layers by
//!   discovery, not by `VK_INSTANCE_LAYERS`, so listing the folder put the tensor layer above
//!   the graph layer, whose `vkCreateDevice` then failed not seeing `VK_ARM_tensors`.
//!   Implicit layers are disabled (`VK_LOADER_LAYERS_DISABLE=~implicit~`).
//! - **Times** are criterion's median per submit + fence wait (`target/criterion/shader_<name>/
//!   <driver>_submit_wait`); numpy's are the median of its runs. Ratios are time / time: above 1
//!   means Tessera's JIT is slower. numpy and the JIT run workload by workload, numpy's run of a
//!   workload just before the JIT's, so that their ratio does not span the machine's drift over
//!   the whole comparison. The dense layer's GFLOP/s are 2·512·1024 FLOPs / time.
//! - **Per core**: the JIT runs each shader workload a second time on one worker thread
//!   (`TESSERA_THREADS=1`, results `<label>_one_core_submit_wait` through `TESSERA_BENCH_TAG`),
//!   compared with the plain-Rust reference, which runs on one thread too.
//! - **Data graphs** (`graph_<name>/<driver>_submit_wait`, one recorded
//!   `vkCmdDispatchDataGraphARM` per submit): Tessera once (graphs run no shader, so the shader
//!   backend does not matter; `tessera_auto`), numpy's run of a graph just before Tessera's;
//!   then lavapipe. Each graph runs in a process of its own (`TESSERA_BENCH_WORKLOADS=<name>`),
//!   so that a graph a driver fails on (a mismatch panics; a layer may abort the process) leaves
//!   only its cells `n/a`, with the last step the bench had reached (`TESSERA_BENCH_STATUS`).
//!   numpy runs the graphs with its default threads (OpenBLAS: one per CPU; Tessera's graph
//!   kernels use every CPU too), the shader workloads on one thread. GFLOP/s: 2·512³ for the
//!   matmul, 2·128·128·32·288 for the convolution. Pipeline creation is criterion's median of
//!   `vkCreateDataGraphPipelinesARM` with no cache (`graph_<name>/<driver>_create`).
//! - **Pipeline creation**: the median and maximum per shader of `vkCreateShaderModule` +
//!   `vkCreateComputePipelines` (from the JSON `benches/pipelines.rs` writes), repeated and
//!   first creation. Mesa's on-disk shader cache is off (`MESA_SHADER_CACHE_DISABLE`); a
//!   driver's in-memory caches may still make repeated creations cheaper than the first.
//! - **Tensor copies**: each driver's copy throughput divided by a plain `memcpy` of the same
//!   bytes in the same run (so the runs compare even if the machine's speed drifts), once per
//!   driver (copies run no shader).
//!
//! What cannot be had (no network for apt or PyPI, not Debian 12) leaves its column `n/a` with
//! the reason printed under the table; a bench that fails (a result that does not match its CPU
//! reference panics) is a note too, and the command fails at the end when it was Tessera's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{cargo, root, run, setup, setup_python_packages};

#[path = "compare_coop.rs"]
mod cooperative;
#[path = "compare_iree.rs"]
mod iree;
#[path = "compare_lavapipe.rs"]
mod lavapipe;
#[path = "compare_report.rs"]
mod report;

use lavapipe::{Lavapipe, check_layers, emulation_layer, join_paths, lavapipe_env, lavapipe25};
use report::Report;

/// The shader workloads of `benches/shaders.rs` (also the names `benches/reference.py` knows).
const SHADERS: &[&str] = &[
    "tensor_add",
    "row_sum",
    "row_sum_subgroup",
    "transpose",
    "tiny_groups",
    "i8_mul",
    "nd_add",
    "rgba_swizzle",
    "f16_add",
    "histogram",
    "dense",
];
/// The data graphs of `benches/graphs.rs` (also the names `benches/reference.py` knows).
const GRAPHS: &[&str] = &[
    "graph_add",
    "graph_matmul",
    "graph_conv2d",
    "graph_conv2d_i8",
];
/// What `--only` accepts besides the shader workloads and the graphs (`coop`: the three
/// cooperative workloads of `benches/cooperative.rs`, also accepted by name; `iree`: the IREE
/// workloads of `benches/iree.py`, `compare_iree.rs`).
const OTHERS: &[&str] = &["pipelines", "copies", "coop", "iree"];
/// `--quick`: a few minutes.
const QUICK: &[&str] = &[
    "tensor_add",
    "i8_mul",
    "rgba_swizzle",
    "dense",
    "graph_matmul",
    "pipelines",
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
/// FLOPs of one dense-layer dispatch (W 512×1024).
const DENSE_FLOPS: f64 = 2.0 * 512.0 * 1024.0;

/// FLOPs of one dispatch of a data graph, where counted: MATMUL 512³ multiply-adds, CONV2D
/// 128·128 outputs × 32 channels × 288 (3·3·32) multiply-adds.
fn graph_flops(graph: &str) -> Option<f64> {
    match graph {
        "graph_matmul" => Some(2.0 * 512f64.powi(3)),
        "graph_conv2d" | "graph_conv2d_i8" => Some(2.0 * 128.0 * 128.0 * 32.0 * 288.0),
        _ => None,
    }
}

/// Variables that would point the benchmarks at another driver, backend or layers; each run
/// sets exactly the ones it needs.
const DRIVER_VARS: &[&str] = &[
    "TESSERA_BENCH_ICD",
    "TESSERA_SHADER_BACKEND",
    "TESSERA_BENCH_WORKLOADS",
    "TESSERA_BENCH_REFERENCE",
    "TESSERA_BENCH_PIPELINES_JSON",
    "TESSERA_BENCH_STATUS",
    "VK_INSTANCE_LAYERS",
    "VK_LOADER_LAYERS_ENABLE",
    "VK_LOADER_LAYERS_DISABLE",
    "VK_LAYER_PATH",
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "MESA_SHADER_CACHE_DISABLE",
];

fn criterion_dir() -> PathBuf {
    root().join("target/criterion")
}

fn out_dir() -> PathBuf {
    root().join("target/bench-compare")
}

/// The time in ns of criterion benchmark `group/function`, if it ran: criterion's median, which
/// a busy 2-core machine disturbs less than the mean.
fn time_ns(group: &str, function: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(function)
        .join("new/estimates.json");
    let v = read_json(&path).ok()?;
    v.get("median")?.get("point_estimate")?.as_f64()
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// What one driver (or backend) gave.
#[derive(Default)]
struct Run {
    /// Shader workload → ns.
    shader_ns: BTreeMap<&'static str, f64>,
    /// Data graph → ns per dispatch.
    graph_ns: BTreeMap<&'static str, f64>,
    /// Data graph → ns per `vkCreateDataGraphPipelinesARM`.
    graph_create_ns: BTreeMap<&'static str, f64>,
    /// Copy → speed relative to memcpy.
    copy_vs_memcpy: BTreeMap<&'static str, f64>,
    /// The pipelines bench's JSON.
    pipelines: Option<Value>,
    /// Criterion's median for creating every pipeline once, ns.
    pipelines_all_ns: Option<f64>,
    /// Why a part did not run.
    notes: Vec<String>,
    /// Whether a bench failed.
    failed: bool,
}

impl Run {
    /// Adds `other`'s results and notes (runs of disjoint parts).
    fn merge(&mut self, other: Run) {
        self.shader_ns.extend(other.shader_ns);
        self.graph_ns.extend(other.graph_ns);
        self.graph_create_ns.extend(other.graph_create_ns);
        self.copy_vs_memcpy.extend(other.copy_vs_memcpy);
        if other.pipelines.is_some() {
            self.pipelines = other.pipelines;
        }
        if other.pipelines_all_ns.is_some() {
            self.pipelines_all_ns = other.pipelines_all_ns;
        }
        self.notes.extend(other.notes);
        self.failed |= other.failed;
    }
}

/// What to run.
struct Selection {
    shaders: Vec<&'static str>,
    graphs: Vec<&'static str>,
    pipelines: bool,
    copies: bool,
    /// The cooperative workloads (`cooperative::WORKLOADS`).
    coop: Vec<&'static str>,
    /// The IREE workloads.
    iree: bool,
}

impl Selection {
    fn parse(args: &[String]) -> Result<Selection, String> {
        let mut names: Option<Vec<String>> = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--quick" => names = Some(QUICK.iter().map(|s| s.to_string()).collect()),
                "--only" => {
                    let list = it.next().ok_or("bench-compare: --only needs a list")?;
                    names = Some(list.split(',').map(|s| s.trim().to_string()).collect());
                }
                other => {
                    if let Some(list) = other.strip_prefix("--only=") {
                        names = Some(list.split(',').map(|s| s.trim().to_string()).collect());
                    } else {
                        return Err(format!(
                            "bench-compare: unknown argument {other}; usage: cargo xtask \
                             bench-compare [--quick | --only NAME,…] with names from {:?}",
                            SHADERS
                                .iter()
                                .chain(GRAPHS)
                                .chain(OTHERS)
                                .collect::<Vec<_>>()
                        ));
                    }
                }
            }
        }
        let Some(names) = names else {
            return Ok(Selection {
                shaders: SHADERS.to_vec(),
                graphs: GRAPHS.to_vec(),
                pipelines: true,
                copies: true,
                coop: cooperative::WORKLOADS.iter().map(|(n, _)| *n).collect(),
                iree: true,
            });
        };
        let known = |n: &str| {
            SHADERS.contains(&n)
                || GRAPHS.contains(&n)
                || OTHERS.contains(&n)
                || cooperative::WORKLOADS.iter().any(|(w, _)| *w == n)
        };
        if let Some(bad) = names.iter().find(|n| !known(n)) {
            return Err(format!(
                "bench-compare: unknown workload {bad}; known: {:?}",
                SHADERS
                    .iter()
                    .chain(GRAPHS)
                    .chain(OTHERS)
                    .collect::<Vec<_>>()
            ));
        }
        let chosen = |all: &[&'static str]| -> Vec<&'static str> {
            all.iter()
                .copied()
                .filter(|s| names.iter().any(|n| n == s))
                .collect()
        };
        Ok(Selection {
            shaders: chosen(SHADERS),
            graphs: chosen(GRAPHS),
            pipelines: names.iter().any(|n| n == "pipelines"),
            copies: names.iter().any(|n| n == "copies"),
            coop: cooperative::WORKLOADS
                .iter()
                .map(|(w, _)| *w)
                .filter(|w| names.iter().any(|n| n == w || n == "coop"))
                .collect(),
            iree: names.iter().any(|n| n == "iree"),
        })
    }
}

/// A driver configuration: its name in the table, its criterion id prefix and its environment.
struct Driver {
    name: &'static str,
    /// `tessera_jit`, `tessera_interp`, `bench_icd` (see `benches/common.rs`).
    label: &'static str,
    env: Vec<(&'static str, String)>,
}

/// `cargo bench --bench <bench>` with `env` on top of a clean driver environment.
fn bench(bench: &str, env: &[(&str, String)]) -> Result<(), String> {
    let mut cmd = cargo();
    cmd.args(["bench", "-p", "tessera-benches", "--bench", bench]);
    for k in DRIVER_VARS {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(&mut cmd).map_err(|_| format!("cargo bench --bench {bench} failed (its output is above)"))
}

/// Runs the selected benches on `driver`; a bench that fails is a note (and `failed`), so that
/// the others still run.
fn bench_run(driver: &Driver, sel: &Selection, references: bool, copies: bool) -> Run {
    eprintln!("xtask: benchmarks on {}", driver.name);
    let mut out = Run::default();
    let mut env = driver.env.clone();
    let shader_id = format!("{}_submit_wait", driver.label);
    if !sel.shaders.is_empty() {
        // Remove earlier results, so that a benchmark that does not run leaves a gap, not an old
        // number.
        for w in &sel.shaders {
            let group = criterion_dir().join(format!("shader_{w}"));
            let _ = std::fs::remove_dir_all(group.join(&shader_id));
            if references {
                let _ = std::fs::remove_dir_all(criterion_dir().join("reference").join(w));
            }
        }
        let mut shader_env = env.clone();
        shader_env.push(("TESSERA_BENCH_WORKLOADS", sel.shaders.join(",")));
        shader_env.push((
            "TESSERA_BENCH_REFERENCE",
            if references { "1" } else { "0" }.into(),
        ));
        if let Err(e) = bench("shaders", &shader_env) {
            out.notes.push(format!("shaders on {}: {e}", driver.name));
            out.failed = true;
        }
        for w in &sel.shaders {
            if let Some(ns) = time_ns(&format!("shader_{w}"), &shader_id) {
                out.shader_ns.insert(w, ns);
            }
        }
    }
    if sel.pipelines {
        let json = out_dir().join(format!("pipelines-{}.json", driver.label));
        let create_id = format!("{}_create", driver.label);
        let _ = std::fs::remove_file(&json);
        let _ = std::fs::remove_dir_all(criterion_dir().join("pipeline_creation").join(&create_id));
        env.push(("TESSERA_BENCH_PIPELINES_JSON", json.display().to_string()));
        match bench("pipelines", &env) {
            Ok(()) => {
                out.pipelines = read_json(&json).ok();
                out.pipelines_all_ns = time_ns("pipeline_creation", &create_id);
            }
            Err(e) => {
                out.notes.push(format!("pipelines on {}: {e}", driver.name));
                out.failed = true;
            }
        }
        env.pop();
    }
    if copies {
        for g in COPIES {
            let _ = std::fs::remove_dir_all(criterion_dir().join(g));
        }
        match bench("tensor_vulkan", &env) {
            Ok(()) => {
                for g in COPIES {
                    if let (Some(copy), Some(memcpy)) = (
                        time_ns(g, "vkCmdCopyTensorARM_submit_wait"),
                        time_ns(g, "memcpy_copy_from_slice"),
                    ) {
                        out.copy_vs_memcpy.insert(g, memcpy / copy);
                    }
                }
            }
            Err(e) => out
                .notes
                .push(format!("tensor copies on {}: {e}", driver.name)),
        }
    }
    out
}

/// Runs the data graphs `graphs` of `benches/graphs.rs` on `driver`, each in a bench process of
/// its own; a graph that fails is a note (with the step it stopped at, or its panic) and
/// `failed`, and leaves its cells empty.
fn graph_run(driver: &Driver, graphs: &[&'static str]) -> Run {
    let mut out = Run::default();
    let submit_id = format!("{}_submit_wait", driver.label);
    let create_id = format!("{}_create", driver.label);
    for &g in graphs {
        eprintln!("xtask: data graph {g} on {}", driver.name);
        for id in [&submit_id, &create_id] {
            let _ = std::fs::remove_dir_all(criterion_dir().join(g).join(id));
        }
        let status = out_dir().join(format!("graphs-{}-{g}.status", driver.label));
        let _ = std::fs::remove_file(&status);
        let mut env = driver.env.clone();
        env.push(("TESSERA_BENCH_WORKLOADS", g.to_string()));
        env.push(("TESSERA_BENCH_STATUS", status.display().to_string()));
        if bench("graphs", &env).is_err() {
            out.notes.push(format!(
                "{g} on {}: {}",
                driver.name,
                graph_failure(&status)
            ));
            out.failed = true;
        }
        if let Some(ns) = time_ns(g, &submit_id) {
            out.graph_ns.insert(g, ns);
        }
        if let Some(ns) = time_ns(g, &create_id) {
            out.graph_create_ns.insert(g, ns);
        }
    }
    out
}

/// Why a graphs bench failed, from its status file: its panic, or the step it was at when the
/// process died.
fn graph_failure(status: &Path) -> String {
    let text = std::fs::read_to_string(status).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let panic = lines.iter().rev().find_map(|l| l.strip_prefix("panic: "));
    let step = lines
        .iter()
        .rev()
        .find(|l| !l.starts_with("panic: "))
        .copied();
    match (panic, step) {
        (Some(p), Some(s)) => format!("failed at \"{s}\": {p}"),
        (Some(p), None) => format!("failed: {p}"),
        (None, Some(s)) => format!(
            "the bench process died at \"{s}\" (no panic: an abort or a signal; its output is above)"
        ),
        (None, None) => "the bench failed before it started (its output is above)".into(),
    }
}

/// Output of `cmd` (stdout), or an error with the command line and the end of its stderr.
fn output(cmd: &mut Command) -> Result<String, String> {
    let line = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {line}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
        Err(format!("`{line}` failed ({}): {tail}", out.status))
    }
}

/// What `benches/reference.py` gave: numpy's version, the median ms per workload and the BLAS
/// threads each ran with.
type NumpyRun = (String, BTreeMap<String, f64>, BTreeMap<String, String>);

/// numpy's median ms per workload, from `benches/reference.py`.
fn numpy(python: &Path, shaders: &[&str]) -> Result<NumpyRun, String> {
    let json = out_dir().join("numpy.json");
    let _ = std::fs::remove_file(&json);
    run(Command::new(python)
        .arg("-B")
        .arg(root().join("benches/reference.py"))
        .args(["--only", &shaders.join(",")])
        .arg("--json")
        .arg(&json))?;
    let v = read_json(&json)?;
    let version = v["numpy"].as_str().unwrap_or("?").to_string();
    let times = v["workloads"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, r)| Some((k.clone(), r["median_ms"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    let threads = v["workloads"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, r)| Some((k.clone(), r["blas_threads"].as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Ok((version, times, threads))
}

fn cpu() -> String {
    let lscpu = output(&mut Command::new("lscpu")).unwrap_or_default();
    let model = lscpu
        .lines()
        .find_map(|l| l.strip_prefix("Model name:").map(str::trim))
        .unwrap_or("unknown CPU")
        .to_string();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} cores")
}

/// Whether the built driver knows `TESSERA_SHADER_BACKEND` (its name is in the library).
fn driver_reads_backend() -> bool {
    let lib = root().join("target/release/libtessera_icd.so");
    std::fs::read(lib).is_ok_and(|b| {
        b.windows(b"TESSERA_SHADER_BACKEND".len())
            .any(|w| w == b"TESSERA_SHADER_BACKEND")
    })
}

pub(crate) fn bench_compare(args: &[String]) -> Result<(), String> {
    let sel = Selection::parse(args)?;
    setup(&["libvulkan1"])?;
    std::fs::create_dir_all(out_dir()).map_err(|e| format!("{}: {e}", out_dir().display()))?;
    let mut notes = Vec::new();
    let mut header = vec![
        format!("CPU: {}", cpu()),
        format!(
            "workloads: {}",
            sel.shaders
                .iter()
                .chain(&sel.graphs)
                .chain(&sel.coop)
                .copied()
                .chain(sel.pipelines.then_some("pipelines"))
                .chain(sel.copies.then_some("copies"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];

    // What the comparisons need; a missing part leaves its column n/a, with the reason.
    let python = setup_python_packages(&["ai-ml-emulation-layer-for-vulkan", "numpy"]);
    let layer = python
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|p| emulation_layer(p));
    let lavapipe = layer.clone().and_then(|layer| {
        let lvp = lavapipe25()?;
        let env = lavapipe_env(&lvp, &layer);
        check_layers(&env)?;
        Ok((lvp, env))
    });
    match &lavapipe {
        Ok((lvp, _)) => header.push(format!(
            "lavapipe: {} ({}), with VK_LAYER_ML_Graph_Emulation over VK_LAYER_ML_Tensor_Emulation",
            lvp.driver_info,
            lvp.icd.display()
        )),
        Err(e) => {
            eprintln!("xtask: lavapipe 25 is not available: {e}");
            notes.push(format!("lavapipe 25 + Arm layers: not run: {e}"));
        }
    }

    run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
    if !driver_reads_backend() {
        notes.push(
            "this build of Tessera does not read TESSERA_SHADER_BACKEND (no JIT yet): both Tessera columns run the interpreter, so their difference is this machine's run-to-run noise".into(),
        );
    }
    let tessera = |backend: &str, label| Driver {
        name: if backend == "jit" {
            "Tessera (TESSERA_SHADER_BACKEND=jit)"
        } else {
            "Tessera (TESSERA_SHADER_BACKEND=interp)"
        },
        label,
        env: vec![("TESSERA_SHADER_BACKEND", backend.to_string())],
    };
    // The JIT and numpy run workload by workload, one right after the other, so that each
    // JIT / numpy ratio compares two measurements minutes apart at most, not the whole
    // comparison's length (this VM's speed drifts: numpy's i8 multiply took 2.9 ms in one run and
    // 4.8 ms in another).
    let jit_driver = tessera("jit", "tessera_jit");
    // The per-core column: the JIT on one worker thread, against the one-thread Rust reference.
    let one_core_driver = Driver {
        name: "Tessera (TESSERA_SHADER_BACKEND=jit, TESSERA_THREADS=1)",
        label: "tessera_jit_one_core",
        env: vec![
            ("TESSERA_SHADER_BACKEND", "jit".to_string()),
            ("TESSERA_THREADS", "1".to_string()),
            ("TESSERA_BENCH_TAG", "one_core".to_string()),
        ],
    };
    let mut jit = Run::default();
    let mut one_core = Run::default();
    let mut numpy_times = BTreeMap::new();
    let mut numpy_version = None;
    for w in &sel.shaders {
        match python
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|p| numpy(p, &[*w]))
        {
            Ok((version, times, _)) => {
                numpy_version = Some(version);
                numpy_times.extend(times);
            }
            Err(e) => notes.push(format!("numpy {w}: not run: {e}")),
        }
        let one = Selection {
            shaders: vec![w],
            graphs: Vec::new(),
            pipelines: false,
            copies: false,
            coop: Vec::new(),
            iree: false,
        };
        jit.merge(bench_run(&jit_driver, &one, true, false));
        one_core.merge(bench_run(&one_core_driver, &one, false, false));
    }
    // The data graphs likewise: numpy's run of a graph, then Tessera's. Graphs run no shader, so
    // Tessera runs them once, with no shader backend set.
    let graph_driver = Driver {
        name: "Tessera",
        label: "tessera_auto",
        env: Vec::new(),
    };
    let mut graphs = Run::default();
    let mut numpy_graph_threads = BTreeMap::new();
    for &g in &sel.graphs {
        match python
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|p| numpy(p, &[g]))
        {
            Ok((version, times, threads)) => {
                numpy_version = Some(version);
                numpy_times.extend(times);
                numpy_graph_threads.extend(threads);
            }
            Err(e) => notes.push(format!("numpy {g}: not run: {e}")),
        }
        graphs.merge(graph_run(&graph_driver, &[g]));
    }
    if let Some(version) = numpy_version {
        let mut line = format!(
            "numpy {version} (benches/reference.py: median of runs, each workload run just before Tessera's"
        );
        if !sel.shaders.is_empty() {
            line.push_str("; shader workloads on one thread");
        }
        if !numpy_graph_threads.is_empty() {
            let mut threads: Vec<&str> = numpy_graph_threads.values().map(String::as_str).collect();
            threads.dedup();
            let _ = write!(
                line,
                "; data graphs with numpy's default threads: OpenBLAS {} thread(s)",
                threads.join("/")
            );
        }
        line.push(')');
        header.push(line);
    }
    let rest = Selection {
        shaders: Vec::new(),
        graphs: Vec::new(),
        pipelines: sel.pipelines,
        copies: sel.copies,
        coop: Vec::new(),
        iree: false,
    };
    jit.merge(bench_run(&jit_driver, &rest, true, sel.copies));
    let mut rust = BTreeMap::new();
    for w in &sel.shaders {
        if let Some(ns) = time_ns("reference", w) {
            rust.insert(*w, ns);
        }
    }
    let interp = bench_run(&tessera("interp", "tessera_interp"), &sel, false, false);
    let lvp_run = match &lavapipe {
        Ok((_, env)) => {
            let driver = Driver {
                name: "lavapipe 25 + Arm's ML emulation layers",
                label: "bench_icd",
                env: env.clone(),
            };
            let mut run = bench_run(&driver, &sel, false, sel.copies);
            run.merge(graph_run(&driver, &sel.graphs));
            run
        }
        Err(_) => Run::default(),
    };
    let coop = cooperative::run_all(
        &sel.coop,
        python.as_ref().ok().map(|p| p.as_path()),
        lavapipe.as_ref().ok().map(|(_, env)| env.as_slice()),
    );
    let iree_run = if sel.iree {
        match setup_python_packages(&["iree-base-compiler", "iree-base-runtime", "numpy"]) {
            Ok(python) => {
                run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
                let lvp = match &lavapipe {
                    Ok((lvp, _)) => Ok(lvp.clone()),
                    Err(_) => lavapipe25(),
                };
                iree::run_all(&python, lvp.as_ref().map_err(Clone::clone))
            }
            Err(e) => iree::IreeRun {
                notes: vec![format!("IREE: not run: {e}")],
                ..Default::default()
            },
        }
    } else {
        iree::IreeRun::default()
    };
    if !sel.shaders.is_empty() || sel.pipelines || sel.copies {
        header.push(
            "Tessera and lavapipe: criterion median of submit + fence wait of one recorded dispatch; plain Rust: one thread, criterion median, same run as Tessera JIT; JIT, 1 core: TESSERA_THREADS=1, right after the all-cores run".into(),
        );
    }
    if !sel.graphs.is_empty() {
        header.push(format!(
            "data graphs: criterion median of submit + fence wait of one recorded vkCmdDispatchDataGraphARM; Tessera's graph kernels run on its worker pool ({} threads), lavapipe's through VK_LAYER_ML_Graph_Emulation (compute shaders on lavapipe); creation: criterion median of vkCreateDataGraphPipelinesARM, no pipeline cache",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        ));
    }
    let report = Report {
        sel: &sel,
        jit: &jit,
        one_core: &one_core,
        interp: &interp,
        lavapipe: &lvp_run,
        graphs: &graphs,
        numpy: &numpy_times,
        rust: &rust,
        coop: &coop,
        iree: &iree_run,
        header,
        notes,
    };
    let md = report.markdown();
    println!("\n{md}");
    let path = root().join("target/bench-compare.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask: written to {}", path.display());
    if jit.failed || interp.failed || graphs.failed || coop.failed || iree_run.failed {
        return Err("a Tessera benchmark failed (see the notes under the table)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_failures_name_the_panic_or_the_last_step() {
        let dir = std::env::temp_dir().join(format!("tessera-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let status = dir.join("s");
        let _ = std::fs::remove_file(&status);
        assert!(graph_failure(&status).contains("before it started"));
        std::fs::write(
            &status,
            "opening\ngraph_add: vkCreateDataGraphPipelinesARM\n",
        )
        .unwrap();
        let died = graph_failure(&status);
        assert!(died.contains("died at \"graph_add: vkCreateDataGraphPipelinesARM\""));
        std::fs::write(
            &status,
            "graph_add: first dispatch\npanic: element 3 is 1, want 2\n",
        )
        .unwrap();
        assert_eq!(
            graph_failure(&status),
            "failed at \"graph_add: first dispatch\": element 3 is 1, want 2"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn selections() {
        let s = |a: &[&str]| Selection::parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let all = s(&[]).unwrap();
        assert_eq!(all.shaders.len(), SHADERS.len());
        assert!(all.pipelines && all.copies);
        let quick = s(&["--quick"]).unwrap();
        assert!(quick.pipelines && !quick.copies);
        assert_eq!(all.graphs.len(), GRAPHS.len());
        let only = s(&["--only", "dense,copies"]).unwrap();
        assert_eq!(only.shaders, vec!["dense"]);
        assert!(only.graphs.is_empty());
        assert!(only.copies && !only.pipelines);
        let graphs = s(&[
            "--only",
            "graph_add,graph_matmul,graph_conv2d,graph_conv2d_i8",
        ])
        .unwrap();
        assert!(graphs.shaders.is_empty() && !graphs.pipelines && !graphs.copies);
        assert_eq!(graphs.graphs, GRAPHS);
        assert!(s(&["--only=nope"]).is_err());
        assert!(s(&["--fast"]).is_err());
    }
}
