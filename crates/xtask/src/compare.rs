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
//! `target/bench-compare.md`).
//!
//! - **lavapipe 25**: Debian 12's own Mesa is 22.3, 2–6× slower than Mesa 25, which users would
//!   pick. [`lavapipe25`] adds the `bookworm-backports` suite to apt's sources if missing,
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

use crate::{as_root, cargo, root, run, setup, setup_python_packages};

#[path = "compare_coop.rs"]
mod cooperative;
#[path = "compare_iree.rs"]
mod iree;

/// The shader workloads of `benches/shaders.rs` (also the names `benches/reference.py` knows).
const SHADERS: &[&str] = &[
    "tensor_add",
    "row_sum",
    "transpose",
    "tiny_groups",
    "i8_mul",
    "nd_add",
    "rgba_swizzle",
    "f16_add",
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

/// The Debian suite lavapipe 25 comes from, and the line that adds it.
const BACKPORTS: &str = "bookworm-backports";
const BACKPORTS_LINE: &str = "deb http://deb.debian.org/debian bookworm-backports main";
const BACKPORTS_LIST: &str = "/etc/apt/sources.list.d/bookworm-backports.list";

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

/// Arm's emulation layer's `deploy` directory, from the Python that has the package.
fn emulation_layer(python: &Path) -> Result<PathBuf, String> {
    let dir = output(Command::new(python).args([
        "-c",
        "import emulation_layer, os; print(os.path.dirname(emulation_layer.__file__))",
    ]))
    .map_err(|e| {
        format!("Arm's emulation layer (ai-ml-emulation-layer-for-vulkan) is missing: {e}")
    })?;
    let deploy = PathBuf::from(dir.trim()).join("deploy");
    for f in ["VkLayer_Graph.json", "VkLayer_Tensor.json"] {
        let p = deploy.join("share/vulkan/explicit_layer.d").join(f);
        if !p.is_file() {
            return Err(format!("{} is missing", p.display()));
        }
    }
    Ok(deploy)
}

/// A lavapipe to compare with: its manifest and the folders of its private libraries.
#[derive(Debug, Clone)]
struct Lavapipe {
    icd: PathBuf,
    lib_dirs: Vec<PathBuf>,
    /// vulkaninfo's `driverInfo`, e.g. `Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)`.
    driver_info: String,
}

/// `dpkg --compare-versions a op b`.
fn version_ok(a: &str, op: &str, b: &str) -> bool {
    let op = match op {
        ">=" => "ge",
        "<=" => "le",
        ">>" => "gt",
        "<<" => "lt",
        "=" => "eq",
        _ => return false,
    };
    Command::new("dpkg")
        .args(["--compare-versions", a, op, b])
        .status()
        .is_ok_and(|s| s.success())
}

/// One alternative of a `Depends` entry: name and optional (operator, version).
type Dep = (String, Option<(String, String)>);

/// Parses a `Depends` field into entries of alternatives.
fn parse_depends(field: &str) -> Vec<Vec<Dep>> {
    field
        .split(',')
        .map(|entry| {
            entry
                .split('|')
                .filter_map(|alt| {
                    let alt = alt.trim();
                    let (name, rest) = match alt.find('(') {
                        Some(i) => (alt[..i].trim(), Some(alt[i + 1..].trim_end_matches(')'))),
                        None => (alt, None),
                    };
                    let name = name.split(':').next().unwrap_or(name).trim();
                    if name.is_empty() {
                        return None;
                    }
                    let constraint = rest.and_then(|r| {
                        let r = r.trim();
                        let op_len = r.find(|c: char| !"<>=".contains(c)).unwrap_or(r.len());
                        let (op, v) = r.split_at(op_len);
                        (!op.is_empty()).then(|| (op.to_string(), v.trim().to_string()))
                    });
                    Some((name.to_string(), constraint))
                })
                .collect()
        })
        .filter(|alts: &Vec<Dep>| !alts.is_empty())
        .collect()
}

/// The installed version of a Debian package, if installed.
fn installed_version(name: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}\t${Version}", name])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (status, version) = text.split_once('\t')?;
    status
        .ends_with(" installed")
        .then(|| version.trim().to_string())
}

