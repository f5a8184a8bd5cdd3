//! Compute shaders on tensors through the Khronos loader: submit + fence round trips of one
//! recorded dispatch per workload, each checked once against a CPU reference before timing, and
//! next to each a plain-Rust reference doing the same work on host memory (group `reference`,
//! one thread, loops the compiler may vectorise), so that ratios come from one run.
//!
//! | workload (`shader_<name>`, `reference/<name>`) | what | criterion throughput |
//! |---|---|---|
//! | `tensor_add` | `c = a + b`, R32_SFLOAT [4096, 4096] (64 MiB a tensor), 256-invocation workgroups | bytes read + written |
//! | `row_sum` | the sum of every row of an R32_SFLOAT [4096, 4096] tensor into a buffer: one 256-invocation workgroup per row, strided partial sums, then a shared-memory tree reduction with barriers | bytes read |
//! | `row_sum_subgroup` | the same sums with a subgroup reduction (`subgroupAdd`), one value per subgroup through shared memory, one barrier | bytes read |
//! | `transpose` | an R32_SFLOAT [4096, 4096] tensor into its transpose, 16×16 workgroups | bytes read + written |
//! | `tiny_groups` | 100 000 one-invocation workgroups (a 1000×100 grid), each writing one element of a rank-1 R32_UINT tensor | elements |
//! | `i8_mul` | `c = a * b` (wrapping), R8_SINT [16, 16, 256, 256] (16 MiB a tensor) | bytes read + written |
//! | `rgba_swizzle` | RGBA → BGRA of an R8_UINT [4096, 4096, 4] image tensor (64 MiB), one 4-element array read (`OpTensorReadARM`) and one array write per pixel | bytes read + written |
//! | `nd_add` | `c = a + b`, R32_SFLOAT [16, 24, 96, 100] (14 MiB a tensor), a 1-D dispatch whose four coordinates come from the flat index by division and remainder (how generated elementwise kernels address N-D tensors) | bytes read + written |
//! | `f16_add` | `c = a + b`, R16_SFLOAT [4096, 4096] (32 MiB a tensor) | bytes read + written |
//! | `histogram` | a 256-bin histogram of 16 MiB of bytes: 256-invocation workgroups count 16 bytes an invocation into shared bins (`atomicAdd` on shared memory), then add their bins into a buffer (`atomicAdd`) | bytes read |
//! | `dense` | the demo's dense layer `y = relu(W·x + b)`, W R32_SFLOAT [512, 1024], one invocation per output row | FLOPs (2·512·1024 a dispatch): criterion's `elem/s` are FLOP/s |
//!
//! The GLSL (`GL_ARM_tensors`) sources and their committed SPIR-V are
//! `spirv-tests/shaders/bench_*.comp` and `dense_relu.comp` (`cargo xtask regen` rebuilds them,
//! `--check` checks them).
//!
//! The driver is Tessera by default (`cargo build --release -p tessera-icd` first). Results are
//! named after the driver (see `common.rs`): `shader_<name>/tessera_<backend>_submit_wait` with
//! the backend from `TESSERA_SHADER_BACKEND` (`interp`, `jit`, default `auto`), or
//! `shader_<name>/bench_icd_submit_wait` when `TESSERA_BENCH_ICD` names another ICD manifest;
//! layers then come from the usual loader variables. `TESSERA_BENCH_WORKLOADS=tensor_add,dense`
//! runs only those workloads; `TESSERA_BENCH_REFERENCE=0` skips the plain-Rust references.
//! `cargo xtask bench-compare` sets all of this up, for Tessera's two shader backends and for
//! Mesa 25's lavapipe with both of Arm's ML emulation layers, which stack when `VK_LAYER_PATH`
//! lists the two layer manifest files, graph layer first (Debian 12's loader orders explicit
//! layers by discovery, not by `VK_INSTANCE_LAYERS`):
//!
//! ```text
//! EL=$(python3 -c 'import emulation_layer, os; print(os.path.dirname(emulation_layer.__file__))')/deploy
//! TESSERA_BENCH_ICD=$PWD/target/lavapipe25/lvp_icd.json \
//! LD_LIBRARY_PATH=$PWD/target/lavapipe25/root/usr/lib/x86_64-linux-gnu:$EL/lib \
//! VK_LAYER_PATH=$EL/share/vulkan/explicit_layer.d/VkLayer_Graph.json:$EL/share/vulkan/explicit_layer.d/VkLayer_Tensor.json \
//! VK_INSTANCE_LAYERS=VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation \
//! VK_LOADER_LAYERS_DISABLE='~implicit~' cargo bench -p tessera-benches --bench shaders
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::descriptors::Descriptor;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::*;

