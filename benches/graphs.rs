//! TOSA data graphs (`VK_ARM_data_graph`) through the Khronos loader: submit + fence round trips
//! of one recorded `vkCmdDispatchDataGraphARM` per workload, each result checked once against a
//! CPU reference before timing, and the creation cost of each graph's pipeline.
//!
//! | workload (`graph_<name>`) | graph | criterion throughput |
//! |---|---|---|
//! | `graph_add` | TOSA ADD of two float32 [1, 4096, 4096] tensors (64 MiB each) | bytes read + written |
//! | `graph_matmul` | TOSA MATMUL float32 [1, 512, 512] · [1, 512, 512] (zero points `[1]` float32 0) | FLOPs (2·512³): criterion's `elem/s` are FLOP/s |
//! | `graph_conv2d` | TOSA CONV2D float32: input [1, 128, 128, 32] NHWC, weights [32, 3, 3, 32] OHWI and bias [32] as graph constants 0 and 1 (`VkDataGraphPipelineConstantARM`, as model-converter emits them), pad 1, stride 1, dilation 1, acc_type FP32, local_bound false | FLOPs (2·128·128·32·288) |
//! | `graph_conv2d_i8` | the same CONV2D in int8: i8 input (zero point −3) and weights (graph constant 0, zero point 0), i32 bias (constant 1), acc_type INT32, i32 result (checked exactly) | multiply-adds ×2, as for the float one |
//!
//! The SPIR-V graph modules are assembled with `tessera_graph::testing::Asm`. Inputs are uploaded
//! once (host-visible tensor memory); the command buffer (bind the pipeline and the descriptor
//! set at `VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM`, dispatch the session) is recorded once; every
//! timed iteration submits it and waits on a fence. The check runs before timing: ADD must be
//! exact, MATMUL and CONV2D within 1e-4 of the largest |value| of the float64 reference. A
//! mismatch panics.
//!
//! Results, per driver (named as in `common.rs`):
//! - `graph_<name>/<driver>_submit_wait`: one dispatch;
//! - `graph_<name>/<driver>_create`: `vkCreateDataGraphPipelinesARM` of the graph, no pipeline
//!   cache (the shader module and layouts exist beforehand; each pipeline is destroyed outside
//!   the timing).
//!
//! `TESSERA_BENCH_WORKLOADS=graph_add,graph_conv2d` runs only those. The driver is Tessera by
//! default (`cargo build --release -p tessera-icd` first) or the ICD `TESSERA_BENCH_ICD` names,
//! e.g. lavapipe with Arm's ML emulation layers (graph layer over tensor layer; see
//! `shaders.rs` for the environment), which `cargo xtask bench-compare` sets up. When
//! `TESSERA_BENCH_STATUS` names a file, each step is appended to it before it runs, and a panic's
//! message after it, so that a run that dies (a layer that aborts the process) says where.

use std::io::Write as _;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::data_graph::*;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::{
    ArmDataGraphExtensionDeviceCommands, ArmTensorsExtensionDeviceCommands,
};
use tessera_e2e::*;
use tessera_graph::testing::{ADD, Asm, CONV2D, MATMUL};

mod common;

/// The ADD tensors: [1, 4096, 4096] float32, 64 MiB each.
const ADD_DIMS: [i64; 3] = [1, 4096, 4096];
/// The MATMUL operands: [1, M, K] · [1, K, N].
const MATMUL_MKN: [i64; 3] = [512, 512, 512];
/// The CONV2D input (NHWC), output channels and kernel size.
const CONV_IN: [i64; 4] = [1, 128, 128, 32];
const CONV_OC: i64 = 32;
const CONV_K: i64 = 3;

/// Appends `line` to `$TESSERA_BENCH_STATUS` (if set), so that `bench-compare` can say where a
/// run stopped.
fn status(line: &str) {
    eprintln!("graphs: {line}");
    if let Some(path) = std::env::var_os("TESSERA_BENCH_STATUS")
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let _ = writeln!(f, "{}", line.replace('\n', " / "));
    }
}

/// A float32 tensor with DATA_GRAPH usage, bound to its own mapped memory, and a view.
struct GraphTensor {
    tensor: vk::TensorARM,
    view: vk::TensorViewARM,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    len: usize,
}

