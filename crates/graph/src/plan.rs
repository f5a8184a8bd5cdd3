//! The execution plan of a graph: what a dispatch runs. Built once (at pipeline creation) from a
//! checked [`Graph`]; it picks a kernel per node and keeps the constants as bytes, so running it
//! only moves bytes through kernels.
//!
//! Values live as packed little-endian bytes in the element type's container ([`DType::bytes`]):
//! graph inputs are the caller's slices (no copy), constants are the plan's, every other value
//! has its planned range of the run's arena (a data graph session's TRANSIENT memory), except a
//! graph output that no later node reads, which its producer writes straight into the caller's
//! output slice. A fast kernel's scratch memory (a right-hand side packed at dispatch, a
//! convolution's padded input, im2col chunks: [`scratch`]) is planned in the arena too, live
//! only while its node runs, so a run allocates nothing for them.
//!
//! Kernels: float32 ADD/SUB/MUL/MAXIMUM/MINIMUM (with broadcasting); float32 MATMUL and
//! CONV2D on the float32 GEMM of [`crate::gemm::f32`] (weights and constant right-hand sides
//! packed at planning; a convolution reads its zero-padded input in place as runs of taps, with
//! no im2col copy); int8 CONV2D on the exact int8 GEMM of [`crate::gemm::i8`] in the layout for
//! this CPU (VNNI bytes or AVX2 i16 pairs, reading the converted, padded input in place, or
//! im2col chunks that stay in the L2 cache when the runs of taps do not suit the kernel);
//! DEPTHWISE_CONV2D, MAX_POOL2D and AVG_POOL2D in
//! float32 and int8 ([`windows`]: the reference's taps in its order, the channels of a pixel as
//! a vector: bit-exact). Chains of same-shape float32 binary nodes run fused, chunk by chunk
//! through every step; an int8 convolution whose only reader is a RESCALE to int8 applies it in
//! its epilogue; every other node runs the reference kernel on a decoded copy of its operands
//! (`exec`). GEMM rows are split over the worker pool in four blocks per thread, handed out as
//! threads come free. Native float results are what TOSA allows: the elementwise ones are
//! correctly rounded like the reference's, the dot products accumulate in float32 in the GEMM's
//! blocked order (TOSA allows any order). Small convolutions (fewer than
//! [`CONV_GEMM_MIN_MACS`] multiply-adds) keep the reference kernel's pseudocode order, which the
//! CTS compares against at 140 dB SNR.
//!
//! Invariants: every kernel reads only its operands' bytes and writes only its result's; sizes are
//! checked against the value types before any kernel runs.

use crate::dtype::DType;
use crate::error::{GraphError, Result};
use crate::exec::Tensor;
use crate::gemm::f32::{Init, Isa, PackedF32};
use crate::gemm::i8::{Layout, PackedB, gemm_i16, gemm_u8};
use crate::gemm::{self, Rows, Starts};
use crate::ir::{Graph, Node, Source, ValueInfo};
use crate::kernels::quant::Requant;
use crate::kernels::{self, NAN_IGNORE};
use crate::tosa::TosaOp;

mod scratch;
mod windows;
use scratch::{Scratch, ScratchSize};
use windows::{avg_pool_f32, avg_pool_i8, depthwise_f32, depthwise_i8, max_pool_f32, max_pool_i8};

/// The largest tensor (in elements) a reference kernel may read or make: it holds 8 bytes per
/// element (widened values) and allocates infallibly, so larger ones are refused at planning
/// instead of risking an abort on a failed allocation.
pub const MAX_REFERENCE_ELEMENTS: usize = 1 << 27;

/// Convolutions with at least this many multiply-adds run as im2col + GEMM.
pub const CONV_GEMM_MIN_MACS: usize = 1 << 18;
/// Elementwise work is split over the worker pool in chunks of this many elements.
const CHUNK: usize = 1 << 16;

/// Weights a node's GEMM packed at planning (constant operands).
#[derive(Debug, Clone)]
enum Packed {
    /// int8 CONV2D weights.
    I8(PackedB),
    /// Float32 CONV2D weights (one matrix), or a MATMUL's right-hand side (one per batch).
    F32(Vec<PackedF32>),
}

/// What runs a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// The reference kernel on decoded operands.
    Reference,
    /// Float32 binary elementwise.
    Binary(BinOp),
    /// Float32 MATMUL on the float32 GEMM.
    MatmulF32,
    /// Float32 CONV2D as an implicit GEMM on the float32 GEMM.
    Conv2dF32,
    /// int8 × int8 → int32 CONV2D on the exact int8 GEMM (and the RESCALE to
    /// int8 that reads it, when [`Plan`]'s `requant` has one).
    Conv2dI8,
    /// Float32 DEPTHWISE_CONV2D (float32 accumulator): taps in the reference's order, the
    /// channels of a pixel in SIMD lanes (bit-exact with the reference kernel).
    DepthwiseF32,
    /// int8 DEPTHWISE_CONV2D with int32 accumulators (exact; and the RESCALE to int8 that reads
    /// it, when `requant` has one).
    DepthwiseI8,
    /// Float32 MAX_POOL2D (`true`: NaN mode IGNORE), bit-exact.
    MaxPoolF32(bool),
    /// int8 MAX_POOL2D.
    MaxPoolI8,
    /// Float32 AVG_POOL2D (float32 accumulator), bit-exact.
    AvgPoolF32,
    /// int8 AVG_POOL2D (windows of at most 2^23 taps: their sums fit i32).
    AvgPoolI8,
    /// The last node of a chain of float32 binary nodes ([`Plan`]'s `chains[i]`), which runs
    /// the whole chain chunk by chunk; the chain's other nodes are [`Kernel::Fused`].
    Chain(usize),
    /// Nothing: a RESCALE that the int8 convolution before it applies in its epilogue, or a
    /// node of an elementwise chain that its last node runs.
    Fused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    /// MAXIMUM; `true`: NaN mode IGNORE.
    Max(bool),
    Min(bool),
}

/// `o[i] = f(a[i], b[i])`, a loop the compiler vectorises.
#[inline(always)]
fn map2(o: &mut [f32], a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) {
    for ((o, x), y) in o.iter_mut().zip(a).zip(b) {
        *o = f(*x, *y);
    }
}

impl BinOp {
    /// [`BinOp::apply`] over whole slices, the operator chosen once outside the loop.
    fn map(self, o: &mut [f32], a: &[f32], b: &[f32]) {
        match self {
            BinOp::Add => map2(o, a, b, |x, y| x + y),
            BinOp::Sub => map2(o, a, b, |x, y| x - y),
            BinOp::Mul => map2(o, a, b, |x, y| x * y),
            other => map2(o, a, b, |x, y| other.apply(x, y)),
        }
    }

    /// `o[i] = op(o[i], b[i])` (`prev_first`) or `op(b[i], o[i])`, the operator chosen once.
    fn map_in_place(self, o: &mut [f32], b: &[f32], prev_first: bool) {
        #[inline(always)]
        fn go(o: &mut [f32], b: &[f32], f: impl Fn(f32, f32) -> f32) {
            for (x, &y) in o.iter_mut().zip(b) {
                *x = f(*x, y);
            }
        }
        match (self, prev_first) {
            (BinOp::Add, _) => go(o, b, |x, y| x + y),
            (BinOp::Mul, _) => go(o, b, |x, y| x * y),
            (BinOp::Sub, true) => go(o, b, |x, y| x - y),
            (BinOp::Sub, false) => go(o, b, |x, y| y - x),
            (other, true) => go(o, b, |x, y| other.apply(x, y)),
            (other, false) => go(o, b, |x, y| other.apply(y, x)),
        }
    }

    #[inline(always)]
    fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Max(ignore) => {
                if a.is_nan() || b.is_nan() {
                    if ignore {
                        if a.is_nan() { b } else { a }
                    } else {
                        f32::NAN
                    }
                } else if a >= b {
                    a
                } else {
                    b
                }
            }
            BinOp::Min(ignore) => {
                if a.is_nan() || b.is_nan() {
                    if ignore {
                        if a.is_nan() { b } else { a }
                    } else {
                        f32::NAN
                    }
                } else if a <= b {
                    a
                } else {
                    b
                }
            }
        }
    }
}

/// A compiled graph.
#[derive(Debug)]
pub struct Plan {
    graph: Graph,
    kernels: Vec<Kernel>,
    /// Packed bytes of every constant value (empty for others).
    constants: Vec<Vec<u8>>,
    /// Per node: its constant weights packed at planning for its GEMM.
    packed: Vec<Option<Packed>>,
    /// Per node: the values its kernel writes (its results; a fused CONV2D's are those of the
    /// RESCALE it absorbed, which writes none).
    writes: Vec<Vec<usize>>,
    /// Per node: the RESCALE an int8 CONV2D applies to its results.
    requant: Vec<Option<Requant>>,
    /// Elementwise chains (see [`Kernel::Chain`]).
    chains: Vec<Chain>,
    /// Per node: the values its kernel reads (a chain's last node reads every operand of the
    /// chain; fused nodes read nothing).
    reads: Vec<Vec<usize>>,
    /// Per value: where it lives while a run makes and reads it (`None`: inputs, constants and
    /// values no kernel writes).
    places: Vec<Option<Place>>,
    /// Per node: where its kernel's scratch memory lives in the arena (`(offset, bytes)`;
    /// `None` when it needs none).
    scratch: Vec<Option<(usize, usize)>>,
    /// Bytes of the arena that holds every intermediate value (see [`Plan::transient_size`]).
    arena_size: usize,
}

/// A chain of same-shape float32 binary nodes, each result read only by the next: run as one
/// pass over chunks of the result (each chunk through every step while it is in the cache).
/// Each step rounds to float32 as the node alone does, so results are bit-exact.
#[derive(Debug, Clone)]
struct Chain {
    /// The first step: `op(operands[0], operands[1])`.
    first: BinOp,
    /// Each later step: its operator and whether the running value is its left operand; its
    /// other operand is `operands[2 + i]`.
    steps: Vec<(BinOp, bool)>,
    /// Values read, in order.
    operands: Vec<usize>,
}

/// Finds the elementwise chains of at least two nodes (see [`Chain`]); returns each with its
/// nodes.
fn find_chains(g: &Graph, kernels: &[Kernel]) -> Vec<(Chain, Vec<usize>)> {
    let same_shape = |n: usize| {
        let node = &g.nodes[n];
        matches!(kernels[n], Kernel::Binary(_))
            && node.inputs.len() == 2
            && node
                .inputs
                .iter()
                .all(|&v| g.values[v].shape == node.out[0].shape)
    };
    let mut taken = vec![false; g.nodes.len()];
    let mut chains = Vec::new();
    for head in 0..g.nodes.len() {
        if taken[head] || !same_shape(head) {
            continue;
        }
        let Kernel::Binary(first) = kernels[head] else {
            continue;
        };
        let mut nodes = vec![head];
        let mut chain = Chain {
            first,
            steps: Vec::new(),
            operands: g.nodes[head].inputs.clone(),
        };
        loop {
            let cur = *nodes.last().unwrap_or(&head);
            let v = g.nodes[cur].outputs[0];
            if g.output_values.contains(&v) {
                break;
            }
            let mut readers = g
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, r)| r.inputs.contains(&v));
            let (Some((r, reader)), None) = (readers.next(), readers.next()) else {
                break;
            };
            let Kernel::Binary(op) = kernels[r] else {
                break;
            };
            if r <= cur || taken[r] || !same_shape(r) || reader.inputs[0] == reader.inputs[1] {
                break;
            }
            let prev_first = reader.inputs[0] == v;
            chain.steps.push((op, prev_first));
            chain
                .operands
                .push(reader.inputs[if prev_first { 1 } else { 0 }]);
            nodes.push(r);
        }
        if nodes.len() >= 2 {
            for &n in &nodes {
                taken[n] = true;
            }
            chains.push((chain, nodes));
        }
    }
    chains
}

/// Where a value a kernel writes lives during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Straight in output slice `i` (no later node reads it, one output interface takes it).
    Output(usize),
    /// `len` bytes at `offset` in the arena.
    Arena { offset: usize, len: usize },
}

/// Alignment of each value in the arena, and of the arena [`Plan::run_in`] takes.
pub const ARENA_ALIGNMENT: usize = 64;

