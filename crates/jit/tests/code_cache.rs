//! The code cache (`tessera_jit::cache`) end to end: a second compile of the same program takes
//! the whole kernel from the store and runs it with the interpreter's results; a damaged
//! entry, in memory or on disk, is a miss that compiles again and rewrites the entry, never
//! code that runs. A store holds two entries per kernel: the whole kernel, and Cranelift's
//! machine code of its function, which a compile takes when the whole kernel is missing.

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

/// A copy of every entry of `store`: (key, sealed bytes).
fn entries(store: &MemoryStore) -> Vec<(tessera_jit::cache::CodeKey, Vec<u8>)> {
    store
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

/// What of a kernel came from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Miss,
    /// Cranelift's machine code; the code generator ran.
    Code,
    Whole,
}

/// Compiles `program` with `store` and checks the code against the interpreter; returns
/// what came from the store.
fn compile_and_check(case: &Case, program: &Program, store: &dyn CodeStore) -> Hit {
    let kernel = tessera_jit::compile_with(program, Some(store)).expect("compiles");
    let want = dispatch(case, program, None, 1).unwrap();
    let got = dispatch(case, program, Some(&kernel), 2).unwrap();
    if let Some(d) = compare(case, &want, &got) {
        panic!("{}: {d}", case.summary);
    }
    match (kernel.from_cache(), kernel.whole_from_cache()) {
        (false, _) => Hit::Miss,
        (true, false) => Hit::Code,
        (true, true) => Hit::Whole,
    }
}

#[test]
fn a_second_compile_takes_the_code_from_the_store() {
    let store = MemoryStore::default();
    let cases = cases(6);
    for (case, program) in &cases {
        assert_eq!(
            compile_and_check(case, program, &store),
            Hit::Miss,
            "first compile"
        );
    }
    let entries = store.0.lock().unwrap().len();
    assert!(entries > cases.len() && entries <= 2 * cases.len());
    for (case, program) in &cases {
        assert_eq!(
            compile_and_check(case, program, &store),
            Hit::Whole,
            "{}",
            case.summary
        );
    }
    assert_eq!(store.0.lock().unwrap().len(), entries, "hits add nothing");
}

/// Damage to one of a kernel's two entries: the whole kernel's is a miss that takes
/// Cranelift's code and rewrites it; Cranelift's is not read while the whole kernel is there.
#[test]
fn each_entry_alone_is_damaged() {
    let store = MemoryStore::default();
    let (case, program) = cases(1).pop().unwrap();
    assert_eq!(compile_and_check(&case, &program, &store), Hit::Miss);
    let entries = entries(&store);
    assert_eq!(entries.len(), 2);
    let mut seen = Vec::new();
    for (key, sealed) in entries {
        let mut bad = sealed.clone();
        let at = bad.len() - 1;
        bad[at] ^= 1;
        store.0.lock().unwrap().insert(key, bad);
        let hit = compile_and_check(&case, &program, &store);
        seen.push(hit);
        if hit == Hit::Code {
            assert!(
                open(&key, &store.0.lock().unwrap()[&key]).is_some(),
                "the whole kernel is kept again"
            );
        } else {
            store.0.lock().unwrap().insert(key, sealed);
        }
        assert_eq!(compile_and_check(&case, &program, &store), Hit::Whole);
    }
    seen.sort_by_key(|h| *h as u8);
    assert_eq!(seen, [Hit::Code, Hit::Whole]);
}

#[test]
fn a_damaged_entry_is_compiled_again_and_rewritten() {
    let store = MemoryStore::default();
    let (case, program) = cases(1).pop().unwrap();
    assert_eq!(compile_and_check(&case, &program, &store), Hit::Miss);
    let entries = entries(&store);
    // Every kind of damage, to both entries of the kernel: a flipped byte in the payload, the
    // digest or the magic; truncated; empty; another payload sealed under this key; this
    // entry's payload sealed under another key.
    type Damage = fn(&[u8; 32], &[u8]) -> Vec<u8>;
    fn flip(sealed: &[u8], at: usize) -> Vec<u8> {
        let mut bad = sealed.to_vec();
        bad[at] ^= 0x40;
        bad
    }
    let damages: [Damage; 9] = [
        |_, s| flip(s, 0),
        |_, s| flip(s, 10),
        |_, s| flip(s, 20),
        |_, s| flip(s, s.len() / 2),
        |_, s| flip(s, s.len() - 1),
        |_, s| s[..s.len() / 3].to_vec(),
        |_, _| Vec::new(),
        |key, _| tessera_jit::cache::seal(key, b"neither cranelift's code nor a kernel"),
        |key, s| {
            let mut elsewhere = *key;
            elsewhere[0] ^= 1;
            tessera_jit::cache::seal(&elsewhere, open(key, s).unwrap())
        },
    ];
    for damage in damages {
        for (key, sealed) in &entries {
            store.0.lock().unwrap().insert(*key, damage(key, sealed));
        }
        assert_eq!(
            compile_and_check(&case, &program, &store),
            Hit::Miss,
            "a damaged entry is a miss"
        );
        for (key, _) in &entries {
            let now = store.0.lock().unwrap()[key].clone();
            assert!(open(key, &now).is_some(), "the entry is rewritten");
        }
        assert_eq!(
            compile_and_check(&case, &program, &store),
            Hit::Whole,
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
            assert_eq!(compile_and_check(case, program, &disk), Hit::Miss);
        }
    }
    // Another process (a new cache over the same directory) hits.
    let disk = DiskCache::new(&dir, 64 << 20);
    for (case, program) in &cases {
        assert_eq!(compile_and_check(case, program, &disk), Hit::Whole);
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
        assert_eq!(compile_and_check(case, program, &disk), Hit::Miss);
    }
    for (case, program) in &cases {
        assert_eq!(compile_and_check(case, program, &disk), Hit::Whole);
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
        again.whole_from_cache() && !again.improvable(),
        "the second tier, from the store"
    );
    // Without the store's help the first tier is single-pass again.
    assert!(tessera_jit::compile(&program).unwrap().improvable());
}
