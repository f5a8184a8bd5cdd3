//! `cargo xtask`: the chores behind the README's two commands.
//!
//! - `cargo xtask demo`: installs the Vulkan loader if missing, builds the ICD and the demo in
//!   release mode, and runs the demo through the real loader with our manifest.
//! - `cargo xtask test`: installs the loader, `vulkaninfo` and Arm's scenario-runner (PyPI) if
//!   missing, builds the ICD, and runs every test of the workspace (unit,
//!   loader end-to-end, vulkaninfo, direct loading, scenario-runner) with the shader JIT forced,
//!   then the tests that go through the driver again on the shader interpreter.
//!
//! - `cargo xtask regen [--check]`: rebuilds the spirv-tests corpus (SPIR-V, oracle outputs) from
//!   its sources, or checks that what is committed is what they give. See `regen.rs`.
//!
//! - `cargo xtask bench-compare [--quick | --only NAME,…]`: runs the shader workloads on Tessera
//!   (JIT and interpreter backends), on Mesa 25's lavapipe (fetched from bookworm-backports into
//!   `target/lavapipe25`) with Arm's two ML emulation layers, in numpy and in plain Rust, plus
//!   pipeline creation and tensor copies, and prints one table (also written to
//!   `target/bench-compare.md`). See `compare.rs`.
//! - `cargo xtask conformance [--ops add,conv2d,…]`: Arm's TOSA 1.0.2 conformance tests through
//!   the graph pipeline (`crates/graph`), checked with `tosa_verify`. See `conformance.rs`.
//! - `cargo xtask install` / `uninstall`: registers Tessera with the loader like a packaged driver
//!   (a copy of the release library and a manifest in `~/.local`, `/usr/local` or `--prefix`).
//!   See `install.rs`.
//!
//! Installation uses `apt-get` (as root, or through `sudo`), so it works on a fresh Debian or
//! Ubuntu machine; elsewhere it says what to install.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod codegen;
mod compare;
mod conformance;
mod install;
mod regen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(),
        Some("test") => test(&args[1..]),
        Some("bench-compare") => compare::bench_compare(&args[1..]),
        Some("conformance") => conformance::conformance(&args[1..]),
        Some("gen") => codegen::run(&args[1..]),
        Some("install") => install::install(&args[1..]),
        Some("uninstall") => install::uninstall(&args[1..]),
        Some("regen") => regen::regen(&args[1..]),
        Some("setup") => {
            setup(&["libvulkan1", "vulkan-tools"]).and_then(|()| setup_python().map(|_| ()))
        }
        _ => Err(
            "usage: cargo xtask <demo | test [cargo test args…] | setup | bench-compare [--quick | --only name,…] | conformance [--ops name,…] | gen [--check] | regen [--check] [case…] | install | uninstall>"
                .to_string(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from("."))
}

pub(crate) fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed with {status}"))
    }
}

fn has_loader() -> bool {
    Command::new("sh")
        .args(["-c", "ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 '"])
        .status()
        .is_ok_and(|s| s.success())
}

