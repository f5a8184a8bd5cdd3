//! Cooperative vectors and matrices through the Khronos loader: submit + fence round trips of one
//! recorded dispatch per workload, each checked against a CPU reference before timing. The numpy
//! side of each comparison is `benches/reference.py` (same names); `cargo xtask bench-compare
//! --only coop` runs both on one core and on all cores.
//!
//! | workload (`coop_<name>`) | what | criterion throughput |
//! |---|---|---|
//! | `coopvec_mlp` | an MLP per invocation, 4 layers 64→64, float16 inputs, matrices (inferencing-optimal), biases and results, relu between layers (`coopVecMatMulAddNV`), over 1 048 576 invocations | FLOPs (2·64·64·4 per invocation) |
//! | `coopmat_gemm_f16` | C = A·B, 1024³, float16 A and B, float32 C, 16×16×16 cooperative matrices, one 32×32 block of C per subgroup | FLOPs (2·1024³) |
//! | `coopmat_gemm_s8` | the same with int8 A and B and int32 C (16×16×32) | operations (2·1024³) |
//! | `coopmat_gemm_{f16,s8}_opt` | the same two shaders optimised by `spirv-opt -O`, as projects ship them: the loops over tiles unrolled, the matrices SSA values instead of arrays | as above |
//!
//! The GLSL sources are `spirv-tests/shaders/bench_coopvec_mlp.comp` and
//! `bench_coopmat_gemm_{f16,s8}{,_opt}.comp` (the body is `bench_coopmat_gemm.glsl`). A workload whose
//! extension the driver does not list is skipped with a note on stderr.
//!
//! Results are `coop_<name>/<driver>_<threads>`, with the driver as in `common.rs` and
//! `<threads>` from `TESSERA_BENCH_THREADS` (a label only: the driver's own variable, Tessera's
//! `TESSERA_THREADS` or lavapipe's `LP_NUM_THREADS`, sets the count; default `all`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use half::f16;
use tessera_e2e::bench::{
    BenchGpu, COOPERATIVE_MATRIX_EXTENSION_NAME, COOPERATIVE_VECTOR_EXTENSION_NAME,
};
use tessera_e2e::cooperative::{MatrixConversion, convert_matrix, converted_size};
use tessera_e2e::descriptors::Descriptor;
use tessera_e2e::vulkanalia::prelude::v1_3::*;

mod common;
#[allow(dead_code)] // `shaders` uses the rest.
mod gpu;

use gpu::*;

const MLP_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_coopvec_mlp.spv");
const GEMM_F16_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_coopmat_gemm_f16.spv");
const GEMM_S8_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_coopmat_gemm_s8.spv");
const GEMM_F16_OPT_SPV: &[u8] =
    include_bytes!("../spirv-tests/shaders/bench_coopmat_gemm_f16_opt.spv");
const GEMM_S8_OPT_SPV: &[u8] =
    include_bytes!("../spirv-tests/shaders/bench_coopmat_gemm_s8_opt.spv");

/// Invocations of the MLP (`local_size_x = 64`).
const MLP_INVOCATIONS: usize = 1 << 20;
/// The MLP's width and depth (`WIDTH`, `LAYERS` of the shader).
const WIDTH: usize = 64;
const LAYERS: usize = 4;
/// M = N = K of the GEMMs.
const GEMM: usize = 1024;
/// The block of C each subgroup computes (`TILE` of the shader).
const GEMM_TILE: usize = 32;

fn open_gpu() -> Gpu {
    let gpu = BenchGpu::open_any();
    eprintln!(
        "cooperative: device {:?}, subgroup size {}, extensions {:?}",
        gpu.name, gpu.subgroup_size, gpu.extensions
    );
    Gpu(gpu)
}

/// The criterion id of this driver and thread count.
fn bench_id() -> String {
    let threads = std::env::var("TESSERA_BENCH_THREADS")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "all".into());
    format!("{}_{threads}", common::driver_label())
}

/// Times submit + fence wait of the kernel's recorded dispatch as `coop_<name>/<bench_id>`.
fn time_coop(c: &mut Criterion, name: &str, throughput: Throughput, gpu: &Gpu, k: &Kernel) {
    let mut g = group(c, &format!("coop_{name}"), throughput);
    g.bench_function(bench_id(), |b| b.iter(|| gpu.submit_wait(k.cb)));
    g.finish();
}

/// Small values, exact in float16 and in their products' sums: multiples of 1/16 in [-0.5, 0.5].
fn small(i: usize, seed: usize) -> f32 {
    ((i.wrapping_mul(2_654_435_761).wrapping_add(seed * 97) >> 7) % 17) as f32 / 16.0 - 0.5
}

fn halves(values: &[f32]) -> Vec<u16> {
    values.iter().map(|&v| f16::from_f32(v).to_bits()).collect()
}

