//! The `loader` backend: runs a case through the Khronos loader (`libvulkan.so.1`) with the
//! Tessera manifest: descriptor set layouts from the case, a compute pipeline with its
//! push-constant range and specialization constants, host-visible buffers and tensors, one
//! dispatch (`vkCmdDispatchBase` when the run starts at a workgroup other than 0), read back.
//! Optimal tensors are filled from (and read back into) packed linear staging tensors with
//! `vkCmdCopyTensorARM`. Needs the release ICD (`cargo build --release -p tessera-icd`).
//!
//! One device serves every run, one run at a time; it is created by the first loader test.
//! The same backend named `kept` is the harness's warm-cache phase (see `main.rs`).

use std::ffi::CString;
use std::sync::{Mutex, PoisonError};

use tessera_e2e::vulkanalia::prelude::v1_3::*;
use tessera_e2e::*;
use tessera_spirv_tests::{Elem, Kind, Run, Tiling};

use crate::{Backend, check};

/// The device of every loader test (created on first use) and the lock that serialises them.
static CTX: Mutex<Option<Ctx>> = Mutex::new(None);

pub struct Loader {
    /// The warm-cache phase's backend: the tests are named `kept::<case>`.
    pub kept: bool,
}

impl Backend for Loader {
    fn name(&self) -> &'static str {
        if self.kept { "kept" } else { "loader" }
    }

    fn run(&self, run: &Run) -> Result<(), String> {
        let mut ctx = CTX.lock().unwrap_or_else(PoisonError::into_inner);
        let ctx = ctx.get_or_insert_with(Ctx::for_shaders);
        let got = execute(ctx, run)?;
        check(run, &got, "")
    }
}

/// Destroys the device (after the tests); whether there was one (a loader test ran).
pub fn shut_down() -> bool {
    CTX.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .is_some()
}

fn vk_format(e: Elem) -> vk::Format {
    match e {
        Elem::Bool => vk::Format::R8_BOOL_ARM,
        Elem::U8 => vk::Format::R8_UINT,
        Elem::I8 => vk::Format::R8_SINT,
        Elem::U16 => vk::Format::R16_UINT,
        Elem::I16 => vk::Format::R16_SINT,
        Elem::F16 => vk::Format::R16_SFLOAT,
        Elem::U32 => vk::Format::R32_UINT,
        Elem::I32 => vk::Format::R32_SINT,
        Elem::F32 => vk::Format::R32_SFLOAT,
        Elem::U64 => vk::Format::R64_UINT,
        Elem::I64 => vk::Format::R64_SINT,
        Elem::F64 => vk::Format::R64_SFLOAT,
        Elem::Bf16 => vk::Format::R16_SFLOAT_FPENCODING_BFLOAT16_ARM,
        Elem::E4m3 => vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM,
        Elem::E5m2 => vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM,
    }
}

fn descriptor_type(kind: Kind) -> vk::DescriptorType {
    match kind {
        Kind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        Kind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        Kind::Tensor => vk::DescriptorType::TENSOR_ARM,
    }
}

/// One descriptor's resource and where its contents are read back from.
enum Resource<'a> {
    Buffer {
        buffer: vk::Buffer,
        memory: HostMemory<'a>,
        len: usize,
        /// The bytes the descriptor covers.
        range: usize,
    },
    Tensor {
        view: vk::TensorViewARM,
        /// The memory the contents are read from: the tensor's own (linear) or the staging
        /// tensor's (optimal).
        memory: HostMemory<'a>,
        len: usize,
        /// Optimal tiling: (optimal tensor, packed linear staging tensor).
        copy: Option<(vk::TensorARM, vk::TensorARM)>,
    },
}

impl Resource<'_> {
    fn contents(&self) -> Vec<u8> {
        match self {
            Resource::Buffer { memory, len, .. } | Resource::Tensor { memory, len, .. } => {
                memory.read()[..*len].to_vec()
            }
        }
    }
}

