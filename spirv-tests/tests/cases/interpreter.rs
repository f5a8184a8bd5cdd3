//! The `interpreter` and `jit` backends: run a case on tessera-spirv directly, with its
//! interpreter or with the Cranelift JIT (`tessera-jit`; the case fails if the JIT cannot
//! compile the shader). Buffers and tensors are host memory records; optimal tensors are
//! packed. Each run executes on 1 and on 2 worker threads. On the JIT, a case whose compiled
//! code hands chunks to the interpreter must be listed in `spirv-tests/hand_backs.txt`, and a
//! case named there must still hand back; the cases of [`COMPILED_ROUNDS`] must run every sync
//! block in compiled code.

use std::collections::HashMap;

use tessera_spirv::{BoundResource, Module, PhysicalRange, Program, Resources, TensorElement};
use tessera_spirv_tests::{Elem, Kind, MatrixConversion, Run};

use crate::{Backend, check};

/// Runs cases on tessera-spirv in-process: the interpreter, or compiled code when `jit`.
pub struct Direct {
    pub jit: bool,
}

impl Backend for Direct {
    fn name(&self) -> &'static str {
        if self.jit { "jit" } else { "interpreter" }
    }

    fn run(&self, run: &Run) -> Result<(), String> {
        let module = Module::parse(&run.spirv).map_err(|e| format!("parse: {e}"))?;
        let program = Program::new(&module, &run.entry, &run.spec_pairs())
            .map_err(|e| format!("lower: {e}"))?;
        check_declarations(run, &program)?;
        let kernel = if self.jit {
            Some(tessera_jit::compile(&program).map_err(|e| format!("compile: {e}"))?)
        } else {
            None
        };
        for threads in [1, 2] {
            let got = dispatch(run, &program, kernel.as_ref(), threads)?;
            check(run, &got, &format!(" [{threads} thread(s)]"))?;
        }
        match kernel {
            Some(k) => {
                expected_hand_backs(run, &k)?;
                matrix_fusions(run, &k)?;
                compiled_rounds(run, &k)
            }
            None => Ok(()),
        }
    }
}

/// Cases whose sync blocks (barriers, subgroup reductions) compiled code runs in its own
/// rounds: the driver runs none of them on the interpreter. (A loop around a subgroup
/// operation is not among them: its latch is guarded, `ir::sched`, and the driver runs each
/// chunk to it and the reduction for the group.)
const COMPILED_ROUNDS: &[&str] = &[
    "atomic_rounds",
    "atomic_updates",
    "sg_reduce_rounds",
    "sg_scan_shuffle_rounds",
    "sg_tiny::wgs32",
    "sg_wide_rounds",
    "barrier_small_array",
];

/// Runs whose matrix loads multiply-adds read in place, and whose multiply-adds run several
/// to a kernel call: (run, loads, multiply-adds), counted at compile time (`matrix_fusions`).
/// A GEMM step loads two `A`s (16 columns: read in place for f16, not for the 32-column s8
/// ones) and two `B`s, and multiplies them four times in one call. The array form's loops over
/// its tiles are written out in lowering (`unroll`), so its step is the unrolled one; in the
/// unrolled form the loop over `K` (4 and 3 steps here) is written out too, one batch a step.
const MATRIX_FUSIONS: &[(&str, u32, u32)] = &[
    ("coopmat_gemm_unrolled::f16_f32_k64", 16, 16),
    ("coopmat_gemm_unrolled::s8_s32_k96", 6, 12),
    ("coopmat_gemm::f16_f32_k64", 4, 4),
];

fn matrix_fusions(run: &Run, kernel: &tessera_jit::JitKernel) -> Result<(), String> {
    let Some(&(_, loads, products)) = MATRIX_FUSIONS.iter().find(|m| m.0 == run.name) else {
        return Ok(());
    };
    let got = kernel.matrix_fusions();
    if got != (loads, products) {
        return Err(format!(
            "compiled code reads {} matrix load(s) in place and batches {} multiply-add(s); \
             expected {loads} and {products}",
            got.0, got.1
        ));
    }
    Ok(())
}

