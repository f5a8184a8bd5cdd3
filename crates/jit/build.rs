//! Fingerprints the sources the code generator is built from: this crate, `tessera-spirv` (the
//! IR and its lowering), `tessera-coop` (the kernels compiled code calls) and the workspace's
//! lock file (Cranelift's version). A kernel kept whole in a code store (`saved`) is keyed by
//! this fingerprint, so a driver built from other sources never takes code another one made.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The files under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest.join("../..");
    let mut files = Vec::new();
    for dir in ["crates/jit/src", "crates/spirv/src", "crates/coop/src"] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        files_under(&dir, &mut files);
    }
    for file in [
        "Cargo.lock",
        "crates/jit/Cargo.toml",
        "crates/spirv/Cargo.toml",
        "crates/coop/Cargo.toml",
    ] {
        let file = root.join(file);
        println!("cargo:rerun-if-changed={}", file.display());
        files.push(file);
    }
    files.sort();
    let mut hasher = Sha256::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap_or(file);
        let bytes = std::fs::read(file).unwrap_or_default();
        hasher.update(name.to_string_lossy().as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest: [u8; 32] = hasher.finalize().into();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(
        out.join("fingerprint.rs"),
        format!("pub(crate) const SOURCE_FINGERPRINT: [u8; 32] = {digest:?};\n"),
    )
    .expect("OUT_DIR is writable");
}