/// Pipeline objects of one run, destroyed on drop (after the device is idle).
struct Objects<'a> {
    ctx: &'a Ctx,
    module: vk::ShaderModule,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = &self.ctx.device;
        // SAFETY: the handles are null or objects of this device; every submission that used
        // them has completed (`Ctx::run` waits) or none was made, and the idle wait covers panics
        // between submission and wait.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline_layout(self.layout, None);
            for &l in &self.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            d.destroy_shader_module(self.module, None);
        }
    }
}

fn host_memory_for<'a>(
    ctx: &'a Ctx,
    reqs: vk::MemoryRequirements,
    what: &str,
) -> Result<HostMemory<'a>, String> {
    if reqs.memory_type_bits & (1 << ctx.memory_type) == 0 {
        return Err(format!(
            "{what}: memory type {} not allowed (bits {:#x})",
            ctx.memory_type, reqs.memory_type_bits
        ));
    }
    Ok(ctx.host_memory(reqs.size.max(1)))
}

fn make_buffer<'a>(
    ctx: &'a Ctx,
    el: &tessera_spirv_tests::Element,
) -> Result<Resource<'a>, String> {
    let init = &el.init;
    let size = (init.len() as u64).max(4);
    let buffer = ctx.buffer(
        size,
        vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
    );
    // SAFETY: `buffer` is a live buffer of this device.
    let reqs = unsafe { ctx.device.get_buffer_memory_requirements(buffer) };
    let memory = host_memory_for(ctx, reqs, "buffer")?;
    // SAFETY: fresh buffer and memory; offset 0 satisfies any alignment.
    unsafe { ctx.device.bind_buffer_memory(buffer, memory.memory, 0) }
        .map_err(|e| format!("vkBindBufferMemory: {e:?}"))?;
    memory.write(0, init);
    Ok(Resource::Buffer {
        buffer,
        memory,
        len: init.len(),
        range: el.buffer_range(),
    })
}

fn bound_tensor<'a>(
    ctx: &'a Ctx,
    info: &mut TensorInfo,
) -> Result<(vk::TensorARM, HostMemory<'a>), String> {
    let tensor = ctx.try_tensor(info).map_err(|e| {
        format!(
            "vkCreateTensorARM({:?}, {:?}): {e:?}",
            info.tiling, info.dims
        )
    })?;
    let (reqs, _) = ctx.tensor_requirements(tensor);
    let memory = host_memory_for(ctx, reqs, "tensor")?;
    ctx.bind_tensor(tensor, memory.memory, 0)
        .map_err(|e| format!("vkBindTensorMemoryARM: {e:?}"))?;
    Ok((tensor, memory))
}

fn make_tensor<'a>(
    ctx: &'a Ctx,
    el: &tessera_spirv_tests::Element,
) -> Result<Resource<'a>, String> {
    let t = el
        .tensor
        .as_ref()
        .ok_or("tensor binding without a tensor description")?;
    let format = vk_format(t.format);
    let dims: Vec<i64> = t.dims.iter().map(|&d| d as i64).collect();
    let usage = TENSOR_USAGE_SHADER | TENSOR_USAGE_TRANSFER;
    match t.tiling {
        Tiling::Linear => {
            let mut info = TensorInfo::new(vk::TensorTilingARM::LINEAR, format, &dims, usage);
            if let Some(s) = &t.strides {
                info = info.with_strides(&s.iter().map(|&x| x as i64).collect::<Vec<_>>());
            }
            let (tensor, memory) = bound_tensor(ctx, &mut info)?;
            memory.write(0, &el.init);
            let view = ctx
                .try_tensor_view(tensor, format, 0)
                .map_err(|e| format!("vkCreateTensorViewARM: {e:?}"))?;
            Ok(Resource::Tensor {
                view,
                memory,
                len: el.init.len(),
                copy: None,
            })
        }
        Tiling::Optimal => {
            let mut info = TensorInfo::new(vk::TensorTilingARM::OPTIMAL, format, &dims, usage);
            let (optimal, _memory) = bound_tensor(ctx, &mut info)?;
            let mut staging_info = TensorInfo::linear(format, &dims);
            let (staging, memory) = bound_tensor(ctx, &mut staging_info)?;
            memory.write(0, &el.init);
            let view = ctx
                .try_tensor_view(optimal, format, 0)
                .map_err(|e| format!("vkCreateTensorViewARM: {e:?}"))?;
            Ok(Resource::Tensor {
                view,
                memory,
                len: el.init.len(),
                copy: Some((optimal, staging)),
            })
        }
    }
}