mod common;
#[allow(dead_code)] // `cooperative` uses the rest.
mod gpu;

use gpu::*;

const TENSOR_ADD_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_tensor_add.spv");
const ROW_SUM_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_row_sum.spv");
const HISTOGRAM_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_histogram.spv");
const ROW_SUM_SUBGROUP_SPV: &[u8] =
    include_bytes!("../spirv-tests/shaders/bench_row_sum_subgroup.spv");
const TRANSPOSE_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_transpose.spv");
const TINY_GROUPS_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_tiny_groups.spv");
const I8_MUL_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_i8_mul.spv");
const RGBA_SWIZZLE_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_rgba_swizzle.spv");
const ND_ADD_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_nd_add.spv");
const F16_ADD_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/bench_f16_add.spv");
/// The demo's dense layer (`tessera-demo`).
const DENSE_SPV: &[u8] = include_bytes!("../spirv-tests/shaders/dense_relu.spv");

/// Rows and columns of the 2D tensors (4096×4096 R32_SFLOAT: 64 MiB).
const N: i64 = 4096;
/// Workgroup grid of the tiny-groups case (100 000 workgroups; lavapipe allows 65 535 per axis).
const TINY_GRID: [u32; 2] = [1000, 100];
/// Shape of the i8 tensors (16 MiB).
const I8_DIMS: [i64; 4] = [16, 16, 256, 256];
/// Shape of the N-D addressed tensors (`nd_add`): rows of 100, not a multiple of a chunk.
const ND_DIMS: [i64; 4] = [16, 24, 96, 100];
/// Height and width of the RGBA image (64 MiB).
const IMAGE: [i64; 2] = [4096, 4096];
/// The dense layer: W is `DENSE[0]`×`DENSE[1]`, as in the demo.
const DENSE: [i64; 2] = [512, 1024];
/// The dense layer's workgroup size (`local_size_x` of `dense_relu.comp`).
const DENSE_GROUP: u32 = 64;

fn open_gpu() -> Gpu {
    // Only what the shaders need, and only if reported (the emulation layer reports fewer
    // features than Tessera).
    let gpu = BenchGpu::open(|s| vk::PhysicalDeviceTensorFeaturesARM {
        shader_tensor_access: s.shader_tensor_access,
        ..Default::default()
    });
    eprintln!(
        "shaders: device {:?}, shaderTensorAccess {}",
        gpu.name,
        gpu.supported.shader_tensor_access == vk::TRUE
    );
    Gpu(gpu)
}

/// The host references: the work of each shader on host memory, in plain Rust on one thread.
/// Reductions keep eight partial sums so that the compiler can vectorise them (the shaders'
/// summation order differs anyway); the transpose goes by 32×32 tiles.
mod reference {
    use tessera_e2e::pattern_bytes;

    pub fn add_f32(a: &[f32], b: &[f32], c: &mut [f32]) {
        for ((c, a), b) in c.iter_mut().zip(a).zip(b) {
            *c = a + b;
        }
    }

    pub fn row_sums(src: &[f32], cols: usize, sums: &mut [f32]) {
        for (row, sum) in src.chunks_exact(cols).zip(sums) {
            let mut acc = [0f32; 8];
            let chunks = row.chunks_exact(8);
            let tail: f32 = chunks.remainder().iter().sum();
            for chunk in chunks {
                for (a, v) in acc.iter_mut().zip(chunk) {
                    *a += v;
                }
            }
            *sum = acc.iter().sum::<f32>() + tail;
        }
    }

    pub fn transpose(src: &[f32], n: usize, dst: &mut [f32]) {
        const T: usize = 32;
        for y0 in (0..n).step_by(T) {
            for x0 in (0..n).step_by(T) {
                for y in y0..(y0 + T).min(n) {
                    for x in x0..(x0 + T).min(n) {
                        dst[x * n + y] = src[y * n + x];
                    }
                }
            }
        }
    }