/// One invocation of the MLP: f32 sums, each layer's result rounded to float16.
fn mlp_reference(weights: &[Vec<f32>], biases: &[Vec<f32>], input: &[f32]) -> Vec<f32> {
    let mut v = input.to_vec();
    for (layer, (w, b)) in weights.iter().zip(biases).enumerate() {
        let mut out = vec![0f32; WIDTH];
        for (row, o) in out.iter_mut().enumerate() {
            let sum: f32 = (0..WIDTH).map(|k| w[row * WIDTH + k] * v[k]).sum();
            let mut y = f16::from_f32(sum + b[row]).to_f32();
            if layer + 1 < LAYERS {
                y = y.max(0.0);
            }
            *o = y;
        }
        v = out;
    }
    v
}

fn mlp(c: &mut Criterion, gpu: &Gpu) {
    let weights: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| (0..WIDTH * WIDTH).map(|i| small(i, l + 1) / 4.0).collect())
        .collect();
    let biases: Vec<Vec<f32>> = (0..LAYERS)
        .map(|l| (0..WIDTH).map(|i| small(i, l + 11)).collect())
        .collect();
    let inputs: Vec<f32> = (0..MLP_INVOCATIONS * WIDTH).map(|i| small(i, 0)).collect();
    // The matrices, converted by the driver to its inferencing-optimal layout.
    let conversion = MatrixConversion {
        rows: WIDTH as u32,
        cols: WIDTH as u32,
        src_type: vk::ComponentTypeKHR::FLOAT16,
        dst_type: vk::ComponentTypeKHR::FLOAT16,
        src_layout: vk::CooperativeVectorMatrixLayoutNV::ROW_MAJOR,
        src_stride: WIDTH * 2,
        dst_layout: vk::CooperativeVectorMatrixLayoutNV::INFERENCING_OPTIMAL,
        dst_stride: 0,
    };
    let size = converted_size(&gpu.device, &conversion).expect("the optimal size");
    // MatrixOffset must be a multiple of 64 (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097).
    let matrix_bytes = size.next_multiple_of(64);
    let mut packed = vec![0u8; LAYERS * matrix_bytes];
    for (l, w) in weights.iter().enumerate() {
        let row_major: Vec<u8> = halves(w).iter().flat_map(|h| h.to_le_bytes()).collect();
        let optimal =
            convert_matrix(&gpu.device, &conversion, &row_major).expect("the optimal matrix");
        packed[l * matrix_bytes..][..optimal.len()].copy_from_slice(&optimal);
    }
    let bias_halves: Vec<u16> = biases.iter().flat_map(|b| halves(b)).collect();
    let x = gpu.buffer((inputs.len() * 2) as u64);
    let w = gpu.buffer(packed.len() as u64);
    let b = gpu.buffer((bias_halves.len() * 2) as u64);
    let y = gpu.buffer((inputs.len() * 2) as u64);
    x.mem.write(&halves(&inputs));
    w.mem.write(&packed);
    b.mem.write(&bias_halves);
    y.mem.fill(0xEE);
    let k = gpu.kernel_with(
        MLP_SPV,
        &[
            Descriptor::Buffer(x.buffer),
            Descriptor::Buffer(w.buffer),
            Descriptor::Buffer(b.buffer),
            Descriptor::Buffer(y.buffer),
        ],
        [(MLP_INVOCATIONS / 64) as u32, 1, 1],
        &[matrix_bytes as u32],
    );
    gpu.submit_wait(k.cb);
    let got = y.mem.read::<u16>(inputs.len());
    // Every 997th invocation; a driver may sum in another order or precision, so within 1/64.
    for i in (0..MLP_INVOCATIONS).step_by(997) {
        let want = mlp_reference(&weights, &biases, &inputs[i * WIDTH..][..WIDTH]);
        for (j, want) in want.iter().enumerate() {
            let got = f16::from_bits(got[i * WIDTH + j]).to_f32();
            assert!(
                (got - want).abs() <= 1.0 / 64.0,
                "coopvec_mlp on {}: invocation {i} component {j}: got {got}, want {want}",
                gpu.name
            );
        }
    }
    let flops = 2 * WIDTH * WIDTH * LAYERS * MLP_INVOCATIONS;
    time_coop(
        c,
        "coopvec_mlp",
        Throughput::Elements(flops as u64),
        gpu,
        &k,
    );
    gpu.destroy_kernel(k);
    for buffer in [x, w, b, y] {
        gpu.destroy_buffer(buffer);
    }
}

/// The GEMM of `GEMM`³ with element types of `bytes` bytes: A and B as raw bytes, C as
/// 32-bit words.
struct GemmCase {
    name: &'static str,
    spv: &'static [u8],
    a: Vec<u8>,
    b: Vec<u8>,
    /// C, as f32 or i32 bits.
    want: Vec<u32>,
    /// Whether C is float (compared within a relative tolerance) or integer (exactly).
    float: bool,
}