/// Places every value the kernels write: in its output slice when it can go there directly,
/// else in the arena, each from the node that writes it to the last that reads it (to the end
/// for graph outputs, which are copied out last); and each node's scratch memory
/// (`scratch[n]` bytes, live while node `n` runs). First fit at [`ARENA_ALIGNMENT`].
fn place_values(
    g: &Graph,
    writes: &[Vec<usize>],
    last_use: &[usize],
    scratch: &[usize],
) -> Placement {
    let end = g.nodes.len();
    let mut places = vec![None; g.values.len()];
    let mut scratch_places = vec![None; g.nodes.len()];
    // (first node, last node, offset, bytes) of arena ranges placed so far.
    let mut placed: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut size = 0usize;
    let mut place = |first: usize, last: usize, len: usize| {
        let bytes = len.div_ceil(ARENA_ALIGNMENT) * ARENA_ALIGNMENT;
        let mut offset = 0;
        loop {
            let clash = placed.iter().find(|&&(a, b, o, l)| {
                a <= last && first <= b && o < offset + bytes && offset < o + l
            });
            match clash {
                Some(&(_, _, o, l)) => offset = o + l,
                None => break,
            }
        }
        placed.push((first, last, offset, bytes));
        size = size.max(offset + bytes);
        offset
    };
    for (n, values) in writes.iter().enumerate() {
        for &v in values {
            let read_later = last_use[v] != usize::MAX && last_use[v] >= n;
            let mut outs = g.output_values.iter().enumerate().filter(|(_, o)| **o == v);
            if let (false, Some((i, _)), None) = (read_later, outs.next(), outs.next()) {
                places[v] = Some(Place::Output(i));
                continue;
            }
            let len = nbytes(&g.values[v]);
            let last = if g.output_values.contains(&v) {
                end
            } else if read_later {
                last_use[v]
            } else {
                n
            };
            let offset = place(n, last, len);
            places[v] = Some(Place::Arena { offset, len });
        }
        if let Some(&len) = scratch.get(n).filter(|&&len| len > 0) {
            scratch_places[n] = Some((place(n, n, len), len));
        }
    }
    Placement {
        values: places,
        scratch: scratch_places,
        size,
    }
}

/// What [`place_values`] decides.
struct Placement {
    /// Per value, as [`Plan`]'s `places`.
    values: Vec<Option<Place>>,
    /// Per node, as [`Plan`]'s `scratch`.
    scratch: Vec<Option<(usize, usize)>>,
    /// Bytes of the arena.
    size: usize,
}

/// An owned value buffer, 8-byte aligned (so every element type can be viewed in place).
#[derive(Debug, Default)]
struct Buf {
    words: Vec<u64>,
    len: usize,
}

impl Buf {
    fn zeroed(len: usize) -> Result<Buf> {
        let n = len.div_ceil(8);
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| {
            GraphError::new("Tessera", format!("out of memory for a {len}-byte tensor"))
        })?;
        words.resize(n, 0);
        Ok(Buf { words, len })
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.words)[..self.len]
    }
}

/// The arena of a run ([`Plan::run_in`]) as raw parts, for the slices its nodes read and write:
/// disjoint ranges are written through `&mut` slices while other ranges are read, which one
/// `&mut [u8]` cannot express. The slices live no longer than the caller's borrow `'a`; every
/// range is checked inside the arena.
#[derive(Clone, Copy)]
struct Arena<'a> {
    ptr: *mut u8,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [u8]>,
}

impl<'a> Arena<'a> {
    fn new(arena: &'a mut [u8]) -> Arena<'a> {
        Arena {
            ptr: arena.as_mut_ptr(),
            len: arena.len(),
            _borrow: std::marker::PhantomData,
        }
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(GraphError::new(
                "Tessera",
                "internal error: a value outside the arena",
            ));
        }
        Ok(())
    }

    /// Bytes `offset..offset + len`, to read.
    ///
    /// # Safety
    /// No `&mut` slice of the range made by [`Arena::write`] is alive while the result is.
    unsafe fn read(self, offset: usize, len: usize) -> Result<&'a [u8]> {
        self.check(offset, len)?;
        // SAFETY: inside the arena (checked), borrowed for `'a`; no writer (the contract).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.add(offset).cast_const(), len) })
    }

    /// Bytes `offset..offset + len`, to write.
    ///
    /// # Safety
    /// No other slice of the range (from [`Arena::read`] or [`Arena::write`]) is alive while
    /// the result is.
    unsafe fn write(self, offset: usize, len: usize) -> Result<&'a mut [u8]> {
        self.check(offset, len)?;
        // SAFETY: inside the arena (checked), borrowed mutably for `'a`; no other slice of the
        // range (the contract).
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(offset), len) })
    }
}

/// Where a value's bytes are during a run.
enum Slot {
    Empty,
    Input(usize),
    Constant,
    /// `len` bytes at `offset` in the arena.
    Arena(usize, usize),
    /// Written into output slice `i`.
    Output(usize),
}

fn nbytes(info: &ValueInfo) -> usize {
    info.elements() * info.dtype.bytes()
}

fn f32s(bytes: &[u8]) -> std::borrow::Cow<'_, [f32]> {
    match bytemuck::try_cast_slice::<u8, f32>(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
    }
}

/// A `Send + Sync` raw pointer for handing disjoint row blocks of one buffer to pool threads.
struct SendPtr<T>(*mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SendPtr<T> {}
// SAFETY: used only by `for_row_blocks`, which gives each pool task its own disjoint range of a
// buffer that outlives the pool run.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole `SendPtr`, not its field).
    fn get(self) -> *mut T {
        self.0
    }
}

fn pool_run(n: usize, task: &(dyn Fn(usize) + Sync)) -> Result<()> {
    tessera_workers::global()
        .run(n, task)
        .map_err(|e| GraphError::new("Tessera", e.to_string()))
}

/// A task of [`for_row_blocks`]: `(first row, rows, their elements)`.
type RowTask<'a, T> = dyn Fn(usize, usize, &mut [T]) -> Result<()> + Sync + 'a;