    pub fn tiny_groups(out: &mut [u32]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = i as u32 * 3 + 1;
        }
    }

    pub fn histogram(bytes: &[u8], bins: &mut [u32; 256]) {
        *bins = [0; 256];
        for &b in bytes {
            bins[usize::from(b)] += 1;
        }
    }

    pub fn mul_i8(a: &[i8], b: &[i8], c: &mut [i8]) {
        for ((c, a), b) in c.iter_mut().zip(a).zip(b) {
            *c = a.wrapping_mul(*b);
        }
    }

    /// RGBA → BGRA.
    pub fn swizzle(src: &[u8], dst: &mut [u8]) {
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            d.copy_from_slice(&[s[2], s[1], s[0], s[3]]);
        }
    }

    /// IEEE half additions (bits in, bits out): each sum is computed in f32 and rounded once to
    /// half, which is exact for an addition (24 ≥ 2·11 + 2 bits). Converts blocks with the
    /// `half` crate's slice conversions (F16C where the CPU has it).
    pub fn add_f16(a: &[u16], b: &[u16], c: &mut [u16]) {
        use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
        const BLOCK: usize = 1024;
        let (mut fa, mut fb) = ([0f32; BLOCK], [0f32; BLOCK]);
        for ((a, b), c) in a
            .chunks(BLOCK)
            .zip(b.chunks(BLOCK))
            .zip(c.chunks_mut(BLOCK))
        {
            let k = a.len();
            a.reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(&mut fa[..k]);
            b.reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(&mut fb[..k]);
            for (x, y) in fa[..k].iter_mut().zip(&fb[..k]) {
                *x += y;
            }
            c.reinterpret_cast_mut::<half::f16>()
                .convert_from_f32_slice(&fa[..k]);
        }
    }

    /// `y = relu(W·x + b)`, W `y.len()`×`x.len()` row-major.
    pub fn dense(w: &[f32], x: &[f32], b: &[f32], y: &mut [f32]) {
        for ((row, bias), out) in w.chunks_exact(x.len()).zip(b).zip(y) {
            let mut acc = [0f32; 8];
            let (rows, xs) = (row.chunks_exact(8), x.chunks_exact(8));
            let tail: f32 = rows
                .remainder()
                .iter()
                .zip(xs.remainder())
                .map(|(w, v)| w * v)
                .sum();
            for (wc, xc) in rows.zip(xs) {
                for ((a, w), v) in acc.iter_mut().zip(wc).zip(xc) {
                    *a += w * v;
                }
            }
            *out = (bias + acc.iter().sum::<f32>() + tail).max(0.0);
        }
    }

    /// Float32 values that are small integers (sums stay exact in any order).
    pub fn small_floats(count: usize, seed: u32) -> Vec<f32> {
        pattern_bytes(count, seed)
            .into_iter()
            .map(|b| f32::from(b % 16))
            .collect()
    }

    /// Half values k/8 for k in -64..64, as bits: every sum of two is exact.
    pub fn small_halves(count: usize, seed: u32) -> Vec<u16> {
        pattern_bytes(count, seed)
            .into_iter()
            .map(|b| half::f16::from_f32(f32::from(i16::from(b % 128) - 64) / 8.0).to_bits())
            .collect()
    }

    /// Floats in [-1, 1), as in the demo.
    pub fn unit_floats(count: usize, seed: u32) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
        (0..count)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect()
    }
}

/// Times `work` on host memory as `reference/<name>` (unless references are disabled).
fn time_reference(c: &mut Criterion, name: &str, throughput: Throughput, mut work: impl FnMut()) {
    if !common::references_enabled() {
        return;
    }
    let mut g = group(c, "reference", throughput);
    g.bench_function(name, |b| b.iter(&mut work));
    g.finish();
}

