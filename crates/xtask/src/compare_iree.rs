//! The IREE workloads of `cargo xtask bench-compare` (`--only iree`): the MLIR functions of
//! `benches/iree.py` (matmul f32/f16/i8, a 4-layer MLP, softmax, attention, a 3×3 conv2d, an
//! elementwise add) compiled by `iree-compile` 3.13 (PyPI `iree-base-compiler`) for the stock
//! `vulkan` target (or the GPU target `iree.py target` names, where the stock one fails) with
//! both dispatch ABIs (descriptor sets, and `bda`: every buffer through a
//! device address) and for `llvm-cpu` (IREE's own CPU backend, `--iree-llvmcpu-target-cpu=host`),
//! then run by `iree-run-module` / `iree-benchmark-module` (`iree-base-runtime`) on Tessera,
//! on lavapipe 25 (no layers: IREE uses no tensor or graph extension) and on IREE's `local-task`
//! CPU device, on one thread and on every core (Tessera: `TESSERA_THREADS`; lavapipe:
//! `LP_NUM_THREADS`; llvm-cpu: `--task_topology_max_group_count`).
//!
//! Each Vulkan result is checked against llvm-cpu's (`iree.py check`: the workload's tolerance
//! relative to the largest result, exact for integers and the add); a mismatch leaves the time
//! out and says why. Times are the median of `iree-benchmark-module`'s repetitions (real time
//! per call of `@main`, which includes the submit and the wait). A step that fails (a module
//! IREE cannot compile for the stock target, a driver IREE refuses) leaves its cells `n/a`,
//! with the reason in the notes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Lavapipe, join_paths, out_dir, output};
use crate::root;

/// The columns: how a module is built and where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Config {
    TesseraDescriptors,
    TesseraBda,
    Lavapipe,
    LlvmCpu,
}

impl Config {
    const ALL: [Config; 4] = [
        Config::TesseraDescriptors,
        Config::TesseraBda,
        Config::Lavapipe,
        Config::LlvmCpu,
    ];

    /// The module this configuration runs (`vk`, `bda` or `cpu`).
    fn module(self) -> &'static str {
        match self {
            Config::TesseraDescriptors | Config::Lavapipe => "vk",
            Config::TesseraBda => "bda",
            Config::LlvmCpu => "cpu",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Config::TesseraDescriptors => "Tessera",
            Config::TesseraBda => "Tessera (bda)",
            Config::Lavapipe => "lavapipe 25",
            Config::LlvmCpu => "IREE llvm-cpu",
        }
    }
}

/// Milliseconds per (workload, threads, configuration), and what went wrong.
#[derive(Debug, Default)]
pub(super) struct IreeRun {
    pub times: BTreeMap<(String, usize, Config), f64>,
    pub workloads: Vec<String>,
    /// The workloads compiled for a named Vulkan target rather than the stock one.
    pub targets: Vec<(String, String)>,
    pub notes: Vec<String>,
    /// Whether a Tessera result was wrong or Tessera failed to run a module llvm-cpu ran.
    pub failed: bool,
}

/// The IREE tools beside `python` (the console scripts of the two packages).
fn tool(python: &Path, name: &str) -> PathBuf {
    python.with_file_name(name)
}

/// Runs every workload (see the module docs).
pub(super) fn run_all(python: &Path, lavapipe: Result<&Lavapipe, String>) -> IreeRun {
    let mut out = IreeRun::default();
    let dir = out_dir().join("iree");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        out.notes.push(format!("IREE: {}: {e}", dir.display()));
        return out;
    }
    let script = root().join("benches/iree.py");
    let list = match output(Command::new(python).arg("-B").arg(&script).arg("list")) {
        Ok(l) => l,
        Err(e) => {
            out.notes.push(format!("IREE: {e}"));
            return out;
        }
    };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<usize> = if all > 1 { vec![1, all] } else { vec![1] };
    if let Err(e) = &lavapipe {
        out.notes.push(format!("IREE on lavapipe 25: not run: {e}"));
    }
    for name in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        out.workloads.push(name.to_string());
        if let Err(e) = workload(python, &script, &dir, name, &threads, &lavapipe, &mut out) {
            out.notes.push(format!("IREE {name}: {e}"));
        }
    }
    out
}

