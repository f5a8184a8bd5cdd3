//! Compute pipelines through the loader: shader modules, descriptor sets, push and
//! specialization constants, `vkCmdDispatch`, `vkCmdDispatchBase` and `vkCmdDispatchIndirect`,
//! and the errors for shaders or bindings the device cannot run.

use tessera_e2e::compute::*;
use tessera_e2e::descriptors::{Descriptor, descriptor_set};
use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::vulkanalia::vk::KhrMaintenance6ExtensionDeviceCommands;
use tessera_e2e::*;

const LINEAR: vk::TensorTilingARM = vk::TensorTilingARM::LINEAR;
const DOUBLE_SPV: &[u8] = include_bytes!("../../../spirv-tests/shaders/double.spv");

/// The `double` pipeline: out[i] = in[i] * 2 + push.
fn double_pipeline(ctx: &Ctx, input: vk::Buffer, output: vk::Buffer) -> BufferPipeline {
    BufferPipeline::new(ctx, DOUBLE_SPV, &[input, output], 4, 64)
}

#[test]
fn dispatch_runs_the_shader() {
    let ctx = Ctx::new();
    let n = 64 * 257;
    let input = ctx.host_buffer(4 * n as u64);
    let output = ctx.host_buffer(4 * n as u64);
    let values: Vec<u32> = (0..n).map(|i| i * 7 + 1).collect();
    input.write_u32s(&values);
    output.fill(0xAB);
    let p = double_pipeline(&ctx, input.buffer, output.buffer);
    ctx.run(|d, cb| {
        p.record(d, cb, &5u32.to_le_bytes());
        // SAFETY: recording state with a pipeline and set bound.
        unsafe { d.cmd_dispatch(cb, n / 64, 1, 1) };
    });
    let got = output.read_u32s();
    for (i, (g, v)) in got.iter().zip(&values).enumerate() {
        assert_eq!(*g, v.wrapping_mul(2).wrapping_add(5), "element {i}");
    }
    p.destroy(&ctx);
}

#[test]
fn dispatch_base_and_indirect() {
    let ctx = Ctx::new();
    let n = 64 * 8;
    let input = ctx.host_buffer(4 * n as u64);
    let output = ctx.host_buffer(4 * n as u64);
    input.write_u32s(&(0..n).collect::<Vec<_>>());
    output.fill(0);
    let indirect = ctx.buffer(
        12,
        vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
    );
    let mem = ctx.memory(64);
    // SAFETY: fresh buffer and memory.
    unsafe { ctx.device.bind_buffer_memory(indirect, mem, 0) }.expect("bind");
    let p = double_pipeline(&ctx, input.buffer, output.buffer);
    ctx.run(|d, cb| {
        p.record(d, cb, &1u32.to_le_bytes());
        // SAFETY: recording state; the update happens before the indirect read in queue order.
        unsafe {
            d.cmd_update_buffer(cb, indirect, 0, &u32_bytes(&[2, 1, 1]));
            // Workgroups 2..4 with vkCmdDispatchBase, then 0..2 through the indirect buffer.
            d.cmd_dispatch_base(cb, 2, 0, 0, 2, 1, 1);
            d.cmd_dispatch_indirect(cb, indirect, 0);
        }
    });
    let got = output.read_u32s();
    for i in 0..n {
        let want = if i < 4 * 64 { i * 2 + 1 } else { 0 };
        assert_eq!(got[i as usize], want, "element {i}");
    }
    p.destroy(&ctx);
}

#[test]
fn bad_shaders_and_bindings_fail_at_pipeline_creation() {
    let ctx = Ctx::new();
    let set_layout = storage_layout(&ctx, 2);
    let layout = pipeline_layout(&ctx, set_layout, 4);
    let code = words(DOUBLE_SPV);
    // Truncated module, garbage words, and a module whose bindings the layout lacks.
    let truncated = shader_module(&ctx, &code[..code.len() / 2]);
    let garbage = shader_module(
        &ctx,
        &[0x0723_0203, 0x0001_0000, 0, 100, 0, 0xdead_beef, 0x1234],
    );
    let one_binding = storage_layout(&ctx, 1);
    let small_layout = pipeline_layout(&ctx, one_binding, 4);
    let good = shader_module(&ctx, &code);
    for (module, layout) in [(truncated, layout), (garbage, layout), (good, small_layout)] {
        let r = compute_pipeline(&ctx, module, layout, 64);
        assert_eq!(r.err(), Some(vk::ErrorCode::VALIDATION_FAILED));
    }
    // A layout without the push-constant range the shader reads.
    let no_push = pipeline_layout(&ctx, set_layout, 0);
    let r = compute_pipeline(&ctx, good, no_push, 64);
    assert_eq!(r.err(), Some(vk::ErrorCode::VALIDATION_FAILED));
    // SAFETY: objects of this device, unused by pending work.
    unsafe {
        for m in [truncated, garbage, good] {
            ctx.device.destroy_shader_module(m, None);
        }
        ctx.device.destroy_pipeline_layout(layout, None);
        ctx.device.destroy_pipeline_layout(small_layout, None);
        ctx.device.destroy_pipeline_layout(no_push, None);
        ctx.device.destroy_descriptor_set_layout(set_layout, None);
        ctx.device.destroy_descriptor_set_layout(one_binding, None);
    }
}

