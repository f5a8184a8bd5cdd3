//! The case harness: one test per run of every case in `spirv-tests/cases` and per backend,
//! named `<backend>::<case>` (or `<backend>::<case>::<run>` when a case has several runs), so
//! `cargo test -p tessera-spirv-tests -- tensor_rw` runs the matching ones and a failure names
//! its case. A backend executes a run and compares the memory of every binding with the
//! expected outputs ([`check`]).
//!
//! Besides, `ir::<case>` compares the case's `expected.ir` IR snapshot (see `snapshots`).
//!
//! Backends: `interpreter` (tessera-spirv directly, on 1 and on 2 worker threads) and `loader`
//! (the Khronos loader with `icd-manifest/tessera_icd.json`; needs the release ICD,
//! `cargo build --release -p tessera-icd`). Adding one is a new module with a [`Backend`] and a
//! line in [`backends`].
//!
//! The loader's shader cache is a fresh directory of this run (never the user's). When loader
//! tests ran, the harness runs itself once more, in a child process with the same arguments and
//! that cache, now warm: the `kept::<case>` tests, the same runs through the loader, with every
//! kernel read back from the cache by a process whose addresses differ from the one that kept
//! it. With `TESSERA_SHADER_BACKEND=jit` the child must add nothing to the cache (see
//! [`kept_phase`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use tessera_spirv_tests::{Run, load_all};

mod interpreter;
mod loader;
mod snapshots;

/// Something that executes a run.
pub trait Backend: Send + Sync {
    /// The test-name prefix.
    fn name(&self) -> &'static str;

    /// Executes `run` (as often as the backend likes, e.g. once per thread count) and checks
    /// every binding with [`check`].
    fn run(&self, run: &Run) -> Result<(), String>;
}

fn backends(kept: bool) -> Vec<Arc<dyn Backend>> {
    if kept {
        return vec![Arc::new(loader::Loader { kept: true })];
    }
    vec![
        Arc::new(interpreter::Direct { jit: false }),
        Arc::new(interpreter::Direct { jit: true }),
        Arc::new(loader::Loader { kept: false }),
    ]
}

/// Set in the child process of the warm-cache phase: the cache directory the parent filled.
const KEPT_VAR: &str = "TESSERA_CASES_KEPT_CACHE";

/// The files of the cache directory `dir` (relative paths), sorted.
fn cache_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The warm-cache phase: runs this harness again with the same arguments in a child process
/// whose loader reads the cache `dir` this process filled. Fails when the child fails or when
/// it wrote new entries (a kernel that a warm cache should have held was compiled again).
fn kept_phase(dir: &Path) -> Result<(), String> {
    let before = cache_files(dir);
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    eprintln!("\nthe loader runs again in a new process, from the shader cache they filled");
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(KEPT_VAR, dir)
        .status()
        .map_err(|e| format!("cannot run the warm-cache phase: {e}"))?;
    if !status.success() {
        return Err(format!("the warm-cache phase failed ({status})"));
    }
    // In `auto` mode kernels are compiled in the background and a run may end before its
    // kernel is kept: only a forced JIT must find every kernel.
    if std::env::var("TESSERA_SHADER_BACKEND").as_deref() != Ok("jit") {
        return Ok(());
    }
    let added: Vec<_> = cache_files(dir)
        .into_iter()
        .filter(|f| before.binary_search(f).is_err())
        .collect();
    if !added.is_empty() {
        return Err(format!(
            "the warm-cache phase compiled kernels the cache should have held: {} new entries in {}",
            added.len(),
            dir.display()
        ));
    }
    Ok(())
}

/// Compares the memory of every binding after a dispatch (`got[binding][element]`, in the
/// order of `run.bindings`) with what the case expects; `what` qualifies the error (e.g. the
/// thread count).
pub fn check(run: &Run, got: &[Vec<Vec<u8>>], what: &str) -> Result<(), String> {
    for (b, mems) in run.bindings.iter().zip(got) {
        for (k, (e, m)) in b.elements.iter().zip(mems).enumerate() {
            e.check(m)
                .map_err(|err| format!("{}{what}: {err}", b.label(k)))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let kept = std::env::var_os(KEPT_VAR).map(PathBuf::from);
    let cache = kept.clone().unwrap_or_else(|| {
        let dir = std::env::temp_dir().join(format!("tessera-cases-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    });
    // SAFETY: no other thread runs yet (the trials start below) and nothing has loaded the
    // Vulkan loader or the driver, which read the variable.
    unsafe { std::env::set_var("TESSERA_SHADER_CACHE_DIR", &cache) };
    let cases = load_all();
    assert!(!cases.is_empty(), "no cases in spirv-tests/cases");
    let mut trials = match kept {
        Some(_) => Vec::new(),
        None => snapshots::trials(&cases),
    };
    // A case that does not load is one failing test under its name.
    let runs: Vec<Result<Arc<Run>, (String, String)>> = cases
        .into_iter()
        .flat_map(|(name, case)| match case {
            Ok(case) => case.runs.into_iter().map(|r| Ok(Arc::new(r))).collect(),
            Err(e) => vec![Err((name, e))],
        })
        .collect();
    for backend in backends(kept.is_some()) {
        for run in &runs {
            let backend = backend.clone();
            trials.push(match run {
                Ok(run) => {
                    let run = run.clone();
                    Trial::test(format!("{}::{}", backend.name(), run.name), move || {
                        backend.run(&run).map_err(Failed::from)
                    })
                }
                Err((name, e)) => {
                    let e = e.clone();
                    Trial::test(format!("{}::{name}", backend.name()), move || {
                        Err(Failed::from(e))
                    })
                }
            });
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let ran_loader = loader::shut_down();
    let mut failed = conclusion.has_failed();
    if kept.is_none() {
        if ran_loader && let Err(e) = kept_phase(&cache) {
            eprintln!("error: {e}");
            failed = true;
        }
        let _ = std::fs::remove_dir_all(&cache);
    }
    if failed {
        ExitCode::from(101)
    } else {
        ExitCode::SUCCESS
    }
}