/// The newest version apt can download of `name` that satisfies `constraint`.
fn downloadable(name: &str, constraint: &Option<(String, String)>) -> Option<String> {
    let text = output(Command::new("apt-cache").args(["madison", name])).ok()?;
    let mut best: Option<String> = None;
    for line in text.lines() {
        let mut cols = line.split('|').map(str::trim);
        let (Some(pkg), Some(version)) = (cols.next(), cols.next()) else {
            continue;
        };
        if pkg != name
            || constraint
                .as_ref()
                .is_some_and(|(op, v)| !version_ok(version, op, v))
        {
            continue;
        }
        if best.as_ref().is_none_or(|b| version_ok(version, ">>", b)) {
            best = Some(version.to_string());
        }
    }
    best
}

fn has_backports_source() -> bool {
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        files.extend(dir.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    files.iter().any(|f| {
        std::fs::read_to_string(f).is_ok_and(|t| {
            t.lines()
                .any(|l| !l.trim_start().starts_with('#') && l.contains(BACKPORTS))
        })
    })
}

/// Adds the backports suite to apt's sources (if missing) and updates the package lists.
fn ensure_backports() -> Result<(), String> {
    let os = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    if !os.lines().any(|l| l.trim() == "VERSION_CODENAME=bookworm") {
        return Err(format!(
            "Mesa 25's lavapipe comes from Debian 12's {BACKPORTS}, and this is not Debian 12 \
             (bookworm); set TESSERA_LAVAPIPE_ICD to a Mesa 25 lavapipe ICD manifest instead"
        ));
    }
    if !Command::new("sh")
        .args(["-c", "command -v apt-get dpkg-deb >/dev/null"])
        .status()
        .is_ok_and(|s| s.success())
    {
        return Err("apt-get and dpkg-deb are needed to fetch lavapipe 25".into());
    }
    if !has_backports_source() {
        eprintln!("xtask: adding {BACKPORTS} to apt's sources ({BACKPORTS_LIST})");
        let mut tee = as_root("tee");
        tee.arg(BACKPORTS_LIST)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        let mut child = tee
            .spawn()
            .map_err(|e| format!("cannot write {BACKPORTS_LIST}: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write as _;
            stdin
                .write_all(format!("{BACKPORTS_LINE}\n").as_bytes())
                .map_err(|e| format!("cannot write {BACKPORTS_LIST}: {e}"))?;
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("cannot write {BACKPORTS_LIST} ({status})"));
        }
    }
    let has_candidate =
        downloadable("mesa-vulkan-drivers", &None).is_some_and(|v| version_ok(&v, ">=", "25"));
    if !has_candidate {
        run(as_root("apt-get")
            .args(["update", "-qq"])
            .env("DEBIAN_FRONTEND", "noninteractive"))
        .map_err(|e| {
            format!("apt-get update failed (no network to deb.debian.org, or offline?): {e}")
        })?;
    }
    Ok(())
}

/// `apt-get download name=version` into `dir`; returns the .deb.
fn download(dir: &Path, name: &str, version: &str) -> Result<PathBuf, String> {
    output(
        Command::new("apt-get")
            .args(["download", "-qq", &format!("{name}={version}")])
            .current_dir(dir),
    )
    .map_err(|e| {
        format!("cannot download {name} {version} (offline? apt needs deb.debian.org): {e}")
    })?;
    let prefix = format!("{name}_");
    std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".deb"))
        })
        .ok_or_else(|| format!("apt-get download {name} left no .deb in {}", dir.display()))
}

