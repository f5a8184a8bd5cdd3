//! `cargo xtask conformance [run.py arguments…]`: Arm's TOSA 1.0.2 conformance tests through
//! Tessera's graph pipeline (`crates/graph/conformance/run.py` says how). Installs tosa-tools,
//! model-converter and the VGF tools (pinned in `crates/graph/conformance/requirements.txt`)
//! into their own virtual environment `target/tosa-venv`, builds `graph-run`, and runs the
//! script with work files under `target/conformance`; the pass table is printed (and with
//! `--json FILE`, every test's result is written). Fails when a test fails.
//!
//! Each positive test also runs through the Khronos loader and Tessera's ICD: Arm's
//! scenario-runner (installed into `target/python` as for `cargo xtask test`) dispatches the
//! test's VGF with no layer, and its outputs are verified the same way (`--no-icd` skips that;
//! it needs the loader, which `cargo xtask setup` installs).

use std::process::Command;

use crate::{cargo, root, run};

/// Arm's scenario-runner binary, from the Python that has its package.
fn scenario_runner(python: &std::path::Path) -> Result<String, String> {
    let out = Command::new(python)
        .args([
            "-c",
            "import os, scenario_runner\n\
             print(os.path.join(os.path.dirname(scenario_runner.__file__), 'binaries', 'bin', \
             'scenario-runner'))",
        ])
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match (out.status.success(), text.lines().next()) {
        (true, Some(path)) => Ok(path.to_string()),
        _ => Err(format!(
            "cannot locate scenario-runner: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

pub(crate) fn conformance(args: &[String]) -> Result<(), String> {
    let venv = root().join("target/tosa-venv");
    let python = crate::venv(&venv)?;
    let dir = root().join("crates/graph/conformance");
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(dir.join("requirements.txt")))?;
    let (no_icd, args): (Vec<&String>, Vec<&String>) = args.iter().partition(|a| *a == "--no-icd");
    let mut icd = Vec::new();
    if no_icd.is_empty() {
        crate::setup(&["libvulkan1"])?;
        let python = crate::setup_python()?;
        icd.push("--scenario-runner".to_string());
        icd.push(scenario_runner(&python)?);
        icd.push("--icd-manifest".to_string());
        icd.push(
            root()
                .join("icd-manifest/tessera_icd.json")
                .display()
                .to_string(),
        );
        run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
    }
    run(cargo().args([
        "build",
        "--release",
        "-p",
        "tessera-graph",
        "--bin",
        "graph-run",
    ]))?;
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run(Command::new(&python)
        .arg(dir.join("run.py"))
        .arg("--graph-run")
        .arg(root().join("target/release/graph-run"))
        .arg("--work")
        .arg(root().join("target/conformance"))
        .args(icd)
        .args(args)
        .env("PATH", path))
}