impl GraphTensor {
    fn write(&self, values: &[f32]) {
        let bytes = std::mem::size_of_val(values);
        assert!(bytes <= self.len, "write out of range");
        // SAFETY: the mapping holds `len` bytes (checked above) and the device is idle.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), self.ptr, bytes) };
    }

    fn read(&self, n: usize) -> Vec<f32> {
        let mut out = vec![0f32; n];
        let bytes = std::mem::size_of_val(out.as_slice());
        assert!(bytes <= self.len, "read out of range");
        // SAFETY: the mapping holds `len` bytes (checked above), the device is idle, and every
        // bit pattern is a valid f32.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, out.as_mut_ptr().cast::<u8>(), bytes) };
        out
    }

    fn write_bytes(&self, bytes: &[u8]) {
        assert!(bytes.len() <= self.len, "write out of range");
        // SAFETY: the mapping holds `len` bytes (checked above) and the device is idle.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr, bytes.len()) };
    }

    fn read_bytes(&self, n: usize) -> Vec<u8> {
        assert!(n <= self.len, "read out of range");
        let mut out = vec![0u8; n];
        // SAFETY: the mapping holds `len` bytes (checked above) and the device is idle.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, out.as_mut_ptr(), n) };
        out
    }

    fn fill(&self, byte: u8) {
        // SAFETY: the mapping holds `len` bytes and the device is idle.
        unsafe { std::ptr::write_bytes(self.ptr, byte, self.len) };
    }
}

/// A graph to run: its module, its interface tensors' (binding, dims) and its constants'
/// (id, dims, format, values).
struct GraphSpec {
    name: &'static str,
    words: Vec<u32>,
    interface: Vec<(u32, Vec<i64>)>,
    /// The interface tensors' formats (float32 unless the graph says otherwise).
    formats: Vec<vk::Format>,
    /// (id, dims, format, packed little-endian data).
    constants: Vec<(u32, Vec<i64>, vk::Format, Vec<u8>)>,
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A graph's pipeline, its session (with its bind-point memory), one descriptor set of its
/// tensors and a command buffer recording one dispatch.
struct Graph {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    create: Box<GraphInfo>,
    pipeline: vk::Pipeline,
    session: vk::DataGraphPipelineSessionARM,
    session_memory: Vec<vk::DeviceMemory>,
    pool: vk::DescriptorPool,
    cb: vk::CommandBuffer,
}

struct Gpu(BenchGpu);

impl std::ops::Deref for Gpu {
    type Target = BenchGpu;
    fn deref(&self) -> &BenchGpu {
        &self.0
    }
}

impl Gpu {
    fn open() -> Gpu {
        status("opening the device (VK_ARM_tensors + VK_ARM_data_graph)");
        let gpu = BenchGpu::open_data_graph(|_| vk::PhysicalDeviceTensorFeaturesARM::default());
        eprintln!("graphs: device {:?}", gpu.name);
        Gpu(gpu)
    }

    fn tensor(&self, dims: &[i64]) -> GraphTensor {
        self.tensor_of(vk::Format::R32_SFLOAT, dims)
    }

    fn tensor_of(&self, format: vk::Format, dims: &[i64]) -> GraphTensor {
        let mut info = TensorInfo::new(vk::TensorTilingARM::LINEAR, format, dims, DATA_GRAPH_USAGE);
        let tensor = create_tensor(&self.device, &mut info).expect("vkCreateTensorARM");
        let (reqs, _) = tensor_requirements(&self.device, tensor);
        let (memory, ptr) = self.mapped_memory(reqs);
        bind_tensor(&self.device, tensor, memory, 0).expect("vkBindTensorMemoryARM");
        let mut view_info = vk::TensorViewCreateInfoARM {
            tensor,
            format,
            ..Default::default()
        };
        write_flags64(
            &mut view_info,
            std::mem::offset_of!(vk::TensorViewCreateInfoARM, flags),
            0,
        );
        // SAFETY: complete create info (flags 0) naming a bound tensor of this device.
        let view = unsafe { self.device.create_tensor_view_arm(&view_info, None) }
            .expect("vkCreateTensorViewARM");
        GraphTensor {
            tensor,
            view,
            memory,
            ptr,
            len: reqs.size as usize,
        }
    }

