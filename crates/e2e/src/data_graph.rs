//! Client-side `VK_ARM_data_graph` plumbing shared by the end-to-end tests
//! (`tests/data_graph.rs`) and the graph benchmarks (`benches/graphs.rs`): tensor descriptions
//! with DATA_GRAPH usage, interface resources, descriptor set and pipeline layouts of tensor
//! bindings, a pipeline create info that owns everything it points to, sessions with every bind
//! point bound, a descriptor set of tensor views and the recorded dispatch.
//!
//! Invariants: every struct handed to the driver points only into memory that outlives the call
//! (a [`GraphInfo`] is boxed and never moved out of its box); 64-bit flag fields that vulkanalia
//! declares 32-bit are written whole with [`write_flags64`].

use std::ffi::CString;

use vulkanalia::prelude::v1_3::*;
use vulkanalia::vk::ArmDataGraphExtensionDeviceCommands;

use crate::descriptors::{Descriptor, descriptor_set};
use crate::{packed_strides, tensor_format_size, write_flags64};

/// `VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM` (vulkanalia declares the 64-bit tensor usage as 32-bit,
/// so it is written with [`write_flags64`]).
pub const DATA_GRAPH_USAGE: u64 = 1 << 5;

/// A tensor description with DATA_GRAPH usage (it points into `dims` and `strides`).
pub fn graph_description(
    tiling: vk::TensorTilingARM,
    format: vk::Format,
    dims: &[i64],
    strides: Option<&[i64]>,
) -> vk::TensorDescriptionARM {
    let mut d = vk::TensorDescriptionARM {
        tiling,
        format,
        dimension_count: dims.len() as u32,
        dimensions: dims.as_ptr(),
        strides: strides.map_or(std::ptr::null(), |s| s.as_ptr()),
        ..Default::default()
    };
    write_flags64(
        &mut d,
        std::mem::offset_of!(vk::TensorDescriptionARM, usage),
        DATA_GRAPH_USAGE,
    );
    d
}

/// One interface tensor of a graph: binding (set 0), format, dimensions, strides (None:
/// packed), tiling.
#[derive(Debug, Clone)]
pub struct Resource {
    /// Its binding in descriptor set 0.
    pub binding: u32,
    /// Its format.
    pub format: vk::Format,
    /// Its dimensions.
    pub dims: Vec<i64>,
    /// Its strides in bytes (None: packed).
    pub strides: Option<Vec<i64>>,
    /// Its tiling.
    pub tiling: vk::TensorTilingARM,
}

impl Resource {
    /// A packed, linear resource.
    pub fn new(binding: u32, format: vk::Format, dims: &[i64]) -> Self {
        Resource {
            binding,
            format,
            dims: dims.to_vec(),
            strides: None,
            tiling: vk::TensorTilingARM::LINEAR,
        }
    }

    /// Every outer stride multiplied by `k` (the CTS's non-packed layout).
    pub fn strided(mut self, k: i64) -> Self {
        let mut strides = packed_strides(self.elem(), &self.dims);
        let last = strides.len().saturating_sub(1);
        for s in &mut strides[..last] {
            *s *= k;
        }
        self.strides = Some(strides);
        self
    }

    /// Bytes per element.
    pub fn elem(&self) -> u64 {
        tensor_format_size(self.format)
    }

    /// Its strides, the packed ones when none were given.
    pub fn effective_strides(&self) -> Vec<i64> {
        self.strides
            .clone()
            .unwrap_or_else(|| packed_strides(self.elem(), &self.dims))
    }

    /// Its description (pointing into `self`).
    pub fn description(&self) -> vk::TensorDescriptionARM {
        graph_description(
            self.tiling,
            self.format,
            &self.dims,
            self.strides.as_deref(),
        )
    }
}

/// A descriptor set layout of `resources`' tensor bindings (stage ALL) and a pipeline layout of
/// it.
///
/// # Panics
/// When the driver fails to create them.
pub fn layouts(
    device: &Device,
    resources: &[Resource],
) -> (vk::DescriptorSetLayout, vk::PipelineLayout) {
    let bindings: Vec<_> = resources
        .iter()
        .map(|r| {
            vk::DescriptorSetLayoutBinding::builder()
                .binding(r.binding)
                .descriptor_type(vk::DescriptorType::TENSOR_ARM)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::ALL)
                .build()
        })
        .collect();
    let info = vk::DescriptorSetLayoutCreateInfo::builder().bindings(&bindings);
    // SAFETY: valid create info on a live device.
    let set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
        .expect("vkCreateDescriptorSetLayout");
    let set_layouts = [set_layout];
    let info = vk::PipelineLayoutCreateInfo::builder().set_layouts(&set_layouts);
    // SAFETY: valid create info on a live device.
    let layout =
        unsafe { device.create_pipeline_layout(&info, None) }.expect("vkCreatePipelineLayout");
    (set_layout, layout)
}

/// A graph constant: (id, format, dims, packed little-endian data).
pub type Constant = (u32, vk::Format, Vec<i64>, Vec<u8>);

