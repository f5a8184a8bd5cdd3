//! The cooperative workloads of `cargo xtask bench-compare` (`benches/cooperative.rs`): an MLP
//! of cooperative vectors and two cooperative-matrix GEMMs, each on one core and on every core,
//! on Tessera's JIT, in numpy (`benches/reference.py`, OpenBLAS's sgemm; `OPENBLAS_NUM_THREADS`
//! set to the same count) and on lavapipe 25 with Arm's layers where it lists the extension.
//! Tessera's thread count is `TESSERA_THREADS`, lavapipe's `LP_NUM_THREADS`. For each workload
//! and count, numpy runs just before Tessera (the machine's speed drifts; see `compare`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::{Driver, bench, criterion_dir, out_dir, read_json, time_ns};
use crate::{root, run};

/// The workloads (also `benches/reference.py`'s names), with the operations of one dispatch.
pub(super) const WORKLOADS: &[(&str, f64)] = &[
    // 2·64·64 multiply-adds per layer, 4 layers, 2²⁰ invocations.
    ("coopvec_mlp", 2.0 * 64.0 * 64.0 * 4.0 * 1_048_576.0),
    ("coopmat_gemm_f16", 2.0 * 1024.0 * 1024.0 * 1024.0),
    ("coopmat_gemm_s8", 2.0 * 1024.0 * 1024.0 * 1024.0),
    ("coopmat_gemm_f16_opt", 2.0 * 1024.0 * 1024.0 * 1024.0),
    ("coopmat_gemm_s8_opt", 2.0 * 1024.0 * 1024.0 * 1024.0),
];

/// Milliseconds of each (workload, thread count) on each side.
#[derive(Debug, Default)]
pub(super) struct CoopRun {
    pub tessera: BTreeMap<(&'static str, usize), f64>,
    pub numpy: BTreeMap<(&'static str, usize), f64>,
    pub lavapipe: BTreeMap<(&'static str, usize), f64>,
    pub notes: Vec<String>,
    /// Whether a Tessera bench failed.
    pub failed: bool,
}

/// numpy's median ms for `workload` with `threads` BLAS threads.
fn numpy(python: &Path, workload: &str, threads: usize) -> Result<f64, String> {
    let json = out_dir().join(format!("numpy-{workload}-{threads}.json"));
    let _ = std::fs::remove_file(&json);
    let t = threads.to_string();
    run(Command::new(python)
        .arg("-B")
        .arg(root().join("benches/reference.py"))
        .args(["--only", workload])
        .arg("--json")
        .arg(&json)
        .env("OPENBLAS_NUM_THREADS", &t)
        .env("OMP_NUM_THREADS", &t))?;
    let v = read_json(&json)?;
    v["workloads"][workload]["median_ms"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median for {workload}", json.display()))
}

/// Runs `workloads` at 1 and all threads on Tessera's JIT and in numpy, then on lavapipe (its
/// environment, if available).
pub(super) fn run_all(
    workloads: &[&'static str],
    python: Option<&Path>,
    lavapipe: Option<&[(&'static str, String)]>,
) -> CoopRun {
    let mut out = CoopRun::default();
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts: Vec<usize> = if all > 1 { vec![1, all] } else { vec![1] };
    for &w in workloads {
        for &t in &counts {
            if let Some(py) = python {
                match numpy(py, w, t) {
                    Ok(ms) => {
                        out.numpy.insert((w, t), ms);
                    }
                    Err(e) => out.notes.push(format!("numpy {w} ({t} threads): {e}")),
                }
            }
            let tessera = Driver {
                name: "Tessera (TESSERA_SHADER_BACKEND=jit)",
                label: "tessera_jit",
                env: vec![
                    ("TESSERA_SHADER_BACKEND", "jit".into()),
                    ("TESSERA_THREADS", t.to_string()),
                ],
            };
            match one(&tessera, w, t) {
                Ok(Some(ms)) => {
                    out.tessera.insert((w, t), ms);
                }
                Ok(None) => out
                    .notes
                    .push(format!("{w} ({t} threads) on Tessera: no result")),
                Err(e) => {
                    out.notes.push(format!("{w} ({t} threads) on Tessera: {e}"));
                    out.failed = true;
                }
            }
        }
    }
    if let Some(env) = lavapipe {
        for &w in workloads {
            for &t in &counts {
                let mut env = env.to_vec();
                env.push(("LP_NUM_THREADS", t.to_string()));
                let driver = Driver {
                    name: "lavapipe 25 + Arm's ML emulation layers",
                    label: "bench_icd",
                    env,
                };
                match one(&driver, w, t) {
                    Ok(Some(ms)) => {
                        out.lavapipe.insert((w, t), ms);
                    }
                    // The bench skips what lavapipe does not list (cooperative vectors).
                    Ok(None) => {}
                    Err(e) => out
                        .notes
                        .push(format!("{w} ({t} threads) on lavapipe: {e}")),
                }
            }
        }
    }
    out
}

/// One workload at `threads` on `driver`: criterion's median in ms, `None` when the bench
/// skipped it.
fn one(driver: &Driver, workload: &str, threads: usize) -> Result<Option<f64>, String> {
    let id = format!("{}_{threads}", driver.label);
    let group = format!("coop_{workload}");
    let _ = std::fs::remove_dir_all(criterion_dir().join(&group).join(&id));
    let mut env = driver.env.clone();
    env.push(("TESSERA_BENCH_WORKLOADS", workload.to_string()));
    env.push(("TESSERA_BENCH_THREADS", threads.to_string()));
    eprintln!("xtask: {workload} on {} ({threads} threads)", driver.name);
    bench("cooperative", &env)?;
    Ok(time_ns(&group, &id).map(|ns| ns / 1e6))
}

/// The table (markdown) of `run`.
pub(super) fn markdown(run: &CoopRun, md: &mut String) {
    let _ = writeln!(
        md,
        "\n| cooperative workload | threads | Tessera JIT (ms) | GOP/s | numpy (ms) | lavapipe 25 + Arm layers (ms) | JIT / numpy | JIT / lavapipe |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let keys: Vec<(&'static str, usize)> = run
        .tessera
        .keys()
        .chain(run.numpy.keys())
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for (w, t) in keys {
        let ops = WORKLOADS
            .iter()
            .find(|(n, _)| *n == w)
            .map_or(0.0, |(_, o)| *o);
        let (jit, np, lvp) = (
            run.tessera.get(&(w, t)).copied(),
            run.numpy.get(&(w, t)).copied(),
            run.lavapipe.get(&(w, t)).copied(),
        );
        let cell = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.2}"));
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}", a / b),
            _ => "n/a".into(),
        };
        let gops = jit.map_or_else(|| "n/a".into(), |ms| format!("{:.1}", ops / ms / 1e6));
        let _ = writeln!(
            md,
            "| {w} | {t} | {} | {gops} | {} | {} | {} | {} |",
            cell(jit),
            cell(np),
            cell(lvp),
            ratio(jit, np),
            ratio(jit, lvp)
        );
    }
    let _ = writeln!(
        md,
        "\nnumpy: float32 (np.matmul → OpenBLAS sgemm; both GEMMs are compared with sgemm 1024³), OPENBLAS_NUM_THREADS = the thread count. Tessera: TESSERA_THREADS; lavapipe: LP_NUM_THREADS (a workload whose extension it does not list is n/a: Mesa 25.0's lavapipe lists neither VK_NV_cooperative_vector nor VK_KHR_cooperative_matrix)."
    );
}
