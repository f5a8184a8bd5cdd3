//! Pipeline-creation cost: `vkCreateShaderModule` + `vkCreateComputePipelines` for every shader
//! of the `spirv-tests` corpus (`spirv-tests/cases/*/`), through the Khronos loader.
//!
//! One pipeline per distinct (case, SPIR-V file, entry point, specialization constants) among
//! the runs of every case, with the descriptor set layouts, push-constant range and
//! `DISPATCH_BASE` flag of the first run that uses it (created beforehand, not timed). Only the
//! two creation calls are timed; the module and pipeline are destroyed after each, outside the
//! timing, and no pipeline cache is used.
//!
//! - criterion: `pipeline_creation/<driver>_create` (`tessera_<backend>_create`,
//!   `bench_icd_create`; see `common.rs`) is the time to create all of them (throughput in
//!   pipelines).
//! - per shader: each pipeline is created once before (its *first* creation, timed too) and then
//!   [`ROUNDS`] times; a shader's time is the median of its rounds. The median and the maximum
//!   over the shaders (and the slowest shader) are printed and written as JSON to
//!   `$TESSERA_BENCH_PIPELINES_JSON`, by default `target/bench-pipelines/<driver>.json`, which
//!   `cargo xtask bench-compare` reads.
//!
//! The driver and the result names come from the environment as for `shaders` (see
//! `common.rs`); `TESSERA_BENCH_WORKLOADS` selects this bench with the name `pipelines`. A
//! pipeline the driver rejects (lavapipe with Arm's emulation layer lacks some of the corpus's
//! types) is left out and named in the output. On a driver other than Tessera, which pipelines
//! can be created is found out first in child processes of this bench
//! (`TESSERA_BENCH_PIPELINES_PROBE`), because Arm's emulation layer throws C++ exceptions
//! through `vkCreateShaderModule` for shaders its GLSL translation cannot compile, which abort
//! the process; each abort marks one pipeline rejected and the probe goes on after it. Tessera's log level defaults to `error` here
//! (`TESSERA_LOG`), as the corpus has shaders it warns about on purpose.

use std::ffi::CString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};

use criterion::{Criterion, Throughput};
use tessera_e2e::bench::BenchGpu;
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_spirv_tests::{Kind, Run, Spec, load_all};

mod common;

/// Timed creations of each pipeline for the per-shader statistics.
const ROUNDS: usize = 7;

/// One pipeline to create.
struct Item {
    /// `case` or `case::run`, and the SPIR-V file.
    label: String,
    spirv: Vec<u32>,
    entry: CString,
    spec: Vec<Spec>,
    flags: vk::PipelineCreateFlags,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
}

fn descriptor_type(kind: Kind) -> vk::DescriptorType {
    match kind {
        Kind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        Kind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        Kind::Tensor => vk::DescriptorType::TENSOR_ARM,
    }
}

/// The set layouts and pipeline layout of `run` (as the spirv-tests loader backend makes them).
fn layouts(device: &Device, run: &Run) -> (Vec<vk::DescriptorSetLayout>, vk::PipelineLayout) {
    let max_set = run.bindings.iter().map(|b| b.set).max().unwrap_or(0);
    let set_layouts: Vec<_> = (0..=max_set)
        .map(|set| {
            let bindings: Vec<_> = run
                .bindings
                .iter()
                .filter(|b| b.set == set)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::builder()
                        .binding(b.binding)
                        .descriptor_type(descriptor_type(b.kind))
                        .descriptor_count(b.elements.len() as u32)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::builder().bindings(&bindings);
            // SAFETY: valid create info on a live device.
            unsafe { device.create_descriptor_set_layout(&info, None) }
                .expect("vkCreateDescriptorSetLayout")
        })
        .collect();
    let push = run.push.len().next_multiple_of(4) as u32;
    let range = [vk::PushConstantRange::builder()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(push)];
    let ranges: &[_] = if push == 0 { &[] } else { &range };
    let info = vk::PipelineLayoutCreateInfo::builder()
        .set_layouts(&set_layouts)
        .push_constant_ranges(ranges);
    // SAFETY: valid create info on a live device.
    let layout =
        unsafe { device.create_pipeline_layout(&info, None) }.expect("vkCreatePipelineLayout");
    (set_layouts, layout)
}

/// Every distinct pipeline of the corpus.
fn items(device: &Device) -> Vec<Item> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (name, case) in load_all() {
        let case = case.unwrap_or_else(|e| panic!("spirv-tests case {name}: {e}"));
        for run in &case.runs {
            let spec: Vec<(u32, Vec<u8>)> = run.spec_pairs();
            if !seen.insert((name.clone(), run.shader.clone(), run.entry.clone(), spec)) {
                continue;
            }
            let (set_layouts, layout) = layouts(device, run);
            out.push(Item {
                label: format!("{} ({})", run.name, run.shader),
                spirv: run.spirv.clone(),
                entry: CString::new(run.entry.as_str()).expect("no NUL in an entry point name"),
                spec: run.spec.clone(),
                flags: if run.base == [0; 3] {
                    vk::PipelineCreateFlags::empty()
                } else {
                    vk::PipelineCreateFlags::DISPATCH_BASE
                },
                set_layouts,
                layout,
            });
        }
    }
    out
}