/// A `VkDataGraphPipelineCreateInfoARM` (with its shader-module info and creation feedback) and
/// everything it points to, boxed so that the pointers stay valid. The fields are public so
/// that a test can break one rule at a time.
#[derive(Debug)]
pub struct GraphInfo {
    /// The entry point's name, `main`.
    pub name: CString,
    /// The interface tensors' descriptions.
    pub descs: Vec<vk::TensorDescriptionARM>,
    /// One resource info per interface tensor.
    pub resources: Vec<vk::DataGraphPipelineResourceInfoARM>,
    /// The constants' descriptions.
    pub constant_descs: Vec<vk::TensorDescriptionARM>,
    /// The constants' dimensions.
    pub constant_dims: Vec<Vec<i64>>,
    /// The constants' data.
    pub constant_data: Vec<Vec<u8>>,
    /// The constants.
    pub constants: Vec<vk::DataGraphPipelineConstantARM>,
    /// The shader module info (its module is created by [`GraphInfo::new`]).
    pub shader_info: vk::DataGraphPipelineShaderModuleCreateInfoARM,
    /// Where the driver writes the pipeline's creation feedback.
    pub feedback: vk::PipelineCreationFeedback,
    /// The feedback's create info.
    pub feedback_info: vk::PipelineCreationFeedbackCreateInfo,
    /// The create info.
    pub info: vk::DataGraphPipelineCreateInfoARM,
    /// The resources (the descriptions point into their dimensions and strides).
    pub declared: Vec<Resource>,
}

impl GraphInfo {
    /// The create info of the graph module `words` (entry point `main`) with `layout`,
    /// `resources` and `constants`; creates the shader module.
    ///
    /// # Panics
    /// When the driver fails to create the shader module.
    pub fn new(
        device: &Device,
        words: &[u32],
        layout: vk::PipelineLayout,
        resources: &[Resource],
        constants: &[Constant],
    ) -> Box<Self> {
        let info = vk::ShaderModuleCreateInfo::builder()
            .code_size(words.len() * 4)
            .code(words);
        // SAFETY: valid create info on a live device.
        let module =
            unsafe { device.create_shader_module(&info, None) }.expect("vkCreateShaderModule");
        let mut g = Box::new(GraphInfo {
            name: CString::new("main").expect("no NUL"),
            descs: Vec::new(),
            resources: Vec::new(),
            constant_descs: Vec::new(),
            constant_dims: constants.iter().map(|c| c.2.clone()).collect(),
            constant_data: constants.iter().map(|c| c.3.clone()).collect(),
            constants: Vec::new(),
            shader_info: Default::default(),
            feedback: Default::default(),
            feedback_info: Default::default(),
            info: Default::default(),
            declared: resources.to_vec(),
        });
        g.descs = g.declared.iter().map(Resource::description).collect();
        g.resources = g
            .declared
            .iter()
            .zip(&g.descs)
            .map(|(r, d)| vk::DataGraphPipelineResourceInfoARM {
                next: (d as *const vk::TensorDescriptionARM).cast(),
                descriptor_set: 0,
                binding: r.binding,
                array_element: 0,
                ..Default::default()
            })
            .collect();
        g.constant_descs = g
            .constant_dims
            .iter()
            .zip(constants)
            .map(|(dims, c)| graph_description(vk::TensorTilingARM::LINEAR, c.1, dims, None))
            .collect();
        g.constants = constants
            .iter()
            .zip(&g.constant_descs)
            .zip(&g.constant_data)
            .map(|((c, d), data)| vk::DataGraphPipelineConstantARM {
                next: (d as *const vk::TensorDescriptionARM).cast(),
                id: c.0,
                constant_data: data.as_ptr().cast(),
                ..Default::default()
            })
            .collect();
        g.shader_info = vk::DataGraphPipelineShaderModuleCreateInfoARM {
            module,
            name: g.name.as_ptr(),
            constant_count: g.constants.len() as u32,
            constants: if g.constants.is_empty() {
                std::ptr::null()
            } else {
                g.constants.as_ptr()
            },
            ..Default::default()
        };
        g.feedback_info = vk::PipelineCreationFeedbackCreateInfo {
            next: (&g.shader_info as *const vk::DataGraphPipelineShaderModuleCreateInfoARM).cast(),
            pipeline_creation_feedback: &mut g.feedback,
            ..Default::default()
        };
        g.info = vk::DataGraphPipelineCreateInfoARM {
            next: (&g.feedback_info as *const vk::PipelineCreationFeedbackCreateInfo).cast(),
            layout,
            resource_info_count: g.resources.len() as u32,
            resource_infos: g.resources.as_ptr(),
            ..Default::default()
        };
        g
    }

    /// The same create info with `flags`.
    pub fn with_flags(mut self: Box<Self>, flags: vk::PipelineCreateFlags2) -> Box<Self> {
        self.info.flags = flags;
        self
    }

    /// The shader module [`GraphInfo::new`] created (the caller destroys it).
    pub fn module(&self) -> vk::ShaderModule {
        self.shader_info.module
    }
}

