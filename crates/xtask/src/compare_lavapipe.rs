//! `bench-compare`'s lavapipe: Mesa 25's `libvulkan_lvp.so` unpacked privately from Debian's
//! `bookworm-backports` (see `compare.rs`'s docs for why and how), with Arm's ML emulation
//! layers stacked on it and checked through `vulkaninfo`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{output, read_json};
use crate::{as_root, root, run, setup};

/// The Debian suite lavapipe 25 comes from, and the line that adds it.
const BACKPORTS: &str = "bookworm-backports";
const BACKPORTS_LINE: &str = "deb http://deb.debian.org/debian bookworm-backports main";
const BACKPORTS_LIST: &str = "/etc/apt/sources.list.d/bookworm-backports.list";

/// Arm's emulation layer's `deploy` directory, from the Python that has the package.
pub(super) fn emulation_layer(python: &Path) -> Result<PathBuf, String> {
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
pub(super) struct Lavapipe {
    pub(super) icd: PathBuf,
    pub(super) lib_dirs: Vec<PathBuf>,
    /// vulkaninfo's `driverInfo`, e.g. `Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)`.
    pub(super) driver_info: String,
}

/// `dpkg --compare-versions a op b`.
pub(super) fn version_ok(a: &str, op: &str, b: &str) -> bool {
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
pub(super) fn parse_depends(field: &str) -> Vec<Vec<Dep>> {
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
pub(super) fn installed_version(name: &str) -> Option<String> {
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
pub(super) fn downloadable(name: &str, constraint: &Option<(String, String)>) -> Option<String> {
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

pub(super) fn has_backports_source() -> bool {
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
pub(super) fn ensure_backports() -> Result<(), String> {
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
pub(super) fn download(dir: &Path, name: &str, version: &str) -> Result<PathBuf, String> {
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
pub(super) fn lib_dirs(tree: &Path) -> Vec<PathBuf> {
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

pub(super) fn join_paths(dirs: &[PathBuf], tail: Option<String>) -> String {
    let mut parts: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    parts.extend(tail.filter(|t| !t.is_empty()));
    parts.join(":")
}

/// vulkaninfo's `driverInfo` for `icd` (no layers).
pub(super) fn driver_info(icd: &Path, lib_dirs: &[PathBuf]) -> Result<String, String> {
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
pub(super) fn lavapipe25() -> Result<Lavapipe, String> {
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
pub(super) fn fetch_lavapipe(dir: &Path, tree: &Path, icd: &Path) -> Result<(), String> {
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
pub(super) fn lavapipe_env(lvp: &Lavapipe, layer: &Path) -> Vec<(&'static str, String)> {
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
pub(super) fn check_layers(env: &[(&str, String)]) -> Result<(), String> {
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
}