fn gemm_f16() -> GemmCase {
    let n = GEMM;
    let a: Vec<f32> = (0..n * n).map(|i| small(i, 21)).collect();
    let b: Vec<f32> = (0..n * n).map(|i| small(i, 22)).collect();
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for k in 0..n {
            let av = a[r * n + k];
            for (cv, bv) in want[r * n..][..n].iter_mut().zip(&b[k * n..][..n]) {
                *cv += av * bv;
            }
        }
    }
    let bytes = |v: &[f32]| -> Vec<u8> { halves(v).iter().flat_map(|h| h.to_le_bytes()).collect() };
    GemmCase {
        name: "coopmat_gemm_f16",
        spv: GEMM_F16_SPV,
        a: bytes(&a),
        b: bytes(&b),
        want: want.iter().map(|v| v.to_bits()).collect(),
        float: true,
    }
}

fn gemm_f16_opt() -> GemmCase {
    GemmCase {
        name: "coopmat_gemm_f16_opt",
        spv: GEMM_F16_OPT_SPV,
        ..gemm_f16()
    }
}

fn gemm_s8_opt() -> GemmCase {
    GemmCase {
        name: "coopmat_gemm_s8_opt",
        spv: GEMM_S8_OPT_SPV,
        ..gemm_s8()
    }
}

fn gemm_s8() -> GemmCase {
    let n = GEMM;
    let value = |i: usize, seed: usize| ((small(i, seed) * 16.0) as i32 * 15) as i8;
    let a: Vec<i8> = (0..n * n).map(|i| value(i, 31)).collect();
    let b: Vec<i8> = (0..n * n).map(|i| value(i, 32)).collect();
    let mut want = vec![0i32; n * n];
    for r in 0..n {
        for k in 0..n {
            let av = i32::from(a[r * n + k]);
            for (cv, bv) in want[r * n..][..n].iter_mut().zip(&b[k * n..][..n]) {
                *cv += av * i32::from(*bv);
            }
        }
    }
    GemmCase {
        name: "coopmat_gemm_s8",
        spv: GEMM_S8_SPV,
        a: a.iter().map(|&v| v as u8).collect(),
        b: b.iter().map(|&v| v as u8).collect(),
        want: want.iter().map(|&v| v as u32).collect(),
        float: false,
    }
}

fn gemm(c: &mut Criterion, gpu: &Gpu, case: &GemmCase) {
    let n = GEMM;
    let a = gpu.buffer(case.a.len() as u64);
    let b = gpu.buffer(case.b.len() as u64);
    let out = gpu.buffer((n * n * 4) as u64);
    a.mem.write(&case.a);
    b.mem.write(&case.b);
    out.mem.fill(0xEE);
    let blocks = (n / GEMM_TILE) * (n / GEMM_TILE);
    let k = gpu.kernel_with(
        case.spv,
        &[
            Descriptor::Buffer(a.buffer),
            Descriptor::Buffer(b.buffer),
            Descriptor::Buffer(out.buffer),
        ],
        [blocks as u32, 1, 1],
        &[gpu.subgroup_size, n as u32, n as u32, n as u32],
    );
    gpu.submit_wait(k.cb);
    let got = out.mem.read::<u32>(n * n);
    for (i, (&g, &w)) in got.iter().zip(&case.want).enumerate() {
        let ok = if case.float {
            let (g, w) = (f32::from_bits(g), f32::from_bits(w));
            (g - w).abs() <= 1e-3 * w.abs().max(1.0)
        } else {
            g == w
        };
        assert!(
            ok,
            "{} on {}: element ({}, {}): got {g:#x}, want {w:#x}",
            case.name,
            gpu.name,
            i / n,
            i % n
        );
    }
    let ops = 2 * n * n * n;
    time_coop(c, case.name, Throughput::Elements(ops as u64), gpu, &k);
    gpu.destroy_kernel(k);
    for buffer in [a, b, out] {
        gpu.destroy_buffer(buffer);
    }
}

fn cooperative(c: &mut Criterion) {
    let gpu = open_gpu();
    let has = |name: &str| gpu.extensions.iter().any(|e| e == name);
    if common::selected("coopvec_mlp") {
        if has(COOPERATIVE_VECTOR_EXTENSION_NAME) {
            mlp(c, &gpu);
        } else {
            eprintln!(
                "cooperative: coopvec_mlp skipped: {} has no VK_NV_cooperative_vector",
                gpu.name
            );
        }
    }
    for (name, case) in [
        ("coopmat_gemm_f16", gemm_f16 as fn() -> GemmCase),
        ("coopmat_gemm_s8", gemm_s8),
        ("coopmat_gemm_f16_opt", gemm_f16_opt),
        ("coopmat_gemm_s8_opt", gemm_s8_opt),
    ] {
        if !common::selected(name) {
            continue;
        }
        if has(COOPERATIVE_MATRIX_EXTENSION_NAME) {
            gemm(c, &gpu, &case());
        } else {
            eprintln!(
                "cooperative: {name} skipped: {} has no VK_KHR_cooperative_matrix",
                gpu.name
            );
        }
    }
}

criterion_group!(benches, cooperative);
criterion_main!(benches);