#[test]
fn dispatch_without_pipeline_or_sets_is_a_recording_error() {
    let ctx = Ctx::new();
    let buf = ctx.host_buffer(256);
    let p = double_pipeline(&ctx, buf.buffer, buf.buffer);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cb = ctx.command_buffer(pool);
    for case in 0..2 {
        ctx.begin(cb, vk::CommandBufferUsageFlags::empty());
        // SAFETY: recording state.
        unsafe {
            if case == 1 {
                ctx.device
                    .cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            }
            ctx.device.cmd_dispatch(cb, 1, 1, 1);
        }
        // SAFETY: the buffer is recording.
        let r = unsafe { ctx.device.end_command_buffer(cb) };
        assert_eq!(
            r.err(),
            Some(vk::ErrorCode::VALIDATION_FAILED),
            "case {case}"
        );
        // SAFETY: not pending.
        unsafe {
            ctx.device
                .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
        }
        .expect("reset");
    }
    p.destroy(&ctx);
}

/// `vkCmdBindDescriptorSets2KHR` / `vkCmdPushConstants2KHR` (VK_KHR_maintenance6) do what the
/// original commands do; a stage mask without COMPUTE binds nothing, and a null layout or an
/// empty stage mask is a recording error.
#[test]
fn maintenance6_bind_and_push_commands() {
    let ctx = Ctx::new();
    assert!(
        ctx.enabled_extensions
            .iter()
            .any(|e| e == "VK_KHR_maintenance6")
    );
    let n = 64u32 * 3;
    let input = ctx.host_buffer(4 * u64::from(n));
    let output = ctx.host_buffer(4 * u64::from(n));
    let values: Vec<u32> = (0..n).map(|i| i * 3 + 2).collect();
    input.write_u32s(&values);
    output.fill(0);
    let p = double_pipeline(&ctx, input.buffer, output.buffer);
    let sets = [p.set];
    let add = 11u32.to_le_bytes();
    ctx.run(|d, cb| {
        let bind = vk::BindDescriptorSetsInfo::builder()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .layout(p.layout)
            .first_set(0)
            .descriptor_sets(&sets);
        let push = vk::PushConstantsInfo::builder()
            .layout(p.layout)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .values(&add);
        // A graphics-only bind must not disturb the compute bind point.
        let graphics_only = vk::BindDescriptorSetsInfo::builder()
            .stage_flags(vk::ShaderStageFlags::VERTEX)
            .layout(p.layout)
            .first_set(0)
            .descriptor_sets(&sets);
        // SAFETY: recording state, live objects.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            d.cmd_bind_descriptor_sets2_khr(cb, &bind);
            d.cmd_bind_descriptor_sets2_khr(cb, &graphics_only);
            d.cmd_push_constants2_khr(cb, &push);
            d.cmd_dispatch(cb, n / 64, 1, 1);
        }
    });
    let got = output.read_u32s();
    for (i, (g, v)) in got.iter().zip(&values).enumerate() {
        assert_eq!(*g, v.wrapping_mul(2).wrapping_add(11), "element {i}");
    }

    for case in 0..3 {
        let bind = vk::BindDescriptorSetsInfo::builder()
            .stage_flags(if case == 0 {
                vk::ShaderStageFlags::empty()
            } else {
                vk::ShaderStageFlags::COMPUTE
            })
            .layout(if case == 1 {
                vk::PipelineLayout::null()
            } else {
                p.layout
            })
            .descriptor_sets(&sets);
        let push = vk::PushConstantsInfo::builder()
            .layout(p.layout)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(2)
            .values(&add);
        let r = ctx.record_only(|d, cb| {
            // SAFETY: recording state.
            unsafe {
                if case < 2 {
                    d.cmd_bind_descriptor_sets2_khr(cb, &bind);
                } else {
                    d.cmd_push_constants2_khr(cb, &push);
                }
            }
        });
        assert_eq!(
            r.err(),
            Some(vk::ErrorCode::VALIDATION_FAILED),
            "case {case}"
        );
    }
    p.destroy(&ctx);
}