    /// Builds `spec`'s pipeline and session and records one dispatch of it on `tensors` (in the
    /// order of `spec.interface`).
    fn graph(&self, spec: &GraphSpec, tensors: &[&GraphTensor]) -> Graph {
        assert_eq!(tensors.len(), spec.interface.len());
        let name = spec.name;
        let device = &self.device;
        let resources: Vec<Resource> = spec
            .interface
            .iter()
            .zip(&spec.formats)
            .map(|((binding, dims), &format)| Resource::new(*binding, format, dims))
            .collect();
        let constants: Vec<Constant> = spec
            .constants
            .iter()
            .map(|(id, dims, format, data)| (*id, *format, dims.clone(), data.clone()))
            .collect();
        let (set_layout, layout) = layouts(device, &resources);
        let create = GraphInfo::new(device, &spec.words, layout, &resources, &constants);
        status(&format!("{name}: vkCreateDataGraphPipelinesARM"));
        let pipeline = self.create_pipeline(&create.info);

        status(&format!("{name}: session and its memory"));
        let (session, bound) = session(device, pipeline, |reqs| self.mapped_memory(reqs).0);
        let session_memory = bound.iter().map(|&(_, _, memory)| memory).collect();
        let views: Vec<(u32, vk::TensorViewARM)> = spec
            .interface
            .iter()
            .zip(tensors)
            .map(|((binding, _), t)| (*binding, t.view))
            .collect();
        let (pool, set) = tensor_set(device, set_layout, &views);

        status(&format!("{name}: recording vkCmdDispatchDataGraphARM"));
        let alloc = vk::CommandBufferAllocateInfo::builder()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid allocate and begin infos on a live device; `cb` is recorded once.
        let cb = unsafe {
            let cb = device
                .allocate_command_buffers(&alloc)
                .expect("vkAllocateCommandBuffers")[0];
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .expect("vkBeginCommandBuffer");
            cb
        };
        record_dispatch(device, cb, pipeline, layout, set, session);
        // SAFETY: `cb` is recording.
        unsafe { device.end_command_buffer(cb) }.expect("vkEndCommandBuffer");
        Graph {
            module: create.module(),
            set_layout,
            layout,
            create,
            pipeline,
            session,
            session_memory,
            pool,
            cb,
        }
    }

    /// `vkCreateDataGraphPipelinesARM` of one create info, no cache.
    fn create_pipeline(&self, info: &vk::DataGraphPipelineCreateInfoARM) -> vk::Pipeline {
        let (r, pipelines) = create_pipelines(
            &self.device,
            vk::PipelineCache::null(),
            std::slice::from_ref(info),
        );
        assert_eq!(r, vk::Result::SUCCESS, "vkCreateDataGraphPipelinesARM");
        pipelines[0]
    }

    fn submit_wait(&self, cb: vk::CommandBuffer) {
        let cbs = [cb];
        let submit = vk::SubmitInfo::builder().command_buffers(&cbs);
        // SAFETY: `cb` is executable and not pending; the fence is unsignalled.
        unsafe {
            self.device
                .queue_submit(self.queue, &[submit], self.fence)
                .expect("vkQueueSubmit");
            self.device
                .wait_for_fences(&[self.fence], true, WAIT_TIMEOUT_NS)
                .expect("vkWaitForFences");
            self.device
                .reset_fences(&[self.fence])
                .expect("vkResetFences");
        }
    }

    fn destroy_graph(&self, g: Graph) {
        // SAFETY: the device is idle (every submit is waited for); the objects are unused.
        unsafe {
            self.device.free_command_buffers(self.pool, &[g.cb]);
            self.device.destroy_descriptor_pool(g.pool, None);
            self.device
                .destroy_data_graph_pipeline_session_arm(g.session, None);
            for m in g.session_memory {
                self.device.free_memory(m, None);
            }
            self.device.destroy_pipeline(g.pipeline, None);
            drop(g.create);
            self.device.destroy_pipeline_layout(g.layout, None);
            self.device
                .destroy_descriptor_set_layout(g.set_layout, None);
            self.device.destroy_shader_module(g.module, None);
        }
    }

