//! Shared by the differential fuzzer (`fuzz.rs`) and the lowering tests (`lowerings/`): a
//! test case (SPIR-V words, bound buffers and tensors as host memory, a dispatch size), running
//! it on the interpreter and on the JIT, and comparing the two bit for bit (float elements
//! compare NaN-ness only, see [`Elem`]).

#![allow(dead_code)]

pub mod generator;
pub mod rng;

use std::collections::HashMap;

use tessera_spirv::{BoundResource, Module, Program, Resources, TensorElement};

/// How the elements of a binding compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// Integers and bools: bit for bit.
    Int(usize),
    /// IEEE floats of 2, 4 or 8 bytes: bit for bit, except that any NaN equals any NaN (NaN
    /// payloads and signs are not defined the same way by Rust's and Cranelift's code; see the
    /// crate's fuzz docs).
    Float(usize),
}

impl Elem {
    pub fn bytes(self) -> usize {
        match self {
            Elem::Int(b) | Elem::Float(b) => b,
        }
    }
}

/// A tensor view over a binding's bytes.
#[derive(Debug, Clone)]
pub struct TensorView {
    pub format: TensorElement,
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
}

/// One bound descriptor (set 0).
#[derive(Debug, Clone)]
pub struct Binding {
    pub binding: u32,
    pub init: Vec<u8>,
    pub elem: Elem,
    pub tensor: Option<TensorView>,
    pub name: String,
}

/// A runnable case.
#[derive(Debug, Clone)]
pub struct Case {
    pub words: Vec<u32>,
    pub bindings: Vec<Binding>,
    pub dispatch: [u32; 3],
    /// A short description (what the generator chose).
    pub summary: String,
}

struct Res(HashMap<(u32, u32, u32), BoundResource>);

impl Resources for Res {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        self.0.get(&(set, binding, index))
    }
}

/// 8-byte aligned host memory.
struct Memory {
    words: Vec<u64>,
    len: usize,
}

impl Memory {
    fn new(init: &[u8]) -> Memory {
        let words = init
            .chunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        Memory {
            words,
            len: init.len(),
        }
    }

    fn bytes(&self) -> Vec<u8> {
        self.words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(self.len)
            .collect()
    }
}

/// The JIT's statistics of one run, when it ran on the JIT.
pub type Outputs = Vec<Vec<u8>>;

/// Runs `case` once on fresh copies of its bindings: on the interpreter (`kernel` = None) or
/// with compiled code. Returns every binding's bytes afterwards.
pub fn dispatch(
    case: &Case,
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    threads: usize,
) -> Result<Outputs, String> {
    dispatch_watched(case, program, kernel, threads, &|| None)
}

/// [`dispatch`] under the watchdog `stop` (see `Program::dispatch_watched`).
pub fn dispatch_watched(
    case: &Case,
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    threads: usize,
    stop: &(dyn Fn() -> Option<String> + Sync),
) -> Result<Outputs, String> {
    let mut mems: Vec<Memory> = case.bindings.iter().map(|b| Memory::new(&b.init)).collect();
    let mut res = Res(HashMap::new());
    for (b, m) in case.bindings.iter().zip(mems.iter_mut()) {
        let ptr = m.words.as_mut_ptr().cast::<u8>();
        let record = match &b.tensor {
            Some(t) => BoundResource::Tensor {
                ptr,
                len: m.len,
                format: t.format,
                dims: t.dims.clone(),
                strides: t.strides.clone(),
            },
            None => BoundResource::Buffer { ptr, len: m.len },
        };
        res.0.insert((0, b.binding, 0), record);
    }
    let done = match kernel {
        // SAFETY: every record points into a `Memory` of `mems`, alive and untouched until the
        // dispatch returns.
        Some(k) => unsafe {
            program.dispatch_kernel(k, &res, &[], [0; 3], case.dispatch, threads, stop)
        },
        // SAFETY: as above.
        None => unsafe {
            program.dispatch_watched(&res, &[], [0; 3], case.dispatch, threads, stop)
        },
    };
    done.map_err(|e| format!("dispatch [{threads} thread(s)]: {e}"))?;
    drop(res);
    Ok(mems.iter().map(Memory::bytes).collect())
}

