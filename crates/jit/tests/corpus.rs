//! Every committed SPIR-V module of the repository (the `spirv-tests` cases, the shaders Rust
//! tests load, the scenario-runner scenarios) that the interpreter accepts also compiles on the
//! JIT: `TESSERA_SHADER_BACKEND=jit` must never refuse a shader the corpus relies on. (Whether the
//! compiled code computes the right thing is the `jit::` runs of `spirv-tests`.) Each is kept
//! whole in a code store and read back as the code generator described it.

use std::path::{Path, PathBuf};

use std::collections::HashMap;
use std::sync::Mutex;

use tessera_jit::cache::{CodeKey, CodeStore};
use tessera_spirv::{Module, Program};

#[derive(Default)]
struct Store(Mutex<HashMap<CodeKey, Vec<u8>>>);

impl CodeStore for Store {
    fn get(&self, key: &CodeKey) -> Option<Vec<u8>> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: &CodeKey, sealed: &[u8]) {
        if let Ok(mut entries) = self.0.lock() {
            entries.insert(*key, sealed.to_vec());
        }
    }
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            spv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

#[test]
fn every_committed_shader_compiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spirv-tests");
    let mut files = Vec::new();
    spv_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() > 100,
        "found only {} modules under {}",
        files.len(),
        root.display()
    );
    let mut compiled = 0;
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let Ok(module) = Module::parse_bytes(&bytes) else {
            continue;
        };
        for (entry, compute) in module.entry_points() {
            if !compute {
                continue;
            }
            // Modules the interpreter rejects (the error tests' inputs) are not the JIT's to run.
            let Ok(program) = Program::new(&module, &entry, &[]) else {
                continue;
            };
            let store = Store::default();
            match tessera_jit::compile_with(&program, Some(&store)) {
                Ok(first) => {
                    compiled += 1;
                    let again = tessera_jit::compile_with(&program, Some(&store)).unwrap();
                    if !again.whole_from_cache() || again.describe() != first.describe() {
                        failures.push(format!("{} ({entry}): not kept whole", f.display()));
                    }
                }
                Err(e) => failures.push(format!("{} ({entry}): {e}", f.display())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compiled > 100, "only {compiled} entry points compiled");
}

/// The cooperative-vector and cooperative-matrix cases compile with no op handed to the
/// interpreter: their ops run as native kernels (`tessera-coop`), everything around them as
/// compiled code.
#[test]
fn cooperative_shaders_have_no_interpreted_op() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spirv-tests/cases");
    let mut files = Vec::new();
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("coop") {
            spv_files(&e.path(), &mut files);
        }
    }
    files.sort();
    assert!(
        !files.is_empty(),
        "no cooperative cases under {}",
        root.display()
    );
    let mut interpreted = Vec::new();
    for f in &files {
        let module = Module::parse_bytes(&std::fs::read(f).unwrap()).unwrap();
        let program = Program::new(&module, "main", &[]).unwrap();
        let kernel = tessera_jit::compile(&program).unwrap();
        let (native, through_interpreter) = kernel.op_counts();
        assert!(native > 0, "{}", f.display());
        if through_interpreter != 0 || kernel.lockstep().is_some() {
            interpreted.push(format!(
                "{}: {kernel:?} {:?}",
                f.display(),
                kernel.interpreted_ops()
            ));
        }
    }
    assert!(interpreted.is_empty(), "{}", interpreted.join("\n"));
}

/// What each module of the corpus still hands to the interpreter (an op kind with no native
/// lowering, or the whole program in subgroup lockstep), as `path: reason` lines. The test below
/// pins the list: a new fallback fails it, and so does one that went away (shrink the list).
const KNOWN_FALLBACKS: &[&str] = &[];

#[test]
fn fallbacks_are_the_known_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spirv-tests");
    let mut files = Vec::new();
    spv_files(&root, &mut files);
    files.sort();
    let mut found = Vec::new();
    for f in &files {
        let Ok(module) = Module::parse_bytes(&std::fs::read(f).unwrap()) else {
            continue;
        };
        for (entry, compute) in module.entry_points() {
            let Ok(program) = Program::new(&module, &entry, &[]) else {
                continue;
            };
            if !compute {
                continue;
            }
            let Ok(kernel) = tessera_jit::compile(&program) else {
                continue;
            };
            let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
            if let Some(reason) = kernel.lockstep() {
                found.push(format!("{name}: lockstep: {reason}"));
            }
            for (kind, _) in kernel.fallbacks() {
                found.push(format!("{name}: {kind}"));
            }
        }
    }
    let known: Vec<String> = KNOWN_FALLBACKS.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        found,
        known,
        "the corpus' fallbacks changed:\n{}",
        found.join("\n")
    );
}
