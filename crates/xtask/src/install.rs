//! `cargo xtask install` and `cargo xtask uninstall`: register Tessera with the Khronos loader the
//! way a packaged driver is registered, so that every Vulkan program finds it through the loader's
//! default search path, with no `VK_DRIVER_FILES`.
//!
//! `install` builds the release ICD, copies `libtessera_icd.so` to a folder of its own and writes
//! a `tessera_icd.json` next to the other drivers' manifests whose `library_path` is the copy's
//! absolute path:
//!
//! | scope | library | manifest |
//! |---|---|---|
//! | default (this user) | `~/.local/lib/tessera/libtessera_icd.so` | `$XDG_DATA_HOME/vulkan/icd.d/tessera_icd.json` (`~/.local/share/…` when unset) |
//! | `--system` | `/usr/local/lib/tessera/libtessera_icd.so` | `/usr/local/share/vulkan/icd.d/tessera_icd.json` |
//! | `--prefix DIR` | `DIR/lib/tessera/libtessera_icd.so` | `DIR/share/vulkan/icd.d/tessera_icd.json` |
//!
//! The library is copied rather than referenced in `target/`, as a package would install it: a
//! `cargo clean` or a rebuild (debug or release) then never breaks or silently changes the driver
//! that other programs load, and running `install` again is the update. Both files are written to a
//! temporary name and renamed into place, so a program that has the old library loaded keeps its
//! copy.
//!
//! `uninstall` removes exactly those two files, plus the `tessera` folder when it is left empty.
//! It leaves a `tessera_icd.json` whose `library_path` is not the copy alone (that file was not
//! written by `install`), and it never removes the shared `icd.d` folders. Both commands are
//! idempotent. `--system` needs root: the build runs as the calling user, and only the file
//! operations run again under `sudo`.

use std::ffi::OsString;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{cargo, root, run};

/// File name of the driver library, as cargo builds it and as it is installed.
const LIBRARY_FILE: &str = "libtessera_icd.so";
/// File name of the installed manifest.
const MANIFEST_FILE: &str = "tessera_icd.json";

const INSTALL_USAGE: &str = "usage: cargo xtask install [--system | --prefix DIR] [--library FILE]
  (default)      for this user: ~/.local/lib/tessera/ and $XDG_DATA_HOME/vulkan/icd.d/
  --system       for all users: /usr/local/lib/tessera/ and /usr/local/share/vulkan/icd.d/ (sudo)
  --prefix DIR   DIR/lib/tessera/ and DIR/share/vulkan/icd.d/
  --library FILE install FILE instead of building the release ICD";

const UNINSTALL_USAGE: &str = "usage: cargo xtask uninstall [--system | --prefix DIR]";

/// Where an installation goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    /// The calling user (the loader's `$XDG_DATA_HOME` search path).
    User,
    /// All users, under `/usr/local`.
    System,
    /// An explicit prefix.
    Prefix(PathBuf),
}

/// The parsed command line of `install` or `uninstall`.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    scope: Scope,
    /// `--library FILE` (install only): the library to install instead of building one.
    library: Option<PathBuf>,
}

/// Parses the arguments after `install`/`uninstall`; `None` for `--help`.
fn parse(args: &[String], allow_library: bool, usage: &str) -> Result<Option<Options>, String> {
    let mut scope = None;
    let mut library = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (opt, inline) = match arg.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{opt} needs a value\n{usage}"))
        };
        let new_scope = match opt {
            "-h" | "--help" => return Ok(None),
            "--system" if inline.is_none() => Scope::System,
            "--prefix" => Scope::Prefix(PathBuf::from(value()?)),
            "--library" if allow_library => {
                library = Some(PathBuf::from(value()?));
                continue;
            }
            _ => return Err(format!("unknown argument `{arg}`\n{usage}")),
        };
        if scope.replace(new_scope).is_some() {
            return Err(format!(
                "give at most one of --system and --prefix DIR\n{usage}"
            ));
        }
    }
    Ok(Some(Options {
        scope: scope.unwrap_or(Scope::User),
        library,
    }))
}

/// The files of one installation.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    /// The folder of our own that holds the library (removed by `uninstall` when empty).
    lib_dir: PathBuf,
    /// The installed library.
    library: PathBuf,
    /// The installed manifest.
    manifest: PathBuf,
}

/// An absolute path from an environment variable, as the XDG base directory spec reads them:
/// unset, empty and relative values are ignored.
fn absolute_var(env: &dyn Fn(&str) -> Option<OsString>, name: &str) -> Option<PathBuf> {
    env(name).map(PathBuf::from).filter(|p| p.is_absolute())
}