#[test]
fn pipeline_cache_data_has_the_standard_header() {
    let ctx = Ctx::new();
    let info = vk::PipelineCacheCreateInfo::builder();
    // SAFETY: valid create info on a live device.
    let cache =
        unsafe { ctx.device.create_pipeline_cache(&info, None) }.expect("vkCreatePipelineCache");
    // SAFETY: live cache.
    let data =
        unsafe { ctx.device.get_pipeline_cache_data(cache) }.expect("vkGetPipelineCacheData");
    assert_eq!(data.len(), 32);
    assert_eq!(u32::from_le_bytes(data[0..4].try_into().unwrap()), 32);
    assert_eq!(u32::from_le_bytes(data[4..8].try_into().unwrap()), 1);
    // SAFETY: live cache, not in use.
    unsafe { ctx.device.destroy_pipeline_cache(cache, None) };
}

/// `vkGetPipelineCacheData` with room for `room` bytes: the result and the bytes written.
fn cache_data_within(ctx: &Ctx, cache: vk::PipelineCache, room: usize) -> (vk::Result, Vec<u8>) {
    let mut size = room;
    let mut data = vec![0u8; room];
    // SAFETY: `size` bytes writable at `data`; live cache.
    let result = unsafe {
        (ctx.device.commands().get_pipeline_cache_data)(
            ctx.device.handle(),
            cache,
            &mut size,
            data.as_mut_ptr().cast(),
        )
    };
    data.truncate(size);
    (result, data)
}

fn pipeline_cache(ctx: &Ctx, initial: &[u8]) -> vk::PipelineCache {
    let info = vk::PipelineCacheCreateInfo::builder().initial_data(initial);
    // SAFETY: valid create info on a live device.
    unsafe { ctx.device.create_pipeline_cache(&info, None) }.expect("vkCreatePipelineCache")
}

/// Runs the `double` pipeline made with `cache` and checks its results.
fn double_in_cache(ctx: &Ctx, cache: vk::PipelineCache) {
    let n = 64 * 4;
    let input = ctx.host_buffer(4 * n as u64);
    let output = ctx.host_buffer(4 * n as u64);
    let values: Vec<u32> = (0..n).map(|i| i * 3 + 2).collect();
    input.write_u32s(&values);
    let p = BufferPipeline::in_cache(
        ctx,
        DOUBLE_SPV,
        &[input.buffer, output.buffer],
        4,
        64,
        cache,
    );
    ctx.run(|d, cb| {
        p.record(d, cb, &9u32.to_le_bytes());
        // SAFETY: recording state with a pipeline and set bound.
        unsafe { d.cmd_dispatch(cb, n / 64, 1, 1) };
    });
    for (i, (g, v)) in output.read_u32s().iter().zip(&values).enumerate() {
        assert_eq!(*g, v * 2 + 9, "element {i}");
    }
    p.destroy(ctx);
}

/// A compute pipeline's compiled code travels in the pipeline cache data: the data has a code
/// section after the header, a cache made from it (or from a damaged copy of it) builds a
/// pipeline that computes the same results, and any size short of the whole gives
/// `VK_INCOMPLETE` with whole entries only.
#[test]
fn pipeline_cache_data_carries_compiled_code() {
    let ctx = Ctx::new();
    let cache = pipeline_cache(&ctx, &[]);
    double_in_cache(&ctx, cache);
    // SAFETY: live cache.
    let data =
        unsafe { ctx.device.get_pipeline_cache_data(cache) }.expect("vkGetPipelineCacheData");
    let backend = std::env::var("TESSERA_SHADER_BACKEND").unwrap_or_default();
    if backend.starts_with("interp") {
        assert_eq!(data.len(), 32, "no code without the JIT");
    } else {
        assert!(data.len() > 32 + 12 + 4 + 32 + 8, "{} bytes", data.len());
        assert_eq!(
            u32::from_le_bytes(data[32..36].try_into().unwrap()),
            2,
            "code section"
        );
    }
    for room in [0, 16, 32, 40, data.len() - 1]
        .into_iter()
        .filter(|&r| r < data.len())
    {
        let (result, got) = cache_data_within(&ctx, cache, room);
        assert_eq!(result, vk::Result::INCOMPLETE, "room {room}");
        assert!(got.len() <= room);
        assert_eq!(
            got.len(),
            if room < 32 { 0 } else { 32 },
            "whole entries only"
        );
        assert_eq!(got, data[..got.len()]);
    }
    let (result, got) = cache_data_within(&ctx, cache, data.len() + 10);
    assert_eq!((result, got.len()), (vk::Result::SUCCESS, data.len()));

    // The data as initial data, whole and damaged: the damaged entry is compiled again and the
    // cache ends up with the same data.
    let mut flipped = data.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x5a;
    for initial in [data.clone(), flipped, data[..data.len() / 2].to_vec()] {
        let again = pipeline_cache(&ctx, &initial);
        double_in_cache(&ctx, again);
        // SAFETY: live cache.
        let now =
            unsafe { ctx.device.get_pipeline_cache_data(again) }.expect("vkGetPipelineCacheData");
        assert_eq!(now, data);
        // SAFETY: live cache, not in use.
        unsafe { ctx.device.destroy_pipeline_cache(again, None) };
    }
    // SAFETY: live cache, not in use.
    unsafe { ctx.device.destroy_pipeline_cache(cache, None) };
}