    fn destroy_tensor(&self, t: GraphTensor) {
        // SAFETY: the device is idle; the view and tensor are unused.
        unsafe {
            self.device.destroy_tensor_view_arm(t.view, None);
            self.device.destroy_tensor_arm(t.tensor, None);
            self.device.free_memory(t.memory, None);
        }
    }
}

// ------------------------------------------------------------------------------- graphs

fn dims_u32(dims: &[i64]) -> Vec<u32> {
    dims.iter().map(|&d| d as u32).collect()
}

/// `out = a + b`; bindings a = 0, b = 1, out = 2.
fn add_spec() -> GraphSpec {
    let mut a = Asm::new();
    let f = a.float(32);
    let t = a.tensor(f, &dims_u32(&ADD_DIMS));
    let x = a.input(t, 0);
    let y = a.input(t, 1);
    let s = a.op(t, ADD, &[x, y]);
    a.output(s, t, 2);
    GraphSpec {
        name: "graph_add",
        words: a.finish(),
        interface: (0..3).map(|b| (b, ADD_DIMS.to_vec())).collect(),
        formats: vec![vk::Format::R32_SFLOAT; 3],
        constants: Vec::new(),
    }
}

/// `c = a · b`; bindings a = 0, b = 1, c = 2.
fn matmul_spec() -> GraphSpec {
    let [m, k, n] = MATMUL_MKN;
    let (da, db, dc) = (vec![1, m, k], vec![1, k, n], vec![1, m, n]);
    let mut a = Asm::new();
    let f = a.float(32);
    let ta = a.tensor(f, &dims_u32(&da));
    let tb = a.tensor(f, &dims_u32(&db));
    let tc = a.tensor(f, &dims_u32(&dc));
    let x = a.input(ta, 0);
    let y = a.input(tb, 1);
    let zp = a.one(f, 0);
    let c = a.op(tc, MATMUL, &[x, y, zp, zp]);
    a.output(c, tc, 2);
    GraphSpec {
        name: "graph_matmul",
        words: a.finish(),
        interface: vec![(0, da), (1, db), (2, dc)],
        formats: vec![vk::Format::R32_SFLOAT; 3],
        constants: Vec::new(),
    }
}

/// The CONV2D output dims (same padding, stride 1).
fn conv_out() -> [i64; 4] {
    [CONV_IN[0], CONV_IN[1], CONV_IN[2], CONV_OC]
}

/// `out = conv2d(x, w, b)`, w and b graph constants 0 and 1; bindings x = 0, out = 1.
fn conv_spec(weights: Vec<f32>, bias: Vec<f32>) -> GraphSpec {
    let ic = CONV_IN[3];
    let dw = vec![CONV_OC, CONV_K, CONV_K, ic];
    let out = conv_out();
    let mut a = Asm::new();
    let f = a.float(32);
    let i32t = a.int(32);
    let tin = a.tensor(f, &dims_u32(&CONV_IN));
    let tw = a.tensor(f, &dims_u32(&dw));
    let tb = a.tensor(f, &[CONV_OC as u32]);
    let tout = a.tensor(f, &dims_u32(&out));
    let x = a.input(tin, 0);
    let w = a.graph_constant(tw, 0);
    let b = a.graph_constant(tb, 1);
    let pad = a.i32s(&[1, 1, 1, 1]);
    let stride = a.i32s(&[1, 1]);
    let dilation = a.i32s(&[1, 1]);
    let acc = a.scalar(i32t, 3); // acc_type FP32
    let local_bound = a.boolc(false);
    let zp = a.one(f, 0);
    let c = a.op(
        tout,
        CONV2D,
        &[pad, stride, dilation, acc, local_bound, x, w, b, zp, zp],
    );
    a.output(c, tout, 1);
    GraphSpec {
        name: "graph_conv2d",
        words: a.finish(),
        interface: vec![(0, CONV_IN.to_vec()), (1, out.to_vec())],
        formats: vec![vk::Format::R32_SFLOAT; 2],
        constants: vec![
            (0, dw, vk::Format::R32_SFLOAT, f32_bytes(&weights)),
            (1, vec![CONV_OC], vk::Format::R32_SFLOAT, f32_bytes(&bias)),
        ],
    }
}

/// The int8 input zero point of `graph_conv2d_i8` (weights are symmetric: zero point 0).
const CONV_I8_INPUT_ZP: i32 = -3;

/// `graph_conv2d`'s shape in int8: i8 input and weights (graph constant 0), i32 bias (constant
/// 1), acc_type INT32, input zero point [`CONV_I8_INPUT_ZP`], i32 result.
fn conv_i8_spec(weights: &[i8], bias: &[i32]) -> GraphSpec {
    let ic = CONV_IN[3];
    let dw = vec![CONV_OC, CONV_K, CONV_K, ic];
    let out = conv_out();
    let mut a = Asm::new();
    let i8t = a.int(8);
    let i32t = a.int(32);
    let tin = a.tensor(i8t, &dims_u32(&CONV_IN));
    let tw = a.tensor(i8t, &dims_u32(&dw));
    let tb = a.tensor(i32t, &[CONV_OC as u32]);
    let tout = a.tensor(i32t, &dims_u32(&out));
    let x = a.input(tin, 0);
    let w = a.graph_constant(tw, 0);
    let b = a.graph_constant(tb, 1);
    let pad = a.i32s(&[1, 1, 1, 1]);
    let stride = a.i32s(&[1, 1]);
    let dilation = a.i32s(&[1, 1]);
    let acc = a.scalar(i32t, 1); // acc_type INT32
    let local_bound = a.boolc(false);
    let izp = a.one(i8t, CONV_I8_INPUT_ZP as u32 & 0xff);
    let wzp = a.one(i8t, 0);
    let c = a.op(
        tout,
        CONV2D,
        &[pad, stride, dilation, acc, local_bound, x, w, b, izp, wzp],
    );
    a.output(c, tout, 1);
    GraphSpec {
        name: "graph_conv2d_i8",
        words: a.finish(),
        interface: vec![(0, CONV_IN.to_vec()), (1, out.to_vec())],
        formats: vec![vk::Format::R8_SINT, vk::Format::R32_SINT],
        constants: vec![
            (
                0,
                dw,
                vk::Format::R8_SINT,
                weights.iter().map(|&v| v as u8).collect(),
            ),
            (
                1,
                vec![CONV_OC],
                vk::Format::R32_SINT,
                bias.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ),
        ],
    }
}

/// `graph_conv2d_i8`'s result, exactly (TOSA: padded taps add nothing).
fn conv_i8_ref(x: &[i8], w: &[i8], bias: &[i32]) -> Vec<i32> {
    let [_, h, wd, ic] = CONV_IN.map(|d| d as usize);
    let (oc, k) = (CONV_OC as usize, CONV_K as usize);
    let mut out = vec![0i32; h * wd * oc];
    for y in 0..h {
        for xx in 0..wd {
            for (o, v) in out[(y * wd + xx) * oc..(y * wd + xx + 1) * oc]
                .iter_mut()
                .enumerate()
            {
                let mut acc = bias[o];
                for ky in 0..k {
                    let Some(iy) = (y + ky).checked_sub(1).filter(|&iy| iy < h) else {
                        continue;
                    };
                    for kx in 0..k {
                        let Some(ix) = (xx + kx).checked_sub(1).filter(|&ix| ix < wd) else {
                            continue;
                        };
                        let px = &x[(iy * wd + ix) * ic..][..ic];
                        let wk = &w[((o * k + ky) * k + kx) * ic..][..ic];
                        for (a, b) in px.iter().zip(wk) {
                            acc += (i32::from(*a) - CONV_I8_INPUT_ZP) * i32::from(*b);
                        }
                    }
                }
                *v = acc;
            }
        }
    }
    out
}

// ------------------------------------------------------------------------------- references

/// Float32 values that are small integers (as `shaders.rs`'s tensor_add).
fn small_floats(count: usize, seed: u32) -> Vec<f32> {
    pattern_bytes(count, seed)
        .into_iter()
        .map(|b| f32::from(b % 16))
        .collect()
}

/// Floats in [-1, 1).
fn unit_floats(count: usize, seed: u32) -> Vec<f32> {
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

/// `[m, k] · [k, n]` in float64.
fn matmul_ref(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0f64; m * n];
    for i in 0..m {
        let row = &mut out[i * n..(i + 1) * n];
        for p in 0..k {
            let av = f64::from(a[i * k + p]);
            for (o, &bv) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *o += av * f64::from(bv);
            }
        }
    }
    out
}

