//! The JIT's float arithmetic and functions against the interpreter's (`tessera_spirv::alu`
//! and `tessera_spirv::math`), bit for bit, NaN payloads included:
//! - binary16 + − × ÷ min max of every bit pattern, with partners chosen so that each pattern
//!   meets zeros, subnormals, normals, infinities and NaNs of both signs;
//! - GLSL.std.450's float functions (`Sin` … `SmoothStep`, `Sqrt` and the roundings) on
//!   binary16, every pattern, and
//!   on binary32: a quarter of a million operands (random bit patterns, a dense sweep of
//!   [−12, 12], the special values);
//! - float8 encoding (E4M3, E5M2, nearest and saturating) of f32 and of every binary16
//!   pattern, and f32 → binary16 rounded toward zero and to nearest;
//!
//! each shader compiled with no op left to the interpreter.

use tessera_spirv::{BoundResource, Module, Program, Resources};

struct Res(Vec<BoundResource>);

impl Resources for Res {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        (set == 0 && index == 0)
            .then(|| self.0.get(binding as usize))
            .flatten()
    }
}

/// A shader of `spirv-tests/shaders/`, lowered and compiled with no interpreted op.
fn load(name: &str) -> (Program, tessera_jit::JitKernel) {
    let path = format!(
        "{}/../../spirv-tests/shaders/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let spv = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let module = Module::parse_bytes(&spv).unwrap();
    let program = Program::new(&module, "main", &[]).unwrap();
    let kernel = tessera_jit::compile(&program).unwrap();
    let (native, interpreted) = kernel.op_counts();
    assert_eq!(
        interpreted, 0,
        "{name}: every op must be native ({native} native)"
    );
    (program, kernel)
}

/// Runs the shader on the interpreter or the JIT with `buffers` bound at bindings 0, 1, …
/// (`groups` workgroups along x).
fn dispatch(
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    buffers: &mut [Vec<u8>],
    groups: u32,
) {
    let res = Res(buffers
        .iter_mut()
        .map(|b| BoundResource::Buffer {
            ptr: b.as_mut_ptr(),
            len: b.len(),
        })
        .collect());
    // SAFETY: the records point at live vectors of the given byte lengths, not otherwise used
    // until the dispatch returns.
    let done = unsafe {
        match kernel {
            Some(k) => program.dispatch_kernel(k, &res, &[], [0; 3], [groups, 1, 1], 2, &|| None),
            None => program.dispatch(&res, &[], [0; 3], [groups, 1, 1], 2),
        }
    };
    done.unwrap();
}

/// `bytes` as values of `T` (little-endian, any alignment).
fn values<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Runs the shader over `a`, `b` (64-lane groups) on the interpreter or the JIT: `per` results
/// per element.
fn run<T: bytemuck::Pod>(
    program: &Program,
    kernel: Option<&tessera_jit::JitKernel>,
    a: &[T],
    b: &[T],
    per: usize,
) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let mut buffers = vec![
        bytemuck::cast_slice(a).to_vec(),
        bytemuck::cast_slice(b).to_vec(),
        vec![0u8; per * size * a.len()],
    ];
    dispatch(program, kernel, &mut buffers, (a.len() / 64) as u32);
    values(&buffers[2])
}

/// Runs both backends and panics at the first result that differs.
fn compare<T: bytemuck::Pod + PartialEq + std::fmt::LowerHex>(
    name: &str,
    (program, kernel): &(Program, tessera_jit::JitKernel),
    a: &[T],
    b: &[T],
    per: usize,
) {
    let want = run(program, None, a, b, per);
    let got = run(program, Some(kernel), a, b, per);
    if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
        let e = i / per;
        panic!(
            "{name}: op {} of {:#x}, {:#x}: JIT {:#x}, interpreter {:#x}",
            i % per,
            a[e],
            b[e],
            got[i],
            want[i]
        );
    }
}

/// binary16 specials: zeros, subnormals, extreme normals, one, infinities, NaNs.
const HALF_SPECIALS: [u16; 16] = [
    0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x7c00, 0xfc00, 0x7c01, 0x7e00,
    0xfe55, 0x7fff, 0x3555, 0x0200,
];

/// Every binary16 pattern against partners of four kinds: a fixed odd multiple (a
/// permutation), the specials in turn, a rotation, a neighbour.
fn half_partners() -> (Vec<u16>, Vec<Vec<u16>>) {
    let a: Vec<u16> = (0..=u16::MAX).collect();
    let partners: [Box<dyn Fn(u16) -> u16>; 4] = [
        Box::new(|i: u16| i.wrapping_mul(40503).wrapping_add(7)),
        Box::new(|i: u16| HALF_SPECIALS[usize::from(i) % HALF_SPECIALS.len()]),
        Box::new(|i: u16| i.rotate_left(5) ^ 0x8000),
        Box::new(|i: u16| i ^ 0x0001),
    ];
    let bs = partners
        .iter()
        .map(|p| a.iter().map(|&i| p(i)).collect())
        .collect();
    (a, bs)
}

