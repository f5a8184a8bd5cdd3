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

fn backends() -> Vec<Arc<dyn Backend>> {
    vec![
        Arc::new(interpreter::Direct { jit: false }),
        Arc::new(interpreter::Direct { jit: true }),
        Arc::new(loader::Loader),
    ]
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

fn main() {
    let args = Arguments::from_args();
    let cases = load_all();
    assert!(!cases.is_empty(), "no cases in spirv-tests/cases");
    let mut trials = snapshots::trials(&cases);
    // A case that does not load is one failing test under its name.
    let runs: Vec<Result<Arc<Run>, (String, String)>> = cases
        .into_iter()
        .flat_map(|(name, case)| match case {
            Ok(case) => case.runs.into_iter().map(|r| Ok(Arc::new(r))).collect(),
            Err(e) => vec![Err((name, e))],
        })
        .collect();
    for backend in backends() {
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
    loader::shut_down();
    conclusion.exit();
}
