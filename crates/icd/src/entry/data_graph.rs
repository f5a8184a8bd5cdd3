//! `VK_ARM_data_graph`: data graph pipelines, sessions and their memory, the dispatch command,
//! pipeline properties and the queue-family queries; and `VK_KHR_deferred_host_operations`, its
//! dependency (the rules are the runtime's, [`tessera_runtime::data_graph`]).
//!
//! The one thing done here rather than in the runtime is reading `pConstantData`: its size
//! follows from the constant's tensor description, which the runtime checks first
//! ([`constant_footprint`]).

use std::sync::{Arc, OnceLock};

use tessera_runtime::cmd::Recorder;
use tessera_runtime::data_graph::{
    Created, DataGraphPipeline, DataGraphSession, PROPERTIES, TOSA_EXTENSIONS, TOSA_PROFILES,
    TosaClaim, constant_footprint,
};
use tessera_runtime::deferred::DeferredOperation;
use tessera_runtime::device::Device;
use tessera_runtime::memory::MemoryRequirements;
use tessera_runtime::physical_device::PhysicalDevice;
use tessera_runtime::pipeline::{Pipeline, PipelineCache};
use tessera_runtime::vk::abi::*;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{copy_cstr_str, deref_mut, enumerate, write_handle};
use crate::entry::buffer::write_requirements2;
use crate::handle;

/// The operation set every data graph queue family supports.
const TOSA_SET: &str = "TOSA.001000.1";

/// Copies each constant's data (`constant_footprint` bytes at `pConstantData`).
///
/// # Safety
/// Each constant's `pConstantData` must point to the bytes its description implies (the spec's
/// rule for `VkDataGraphPipelineConstantARM`).
unsafe fn constant_data(
    device: &Device,
    info: &vk::DataGraphPipelineCreateInfoARM,
) -> Result<Vec<Vec<u8>>> {
    let Some(sm) = &info.data_graph_pipeline_shader_module_create_info_arm else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for c in sm.constants.as_deref().unwrap_or(&[]) {
        let size = constant_footprint(device, c)?;
        let size = usize::try_from(size)
            .map_err(|_| Error::OutOfHostMemory("constant larger than the address space".into()))?;
        let mut data = Vec::new();
        data.try_reserve_exact(size)
            .map_err(|_| Error::OutOfHostMemory(format!("{size} bytes of graph constant")))?;
        // SAFETY: the caller contract: `size` readable bytes at the non-null `pConstantData`
        // (checked by `constant_footprint`).
        data.extend_from_slice(unsafe {
            std::slice::from_raw_parts(c.constant_data as *const u8, size)
        });
        out.push(data);
    }
    Ok(out)
}

/// Writes a `VkPipelineCreationFeedback` to a chained `VkPipelineCreationFeedbackCreateInfo`.
///
/// # Safety
/// The chained struct's pointers must be valid as the spec says.
unsafe fn write_feedback(
    info: &vk::DataGraphPipelineCreateInfoARM,
    cache_hit: bool,
    duration: std::time::Duration,
) -> Result<()> {
    let Some(fb) = &info.pipeline_creation_feedback_create_info else {
        return Ok(());
    };
    ensure!(
        fb.pipeline_stage_creation_feedback_count == 0,
        "VUID-VkDataGraphPipelineCreateInfoARM-pNext-09804",
        "a data graph pipeline has no stages: pipelineStageCreationFeedbackCount must be 0"
    );
    let flags = VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT
        | if cache_hit {
            VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT
        } else {
            0
        };
    let p = fb.pipeline_creation_feedback as *mut VkPipelineCreationFeedback;
    // SAFETY: a valid pointer per the spec (null rejected).
    let out = unsafe { deref_mut(p, "pPipelineCreationFeedback")? };
    out.flags = flags as VkPipelineCreationFeedbackFlags;
    out.duration = duration.as_nanos().min(u128::from(u64::MAX)) as u64;
    Ok(())
}