#[test]
fn binary16_arithmetic_matches_the_interpreter_on_every_pattern() {
    let shader = load("f16_binary_ops");
    let (a, partners) = half_partners();
    for (k, b) in partners.iter().enumerate() {
        compare(&format!("partner set {k}"), &shader, &a, b, 6);
    }
}

#[test]
fn binary16_functions_match_the_interpreter_on_every_pattern() {
    let shader = load("f16_functions");
    let (a, partners) = half_partners();
    for (k, b) in partners.iter().enumerate() {
        compare(&format!("partner set {k}"), &shader, &a, b, 33);
    }
}

#[test]
fn binary32_functions_match_the_interpreter() {
    let shader = load("float_functions");
    let (a, b) = f32_operands();
    compare("binary32", &shader, &a, &b, 33);
}

/// 2¹⁸ pairs of f32 operands (as bits): random patterns, a dense sweep of [−12, 12], specials.
fn f32_operands() -> (Vec<u32>, Vec<u32>) {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        88.72,
        89.0,
        -103.9,
        -150.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-45,
        f32::MAX,
        std::f32::consts::PI,
        1e6,
        448.0,
        464.0,
        57344.0,
        61440.0,
        65504.0,
        65520.0,
        2f32.powi(-9),
        2f32.powi(-10),
        2f32.powi(-17),
        2f32.powi(-24),
        2f32.powi(-25),
    ];
    let n = 1 << 18;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u32
    };
    let a: Vec<u32> = (0..n)
        .map(|i| match i % 4 {
            0 => random(),
            1 => (-12.0 + 24.0 * (i as f32 / n as f32)).to_bits(),
            2 => specials[(i / 4) % specials.len()].to_bits(),
            _ => ((random() % 2000) as f32 / 100.0 - 10.0).to_bits(),
        })
        .collect();
    let b: Vec<u32> = (0..n)
        .map(|i| match i % 3 {
            0 => random(),
            1 => specials[i % specials.len()].to_bits(),
            _ => ((random() % 800) as f32 / 100.0 - 4.0).to_bits(),
        })
        .collect();
    (a, b)
}

#[test]
fn float8_encodings_match_the_interpreter() {
    let (program, kernel) = load("float8_encode");
    let (a, _) = f32_operands();
    // Every binary16 pattern, four times over (to the f32 operand count).
    let halves: Vec<u16> = (0..a.len()).map(|i| i as u16).collect();
    let buffers = || {
        vec![
            bytemuck::cast_slice(&a).to_vec(),
            bytemuck::cast_slice(&halves).to_vec(),
            vec![0u8; 4 * a.len()],
            vec![0u8; 4 * a.len()],
        ]
    };
    let (mut want, mut got) = (buffers(), buffers());
    let groups = (a.len() / 64) as u32;
    dispatch(&program, None, &mut want, groups);
    dispatch(&program, Some(&kernel), &mut got, groups);
    for (binding, format) in [(2, "E4M3"), (3, "E5M2")] {
        if let Some(i) = (0..want[binding].len()).find(|&i| want[binding][i] != got[binding][i]) {
            let e = i / 4;
            panic!(
                "{format} conversion {} of f32 {:#x} / f16 {:#06x}: JIT {:#04x}, interpreter {:#04x}",
                i % 4,
                a[e],
                halves[e],
                got[binding][i],
                want[binding][i]
            );
        }
    }
}

#[test]
fn roundings_to_binary16_match_the_interpreter() {
    let (program, kernel) = load("f32_to_f16_rounding");
    let (a, _) = f32_operands();
    let buffers = || {
        vec![
            bytemuck::cast_slice(&a).to_vec(),
            vec![0u8; 4],
            vec![0u8; 6 * a.len()],
        ]
    };
    let (mut want, mut got) = (buffers(), buffers());
    let groups = (a.len() / 64) as u32;
    dispatch(&program, None, &mut want, groups);
    dispatch(&program, Some(&kernel), &mut got, groups);
    let (want, got): (Vec<u16>, Vec<u16>) = (values(&want[2]), values(&got[2]));
    if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
        panic!(
            "rounding {} of {:#x}: JIT {:#06x}, interpreter {:#06x}",
            ["RTZ", "RTE", "undecorated"][i % 3],
            a[i / 3],
            got[i],
            want[i]
        );
    }
}
