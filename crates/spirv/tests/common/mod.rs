//! Shared helpers for the integration tests: loading SPIR-V from the spirv-tests corpus, binding
//! host buffers and tensors, and running dispatches. The value checks of these shaders are cases
//! of the corpus (`spirv-tests/cases`); the tests here check what a case cannot express.
#![allow(dead_code)]

use std::collections::HashMap;
use tessera_spirv::{BoundResource, Module, Program, Resources, TensorElement};

/// The words of `spirv-tests/<path>`: a case's shader (`cases/<case>/<name>.spv`) or one of
/// `shaders/` (built by `cargo xtask regen`).
pub fn words(path: &str) -> Vec<u32> {
    let path = format!("{}/../../spirv-tests/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn program(name: &str, spec: &[(u32, Vec<u8>)]) -> Program {
    let m = Module::parse(&words(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Program::new(&m, "main", spec).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[derive(Default)]
pub struct Res(pub HashMap<(u32, u32, u32), BoundResource>);

impl Resources for Res {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        self.0.get(&(set, binding, index))
    }
}

impl Res {
    pub fn buf(&mut self, binding: u32, v: &mut [u8]) -> &mut Self {
        self.0.insert(
            (0, binding, 0),
            BoundResource::Buffer {
                ptr: v.as_mut_ptr(),
                len: v.len(),
            },
        );
        self
    }
    pub fn tensor(
        &mut self,
        binding: u32,
        v: &mut [u8],
        format: TensorElement,
        dims: &[u64],
        strides: &[u64],
    ) -> &mut Self {
        self.0.insert(
            (0, binding, 0),
            BoundResource::Tensor {
                ptr: v.as_mut_ptr(),
                len: v.len(),
                format,
                dims: dims.to_vec(),
                strides: strides.to_vec(),
            },
        );
        self
    }
}

pub fn run(p: &Program, res: &Res, push: &[u8], count: [u32; 3], threads: usize) {
    // SAFETY: every record in `res` points into a live Vec owned by the test for the whole call.
    unsafe { p.dispatch(res, push, [0, 0, 0], count, threads) }.expect("dispatch");
}

pub fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn to_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
pub fn to_i32(b: &[u8]) -> Vec<i32> {
    to_u32(b).into_iter().map(|x| x as i32).collect()
}

/// Little-endian element `k` of size `size` bytes.
pub fn get_le(b: &[u8], off: usize, size: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..size].copy_from_slice(&b[off..off + size]);
    u64::from_le_bytes(x)
}
pub fn put_le(b: &mut [u8], off: usize, size: usize, v: u64) {
    b[off..off + size].copy_from_slice(&v.to_le_bytes()[..size]);
}

/// Packed strides (bytes, outermost first).
pub fn packed(dims: &[u64], esize: u64) -> Vec<u64> {
    let mut s = vec![0; dims.len()];
    let mut acc = esize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc *= dims[i];
    }
    s
}

/// CTS-style padded strides: each outer stride gets 13 elements of padding.
pub fn padded(dims: &[u64], esize: u64) -> Vec<u64> {
    let mut s = vec![0; dims.len()];
    let mut acc = esize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc * dims[i] + 13 * esize;
    }
    s
}

/// Bytes needed for a tensor with these dims/strides.
pub fn span(dims: &[u64], strides: &[u64], esize: u64) -> usize {
    (dims
        .iter()
        .zip(strides)
        .map(|(d, s)| (d - 1) * s)
        .sum::<u64>()
        + esize) as usize
}

/// Byte offset of the element with linear (row-major) index `idx`.
pub fn offset_of(idx: u64, dims: &[u64], strides: &[u64]) -> usize {
    let mut rem = idx;
    let mut off = 0;
    for i in (0..dims.len()).rev() {
        off += (rem % dims[i]) * strides[i];
        rem /= dims[i];
    }
    off as usize
}

/// Push-constant block `uint dims[8]`.
pub fn dims_push(dims: &[u64]) -> Vec<u8> {
    let mut d = [0u32; 8];
    for (i, x) in dims.iter().enumerate() {
        d[i] = *x as u32;
    }
    u32s(&d)
}

/// Tiny deterministic PRNG.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