pub(crate) unsafe fn create_data_graph_pipelines_arm(
    device: Arc<Device>,
    deferred: Option<Arc<DeferredOperation>>,
    cache: Option<Arc<PipelineCache>>,
    _count: u32,
    infos: Vec<vk::DataGraphPipelineCreateInfoARM>,
    out: *mut VkPipeline,
) -> Result<VkResult> {
    ensure!(
        deferred.is_none(),
        "VUID-vkCreateDataGraphPipelinesARM-deferredOperation-09761",
        "deferredOperation must be VK_NULL_HANDLE"
    );
    if out.is_null() && !infos.is_empty() {
        return Err(Error::invalid(
            "VUID-vkCreateDataGraphPipelinesARM-pPipelines-parameter",
            "pPipelines is NULL",
        ));
    }
    for i in 0..infos.len() {
        // SAFETY: `createInfoCount` writable handles per the spec.
        unsafe { out.add(i).write(std::ptr::null_mut()) };
    }
    let mut result = VK_SUCCESS;
    let mut first_error = None;
    for (i, info) in infos.iter().enumerate() {
        // SAFETY: the constants' data pointers are valid per the spec.
        let created = unsafe { constant_data(&device, info) }
            .and_then(|data| DataGraphPipeline::create(&device, cache.as_deref(), info, &data));
        let failed = match created {
            Ok(Created::Pipeline {
                pipeline,
                cache_hit,
                duration,
            }) => {
                // SAFETY: the feedback pointers are valid per the spec.
                if let Err(e) = unsafe { write_feedback(info, cache_hit, duration) } {
                    boundary::log_error("vkCreateDataGraphPipelinesARM", &e);
                    first_error.get_or_insert(e);
                    true
                } else {
                    let h = handle::insert(Arc::new(Pipeline::DataGraph(pipeline)));
                    // SAFETY: as above.
                    unsafe { out.add(i).write(h as usize as VkPipeline) };
                    false
                }
            }
            Ok(Created::CompileRequired) => {
                result = VK_PIPELINE_COMPILE_REQUIRED;
                true
            }
            Err(e) => {
                boundary::log_error("vkCreateDataGraphPipelinesARM", &e);
                first_error.get_or_insert(e);
                true
            }
        };
        if failed && info.flags & VK_PIPELINE_CREATE_2_EARLY_RETURN_ON_FAILURE_BIT != 0 {
            break;
        }
    }
    first_error.map_or(Ok(result), Err)
}

