//! Strided tensor copy benchmarks (`tessera-kernels`, no Vulkan involved).
//!
//! Every group reports `Throughput::Bytes(payload)` and contains a `memcpy`
//! baseline — a single-threaded `copy_from_slice` of the same number of
//! payload bytes — so the kernel/memcpy ratio can be read from one run:
//!
//! 1. `packed_64MiB`: u32 4096×4096 packed→packed (the memcpy kernel split
//!    across threads; `tessera` uses the default plan, which streams with
//!    non-temporal stores at this size, `tessera_no_nt` the plain one).
//! 2. `padded_rank4`: u32 64×64×64×64 packed→padded and padded→packed, with
//!    13·elem_size bytes of padding on every outer stride (as the CTS does),
//!    plus the opt-in non-temporal long-row kernel (`*_nt`).
//! 3. `rows_{1,2,4,16,64}B`: u8 `[N, R]` packed→padded, contiguous rows of R
//!    bytes, destination row stride R + 13, payload 64 MiB (so that neither
//!    the kernel nor the baseline fits in cache).
//! 4. `gather_u32`: a u32 gather (contiguous destination, source stride 3
//!    elements), AVX2 `vpgather` against its scalar twin.
//!
//! Run with `cargo bench -p tessera-benches --bench tensor_copy`; the kernel
//! and thread count of every plan are printed to stderr.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use tessera_kernels::{CopyPlan, PlanOptions};

/// Forces the non-temporal-store kernels (where the CPU has them).
const STREAM: PlanOptions = PlanOptions {
    simd: true,
    max_threads: 0,
    parallel_threshold: 1 << 20,
    stream_threshold: 0,
    stream_rows_threshold: 0,
};

/// Packed byte strides of `dims` (outermost first), plus `pad` bytes on
/// every outer stride.
fn strides(elem: u64, dims: &[u64], pad: u64) -> Vec<u64> {
    let mut s = vec![0; dims.len()];
    let mut acc = elem;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc * dims[i] + pad;
    }
    s
}

/// Non-zero, non-constant bytes (no zero-page or compression shortcuts).
fn pattern(len: u64) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ 0x5A)
        .collect()
}

fn group<'a>(c: &'a mut Criterion, name: &str, payload: u64) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Bytes(payload));
    g
}

/// The single-threaded `copy_from_slice` baseline of `payload` bytes.
fn memcpy_baseline(g: &mut BenchmarkGroup<'_, WallTime>, payload: u64) {
    let mut bufs: Option<(Vec<u8>, Vec<u8>)> = None;
    g.bench_function("memcpy", |b| {
        let (src, dst) =
            bufs.get_or_insert_with(|| (pattern(payload), vec![0u8; payload as usize]));
        b.iter(|| dst.copy_from_slice(black_box(src)));
    });
}

/// Benchmarks `plan` as function `name` on buffers of its extents (allocated
/// only if the function is selected by the command-line filter).
fn bench_plan(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, plan: &CopyPlan) {
    let mut bufs: Option<(Vec<u8>, Vec<u8>)> = None;
    g.bench_function(name, |b| {
        let (src, dst) = bufs.get_or_insert_with(|| {
            eprintln!(
                "{name}: kernel {:?}, {} thread(s), payload {} B, src extent {} B, dst extent {} B",
                plan.kernel(),
                plan.threads(),
                plan.bytes(),
                plan.src_extent(),
                plan.dst_extent()
            );
            (
                pattern(plan.src_extent()),
                vec![0u8; plan.dst_extent() as usize],
            )
        });
        b.iter(|| plan.execute(black_box(src), black_box(dst)).unwrap());
    });
}

fn packed_64mib(c: &mut Criterion) {
    let dims = [4096u64, 4096];
    let s = strides(4, &dims, 0);
    let plan = CopyPlan::new(4, &dims, &s, &s).unwrap();
    let no_nt = PlanOptions {
        stream_threshold: u64::MAX,
        ..PlanOptions::default()
    };
    let plain = CopyPlan::with_options(4, &dims, &s, &s, &no_nt).unwrap();
    let mut g = group(c, "packed_64MiB", plan.bytes());
    memcpy_baseline(&mut g, plan.bytes());
    bench_plan(&mut g, "tessera", &plan);
    bench_plan(&mut g, "tessera_no_nt", &plain);
    g.finish();
}

fn padded_rank4(c: &mut Criterion) {
    let dims = [64u64, 64, 64, 64];
    let packed = strides(4, &dims, 0);
    let padded = strides(4, &dims, 13 * 4);
    let to_padded = CopyPlan::new(4, &dims, &packed, &padded).unwrap();
    let to_packed = CopyPlan::new(4, &dims, &padded, &packed).unwrap();
    let to_padded_nt = CopyPlan::with_options(4, &dims, &packed, &padded, &STREAM).unwrap();
    let to_packed_nt = CopyPlan::with_options(4, &dims, &padded, &packed, &STREAM).unwrap();
    let mut g = group(c, "padded_rank4", to_padded.bytes());
    memcpy_baseline(&mut g, to_padded.bytes());
    bench_plan(&mut g, "packed_to_padded", &to_padded);
    bench_plan(&mut g, "padded_to_packed", &to_packed);
    bench_plan(&mut g, "packed_to_padded_nt", &to_padded_nt);
    bench_plan(&mut g, "padded_to_packed_nt", &to_packed_nt);
    g.finish();
}

fn rows(c: &mut Criterion) {
    const PAYLOAD: u64 = 64 << 20;
    for row in [1u64, 2, 4, 16, 64] {
        let dims = [PAYLOAD / row, row];
        let src = [row, 1];
        let dst = [row + 13, 1];
        let plan = CopyPlan::new(1, &dims, &src, &dst).unwrap();
        let mut g = group(c, &format!("rows_{row}B"), plan.bytes());
        memcpy_baseline(&mut g, plan.bytes());
        bench_plan(&mut g, "tessera", &plan);
        g.finish();
    }
}

fn gather_u32(c: &mut Criterion) {
    let n = 8u64 << 20;
    let scalar = PlanOptions {
        simd: false,
        ..PlanOptions::default()
    };
    let simd = CopyPlan::new(4, &[n], &[12], &[4]).unwrap();
    let twin = CopyPlan::with_options(4, &[n], &[12], &[4], &scalar).unwrap();
    let mut g = group(c, "gather_u32", simd.bytes());
    memcpy_baseline(&mut g, simd.bytes());
    bench_plan(&mut g, "tessera", &simd);
    bench_plan(&mut g, "scalar", &twin);
    g.finish();
}

criterion_group!(benches, packed_64mib, padded_rank4, rows, gather_u32);
criterion_main!(benches);