fn compiled_rounds(run: &Run, kernel: &tessera_jit::JitKernel) -> Result<(), String> {
    let ran = kernel.run_stats().sync_blocks;
    if COMPILED_ROUNDS.contains(&run.name.as_str()) && ran > 0 {
        return Err(format!(
            "the driver ran {ran} sync block(s) on the interpreter; compiled code should run them"
        ));
    }
    Ok(())
}

/// The patterns of `spirv-tests/hand_backs.txt` (see the module docs).
fn hand_back_patterns() -> &'static [String] {
    static PATTERNS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        let path = tessera_spirv_tests::cases_dir().join("../hand_backs.txt");
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split('#').next())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    })
}

/// Whether `name` matches `pattern` (`*`: any run of characters).
fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            name.starts_with(head)
                && (0..=name.len() - head.len()).any(|k| glob(rest, &name[head.len() + k..]))
        }
    }
}

/// A case hands chunks to the interpreter only where `hand_backs.txt` says it does.
fn expected_hand_backs(run: &Run, kernel: &tessera_jit::JitKernel) -> Result<(), String> {
    let handed = kernel.run_stats().hand_backs;
    let patterns = hand_back_patterns();
    let listed = patterns.iter().find(|p| glob(p, &run.name));
    match (handed, listed) {
        (0, Some(p)) if p == &run.name => Err(format!(
            "no chunk was handed to the interpreter: remove `{p}` from spirv-tests/hand_backs.txt"
        )),
        (n, None) if n > 0 => Err(format!(
            "compiled code handed {n} chunk(s) to the interpreter (at (block, op): {:?}); \
             list the case in spirv-tests/hand_backs.txt with the reason if that is expected",
            kernel.hand_back_sites()
        )),
        _ => Ok(()),
    }
}

/// The bound descriptors, and every buffer's memory as a device-memory range (at its host
/// address, as the driver hands out buffer device addresses).
struct Res(HashMap<(u32, u32, u32), BoundResource>, Vec<PhysicalRange>);

impl Resources for Res {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        self.0.get(&(set, binding, index))
    }

    fn physical_ranges(&self) -> &[PhysicalRange] {
        &self.1
    }
}

fn element(format: Elem) -> TensorElement {
    match format {
        Elem::Bool => TensorElement::Bool8,
        Elem::U8 => TensorElement::U8,
        Elem::I8 => TensorElement::I8,
        Elem::U16 => TensorElement::U16,
        Elem::I16 => TensorElement::I16,
        Elem::F16 => TensorElement::F16,
        Elem::U32 => TensorElement::U32,
        Elem::I32 => TensorElement::I32,
        Elem::F32 => TensorElement::F32,
        Elem::U64 => TensorElement::U64,
        Elem::I64 => TensorElement::I64,
        Elem::F64 => TensorElement::F64,
        Elem::Bf16 => TensorElement::BF16,
        Elem::E4m3 => TensorElement::F8E4M3,
        Elem::E5m2 => TensorElement::F8E5M2,
    }
}

/// 8-byte aligned memory (atomics need natural alignment), `len` bytes of it in use.
struct Memory {
    words: Vec<u64>,
    len: usize,
}