/// The library folders of an extracted tree that exist.
fn lib_dirs(tree: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for base in ["usr/lib", "lib"] {
        if let Ok(dir) = std::fs::read_dir(tree.join(base)) {
            for e in dir.filter_map(|e| e.ok()) {
                let p = e.path();
                if p.is_dir()
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().contains("-linux-"))
                {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn join_paths(dirs: &[PathBuf], tail: Option<String>) -> String {
    let mut parts: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    parts.extend(tail.filter(|t| !t.is_empty()));
    parts.join(":")
}

/// vulkaninfo's `driverInfo` for `icd` (no layers).
fn driver_info(icd: &Path, lib_dirs: &[PathBuf]) -> Result<String, String> {
    setup(&["vulkan-tools"])?;
    let text = output(
        Command::new("vulkaninfo")
            .arg("--summary")
            .env("VK_DRIVER_FILES", icd)
            .env("VK_ICD_FILENAMES", icd)
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
            .env_remove("VK_INSTANCE_LAYERS")
            .env(
                "LD_LIBRARY_PATH",
                join_paths(lib_dirs, std::env::var("LD_LIBRARY_PATH").ok()),
            ),
    )?;
    text.lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "driverInfo").then(|| v.trim().to_string())
        })
        .ok_or_else(|| {
            format!(
                "vulkaninfo --summary names no driverInfo for {}",
                icd.display()
            )
        })
}

/// Mesa 25's lavapipe from bookworm-backports in `target/lavapipe25/` (fetched on first use),
/// or the one `TESSERA_LAVAPIPE_ICD` names.
fn lavapipe25() -> Result<Lavapipe, String> {
    if let Some(icd) = std::env::var_os("TESSERA_LAVAPIPE_ICD") {
        let lib_dirs: Vec<PathBuf> = std::env::var("TESSERA_LAVAPIPE_LIBS")
            .unwrap_or_default()
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect();
        let icd = PathBuf::from(icd);
        if !icd.is_file() {
            return Err(format!(
                "TESSERA_LAVAPIPE_ICD: {} is not a file",
                icd.display()
            ));
        }
        let driver_info = driver_info(&icd, &lib_dirs)?;
        return Ok(Lavapipe {
            icd,
            lib_dirs,
            driver_info,
        });
    }
    let dir = root().join("target/lavapipe25");
    let tree = dir.join("root");
    let icd = dir.join("lvp_icd.json");
    if !icd.is_file() {
        fetch_lavapipe(&dir, &tree, &icd)?;
    }
    let lib_dirs = lib_dirs(&tree);
    let driver_info = driver_info(&icd, &lib_dirs)?;
    if !driver_info.starts_with("Mesa 25.") {
        return Err(format!(
            "{} reports {driver_info:?}, not Mesa 25 (remove target/lavapipe25 to fetch it again)",
            icd.display()
        ));
    }
    Ok(Lavapipe {
        icd,
        lib_dirs,
        driver_info,
    })
}

/// Downloads and extracts lavapipe 25 and the dependencies the system lacks; writes `icd` last
/// (it marks a complete folder).
fn fetch_lavapipe(dir: &Path, tree: &Path, icd: &Path) -> Result<(), String> {
    ensure_backports()?;
    let _ = std::fs::remove_dir_all(dir);
    let debs = dir.join("debs");
    std::fs::create_dir_all(&debs).map_err(|e| format!("{}: {e}", debs.display()))?;
    let version = downloadable("mesa-vulkan-drivers", &Some((">=".into(), "25".into())))
        .ok_or_else(|| {
            format!("apt has no mesa-vulkan-drivers ≥ 25 (is {BACKPORTS} in apt's sources?)")
        })?;
    eprintln!(
        "xtask: fetching mesa-vulkan-drivers {version} into {}",
        dir.display()
    );
    // Through the dependencies: a package is extracted when neither the system nor the folder has
    // it at a version its dependent needs.
    let mut queue = vec![("mesa-vulkan-drivers".to_string(), version)];
    let mut fetched: BTreeMap<String, String> = BTreeMap::new();
    while let Some((name, version)) = queue.pop() {
        if fetched.contains_key(&name) {
            continue;
        }
        let deb = download(&debs, &name, &version)?;
        run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(tree))?;
        fetched.insert(name.clone(), version);
        let depends = output(
            Command::new("dpkg-deb")
                .args(["-f"])
                .arg(&deb)
                .arg("Depends"),
        )?;
        for alts in parse_depends(depends.trim()) {
            let satisfied = alts.iter().any(|(n, c)| {
                let have = fetched.get(n).cloned().or_else(|| installed_version(n));
                have.is_some_and(|v| c.as_ref().is_none_or(|(op, want)| version_ok(&v, op, want)))
            });
            // The loader stays the system's.
            if satisfied || alts.iter().any(|(n, _)| n == "libvulkan1") {
                continue;
            }
            let (n, c) = &alts[0];
            if n == "libc6" {
                return Err(format!(
                    "lavapipe 25 needs libc6 {c:?}, newer than this system's"
                ));
            }
            let v = downloadable(n, c)
                .ok_or_else(|| format!("apt has no {n} {c:?} (needed by {name})"))?;
            eprintln!(
                "xtask:   + {n} {v} (for {name}; the system has {:?})",
                installed_version(n)
            );
            queue.push((n.clone(), v));
        }
    }
    let dirs = lib_dirs(tree);
    let lib = dirs
        .iter()
        .map(|d| d.join("libvulkan_lvp.so"))
        .find(|p| p.is_file())
        .ok_or("mesa-vulkan-drivers has no libvulkan_lvp.so")?;
    // Every library it needs must resolve (privately or from the system).
    let ldd = output(
        Command::new("ldd")
            .arg(&lib)
            .env("LD_LIBRARY_PATH", join_paths(&dirs, None)),
    )?;
    let missing: Vec<&str> = ldd.lines().filter(|l| l.contains("not found")).collect();
    if !missing.is_empty() {
        return Err(format!("{} lacks libraries: {missing:?}", lib.display()));
    }
    let shipped = ["lvp_icd.json", "lvp_icd.x86_64.json"]
        .iter()
        .map(|f| tree.join("usr/share/vulkan/icd.d").join(f))
        .find(|p| p.is_file())
        .ok_or("mesa-vulkan-drivers has no lvp_icd.json")?;
    let mut manifest = read_json(&shipped)?;
    manifest["ICD"]["library_path"] = Value::String(lib.display().to_string());
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(icd, text).map_err(|e| format!("{}: {e}", icd.display()))?;
    let _ = std::fs::remove_dir_all(&debs);
    eprintln!(
        "xtask: lavapipe 25 in {} ({} package(s): {})",
        dir.display(),
        fetched.len(),
        fetched.keys().cloned().collect::<Vec<_>>().join(", ")
    );
    Ok(())
}