/// Computes where `scope` installs, reading `HOME` and `XDG_DATA_HOME` through `env`.
fn layout(scope: &Scope, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Layout, String> {
    let (lib_parent, data_dir) = match scope {
        Scope::User => {
            let home = absolute_var(env, "HOME")
                .ok_or("HOME is not set (or not absolute); use --prefix DIR")?;
            let data =
                absolute_var(env, "XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share"));
            (home.join(".local/lib"), data)
        }
        Scope::System => (
            PathBuf::from("/usr/local/lib"),
            PathBuf::from("/usr/local/share"),
        ),
        Scope::Prefix(p) => {
            let p = std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))?;
            (p.join("lib"), p.join("share"))
        }
    };
    let lib_dir = lib_parent.join("tessera");
    Ok(Layout {
        library: lib_dir.join(LIBRARY_FILE),
        lib_dir,
        manifest: data_dir.join("vulkan/icd.d").join(MANIFEST_FILE),
    })
}

fn env_var(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// The arguments that select `scope` again (for the undo hint and the `sudo` re-run).
fn scope_args(scope: &Scope) -> Vec<String> {
    match scope {
        Scope::User => vec![],
        Scope::System => vec!["--system".into()],
        Scope::Prefix(p) => vec![
            "--prefix".into(),
            std::path::absolute(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string(),
        ],
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs this xtask binary again under `sudo` with `args` (for `--system` as a normal user).
fn rerun_with_sudo(args: &[String]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the xtask binary: {e}"))?;
    eprintln!("xtask: writing to /usr/local needs root; running the file operations with sudo");
    run(Command::new("sudo").arg(exe).args(args))
}

/// Builds the release ICD and returns the library cargo produced (wherever the target folder is).
fn build_library() -> Result<PathBuf, String> {
    let mut cmd = cargo();
    cmd.args([
        "build",
        "--release",
        "-p",
        "tessera-icd",
        "--message-format=json-render-diagnostics",
    ])
    .stdout(Stdio::piped());
    eprintln!("xtask: running {cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed with {}", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact")
        .filter_map(|msg| msg["filenames"].as_array().cloned())
        .flatten()
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.file_name().is_some_and(|n| n == LIBRARY_FILE))
        .ok_or_else(|| format!("{cmd:?} reported no {LIBRARY_FILE}"))
}

/// The text of the installed manifest: the repository's `icd-manifest/tessera_icd.json` (same
/// fields, same versions) with `library_path` set to `library`.
fn manifest_text(library: &Path) -> Result<String, String> {
    let source = root().join("icd-manifest").join(MANIFEST_FILE);
    let text = fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
    let mut json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", source.display()))?;
    let library = library
        .to_str()
        .ok_or_else(|| format!("{}: not a UTF-8 path", library.display()))?;
    let icd = json
        .get_mut("ICD")
        .and_then(serde_json::Value::as_object_mut)
        .ok_or_else(|| format!("{}: no \"ICD\" object", source.display()))?;
    icd.insert("library_path".into(), library.into());
    serde_json::to_string_pretty(&json)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}

/// True if `text` is a manifest whose `library_path` is `library` (one `install` wrote).
fn manifest_points_to(text: &str, library: &Path) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|json| {
        json["ICD"]["library_path"]
            .as_str()
            .is_some_and(|p| Path::new(p) == library)
    })
}

/// Writes `dest` atomically: into a temporary file in the same folder, then renamed over `dest`
/// (a process that has the old file mapped keeps it). `fill` writes the temporary file.
fn replace_file(
    dest: &Path,
    fill: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), String> {
    let dir = dest.parent().ok_or("no parent folder")?;
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = dest.file_name().ok_or("no file name")?.to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = fill(&tmp).and_then(|()| {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o644))?;
        fs::rename(&tmp, dest)
    });
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("{}: {e}", dest.display())
    })
}

