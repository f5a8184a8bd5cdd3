//! `cargo xtask conformance [run.py arguments…]`: Arm's TOSA 1.0.2 conformance tests through
//! Tessera's graph pipeline (`crates/graph/conformance/run.py` says how). Installs tosa-tools,
//! model-converter and the VGF tools (pinned in `crates/graph/conformance/requirements.txt`)
//! into their own virtual environment `target/tosa-venv`, builds `graph-run`, and runs the
//! script with work files under `target/conformance`; the pass table is printed (and with
//! `--json FILE`, every test's result is written). Fails when a test fails.

use std::process::Command;

use crate::{cargo, root, run};

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
        .args(args)
        .env("PATH", path))
}