/// Environment variables of a run.
type Environment = Vec<(&'static str, String)>;

/// The environment and device flags of `config` on `threads` threads.
fn device(
    config: Config,
    threads: usize,
    lavapipe: &Result<&Lavapipe, String>,
) -> Option<(Environment, Vec<String>)> {
    let t = threads.to_string();
    let tessera = root()
        .join("icd-manifest/tessera_icd.json")
        .display()
        .to_string();
    Some(match config {
        Config::TesseraDescriptors | Config::TesseraBda => (
            vec![
                ("VK_ICD_FILENAMES", tessera.clone()),
                ("VK_DRIVER_FILES", tessera),
                ("TESSERA_THREADS", t),
            ],
            vec!["--device=vulkan".into()],
        ),
        Config::Lavapipe => {
            let lvp = lavapipe.as_ref().ok()?;
            let icd = lvp.icd.display().to_string();
            (
                vec![
                    ("VK_ICD_FILENAMES", icd.clone()),
                    ("VK_DRIVER_FILES", icd),
                    (
                        "LD_LIBRARY_PATH",
                        join_paths(&lvp.lib_dirs, std::env::var("LD_LIBRARY_PATH").ok()),
                    ),
                    ("LP_NUM_THREADS", t),
                    ("MESA_SHADER_CACHE_DISABLE", "true".into()),
                ],
                vec!["--device=vulkan".into()],
            )
        }
        Config::LlvmCpu => (
            Vec::new(),
            vec![
                "--device=local-task".into(),
                format!("--task_topology_max_group_count={threads}"),
            ],
        ),
    })
}

/// Compiles, checks and times one workload.
fn workload(
    python: &Path,
    script: &Path,
    dir: &Path,
    name: &str,
    threads: &[usize],
    lavapipe: &Result<&Lavapipe, String>,
    out: &mut IreeRun,
) -> Result<(), String> {
    let wdir = dir.join(name);
    std::fs::create_dir_all(&wdir).map_err(|e| format!("{}: {e}", wdir.display()))?;
    let mlir = wdir.join("main.mlir");
    output(
        Command::new(python)
            .arg("-B")
            .arg(script)
            .args(["mlir", name])
            .arg(&mlir),
    )?;
    let inputs = output(
        Command::new(python)
            .arg("-B")
            .arg(script)
            .args(["inputs", name])
            .arg(&wdir),
    )?;
    let inputs: Vec<String> = inputs
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("--input=@{}", l.trim()))
        .collect();
    // The three modules; one IREE cannot build leaves its configurations n/a.
    let target = output(
        Command::new(python)
            .arg("-B")
            .arg(script)
            .args(["target", name]),
    )?;
    let target = target.trim();
    let mut vulkan = vec!["--iree-hal-target-device=vulkan".to_string()];
    if !target.is_empty() {
        vulkan.push(format!("--iree-vulkan-target={target}"));
        out.targets.push((name.to_string(), target.to_string()));
    }
    let mut bda = vulkan.clone();
    bda.push("--iree-vulkan-dispatch-abi=bda".into());
    let cpu = [
        "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=host",
    ]
    .map(String::from)
    .to_vec();
    let mut modules = BTreeMap::new();
    for (module, flags) in [("vk", vulkan), ("bda", bda), ("cpu", cpu)] {
        let vmfb = wdir.join(format!("{module}.vmfb"));
        eprintln!("xtask: iree-compile {name} ({module})");
        match output(
            Command::new(tool(python, "iree-compile"))
                .args(&flags)
                .arg(&mlir)
                .arg("-o")
                .arg(&vmfb),
        ) {
            Ok(_) => {
                modules.insert(module, vmfb);
            }
            Err(e) => out.notes.push(format!(
                "IREE {name}: the {module} module does not compile: {e}"
            )),
        }
    }
    // llvm-cpu's result is the reference.
    let reference = wdir.join("want.npy");
    let all = *threads.last().unwrap_or(&1);
    let run_module = |config: Config, result: &Path| -> Result<(), String> {
        let module = modules
            .get(config.module())
            .ok_or("no module".to_string())?;
        let (env, device) = device(config, all, lavapipe).ok_or("no driver".to_string())?;
        let mut cmd = Command::new(tool(python, "iree-run-module"));
        cmd.arg(format!("--module={}", module.display()))
            .args(&device)
            .arg("--function=main")
            .args(&inputs)
            .arg(format!("--output=@{}", result.display()));
        for (k, v) in env {
            cmd.env(k, v);
        }
        output(&mut cmd).map(|_| ())
    };
    run_module(Config::LlvmCpu, &reference)
        .map_err(|e| format!("llvm-cpu does not run it, so nothing is checked: {e}"))?;
    for config in Config::ALL {
        if config == Config::LlvmCpu {
            continue;
        }
        let tessera = config != Config::Lavapipe;
        if config == Config::Lavapipe && lavapipe.is_err() {
            continue;
        }
        let got = wdir.join(format!("got-{config:?}.npy"));
        let checked = run_module(config, &got).and_then(|()| {
            output(
                Command::new(python)
                    .arg("-B")
                    .arg(script)
                    .args(["check", name])
                    .arg(&got)
                    .arg(&reference),
            )
            .map(|_| ())
        });
        if let Err(e) = checked {
            out.failed |= tessera && modules.contains_key(config.module());
            out.notes
                .push(format!("IREE {name} on {}: {e}", config.name()));
            continue;
        }
        for &t in threads {
            time(python, name, config, t, &modules, &inputs, lavapipe, out);
        }
    }
    for &t in threads {
        time(
            python,
            name,
            Config::LlvmCpu,
            t,
            &modules,
            &inputs,
            lavapipe,
            out,
        );
    }
    Ok(())
}