/// `cargo xtask install [--system | --prefix DIR] [--library FILE]`.
pub(crate) fn install(args: &[String]) -> Result<(), String> {
    let Some(opts) = parse(args, true, INSTALL_USAGE)? else {
        println!("{INSTALL_USAGE}");
        return Ok(());
    };
    let source = match &opts.library {
        Some(lib) => std::path::absolute(lib).map_err(|e| format!("{}: {e}", lib.display()))?,
        None => build_library()?,
    };
    if !source.is_file() {
        return Err(format!("{} does not exist", source.display()));
    }
    if opts.scope == Scope::System && !is_root() {
        let mut again = vec!["install".to_string(), "--system".into(), "--library".into()];
        again.push(source.display().to_string());
        return rerun_with_sudo(&again);
    }
    let layout = layout(&opts.scope, &env_var)?;
    let manifest = manifest_text(&layout.library)?;
    replace_file(&layout.library, |tmp| fs::copy(&source, tmp).map(|_| ()))?;
    replace_file(&layout.manifest, |tmp| fs::write(tmp, &manifest))?;

    let undo = ["cargo xtask uninstall".to_string()]
        .into_iter()
        .chain(scope_args(&opts.scope))
        .collect::<Vec<_>>()
        .join(" ");
    println!("Installed Tessera:");
    println!(
        "  {}  (a copy of {})",
        layout.library.display(),
        source.display()
    );
    println!("  {}  (library_path: the copy)", layout.manifest.display());
    println!(
        "The copy does not change when you rebuild or run `cargo clean`; run the same \
         `cargo xtask install` again to update it."
    );
    for note in search_path_notes(&opts.scope, &layout) {
        println!("Note: {note}");
    }
    println!("To undo: {undo}");
    Ok(())
}

/// Why a program might still not see the installed manifest.
fn search_path_notes(scope: &Scope, layout: &Layout) -> Vec<String> {
    let mut notes = Vec::new();
    if let Scope::Prefix(_) = scope {
        let icd_d = layout.manifest.parent().unwrap_or(Path::new("/"));
        let share = icd_d
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/"));
        let data_home = absolute_var(&env_var, "XDG_DATA_HOME")
            .or_else(|| absolute_var(&env_var, "HOME").map(|h| h.join(".local/share")));
        let data_dirs = env_var("XDG_DATA_DIRS")
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        let searched = data_home.as_deref() == Some(share)
            || std::env::split_paths(&data_dirs).any(|d| d == share);
        if !searched {
            notes.push(format!(
                "the loader searches {} only when {} is $XDG_DATA_HOME or in $XDG_DATA_DIRS",
                icd_d.display(),
                share.display()
            ));
        }
    }
    for var in ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"] {
        if env_var(var).is_some_and(|v| !v.is_empty()) {
            notes.push(format!(
                "{var} is set in this shell; it replaces the loader's default search, so \
                 programs started from here do not see the installed manifest"
            ));
        }
    }
    notes
}

/// `cargo xtask uninstall [--system | --prefix DIR]`.
pub(crate) fn uninstall(args: &[String]) -> Result<(), String> {
    let Some(opts) = parse(args, false, UNINSTALL_USAGE)? else {
        println!("{UNINSTALL_USAGE}");
        return Ok(());
    };
    let layout = layout(&opts.scope, &env_var)?;
    let anything = layout.manifest.exists() || layout.lib_dir.exists();
    if opts.scope == Scope::System && anything && !is_root() {
        return rerun_with_sudo(&["uninstall".into(), "--system".into()]);
    }
    let removed = remove_installation(&layout)?;
    if removed.is_empty() {
        println!(
            "Nothing to remove: no Tessera installation at {} and {}",
            layout.library.display(),
            layout.manifest.display()
        );
    }
    for path in removed {
        println!("Removed {}", path.display());
    }
    Ok(())
}