/// `vkCreateDataGraphPipelinesARM` through the raw command (no deferred operation, no
/// allocator): the result and the handles.
pub fn create_pipelines(
    device: &Device,
    cache: vk::PipelineCache,
    infos: &[vk::DataGraphPipelineCreateInfoARM],
) -> (vk::Result, Vec<vk::Pipeline>) {
    let mut out = vec![vk::Pipeline::null(); infos.len()];
    // SAFETY: create infos whose pointers the caller keeps alive, and room for their handles.
    let r = unsafe {
        (device.commands().create_data_graph_pipelines_arm)(
            device.handle(),
            vk::DeferredOperationKHR::null(),
            cache,
            infos.len() as u32,
            infos.as_ptr(),
            std::ptr::null(),
            out.as_mut_ptr(),
        )
    };
    (r, out)
}

/// A session create info (its 64-bit flags zeroed whole: vulkanalia declares them 32-bit).
pub fn session_info(pipeline: vk::Pipeline) -> vk::DataGraphPipelineSessionCreateInfoARM {
    let mut info = vk::DataGraphPipelineSessionCreateInfoARM {
        data_graph_pipeline: pipeline,
        ..Default::default()
    };
    write_flags64(
        &mut info,
        std::mem::offset_of!(vk::DataGraphPipelineSessionCreateInfoARM, flags),
        0,
    );
    info
}

/// A bind point's requirement, the memory size one of its objects asked for and the memory
/// bound there.
pub type BoundPoint = (
    vk::DataGraphPipelineSessionBindPointRequirementARM,
    u64,
    vk::DeviceMemory,
);

/// A session of `pipeline` with every object of every reported bind point bound to memory
/// from `allocate(requirements)`; also returns what was reported and bound.
///
/// # Panics
/// When the driver fails a call.
pub fn session(
    device: &Device,
    pipeline: vk::Pipeline,
    mut allocate: impl FnMut(vk::MemoryRequirements) -> vk::DeviceMemory,
) -> (vk::DataGraphPipelineSessionARM, Vec<BoundPoint>) {
    let info = session_info(pipeline);
    // SAFETY: valid create info on a live device.
    let session = unsafe { device.create_data_graph_pipeline_session_arm(&info, None) }
        .expect("vkCreateDataGraphPipelineSessionARM");
    let req_info = vk::DataGraphPipelineSessionBindPointRequirementsInfoARM {
        session,
        ..Default::default()
    };
    // SAFETY: valid info naming a live session.
    let reqs =
        unsafe { device.get_data_graph_pipeline_session_bind_point_requirements_arm(&req_info) }
            .expect("vkGetDataGraphPipelineSessionBindPointRequirementsARM");
    let mut out = Vec::new();
    for r in reqs {
        for object in 0..r.num_objects.max(1) {
            let mem_info = vk::DataGraphPipelineSessionMemoryRequirementsInfoARM {
                session,
                bind_point: r.bind_point,
                object_index: object,
                ..Default::default()
            };
            let mut req = vk::MemoryRequirements2::default();
            // SAFETY: valid structs naming a live session and a reported bind point.
            unsafe {
                device.get_data_graph_pipeline_session_memory_requirements_arm(&mem_info, &mut req)
            };
            let reqs = req.memory_requirements;
            if reqs.size == 0 {
                continue;
            }
            let memory = allocate(reqs);
            let bind = vk::BindDataGraphPipelineSessionMemoryInfoARM {
                session,
                bind_point: r.bind_point,
                object_index: object,
                memory,
                memory_offset: 0,
                ..Default::default()
            };
            // SAFETY: valid bind info; `memory` is as large as the requirement.
            unsafe { device.bind_data_graph_pipeline_session_memory_arm(&[bind]) }
                .expect("vkBindDataGraphPipelineSessionMemoryARM");
            out.push((r, reqs.size, memory));
        }
    }
    (session, out)
}

/// A descriptor pool with one set of `set_layout`, each `(binding, view)` written into it.
///
/// # Panics
/// When the driver fails a call.
pub fn tensor_set(
    device: &Device,
    set_layout: vk::DescriptorSetLayout,
    tensors: &[(u32, vk::TensorViewARM)],
) -> (vk::DescriptorPool, vk::DescriptorSet) {
    let descriptors: Vec<(u32, Descriptor)> = tensors
        .iter()
        .map(|&(binding, view)| (binding, Descriptor::Tensor(view)))
        .collect();
    descriptor_set(device, set_layout, &descriptors).expect("the tensor descriptor set")
}

/// Records binding `pipeline` and `set` (set 0 of `layout`) at the DATA_GRAPH bind point and
/// one `vkCmdDispatchDataGraphARM` of `session` into `cb`.
pub fn record_dispatch(
    device: &Device,
    cb: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    session: vk::DataGraphPipelineSessionARM,
) {
    // SAFETY: `cb` is recording; the handles are live objects of `device`.
    unsafe {
        device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::DATA_GRAPH_ARM, pipeline);
        device.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::DATA_GRAPH_ARM,
            layout,
            0,
            &[set],
            &[],
        );
        device.cmd_dispatch_data_graph_arm(cb, session, None);
    }
}
