//! `cargo xtask install` / `uninstall` into a temporary prefix, checked through the real Khronos
//! loader: `vulkaninfo` finds Tessera through the default search path alone (no `VK_DRIVER_FILES`,
//! no `VK_ICD_FILENAMES`) once the prefix's `share` folder is `$XDG_DATA_HOME`, and no longer after
//! `uninstall`.
//!
//! Like the end-to-end tests, this needs the release ICD (`cargo build --release -p tessera-icd`);
//! `install --library` installs that build instead of running cargo again.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_tessera-xtask");

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn repo_manifest() -> serde_json::Value {
    let text = fs::read_to_string(workspace_root().join("icd-manifest/tessera_icd.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The release library the repository's manifest points at (as `tessera_e2e::require_icd` finds
/// it), panicking with the build hint when it is missing.
fn release_icd() -> PathBuf {
    let manifest = repo_manifest();
    let rel = manifest["ICD"]["library_path"].as_str().unwrap();
    let lib = workspace_root().join("icd-manifest").join(rel);
    assert!(
        lib.is_file(),
        "the Tessera ICD is not built: {} does not exist; \
         build it with `cargo build --release -p tessera-icd`",
        lib.display()
    );
    lib.canonicalize().unwrap()
}

/// A scratch folder: the install prefix, and empty folders for every other place the loader
/// looks, so that only what `install` wrote can be found.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("xtask-install")
            .join(name);
        let _ = fs::remove_dir_all(&dir);
        for sub in [
            "prefix",
            "empty/home",
            "empty/config",
            "empty/config-dirs",
            "empty/data-dirs",
        ] {
            fs::create_dir_all(dir.join(sub)).unwrap();
        }
        Scratch { dir }
    }

    fn prefix(&self) -> PathBuf {
        self.dir.join("prefix")
    }

    fn manifest(&self) -> PathBuf {
        self.prefix().join("share/vulkan/icd.d/tessera_icd.json")
    }

    fn library(&self) -> PathBuf {
        self.prefix().join("lib/tessera/libtessera_icd.so")
    }

    fn xtask(&self, args: &[&str]) -> Output {
        let out = Command::new(XTASK)
            .args(args)
            .env("HOME", self.dir.join("empty/home"))
            .env_remove("XDG_DATA_HOME")
            .output()
            .unwrap();
        eprintln!(
            "--- xtask {args:?}: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn install(&self) -> String {
        let lib = release_icd();
        let prefix = self.prefix();
        let out = self.xtask(&[
            "install",
            "--prefix",
            prefix.to_str().unwrap(),
            "--library",
            lib.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "install failed");
        String::from_utf8(out.stdout).unwrap()
    }

    fn uninstall(&self) -> String {
        let prefix = self.prefix();
        let out = self.xtask(&["uninstall", "--prefix", prefix.to_str().unwrap()]);
        assert!(out.status.success(), "uninstall failed");
        String::from_utf8(out.stdout).unwrap()
    }

    /// `vulkaninfo --summary` with the loader's default search path (`$XDG_DATA_HOME` = the
    /// prefix's `share`, every other search folder empty) and no driver variables.
    fn vulkaninfo(&self) -> (bool, String, String) {
        let empty = self.dir.join("empty");
        let output = Command::new("vulkaninfo")
            .arg("--summary")
            .env("XDG_DATA_HOME", self.prefix().join("share"))
            .env("XDG_DATA_DIRS", empty.join("data-dirs"))
            .env("XDG_CONFIG_HOME", empty.join("config"))
            .env("XDG_CONFIG_DIRS", empty.join("config-dirs"))
            .env("HOME", empty.join("home"))
            .env("VK_LOADER_LAYERS_DISABLE", "*")
            .env("VK_LOADER_DEBUG", "driver")
            .env_remove("VK_DRIVER_FILES")
            .env_remove("VK_ICD_FILENAMES")
            .env_remove("VK_ADD_DRIVER_FILES")
            .env_remove("VK_LOADER_DRIVERS_SELECT")
            .env_remove("VK_LOADER_DRIVERS_DISABLE")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
                "`vulkaninfo` is not installed: install vulkan-tools \
                 (`apt-get install vulkan-tools`) to run this test"
            ),
            Err(e) => panic!("cannot run vulkaninfo: {e}"),
        };
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

#[test]
fn install_is_found_by_the_loader_and_uninstall_removes_exactly_it() {
    let s = Scratch::new("loader");
    // Files of others in the same folders: uninstall must leave them.
    let foreign_manifest = s.prefix().join("share/vulkan/icd.d/other_icd.json");
    let foreign_lib = s.prefix().join("lib/other.so");
    fs::create_dir_all(foreign_manifest.parent().unwrap()).unwrap();
    fs::create_dir_all(foreign_lib.parent().unwrap()).unwrap();
    fs::write(&foreign_manifest, "{}\n").unwrap();
    fs::write(&foreign_lib, "x").unwrap();

    let stdout = s.install();
    let prefix = s.prefix().display().to_string();
    assert!(
        stdout.contains(&s.manifest().display().to_string()),
        "{stdout}"
    );
    assert!(
        stdout.contains(&s.library().display().to_string()),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("To undo: cargo xtask uninstall --prefix {prefix}")),
        "{stdout}"
    );

    // The manifest: the repository's fields, with an absolute library_path to the copy.
    let text = fs::read_to_string(s.manifest()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let repo = repo_manifest();
    assert_eq!(json["file_format_version"], repo["file_format_version"]);
    assert_eq!(json["ICD"]["api_version"], repo["ICD"]["api_version"]);
    assert_eq!(json["ICD"]["api_version"], "1.3.0");
    assert_eq!(json["ICD"]["library_arch"], repo["ICD"]["library_arch"]);
    assert_eq!(json["ICD"]["is_portability_driver"], false);
    let library = Path::new(json["ICD"]["library_path"].as_str().unwrap());
    assert!(library.is_absolute(), "{}", library.display());
    assert_eq!(library, s.library());
    assert!(library.is_file());
    // A copy, not the build output: rebuilding or `cargo clean` cannot change or break it.
    assert_ne!(library, release_icd());
    assert!(!library.starts_with(release_icd().parent().unwrap()));
    assert_eq!(fs::read(library).unwrap(), fs::read(release_icd()).unwrap());

    // Through the real loader, by the default search path alone.
    let (ok, stdout, stderr) = s.vulkaninfo();
    assert!(
        ok,
        "vulkaninfo failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("Tessera"), "no Tessera in:\n{stdout}");
    assert!(stdout.contains("PHYSICAL_DEVICE_TYPE_CPU"), "{stdout}");
    let log = format!("{stdout}{stderr}");
    assert!(
        log.contains(&s.manifest().display().to_string()),
        "the loader did not report reading {}:\n{log}",
        s.manifest().display()
    );

    // Installing again is fine and leaves the same files.
    s.install();
    assert_eq!(fs::read_to_string(s.manifest()).unwrap(), text);
    let leftovers: Vec<_> = fs::read_dir(s.manifest().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temporary files left: {leftovers:?}");

    // Uninstall removes exactly what install wrote.
    let stdout = s.uninstall();
    assert!(
        stdout.contains(&format!("Removed {}", s.manifest().display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("Removed {}", s.library().display())),
        "{stdout}"
    );
    assert!(!s.manifest().exists());
    assert!(!s.library().exists());
    assert!(!s.prefix().join("lib/tessera").exists());
    assert!(foreign_manifest.is_file() && foreign_lib.is_file());
    assert!(s.prefix().join("share/vulkan/icd.d").is_dir());

    // And the loader no longer finds Tessera.
    let (_, stdout, _) = s.vulkaninfo();
    assert!(
        !stdout.contains("Tessera"),
        "still found after uninstall:\n{stdout}"
    );

    // Uninstalling again has nothing to do.
    let stdout = s.uninstall();
    assert!(stdout.contains("Nothing to remove"), "{stdout}");
}

#[test]
fn uninstall_leaves_a_manifest_that_install_did_not_write() {
    let s = Scratch::new("foreign");
    s.install();
    // Someone replaced the manifest with one of their own (say, a copy of the repository's,
    // whose library_path is relative): it is not ours to remove.
    fs::write(
        s.manifest(),
        serde_json::to_string(&repo_manifest()).unwrap(),
    )
    .unwrap();
    let prefix = s.prefix();
    let out = s.xtask(&["uninstall", "--prefix", prefix.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("leaving"));
    assert!(s.manifest().is_file(), "a foreign manifest was removed");
    assert!(!s.library().exists(), "our library copy stays behind");
}

#[test]
fn bad_arguments_fail() {
    let s = Scratch::new("args");
    for args in [
        &["install", "--system", "--prefix", "/x"][..],
        &["install", "--bogus"][..],
        &["uninstall", "--library", "/x.so"][..],
        &["install", "--prefix"][..],
    ] {
        let out = s.xtask(args);
        assert!(!out.status.success(), "{args:?} succeeded");
    }
    let missing = s.dir.join("missing.so");
    let prefix = s.prefix();
    let out = s.xtask(&[
        "install",
        "--prefix",
        prefix.to_str().unwrap(),
        "--library",
        missing.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(!s.manifest().exists());
}
