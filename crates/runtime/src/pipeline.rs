//! Shader modules, compute pipelines, and the descriptor resolution a dispatch does before it
//! hands raw memory records to the SPIR-V interpreter. Pipeline caches are
//! [`crate::pipeline_cache`]'s.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use tessera_spirv::{
    BoundResource, Module, PhysicalRange, Program, ResourceDecl, ResourceKind, Resources,
    TensorElement,
};

use vulkan_headers::vulkan::vulkan_core::*;

use crate::descriptor::{Descriptor, DescriptorKind, DescriptorSet, PipelineLayout};
use crate::device::Device;
use crate::memory::DeviceMemory;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

pub use crate::pipeline_cache::PipelineCache;

/// A `VkPipeline`: a compute pipeline or a data graph pipeline.
#[derive(Debug)]
pub enum Pipeline {
    /// From `vkCreateComputePipelines`.
    Compute(Arc<ComputePipeline>),
    /// From `vkCreateDataGraphPipelinesARM`.
    DataGraph(crate::data_graph::DataGraphPipeline),
}

impl Pipeline {
    /// The compute pipeline, if it is one.
    pub fn compute(&self) -> Option<&Arc<ComputePipeline>> {
        match self {
            Pipeline::Compute(p) => Some(p),
            Pipeline::DataGraph(_) => None,
        }
    }

    /// The data graph pipeline, if it is one.
    pub fn data_graph(&self) -> Option<&crate::data_graph::DataGraphPipeline> {
        match self {
            Pipeline::DataGraph(p) => Some(p),
            Pipeline::Compute(_) => None,
        }
    }
}

/// `VkSpecializationInfo` as (SpecId, bytes) pairs.
pub(crate) fn specialization(info: &Option<vk::SpecializationInfo>) -> Result<Vec<(u32, Vec<u8>)>> {
    let Some(info) = info else {
        return Ok(Vec::new());
    };
    info.map_entries
        .iter()
        .map(|e| {
            let start = e.offset as usize;
            let end = start.checked_add(e.size);
            ensure!(
                end.is_some_and(|end| end <= info.data.len()),
                "VUID-VkSpecializationInfo-offset-00773",
                "map entry for constant {} ({} bytes at {}) runs past dataSize {}",
                e.constant_id,
                e.size,
                e.offset,
                info.data.len()
            );
            Ok((e.constant_id, info.data[start..start + e.size].to_vec()))
        })
        .collect()
}

/// A `VkShaderModule`: the words, parsed once on first use.
#[derive(Debug)]
pub struct ShaderModule {
    words: Vec<u32>,
    parsed: OnceLock<std::result::Result<Arc<Module>, String>>,
}

impl ShaderModule {
    /// A module from its SPIR-V words.
    ///
    /// # Errors
    /// `Validation` when the code is empty.
    pub fn new(words: Vec<u32>) -> Result<Self> {
        ensure!(
            !words.is_empty(),
            "VUID-VkShaderModuleCreateInfo-codeSize-08735",
            "codeSize is 0"
        );
        Ok(ShaderModule {
            words,
            parsed: OnceLock::new(),
        })
    }