/// Removes what `install` wrote for `layout` and returns the removed paths.
fn remove_installation(layout: &Layout) -> Result<Vec<PathBuf>, String> {
    let mut removed = Vec::new();
    let remove = |path: &Path, removed: &mut Vec<PathBuf>| match fs::remove_file(path) {
        Ok(()) => {
            removed.push(path.to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    };
    match fs::read_to_string(&layout.manifest) {
        Ok(text) if manifest_points_to(&text, &layout.library) => {
            remove(&layout.manifest, &mut removed)?;
        }
        Ok(_) => eprintln!(
            "xtask: leaving {}: its library_path is not {}, so `cargo xtask install` did not \
             write it",
            layout.manifest.display(),
            layout.library.display()
        ),
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", layout.manifest.display())),
    }
    remove(&layout.library, &mut removed)?;
    // Our own folder goes too, but only when nothing else is in it.
    let empty = fs::read_dir(&layout.lib_dir).is_ok_and(|mut d| d.next().is_none());
    if empty {
        fs::remove_dir(&layout.lib_dir)
            .map_err(|e| format!("{}: {e}", layout.lib_dir.display()))?;
        removed.push(layout.lib_dir.clone());
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn parses_scopes() {
        let p = |v: &[&str]| parse(&args(v), true, "u");
        assert_eq!(p(&[]).unwrap().unwrap().scope, Scope::User);
        assert_eq!(p(&["--system"]).unwrap().unwrap().scope, Scope::System);
        let o = p(&["--prefix", "/p", "--library=/l.so"]).unwrap().unwrap();
        assert_eq!(o.scope, Scope::Prefix("/p".into()));
        assert_eq!(o.library, Some("/l.so".into()));
        assert_eq!(
            p(&["--prefix=/q"]).unwrap().unwrap().scope,
            Scope::Prefix("/q".into())
        );
        assert_eq!(p(&["--help"]).unwrap(), None);
        assert!(
            p(&["--system", "--prefix", "/p"])
                .unwrap_err()
                .contains("at most one")
        );
        assert!(p(&["--prefix"]).unwrap_err().contains("needs a value"));
        assert!(p(&["--prefix="]).unwrap_err().contains("needs a value"));
        assert!(p(&["--system=yes"]).is_err());
        assert!(p(&["--frobnicate"]).unwrap_err().contains("--frobnicate"));
        // uninstall takes no --library.
        assert!(parse(&args(&["--library", "/l.so"]), false, "u").is_err());
    }

    #[test]
    fn user_layout_honours_xdg_data_home() {
        let l = layout(&Scope::User, &env(&[("HOME", "/home/u")])).unwrap();
        assert_eq!(
            l.library,
            Path::new("/home/u/.local/lib/tessera/libtessera_icd.so")
        );
        assert_eq!(l.lib_dir, Path::new("/home/u/.local/lib/tessera"));
        assert_eq!(
            l.manifest,
            Path::new("/home/u/.local/share/vulkan/icd.d/tessera_icd.json")
        );
        let l = layout(
            &Scope::User,
            &env(&[("HOME", "/home/u"), ("XDG_DATA_HOME", "/data/u")]),
        )
        .unwrap();
        assert_eq!(
            l.manifest,
            Path::new("/data/u/vulkan/icd.d/tessera_icd.json")
        );
        assert_eq!(
            l.library,
            Path::new("/home/u/.local/lib/tessera/libtessera_icd.so")
        );
        // Empty and relative values are ignored, as the XDG spec says.
        for bad in ["", "relative/share"] {
            let l = layout(
                &Scope::User,
                &env(&[("HOME", "/home/u"), ("XDG_DATA_HOME", bad)]),
            )
            .unwrap();
            assert_eq!(
                l.manifest,
                Path::new("/home/u/.local/share/vulkan/icd.d/tessera_icd.json")
            );
        }
        assert!(layout(&Scope::User, &env(&[])).is_err());
    }

    #[test]
    fn system_and_prefix_layouts() {
        let l = layout(&Scope::System, &env(&[])).unwrap();
        assert_eq!(
            l.library,
            Path::new("/usr/local/lib/tessera/libtessera_icd.so")
        );
        assert_eq!(
            l.manifest,
            Path::new("/usr/local/share/vulkan/icd.d/tessera_icd.json")
        );
        let l = layout(&Scope::Prefix("/opt/t".into()), &env(&[])).unwrap();
        assert_eq!(l.library, Path::new("/opt/t/lib/tessera/libtessera_icd.so"));
        assert_eq!(
            l.manifest,
            Path::new("/opt/t/share/vulkan/icd.d/tessera_icd.json")
        );
        // A relative prefix becomes absolute.
        let l = layout(&Scope::Prefix("rel".into()), &env(&[])).unwrap();
        assert!(l.manifest.is_absolute() && l.library.is_absolute());
        assert_eq!(scope_args(&Scope::System), ["--system"]);
        assert_eq!(
            scope_args(&Scope::Prefix("/opt/t".into())),
            ["--prefix", "/opt/t"]
        );
    }

    #[test]
    fn manifest_has_the_repository_fields_and_an_absolute_library() {
        let lib = Path::new("/opt/t/lib/tessera/libtessera_icd.so");
        let text = manifest_text(lib).unwrap();
        let ours: serde_json::Value = serde_json::from_str(&text).unwrap();
        let repo: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(root().join("icd-manifest/tessera_icd.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(ours["ICD"]["library_path"], lib.to_str().unwrap());
        assert_eq!(ours["file_format_version"], repo["file_format_version"]);
        for field in ["api_version", "library_arch", "is_portability_driver"] {
            assert_eq!(ours["ICD"][field], repo["ICD"][field], "{field}");
        }
        assert!(manifest_points_to(&text, lib));
        assert!(!manifest_points_to(
            &text,
            Path::new("/elsewhere/libtessera_icd.so")
        ));
        assert!(!manifest_points_to("not json", lib));
    }
}