fn is_nan(bits: u64, bytes: usize) -> bool {
    match bytes {
        2 => (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0,
        4 => f32::from_bits(bits as u32).is_nan(),
        8 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// The first difference between two runs' outputs, described.
pub fn compare(case: &Case, want: &Outputs, got: &Outputs) -> Option<String> {
    for ((b, w), g) in case.bindings.iter().zip(want).zip(got) {
        let n = b.elem.bytes();
        for (i, (x, y)) in w.chunks(n).zip(g.chunks(n)).enumerate() {
            if x == y {
                continue;
            }
            let mut xb = [0u8; 8];
            let mut yb = [0u8; 8];
            xb[..x.len()].copy_from_slice(x);
            yb[..y.len()].copy_from_slice(y);
            let (xv, yv) = (u64::from_le_bytes(xb), u64::from_le_bytes(yb));
            if let Elem::Float(f) = b.elem
                && x.len() == f
                && is_nan(xv, f)
                && is_nan(yv, f)
            {
                continue;
            }
            return Some(format!(
                "binding {} ({}): element {i}: interpreter {xv:#x}, jit {yv:#x}",
                b.binding, b.name
            ));
        }
    }
    None
}

/// What running a case on both backends found.
#[derive(Debug)]
pub enum Verdict {
    Agree,
    /// The interpreter rejected the module (a generator bug, or a lowering gap).
    Rejected(String),
    /// The JIT could not compile what the interpreter accepts.
    NoCompile(String),
    Differ(String),
}

/// Parses, lowers, compiles and runs `case` on both backends and 1 and 2 threads.
pub fn check(case: &Case) -> (Verdict, Option<tessera_jit::JitKernel>) {
    let module = match Module::parse(&case.words) {
        Ok(m) => m,
        Err(e) => return (Verdict::Rejected(format!("parse: {e}")), None),
    };
    let program = match Program::new(&module, "main", &[]) {
        Ok(p) => p,
        Err(e) => return (Verdict::Rejected(format!("lower: {e}")), None),
    };
    let kernel = match tessera_jit::compile(&program) {
        Ok(k) => k,
        Err(e) => return (Verdict::NoCompile(e.to_string()), None),
    };
    let reference = match dispatch(case, &program, None, 1) {
        Ok(o) => o,
        Err(e) => return (Verdict::Rejected(format!("interpreter: {e}")), Some(kernel)),
    };
    let runs: [(bool, usize); 3] = [(false, 2), (true, 1), (true, 2)];
    for (jit, threads) in runs {
        let got = match dispatch(case, &program, jit.then_some(&kernel), threads) {
            Ok(o) => o,
            Err(e) => return (Verdict::Differ(e), Some(kernel)),
        };
        if let Some(d) = compare(case, &reference, &got) {
            let who = if jit { "jit" } else { "interpreter" };
            return (
                Verdict::Differ(format!(
                    "{who} on {threads} thread(s) vs interpreter on 1: {d}"
                )),
                Some(kernel),
            );
        }
    }
    (Verdict::Agree, Some(kernel))
}

/// A code store in memory (`tessera_jit::cache::CodeStore`).
#[derive(Default)]
#[allow(dead_code)]
pub struct MemoryStore(pub std::sync::Mutex<HashMap<tessera_jit::cache::CodeKey, Vec<u8>>>);

impl tessera_jit::cache::CodeStore for MemoryStore {
    fn get(&self, key: &tessera_jit::cache::CodeKey) -> Option<Vec<u8>> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: &tessera_jit::cache::CodeKey, sealed: &[u8]) {
        if let Ok(mut entries) = self.0.lock() {
            entries.insert(*key, sealed.to_vec());
        }
    }
}