/// The environment of the lavapipe runs: the ICD, its libraries and Arm's two layers.
fn lavapipe_env(lvp: &Lavapipe, layer: &Path) -> Vec<(&'static str, String)> {
    let manifests = layer.join("share/vulkan/explicit_layer.d");
    let mut libs = lvp.lib_dirs.clone();
    libs.push(layer.join("lib"));
    vec![
        ("TESSERA_BENCH_ICD", lvp.icd.display().to_string()),
        (
            "LD_LIBRARY_PATH",
            join_paths(&libs, std::env::var("LD_LIBRARY_PATH").ok()),
        ),
        // Files, graph layer first: Debian 12's loader orders explicit layers by discovery.
        (
            "VK_LAYER_PATH",
            format!(
                "{}:{}",
                manifests.join("VkLayer_Graph.json").display(),
                manifests.join("VkLayer_Tensor.json").display()
            ),
        ),
        (
            "VK_INSTANCE_LAYERS",
            "VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation".into(),
        ),
        ("VK_LOADER_LAYERS_DISABLE", "~implicit~".into()),
        // Pipeline creation compiles every time, as Tessera's does (no on-disk cache).
        ("MESA_SHADER_CACHE_DISABLE", "true".into()),
    ]
}

/// Checks through vulkaninfo that the layered lavapipe reports both layers' extensions.
fn check_layers(env: &[(&str, String)]) -> Result<(), String> {
    let mut cmd = Command::new("vulkaninfo");
    for (k, v) in env {
        if *k == "TESSERA_BENCH_ICD" {
            cmd.env("VK_DRIVER_FILES", v).env("VK_ICD_FILENAMES", v);
        } else {
            cmd.env(k, v);
        }
    }
    let text = output(&mut cmd)?;
    for ext in ["VK_ARM_tensors", "VK_ARM_data_graph"] {
        if !text.contains(ext) {
            return Err(format!(
                "lavapipe with Arm's layers does not report {ext}: the layers did not stack"
            ));
        }
    }
    Ok(())
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

fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "n/a".into(), |v| format!("{:.2}", v / 1e6))
}

/// `a / b` with three significant digits when it is below 1 (a data graph's ratios span
/// 0.001–100), at least two decimals.
fn ratio3(a: Option<f64>, b: Option<f64>) -> String {
    a.zip(b).map_or_else(
        || "n/a".into(),
        |(a, b)| {
            let v = a / b;
            let decimals = if v > 0.0 && v.is_finite() {
                (2 - v.log10().floor() as i32).clamp(2, 6) as usize
            } else {
                2
            };
            format!("{v:.decimals$}")
        },
    )
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    a.zip(b)
        .map_or_else(|| "n/a".into(), |(a, b)| format!("{:.2}", a / b))
}