/// CONV2D NHWC × OHWI + bias, same padding (k/2), stride 1, in float64.
fn conv_ref(x: &[f32], w: &[f32], bias: &[f32]) -> Vec<f64> {
    let [_, h, wd, ic] = CONV_IN.map(|d| d as usize);
    let (oc, k) = (CONV_OC as usize, CONV_K as usize);
    let pad = k / 2;
    let mut out = vec![0f64; h * wd * oc];
    for y in 0..h {
        for xx in 0..wd {
            let o = &mut out[(y * wd + xx) * oc..(y * wd + xx + 1) * oc];
            for (oc_i, v) in o.iter_mut().enumerate() {
                *v = f64::from(bias[oc_i]);
            }
            for ky in 0..k {
                let Some(iy) = (y + ky).checked_sub(pad).filter(|&iy| iy < h) else {
                    continue;
                };
                for kx in 0..k {
                    let Some(ix) = (xx + kx).checked_sub(pad).filter(|&ix| ix < wd) else {
                        continue;
                    };
                    let px = &x[(iy * wd + ix) * ic..(iy * wd + ix + 1) * ic];
                    for (oc_i, v) in o.iter_mut().enumerate() {
                        let wk = &w[((oc_i * k + ky) * k + kx) * ic..][..ic];
                        *v += px
                            .iter()
                            .zip(wk)
                            .map(|(&a, &b)| f64::from(a) * f64::from(b))
                            .sum::<f64>();
                    }
                }
            }
        }
    }
    out
}