    /// The SPIR-V words.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The parsed module.
    ///
    /// # Errors
    /// `Validation` naming the SPIR-V problem.
    pub fn module(&self) -> Result<Arc<Module>> {
        self.parsed
            .get_or_init(|| {
                Module::parse(&self.words)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|msg| Error::invalid("VUID-VkShaderModuleCreateInfo-pCode-08737", msg))
    }
}

/// A compute pipeline: the specialised program and the layout it was created with.
#[derive(Debug)]
pub struct ComputePipeline {
    program: Arc<Program>,
    /// Compiled code for the program (see `shader`).
    compiled: Arc<crate::shader::Compiled>,
    layout: Arc<PipelineLayout>,
}

fn kind_matches(decl: &ResourceKind, kind: DescriptorKind) -> bool {
    match decl {
        ResourceKind::StorageBuffer => matches!(
            kind,
            DescriptorKind::StorageBuffer | DescriptorKind::StorageBufferDynamic
        ),
        ResourceKind::UniformBuffer => matches!(
            kind,
            DescriptorKind::UniformBuffer
                | DescriptorKind::UniformBufferDynamic
                | DescriptorKind::InlineUniformBlock
        ),
        ResourceKind::Tensor { .. } => kind == DescriptorKind::Tensor,
    }
}

impl ComputePipeline {
    /// `vkCreateComputePipelines` of one pipeline: specialises the stage, checks it against the
    /// layout and against the device's compute limits (workgroup size per axis, invocations per
    /// workgroup, shared memory).
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    /// The compiled code is kept in and taken from `cache` (and the disk cache).
    pub fn create(
        device: &Device,
        info: &vk::ComputePipelineCreateInfo,
        cache: Option<&Arc<PipelineCache>>,
    ) -> Result<Self> {
        let stage = &info.stage;
        ensure!(
            stage.stage == VK_SHADER_STAGE_COMPUTE_BIT,
            "VUID-VkComputePipelineCreateInfo-stage-00701",
            "stage {:#x} is not VK_SHADER_STAGE_COMPUTE_BIT",
            stage.stage
        );
        // VK_KHR_maintenance5: the module may instead be a VkShaderModuleCreateInfo in the
        // stage's pNext chain.
        let inline;
        let module = match (&stage.module, &stage.shader_module_create_info) {
            (Some(m), None) => m.as_ref(),
            (None, Some(info)) => {
                inline = ShaderModule::new(info.code.clone())?;
                &inline
            }
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "VUID-VkPipelineShaderStageCreateInfo-stage-06844",
                    "module is not VK_NULL_HANDLE and a VkShaderModuleCreateInfo is chained too",
                ));
            }
            (None, None) => {
                return Err(Error::invalid(
                    "VUID-VkPipelineShaderStageCreateInfo-stage-06845",
                    "module is VK_NULL_HANDLE and no VkShaderModuleCreateInfo is chained",
                ));
            }
        };
        if let Some(r) = &stage.pipeline_shader_stage_required_subgroup_size_create_info {
            let v13 = &device.physical().properties().vulkan13;
            ensure!(
                r.required_subgroup_size.is_power_of_two()
                    && (v13.min_subgroup_size..=v13.max_subgroup_size)
                        .contains(&r.required_subgroup_size),
                "VUID-VkPipelineShaderStageRequiredSubgroupSizeCreateInfo-requiredSubgroupSize-02760",
                "requiredSubgroupSize {} is not a power of two in [{}, {}]",
                r.required_subgroup_size,
                v13.min_subgroup_size,
                v13.max_subgroup_size
            );
        }
        let Some(layout) = info.layout.clone() else {
            return Err(Error::invalid(
                "VUID-VkComputePipelineCreateInfo-layout-parameter",
                "layout is not a valid VkPipelineLayout",
            ));
        };
        let spec = specialization(&stage.specialization_info)?;
        let pipeline = Self::new(module, &stage.name, &spec, layout, cache)?;
        pipeline.check_limits(device.physical().limits())?;
        crate::cooperative::check_program(pipeline.program(), device.features())?;
        Ok(pipeline)
    }

    /// Checks the specialised shader against the compute limits the device reports.
    ///
    /// # Errors
    /// `Validation` naming the `RuntimeSpirv` rule broken.
    pub fn check_limits(&self, limits: &vk::PhysicalDeviceLimits) -> Result<()> {
        let size = self.program.local_size();
        let max = limits.max_compute_work_group_size;
        let vuids = [
            "VUID-RuntimeSpirv-x-06429",
            "VUID-RuntimeSpirv-y-06430",
            "VUID-RuntimeSpirv-z-06431",
        ];
        for axis in 0..3 {
            ensure!(
                size[axis] <= max[axis],
                vuids[axis],
                "the workgroup size {size:?} exceeds maxComputeWorkGroupSize[{axis}] = {}",
                max[axis]
            );
        }
        let invocations = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
        ensure!(
            invocations <= u64::from(limits.max_compute_work_group_invocations),
            "VUID-RuntimeSpirv-x-06432",
            "the workgroup size {size:?} has {invocations} invocations, more than \
             maxComputeWorkGroupInvocations = {}",
            limits.max_compute_work_group_invocations
        );
        let shared = self.program.shared_memory_size();
        ensure!(
            shared <= limits.max_compute_shared_memory_size,
            "VUID-RuntimeSpirv-Workgroup-06530",
            "the shader declares {shared} bytes of workgroup memory, more than \
             maxComputeSharedMemorySize = {}",
            limits.max_compute_shared_memory_size
        );
        Ok(())
    }

    /// Specialises `entry` of `module` and checks it against `layout`.
    ///
    /// # Errors
    /// `Validation` for SPIR-V the device cannot run, or a shader resource the layout lacks.
    pub fn new(
        module: &ShaderModule,
        entry: &str,
        spec: &[(u32, Vec<u8>)],
        layout: Arc<PipelineLayout>,
        cache: Option<&Arc<PipelineCache>>,
    ) -> Result<Self> {
        let parsed = module.module()?;
        let program = Program::new(&parsed, entry, spec).map_err(|e| {
            Error::invalid(
                "VUID-VkPipelineShaderStageCreateInfo-module-parameter",
                e.to_string(),
            )
        })?;
        for w in program.warnings() {
            tracing::warn!("compute shader entry point {entry:?}: {w}");
        }
        for r in program.resources() {
            let binding = layout
                .set_layouts
                .get(r.set as usize)
                .and_then(|l| l.as_ref())
                .and_then(|l| l.binding(r.binding).map(|(b, _)| *b));
            let Some(b) = binding else {
                return Err(Error::invalid(
                    "VUID-VkComputePipelineCreateInfo-layout-07988",
                    format!(
                        "the shader uses set {} binding {}, which the pipeline layout does not have",
                        r.set, r.binding
                    ),
                ));
            };
            ensure!(
                kind_matches(&r.kind, b.kind),
                "VUID-VkComputePipelineCreateInfo-layout-07990",
                "set {} binding {}: the shader declares {:?}, the layout {:?}",
                r.set,
                r.binding,
                r.kind,
                b.kind
            );
        }
        ensure!(
            program.push_constant_size() <= layout.push_size(),
            "VUID-VkComputePipelineCreateInfo-layout-07987",
            "the shader reads {} push-constant bytes, the layout covers {}",
            program.push_constant_size(),
            layout.push_size()
        );
        let program = Arc::new(program);
        let compiled = crate::shader::Compiled::for_program(&program, entry, cache)?;
        Ok(ComputePipeline {
            program,
            compiled,
            layout,
        })
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The compiled code for the program, when it is ready.
    pub fn kernel(&self) -> Option<&dyn tessera_spirv::exec::Kernel> {
        self.compiled.kernel()
    }

    /// The compiled code for a dispatch of `invocations` (`shader::Compiled::kernel_for`).
    pub fn kernel_for(&self, invocations: u64) -> Option<&dyn tessera_spirv::exec::Kernel> {
        self.compiled.kernel_for(invocations)
    }

    /// Counts a dispatch's time on the interpreter (see `shader::INTERPRETER_BUDGET`).
    pub fn note_interpreted(&self, time: std::time::Duration) {
        self.compiled.note_interpreted(time);
    }

    /// The layout.
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }
}