/// Creates `item`'s shader module and pipeline; returns the time the two calls took, then
/// destroys both. `Err` names the call that failed.
fn create(device: &Device, item: &Item) -> Result<Duration, String> {
    let mut data = Vec::new();
    let entries: Vec<_> = item
        .spec
        .iter()
        .map(|s| {
            let e = vk::SpecializationMapEntry::builder()
                .constant_id(s.id)
                .offset(data.len() as u32)
                .size(s.size as usize);
            data.extend(s.bytes());
            e
        })
        .collect();
    let spec = vk::SpecializationInfo::builder()
        .map_entries(&entries)
        .data(&data);
    let code = vk::ShaderModuleCreateInfo::builder()
        .code_size(item.spirv.len() * 4)
        .code(&item.spirv);
    let start = Instant::now();
    // SAFETY: valid create info on a live device.
    let module = unsafe { device.create_shader_module(&code, None) }
        .map_err(|e| format!("vkCreateShaderModule: {e:?}"))?;
    let mut stage = vk::PipelineShaderStageCreateInfo::builder()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(item.entry.as_bytes_with_nul());
    if !entries.is_empty() {
        stage = stage.specialization_info(&spec);
    }
    let info = [vk::ComputePipelineCreateInfo::builder()
        .flags(item.flags)
        .stage(stage)
        .layout(item.layout)];
    // SAFETY: valid create infos on a live device; every pointer outlives the call.
    let created =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
    let took = start.elapsed();
    // SAFETY: the module and pipeline are unused (never bound).
    unsafe {
        if let Ok((pipelines, _)) = &created {
            device.destroy_pipeline(pipelines[0], None);
        }
        device.destroy_shader_module(module, None);
    }
    created
        .map(|_| took)
        .map_err(|e| format!("vkCreateComputePipelines: {e:?}"))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn out_path(id: &str) -> PathBuf {
    match std::env::var_os("TESSERA_BENCH_PIPELINES_JSON") {
        Some(p) => PathBuf::from(p),
        None => tessera_e2e::workspace_root()
            .join("target/bench-pipelines")
            .join(format!("{id}.json")),
    }
}

/// Every tensor shader feature the driver reports.
fn tensor_features(s: &vk::PhysicalDeviceTensorFeaturesARM) -> vk::PhysicalDeviceTensorFeaturesARM {
    vk::PhysicalDeviceTensorFeaturesARM {
        shader_tensor_access: s.shader_tensor_access,
        shader_storage_tensor_array_dynamic_indexing: s
            .shader_storage_tensor_array_dynamic_indexing,
        shader_storage_tensor_array_non_uniform_indexing: s
            .shader_storage_tensor_array_non_uniform_indexing,
        descriptor_binding_storage_tensor_update_after_bind: s
            .descriptor_binding_storage_tensor_update_after_bind,
        ..Default::default()
    }
}

fn pipelines(c: &mut Criterion) {
    if !common::selected("pipelines") {
        return;
    }
    if std::env::var_os("TESSERA_LOG").is_none() {
        // SAFETY: single-threaded, before the driver is loaded.
        unsafe { std::env::set_var("TESSERA_LOG", "error") };
    }
    let gpu = BenchGpu::open(tensor_features);
    let device = &gpu.device;
    let all = items(device);
    let label = common::driver_label();
    let id = format!("{label}_create");

    // First creation of each; the ones the driver rejects are left out.
    let crashed = if std::env::var_os("TESSERA_BENCH_ICD").is_some() {
        probe_in_children(all.len())
    } else {
        Vec::new()
    };
    let mut first = Vec::new();
    let mut failed = Vec::new();
    let mut ok = Vec::new();
    for (i, item) in all.iter().enumerate() {
        if crashed.contains(&i) {
            failed.push(format!(
                "{}: the process aborted in vkCreateShaderModule/vkCreateComputePipelines",
                item.label
            ));
            continue;
        }
        match create(device, item) {
            Ok(t) => {
                first.push(t.as_secs_f64());
                ok.push(item);
            }
            Err(e) => failed.push(format!("{}: {e}", item.label)),
        }
    }
    eprintln!(
        "pipelines: device {:?}: {} pipelines from spirv-tests/cases, {} rejected by the driver",
        gpu.name,
        all.len(),
        failed.len()
    );
    for f in &failed {
        eprintln!("pipelines:   rejected {f}");
    }

    let mut g = c.benchmark_group("pipeline_creation");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(ok.len() as u64));
    g.bench_function(&id, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for item in &ok {
                    total += create(device, item).expect("created before");
                }
            }
            total
        })
    });
    g.finish();

    // Per shader: the median of ROUNDS creations.
    let mut per_shader: Vec<(f64, &str)> = ok
        .iter()
        .map(|item| {
            let mut times: Vec<f64> = (0..ROUNDS)
                .map(|_| create(device, item).expect("created before").as_secs_f64())
                .collect();
            (median(&mut times), item.label.as_str())
        })
        .collect();
    per_shader.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut times: Vec<f64> = per_shader.iter().map(|p| p.0).collect();
    let med = median(&mut times);
    let (max, slowest) = per_shader.last().copied().unwrap_or((f64::NAN, ""));
    let first_med = median(&mut first.clone());
    let first_max = first.iter().copied().fold(f64::NAN, f64::max);
    eprintln!(
        "pipelines: {id}: per shader median {:.3} ms, max {:.3} ms ({slowest}); first creation median {:.3} ms, max {:.3} ms",
        med * 1e3,
        max * 1e3,
        first_med * 1e3,
        first_max * 1e3
    );
    let json = serde_json::json!({
        "driver": label,
        "device": gpu.name,
        "pipelines": ok.len(),
        "rejected": failed,
        "rounds": ROUNDS,
        "median_ms": med * 1e3,
        "max_ms": max * 1e3,
        "slowest": slowest,
        "first_median_ms": first_med * 1e3,
        "first_max_ms": first_max * 1e3,
        "per_shader_ms": per_shader
            .iter()
            .map(|(t, label)| ((*label).to_owned(), serde_json::json!(t * 1e3)))
            .collect::<serde_json::Map<_, _>>(),
    });
    let path = out_path(&label);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    let text = serde_json::to_string_pretty(&json).expect("JSON");
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("pipelines: written to {}", path.display());

    // SAFETY: no pipeline uses the layouts any more.
    unsafe {
        for item in &all {
            device.destroy_pipeline_layout(item.layout, None);
            for &l in &item.set_layouts {
                device.destroy_descriptor_set_layout(l, None);
            }
        }
    }
}

