//! IR snapshots: every case folder holds `expected.ir`, the text form of the IR its runs lower
//! to (one section per distinct shader, entry point and specialization), and the `ir::<case>`
//! test compares it with what lowering produces now. A change to lowering or to the optimiser
//! therefore shows up as a reviewable diff. `TESSERA_BLESS=1 cargo test -p tessera-spirv-tests
//! -- ir::` rewrites the files instead of comparing.

use std::path::Path;

use libtest_mimic::{Failed, Trial};
use tessera_spirv::{Module, Program};
use tessera_spirv_tests::Case;

/// The snapshot text of a case: one section per distinct (shader, entry, specialization).
fn snapshot(case: &Case) -> Result<String, String> {
    let mut out = String::new();
    let mut seen = Vec::new();
    for run in &case.runs {
        let key = (run.shader.clone(), run.entry.clone(), run.spec_pairs());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let module =
            Module::parse(&run.spirv).map_err(|e| format!("{}: parse: {e}", run.shader))?;
        let program = Program::new(&module, &run.entry, &run.spec_pairs())
            .map_err(|e| format!("{}: lower: {e}", run.shader))?;
        let spec: Vec<String> = run
            .spec
            .iter()
            .map(|s| format!("{}={:?}", s.id, s.bytes()))
            .collect();
        out.push_str(&format!(
            ";; {} entry {:?}{}\n",
            run.shader,
            run.entry,
            if spec.is_empty() {
                String::new()
            } else {
                format!(" spec [{}]", spec.join(", "))
            }
        ));
        out.push_str(&program.ir_text());
        out.push('\n');
    }
    Ok(out)
}

fn check(case: &Case) -> Result<(), String> {
    let text = snapshot(case)?;
    let path = case.dir.join("expected.ir");
    if std::env::var_os("TESSERA_BLESS").is_some_and(|v| v != "0") {
        return std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let want = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (run with TESSERA_BLESS=1 to create it)",
            path.display()
        )
    })?;
    if want == text {
        return Ok(());
    }
    Err(first_difference(&path, &want, &text))
}

/// A message naming the first line that differs.
fn first_difference(path: &Path, want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    format!(
        "{} differs from the IR lowering produces now at line {}:\n  expected: {}\n  got:      {}\n\
         (if the change is intended, run with TESSERA_BLESS=1 and review the diff)",
        path.display(),
        at + 1,
        w.get(at).unwrap_or(&"<end of file>"),
        g.get(at).unwrap_or(&"<end of file>")
    )
}

/// One `ir::<case>` trial per case.
pub fn trials(cases: &[(String, Result<Case, String>)]) -> Vec<Trial> {
    cases
        .iter()
        .map(|(name, case)| {
            let case = case.clone();
            Trial::test(format!("ir::{name}"), move || {
                case.and_then(|c| check(&c)).map_err(Failed::from)
            })
        })
        .collect()
}