/// Runs `task(r0, rows, block)` on `tasks` blocks of consecutive rows of `dst` (`m` rows of
/// `row` elements; `block` starts at row `r0` and is cut at the end of `dst`), on the worker pool
/// when there is more than one block. Returns the first error a task returned.
fn for_row_blocks<T: Send>(
    dst: &mut [T],
    row: usize,
    m: usize,
    tasks: usize,
    task: &RowTask<'_, T>,
) -> Result<()> {
    let tasks = tasks.clamp(1, m.max(1));
    if tasks == 1 {
        return task(0, m, dst);
    }
    let rows = m.div_ceil(tasks);
    let len = dst.len();
    let base = SendPtr(dst.as_mut_ptr());
    let error = std::sync::Mutex::new(None);
    pool_run(tasks, &|t| {
        let r0 = t * rows;
        if r0 >= m {
            return;
        }
        let mr = rows.min(m - r0);
        let (start, end) = ((r0 * row).min(len), ((r0 + mr) * row).min(len));
        // SAFETY: block `t` is `start..end` of `dst`, inside it and disjoint from every other
        // block; `dst` is borrowed mutably for the whole run.
        let block = unsafe { std::slice::from_raw_parts_mut(base.get().add(start), end - start) };
        if let Err(e) = task(r0, mr, block)
            && let Ok(mut first) = error.lock()
        {
            first.get_or_insert(e);
        }
    })?;
    match error.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

impl Plan {
    /// Plans `graph`.
    pub fn new(graph: Graph) -> Plan {
        let kernels: Vec<Kernel> = graph.nodes.iter().map(|n| choose(&graph, n)).collect();
        let constants = graph
            .sources
            .iter()
            .map(|s| match s {
                Source::Constant(t) => t.to_bytes(),
                _ => Vec::new(),
            })
            .collect();
        let packed: Vec<Option<Packed>> = graph
            .nodes
            .iter()
            .zip(&kernels)
            .map(
                |(n, k)| match (k, n.inputs.get(1).and_then(|&w| graph.sources.get(w))) {
                    (Kernel::Conv2dI8, Some(Source::Constant(w))) => {
                        let zp = kernels::zero_point(n, "weight_zp").ok()?;
                        pack_conv_weights(w, zp).ok().map(Packed::I8)
                    }
                    (Kernel::Conv2dF32, Some(Source::Constant(w))) => {
                        let (oc, k) = (w.shape[0], w.shape[1..].iter().product::<usize>());
                        let b = PackedF32::new(Isa::detect(), &f32_values(w), k, oc, 1, k).ok()?;
                        Some(Packed::F32(vec![b]))
                    }
                    (Kernel::MatmulF32, Some(Source::Constant(b))) => {
                        let (batches, c, w) = (b.shape[0], b.shape[1], b.shape[2]);
                        let v = f32_values(b);
                        let per_batch = (0..batches)
                            .map(|i| {
                                let one = &v[i * c * w..(i + 1) * c * w];
                                PackedF32::new(Isa::detect(), one, c, w, w, 1).ok()
                            })
                            .collect::<Option<Vec<_>>>()?;
                        Some(Packed::F32(per_batch))
                    }
                    _ => None,
                },
            )
            .collect();
        let mut kernels = kernels;
        // Each fast kernel's scratch memory (a kernel whose scratch cannot be sized runs the
        // reference kernel instead; decided before any fusion).
        let mut scratch = vec![0usize; graph.nodes.len()];
        for (n, node) in graph.nodes.iter().enumerate() {
            match node_scratch(&graph, node, kernels[n], packed[n].is_some()) {
                Ok(size) => scratch[n] = size.bytes(),
                Err(_) => kernels[n] = Kernel::Reference,
            }
        }
        let mut writes: Vec<Vec<usize>> = graph.nodes.iter().map(|n| n.outputs.clone()).collect();
        let mut requant: Vec<Option<Requant>> = vec![None; graph.nodes.len()];
        for (n, node) in graph.nodes.iter().enumerate() {
            if !matches!(kernels[n], Kernel::Conv2dI8 | Kernel::DepthwiseI8) {
                continue;
            }
            if let Some((r, q)) = fusable_rescale(&graph, n, node) {
                kernels[r] = Kernel::Fused;
                writes[n] = graph.nodes[r].outputs.clone();
                writes[r].clear();
                requant[n] = Some(q);
            }
        }
        let mut reads: Vec<Vec<usize>> = graph.nodes.iter().map(|n| n.inputs.clone()).collect();
        let mut chains = Vec::new();
        for (chain, nodes) in find_chains(&graph, &kernels) {
            let Some(&tail) = nodes.last() else { continue };
            for &n in &nodes {
                kernels[n] = Kernel::Fused;
                writes[n].clear();
                reads[n].clear();
            }
            kernels[tail] = Kernel::Chain(chains.len());
            writes[tail] = graph.nodes[tail].outputs.clone();
            reads[tail] = chain.operands.clone();
            chains.push(chain);
        }
        for (n, k) in kernels.iter().enumerate() {
            if *k == Kernel::Fused {
                reads[n].clear();
            }
        }
        let mut last_use = vec![usize::MAX; graph.values.len()];
        for (i, values) in reads.iter().enumerate() {
            for &v in values {
                if let Some(l) = last_use.get_mut(v) {
                    *l = i;
                }
            }
        }
        let placement = place_values(&graph, &writes, &last_use, &scratch);
        Plan {
            graph,
            kernels,
            constants,
            packed,
            writes,
            requant,
            chains,
            reads,
            places: placement.values,
            scratch: placement.scratch,
            arena_size: placement.size,
        }
    }

    /// Bytes of transient memory a run needs for the graph's intermediate values and its
    /// kernels' scratch memory (a multiple of [`ARENA_ALIGNMENT`]; 0 when every result goes
    /// straight to an output and no kernel needs scratch).
    pub fn transient_size(&self) -> usize {
        self.arena_size
    }

    /// Checks that every node the reference kernels run stays within
    /// [`MAX_REFERENCE_ELEMENTS`] per operand and result.
    ///
    /// # Errors
    /// Names the node and the tensor that is too large.
    pub fn check_limits(&self) -> Result<()> {
        for (node, kernel) in self.graph.nodes.iter().zip(&self.kernels) {
            if *kernel != Kernel::Reference {
                continue;
            }
            let too_big = node
                .inputs
                .iter()
                .map(|&v| &self.graph.values[v])
                .chain(&node.out)
                .find(|i| i.elements() > MAX_REFERENCE_ELEMENTS);
            if let Some(info) = too_big {
                return Err(GraphError::new(
                    "Tessera",
                    format!(
                        "{} (%{}) would run on the reference kernels with a {info} tensor, more than their {MAX_REFERENCE_ELEMENTS} elements",
                        node.op.name(),
                        node.result
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// How many nodes run natively (the rest run the reference kernels).
    pub fn native_nodes(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| **k != Kernel::Reference)
            .count()
    }

    /// Runs the graph: `inputs[i]` holds input `i` packed, `outputs[i]` receives output `i`
    /// packed. The output slices must not overlap the input slices. The intermediate values
    /// live in an arena allocated for the run ([`Plan::run_in`] takes the caller's).
    ///
    /// # Errors
    /// Wrong slice sizes, a failing reference kernel, or out of memory.
    pub fn run(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
        let mut arena = Buf::zeroed(self.arena_size)?;
        self.run_in(inputs, outputs, arena.bytes_mut())
    }

    /// [`Plan::run`] with the intermediate values in `arena` (at least
    /// [`Plan::transient_size`] bytes, 8-byte aligned; a data graph session's transient memory):
    /// each value's bytes are cleared before its kernel writes them. `arena` must not overlap
    /// the input or output slices.
    ///
    /// # Errors
    /// As [`Plan::run`]; a short or misaligned arena.
    pub fn run_in(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        arena: &mut [u8],
    ) -> Result<()> {
        let g = &self.graph;
        if arena.len() < self.arena_size || !(arena.as_ptr() as usize).is_multiple_of(8) {
            return Err(GraphError::new(
                "Tessera",
                format!(
                    "the transient memory is {} bytes at an address {} 8-byte aligned; the graph needs {} aligned bytes",
                    arena.len(),
                    if (arena.as_ptr() as usize).is_multiple_of(8) {
                        ""
                    } else {
                        "not"
                    },
                    self.arena_size
                ),
            ));
        }
        if inputs.len() != g.inputs.len() || outputs.len() != g.outputs.len() {
            return Err(GraphError::new(
                "Tessera",
                format!(
                    "the graph has {} inputs and {} outputs; {} and {} given",
                    g.inputs.len(),
                    g.outputs.len(),
                    inputs.len(),
                    outputs.len()
                ),
            ));
        }
        for (i, (b, iface)) in inputs.iter().zip(&g.inputs).enumerate() {
            if b.len() != nbytes(&iface.info) {
                return Err(GraphError::new(
                    "Tessera",
                    format!(
                        "input {i} has {} bytes, {} wants {}",
                        b.len(),
                        iface.info,
                        nbytes(&iface.info)
                    ),
                ));
            }
        }
        for (i, (b, iface)) in outputs.iter().zip(&g.outputs).enumerate() {
            if b.len() != nbytes(&iface.info) {
                return Err(GraphError::new(
                    "Tessera",
                    format!(
                        "output {i} has {} bytes, {} wants {}",
                        b.len(),
                        iface.info,
                        nbytes(&iface.info)
                    ),
                ));
            }
        }
        let out_raw: Vec<(*mut u8, usize)> = outputs
            .iter_mut()
            .map(|s| (s.as_mut_ptr(), s.len()))
            .collect();
        let arena = Arena::new(arena);
        let mut slots: Vec<Slot> = g
            .sources
            .iter()
            .map(|s| match s {
                Source::Input(i) => Slot::Input(*i),
                Source::Constant(_) => Slot::Constant,
                Source::Node { .. } => Slot::Empty,
            })
            .collect();
        for (n, node) in g.nodes.iter().enumerate() {
            if self.kernels[n] == Kernel::Fused {
                continue;
            }
            let places: Vec<(usize, Place)> = self.writes[n]
                .iter()
                .map(|&v| {
                    self.places[v].map(|p| (v, p)).ok_or_else(|| {
                        GraphError::new("Tessera", format!("internal error: %{v} has no place"))
                    })
                })
                .collect::<Result<_>>()?;
            {
                let args: Vec<&[u8]> = self.reads[n]
                    .iter()
                    .map(|&v| self.bytes(&slots, v, inputs, arena))
                    .collect::<Result<_>>()?;
                // Whether `offset..offset + len` meets an arena range in use at this node (its
                // arguments, and its results other than value `own`).
                let in_use = |offset: usize, len: usize, own: Option<usize>| {
                    let meets = |o: usize, l: usize| o < offset + len && offset < o + l;
                    places.iter().any(|&(v, p)| {
                        Some(v) != own
                            && matches!(p, Place::Arena { offset: o, len: l } if meets(o, l))
                    }) || self.reads[n]
                        .iter()
                        .any(|&v| matches!(slots[v], Slot::Arena(o, l) if meets(o, l)))
                };
                let mut dests: Vec<&mut [u8]> = Vec::new();
                for &(v, place) in &places {
                    match place {
                        Place::Output(i) => {
                            let (ptr, len) = out_raw[i];
                            // SAFETY: output slice `i`, which the caller's contract keeps
                            // disjoint from the inputs and the arena; no argument is an output
                            // slice (a value placed there is read by no later node), and each
                            // output slice is the place of one value only.
                            dests.push(unsafe { std::slice::from_raw_parts_mut(ptr, len) });
                        }
                        Place::Arena { offset, len } => {
                            // The places of values live at the same node are disjoint
                            // (`place_values`), so this range overlaps no argument of this
                            // node and no other of its results; checked again here, since
                            // an overlap would alias a `&mut`.
                            if in_use(offset, len, Some(v)) {
                                return Err(GraphError::new(
                                    "Tessera",
                                    "internal error: overlapping arena values",
                                ));
                            }
                            // SAFETY: the range overlaps no other slice made for this node
                            // (checked above), and those are the only slices of the arena alive
                            // while the node runs.
                            let d = unsafe { arena.write(offset, len)? };
                            d.fill(0);
                            dests.push(d);
                        }
                    }
                }
                let scratch: &mut [u8] = match self.scratch[n] {
                    Some((offset, len)) => {
                        // Placed apart from every value live at this node (`place_values`);
                        // checked again, as for the results.
                        if in_use(offset, len, None) {
                            return Err(GraphError::new(
                                "Tessera",
                                "internal error: scratch memory overlapping a value",
                            ));
                        }
                        // SAFETY: the range overlaps no other slice made for this node
                        // (checked above).
                        unsafe { arena.write(offset, len)? }
                    }
                    None => &mut [],
                };
                self.run_node(n, node, &args, &mut dests, Scratch::new(scratch))?;
            }
            for (v, place) in places {
                slots[v] = match place {
                    Place::Output(i) => Slot::Output(i),
                    Place::Arena { offset, len } => Slot::Arena(offset, len),
                };
            }
        }
        // Outputs not written in place: copy them.
        for (i, &v) in g.output_values.iter().enumerate() {
            if matches!(slots[v], Slot::Output(j) if j == i) {
                continue;
            }
            let src = self.bytes(&slots, v, inputs, arena)?;
            let (ptr, len) = out_raw[i];
            if src.len() != len {
                return Err(GraphError::new("Tessera", "internal error: output size"));
            }
            // SAFETY: output slice `i` (disjoint from the inputs, the constants and the arena
            // `src` may be in).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), ptr, len) };
        }
        Ok(())
    }

    /// The bytes of value `v` (never one written into an output slice: no later node reads
    /// those). Arena values are read through `arena` (the run's arena, whose values were placed
    /// so that none is written while it is read).
    fn bytes<'r>(
        &'r self,
        slots: &[Slot],
        v: usize,
        inputs: &[&'r [u8]],
        arena: Arena<'r>,
    ) -> Result<&'r [u8]> {
        match &slots[v] {
            Slot::Input(i) => Ok(inputs[*i]),
            Slot::Constant => Ok(&self.constants[v]),
            // SAFETY: no kernel writes this range while a node reads it (checked when the
            // writing slices are made), and the run's slices of the arena die with the run.
            Slot::Arena(offset, len) => unsafe { arena.read(*offset, *len) },
            Slot::Output(_) | Slot::Empty => Err(GraphError::new(
                "Tessera",
                format!("internal error: %{v} read before it was made or after it was handed out"),
            )),
        }
    }

    /// Node `n`'s float32 weights packed at planning, if any (one matrix per batch).
    fn f32_weights(&self, n: usize) -> Option<&[PackedF32]> {
        match &self.packed[n] {
            Some(Packed::F32(b)) => Some(b),
            _ => None,
        }
    }

    fn run_node(
        &self,
        n: usize,
        node: &Node,
        args: &[&[u8]],
        dests: &mut [&mut [u8]],
        scratch: Scratch<'_>,
    ) -> Result<()> {
        match self.kernels[n] {
            Kernel::Reference => {
                let tensors: Vec<Tensor> = node
                    .inputs
                    .iter()
                    .zip(args)
                    .map(|(&v, b)| Tensor::from_bytes(&self.graph.values[v], b))
                    .collect::<Result<_>>()?;
                let refs: Vec<&Tensor> = tensors.iter().collect();
                let kernel = node.op.kernel().ok_or_else(|| {
                    GraphError::new(
                        "Tessera",
                        format!("TOSA {} is not implemented", node.op.name()),
                    )
                })?;
                let outs = kernel(node, &refs)?;
                for ((t, want), d) in outs.iter().zip(&node.out).zip(dests.iter_mut()) {
                    if t.info() != *want {
                        return Err(GraphError::new(
                            "Tessera",
                            format!(
                                "internal error: {} made {}, its result is {want}",
                                node.op.name(),
                                t.info()
                            ),
                        ));
                    }
                    d.copy_from_slice(&t.to_bytes());
                }
                Ok(())
            }
            Kernel::Binary(op) => binary(op, &self.graph, node, args, dests[0]),
            Kernel::MatmulF32 => matmul(
                &self.graph,
                node,
                self.f32_weights(n),
                args,
                dests[0],
                scratch,
            ),
            Kernel::Conv2dF32 => conv2d(
                &self.graph,
                node,
                self.f32_weights(n),
                args,
                dests[0],
                scratch,
            ),
            Kernel::Conv2dI8 => conv2d_i8(
                &self.graph,
                node,
                match &self.packed[n] {
                    Some(Packed::I8(b)) => Some(b),
                    _ => None,
                },
                self.requant[n].as_ref(),
                args,
                dests[0],
                scratch,
            ),
            Kernel::DepthwiseF32 => depthwise_f32(&self.graph, node, args, dests[0]),
            Kernel::DepthwiseI8 => {
                depthwise_i8(&self.graph, node, self.requant[n].as_ref(), args, dests[0])
            }
            Kernel::MaxPoolF32(ignore) => max_pool_f32(&self.graph, node, ignore, args, dests[0]),
            Kernel::MaxPoolI8 => max_pool_i8(&self.graph, node, args, dests[0]),
            Kernel::AvgPoolF32 => avg_pool_f32(&self.graph, node, args, dests[0]),
            Kernel::AvgPoolI8 => avg_pool_i8(&self.graph, node, args, dests[0]),
            Kernel::Chain(c) => chain(&self.chains[c], args, dests[0]),
            Kernel::Fused => Ok(()),
        }
    }
}

/// The kernel for `node`.
fn choose(g: &Graph, node: &Node) -> Kernel {
    if node.op == TosaOp::Conv2d
        && g.values[node.inputs[0]].dtype == DType::I8
        && g.values[node.inputs[1]].dtype == DType::I8
        && node.out[0].dtype == DType::I32
        && g.values[node.inputs[0]].shape.len() == 4
    {
        return Kernel::Conv2dI8;
    }
    if node.op == TosaOp::DepthwiseConv2d
        && g.values[node.inputs[0]].dtype == DType::I8
        && g.values[node.inputs[1]].dtype == DType::I8
        && node.out[0].dtype == DType::I32
        && g.values[node.inputs[0]].shape.len() == 4
    {
        return Kernel::DepthwiseI8;
    }
    let input = &g.values[node.inputs[0]];
    let acc_is = |want: i64| {
        node.attr("acc_type")
            .ok()
            .and_then(Tensor::scalar_i64)
            .is_some_and(|a| a == want)
    };
    let window_taps = || {
        kernels::ints(node, "kernel")
            .ok()
            .filter(|k| k.len() == 2)
            .map_or(i64::MAX, |k| k[0].saturating_mul(k[1]))
    };
    match (node.op, input.dtype, input.shape.len()) {
        (TosaOp::MaxPool2d, DType::I8, 4) => return Kernel::MaxPoolI8,
        (TosaOp::AvgPool2d, DType::I8, 4)
            if acc_is(kernels::ACC_INT32) && window_taps() <= 1 << 23 =>
        {
            return Kernel::AvgPoolI8;
        }
        (TosaOp::AvgPool2d, DType::F32, 4) if acc_is(kernels::ACC_FP32) => {
            return Kernel::AvgPoolF32;
        }
        _ => {}
    }
    let f32_only = node.inputs.iter().all(|&v| g.values[v].dtype == DType::F32)
        && node.out.iter().all(|o| o.dtype == DType::F32);
    if !f32_only {
        return Kernel::Reference;
    }
    let nan_ignore = || {
        node.attr("nan_mode")
            .ok()
            .and_then(Tensor::scalar_i64)
            .is_some_and(|m| m == NAN_IGNORE)
    };
    match node.op {
        TosaOp::Add => Kernel::Binary(BinOp::Add),
        TosaOp::Sub => Kernel::Binary(BinOp::Sub),
        TosaOp::Mul => Kernel::Binary(BinOp::Mul),
        TosaOp::Maximum => Kernel::Binary(BinOp::Max(nan_ignore())),
        TosaOp::Minimum => Kernel::Binary(BinOp::Min(nan_ignore())),
        TosaOp::Matmul => Kernel::MatmulF32,
        TosaOp::MaxPool2d if g.values[node.inputs[0]].shape.len() == 4 => {
            Kernel::MaxPoolF32(nan_ignore())
        }
        TosaOp::DepthwiseConv2d
            if g.values[node.inputs[0]].shape.len() == 4
                && node
                    .attr("acc_type")
                    .ok()
                    .and_then(Tensor::scalar_i64)
                    .is_some_and(|a| a == kernels::ACC_FP32) =>
        {
            Kernel::DepthwiseF32
        }
        TosaOp::Conv2d => {
            let (x, w) = (&g.values[node.inputs[0]], &g.values[node.inputs[1]]);
            let out = &node.out[0];
            let k = w.shape.iter().skip(1).product::<usize>();
            let macs = out.elements().saturating_mul(k);
            let zero_zps = ["input_zp", "weight_zp"].iter().all(|z| {
                node.attr(z)
                    .is_ok_and(|t| (0..t.len()).all(|i| t.get_f64(i) == 0.0))
            });
            if macs >= CONV_GEMM_MIN_MACS && zero_zps && x.shape.len() == 4 {
                Kernel::Conv2dF32
            } else {
                Kernel::Reference
            }
        }
        _ => Kernel::Reference,
    }
}

/// The RESCALE that reads int8 CONV2D `n`'s result, when the convolution can apply it in its
/// epilogue: the result is an i32 value no other node reads and no output is, and the RESCALE is
/// a [`Requant`] (to int8, per output channel or not).
fn fusable_rescale(g: &Graph, n: usize, conv: &Node) -> Option<(usize, Requant)> {
    let v = *conv.outputs.first()?;
    if g.output_values.contains(&v) {
        return None;
    }
    let mut readers = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, r)| r.inputs.contains(&v));
    let (r, rescale) = readers.next()?;
    if readers.next().is_some() || r <= n || rescale.inputs != [v] {
        return None;
    }
    let info = &g.values[v];
    let channels = info.shape.last().copied().unwrap_or(1);
    Requant::of(rescale, info, channels).map(|q| (r, q))
}

/// Runs an elementwise [`Chain`] into `dest`: chunks over the worker pool, each through every
/// step in place.
fn chain(c: &Chain, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let operands: Vec<std::borrow::Cow<'_, [f32]>> = args.iter().map(|a| f32s(a)).collect();
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let n = d.len();
    if operands.len() != c.steps.len() + 2 || operands.iter().any(|o| o.len() != n) {
        return Err(GraphError::new(
            "Tessera",
            "internal error: elementwise chain operands",
        ));
    }
    // Chunks small enough that the running value stays in the L1/L2 cache between steps.
    const STEP_CHUNK: usize = 1 << 13;
    let chunks = n.div_ceil(STEP_CHUNK);
    let tasks = if n >= CHUNK {
        tessera_workers::global().threads().min(chunks)
    } else {
        1
    };
    let rows = chunks.div_ceil(tasks.max(1)) * STEP_CHUNK;
    for_row_blocks(d, rows, tasks.max(1), tasks.max(1), &|t, _, block| {
        let start = t * rows;
        for (i, o) in block.chunks_mut(STEP_CHUNK).enumerate() {
            let s = start + i * STEP_CHUNK;
            let len = o.len();
            let at = |k: usize| &operands[k][s..s + len];
            c.first.map(o, at(0), at(1));
            for (k, &(op, prev_first)) in c.steps.iter().enumerate() {
                op.map_in_place(o, at(2 + k), prev_first);
            }
        }
        Ok(())
    })
}

/// Float32 binary op with TOSA broadcasting (equal ranks, size-1 dimensions stretch).
fn binary(op: BinOp, g: &Graph, node: &Node, args: &[&[u8]], dest: &mut [u8]) -> Result<()> {
    let (ia, ib) = (&g.values[node.inputs[0]], &g.values[node.inputs[1]]);
    let out = &node.out[0];
    let (a, b) = (f32s(args[0]), f32s(args[1]));
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    if ia.shape == out.shape && ib.shape == out.shape {
        let n = d.len();
        let chunks = n.div_ceil(CHUNK);
        if chunks <= 1 {
            op.map(d, &a, &b);
            return Ok(());
        }
        let (a, b) = (&a[..], &b[..]);
        return for_row_blocks(d, CHUNK, chunks, chunks, &|r0, _, o| {
            let start = r0 * CHUNK;
            op.map(o, &a[start..start + o.len()], &b[start..start + o.len()]);
            Ok(())
        });
    }
    // Broadcast: walk the result row by row (the last dimension), each operand's index built from
    // its strides with 0 for stretched dimensions.
    let rank = out.shape.len();
    let st = |shape: &[usize]| -> Vec<usize> {
        let full = kernels::strides(shape);
        (0..rank)
            .map(|i| if shape[i] == 1 { 0 } else { full[i] })
            .collect()
    };
    let (sa, sb) = (st(&ia.shape), st(&ib.shape));
    let inner = out.shape.last().copied().unwrap_or(1);
    let rows = d.len().checked_div(inner).unwrap_or(0);
    let mut index = vec![0usize; rank.saturating_sub(1)];
    for r in 0..rows {
        let (mut oa, mut ob) = (0usize, 0usize);
        for (i, &c) in index.iter().enumerate() {
            oa += c * sa[i];
            ob += c * sb[i];
        }
        let (ka, kb) = (
            sa.get(rank - 1).copied().unwrap_or(0),
            sb.get(rank - 1).copied().unwrap_or(0),
        );
        let row = &mut d[r * inner..(r + 1) * inner];
        for (j, o) in row.iter_mut().enumerate() {
            *o = op.apply(a[oa + j * ka], b[ob + j * kb]);
        }
        for axis in (0..index.len()).rev() {
            index[axis] += 1;
            if index[axis] < out.shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Ok(())
}

/// A float32 tensor's values as f32 (a constant's, decoded to f64, converted back exactly).
fn f32_values(t: &Tensor) -> Vec<f32> {
    t.floats().iter().map(|&v| v as f32).collect()
}

/// `b` (`k × n`, element `(kk, j)` at `b[kk·rs + j·cs]`) packed for this CPU's float32 GEMM
/// into `dst` (scratch memory of [`PackedF32::len`] elements; every element is written), its
/// panels split over the worker pool when it is large.
fn pack_f32<'d>(
    dst: &'d mut [f32],
    b: &[f32],
    k: usize,
    n: usize,
    rs: usize,
    cs: usize,
) -> Result<PackedF32<&'d [f32]>> {
    let gemm_error = |e: &'static str| GraphError::new("Tessera", e);
    let isa = Isa::detect();
    if PackedF32::len(isa, k, n) != Some(dst.len()) {
        return Err(gemm_error(
            "internal error: packing space of the wrong size",
        ));
    }
    let (nr, panels) = (isa.nr(), n.div_ceil(isa.nr()));
    let tasks = if k * n >= 1 << 16 {
        tessera_workers::global().threads().min(panels)
    } else {
        1
    };
    for_row_blocks(dst, k * nr, panels, tasks, &|p0, _, block| {
        PackedF32::pack_panels(block, p0, k, n, nr, b, rs, cs).map_err(gemm_error)
    })?;
    PackedF32::from_panels(isa, k, n, dst).map_err(gemm_error)
}

/// How many row blocks a GEMM of `m` rows and `macs` multiply-adds is split into for the worker
/// pool: one when it is small, else four per thread (the pool hands them out as threads come
/// free, so a thread that starts late takes fewer), each at least 2 kernel blocks of `mr` rows
/// (a 512-row MATMUL still feeds 16 threads; every block reads all of the packed B, which stays
/// in the L2 cache).
fn gemm_tasks(m: usize, macs: usize, mr: usize) -> usize {
    if macs < 1 << 20 {
        return 1;
    }
    let threads = tessera_workers::global().threads();
    (4 * threads).min(m.div_ceil(2 * mr)).max(1)
}

/// `dst[r][j] = init + Σ_k a.row(r)[k]·b[k][j]` for `m` rows (row stride `ldd`), the rows split
/// over the worker pool when the product is large.
fn sgemm(
    m: usize,
    a: &Rows<'_, f32>,
    b: &PackedF32<&[f32]>,
    init: Init<'_>,
    dst: &mut [f32],
    ldd: usize,
) -> Result<()> {
    let tasks = gemm_tasks(m, m * b.n() * b.k(), b.isa().mr());
    for_row_blocks(dst, ldd, m, tasks, &|r0, mr, block| {
        gemm::f32::sgemm(mr, &a.skip(r0), b, init, block, ldd)
            .map_err(|e| GraphError::new("Tessera", e))
    })
}

/// The scratch memory node `node` needs when `kernel` runs it (`weights_packed`: its constant
/// weights were packed at planning): what the kernel below takes, piece by piece, in the same
/// order.
///
/// # Errors
/// When a size overflows.
fn node_scratch(
    g: &Graph,
    node: &Node,
    kernel: Kernel,
    weights_packed: bool,
) -> Result<ScratchSize> {
    let none = ScratchSize::default();
    let too_large = || GraphError::new("Tessera", "a packed matrix too large for memory");
    match kernel {
        Kernel::MatmulF32 if !weights_packed => {
            let b = &g.values[node.inputs[1]];
            let len =
                PackedF32::len(Isa::detect(), b.shape[1], b.shape[2]).ok_or_else(too_large)?;
            none.add::<f32>(len)
        }
        Kernel::Conv2dF32 => {
            let conv = Im2col::new(g, node)?;
            let mut size = none;
            if !weights_packed {
                let len = PackedF32::len(Isa::detect(), conv.k(), conv.oc).ok_or_else(too_large)?;
                size = size.add::<f32>(len)?;
            }
            if !conv.direct() && !conv.unpadded() {
                size = size.add::<f32>(conv.image_len()?)?;
            }
            Ok(size)
        }
        Kernel::Conv2dI8 => {
            let conv = Im2col::new(g, node)?;
            ConvI8Form::new(&conv, Layout::for_this_cpu()).scratch(&conv, weights_packed)
        }
        _ => Ok(none),
    }
}

/// Float32 MATMUL: `[N,H,C] · [N,C,W] → [N,H,W]` per batch (float zero points are 0), with the
/// right-hand side packed at planning when it is a constant (`packed`, one per batch), else
/// into the node's scratch memory, batch by batch.
fn matmul(
    g: &Graph,
    node: &Node,
    packed: Option<&[PackedF32]>,
    args: &[&[u8]],
    dest: &mut [u8],
    mut scratch: Scratch<'_>,
) -> Result<()> {
    let ia = &g.values[node.inputs[0]];
    let ib = &g.values[node.inputs[1]];
    let (batches, h, c) = (ia.shape[0], ia.shape[1], ia.shape[2]);
    let w = ib.shape[2];
    let (a, b) = (f32s(args[0]), f32s(args[1]));
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let mut space = match packed {
        Some(_) => None,
        None => {
            let len = PackedF32::len(Isa::detect(), c, w).unwrap_or(usize::MAX);
            Some(scratch.take::<f32>(len)?)
        }
    };
    for n in 0..batches {
        let bm = match (packed.and_then(|p| p.get(n)), space.as_deref_mut()) {
            (Some(p), _) => p.view(),
            (None, Some(space)) => pack_f32(space, &b[n * c * w..(n + 1) * c * w], c, w, w, 1)?,
            (None, None) => {
                return Err(GraphError::new(
                    "Tessera",
                    "internal error: a MATMUL without its packed right-hand side",
                ));
            }
        };
        let rows = Rows::matrix(&a[n * h * c..(n + 1) * h * c], c, c);
        sgemm(
            h,
            &rows,
            &bm,
            Init::Zero,
            &mut d[n * h * w..(n + 1) * h * w],
            w,
        )?;
    }
    Ok(())
}

/// Float32 CONV2D as an implicit GEMM: `[N·OH·OW, KH·KW·IC] · weightᵀ` from the bias, each GEMM
/// row read in place from a zero-padded copy of the input (its runs of taps; float zero points
/// are 0), or from the input itself when the convolution has no padding. The weights are
/// packed at planning when they are a constant (`packed`); the weights packed at dispatch and
/// the padded input live in the node's scratch memory.
fn conv2d(
    g: &Graph,
    node: &Node,
    packed: Option<&[PackedF32]>,
    args: &[&[u8]],
    dest: &mut [u8],
    mut scratch: Scratch<'_>,
) -> Result<()> {
    let shape = Im2col::new(g, node)?;
    let (x, bias) = (f32s(args[0]), f32s(args[2]));
    let d: &mut [f32] = bytemuck::try_cast_slice_mut(dest)
        .map_err(|_| GraphError::new("Tessera", "internal error: misaligned result buffer"))?;
    let (m, k, oc) = (shape.m(), shape.k(), shape.oc);
    let b = match packed.and_then(|p| p.first()) {
        Some(p) => p.view(),
        None => {
            let len = PackedF32::len(Isa::detect(), k, oc).unwrap_or(usize::MAX);
            pack_f32(scratch.take::<f32>(len)?, &f32s(args[1]), k, oc, 1, k)?
        }
    };
    if shape.direct() {
        let rows = Rows::matrix(&x, shape.ic, shape.ic);
        return sgemm(m, &rows, &b, Init::Bias(&bias), d, oc);
    }
    let image = if shape.unpadded() {
        PaddedImage::in_place(&shape, &x)?
    } else {
        let tasks = tessera_workers::global().threads();
        let buf = scratch.take::<f32>(shape.image_len()?)?;
        PaddedImage::new(&shape, &x, |v| v, 0.0, tasks, buf)?
    };
    let rows = image.rows();
    sgemm(m, &rows, &b, Init::Bias(&bias), d, oc)
}

/// The im2col view of an NHWC convolution input (CONV2D's operands 0 and 1): row `r` (an output
/// position `(n, oy, ox)`) is the `kh·kw·ic` input values its taps read, in (ky, kx, c) order;
/// padded taps keep what the buffer holds (the caller fills it with the pad value).
struct Im2col {
    batches: usize,
    ih: usize,
    iw: usize,
    ic: usize,
    kh: usize,
    kw: usize,
    oh: usize,
    ow: usize,
    /// Output channels (the weights' first dimension).
    oc: usize,
    geo: kernels::conv::Geometry,
}

impl Im2col {
    /// The view of CONV2D `node`'s input and weights.
    ///
    /// # Errors
    /// When the attributes do not make a valid geometry.
    fn new(g: &Graph, node: &Node) -> Result<Im2col> {
        let x = &g.values[node.inputs[0]];
        let w = &g.values[node.inputs[1]];
        let (oc, kh, kw, ic) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        let geo = kernels::conv::geometry(node, x, kh, kw, oc)?;
        let [_, oh, ow, _] = geo.out;
        Ok(Im2col {
            batches: x.shape[0],
            ih: x.shape[1],
            iw: x.shape[2],
            ic,
            kh,
            kw,
            oh,
            ow,
            oc,
            geo,
        })
    }

    /// GEMM rows: output positions.
    fn m(&self) -> usize {
        self.batches * self.oh * self.ow
    }

    /// GEMM K: taps times input channels.
    fn k(&self) -> usize {
        self.kh * self.kw * self.ic
    }

    /// A 1×1, stride-1, unpadded convolution: the GEMM rows are the input's own.
    fn direct(&self) -> bool {
        self.kh == 1 && self.kw == 1 && self.geo.stride == [1, 1] && self.geo.pad == [0; 4]
    }

    /// No padding: a float32 convolution's GEMM rows are the input's own taps.
    fn unpadded(&self) -> bool {
        self.geo.pad == [0; 4]
    }

    /// The padded input's height and width.
    fn padded(&self) -> [usize; 2] {
        let pad = self.geo.pad;
        [self.ih + pad[0] + pad[1], self.iw + pad[2] + pad[3]]
    }

    /// Elements of the padded input ([`PaddedImage`]).
    fn image_len(&self) -> Result<usize> {
        let [ph, pw] = self.padded();
        [ph, pw, self.ic]
            .iter()
            .try_fold(self.batches, |a, &b| a.checked_mul(b))
            .ok_or_else(|| GraphError::new("Tessera", "a padded input too large for memory"))
    }

    /// A GEMM row's runs in the padded input ([`PaddedImage`]): their offsets from the row's
    /// top-left tap, and their length (one run per kernel row when its taps are adjacent,
    /// else one per tap).
    fn runs(&self) -> (Vec<usize>, usize) {
        let (geo, ic) = (self.geo, self.ic);
        let pw = self.padded()[1];
        if geo.dilation[1] == 1 {
            let runs = (0..self.kh).map(|ky| ky * geo.dilation[0] * pw * ic);
            (runs.collect(), self.kw * ic)
        } else {
            let taps = (0..self.kh).flat_map(|ky| (0..self.kw).map(move |kx| (ky, kx)));
            let runs = taps.map(|(ky, kx)| (ky * geo.dilation[0] * pw + kx * geo.dilation[1]) * ic);
            (runs.collect(), ic)
        }
    }

    /// Writes rows `r0..r0+rows` into `out`, `stride` (≥ `kh·kw·ic`) elements apart, with `f`
    /// applied to every copied element.
    fn fill_map<S: Copy, T>(
        &self,
        x: &[S],
        r0: usize,
        rows: usize,
        stride: usize,
        out: &mut [T],
        f: impl Fn(S) -> T,
    ) {
        for (i, row) in out.chunks_exact_mut(stride).take(rows).enumerate() {
            let r = r0 + i;
            let (b, rem) = (r / (self.oh * self.ow), r % (self.oh * self.ow));
            let (oy, ox) = (rem / self.ow, rem % self.ow);
            let (input, kernel) = ((self.ih, self.iw), (self.kh, self.kw));
            self.geo.each_tap(input, kernel, oy, ox, |ky, kx, y, xx| {
                let src = ((b * self.ih + y) * self.iw + xx) * self.ic;
                let dst = (ky * self.kw + kx) * self.ic;
                for (d, &v) in row[dst..dst + self.ic]
                    .iter_mut()
                    .zip(&x[src..src + self.ic])
                {
                    *d = f(v);
                }
            });
        }
    }
}

/// OHWI int8 weights (zero point `zp`) as the GEMM's right-hand side: element (k, o) of
/// `[K, OC]` is `w[o·K + k]`.
fn pack_conv_weights(w: &Tensor, zp: i64) -> std::result::Result<PackedB, &'static str> {
    let oc = w.shape[0];
    let k: usize = w.shape[1..].iter().product();
    let raw: Vec<i8> = w.ints().iter().map(|&v| v as i8).collect();
    PackedB::new(&raw, k, oc, 1, k, zp as i32)
}

/// How an int8 CONV2D runs, decided alike when it is planned (to size its scratch memory) and
/// when it runs.
struct ConvI8Form {
    layout: Layout,
    /// Elements per converted row (K rounded up for the layout).
    row_len: usize,
    /// Row blocks for the worker pool (at most the rows).
    tasks: usize,
    /// Rows per im2col chunk: about 128 KiB of converted rows, so they stay in the L2 cache
    /// while every panel of the weights passes over them.
    chunk: usize,
    /// The kernels read a converted, padded copy of the input in place (implicit GEMM): its
    /// runs of taps suit them (even lengths for the i16 pairs, multiples of 4 for VNNI).
    /// Otherwise rows are copied chunk by chunk (im2col).
    padded: bool,
}

impl ConvI8Form {
    fn new(shape: &Im2col, layout: Layout) -> ConvI8Form {
        let (m, k) = (shape.m(), shape.k());
        let row_len = layout.row_len(k);
        let block = layout.block_rows();
        let run = shape.runs().1;
        ConvI8Form {
            layout,
            row_len,
            tasks: gemm_tasks(m, m * shape.oc * k, block).clamp(1, m.max(1)),
            chunk: ((128 << 10) / (row_len.max(1) * 2)).clamp(1, 64) * block,
            padded: !shape.direct()
                && match layout {
                    Layout::I16 => run.is_multiple_of(2),
                    Layout::U8 => run.is_multiple_of(4),
                },
        }
    }

    /// Bytes of one task's im2col chunk (when not [`ConvI8Form::padded`]).
    fn chunk_scratch(&self, m: usize) -> Result<ScratchSize> {
        let len = self
            .chunk
            .min(m.div_ceil(self.tasks))
            .checked_mul(self.row_len)
            .ok_or_else(|| GraphError::new("Tessera", "im2col rows too large for memory"))?;
        match self.layout {
            Layout::U8 => ScratchSize::default().add::<u8>(len),
            Layout::I16 => ScratchSize::default().add::<i16>(len),
        }
    }

    /// The scratch memory of a run: the weights packed at dispatch (unless `weights_packed`),
    /// then the padded image or one im2col chunk per task.
    fn scratch(&self, shape: &Im2col, weights_packed: bool) -> Result<ScratchSize> {
        let mut size = ScratchSize::default();
        if !weights_packed {
            let len = PackedB::len(self.layout, shape.k(), shape.oc)
                .ok_or_else(|| GraphError::new("Tessera", "int8 weights too large for memory"))?;
            size = size.add::<u8>(len)?;
        }
        if self.padded {
            let len = shape.image_len()?;
            match self.layout {
                Layout::U8 => size.add::<u8>(len),
                Layout::I16 => size.add::<i16>(len),
            }
        } else {
            size.then(self.chunk_scratch(shape.m())?.times(self.tasks)?)
        }
    }
}

/// int8 CONV2D (int32 accumulators, exact): the input converted and padded with its zero point
/// (so padded taps add `(zp − zp)·w = 0`, as TOSA says), read in place as an implicit GEMM or
/// copied chunk by chunk (im2col), then the int8 GEMM from the bias. Weights packed at dispatch,
/// the padded input and the im2col chunks live in the node's scratch memory.
fn conv2d_i8(
    g: &Graph,
    node: &Node,
    packed: Option<&PackedB>,
    requant: Option<&Requant>,
    args: &[&[u8]],
    dest: &mut [u8],
    mut scratch: Scratch<'_>,
) -> Result<()> {
    let shape = Im2col::new(g, node)?;
    let izp = kernels::zero_point(node, "input_zp")? as i32;
    let wzp = kernels::zero_point(node, "weight_zp")? as i32;
    let (m, k, oc) = (shape.m(), shape.k(), shape.oc);
    let layout = packed.map_or_else(Layout::for_this_cpu, PackedB::layout);
    let form = ConvI8Form::new(&shape, layout);
    let b = match packed {
        Some(b) => b.view(),
        None => {
            let w: &[i8] = bytemuck::cast_slice(args[1]);
            let len = PackedB::len(layout, k, oc).unwrap_or(usize::MAX);
            PackedB::pack_into(layout, scratch.take::<u8>(len)?, w, k, oc, 1, k, wzp)
                .map_err(|e| GraphError::new("Tessera", e))?
        }
    };
    let bias: Vec<i32> = args[2]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let bias: Vec<i32> = (0..oc)
        .map(|o| {
            let at = if bias.len() == 1 { 0 } else { o };
            bias.get(at).copied().unwrap_or(0)
        })
        .collect();
    let xu: &[u8] = args[0];
    let source = if form.padded {
        RowSource::Padded(match layout {
            Layout::I16 => Padded::I16(PaddedImage::new(
                &shape,
                xu,
                |v| i16::from(v as i8) - izp as i16,
                0,
                form.tasks,
                scratch.take::<i16>(shape.image_len()?)?,
            )?),
            Layout::U8 => Padded::U8(PaddedImage::new(
                &shape,
                xu,
                |v| v ^ 0x80,
                (izp as u8) ^ 0x80,
                form.tasks,
                scratch.take::<u8>(shape.image_len()?)?,
            )?),
        })
    } else {
        let each = form.chunk_scratch(m)?.bytes();
        let parts = scratch.split(form.tasks, each)?;
        RowSource::Chunks(parts.into_iter().map(std::sync::Mutex::new).collect())
    };
    let job = ConvI8 {
        shape: &shape,
        form: &form,
        b: &b,
        izp,
        bias: &bias,
        source,
    };
    match requant {
        // Fused RESCALE: int8 results straight from the accumulators.
        Some(q) => {
            let d: &mut [i8] = bytemuck::cast_slice_mut(dest);
            job.run(xu, d, |v, o| q.apply(v, o))
        }
        None => {
            let d: &mut [i32] = bytemuck::try_cast_slice_mut(dest).map_err(|_| {
                GraphError::new("Tessera", "internal error: misaligned result buffer")
            })?;
            job.run(xu, d, |v, _| v)
        }
    }
}

/// Where an int8 convolution's GEMM rows come from.
enum RowSource<'s> {
    /// The converted, padded input, read in place.
    Padded(Padded<'s>),
    /// One scratch buffer per pool task for im2col chunks (each locked by its one task).
    Chunks(Vec<std::sync::Mutex<&'s mut [u8]>>),
}

/// The parts of an int8 CONV2D run that [`ConvI8::run`] splits over the worker pool.
struct ConvI8<'a, 's> {
    shape: &'a Im2col,
    form: &'a ConvI8Form,
    b: &'a PackedB<&'a [u8]>,
    izp: i32,
    /// One per output channel.
    bias: &'a [i32],
    source: RowSource<'s>,
}

impl ConvI8<'_, '_> {
    /// Runs the convolution into `d` (`m` rows of `oc`), each result `epilogue(sum + bias,
    /// channel)`.
    fn run<T: Copy + Send, E: Fn(i32, usize) -> T + Sync>(
        &self,
        xu: &[u8],
        d: &mut [T],
        epilogue: E,
    ) -> Result<()> {
        let (b, izp, bias, oc) = (self.b, self.izp, self.bias, self.shape.oc);
        let (form, m) = (self.form, self.shape.m());
        let row_len = form.row_len;
        let im2col = ChunkedIm2col {
            shape: self.shape,
            direct: self.shape.direct(),
            k: self.shape.k(),
            row_len,
            chunk: form.chunk,
        };
        for_row_blocks(d, oc, m, form.tasks, &|r0, mr, c| {
            // Each block's results plus the bias, through the epilogue, stored in `c`.
            let mut store = |first: usize, r: usize, j0: usize, v: &[i32]| {
                let at = (first - r0 + r) * oc + j0;
                for (j, ((d, &x), &bias)) in c[at..at + v.len()]
                    .iter_mut()
                    .zip(v)
                    .zip(&bias[j0..])
                    .enumerate()
                {
                    *d = epilogue(x.wrapping_add(bias), j0 + j);
                }
            };
            let chunks = match &self.source {
                RowSource::Padded(image) => {
                    let done = match image {
                        Padded::I16(image) => {
                            gemm_i16(mr, &image.rows().skip(r0), b, |r, j0, v| {
                                store(r0, r, j0, v)
                            })
                        }
                        Padded::U8(image) => {
                            gemm_u8(mr, &image.rows().skip(r0), izp, b, |r, j0, v| {
                                store(r0, r, j0, v)
                            })
                        }
                    };
                    return done.map_err(|e| GraphError::new("Tessera", e));
                }
                RowSource::Chunks(chunks) => chunks,
            };
            // This block's own buffer: block `t` starts at row `t·⌈m/tasks⌉`.
            let task = r0 / m.div_ceil(form.tasks).max(1);
            let mut part = chunks
                .get(task)
                .and_then(|p| p.lock().ok())
                .ok_or_else(|| GraphError::new("Tessera", "internal error: no im2col buffer"))?;
            let mut space = Scratch::new(&mut part);
            let capacity = form.chunk.min(mr) * row_len;
            match b.layout() {
                Layout::U8 => im2col.run(
                    xu,
                    r0,
                    mr,
                    |v| v ^ 0x80,
                    (izp as u8) ^ 0x80,
                    space.take::<u8>(capacity)?,
                    |first, n, u| {
                        let rows = Rows::matrix(u, row_len, row_len);
                        gemm_u8(n, &rows, izp, b, |r, j0, v| store(first, r, j0, v))
                    },
                ),
                Layout::I16 => im2col.run(
                    xu,
                    r0,
                    mr,
                    |v| i16::from(v as i8) - izp as i16,
                    0i16,
                    space.take::<i16>(capacity)?,
                    |first, n, converted| {
                        let rows = Rows::matrix(converted, row_len, row_len);
                        gemm_i16(n, &rows, b, |r, j0, v| store(first, r, j0, v))
                    },
                ),
            }
        })
    }
}

/// An int8 convolution's padded input, converted for the kernel of its weights' layout.
enum Padded<'s> {
    /// `x − zp` in i16 (zeros around), for [`Layout::I16`].
    I16(PaddedImage<'s, i16>),
    /// `x ⊕ 0x80` (`zp ⊕ 0x80` around), for [`Layout::U8`].
    U8(PaddedImage<'s, u8>),
}

/// A convolution's input as an implicit GEMM reads it: each element converted (`x − zp` in i16
/// or `x ⊕ 0x80` for the int8 kernels, float32 as it is), the zero point's value in the padding
/// around each image, and the runs of taps each GEMM row is made of. The elements live in the
/// node's scratch memory.
struct PaddedImage<'s, T> {
    data: &'s [T],
    /// Padded height and width.
    ph: usize,
    pw: usize,
    ic: usize,
    oh: usize,
    ow: usize,
    stride: [usize; 2],
    /// Offsets of a row's runs from its start, and their length.
    runs: Vec<usize>,
    run: usize,
}

impl<'s, T: Copy + Send + Sync> PaddedImage<'s, T> {
    /// The padded image of `x` (NHWC) in `data` ([`Im2col::image_len`] elements, every one
    /// written): each element `convert`ed, `pad` around each image, its rows made on up to
    /// `tasks` pool threads.
    fn new<S: Copy + Sync>(
        shape: &Im2col,
        x: &[S],
        convert: impl Fn(S) -> T + Sync,
        pad: T,
        tasks: usize,
        data: &'s mut [T],
    ) -> Result<PaddedImage<'s, T>> {
        let geo = shape.geo;
        let ic = shape.ic;
        let [ph, pw] = shape.padded();
        let (runs, run) = shape.runs();
        let batches = shape.batches;
        if data.len() != shape.image_len()? || x.len() != batches * shape.ih * shape.iw * ic {
            return Err(GraphError::new(
                "Tessera",
                "internal error: a padded input of the wrong size",
            ));
        }
        let row = pw * ic;
        let (top, left) = (geo.pad[0], geo.pad[2]);
        for_row_blocks(data, row, batches * ph, tasks, &|r0, rows, block| {
            for (i, dst) in block.chunks_exact_mut(row).take(rows).enumerate() {
                let (b, y) = ((r0 + i) / ph, (r0 + i) % ph);
                if y < top || y >= top + shape.ih {
                    dst.fill(pad);
                    continue;
                }
                let src = ((b * shape.ih + y - top) * shape.iw) * ic;
                let src = &x[src..src + shape.iw * ic];
                let (head, rest) = dst.split_at_mut(left * ic);
                let (body, tail) = rest.split_at_mut(shape.iw * ic);
                head.fill(pad);
                tail.fill(pad);
                for (d, &v) in body.iter_mut().zip(src) {
                    *d = convert(v);
                }
            }
            Ok(())
        })?;
        Ok(PaddedImage {
            data,
            ph,
            pw,
            ic,
            oh: shape.oh,
            ow: shape.ow,
            stride: geo.stride,
            runs,
            run,
        })
    }

    /// The input `x` itself as the image of a convolution without padding.
    fn in_place(shape: &Im2col, x: &'s [T]) -> Result<PaddedImage<'s, T>> {
        if !shape.unpadded() || x.len() != shape.image_len()? {
            return Err(GraphError::new(
                "Tessera",
                "internal error: an input read in place that is padded or of the wrong size",
            ));
        }
        let (runs, run) = shape.runs();
        Ok(PaddedImage {
            data: x,
            ph: shape.ih,
            pw: shape.iw,
            ic: shape.ic,
            oh: shape.oh,
            ow: shape.ow,
            stride: shape.geo.stride,
            runs,
            run,
        })
    }

    /// The GEMM rows: output position `(n, oy, ox)` starts at its top-left tap.
    fn rows(&self) -> Rows<'_, T> {
        Rows {
            data: self.data,
            starts: Starts::Image {
                oh: self.oh,
                ow: self.ow,
                image: self.ph * self.pw * self.ic,
                row: self.stride[0] * self.pw * self.ic,
                col: self.stride[1] * self.ic,
            },
            first: 0,
            runs: &self.runs,
            run: self.run,
        }
    }
}

/// Im2col rows of an int8 convolution made chunk by chunk into one reused buffer.
struct ChunkedIm2col<'s> {
    shape: &'s Im2col,
    /// A 1×1, stride-1, unpadded convolution: rows are the input's.
    direct: bool,
    /// Elements per im2col row, and per converted row (`k` rounded up for the GEMM).
    k: usize,
    row_len: usize,
    /// Rows per chunk.
    chunk: usize,
}

impl ChunkedIm2col<'_> {
    /// For rows `r0..r0+rows`, chunk by chunk in `buf` (room for `min(chunk, rows)` converted
    /// rows): fills the chunk's rows with `convert(x)` (`pad` in padded taps, zero past `k`)
    /// and calls `gemm(first row, rows, converted rows)`.
    #[allow(clippy::too_many_arguments)]
    fn run<T: Copy + Default>(
        &self,
        x: &[u8],
        r0: usize,
        rows: usize,
        convert: impl Fn(u8) -> T,
        pad: T,
        buf: &mut [T],
        mut gemm: impl FnMut(usize, usize, &[T]) -> std::result::Result<(), &'static str>,
    ) -> Result<()> {
        let (k, len) = (self.k, self.row_len);
        if buf.len() < self.chunk.min(rows) * len {
            return Err(GraphError::new(
                "Tessera",
                "internal error: an im2col buffer too short",
            ));
        }
        let mut done = 0;
        while done < rows {
            let n = self.chunk.min(rows - done);
            let first = r0 + done;
            let u = &mut buf[..n * len];
            if self.direct {
                for (i, row) in u.chunks_exact_mut(len).enumerate() {
                    let src = &x[(first + i) * k..(first + i + 1) * k];
                    for (d, &s) in row.iter_mut().zip(src) {
                        *d = convert(s);
                    }
                    row[k..].fill(T::default());
                }
            } else {
                for row in u.chunks_exact_mut(len) {
                    row[..k].fill(pad);
                    row[k..].fill(T::default());
                }
                self.shape.fill_map(x, first, n, len, u, &convert);
            }
            gemm(first, n, u).map_err(|e| GraphError::new("Tessera", e))?;
            done += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Values;
    use crate::testing::{ADD, Asm, CONV2D, MATMUL, MUL, SUB};
    use crate::{Inputs, compile, run};

    /// A deterministic pseudo-random float in [-2, 2) with few mantissa bits.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                ((x >> 8) % 64) as f32 / 16.0 - 2.0
            })
            .collect()
    }

    fn bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn tensor(shape: &[usize], v: &[f32]) -> Tensor {
        Tensor::new(
            DType::F32,
            shape.to_vec(),
            Values::Float(v.iter().map(|&x| f64::from(x)).collect()),
        )
        .unwrap()
    }

    /// Runs `plan` with an arena full of garbage, as a session's TRANSIENT memory may be (at
    /// an odd offset from a line, so scratch pieces must align themselves).
    fn run_dirty(plan: &Plan, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        let mut words = vec![0xA5A5_A5A5_A5A5_A5A5u64; plan.transient_size() / 8 + 2];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        plan.run_in(inputs, outputs, &mut bytes[8..]).unwrap();
    }

    /// Runs `words` with the plan and with the reference executor; returns both outputs.
    fn both(
        words: &[u32],
        inputs: &[(Vec<usize>, Vec<f32>)],
    ) -> (Vec<Vec<f32>>, Vec<Vec<f32>>, usize) {
        let graph = compile(words, "main", &Inputs::default()).unwrap();
        let tensors: Vec<Tensor> = inputs.iter().map(|(s, v)| tensor(s, v)).collect();
        let reference: Vec<Vec<f32>> = run(&graph, &tensors)
            .unwrap()
            .iter()
            .map(|t| t.floats().iter().map(|&x| x as f32).collect())
            .collect();
        let plan = Plan::new(graph);
        let in_bytes: Vec<Vec<u8>> = inputs.iter().map(|(_, v)| bytes(v)).collect();
        let in_refs: Vec<&[u8]> = in_bytes.iter().map(Vec::as_slice).collect();
        let mut outs: Vec<Vec<u8>> = plan
            .graph()
            .outputs
            .iter()
            .map(|o| vec![0u8; nbytes(&o.info)])
            .collect();
        let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
        run_dirty(&plan, &in_refs, &mut out_refs);
        let native = outs
            .iter()
            .map(|b| {
                b.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            })
            .collect();
        (native, reference, plan.native_nodes())
    }

    #[test]
    fn elementwise_chains_with_broadcast_match_the_reference_bit_for_bit() {
        let mut a = Asm::new();
        let f = a.float(32);
        let big = a.tensor(f, &[3, 70_000]);
        let row = a.tensor(f, &[1, 70_000]);
        let col = a.tensor(f, &[3, 1]);
        let x = a.input(big, 0);
        let y = a.input(row, 1);
        let z = a.input(col, 2);
        let s = a.op(big, ADD, &[x, y]);
        let i8t = a.int(8);
        let shift = a.one(i8t, 0);
        let m = a.op(big, MUL, &[s, z, shift]);
        let d = a.op(big, SUB, &[m, x]);
        a.output(d, big, 3);
        a.output(s, big, 4);
        let (native, reference, fast) = both(
            &a.finish(),
            &[
                (vec![3, 70_000], values(210_000, 1)),
                (vec![1, 70_000], values(70_000, 2)),
                (vec![3, 1], values(3, 3)),
            ],
        );
        assert_eq!(fast, 3);
        assert_eq!(native, reference);
    }

    #[test]
    fn elementwise_chains_run_fused_and_bit_exact() {
        // ((x + y) · z − x) then max(w, ·) and y − (·): one chain of five steps, operands on both
        // sides; a second chain starts after a value that is also a graph output.
        let mut a = Asm::new();
        let f = a.float(32);
        let t = a.tensor(f, &[3, 50_000]);
        let x = a.input(t, 0);
        let y = a.input(t, 1);
        let z = a.input(t, 2);
        let w = a.input(t, 3);
        let i8t = a.int(8);
        let shift = a.one(i8t, 0);
        let s1 = a.op(t, ADD, &[x, y]);
        let s2 = a.op(t, MUL, &[s1, z, shift]);
        let s3 = a.op(t, SUB, &[s2, x]);
        let i32t = a.int(32);
        let propagate = a.scalar(i32t, 1);
        let s4 = a.op(t, TosaOp::Maximum.opcode(), &[propagate, w, s3]);
        let s5 = a.op(t, SUB, &[y, s4]);
        let u1 = a.op(t, ADD, &[s5, z]);
        let u2 = a.op(t, MUL, &[u1, u1, shift]);
        a.output(s5, t, 4);
        a.output(u2, t, 5);
        let words = a.finish();
        let plan = Plan::new(compile(&words, "main", &Inputs::default()).unwrap());
        assert_eq!(plan.chains.len(), 1);
        assert_eq!(plan.chains[0].steps.len(), 4);
        assert_eq!(
            plan.kernels.iter().filter(|k| **k == Kernel::Fused).count(),
            4
        );
        let n = 150_000;
        let mut xs = values(n, 1);
        xs[7] = f32::NAN;
        let (native, reference, _) = both(
            &words,
            &[
                (vec![3, 50_000], xs),
                (vec![3, 50_000], values(n, 2)),
                (vec![3, 50_000], values(n, 3)),
                (vec![3, 50_000], values(n, 4)),
            ],
        );
        let bits = |v: &Vec<Vec<f32>>| -> Vec<Vec<u32>> {
            v.iter()
                .map(|o| o.iter().map(|x| x.to_bits()).collect())
                .collect()
        };
        assert_eq!(bits(&native), bits(&reference));
    }

    #[test]
    fn intermediates_share_the_arena_by_lifetime() {
        // x+y → t1, t1+y → t2, t2+y → t3, t3+y → out (y broadcast, so no elementwise chain):
        // t1 and t3 never live together, so the arena holds two values; the result goes
        // straight to the output.
        let mut a = Asm::new();
        let f = a.float(32);
        let t = a.tensor(f, &[1000]);
        let t1 = a.tensor(f, &[1]);
        let x = a.input(t, 0);
        let y = a.input(t1, 1);
        let mut v = x;
        for _ in 0..4 {
            v = a.op(t, ADD, &[v, y]);
        }
        a.output(v, t, 2);
        let graph = compile(&a.finish(), "main", &Inputs::default()).unwrap();
        let plan = Plan::new(graph);
        let one = 1000 * 4usize;
        let slot = one.div_ceil(ARENA_ALIGNMENT) * ARENA_ALIGNMENT;
        assert_eq!(plan.transient_size(), 2 * slot);
        let (xs, ys) = (values(1000, 1), values(1, 2));
        let (xb, yb) = (bytes(&xs), bytes(&ys));
        let mut out = vec![0u8; 4000];
        // A caller's arena (as a session's TRANSIENT memory is), filled with garbage first.
        let mut words = vec![u64::MAX; plan.transient_size() / 8];
        let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        plan.run_in(&[&xb, &yb], &mut [&mut out], arena).unwrap();
        let y = ys[0];
        let want: Vec<f32> = xs.iter().map(|&x| x + y + y + y + y).collect();
        assert_eq!(out, bytes(&want));
        // Too short an arena is an error, not a write past its end.
        let e = plan
            .run_in(&[&xb, &yb], &mut [&mut out], &mut arena[..slot])
            .unwrap_err();
        assert!(e.to_string().contains("transient memory"), "{e}");
    }

    fn close(native: &[f32], reference: &[f32], tolerance: f32) {
        assert_eq!(native.len(), reference.len());
        for (i, (n, r)) in native.iter().zip(reference).enumerate() {
            assert!(
                (n - r).abs() <= tolerance * r.abs().max(1.0),
                "[{i}]: {n} vs {r}"
            );
        }
    }

    #[test]
    fn matmul_runs_on_gemm_and_matches_the_reference() {
        let mut a = Asm::new();
        let f = a.float(32);
        let ta = a.tensor(f, &[2, 67, 129]);
        let tb = a.tensor(f, &[2, 129, 45]);
        let to = a.tensor(f, &[2, 67, 45]);
        let x = a.input(ta, 0);
        let y = a.input(tb, 1);
        let zp = a.one(f, 0);
        let m = a.op(to, MATMUL, &[x, y, zp, zp]);
        a.output(m, to, 2);
        let (native, reference, fast) = both(
            &a.finish(),
            &[
                (vec![2, 67, 129], values(2 * 67 * 129, 4)),
                (vec![2, 129, 45], values(2 * 129 * 45, 5)),
            ],
        );
        assert_eq!(fast, 1);
        // Inputs are multiples of 1/16 below 2: every product and partial sum is exact in f32.
        close(&native[0], &reference[0], 0.0);
    }

    /// A CONV2D graph on f32 `[1, h, w, ic]` with `oc` outputs, a `k`×`k` kernel, stride, padding.
    fn conv_graph(
        h: u32,
        w: u32,
        ic: u32,
        oc: u32,
        k: u32,
        stride: i32,
        pad: i32,
    ) -> (Vec<u32>, [usize; 4]) {
        let mut a = Asm::new();
        let f = a.float(32);
        let i32t = a.int(32);
        let oh = (h as i32 + 2 * pad - k as i32) / stride + 1;
        let ow = (w as i32 + 2 * pad - k as i32) / stride + 1;
        let tin = a.tensor(f, &[1, h, w, ic]);
        let tw = a.tensor(f, &[oc, k, k, ic]);
        let tb = a.tensor(f, &[oc]);
        let tout = a.tensor(f, &[1, oh as u32, ow as u32, oc]);
        let x = a.input(tin, 0);
        let wt = a.input(tw, 1);
        let b = a.input(tb, 2);
        let padc = a.i32s(&[pad, pad, pad, pad]);
        let st = a.i32s(&[stride, stride]);
        let dil = a.i32s(&[1, 1]);
        let acc = a.scalar(i32t, 3);
        let lb = a.boolc(false);
        let zp = a.one(f, 0);
        let c = a.op(tout, CONV2D, &[padc, st, dil, acc, lb, x, wt, b, zp, zp]);
        a.output(c, tout, 3);
        (a.finish(), [1, oh as usize, ow as usize, oc as usize])
    }

    #[test]
    fn big_convolutions_run_as_gemm_small_ones_keep_the_reference_order() {
        for (h, w, ic, oc, k, stride, pad, fast) in [
            (20, 24, 16, 24, 3, 1, 1, 1),
            (20, 24, 16, 24, 3, 1, 0, 1),
            (29, 25, 8, 32, 3, 2, 1, 1),
            (29, 25, 8, 32, 3, 2, 0, 1),
            (32, 32, 32, 16, 1, 1, 0, 1),
            (8, 16, 4, 4, 2, 2, 0, 0),
        ] {
            let (words, _) = conv_graph(h, w, ic, oc, k, stride, pad);
            let (hs, ws, ics, ocs, ks) =
                (h as usize, w as usize, ic as usize, oc as usize, k as usize);
            let (native, reference, n) = both(
                &words,
                &[
                    (vec![1, hs, ws, ics], values(hs * ws * ics, 6)),
                    (vec![ocs, ks, ks, ics], values(ocs * ks * ks * ics, 7)),
                    (vec![ocs], values(ocs, 8)),
                ],
            );
            assert_eq!(n, fast, "{h}x{w}x{ic}→{oc} k{k}");
            close(&native[0], &reference[0], 0.0);
        }
    }

    /// The int8 CONV2D of the int8 tests: a `[1, h, w, ic]` input (binding 0), `[oc, k, k, ic]`
    /// weights (graph constant 0, or input binding 1 when not `constant`), an int32 bias (graph
    /// constant 1) and the two zero points.
    #[derive(Debug, Clone, Copy)]
    struct ConvI8 {
        h: i32,
        w: i32,
        ic: u32,
        oc: u32,
        k: i32,
        stride: i32,
        pad: i32,
        dilation: i32,
        izp: i32,
        wzp: i32,
        constant: bool,
    }

    impl ConvI8 {
        /// Output height and width.
        fn out(&self) -> (u32, u32) {
            let span = (self.k - 1) * self.dilation + 1;
            let oh = (self.h + 2 * self.pad - span) / self.stride + 1;
            let ow = (self.w + 2 * self.pad - span) / self.stride + 1;
            (oh as u32, ow as u32)
        }

        /// Adds the node; returns its value and its `[1, oh, ow, oc]` int32 result type.
        fn node(&self, a: &mut Asm) -> (u32, u32) {
            let i8t = a.int(8);
            let i32t = a.int(32);
            let (k, (oh, ow)) = (self.k as u32, self.out());
            let tin = a.tensor(i8t, &[1, self.h as u32, self.w as u32, self.ic]);
            let tw = a.tensor(i8t, &[self.oc, k, k, self.ic]);
            let tb = a.tensor(i32t, &[self.oc]);
            let tout = a.tensor(i32t, &[1, oh, ow, self.oc]);
            let x = a.input(tin, 0);
            let wt = if self.constant {
                a.graph_constant(tw, 0)
            } else {
                a.input(tw, 1)
            };
            let b = a.graph_constant(tb, 1);
            let pad = self.pad;
            let padc = a.i32s(&[pad, pad, pad, pad]);
            let st = a.i32s(&[self.stride, self.stride]);
            let dil = a.i32s(&[self.dilation, self.dilation]);
            let acc = a.scalar(i32t, 1);
            let lb = a.boolc(false);
            let zx = a.one(i8t, self.izp as u32 & 0xff);
            let zw = a.one(i8t, self.wzp as u32 & 0xff);
            let c = a.op(tout, CONV2D, &[padc, st, dil, acc, lb, x, wt, b, zx, zw]);
            (c, tout)
        }

        /// The weights' bytes (every int8 value).
        fn weights(&self) -> Vec<u8> {
            let n = (self.oc * self.ic) as usize * (self.k * self.k) as usize;
            (0..n).map(|i| ((i * 29 + 7) % 256) as u8).collect()
        }

        /// The input's bytes.
        fn input(&self) -> Vec<u8> {
            let n = (self.h * self.w) as usize * self.ic as usize;
            (0..n).map(|i| ((i * 53 + 11) % 256) as u8).collect()
        }

        /// The graph constants: the weights when constant, and `bias(channel)`.
        fn constants(&self, bias: impl Fn(i32) -> i32) -> Inputs {
            let mut inputs = Inputs::default();
            if self.constant {
                inputs.graph_constants.insert(0, self.weights());
            }
            let bias = (0..self.oc as i32).flat_map(|o| bias(o).to_le_bytes());
            inputs.graph_constants.insert(1, bias.collect());
            inputs
        }
    }

    #[test]
    fn int8_convolutions_match_the_reference_exactly() {
        // Runs of taps of every shape (multiples of 4: implicit GEMM on either kernel; even:
        // implicit on the i16 kernel, im2col on VNNI; odd: im2col), per-tap runs (dilation),
        // 1×1 (the input itself), weights given at dispatch.
        for (h, w, ic, oc, k, stride, pad, dilation, izp, wzp, constant) in [
            (9, 11, 5, 7, 3, 2, 1, 1, -128, 3, true),
            (9, 11, 4, 7, 3, 2, 1, 1, -128, 3, true),
            (8, 8, 16, 40, 1, 1, 0, 1, 0, 0, false),
            (6, 6, 2, 4, 3, 1, 1, 1, -3, 0, true),
            (10, 12, 6, 20, 3, 1, 2, 2, 7, -1, true),
            (9, 11, 4, 7, 3, 2, 1, 1, 5, 3, false),
            (9, 11, 5, 37, 3, 1, 1, 1, -7, 2, false),
            (10, 12, 6, 20, 3, 1, 2, 2, 7, -1, false),
            // Large enough to split over the pool: one im2col buffer per task.
            (40, 40, 5, 40, 3, 1, 1, 1, 3, -2, false),
            (40, 40, 8, 40, 3, 1, 1, 1, 3, -2, false),
        ] {
            let conv = ConvI8 {
                h,
                w,
                ic,
                oc,
                k,
                stride,
                pad,
                dilation,
                izp,
                wzp,
                constant,
            };
            let mut a = Asm::new();
            let (c, tout) = conv.node(&mut a);
            a.output(c, tout, 2);
            let words = a.finish();
            let inputs = conv.constants(|o| o * 1000 - 3000);
            let graph = compile(&words, "main", &inputs).unwrap();
            let mut in_bytes = vec![conv.input()];
            if !constant {
                in_bytes.push(conv.weights());
            }
            let tensors: Vec<Tensor> = in_bytes
                .iter()
                .zip(&graph.inputs)
                .map(|(b, i)| Tensor::from_bytes(&i.info, b).unwrap())
                .collect();
            let want = run(&graph, &tensors).unwrap()[0].to_bytes();
            let plan = Plan::new(graph);
            assert_eq!(plan.native_nodes(), 1);
            let in_refs: Vec<&[u8]> = in_bytes.iter().map(Vec::as_slice).collect();
            let mut out = vec![0u8; want.len()];
            run_dirty(&plan, &in_refs, &mut [&mut out]);
            assert_eq!(out, want, "{conv:?}");
            if !constant {
                assert!(
                    plan.transient_size() > 0,
                    "weights packed in scratch: {conv:?}"
                );
            }
        }
    }

    #[test]
    fn int8_convolution_then_rescale_fuses_bit_exactly() {
        // CONV2D (zero points −128 / 0) → RESCALE to int8, per channel and not, single and
        // double rounding, as model-converter emits quantised layers; and one whose i32 result
        // is also a graph output, which must not fuse.
        use crate::testing::RESCALE;
        for (per_channel, double_round, also_output) in [
            (true, true, false),
            (false, false, false),
            (true, false, true),
        ] {
            let conv = ConvI8 {
                h: 10,
                w: 9,
                ic: 6,
                oc: 20,
                k: 3,
                stride: 1,
                pad: 1,
                dilation: 1,
                izp: -128,
                wzp: 0,
                constant: true,
            };
            let (oh, ow) = conv.out();
            let mut a = Asm::new();
            let i8t = a.int(8);
            let i32t = a.int(32);
            let (c, tacc) = conv.node(&mut a);
            let tout = a.tensor(i8t, &[1, oh, ow, conv.oc]);
            let (t_, f_) = (a.boolc(true), a.boolc(false));
            let mode = a.scalar(i32t, if double_round { 3 } else { 1 });
            let channels = if per_channel { conv.oc as usize } else { 1 };
            let mults: Vec<i32> = (0..channels as i32)
                .map(|i| (1 << 30) + i * 77_777)
                .collect();
            let mult = a.i32s(&mults);
            let shift_t = a.tensor(i8t, &[channels as u32]);
            let shifts: Vec<u32> = (0..channels as u32).map(|i| 36 + i % 5).collect();
            let parts: Vec<u32> = shifts.iter().map(|&v| a.scalar(i8t, v)).collect();
            let shift = a.tensor_const(shift_t, &parts);
            let izp = a.one(i32t, 0);
            let ozp = a.one(i8t, 0xfb);
            let pc = if per_channel { t_ } else { f_ };
            let r = a.op(
                tout,
                RESCALE,
                &[t_, mode, pc, f_, f_, c, mult, shift, izp, ozp],
            );
            a.output(r, tout, 2);
            if also_output {
                a.output(c, tacc, 3);
            }
            let words = a.finish();
            let inputs = conv.constants(|o| o * 5000 - 40_000);
            let graph = compile(&words, "main", &inputs).unwrap();
            let xbytes = conv.input();
            let tensors = vec![Tensor::from_bytes(&graph.inputs[0].info, &xbytes).unwrap()];
            let want: Vec<Vec<u8>> = run(&graph, &tensors)
                .unwrap()
                .iter()
                .map(Tensor::to_bytes)
                .collect();
            let plan = Plan::new(graph);
            assert_eq!(
                plan.kernels.contains(&Kernel::Fused),
                !also_output,
                "fusion when the i32 result is read only by the RESCALE"
            );
            let mut outs: Vec<Vec<u8>> = want.iter().map(|w| vec![0x55u8; w.len()]).collect();
            let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
            plan.run(&[&xbytes], &mut out_refs).unwrap();
            assert_eq!(
                outs, want,
                "per_channel {per_channel}, double_round {double_round}"
            );
            // The results use the whole int8 range (the test reaches the clamp both ways).
            let q = &want[0];
            assert!(q.contains(&0x80) && q.contains(&0x7f), "clamped both ways");
        }
    }

    /// A DEPTHWISE_CONV2D graph `[1, h, w, ic]` → `[1, oh, ow, ic·m]` (3×3 weights, graph
    /// constant 0; bias graph constant 1), float32 or int8 (zero points −7 / 3; with `rescale`,
    /// followed by a per-channel RESCALE to int8); its module and constants.
    fn depthwise_graph(
        int8: bool,
        rescale: bool,
        [h, w, ic, m]: [u32; 4],
        stride: i32,
        pad: i32,
        dilation: i32,
    ) -> (Vec<u32>, Inputs, Vec<u8>) {
        use crate::testing::RESCALE;
        let span = |n: u32| (n as i32 + 2 * pad - 2 * dilation - 1) / stride + 1;
        let (oh, ow, oc) = (span(h) as u32, span(w) as u32, ic * m);
        let mut a = Asm::new();
        let elem = if int8 { a.int(8) } else { a.float(32) };
        let acc_elem = if int8 { a.int(32) } else { elem };
        let i32t = a.int(32);
        let i8t = a.int(8);
        let tin = a.tensor(elem, &[1, h, w, ic]);
        let tw = a.tensor(elem, &[3, 3, ic, m]);
        let tb = a.tensor(acc_elem, &[oc]);
        let tacc = a.tensor(acc_elem, &[1, oh, ow, oc]);
        let x = a.input(tin, 0);
        let wt = a.graph_constant(tw, 0);
        let b = a.graph_constant(tb, 1);
        let padc = a.i32s(&[pad, pad, pad, pad]);
        let st = a.i32s(&[stride, stride]);
        let dil = a.i32s(&[dilation, dilation]);
        let acc = a.scalar(i32t, if int8 { 1 } else { 3 });
        let lb = a.boolc(false);
        let (zx, zw) = if int8 {
            (a.one(i8t, (-7i32) as u32 & 0xff), a.one(i8t, 3))
        } else {
            (a.one(elem, 0), a.one(elem, 0))
        };
        let op = TosaOp::DepthwiseConv2d.opcode();
        let c = a.op(tacc, op, &[padc, st, dil, acc, lb, x, wt, b, zx, zw]);
        if rescale {
            let tout = a.tensor(i8t, &[1, oh, ow, oc]);
            let (t_, f_) = (a.boolc(true), a.boolc(false));
            let mode = a.scalar(i32t, 3);
            let mults: Vec<i32> = (0..oc as i32).map(|i| (1 << 30) + i * 99_991).collect();
            let mult = a.i32s(&mults);
            let shift_t = a.tensor(i8t, &[oc]);
            let parts: Vec<u32> = (0..oc).map(|i| a.scalar(i8t, 33 + i % 4)).collect();
            let shift = a.tensor_const(shift_t, &parts);
            let izp = a.one(i32t, 0);
            let ozp = a.one(i8t, 9);
            let r = a.op(
                tout,
                RESCALE,
                &[t_, mode, t_, f_, f_, c, mult, shift, izp, ozp],
            );
            a.output(r, tout, 2);
        } else {
            a.output(c, tacc, 2);
        }
        let mut inputs = Inputs::default();
        let n_w = (9 * oc) as usize;
        let n_x = (h * w * ic) as usize;
        let (wbytes, bias, xbytes): (Vec<u8>, Vec<u8>, Vec<u8>) = if int8 {
            (
                (0..n_w).map(|i| ((i * 29 + 7) % 256) as u8).collect(),
                (0..oc as i32)
                    .flat_map(|o| (o * 300 - 2000).to_le_bytes())
                    .collect(),
                (0..n_x).map(|i| ((i * 53 + 11) % 256) as u8).collect(),
            )
        } else {
            (
                bytes(&values(n_w, 5)),
                bytes(&values(oc as usize, 6)),
                bytes(&values(n_x, 7)),
            )
        };
        inputs.graph_constants.insert(0, wbytes);
        inputs.graph_constants.insert(1, bias);
        (a.finish(), inputs, xbytes)
    }

    #[test]
    fn depthwise_convolutions_match_the_reference_bit_for_bit() {
        for (int8, rescale, dims, stride, pad, dilation) in [
            (false, false, [12, 11, 16, 1], 1, 1, 1),
            (false, false, [9, 13, 5, 3], 2, 1, 1),
            (false, false, [10, 10, 8, 2], 1, 2, 2),
            (true, false, [12, 11, 16, 1], 1, 1, 1),
            (true, false, [9, 13, 5, 3], 2, 0, 1),
            (true, true, [12, 12, 24, 1], 1, 1, 1),
            (true, true, [9, 11, 4, 2], 2, 1, 2),
        ] {
            let (words, inputs, x) = depthwise_graph(int8, rescale, dims, stride, pad, dilation);
            let graph = compile(&words, "main", &inputs).unwrap();
            let tensors = vec![Tensor::from_bytes(&graph.inputs[0].info, &x).unwrap()];
            let want = run(&graph, &tensors).unwrap()[0].to_bytes();
            let plan = Plan::new(graph);
            let kind = if int8 {
                Kernel::DepthwiseI8
            } else {
                Kernel::DepthwiseF32
            };
            assert_eq!(plan.kernels[0], kind);
            assert_eq!(plan.kernels.contains(&Kernel::Fused), rescale);
            let mut out = vec![0x55u8; want.len()];
            plan.run(&[&x], &mut [&mut out]).unwrap();
            assert_eq!(
                out, want,
                "int8 {int8} rescale {rescale} {dims:?} s{stride} p{pad} d{dilation}"
            );
        }
    }

    #[test]
    fn poolings_match_the_reference_bit_for_bit() {
        // (max, int8, nan mode IGNORE, [h, w, c], kernel, stride, pad [t, b, l, r])
        for (max, int8, ignore, [h, w, c], k, stride, pad) in [
            (true, false, false, [9, 10, 7], [3, 3], [2, 1], [1, 1, 0, 2]),
            (true, false, true, [9, 10, 7], [3, 3], [2, 1], [1, 1, 0, 2]),
            (true, true, false, [8, 8, 16], [2, 2], [2, 2], [0, 0, 0, 0]),
            (
                false,
                false,
                false,
                [11, 7, 5],
                [3, 2],
                [1, 1],
                [1, 2, 1, 1],
            ),
            (false, true, false, [11, 7, 5], [3, 2], [1, 1], [1, 2, 1, 1]),
            (false, true, false, [6, 6, 32], [6, 6], [1, 1], [0, 0, 0, 0]),
        ] {
            let oh = (h + pad[0] + pad[1] - k[0]) / stride[0] + 1;
            let ow = (w + pad[2] + pad[3] - k[1]) / stride[1] + 1;
            let mut a = Asm::new();
            let elem = if int8 { a.int(8) } else { a.float(32) };
            let i32t = a.int(32);
            let tin = a.tensor(elem, &[1, h, w, c]);
            let tout = a.tensor(elem, &[1, oh, ow, c]);
            let x = a.input(tin, 0);
            let kc = a.i32s(&[k[0] as i32, k[1] as i32]);
            let sc = a.i32s(&[stride[0] as i32, stride[1] as i32]);
            let pc = a.i32s(&pad.map(|v| v as i32));
            let r = if max {
                let mode = a.scalar(i32t, if ignore { 2 } else { 1 });
                a.op(tout, TosaOp::MaxPool2d.opcode(), &[kc, sc, pc, mode, x])
            } else {
                let acc = a.scalar(i32t, if int8 { 1 } else { 3 });
                let (zi, zo) = if int8 {
                    (a.one(elem, (-5i32) as u32 & 0xff), a.one(elem, 4))
                } else {
                    (a.one(elem, 0), a.one(elem, 0))
                };
                a.op(
                    tout,
                    TosaOp::AvgPool2d.opcode(),
                    &[kc, sc, pc, acc, x, zi, zo],
                )
            };
            a.output(r, tout, 1);
            let graph = compile(&a.finish(), "main", &Inputs::default()).unwrap();
            let n = (h * w * c) as usize;
            let x: Vec<u8> = if int8 {
                (0..n).map(|i| ((i * 53 + 11) % 256) as u8).collect()
            } else {
                let mut v = values(n, 9);
                // NaNs (one signalling), signed zeros and infinities among the values.
                for (i, special) in [
                    f32::NAN,
                    f32::from_bits(0x7f80_0001),
                    -0.0,
                    0.0,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                ]
                .into_iter()
                .enumerate()
                {
                    v[i * 37 % n] = special;
                    v[(i * 91 + 5) % n] = special;
                }
                bytes(&v)
            };
            let tensors = vec![Tensor::from_bytes(&graph.inputs[0].info, &x).unwrap()];
            let want = run(&graph, &tensors).unwrap()[0].to_bytes();
            let plan = Plan::new(graph);
            assert_eq!(plan.native_nodes(), 1, "native pooling");
            let mut out = vec![0x55u8; want.len()];
            plan.run(&[&x], &mut [&mut out]).unwrap();
            assert_eq!(
                out, want,
                "max {max} int8 {int8} ignore {ignore} {h}x{w}x{c}"
            );
        }
    }

    #[test]
    fn huge_tensors_on_reference_kernels_are_refused_at_planning() {
        let n = (MAX_REFERENCE_ELEMENTS + 1) as u32;
        for (int, ok) in [(true, false), (false, true)] {
            let mut a = Asm::new();
            let e = if int { a.int(32) } else { a.float(32) };
            let t = a.tensor(e, &[n]);
            let x = a.input(t, 0);
            let y = a.input(t, 1);
            let s = a.op(t, ADD, &[x, y]);
            a.output(s, t, 2);
            let plan = Plan::new(compile(&a.finish(), "main", &Inputs::default()).unwrap());
            // i32 ADD runs on the reference kernels; f32 ADD natively.
            assert_eq!(plan.check_limits().is_ok(), ok);
        }
    }

    /// Small modules whose bit-flipped variants are planned and run (with zero inputs) when they
    /// still decode: nothing may panic.
    fn fuzz_seeds() -> Vec<Vec<u32>> {
        let mut seeds = vec![crate::testing::add_module()];
        let mut a = Asm::new();
        let i8t = a.int(8);
        let i32t = a.int(32);
        let tin = a.tensor(i8t, &[1, 4, 4, 2]);
        let tw = a.tensor(i8t, &[3, 3, 3, 2]);
        let tb = a.tensor(i32t, &[3]);
        let tout = a.tensor(i32t, &[1, 4, 4, 3]);
        let x = a.input(tin, 0);
        let w = a.input(tw, 1);
        let b = a.input(tb, 2);
        let pad = a.i32s(&[1, 1, 1, 1]);
        let st = a.i32s(&[1, 1]);
        let dil = a.i32s(&[1, 1]);
        let acc = a.scalar(i32t, 1);
        let lb = a.boolc(false);
        let zx = a.one(i8t, 0x80);
        let zw = a.one(i8t, 0);
        let c = a.op(tout, CONV2D, &[pad, st, dil, acc, lb, x, w, b, zx, zw]);
        a.output(c, tout, 3);
        seeds.push(a.finish());
        seeds
    }

    #[test]
    fn bit_flipped_modules_never_panic_the_plan() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for words in fuzz_seeds() {
            for _ in 0..3000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let mut w = words.clone();
                let i = (state as usize) % w.len();
                w[i] ^= 1 << ((state >> 32) % 32);
                let Ok(graph) = compile(&w, "main", &Inputs::default()) else {
                    continue;
                };
                let plan = Plan::new(graph);
                if plan.check_limits().is_err() {
                    continue;
                }
                let g = plan.graph();
                let total: usize = g
                    .inputs
                    .iter()
                    .chain(&g.outputs)
                    .map(|i| nbytes(&i.info))
                    .sum();
                if total > 1 << 20 {
                    continue;
                }
                let ins: Vec<Vec<u8>> = g
                    .inputs
                    .iter()
                    .map(|i| vec![0u8; nbytes(&i.info)])
                    .collect();
                let mut outs: Vec<Vec<u8>> = g
                    .outputs
                    .iter()
                    .map(|i| vec![0u8; nbytes(&i.info)])
                    .collect();
                let in_refs: Vec<&[u8]> = ins.iter().map(Vec::as_slice).collect();
                let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
                let _ = plan.run(&in_refs, &mut out_refs);
            }
        }
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let graph = compile(&crate::testing::add_module(), "main", &Inputs::default()).unwrap();
        let plan = Plan::new(graph);
        let a = vec![0u8; 32];
        let short = vec![0u8; 31];
        let mut out = vec![0u8; 32];
        assert!(plan.run(&[&a, &short], &mut [&mut out]).is_err());
        assert!(plan.run(&[&a], &mut [&mut out]).is_err());
        assert!(plan.run(&[&a, &a], &mut [&mut out]).is_ok());
    }
}