/// A descriptor set bound for dispatch, with its dynamic offsets in binding order.
#[derive(Debug, Clone)]
pub struct BoundSet {
    /// The set.
    pub set: Arc<DescriptorSet>,
    /// One offset per dynamic descriptor.
    pub dynamic_offsets: Vec<u32>,
}

/// The interpreter's element type for a tensor view format (`None`: no shader type).
pub fn tensor_element(format: i32) -> Option<TensorElement> {
    use crate::vk::abi::*;
    Some(match format {
        VK_FORMAT_R8_BOOL_ARM => TensorElement::Bool8,
        VK_FORMAT_R8_UINT => TensorElement::U8,
        VK_FORMAT_R8_SINT => TensorElement::I8,
        VK_FORMAT_R16_UINT => TensorElement::U16,
        VK_FORMAT_R16_SINT => TensorElement::I16,
        VK_FORMAT_R16_SFLOAT => TensorElement::F16,
        VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM => TensorElement::BF16,
        VK_FORMAT_R32_UINT => TensorElement::U32,
        VK_FORMAT_R32_SINT => TensorElement::I32,
        VK_FORMAT_R32_SFLOAT => TensorElement::F32,
        VK_FORMAT_R64_UINT => TensorElement::U64,
        VK_FORMAT_R64_SINT => TensorElement::I64,
        VK_FORMAT_R64_SFLOAT => TensorElement::F64,
        VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM => TensorElement::F8E4M3,
        VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM => TensorElement::F8E5M2,
        _ => return None,
    })
}

/// Descriptors resolved to raw memory records for one dispatch.
#[derive(Debug, Default)]
pub struct ResolvedResources {
    map: HashMap<(u32, u32, u32), BoundResource>,
    /// Copies of inline uniform blocks, alive for the dispatch (the records point into them).
    _inline: Vec<Box<[u8]>>,
    /// The device's live allocations as `PhysicalStorageBuffer` ranges, and the allocations
    /// themselves, held alive for the dispatch.
    physical: Vec<PhysicalRange>,
    _live: Vec<Arc<DeviceMemory>>,
}