impl Memory {
    fn new(init: &[u8]) -> Memory {
        let words = init
            .chunks(8)
            .map(|chunk| {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                u64::from_le_bytes(b)
            })
            .collect();
        Memory {
            words,
            len: init.len(),
        }
    }

    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }

    fn write(&mut self, at: usize, bytes: &[u8]) {
        for (k, &b) in bytes.iter().enumerate() {
            let (w, s) = ((at + k) / 8, (at + k) % 8);
            self.words[w] = (self.words[w] & !(0xff << (8 * s))) | (u64::from(b) << (8 * s));
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

/// One dispatch on fresh copies of the initial contents; returns every binding's memory.
fn dispatch(
    run: &Run,
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    threads: usize,
) -> Result<Vec<Vec<Vec<u8>>>, String> {
    let mut memories: Vec<Vec<Memory>> = run
        .bindings
        .iter()
        .map(|b| b.elements.iter().map(|e| Memory::new(&e.init)).collect())
        .collect();
    let index = |sb: [u32; 2]| {
        run.bindings
            .iter()
            .position(|b| b.set == sb[0] && b.binding == sb[1])
    };
    let addresses: Vec<u64> = memories.iter_mut().map(|m| m[0].ptr() as u64).collect();
    let push = run.patch_addresses(
        &|set, binding| index([set, binding]).map_or(0, |i| addresses[i]),
        &mut |into, at, bytes| {
            if let Some(i) = index(into) {
                memories[i][0].write(at, &bytes);
            }
        },
    );
    for c in &run.matrices {
        let i = index(c.binding).ok_or("a matrix conversion names no binding")?;
        let converted = convert_matrix(c, &memories[i][0].bytes())?;
        memories[i][0].write(c.dst_at, &converted);
    }
    let mut res = Res(HashMap::new(), Vec::new());
    for (b, mems) in run.bindings.iter().zip(memories.iter_mut()) {
        for (k, (e, m)) in b.elements.iter().zip(mems.iter_mut()).enumerate() {
            let record = match (&e.tensor, b.kind) {
                (Some(t), Kind::Tensor) => BoundResource::Tensor {
                    ptr: m.ptr(),
                    len: m.len,
                    format: element(t.format),
                    dims: t.dims.clone(),
                    // Optimal tiling has no layout of its own here: it is packed.
                    strides: t.effective_strides(),
                },
                _ => BoundResource::Buffer {
                    ptr: m.ptr(),
                    len: e.buffer_range(),
                },
            };
            if b.kind != Kind::Tensor {
                res.1.push(PhysicalRange {
                    address: m.ptr() as u64,
                    ptr: m.ptr(),
                    len: m.len,
                });
            }
            res.0.insert((b.set, b.binding, k as u32), record);
        }
    }
    // SAFETY: every record and physical range points into a `Memory` in `memories` (a buffer's
    // range is at most its memory's length), alive and not otherwise accessed until the
    // dispatch returns.
    let done = match kernel {
        // SAFETY: as above.
        Some(k) => unsafe {
            program.dispatch_kernel(k, &res, &push, run.base, run.dispatch, threads, &|| None)
        },
        // SAFETY: as above.
        None => unsafe { program.dispatch(&res, &push, run.base, run.dispatch, threads) },
    };
    done.map_err(|e| format!("dispatch [{threads} thread(s)]: {e}"))?;
    drop(res);
    Ok(memories
        .iter()
        .map(|mems| mems.iter().map(Memory::bytes).collect())
        .collect())
}

/// What `vkConvertCooperativeVectorMatrixNV` makes of conversion `c` of `memory`: the
/// destination bytes (checked to fit the oracle's room).
fn convert_matrix(c: &MatrixConversion, memory: &[u8]) -> Result<Vec<u8>, String> {
    use tessera_coop::{ComponentType, Matrix, MatrixLayout};
    let ty = ComponentType::from_raw(c.component).ok_or("unknown component type")?;
    let src = Matrix {
        rows: c.rows,
        cols: c.cols,
        ty,
        layout: MatrixLayout::RowMajor,
        stride: c.src_stride,
    };
    let dst = Matrix {
        layout: MatrixLayout::from_raw(c.layout).ok_or("unknown matrix layout")?,
        stride: c.dst_stride,
        ..src
    };
    tessera_coop::check(&src, &dst).map_err(|e| e.to_string())?;
    if dst.size() > c.capacity {
        return Err(format!(
            "the converted matrix takes {} bytes; the case has room for {}",
            dst.size(),
            c.capacity
        ));
    }
    let mut out = memory[c.dst_at..c.dst_at + dst.size()].to_vec();
    tessera_coop::convert(&src, &memory[c.src_at..], &dst, &mut out);
    Ok(out)
}

fn check_declarations(run: &Run, program: &Program) -> Result<(), String> {
    for d in program.resources() {
        let Some(b) = run
            .bindings
            .iter()
            .find(|b| b.set == d.set && b.binding == d.binding)
        else {
            return Err(format!(
                "the shader uses set {} binding {}, which the case does not bind",
                d.set, d.binding
            ));
        };
        let want = d.array_len.unwrap_or(1).max(1) as usize;
        if b.elements.len() != want {
            return Err(format!(
                "set {} binding {}: the shader declares {want} descriptor(s), the case binds {}",
                d.set,
                d.binding,
                b.elements.len()
            ));
        }
    }
    Ok(())
}