/// Panics unless every `got` is within `rel` of the largest |want| from `want`.
fn check_close(name: &str, device: &str, got: &[f32], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len());
    let max = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    let tol = rel * max.max(f64::MIN_POSITIVE);
    if let Some((i, (g, w))) = got
        .iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| (f64::from(**g) - **w).abs() > tol || g.is_nan())
    {
        panic!(
            "{name} on {device}: element {i} is {g}, the float64 reference {w} (tolerance {tol:e} = {rel:e} × max |value| {max})"
        );
    }
}

// ------------------------------------------------------------------------------- timing

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g
}

/// Times submit + fence wait of the graph's recorded dispatch as
/// `graph_<name>/<driver>_submit_wait`, then `vkCreateDataGraphPipelinesARM` as
/// `graph_<name>/<driver>_create`.
fn time(c: &mut Criterion, name: &str, throughput: Throughput, gpu: &Gpu, g: &Graph) {
    let driver = common::driver_label();
    status(&format!("{name}: timing the dispatch"));
    let mut grp = group(c, name);
    grp.throughput(throughput);
    grp.bench_function(format!("{driver}_submit_wait"), |b| {
        b.iter(|| gpu.submit_wait(g.cb))
    });
    grp.finish();
    status(&format!("{name}: timing vkCreateDataGraphPipelinesARM"));
    let mut grp = group(c, name);
    // Creation may take long on a layered driver: the same small count of creations per sample.
    grp.sampling_mode(SamplingMode::Flat);
    grp.bench_function(format!("{driver}_create"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t0 = Instant::now();
                let p = gpu.create_pipeline(&g.create.info);
                total += t0.elapsed();
                // SAFETY: a fresh pipeline that nothing uses.
                unsafe { gpu.device.destroy_pipeline(p, None) };
            }
            total
        })
    });
    grp.finish();
}