fn has_command(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs the Debian packages that are missing.
pub(crate) fn setup(packages: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| match *p {
            "libvulkan1" => !has_loader(),
            "vulkan-tools" => !has_command("vulkaninfo"),
            other => !has_command(other),
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !has_command("apt-get") {
        return Err(format!(
            "please install {missing:?} (the Khronos Vulkan loader and vulkaninfo)"
        ));
    }
    let apt = |args: &[&str]| {
        let mut cmd = as_root("apt-get");
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        run(&mut cmd)
    };
    apt(&["update", "-qq"])?;
    let mut install = vec!["install", "-y", "-qq", "--no-install-recommends"];
    install.extend_from_slice(&missing);
    apt(&install)
}

/// `program` as root: directly when this process is root, else through `sudo`.
pub(crate) fn as_root(program: &str) -> Command {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if is_root {
        Command::new(program)
    } else {
        let mut cmd = Command::new("sudo");
        cmd.arg(program);
        cmd
    }
}

/// The pinned Python packages, one `name==version` a line.
const REQUIREMENTS: &str = "crates/xtask/requirements.txt";

/// PyPI packages the tests drive Tessera with (scenario-runner, with no layer: Tessera
/// implements `VK_ARM_tensors` and `VK_ARM_data_graph` itself).
const TEST_PACKAGES: &[&str] = &["ai-ml-sdk-scenario-runner"];

/// `name==version` for each of `packages`, from the requirements file.
fn pinned(packages: &[&str]) -> Result<Vec<String>, String> {
    let path = root().join(REQUIREMENTS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let pins: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once("=="))
        .collect();
    packages
        .iter()
        .map(|p| {
            pins.iter()
                .find(|(name, _)| name.trim() == *p)
                .map(|(name, version)| format!("{}=={}", name.trim(), version.trim()))
                .ok_or_else(|| format!("{p} is not pinned in {}", path.display()))
        })
        .collect()
}

/// Whether `python` has exactly these `name==version` distributions installed.
fn has_python_packages(python: &Path, pins: &[String]) -> bool {
    const CHECK: &str = r#"
import sys
from importlib import metadata

def ok(pin):
    name, version = pin.split("==")
    try:
        return metadata.version(name) == version
    except metadata.PackageNotFoundError:
        return False

sys.exit(0 if all(ok(p) for p in sys.argv[1:]) else 1)
"#;
    Command::new(python)
        .args(["-c", CHECK])
        .args(pins)
        .status()
        .is_ok_and(|s| s.success())
}

/// Makes Arm's PyPI packages that the tests need importable; see [`setup_python_packages`].
pub(crate) fn setup_python() -> Result<PathBuf, String> {
    setup_python_packages(TEST_PACKAGES)
}

/// The python3 of virtual environment `dir`, made (installing `python3-venv` if needed) when
/// missing.
pub(crate) fn venv(dir: &Path) -> Result<PathBuf, String> {
    let python = dir.join("bin/python3");
    if !python.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            setup(&["python3-venv"])?;
            run(Command::new("python3").args(["-m", "venv"]).arg(dir))?;
        }
    }
    Ok(python)
}

/// Makes `packages`, at the versions pinned in `crates/xtask/requirements.txt`, importable and
/// returns the Python that has them: the machine's `python3` when it already has those exact
/// versions, else a virtual environment in `target/python` (a system Python on Debian 12 refuses
/// `pip install` outside one), where pip installs them with the requirements file as the
/// constraints of their dependencies. Installs `python3-venv` when needed.
pub(crate) fn setup_python_packages(packages: &[&str]) -> Result<PathBuf, String> {
    let pins = pinned(packages)?;
    let system = PathBuf::from("python3");
    if has_python_packages(&system, &pins) {
        return Ok(system);
    }
    let python = venv(&root().join("target/python"))?;
    if !has_python_packages(&python, &pins) {
        run(Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--constraint",
            ])
            .arg(root().join(REQUIREMENTS))
            .args(&pins))?;
    }
    Ok(python)
}

pub(crate) fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn manifest() -> PathBuf {
    root().join("icd-manifest/tessera_icd.json")
}

fn demo() -> Result<(), String> {
    setup(&["libvulkan1"])?;
    run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
    run(cargo().args([
        "build",
        "--release",
        "-p",
        "tessera-e2e",
        "--bin",
        "tessera-demo",
    ]))?;
    run(Command::new(root().join("target/release/tessera-demo"))
        .env("VK_DRIVER_FILES", manifest())
        .env("VK_ICD_FILENAMES", manifest())
        .env("VK_LOADER_LAYERS_DISABLE", "*"))
}

fn test(extra: &[String]) -> Result<(), String> {
    setup(&["libvulkan1", "vulkan-tools"])?;
    let python = setup_python()?;
    run(cargo().args(["build", "--release", "-p", "tessera-icd"]))?;
    // The tests' shader cache is one of this run (never the user's, and cold at the start).
    let cache = root().join("target/test-shader-cache");
    let _ = std::fs::remove_dir_all(&cache);
    // The scenario-runner tests find Arm's packages through $PYTHON. Everything runs with the
    // JIT forced (a shader it cannot compile fails pipeline creation instead of falling back),
    // then the tests that go through the driver run again on the interpreter: both shader
    // backends pass every test.
    run(cargo()
        .args(["test", "--release", "--workspace"])
        .args(extra)
        .env("PYTHON", &python)
        .env("TESSERA_SHADER_CACHE_DIR", &cache)
        .env("TESSERA_SHADER_BACKEND", "jit"))?;
    eprintln!("xtask: the driver's tests again, on the shader interpreter");
    run(cargo()
        .args([
            "test",
            "--release",
            "-p",
            "tessera-e2e",
            "-p",
            "tessera-spirv-tests",
        ])
        .args(extra)
        .env("PYTHON", &python)
        .env("TESSERA_SHADER_CACHE_DIR", &cache)
        .env("TESSERA_SHADER_BACKEND", "interp"))
}