fn shaders(c: &mut Criterion) {
    let gpu = open_gpu();
    let f32_ = vk::Format::R32_SFLOAT;
    let dims = [N, N];
    let n = N as usize;
    let count = n * n;
    let bytes = count as u64 * 4;
    let name = &gpu.name;

    if common::selected("tensor_add") {
        let a = gpu.tensor(f32_, &dims);
        let b = gpu.tensor(f32_, &dims);
        let out = gpu.tensor(f32_, &dims);
        let va = reference::small_floats(count, 1);
        let vb = reference::small_floats(count, 2);
        a.mem.write(&va);
        b.mem.write(&vb);
        out.mem.fill(0xEE);
        let k = gpu.kernel(
            TENSOR_ADD_SPV,
            &[
                Descriptor::Tensor(a.view),
                Descriptor::Tensor(b.view),
                Descriptor::Tensor(out.view),
            ],
            [(N / 256) as u32, N as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0f32; count];
        reference::add_f32(&va, &vb, &mut want);
        let bad = first_mismatch(&out.mem.read::<f32>(count), &want);
        assert_eq!(bad, None, "tensor_add on {name}: (index, got, want)");
        let tp = Throughput::Bytes(3 * bytes);
        time(c, "tensor_add", tp.clone(), &gpu, &k);
        time_reference(c, "tensor_add", tp, || {
            reference::add_f32(&va, &vb, &mut want);
        });
        gpu.destroy_kernel(k);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    for (workload, spv) in [
        ("row_sum", ROW_SUM_SPV),
        ("row_sum_subgroup", ROW_SUM_SUBGROUP_SPV),
    ] {
        if !common::selected(workload) {
            continue;
        }
        let src = gpu.tensor(f32_, &dims);
        let sums = gpu.buffer(N as u64 * 4);
        let values = reference::small_floats(count, 3);
        src.mem.write(&values);
        sums.mem.fill(0xEE);
        let k = gpu.kernel(
            spv,
            &[
                Descriptor::Tensor(src.view),
                Descriptor::Buffer(sums.buffer),
            ],
            [N as u32, 1, 1],
        );
        gpu.submit_wait(k.cb);
        // Small integers: every partial sum is exact, so any order gives the same value.
        let mut want = vec![0f32; n];
        reference::row_sums(&values, n, &mut want);
        let bad = first_mismatch(&sums.mem.read::<f32>(n), &want);
        assert_eq!(bad, None, "{workload} on {name}: (row, got, want)");
        let tp = Throughput::Bytes(bytes);
        time(c, workload, tp.clone(), &gpu, &k);
        time_reference(c, workload, tp, || {
            reference::row_sums(&values, n, &mut want);
        });
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(src);
        gpu.destroy_buffer(sums);
    }

    if common::selected("histogram") {
        let data = gpu.buffer(count as u64);
        let hist = gpu.buffer(256 * 4);
        let bytes = pattern_bytes(count, 7);
        data.mem.write(&bytes);
        let k = gpu.kernel(
            HISTOGRAM_SPV,
            &[
                Descriptor::Buffer(data.buffer),
                Descriptor::Buffer(hist.buffer),
            ],
            [(count / (16 * 256)) as u32, 1, 1],
        );
        hist.mem.fill(0);
        gpu.submit_wait(k.cb);
        let mut want = [0u32; 256];
        reference::histogram(&bytes, &mut want);
        let bad = first_mismatch(&hist.mem.read::<u32>(256), &want);
        assert_eq!(bad, None, "histogram on {name}: (bin, got, want)");
        // (Timed runs keep adding into the same bins.)
        let tp = Throughput::Bytes(count as u64);
        time(c, "histogram", tp.clone(), &gpu, &k);
        time_reference(c, "histogram", tp, || {
            reference::histogram(&bytes, &mut want);
        });
        gpu.destroy_kernel(k);
        gpu.destroy_buffer(data);
        gpu.destroy_buffer(hist);
    }

    if common::selected("transpose") {
        let src = gpu.tensor(f32_, &dims);
        let dst = gpu.tensor(f32_, &dims);
        let values: Vec<f32> = (0..count).map(|i| i as f32).collect();
        src.mem.write(&values);
        dst.mem.fill(0xEE);
        let k = gpu.kernel(
            TRANSPOSE_SPV,
            &[Descriptor::Tensor(src.view), Descriptor::Tensor(dst.view)],
            [(N / 16) as u32, (N / 16) as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0f32; count];
        reference::transpose(&values, n, &mut want);
        let bad = first_mismatch(&dst.mem.read::<f32>(count), &want);
        assert_eq!(bad, None, "transpose on {name}: (index, got, want)");
        let tp = Throughput::Bytes(2 * bytes);
        time(c, "transpose", tp.clone(), &gpu, &k);
        time_reference(c, "transpose", tp, || {
            reference::transpose(&values, n, &mut want);
        });
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(src);
        gpu.destroy_tensor(dst);
    }

    if common::selected("tiny_groups") {
        let n = (TINY_GRID[0] * TINY_GRID[1]) as usize;
        let dst = gpu.tensor(vk::Format::R32_UINT, &[n as i64]);
        dst.mem.fill(0xEE);
        let k = gpu.kernel(
            TINY_GROUPS_SPV,
            &[Descriptor::Tensor(dst.view)],
            [TINY_GRID[0], TINY_GRID[1], 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0u32; n];
        reference::tiny_groups(&mut want);
        let bad = first_mismatch(&dst.mem.read::<u32>(n), &want);
        assert_eq!(bad, None, "tiny_groups on {name}: (index, got, want)");
        let tp = Throughput::Elements(n as u64);
        time(c, "tiny_groups", tp.clone(), &gpu, &k);
        time_reference(c, "tiny_groups", tp, || reference::tiny_groups(&mut want));
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(dst);
    }

    if common::selected("nd_add") {
        let count: usize = ND_DIMS.iter().product::<i64>() as usize;
        let a = gpu.tensor(f32_, &ND_DIMS);
        let b = gpu.tensor(f32_, &ND_DIMS);
        let out = gpu.tensor(f32_, &ND_DIMS);
        let va = reference::small_floats(count, 6);
        let vb = reference::small_floats(count, 7);
        a.mem.write(&va);
        b.mem.write(&vb);
        out.mem.fill(0xEE);
        let k = gpu.kernel(
            ND_ADD_SPV,
            &[
                Descriptor::Tensor(a.view),
                Descriptor::Tensor(b.view),
                Descriptor::Tensor(out.view),
            ],
            [(count as u32).div_ceil(256), 1, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0f32; count];
        reference::add_f32(&va, &vb, &mut want);
        let bad = first_mismatch(&out.mem.read::<f32>(count), &want);
        assert_eq!(bad, None, "nd_add on {name}: (index, got, want)");
        let tp = Throughput::Bytes(3 * 4 * count as u64);
        time(c, "nd_add", tp.clone(), &gpu, &k);
        time_reference(c, "nd_add", tp, || reference::add_f32(&va, &vb, &mut want));
        gpu.destroy_kernel(k);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    if common::selected("i8_mul") {
        let count: usize = I8_DIMS.iter().product::<i64>() as usize;
        let fmt = vk::Format::R8_SINT;
        let a = gpu.tensor(fmt, &I8_DIMS);
        let b = gpu.tensor(fmt, &I8_DIMS);
        let out = gpu.tensor(fmt, &I8_DIMS);
        let va: Vec<i8> = pattern_bytes(count, 4)
            .into_iter()
            .map(|x| x as i8)
            .collect();
        let vb: Vec<i8> = pattern_bytes(count, 5)
            .into_iter()
            .map(|x| x as i8)
            .collect();
        a.mem.write(&va);
        b.mem.write(&vb);
        out.mem.fill(0xEE);
        let [d0, d1, d2, d3] = I8_DIMS.map(|d| d as u32);
        let k = gpu.kernel(
            I8_MUL_SPV,
            &[
                Descriptor::Tensor(a.view),
                Descriptor::Tensor(b.view),
                Descriptor::Tensor(out.view),
            ],
            [d3.div_ceil(256), d2, d0 * d1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0i8; count];
        reference::mul_i8(&va, &vb, &mut want);
        let bad = first_mismatch(&out.mem.read::<i8>(count), &want);
        assert_eq!(bad, None, "i8_mul on {name}: (index, got, want)");
        let tp = Throughput::Bytes(3 * count as u64);
        time(c, "i8_mul", tp.clone(), &gpu, &k);
        time_reference(c, "i8_mul", tp, || reference::mul_i8(&va, &vb, &mut want));
        gpu.destroy_kernel(k);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    if common::selected("rgba_swizzle") {
        let [h, w] = IMAGE;
        let dims = [h, w, 4];
        let len = (h * w * 4) as usize;
        let fmt = vk::Format::R8_UINT;
        let src = gpu.tensor(fmt, &dims);
        let dst = gpu.tensor(fmt, &dims);
        let pixels = pattern_bytes(len, 6);
        src.mem.write(&pixels);
        dst.mem.fill(0xEE);
        let k = gpu.kernel(
            RGBA_SWIZZLE_SPV,
            &[Descriptor::Tensor(src.view), Descriptor::Tensor(dst.view)],
            [(w as u32).div_ceil(256), h as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0u8; len];
        reference::swizzle(&pixels, &mut want);
        let bad = first_mismatch(&dst.mem.read::<u8>(len), &want);
        assert_eq!(bad, None, "rgba_swizzle on {name}: (byte, got, want)");
        let tp = Throughput::Bytes(2 * len as u64);
        time(c, "rgba_swizzle", tp.clone(), &gpu, &k);
        time_reference(c, "rgba_swizzle", tp, || {
            reference::swizzle(&pixels, &mut want);
        });
        gpu.destroy_kernel(k);
        gpu.destroy_tensor(src);
        gpu.destroy_tensor(dst);
    }

    if common::selected("f16_add") {
        let fmt = vk::Format::R16_SFLOAT;
        let a = gpu.tensor(fmt, &dims);
        let b = gpu.tensor(fmt, &dims);
        let out = gpu.tensor(fmt, &dims);
        let va = reference::small_halves(count, 7);
        let vb = reference::small_halves(count, 8);
        a.mem.write(&va);
        b.mem.write(&vb);
        out.mem.fill(0xEE);
        let k = gpu.kernel(
            F16_ADD_SPV,
            &[
                Descriptor::Tensor(a.view),
                Descriptor::Tensor(b.view),
                Descriptor::Tensor(out.view),
            ],
            [(N / 256) as u32, N as u32, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0u16; count];
        reference::add_f16(&va, &vb, &mut want);
        let bad = first_mismatch(&out.mem.read::<u16>(count), &want);
        assert_eq!(bad, None, "f16_add on {name}: (index, got bits, want bits)");
        let tp = Throughput::Bytes(3 * count as u64 * 2);
        time(c, "f16_add", tp.clone(), &gpu, &k);
        time_reference(c, "f16_add", tp, || reference::add_f16(&va, &vb, &mut want));
        gpu.destroy_kernel(k);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    if common::selected("dense") {
        let [rows, cols] = DENSE;
        let (r, k_) = (rows as usize, cols as usize);
        let w = gpu.tensor(f32_, &DENSE);
        let x = gpu.tensor(f32_, &[cols]);
        let b = gpu.tensor(f32_, &[rows]);
        let y = gpu.tensor(f32_, &[rows]);
        let (vw, vx, vb) = (
            reference::unit_floats(r * k_, 1),
            reference::unit_floats(k_, 2),
            reference::unit_floats(r, 3),
        );
        w.mem.write(&vw);
        x.mem.write(&vx);
        b.mem.write(&vb);
        y.mem.fill(0xEE);
        let k = gpu.kernel(
            DENSE_SPV,
            &[
                Descriptor::Tensor(w.view),
                Descriptor::Tensor(x.view),
                Descriptor::Tensor(b.view),
                Descriptor::Tensor(y.view),
            ],
            [(rows as u32).div_ceil(DENSE_GROUP), 1, 1],
        );
        gpu.submit_wait(k.cb);
        let mut want = vec![0f32; r];
        reference::dense(&vw, &vx, &vb, &mut want);
        // The shader sums in another order (and may contract into fused multiply-adds).
        let got = y.mem.read::<f32>(r);
        let bad = got
            .iter()
            .zip(&want)
            .enumerate()
            .find(|(_, (g, w))| (*g - *w).abs() > 1e-4 * w.abs().max(1.0));
        assert_eq!(bad, None, "dense on {name}: (row, got, want)");
        let tp = Throughput::Elements(2 * (r * k_) as u64);
        time(c, "dense", tp.clone(), &gpu, &k);
        time_reference(c, "dense", tp, || {
            reference::dense(&vw, &vx, &vb, &mut want);
        });
        gpu.destroy_kernel(k);
        for t in [w, x, b, y] {
            gpu.destroy_tensor(t);
        }
    }
}

criterion_group!(benches, shaders);
criterion_main!(benches);