fn graphs(c: &mut Criterion) {
    std::panic::set_hook(Box::new({
        let default = std::panic::take_hook();
        move |info| {
            let message = info.payload_as_str().unwrap_or("(no message)");
            match info.location() {
                Some(at) => status(&format!("panic: {message} (at {at})")),
                None => status(&format!("panic: {message}")),
            }
            default(info);
        }
    }));
    let gpu = Gpu::open();
    let device = gpu.name.clone();

    if common::selected("graph_add") {
        let spec = add_spec();
        let count: usize = ADD_DIMS.iter().product::<i64>() as usize;
        let [a, b, out] = [(); 3].map(|_| gpu.tensor(&ADD_DIMS));
        let va = small_floats(count, 1);
        let vb = small_floats(count, 2);
        a.write(&va);
        b.write(&vb);
        out.fill(0xEE);
        let g = gpu.graph(&spec, &[&a, &b, &out]);
        status("graph_add: first dispatch and its check");
        gpu.submit_wait(g.cb);
        let got = out.read(count);
        if let Some((i, (g, w))) = got
            .iter()
            .zip(va.iter().zip(&vb).map(|(a, b)| a + b))
            .enumerate()
            .find(|(_, (g, w))| g.to_bits() != w.to_bits())
        {
            panic!("graph_add on {device}: element {i} is {g}, want {w}");
        }
        time(
            c,
            "graph_add",
            Throughput::Bytes(3 * count as u64 * 4),
            &gpu,
            &g,
        );
        gpu.destroy_graph(g);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    if common::selected("graph_matmul") {
        let spec = matmul_spec();
        let [m, k, n] = MATMUL_MKN.map(|d| d as usize);
        let a = gpu.tensor(&spec.interface[0].1);
        let b = gpu.tensor(&spec.interface[1].1);
        let out = gpu.tensor(&spec.interface[2].1);
        let va = unit_floats(m * k, 1);
        let vb = unit_floats(k * n, 2);
        a.write(&va);
        b.write(&vb);
        out.fill(0xEE);
        let g = gpu.graph(&spec, &[&a, &b, &out]);
        status("graph_matmul: first dispatch and its check");
        gpu.submit_wait(g.cb);
        let want = matmul_ref(&va, &vb, m, k, n);
        check_close("graph_matmul", &device, &out.read(m * n), &want, 1e-4);
        time(
            c,
            "graph_matmul",
            Throughput::Elements(2 * (m * k * n) as u64),
            &gpu,
            &g,
        );
        gpu.destroy_graph(g);
        for t in [a, b, out] {
            gpu.destroy_tensor(t);
        }
    }

    if common::selected("graph_conv2d") {
        let ic = CONV_IN[3] as usize;
        let (oc, kk) = (CONV_OC as usize, CONV_K as usize);
        let in_count: usize = CONV_IN.iter().product::<i64>() as usize;
        let out_count: usize = conv_out().iter().product::<i64>() as usize;
        let vx = unit_floats(in_count, 3);
        let vw = unit_floats(oc * kk * kk * ic, 4);
        let vb = unit_floats(oc, 5);
        let spec = conv_spec(vw.clone(), vb.clone());
        let x = gpu.tensor(&CONV_IN);
        let out = gpu.tensor(&conv_out());
        x.write(&vx);
        out.fill(0xEE);
        let g = gpu.graph(&spec, &[&x, &out]);
        status("graph_conv2d: first dispatch and its check");
        gpu.submit_wait(g.cb);
        let want = conv_ref(&vx, &vw, &vb);
        check_close("graph_conv2d", &device, &out.read(out_count), &want, 1e-4);
        let [_, h, w, _] = CONV_IN.map(|d| d as u64);
        time(
            c,
            "graph_conv2d",
            Throughput::Elements(2 * h * w * (oc * kk * kk * ic) as u64),
            &gpu,
            &g,
        );
        gpu.destroy_graph(g);
        gpu.destroy_tensor(x);
        gpu.destroy_tensor(out);
    }
    if common::selected("graph_conv2d_i8") {
        let ic = CONV_IN[3] as usize;
        let (oc, kk) = (CONV_OC as usize, CONV_K as usize);
        let in_count: usize = CONV_IN.iter().product::<i64>() as usize;
        let out_count: usize = conv_out().iter().product::<i64>() as usize;
        let vx: Vec<i8> = pattern_bytes(in_count, 6)
            .into_iter()
            .map(|b| b as i8)
            .collect();
        let vw: Vec<i8> = pattern_bytes(oc * kk * kk * ic, 7)
            .into_iter()
            .map(|b| b as i8)
            .collect();
        let vb: Vec<i32> = (0..oc as i32).map(|o| o * 997 - 15_000).collect();
        let spec = conv_i8_spec(&vw, &vb);
        let x = gpu.tensor_of(vk::Format::R8_SINT, &CONV_IN);
        let out = gpu.tensor_of(vk::Format::R32_SINT, &conv_out());
        x.write_bytes(&vx.iter().map(|&v| v as u8).collect::<Vec<u8>>());
        out.fill(0xEE);
        let g = gpu.graph(&spec, &[&x, &out]);
        status("graph_conv2d_i8: first dispatch and its check");
        gpu.submit_wait(g.cb);
        let got: Vec<i32> = out
            .read_bytes(out_count * 4)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let want = conv_i8_ref(&vx, &vw, &vb);
        if let Some(i) = (0..out_count).find(|&i| got[i] != want[i]) {
            panic!(
                "graph_conv2d_i8 on {device}: element {i} is {}, want {}",
                got[i], want[i]
            );
        }
        let [_, h, w, _] = CONV_IN.map(|d| d as u64);
        time(
            c,
            "graph_conv2d_i8",
            Throughput::Elements(2 * h * w * (oc * kk * kk * ic) as u64),
            &gpu,
            &g,
        );
        gpu.destroy_graph(g);
        gpu.destroy_tensor(x);
        gpu.destroy_tensor(out);
    }
    status("done");
}

criterion_group!(benches, graphs);
criterion_main!(benches);