const TENSOR_SCALE_SPV: &[u8] = include_bytes!("../../../spirv-tests/shaders/tensor_scale.spv");

/// A GLSL `GL_ARM_tensors` shader through the loader: tensor reads (packed source), writes (padded
/// destination), size queries and an out-of-bounds read with an explicit value.
#[test]
fn tensor_shader_reads_writes_and_queries() {
    let ctx = Ctx::with_tensors();
    let (rows, cols) = (13i64, 17i64);
    let usage = TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER;
    let mut src_info = TensorInfo::new(LINEAR, vk::Format::R32_UINT, &[rows, cols], usage);
    let padded = padded_strides(4, &[rows, cols], 13 * 4);
    let mut dst_info =
        TensorInfo::new(LINEAR, vk::Format::R32_UINT, &[rows, cols], usage).with_strides(&padded);
    let mem = ctx.host_memory(16384);
    let src = ctx.tensor(&mut src_info);
    let dst = ctx.tensor(&mut dst_info);
    ctx.bind_tensor(src, mem.memory, 0).unwrap();
    ctx.bind_tensor(dst, mem.memory, 4096).unwrap();
    let values: Vec<u32> = (0..(rows * cols) as u32).map(|i| i * 11 + 3).collect();
    mem.write(0, &u32_bytes(&values));
    mem.write(4096, &vec![0xEE; 8192]);
    let src_view = ctx
        .try_tensor_view(src, vk::Format::R32_UINT, 0)
        .expect("source view");
    let dst_view = ctx
        .try_tensor_view(dst, vk::Format::R32_UINT, 0)
        .expect("destination view");
    let oob = ctx.host_buffer(16);
    oob.fill(0);

    let bindings = [
        (0, vk::DescriptorType::TENSOR_ARM),
        (1, vk::DescriptorType::TENSOR_ARM),
        (2, vk::DescriptorType::STORAGE_BUFFER),
    ]
    .map(|(b, t)| {
        vk::DescriptorSetLayoutBinding::builder()
            .binding(b)
            .descriptor_type(t)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
    });
    let info = vk::DescriptorSetLayoutCreateInfo::builder().bindings(&bindings);
    // SAFETY: valid create infos on a live device throughout.
    unsafe {
        let set_layout = ctx
            .device
            .create_descriptor_set_layout(&info, None)
            .expect("layout");
        let layouts = [set_layout];
        let layout = ctx
            .device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::builder().set_layouts(&layouts),
                None,
            )
            .expect("pipeline layout");
        let module = shader_module(&ctx, &words(TENSOR_SCALE_SPV));
        let stage = vk::PipelineShaderStageCreateInfo::builder()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(b"main\0");
        let pinfo = [vk::ComputePipelineCreateInfo::builder()
            .stage(stage)
            .layout(layout)];
        let pipeline = ctx
            .device
            .create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None)
            .expect("tensor pipeline")
            .0[0];
        let (pool, set) = descriptor_set(
            &ctx.device,
            set_layout,
            &[
                (0, Descriptor::Tensor(src_view)),
                (1, Descriptor::Tensor(dst_view)),
                (2, Descriptor::Buffer(oob.buffer)),
            ],
        )
        .expect("the descriptor set");
        let groups = ((rows * cols) as u32).div_ceil(16);
        ctx.run(|d, cb| {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_dispatch(cb, groups, 1, 1);
        });
        ctx.device.destroy_pipeline(pipeline, None);
        ctx.device.destroy_descriptor_pool(pool, None);
        ctx.device.destroy_pipeline_layout(layout, None);
        ctx.device.destroy_descriptor_set_layout(set_layout, None);
        ctx.device.destroy_shader_module(module, None);
    }
    assert_eq!(
        oob.read_u32s(),
        vec![77, rows as u32, cols as u32, 0],
        "OOB value and sizes"
    );
    let bytes = mem.read();
    let row_stride = padded[0] as usize;
    for r in 0..rows as usize {
        let row = &bytes[4096 + r * row_stride..4096 + (r + 1) * row_stride];
        for c in 0..cols as usize {
            let got = u32::from_le_bytes(row[4 * c..4 * c + 4].try_into().unwrap());
            assert_eq!(got, values[r * cols as usize + c] * 3, "element ({r}, {c})");
        }
        assert!(
            row[4 * cols as usize..].iter().all(|b| *b == 0xEE),
            "padding of row {r} untouched"
        );
    }
}