/// The child side of [`probe_in_children`]: creates pipelines `from..` in order, printing
/// `tessera-probe: <index>` to stdout before each attempt.
fn probe(from: usize) {
    let gpu = BenchGpu::open(tensor_features);
    let all = items(&gpu.device);
    let mut stdout = std::io::stdout();
    for (i, item) in all.iter().enumerate().skip(from) {
        let _ = writeln!(stdout, "tessera-probe: {i}");
        let _ = stdout.flush();
        let _ = create(&gpu.device, item);
    }
    let _ = writeln!(stdout, "tessera-probe: done");
    // SAFETY: no pipeline uses the layouts any more.
    unsafe {
        for item in &all {
            gpu.device.destroy_pipeline_layout(item.layout, None);
            for &l in &item.set_layouts {
                gpu.device.destroy_descriptor_set_layout(l, None);
            }
        }
    }
}

/// The indices of the pipelines (of `count`) whose creation aborts the process, found by
/// running [`probe`] in child processes: each abort names the pipeline it was creating, and the
/// next child starts after it. The children's output (Arm's layer prints the shaders it fails
/// to compile) is dropped.
fn probe_in_children(count: usize) -> Vec<usize> {
    let exe = std::env::current_exe().expect("the bench executable");
    let mut crashed = Vec::new();
    let mut from = 0;
    while from < count {
        let mut child = Command::new(&exe)
            .env("TESSERA_BENCH_PIPELINES_PROBE", from.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run the probe");
        let mut last = None;
        let mut done = false;
        let out = child.stdout.take().expect("piped stdout");
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            match line.strip_prefix("tessera-probe: ") {
                Some("done") => done = true,
                Some(i) => last = i.parse::<usize>().ok(),
                None => {}
            }
        }
        let status = child.wait().expect("wait for the probe");
        if done {
            break;
        }
        let Some(i) = last else {
            panic!("the pipeline probe failed before creating any pipeline ({status})");
        };
        eprintln!("pipelines: creating pipeline {i} aborted the process ({status})");
        crashed.push(i);
        from = i + 1;
    }
    crashed
}

fn main() {
    if let Some(from) = std::env::var_os("TESSERA_BENCH_PIPELINES_PROBE") {
        let from = from
            .to_str()
            .and_then(|s| s.parse().ok())
            .expect("TESSERA_BENCH_PIPELINES_PROBE: an index");
        probe(from);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    pipelines(&mut c);
    c.final_summary();
}