/// Times `name` on `config` with `threads` threads into `out.times`.
#[allow(clippy::too_many_arguments)]
fn time(
    python: &Path,
    name: &str,
    config: Config,
    threads: usize,
    modules: &BTreeMap<&str, PathBuf>,
    inputs: &[String],
    lavapipe: &Result<&Lavapipe, String>,
    out: &mut IreeRun,
) {
    let (Some(module), Some((env, device))) = (
        modules.get(config.module()),
        device(config, threads, lavapipe),
    ) else {
        return;
    };
    eprintln!(
        "xtask: iree-benchmark-module {name} on {} ({threads} threads)",
        config.name()
    );
    let mut cmd = Command::new(tool(python, "iree-benchmark-module"));
    cmd.arg(format!("--module={}", module.display()))
        .args(&device)
        .arg("--function=main")
        .args(inputs)
        .args([
            "--benchmark_repetitions=5",
            "--benchmark_report_aggregates_only=true",
            "--benchmark_format=json",
        ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let median = output(&mut cmd).and_then(|json| median_ms(&json));
    match median {
        Ok(ms) => {
            out.times.insert((name.to_string(), threads, config), ms);
        }
        Err(e) => out.notes.push(format!(
            "IREE {name} on {} ({threads} threads): not timed: {e}",
            config.name()
        )),
    }
}

/// The median real time (ms) of a Google Benchmark JSON report.
fn median_ms(json: &str) -> Result<f64, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("benchmark JSON: {e}"))?;
    let row = v["benchmarks"]
        .as_array()
        .and_then(|rows| {
            rows.iter()
                .find(|r| r["aggregate_name"].as_str() == Some("median"))
        })
        .ok_or("no median in the benchmark report")?;
    let t = row["real_time"].as_f64().ok_or("no real_time")?;
    let scale = match row["time_unit"].as_str() {
        Some("ns") => 1e-6,
        Some("us") => 1e-3,
        Some("s") => 1e3,
        _ => 1.0,
    };
    Ok(t * scale)
}

/// The table (markdown) of `run`.
pub(super) fn markdown(run: &IreeRun, md: &mut String) {
    let _ = writeln!(
        md,
        "\n| IREE workload | threads | Tessera (ms) | Tessera, bda ABI (ms) | lavapipe 25 (ms) | IREE llvm-cpu (ms) | lavapipe / Tessera | Tessera / llvm-cpu | bda / descriptors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut threads: Vec<usize> = run.times.keys().map(|(_, t, _)| *t).collect();
    threads.sort_unstable();
    threads.dedup();
    for w in &run.workloads {
        for &t in &threads {
            let get = |c: Config| run.times.get(&(w.clone(), t, c)).copied();
            let (desc, bda, lvp, cpu) = (
                get(Config::TesseraDescriptors),
                get(Config::TesseraBda),
                get(Config::Lavapipe),
                get(Config::LlvmCpu),
            );
            let cell = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.2}"));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => format!("{:.2}", a / b),
                _ => "n/a".into(),
            };
            let _ = writeln!(
                md,
                "| {w} | {t} | {} | {} | {} | {} | {} | {} | {} |",
                cell(desc),
                cell(bda),
                cell(lvp),
                cell(cpu),
                ratio(lvp, desc),
                ratio(desc, cpu),
                ratio(bda, desc)
            );
        }
    }
    let named: Vec<String> = run
        .targets
        .iter()
        .map(|(w, t)| format!("{w}: `{t}`"))
        .collect();
    let _ = writeln!(
        md,
        "\nIREE 3.13 (benches/iree.py): stock `vulkan` target (named targets: {}), descriptor and bda dispatch ABIs; every Vulkan result checked against llvm-cpu's before it is timed; median of 5 iree-benchmark-module repetitions.",
        if named.is_empty() {
            "none".into()
        } else {
            named.join(", ")
        }
    );
}

#[cfg(test)]
mod tests {
    use super::median_ms;

    #[test]
    fn median_of_a_benchmark_report() {
        let json = r#"{"context": {}, "benchmarks": [
            {"name": "BM_main/real_time_mean", "aggregate_name": "mean", "real_time": 9.0,
             "time_unit": "ms"},
            {"name": "BM_main/real_time_median", "aggregate_name": "median", "real_time": 850.0,
             "time_unit": "us"}]}"#;
        assert_eq!(median_ms(json), Ok(0.85));
        assert!(median_ms(r#"{"benchmarks": []}"#).is_err());
    }
}