impl Resources for ResolvedResources {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        self.map.get(&(set, binding, index))
    }

    fn physical_ranges(&self) -> &[PhysicalRange] {
        &self.physical
    }
}

impl ResolvedResources {
    /// Makes every allocation of `live` reachable through device addresses (each at
    /// [`DeviceMemory::address`], the address `vkGetBufferDeviceAddress` hands out), and holds
    /// the allocations until `self` is dropped.
    ///
    /// # Errors
    /// `DeviceLost` when an allocation is larger than the host can address.
    pub fn add_physical(&mut self, live: Vec<Arc<DeviceMemory>>) -> Result<()> {
        for m in &live {
            let len = usize::try_from(m.size()).map_err(|_| {
                Error::DeviceLost("allocation larger than the address space".into())
            })?;
            self.physical.push(PhysicalRange {
                address: m.address(0),
                ptr: m.raw_range(0, m.size())?,
                len,
            });
        }
        self._live.extend(live);
        Ok(())
    }
    /// Resolves every resource `decls` names from the bound sets.
    ///
    /// # Errors
    /// `DeviceLost` when a bound resource lost its memory (validation should have caught it).
    pub fn resolve(decls: &[ResourceDecl], sets: &[Option<BoundSet>]) -> Result<Self> {
        let mut out = ResolvedResources::default();
        for d in decls {
            let Some(Some(bound)) = sets.get(d.set as usize) else {
                continue;
            };
            let Some((lb, _)) = bound.set.layout().binding(d.binding) else {
                continue;
            };
            if lb.kind == DescriptorKind::InlineUniformBlock {
                if let Some(bytes) = bound.set.inline_bytes(d.binding) {
                    let mut boxed = bytes.into_boxed_slice();
                    let rec = BoundResource::Buffer {
                        ptr: boxed.as_mut_ptr(),
                        len: boxed.len(),
                    };
                    out._inline.push(boxed);
                    out.map.insert((d.set, d.binding, 0), rec);
                }
                continue;
            }
            let count = match d.array_len {
                None => 1,
                Some(0) => lb.count,
                Some(n) => n.min(lb.count),
            };
            for index in 0..count {
                let Some((kind, desc)) = bound.set.get(d.binding, index) else {
                    continue;
                };
                let rec = match desc {
                    Descriptor::Empty => BoundResource::Null,
                    Descriptor::Buffer {
                        buffer,
                        offset,
                        range,
                    } => {
                        let dynamic = if kind.is_dynamic() {
                            u64::from(dynamic_offset(bound, d.binding, index).unwrap_or(0))
                        } else {
                            0
                        };
                        let b = buffer.binding().ok_or_else(|| {
                            Error::DeviceLost("a descriptor's buffer lost its memory".into())
                        })?;
                        let start = b.offset + offset + dynamic;
                        let ptr = b.memory.raw_range(start, range)?;
                        BoundResource::Buffer {
                            ptr,
                            len: range as usize,
                        }
                    }
                    Descriptor::Tensor(view) => {
                        let t = view.tensor();
                        let desc = t.desc();
                        match tensor_element(view.format().vk) {
                            None => BoundResource::Null,
                            Some(format) => {
                                let Some(b) = t.binding() else {
                                    // A view made before its tensor was bound, still unbound:
                                    // it reads as out of bounds.
                                    out.map
                                        .insert((d.set, d.binding, index), BoundResource::Null);
                                    continue;
                                };
                                let len = desc.footprint();
                                let ptr = b.memory.raw_range(b.offset, len)?;
                                BoundResource::Tensor {
                                    ptr,
                                    len: len as usize,
                                    format,
                                    dims: desc.dims.clone(),
                                    strides: desc.strides.clone(),
                                }
                            }
                        }
                    }
                };
                out.map.insert((d.set, d.binding, index), rec);
            }
        }
        Ok(out)
    }
}

/// The dynamic offset of array element `index` of `binding` in a bound set: dynamic offsets are
/// consumed in binding order, then array order.
fn dynamic_offset(bound: &BoundSet, binding: u32, index: u32) -> Option<u32> {
    let mut n = 0usize;
    for b in bound.set.layout().bindings() {
        if !b.kind.is_dynamic() {
            continue;
        }
        if b.binding == binding {
            return bound.dynamic_offsets.get(n + index as usize).copied();
        }
        n += b.count as usize;
    }
    None
}

/// Worker threads a dispatch may use.
pub fn dispatch_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