const PIPELINE_LIMITS_SPV: &[u8] =
    include_bytes!("../../../spirv-tests/shaders/pipeline_limits.spv");

/// Creates the `pipeline_limits` shader's pipeline with spec constants 0–2 = the workgroup size
/// and 3 = the shared-memory words.
fn limits_pipeline(ctx: &Ctx, size: [u32; 3], shared_words: u32) -> VkResult<vk::Pipeline> {
    let module = shader_module(ctx, &words(PIPELINE_LIMITS_SPV));
    let set_layout = storage_layout(ctx, 1);
    let layout = pipeline_layout(ctx, set_layout, 0);
    let entries: Vec<_> = (0..4)
        .map(|i| {
            vk::SpecializationMapEntry::builder()
                .constant_id(i)
                .offset(i * 4)
                .size(4)
        })
        .collect();
    let data: Vec<u8> = [size[0], size[1], size[2], shared_words]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let spec = vk::SpecializationInfo::builder()
        .map_entries(&entries)
        .data(&data);
    let stage = vk::PipelineShaderStageCreateInfo::builder()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(b"main\0")
        .specialization_info(&spec);
    let info = [vk::ComputePipelineCreateInfo::builder()
        .stage(stage)
        .layout(layout)];
    // SAFETY: valid create infos on a live device.
    let result = unsafe {
        ctx.device
            .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
    }
    .map(|(p, _)| p[0]);
    // SAFETY: the module and layouts are not used by anything else.
    unsafe {
        ctx.device.destroy_shader_module(module, None);
        ctx.device.destroy_pipeline_layout(layout, None);
        ctx.device.destroy_descriptor_set_layout(set_layout, None);
    }
    result
}

/// A shader whose workgroup or shared memory exceeds the limits the device reports fails at
/// pipeline creation (sizes set through specialization constants, as a user would): the limits
/// themselves pass.
#[test]
fn pipelines_beyond_the_compute_limits_fail() {
    let ctx = Ctx::for_shaders();
    let l = &ctx.properties.limits;
    assert_eq!(l.max_compute_work_group_size, [1024, 1024, 64]);
    assert_eq!(l.max_compute_work_group_invocations, 1024);
    assert_eq!(l.max_compute_shared_memory_size, 65536);
    let ok = |size, words| {
        let p = limits_pipeline(&ctx, size, words).expect("a pipeline within the limits");
        // SAFETY: the pipeline is not used.
        unsafe { ctx.device.destroy_pipeline(p, None) };
    };
    ok([1024, 1, 1], 1);
    ok([1, 1, 64], 1);
    ok([32, 32, 1], 1);
    ok([64, 1, 1], 16384);
    let invalid = Err(vk::ErrorCode::VALIDATION_FAILED);
    // maxComputeWorkGroupSize[0] is 1024.
    assert_eq!(limits_pipeline(&ctx, [1025, 1, 1], 1), invalid);
    // maxComputeWorkGroupSize[2] is 64.
    assert_eq!(limits_pipeline(&ctx, [1, 1, 65], 1), invalid);
    // 2048 invocations; maxComputeWorkGroupInvocations is 1024.
    assert_eq!(limits_pipeline(&ctx, [1024, 2, 1], 1), invalid);
    // 65540 bytes of shared memory; maxComputeSharedMemorySize is 65536.
    assert_eq!(limits_pipeline(&ctx, [64, 1, 1], 16385), invalid);
}