pub(crate) unsafe fn create_data_graph_pipeline_session_arm(
    device: Arc<Device>,
    info: vk::DataGraphPipelineSessionCreateInfoARM,
    out: *mut VkDataGraphPipelineSessionARM,
) -> Result<VkResult> {
    let session = Arc::new(DataGraphSession::create(&device, &info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pSession", handle::insert(session))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_data_graph_pipeline_session_bind_point_requirements_arm(
    _device: Arc<Device>,
    info: vk::DataGraphPipelineSessionBindPointRequirementsInfoARM,
    count: *mut u32,
    out: *mut VkDataGraphPipelineSessionBindPointRequirementARM,
) -> Result<VkResult> {
    let reqs = info.session.bind_point_requirements();
    // SAFETY: the two-call contract; elements are valid structs whose sType/pNext are kept.
    unsafe {
        enumerate(count, out, reqs.len(), |i, p| {
            p.bindPoint = reqs[i].bind_point;
            p.bindPointType = VK_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_TYPE_MEMORY_ARM;
            p.numObjects = reqs[i].objects;
        })
    }
}

pub(crate) unsafe fn get_data_graph_pipeline_session_memory_requirements_arm(
    _device: Arc<Device>,
    info: vk::DataGraphPipelineSessionMemoryRequirementsInfoARM,
    out: *mut VkMemoryRequirements2,
) -> Result<()> {
    let (size, alignment) = info
        .session
        .memory_requirements(info.bind_point, info.object_index)?;
    // SAFETY: forwarded.
    unsafe { write_requirements2(out, MemoryRequirements { size, alignment }) }
}

pub(crate) fn bind_data_graph_pipeline_session_memory_arm(
    _device: Arc<Device>,
    infos: Vec<vk::BindDataGraphPipelineSessionMemoryInfoARM>,
) -> Result<VkResult> {
    for info in infos {
        info.session.bind(
            info.bind_point,
            info.object_index,
            info.memory,
            info.memory_offset,
        )?;
    }
    Ok(VK_SUCCESS)
}

pub(crate) fn cmd_dispatch_data_graph_arm(
    rec: &mut Recorder,
    session: Arc<DataGraphSession>,
    info: Option<vk::DataGraphPipelineDispatchInfoARM>,
) -> Result<()> {
    rec.dispatch_data_graph(session, info.as_ref())
}

fn data_graph(info: &vk::DataGraphPipelineInfoARM) -> Result<&DataGraphPipeline> {
    info.data_graph_pipeline.data_graph().ok_or_else(|| {
        Error::invalid(
            "VUID-VkDataGraphPipelineInfoARM-dataGraphPipeline-09803",
            "dataGraphPipeline is not a data graph pipeline",
        )
    })
}

pub(crate) unsafe fn get_data_graph_pipeline_available_properties_arm(
    _device: Arc<Device>,
    info: vk::DataGraphPipelineInfoARM,
    count: *mut u32,
    out: *mut VkDataGraphPipelinePropertyARM,
) -> Result<VkResult> {
    data_graph(&info)?;
    // SAFETY: the two-call contract.
    unsafe { crate::conv::enumerate_copy(count, out, &PROPERTIES) }
}

pub(crate) unsafe fn get_data_graph_pipeline_properties_arm(
    _device: Arc<Device>,
    info: vk::DataGraphPipelineInfoARM,
    count: u32,
    out: *mut VkDataGraphPipelinePropertyQueryResultARM,
) -> Result<VkResult> {
    let pipeline = data_graph(&info)?;
    if count == 0 {
        return Ok(VK_SUCCESS);
    }
    ensure!(
        !out.is_null(),
        "VUID-vkGetDataGraphPipelinePropertiesARM-pProperties-parameter",
        "pProperties is NULL"
    );
    // SAFETY: `propertiesCount` valid structs per the spec.
    let results = unsafe { std::slice::from_raw_parts_mut(out, count as usize) };
    for (i, r) in results.iter().enumerate() {
        ensure!(
            r.sType == VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_PROPERTY_QUERY_RESULT_ARM,
            "VUID-VkDataGraphPipelinePropertyQueryResultARM-sType-sType",
            "pProperties[{i}].sType is {}",
            r.sType
        );
        ensure!(
            !results[..i].iter().any(|o| o.property == r.property),
            "VUID-vkGetDataGraphPipelinePropertiesARM-pProperties-09802",
            "property {} is queried twice",
            r.property
        );
        ensure!(
            pipeline.property(r.property).is_some(),
            "VUID-vkGetDataGraphPipelinePropertiesARM-pProperties-09889",
            "property {} is not one vkGetDataGraphPipelineAvailablePropertiesARM reports",
            r.property
        );
    }
    let mut result = VK_SUCCESS;
    for r in results.iter_mut() {
        let Some((text, bytes)) = pipeline.property(r.property) else {
            continue;
        };
        let needed = bytes.len() + usize::from(text);
        r.isText = VkBool32::from(text);
        if r.pData.is_null() {
            r.dataSize = needed;
            continue;
        }
        let room = r.dataSize;
        let n = if text {
            room.saturating_sub(1).min(bytes.len())
        } else {
            room.min(bytes.len())
        };
        let dst = r.pData.cast::<u8>();
        // SAFETY: `dataSize` writable bytes at `pData` per the spec; `n` (+ the NUL) ≤ `dataSize`.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n);
            if text && room > 0 {
                dst.add(n).write(0);
            }
        }
        r.dataSize = n + usize::from(text && room > 0);
        if r.dataSize < needed {
            result = VK_INCOMPLETE;
        }
    }
    Ok(result)
}

pub(crate) unsafe fn get_physical_device_queue_family_data_graph_properties_arm(
    pd: Arc<PhysicalDevice>,
    family: u32,
    count: *mut u32,
    out: *mut VkQueueFamilyDataGraphPropertiesARM,
) -> Result<VkResult> {
    ensure!(
        (family as usize) < pd.queue_families().len(),
        "VUID-vkGetPhysicalDeviceQueueFamilyDataGraphPropertiesARM-queueFamilyIndex-09771",
        "queueFamilyIndex {family} is not a queue family of the device"
    );
    // SAFETY: the two-call contract; elements are valid structs whose sType/pNext are kept.
    unsafe {
        enumerate(count, out, 1, |_, p| {
            p.engine.typ = VK_PHYSICAL_DEVICE_DATA_GRAPH_PROCESSING_ENGINE_TYPE_DEFAULT_ARM;
            p.engine.isForeign = VK_FALSE;
            p.operation.operationType =
                VK_PHYSICAL_DEVICE_DATA_GRAPH_OPERATION_TYPE_SPIRV_EXTENDED_INSTRUCTION_SET_ARM;
            p.operation.name =
                [0; VK_MAX_PHYSICAL_DEVICE_DATA_GRAPH_OPERATION_SET_NAME_SIZE_ARM as usize];
            copy_cstr_str(&mut p.operation.name, TOSA_SET);
            p.operation.version = 0;
        })
    }
}

pub(crate) unsafe fn get_physical_device_queue_family_data_graph_processing_engine_properties_arm(
    pd: Arc<PhysicalDevice>,
    info: vk::PhysicalDeviceQueueFamilyDataGraphProcessingEngineInfoARM,
    out: *mut VkQueueFamilyDataGraphProcessingEnginePropertiesARM,
) -> Result<()> {
    ensure!(
        (info.queue_family_index as usize) < pd.queue_families().len(),
        "VUID-VkPhysicalDeviceQueueFamilyDataGraphProcessingEngineInfoARM-queueFamilyIndex-09925",
        "queueFamilyIndex {} is not a queue family of the device",
        info.queue_family_index
    );
    // SAFETY: a valid struct per the spec.
    let out = unsafe { deref_mut(out, "pQueueFamilyDataGraphProcessingEngineProperties")? };
    // The default engine is not foreign: it imports no memory or semaphores.
    out.foreignSemaphoreHandleTypes = 0;
    out.foreignMemoryHandleTypes = 0;
    Ok(())
}

pub(crate) unsafe fn create_deferred_operation_khr(
    _device: Arc<Device>,
    out: *mut VkDeferredOperationKHR,
) -> Result<VkResult> {
    // SAFETY: a valid out pointer per the spec.
    unsafe {
        write_handle(
            out,
            "pDeferredOperation",
            handle::insert(Arc::new(DeferredOperation)),
        )?
    };
    Ok(VK_SUCCESS)
}

pub(crate) fn get_deferred_operation_max_concurrency_khr(
    _device: Arc<Device>,
    operation: Arc<DeferredOperation>,
) -> Result<u32> {
    Ok(operation.max_concurrency())
}

pub(crate) fn get_deferred_operation_result_khr(
    _device: Arc<Device>,
    _operation: Arc<DeferredOperation>,
) -> Result<VkResult> {
    Ok(VK_SUCCESS)
}

pub(crate) fn deferred_operation_join_khr(
    _device: Arc<Device>,
    _operation: Arc<DeferredOperation>,
) -> Result<VkResult> {
    Ok(VK_SUCCESS)
}

/// The profile and extension lists `VkQueueFamilyDataGraphTOSAPropertiesARM` points to: owned
/// by the driver, alive for the process.
fn tosa_names(claims: &'static [TosaClaim]) -> &'static [VkDataGraphTOSANameQualityARM] {
    static PROFILES: OnceLock<Vec<VkDataGraphTOSANameQualityARM>> = OnceLock::new();
    static EXTENSIONS: OnceLock<Vec<VkDataGraphTOSANameQualityARM>> = OnceLock::new();
    let make = || {
        claims
            .iter()
            .map(|c| {
                let mut e = VkDataGraphTOSANameQualityARM {
                    name: [0; VK_MAX_DATA_GRAPH_TOSA_NAME_SIZE_ARM as usize],
                    qualityFlags: c.quality,
                };
                copy_cstr_str(&mut e.name, c.name);
                e
            })
            .collect()
    };
    let lock = if std::ptr::eq(claims, TOSA_PROFILES) {
        &PROFILES
    } else {
        &EXTENSIONS
    };
    lock.get_or_init(make)
}

pub(crate) unsafe fn get_physical_device_queue_family_data_graph_engine_operation_properties_arm(
    pd: Arc<PhysicalDevice>,
    family: u32,
    pair: vk::QueueFamilyDataGraphPropertiesARM,
    out: *mut VkBaseOutStructure,
) -> Result<VkResult> {
    ensure!(
        (family as usize) < pd.queue_families().len(),
        "VUID-vkGetPhysicalDeviceQueueFamilyDataGraphEngineOperationPropertiesARM-queueFamilyIndex-11331",
        "queueFamilyIndex {family} is not a queue family of the device"
    );
    let op = &pair.operation;
    ensure!(
        pair.engine.ty == VK_PHYSICAL_DEVICE_DATA_GRAPH_PROCESSING_ENGINE_TYPE_DEFAULT_ARM
            && !pair.engine.is_foreign
            && op.operation_type
                == VK_PHYSICAL_DEVICE_DATA_GRAPH_OPERATION_TYPE_SPIRV_EXTENDED_INSTRUCTION_SET_ARM
            && op.name == TOSA_SET
            && op.version == 0,
        "VUID-vkGetPhysicalDeviceQueueFamilyDataGraphEngineOperationPropertiesARM-pQueueFamilyDataGraphProperties-11332",
        "the engine/operation pair ({:?} version {}) is not one vkGetPhysicalDeviceQueueFamilyDataGraphPropertiesARM reports",
        op.name,
        op.version
    );
    // SAFETY: a valid struct per the spec (null rejected).
    let base = unsafe { deref_mut(out, "pProperties")? };
    ensure!(
        base.sType == VK_STRUCTURE_TYPE_QUEUE_FAMILY_DATA_GRAPH_TOSA_PROPERTIES_ARM,
        "VUID-vkGetPhysicalDeviceQueueFamilyDataGraphEngineOperationPropertiesARM-pProperties-11333",
        "for the TOSA.001000.1 set pProperties must be a VkQueueFamilyDataGraphTOSAPropertiesARM (sType {}), not sType {}",
        VK_STRUCTURE_TYPE_QUEUE_FAMILY_DATA_GRAPH_TOSA_PROPERTIES_ARM,
        base.sType
    );
    let props = (base as *mut VkBaseOutStructure).cast::<VkQueueFamilyDataGraphTOSAPropertiesARM>();
    let (profiles, extensions) = (tosa_names(TOSA_PROFILES), tosa_names(TOSA_EXTENSIONS));
    // SAFETY: the sType says the application's struct is a VkQueueFamilyDataGraphTOSAPropertiesARM;
    // its sType and pNext are kept.
    unsafe {
        (*props).profileCount = profiles.len() as u32;
        (*props).pProfiles = profiles.as_ptr();
        (*props).extensionCount = extensions.len() as u32;
        (*props).pExtensions = extensions.as_ptr();
        (*props).level = VK_DATA_GRAPH_TOSA_LEVEL_8K_ARM;
    }
    Ok(VK_SUCCESS)
}
