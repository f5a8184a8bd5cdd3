//! Profiling harness: runs `spirv-tests/shaders/bench_row_sum.spv` on the interpreter directly (no Vulkan).
//! `cargo run --release -p tessera-spirv --example row_sum -- [rows] [threads] [reps] [dump]`
use std::time::Instant;
use tessera_spirv::{BoundResource, Module, Program, Resources, TensorElement};

struct Res(Vec<BoundResource>);
impl Resources for Res {
    fn get(&self, _set: u32, binding: u32, _index: u32) -> Option<&BoundResource> {
        self.0.get(binding as usize)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4096);
    let threads: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let reps: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(3);
    let cols = 4096u64;
    let bytes = include_bytes!("../../../spirv-tests/shaders/bench_row_sum.spv");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let m = Module::parse(&words).unwrap();
    let p = Program::new(&m, "main", &[]).unwrap();
    if args.get(4).is_some() {
        println!("{p:#?}");
    }
    let mut src: Vec<f32> = (0..rows * cols).map(|i| (i % 7) as f32).collect();
    let mut sums = vec![0f32; rows as usize];
    let res = Res(vec![
        BoundResource::Tensor {
            ptr: src.as_mut_ptr().cast(),
            len: src.len() * 4,
            format: TensorElement::F32,
            dims: vec![rows, cols],
            strides: vec![cols * 4, 4],
        },
        BoundResource::Buffer {
            ptr: sums.as_mut_ptr().cast(),
            len: sums.len() * 4,
        },
    ]);
    for _ in 0..reps {
        let t = Instant::now();
        // SAFETY: both buffers outlive the call and nothing else touches them.
        unsafe { p.dispatch(&res, &[], [0; 3], [rows as u32, 1, 1], threads) }.unwrap();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{rows} rows: {:.2} ms, {:.2} GB/s",
            s * 1e3,
            (rows * cols * 4) as f64 / s / 1e9
        );
    }
    for (r, &got) in sums.iter().enumerate() {
        let want: f32 = (0..cols).map(|c| ((r as u64 * cols + c) % 7) as f32).sum();
        assert_eq!(got, want, "row {r}");
    }
}
