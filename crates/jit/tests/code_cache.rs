//! The code cache (`tessera_jit::cache`) end to end: a second compile of the same program takes
//! its machine code from the store and runs it with the interpreter's results; a damaged
//! entry, in memory or on disk, is a miss that compiles again and rewrites the entry, never
//! code that runs.

mod common;

use common::generator::generate;
use common::{Case, MemoryStore, compare, dispatch};
use tessera_jit::cache::{CodeStore, DiskCache, open};
use tessera_spirv::{Module, Program};

/// Generated cases the interpreter accepts (the fuzzer's programs: loops, tensors, buffers).
fn cases(count: usize) -> Vec<(Case, Program)> {
    (1..)
        .map(generate)
        .filter_map(|case| {
            let module = Module::parse(&case.words).ok()?;
            let program = Program::new(&module, "main", &[]).ok()?;
            dispatch(&case, &program, None, 1).ok()?;
            Some((case, program))
        })
        .take(count)
        .collect()
}

/// Compiles `program` with `store` and checks the code against the interpreter; returns
/// whether the code came from the store.
fn compile_and_check(case: &Case, program: &Program, store: &dyn CodeStore) -> bool {
    let kernel = tessera_jit::compile_with(program, Some(store)).expect("compiles");
    let want = dispatch(case, program, None, 1).unwrap();
    let got = dispatch(case, program, Some(&kernel), 2).unwrap();
    if let Some(d) = compare(case, &want, &got) {
        panic!("{}: {d}", case.summary);
    }
    kernel.from_cache()
}

#[test]
fn a_second_compile_takes_the_code_from_the_store() {
    let store = MemoryStore::default();
    let cases = cases(6);
    for (case, program) in &cases {
        assert!(!compile_and_check(case, program, &store), "first compile");
    }
    let entries = store.0.lock().unwrap().len();
    assert!(entries > 0 && entries <= cases.len());
    for (case, program) in &cases {
        assert!(compile_and_check(case, program, &store), "{}", case.summary);
    }
    assert_eq!(store.0.lock().unwrap().len(), entries, "hits add nothing");
}

#[test]
fn a_damaged_entry_is_compiled_again_and_rewritten() {
    let store = MemoryStore::default();
    let (case, program) = cases(1).pop().unwrap();
    assert!(!compile_and_check(&case, &program, &store));
    let (key, sealed) = store
        .0
        .lock()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (*k, v.clone()))
        .unwrap();
    // Every kind of damage: a flipped byte in the payload, the digest or the magic; truncated;
    // empty; another entry's bytes under this key.
    let mut damaged: Vec<Vec<u8>> = Vec::new();
    for at in [0, 10, 20, sealed.len() / 2, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[at] ^= 0x40;
        damaged.push(bad);
    }
    damaged.push(sealed[..sealed.len() / 3].to_vec());
    damaged.push(Vec::new());
    damaged.push(tessera_jit::cache::seal(
        &key,
        b"not cranelift's serialized code",
    ));
    let mut elsewhere = key;
    elsewhere[0] ^= 1;
    damaged.push(tessera_jit::cache::seal(
        &elsewhere,
        open(&key, &sealed).unwrap(),
    ));
    for bad in damaged {
        store.0.lock().unwrap().insert(key, bad);
        assert!(
            !compile_and_check(&case, &program, &store),
            "a damaged entry is a miss"
        );
        let now = store.0.lock().unwrap()[&key].clone();
        assert!(open(&key, &now).is_some(), "the entry is rewritten");
        assert!(
            compile_and_check(&case, &program, &store),
            "then hits again"
        );
    }
}

#[test]
fn the_disk_cache_survives_damaged_files() {
    let dir = std::env::temp_dir().join(format!("tessera-code-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cases = cases(3);
    {
        let disk = DiskCache::new(&dir, 64 << 20);
        for (case, program) in &cases {
            assert!(!compile_and_check(case, program, &disk));
        }
    }
    // Another process (a new cache over the same directory) hits.
    let disk = DiskCache::new(&dir, 64 << 20);
    for (case, program) in &cases {
        assert!(compile_and_check(case, program, &disk));
    }
    // Truncate or scribble on every file: every compile misses, runs right and rewrites.
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .flat_map(|sub| std::fs::read_dir(sub.path()).unwrap().flatten())
        .map(|f| f.path())
        .collect();
    assert!(!files.is_empty());
    for (i, f) in files.iter().enumerate() {
        let mut bytes = std::fs::read(f).unwrap();
        if i % 2 == 0 {
            bytes.truncate(bytes.len() / 2);
        } else {
            let at = bytes.len() - 5;
            bytes[at] = !bytes[at];
        }
        std::fs::write(f, bytes).unwrap();
    }
    for (case, program) in &cases {
        assert!(!compile_and_check(case, program, &disk));
    }
    for (case, program) in &cases {
        assert!(compile_and_check(case, program, &disk));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program whose function outgrows `SINGLE_PASS_REGALLOC_ABOVE_INSTS` (the corpus's
/// `tensor_ranks_1_to_8`: 500 IR ops, 42 000 instructions) is compiled single-pass and marked
/// improvable; its second tier goes into the store, and the next compile of the program takes
/// that directly.
#[test]
fn a_stored_second_tier_is_taken_directly() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../spirv-tests/cases/tensor_ranks_1_to_8/shader.spv"
    );
    let module = Module::parse_bytes(&std::fs::read(path).unwrap()).unwrap();
    let program = Program::new(&module, "main", &[]).unwrap();
    let store = MemoryStore::default();
    let first = tessera_jit::compile_with(&program, Some(&store)).unwrap();
    assert!(first.improvable(), "a single-pass first tier");
    let second = tessera_jit::compile_optimized(&program, Some(&store)).unwrap();
    assert!(!second.improvable() && !second.from_cache());
    let again = tessera_jit::compile_with(&program, Some(&store)).unwrap();
    assert!(
        again.from_cache() && !again.improvable(),
        "the second tier, from the store"
    );
    // Without the store's help the first tier is single-pass again.
    assert!(tessera_jit::compile(&program).unwrap().improvable());
}