struct Report<'a> {
    sel: &'a Selection,
    jit: &'a Run,
    /// The JIT on one worker thread (the per-core column).
    one_core: &'a Run,
    interp: &'a Run,
    lavapipe: &'a Run,
    /// Tessera's data graphs.
    graphs: &'a Run,
    numpy: &'a BTreeMap<String, f64>,
    /// Plain Rust: workload → ns.
    rust: &'a BTreeMap<&'static str, f64>,
    coop: &'a cooperative::CoopRun,
    iree: &'a iree::IreeRun,
    header: Vec<String>,
    notes: Vec<String>,
}

impl Report<'_> {
    /// The data graph tables: dispatch times, ratios and GFLOP/s; pipeline creation.
    fn graph_tables(&self, md: &mut String) {
        let _ = writeln!(
            md,
            "\n| data graph | Tessera (ms) | lavapipe 25 + Arm layers (ms) | numpy (ms) | Tessera / numpy | Tessera / lavapipe | GFLOP/s: Tessera / lavapipe / numpy |\n|---|---:|---:|---:|---:|---:|---:|"
        );
        for &g in &self.sel.graphs {
            let t = self.graphs.graph_ns.get(g).copied();
            let l = self.lavapipe.graph_ns.get(g).copied();
            let np = self.numpy.get(g).map(|v| v * 1e6);
            let gflops = graph_flops(g).map_or_else(
                || "—".to_string(),
                |flops| {
                    let f = |ns: Option<f64>| {
                        ns.map_or_else(|| "n/a".into(), |v| format!("{:.1}", flops / v))
                    };
                    format!("{} / {} / {}", f(t), f(l), f(np))
                },
            );
            let _ = writeln!(
                md,
                "| {g} | {} | {} | {} | {} | {} | {gflops} |",
                ms(t),
                ms(l),
                ms(np),
                ratio3(t, np),
                ratio3(t, l)
            );
        }
        let _ = writeln!(
            md,
            "\n| data graph pipeline creation (vkCreateDataGraphPipelinesARM, no cache) | Tessera (ms) | lavapipe 25 + Arm layers (ms) | Tessera / lavapipe |\n|---|---:|---:|---:|"
        );
        for &g in &self.sel.graphs {
            let t = self.graphs.graph_create_ns.get(g).copied();
            let l = self.lavapipe.graph_create_ns.get(g).copied();
            let fine =
                |ns: Option<f64>| ns.map_or_else(|| "n/a".into(), |v| format!("{:.3}", v / 1e6));
            let _ = writeln!(md, "| {g} | {} | {} | {} |", fine(t), fine(l), ratio3(t, l));
        }
    }

    fn markdown(&self) -> String {
        let mut md = String::new();
        for h in &self.header {
            let _ = writeln!(md, "{h}  ");
        }
        if !self.sel.shaders.is_empty() {
            let _ = writeln!(
                md,
                "\n| workload | Tessera JIT (ms) | JIT, 1 core (ms) | Tessera interp (ms) | lavapipe 25 + Arm layers (ms) | numpy (ms) | plain Rust (ms) | JIT / numpy | JIT / lavapipe | 1 core / plain Rust |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
            for w in &self.sel.shaders {
                let jit = self.jit.shader_ns.get(w).copied();
                let one = self.one_core.shader_ns.get(w).copied();
                let interp = self.interp.shader_ns.get(w).copied();
                let lvp = self.lavapipe.shader_ns.get(w).copied();
                let np = self.numpy.get(*w).map(|v| v * 1e6);
                let rust = self.rust.get(w).copied();
                let _ = writeln!(
                    md,
                    "| {w} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    ms(jit),
                    ms(one),
                    ms(interp),
                    ms(lvp),
                    ms(np),
                    ms(rust),
                    ratio(jit, np),
                    ratio(jit, lvp),
                    ratio(one, rust)
                );
            }
            if self.sel.shaders.contains(&"dense") {
                let gflops = |ns: Option<f64>| {
                    ns.map_or_else(|| "n/a".into(), |v| format!("{:.2}", DENSE_FLOPS / v))
                };
                let _ = writeln!(
                    md,
                    "\ndense layer (2·512·1024 FLOPs), GFLOP/s: Tessera JIT {}, Tessera interp {}, lavapipe 25 {}, numpy {}, plain Rust {}",
                    gflops(self.jit.shader_ns.get("dense").copied()),
                    gflops(self.interp.shader_ns.get("dense").copied()),
                    gflops(self.lavapipe.shader_ns.get("dense").copied()),
                    gflops(self.numpy.get("dense").map(|v| v * 1e6)),
                    gflops(self.rust.get("dense").copied()),
                );
            }
        }
        if !self.sel.graphs.is_empty() {
            self.graph_tables(&mut md);
        }
        if self.sel.pipelines {
            let _ = writeln!(
                md,
                "\n| pipeline creation (spirv-tests corpus) | pipelines | median per shader (ms) | max per shader (ms) | slowest | first creation: median / max (ms) | all, once each (ms) |\n|---|---:|---:|---:|---|---:|---:|"
            );
            for (name, r) in [
                ("Tessera JIT", self.jit),
                ("Tessera interp", self.interp),
                ("lavapipe 25 + Arm layers", self.lavapipe),
            ] {
                let f = |k: &str| {
                    r.pipelines
                        .as_ref()
                        .and_then(|p| p[k].as_f64())
                        .map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
                };
                let count = r.pipelines.as_ref().map_or_else(
                    || "n/a".into(),
                    |p| {
                        let rejected = p["rejected"].as_array().map_or(0, Vec::len);
                        let n = p["pipelines"].as_u64().unwrap_or(0);
                        if rejected > 0 {
                            format!("{n} ({rejected} rejected)")
                        } else {
                            n.to_string()
                        }
                    },
                );
                let slowest = r
                    .pipelines
                    .as_ref()
                    .and_then(|p| p["slowest"].as_str())
                    .unwrap_or("n/a");
                let _ = writeln!(
                    md,
                    "| {name} | {count} | {} | {} | {slowest} | {} / {} | {} |",
                    f("median_ms"),
                    f("max_ms"),
                    f("first_median_ms"),
                    f("first_max_ms"),
                    ms(r.pipelines_all_ns)
                );
            }
        }
        if self.sel.copies {
            let _ = writeln!(
                md,
                "\n| tensor copy | Tessera (× memcpy) | lavapipe 25 + Arm layers (× memcpy) | Tessera speed / lavapipe speed |\n|---|---:|---:|---:|"
            );
            for g in COPIES {
                let (t, l) = (
                    self.jit.copy_vs_memcpy.get(g).copied(),
                    self.lavapipe.copy_vs_memcpy.get(g).copied(),
                );
                let x = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"));
                let _ = writeln!(md, "| {g} | {} | {} | {} |", x(t), x(l), ratio(t, l));
            }
        }
        if self.sel.iree {
            iree::markdown(self.iree, &mut md);
        }
        if !self.sel.coop.is_empty() {
            cooperative::markdown(self.coop, &mut md);
        }
        let notes: Vec<&String> = self
            .notes
            .iter()
            .chain(&self.coop.notes)
            .chain(&self.iree.notes)
            .chain(&self.jit.notes)
            .chain(&self.interp.notes)
            .chain(&self.graphs.notes)
            .chain(&self.lavapipe.notes)
            .collect();
        if !notes.is_empty() {
            let _ = writeln!(md);
            for n in notes {
                let _ = writeln!(md, "- {}", n.replace('\n', " / "));
            }
        }
        md
    }
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
    fn depends_fields() {
        let d = parse_depends(
            "libvulkan1, libc6 (>= 2.34), libx11-xcb1 (>= 2:1.8.4), libfoo:any | libbar (<< 3)",
        );
        assert_eq!(d.len(), 4);
        assert_eq!(d[0], vec![("libvulkan1".to_string(), None)]);
        assert_eq!(
            d[2],
            vec![(
                "libx11-xcb1".to_string(),
                Some((">=".to_string(), "2:1.8.4".to_string()))
            )]
        );
        assert_eq!(d[3][0].0, "libfoo");
        assert_eq!(
            d[3][1],
            (
                "libbar".to_string(),
                Some(("<<".to_string(), "3".to_string()))
            )
        );
    }

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
    fn small_ratios_keep_three_digits() {
        assert_eq!(ratio3(Some(1.4449), Some(1.0)), "1.44");
        assert_eq!(ratio3(Some(0.013), Some(6.568)), "0.00198");
        assert_eq!(ratio3(Some(0.0541), Some(1.0)), "0.0541");
        assert_eq!(ratio3(None, Some(1.0)), "n/a");
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