fn barrier(
    d: &Device,
    cb: vk::CommandBuffer,
    dst_stage: vk::PipelineStageFlags,
    dst: vk::AccessFlags,
) {
    let b = vk::MemoryBarrier::builder()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(dst);
    // SAFETY: `cb` is recording.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[b],
            &[] as &[vk::BufferMemoryBarrier],
            &[] as &[vk::ImageMemoryBarrier],
        )
    };
}

/// One dispatch; returns every binding's memory.
fn execute(ctx: &Ctx, run: &Run) -> Result<Vec<Vec<Vec<u8>>>, String> {
    let d = &ctx.device;
    let mut objects = Objects {
        ctx,
        module: vk::ShaderModule::null(),
        set_layouts: Vec::new(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
        pool: vk::DescriptorPool::null(),
    };
    let code = vk::ShaderModuleCreateInfo::builder()
        .code_size(run.spirv.len() * 4)
        .code(&run.spirv);
    // SAFETY: valid create info on a live device.
    objects.module = unsafe { d.create_shader_module(&code, None) }
        .map_err(|e| format!("vkCreateShaderModule: {e:?}"))?;

    // One set layout per set number up to the highest used (gaps get empty layouts).
    let max_set = run.bindings.iter().map(|b| b.set).max().unwrap_or(0);
    for set in 0..=max_set {
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
        let l = unsafe { d.create_descriptor_set_layout(&info, None) }
            .map_err(|e| format!("vkCreateDescriptorSetLayout(set {set}): {e:?}"))?;
        objects.set_layouts.push(l);
    }
    let mut push = run.push.clone();
    push.resize(push.len().next_multiple_of(4), 0);
    let range = [vk::PushConstantRange::builder()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(push.len() as u32)];
    let ranges: &[_] = if push.is_empty() { &[] } else { &range };
    let info = vk::PipelineLayoutCreateInfo::builder()
        .set_layouts(&objects.set_layouts)
        .push_constant_ranges(ranges);
    // SAFETY: valid create info on a live device.
    objects.layout = unsafe { d.create_pipeline_layout(&info, None) }
        .map_err(|e| format!("vkCreatePipelineLayout: {e:?}"))?;

    let mut spec_data = Vec::new();
    let entries: Vec<_> = run
        .spec
        .iter()
        .map(|s| {
            let e = vk::SpecializationMapEntry::builder()
                .constant_id(s.id)
                .offset(spec_data.len() as u32)
                .size(s.size as usize);
            spec_data.extend(s.bytes());
            e
        })
        .collect();
    let spec = vk::SpecializationInfo::builder()
        .map_entries(&entries)
        .data(&spec_data);
    let entry = CString::new(run.entry.as_str()).map_err(|e| e.to_string())?;
    let mut stage = vk::PipelineShaderStageCreateInfo::builder()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(objects.module)
        .name(entry.as_bytes_with_nul());
    if !entries.is_empty() {
        stage = stage.specialization_info(&spec);
    }
    let base = run.base;
    let flags = if base == [0; 3] {
        vk::PipelineCreateFlags::empty()
    } else {
        vk::PipelineCreateFlags::DISPATCH_BASE
    };
    let pinfo = [vk::ComputePipelineCreateInfo::builder()
        .flags(flags)
        .stage(stage)
        .layout(objects.layout)];
    // SAFETY: valid create infos on a live device.
    objects.pipeline =
        unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None) }
            .map_err(|e| format!("vkCreateComputePipelines: {e:?}"))?
            .0[0];

    // Resources.
    let mut resources: Vec<Vec<Resource<'_>>> = Vec::new();
    for b in &run.bindings {
        let mut v = Vec::new();
        for el in &b.elements {
            v.push(match b.kind {
                Kind::Tensor => make_tensor(ctx, el)?,
                Kind::StorageBuffer | Kind::UniformBuffer => make_buffer(ctx, el)?,
            });
        }
        resources.push(v);
    }
    // Device addresses the case asks for, into the push constants and buffers.
    let index = |sb: [u32; 2]| {
        run.bindings
            .iter()
            .position(|b| b.set == sb[0] && b.binding == sb[1])
    };
    let address_of = |set, binding| match index([set, binding]).map(|i| &resources[i][0]) {
        Some(Resource::Buffer { buffer, .. }) => ctx.device_address(*buffer),
        _ => 0,
    };
    let mut push = run.patch_addresses(&address_of, &mut |into, at, bytes| {
        if let Some(Resource::Buffer { memory, .. }) = index(into).map(|i| &resources[i][0]) {
            memory.write(at as u64, &bytes);
        }
    });
    push.resize(push.len().next_multiple_of(4), 0);
    for c in &run.matrices {
        let i = index(c.binding).ok_or("a matrix conversion names no binding")?;
        let Resource::Buffer { memory, .. } = &resources[i][0] else {
            return Err("a matrix conversion names a tensor".into());
        };
        let init = &run.bindings[i].elements[0].init;
        let conversion = cooperative::MatrixConversion {
            rows: c.rows,
            cols: c.cols,
            src_type: vk::ComponentTypeKHR::from_raw(c.component as i32),
            dst_type: vk::ComponentTypeKHR::from_raw(c.component as i32),
            src_layout: vk::CooperativeVectorMatrixLayoutNV::ROW_MAJOR,
            src_stride: c.src_stride,
            dst_layout: vk::CooperativeVectorMatrixLayoutNV::from_raw(c.layout as i32),
            dst_stride: c.dst_stride,
        };
        let src = &init[c.src_at..c.src_at + c.rows as usize * c.src_stride];
        let converted = cooperative::convert_matrix(&ctx.device, &conversion, src)
            .map_err(|e| format!("vkConvertCooperativeVectorMatrixNV: {e:?}"))?;
        if converted.len() > c.capacity {
            return Err(format!(
                "the converted matrix takes {} bytes; the case has room for {}",
                converted.len(),
                c.capacity
            ));
        }
        memory.write(c.dst_at as u64, &converted);
    }
    for c in &run.matrices {
        let i = index(c.binding).ok_or("a matrix conversion names no binding")?;
        let Resource::Buffer { memory, .. } = &resources[i][0] else {
            return Err("a matrix conversion names a tensor".into());
        };
        let init = &run.bindings[i].elements[0].init;
        let conversion = cooperative::MatrixConversion {
            rows: c.rows,
            cols: c.cols,
            src_type: vk::ComponentTypeKHR::from_raw(c.component as i32),
            dst_type: vk::ComponentTypeKHR::from_raw(c.component as i32),
            src_layout: vk::CooperativeVectorMatrixLayoutNV::ROW_MAJOR,
            src_stride: c.src_stride,
            dst_layout: vk::CooperativeVectorMatrixLayoutNV::from_raw(c.layout as i32),
            dst_stride: c.dst_stride,
        };
        let src = &init[c.src_at..c.src_at + c.rows as usize * c.src_stride];
        let converted = cooperative::convert_matrix(&ctx.device, &conversion, src)
            .map_err(|e| format!("vkConvertCooperativeVectorMatrixNV: {e:?}"))?;
        if converted.len() > c.capacity {
            return Err(format!(
                "the converted matrix takes {} bytes; the case has room for {}",
                converted.len(),
                c.capacity
            ));
        }
        memory.write(c.dst_at as u64, &converted);
    }

    // Descriptor pool and sets.
    let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
    for b in &run.bindings {
        let t = descriptor_type(b.kind);
        let n = b.elements.len() as u32;
        match sizes.iter_mut().find(|s| s.type_ == t) {
            Some(s) => s.descriptor_count += n,
            None => sizes.push(
                *vk::DescriptorPoolSize::builder()
                    .type_(t)
                    .descriptor_count(n),
            ),
        }
    }
    let info = vk::DescriptorPoolCreateInfo::builder()
        .max_sets(objects.set_layouts.len() as u32)
        .pool_sizes(&sizes);
    // SAFETY: valid create info on a live device.
    objects.pool = unsafe { d.create_descriptor_pool(&info, None) }
        .map_err(|e| format!("vkCreateDescriptorPool: {e:?}"))?;
    let alloc = vk::DescriptorSetAllocateInfo::builder()
        .descriptor_pool(objects.pool)
        .set_layouts(&objects.set_layouts);
    // SAFETY: valid allocate info on a live device.
    let sets = unsafe { d.allocate_descriptor_sets(&alloc) }
        .map_err(|e| format!("vkAllocateDescriptorSets: {e:?}"))?;

    // Everything the writes point at lives until `update_descriptor_sets` returns.
    let buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = resources
        .iter()
        .map(|v| {
            v.iter()
                .filter_map(|r| match r {
                    Resource::Buffer { buffer, range, .. } => Some(
                        *vk::DescriptorBufferInfo::builder()
                            .buffer(*buffer)
                            .offset(0)
                            .range((*range as u64).max(4)),
                    ),
                    Resource::Tensor { .. } => None,
                })
                .collect()
        })
        .collect();
    let views: Vec<Vec<vk::TensorViewARM>> = resources
        .iter()
        .map(|v| {
            v.iter()
                .filter_map(|r| match r {
                    Resource::Tensor { view, .. } => Some(*view),
                    Resource::Buffer { .. } => None,
                })
                .collect()
        })
        .collect();
    let tensor_writes: Vec<vk::WriteDescriptorSetTensorARM> = views
        .iter()
        .map(|v| vk::WriteDescriptorSetTensorARM {
            tensor_view_count: v.len() as u32,
            tensor_views: v.as_ptr(),
            ..Default::default()
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = run
        .bindings
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let base = vk::WriteDescriptorSet {
                dst_set: sets[b.set as usize],
                dst_binding: b.binding,
                descriptor_count: b.elements.len() as u32,
                descriptor_type: descriptor_type(b.kind),
                ..Default::default()
            };
            match b.kind {
                Kind::Tensor => vk::WriteDescriptorSet {
                    next: (&tensor_writes[i] as *const vk::WriteDescriptorSetTensorARM).cast(),
                    ..base
                },
                _ => vk::WriteDescriptorSet {
                    buffer_info: buffer_infos[i].as_ptr(),
                    ..base
                },
            }
        })
        .collect();
    // SAFETY: the writes name live objects of this device; their arrays outlive the call.
    unsafe { d.update_descriptor_sets(&writes, &[] as &[vk::CopyDescriptorSet]) };

    let copies: Vec<(vk::TensorARM, vk::TensorARM)> = resources
        .iter()
        .flatten()
        .filter_map(|r| match r {
            Resource::Tensor { copy, .. } => *copy,
            Resource::Buffer { .. } => None,
        })
        .collect();
    let [x, y, z] = run.dispatch;
    ctx.run(|d, cb| {
        for &(optimal, staging) in &copies {
            cmd_copy_whole_tensor(d, cb, staging, optimal);
        }
        barrier(
            d,
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
        );
        // SAFETY: recording state; the pipeline, layout and sets are live objects of `d`.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, objects.pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                objects.layout,
                0,
                &sets,
                &[],
            );
            if !push.is_empty() {
                d.cmd_push_constants(cb, objects.layout, vk::ShaderStageFlags::COMPUTE, 0, &push);
            }
            if base == [0; 3] {
                d.cmd_dispatch(cb, x, y, z);
            } else {
                d.cmd_dispatch_base(cb, base[0], base[1], base[2], x, y, z);
            }
        }
        barrier(
            d,
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
        );
        for &(optimal, staging) in &copies {
            cmd_copy_whole_tensor(d, cb, optimal, staging);
        }
        barrier(
            d,
            cb,
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ,
        );
    });

    let got = resources
        .iter()
        .map(|rs| rs.iter().map(Resource::contents).collect())
        .collect();
    drop(objects);
    Ok(got)
}
