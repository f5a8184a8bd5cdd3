//! Shader modules, pipeline caches, compute pipelines, and the commands that bind them and
//! dispatch: `vkCmdBindPipeline`, `vkCmdBindDescriptorSets`, `vkCmdPushConstants`,
//! `vkCmdDispatch`, `vkCmdDispatchBase`, `vkCmdDispatchIndirect`.

use std::ffi::{CStr, c_void};
use std::sync::Arc;

use tessera_runtime::cmd::{Command, ComputeState};
use tessera_runtime::descriptor::PipelineLayout;
use tessera_runtime::limits::MAX_COMPUTE_WORK_GROUP_COUNT;
use tessera_runtime::pipeline::{BoundSet, ComputePipeline, ShaderModule};
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::caps;
use crate::conv::{check_stype, cstr, deref, slice, write};
use crate::entry::buffer::buffer;
use crate::entry::command::command_buffer;
use crate::entry::descriptor::{descriptor_set, pipeline_layout};
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for ShaderModule {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_SHADER_MODULE;
    const NAME: &'static str = "VkShaderModule";
}

impl Object for ComputePipeline {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_PIPELINE;
    const NAME: &'static str = "VkPipeline";
}

/// A pipeline cache. Tessera specialises pipelines quickly enough that it keeps nothing; the
/// data it returns is the standard header, so applications can store and reload it.
#[derive(Debug)]
pub struct PipelineCache;

impl Object for PipelineCache {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_PIPELINE_CACHE;
    const NAME: &'static str = "VkPipelineCache";
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateShaderModule(
    device: VkDevice,
    pCreateInfo: *const VkShaderModuleCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pShaderModule: *mut VkShaderModule,
) -> VkResult {
    boundary::result("vkCreateShaderModule", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            "VUID-VkShaderModuleCreateInfo-sType-sType",
        )?;
        ensure!(
            info.codeSize % 4 == 0,
            "VUID-VkShaderModuleCreateInfo-codeSize-08735",
            "codeSize {} is not a multiple of 4",
            info.codeSize
        );
        let words = u32::try_from(info.codeSize / 4)
            .map_err(|_| Error::OutOfHostMemory("codeSize is too large".into()))?;
        // SAFETY: `codeSize` bytes of code per the spec.
        let code = unsafe { slice(info.pCode, words, "pCode")? };
        let h = handle::insert(Arc::new(ShaderModule::new(code.to_vec())?));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pShaderModule, "pShaderModule", VkShaderModule::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyShaderModule(
    _device: VkDevice,
    shaderModule: VkShaderModule,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyShaderModule", || {
        handle::remove::<ShaderModule>(shaderModule.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreatePipelineCache(
    device: VkDevice,
    pCreateInfo: *const VkPipelineCacheCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pPipelineCache: *mut VkPipelineCache,
) -> VkResult {
    boundary::result("vkCreatePipelineCache", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
            "VUID-VkPipelineCacheCreateInfo-sType-sType",
        )?;
        // Initial data from another driver or version is ignored, as the spec allows.
        let h = handle::insert(Arc::new(PipelineCache));
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pPipelineCache,
                "pPipelineCache",
                VkPipelineCache::from_raw(h),
            )?
        };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyPipelineCache(
    _device: VkDevice,
    pipelineCache: VkPipelineCache,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyPipelineCache", || {
        handle::remove::<PipelineCache>(pipelineCache.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetPipelineCacheData(
    device: VkDevice,
    pipelineCache: VkPipelineCache,
    pDataSize: *mut usize,
    pData: *mut c_void,
) -> VkResult {
    boundary::result("vkGetPipelineCacheData", || {
        self::device(device)?;
        handle::get::<PipelineCache>(pipelineCache.raw())?;
        let props = caps::properties();
        let mut header = Vec::with_capacity(32);
        header.extend_from_slice(&32u32.to_le_bytes());
        header.extend_from_slice(&(VK_PIPELINE_CACHE_HEADER_VERSION_ONE as u32).to_le_bytes());
        header.extend_from_slice(&props.vendorID.to_le_bytes());
        header.extend_from_slice(&props.deviceID.to_le_bytes());
        header.extend_from_slice(&props.pipelineCacheUUID);
        // SAFETY: valid per the spec (null rejected).
        let size = unsafe { crate::conv::deref_mut(pDataSize, "pDataSize")? };
        if pData.is_null() {
            *size = header.len();
            return Ok(VK_SUCCESS);
        }
        let n = (*size).min(header.len());
        // A partial header is not written (the spec: write nothing and return VK_INCOMPLETE).
        if n < header.len() {
            *size = 0;
            return Ok(VK_INCOMPLETE);
        }
        // SAFETY: `*pDataSize` writable bytes at `pData` per the spec.
        unsafe { std::ptr::copy_nonoverlapping(header.as_ptr(), pData.cast::<u8>(), n) };
        *size = n;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkMergePipelineCaches(
    device: VkDevice,
    dstCache: VkPipelineCache,
    srcCacheCount: u32,
    pSrcCaches: *const VkPipelineCache,
) -> VkResult {
    boundary::result("vkMergePipelineCaches", || {
        self::device(device)?;
        handle::get::<PipelineCache>(dstCache.raw())?;
        // SAFETY: `srcCacheCount` handles per the spec.
        for c in unsafe { slice(pSrcCaches, srcCacheCount, "pSrcCaches")? } {
            ensure!(
                *c != dstCache,
                "VUID-vkMergePipelineCaches-dstCache-00770",
                "dstCache is also a source"
            );
            handle::get::<PipelineCache>(c.raw())?;
        }
        Ok(VK_SUCCESS)
    })
}

/// Reads `VkSpecializationInfo` into (SpecId, bytes) pairs.
///
/// # Safety
/// `info` must be null or valid per the spec.
unsafe fn specialization(info: *const VkSpecializationInfo) -> Result<Vec<(u32, Vec<u8>)>> {
    if info.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: non-null, valid per the spec.
    let info = unsafe { &*info };
    // SAFETY: counts and arrays per the spec.
    let entries = unsafe { slice(info.pMapEntries, info.mapEntryCount, "pMapEntries")? };
    let data_len = u32::try_from(info.dataSize)
        .map_err(|_| Error::OutOfHostMemory("dataSize is too large".into()))?;
    // SAFETY: `dataSize` bytes per the spec.
    let data = unsafe { slice(info.pData.cast::<u8>(), data_len, "pData")? };
    entries
        .iter()
        .map(|e| {
            let end = (e.offset as usize).checked_add(e.size);
            ensure!(
                end.is_some_and(|end| end <= data.len()),
                "VUID-VkSpecializationInfo-offset-00773",
                "map entry for constant {} ({} bytes at {}) runs past dataSize {}",
                e.constantID,
                e.size,
                e.offset,
                data.len()
            );
            Ok((
                e.constantID,
                data[e.offset as usize..e.offset as usize + e.size].to_vec(),
            ))
        })
        .collect()
}

/// Creates one compute pipeline.
///
/// # Safety
/// `info` must be valid per the spec.
unsafe fn create_compute(info: &VkComputePipelineCreateInfo) -> Result<ComputePipeline> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        "VUID-VkComputePipelineCreateInfo-sType-sType",
    )?;
    let stage = &info.stage;
    check_stype(
        stage.sType,
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        "VUID-VkPipelineShaderStageCreateInfo-sType-sType",
    )?;
    ensure!(
        stage.stage == VK_SHADER_STAGE_COMPUTE_BIT,
        "VUID-VkComputePipelineCreateInfo-stage-00701",
        "stage {:#x} is not VK_SHADER_STAGE_COMPUTE_BIT",
        stage.stage
    );
    ensure!(
        !stage.module.is_null(),
        "VUID-VkPipelineShaderStageCreateInfo-stage-06845",
        "module is VK_NULL_HANDLE (inline VkShaderModuleCreateInfo is not supported)"
    );
    let module = handle::get::<ShaderModule>(stage.module.raw())?;
    // SAFETY: a NUL-terminated entry-point name per the spec.
    let name: &CStr = unsafe { cstr(stage.pName, "pName")? };
    let name = name.to_str().map_err(|_| {
        Error::invalid(
            "VUID-VkPipelineShaderStageCreateInfo-pName-00707",
            "pName is not UTF-8",
        )
    })?;
    // SAFETY: valid per the spec.
    let spec = unsafe { specialization(stage.pSpecializationInfo)? };
    ComputePipeline::new(&module, name, &spec, pipeline_layout(info.layout)?)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateComputePipelines(
    device: VkDevice,
    _pipelineCache: VkPipelineCache,
    createInfoCount: u32,
    pCreateInfos: *const VkComputePipelineCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pPipelines: *mut VkPipeline,
) -> VkResult {
    boundary::result("vkCreateComputePipelines", || {
        self::device(device)?;
        // SAFETY: `createInfoCount` structs per the spec.
        let infos = unsafe { slice(pCreateInfos, createInfoCount, "pCreateInfos")? };
        ensure!(
            !pPipelines.is_null() || infos.is_empty(),
            "VUID-vkCreateComputePipelines-pPipelines-parameter",
            "pPipelines is NULL"
        );
        let mut first_error = None;
        for (i, info) in infos.iter().enumerate() {
            // SAFETY: each is valid per the spec.
            let handle = match unsafe { create_compute(info) } {
                Ok(p) => VkPipeline::from_raw(handle::insert(Arc::new(p))),
                Err(e) => {
                    boundary::log_error("vkCreateComputePipelines", &e);
                    first_error.get_or_insert(e);
                    std::ptr::null_mut()
                }
            };
            // SAFETY: `createInfoCount` writable handles per the spec; failed ones are NULL.
            unsafe { pPipelines.add(i).write(handle) };
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(VK_SUCCESS),
        }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyPipeline(
    _device: VkDevice,
    pipeline: VkPipeline,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyPipeline", || {
        handle::remove::<ComputePipeline>(pipeline.raw()).map(|_| ())
    })
}

fn check_compute_bind_point(bind_point: VkPipelineBindPoint, vuid: &'static str) -> Result<()> {
    ensure!(
        bind_point == VK_PIPELINE_BIND_POINT_COMPUTE,
        vuid,
        "pipelineBindPoint {bind_point} is not VK_PIPELINE_BIND_POINT_COMPUTE (the only queue family is compute)"
    );
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdBindPipeline(
    commandBuffer: VkCommandBuffer,
    pipelineBindPoint: VkPipelineBindPoint,
    pipeline: VkPipeline,
) {
    boundary::void("vkCmdBindPipeline", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdBindPipeline", |state| {
            check_compute_bind_point(
                pipelineBindPoint,
                "VUID-vkCmdBindPipeline-pipelineBindPoint-00777",
            )?;
            state.pipeline = Some(handle::get::<ComputePipeline>(pipeline.raw())?);
            Ok(None)
        });
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdBindDescriptorSets(
    commandBuffer: VkCommandBuffer,
    pipelineBindPoint: VkPipelineBindPoint,
    layout: VkPipelineLayout,
    firstSet: u32,
    descriptorSetCount: u32,
    pDescriptorSets: *const VkDescriptorSet,
    dynamicOffsetCount: u32,
    pDynamicOffsets: *const u32,
) {
    boundary::void("vkCmdBindDescriptorSets", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdBindDescriptorSets", |state| {
            check_compute_bind_point(
                pipelineBindPoint,
                "VUID-vkCmdBindDescriptorSets-pipelineBindPoint-00361",
            )?;
            // SAFETY: counts and arrays per the spec.
            let (sets, offsets) = unsafe {
                (
                    slice(pDescriptorSets, descriptorSetCount, "pDescriptorSets")?,
                    slice(pDynamicOffsets, dynamicOffsetCount, "pDynamicOffsets")?,
                )
            };
            bind_descriptor_sets(state, pipeline_layout(layout)?, firstSet, sets, offsets)?;
            Ok(None)
        });
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdBindDescriptorSets2(
    commandBuffer: VkCommandBuffer,
    pBindDescriptorSetsInfo: *const VkBindDescriptorSetsInfo,
) {
    boundary::void("vkCmdBindDescriptorSets2", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdBindDescriptorSets2", |state| {
            // SAFETY: a valid struct per the spec.
            let info = unsafe { deref(pBindDescriptorSetsInfo, "pBindDescriptorSetsInfo")? };
            check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_BIND_DESCRIPTOR_SETS_INFO,
                "VUID-VkBindDescriptorSetsInfo-sType-sType",
            )?;
            ensure!(
                info.stageFlags != 0,
                "VUID-VkBindDescriptorSetsInfo-stageFlags-requiredbitmask",
                "stageFlags is 0"
            );
            ensure!(
                !info.layout.is_null(),
                "VUID-VkBindDescriptorSetsInfo-None-09495",
                "layout is VK_NULL_HANDLE (the dynamicPipelineLayout feature is not supported)"
            );
            // SAFETY: counts and arrays per the spec.
            let (sets, offsets) = unsafe {
                (
                    slice(
                        info.pDescriptorSets,
                        info.descriptorSetCount,
                        "pDescriptorSets",
                    )?,
                    slice(
                        info.pDynamicOffsets,
                        info.dynamicOffsetCount,
                        "pDynamicOffsets",
                    )?,
                )
            };
            let layout = pipeline_layout(info.layout)?;
            if info.stageFlags & VK_SHADER_STAGE_COMPUTE_BIT != 0 {
                bind_descriptor_sets(state, layout, info.firstSet, sets, offsets)?;
            }
            // Other stages have no bind point on this device: nothing to record for them.
            Ok(None)
        });
        Ok(())
    })
}

/// Validates and records a descriptor-set binding for the compute bind point (shared by
/// `vkCmdBindDescriptorSets` and `vkCmdBindDescriptorSets2`).
fn bind_descriptor_sets(
    state: &mut ComputeState,
    layout: Arc<PipelineLayout>,
    firstSet: u32,
    sets: &[VkDescriptorSet],
    offsets: &[u32],
) -> Result<()> {
    ensure!(
        u64::from(firstSet) + sets.len() as u64 <= layout.set_layouts.len() as u64,
        "VUID-vkCmdBindDescriptorSets-firstSet-00360",
        "sets {firstSet}..{} exceed the layout's {} set layouts",
        u64::from(firstSet) + sets.len() as u64,
        layout.set_layouts.len()
    );
    let mut next_offset = 0usize;
    for (i, h) in sets.iter().enumerate() {
        let index = firstSet as usize + i;
        if h.is_null() {
            continue;
        }
        let set = descriptor_set(*h)?;
        let compatible = layout.set_layouts[index].as_ref().is_some_and(|l| {
            Arc::ptr_eq(l, set.layout()) || l.bindings() == set.layout().bindings()
        });
        ensure!(
            compatible,
            "VUID-vkCmdBindDescriptorSets-pDescriptorSets-00358",
            "set {index}'s layout is not compatible with the pipeline layout's"
        );
        let dynamic = set.layout().dynamic_count() as usize;
        ensure!(
            next_offset + dynamic <= offsets.len(),
            "VUID-vkCmdBindDescriptorSets-dynamicOffsetCount-00359",
            "dynamicOffsetCount {} is less than the sets' dynamic descriptors",
            offsets.len()
        );
        let dynamic_offsets = offsets[next_offset..next_offset + dynamic].to_vec();
        ensure!(
            dynamic_offsets.iter().all(|o| o % 16 == 0),
            "VUID-vkCmdBindDescriptorSets-pDynamicOffsets-01971",
            "a dynamic offset is not a multiple of the minimum offset alignment (16)"
        );
        next_offset += dynamic;
        if state.sets.len() <= index {
            state.sets.resize(index + 1, None);
        }
        state.sets[index] = Some(BoundSet {
            set,
            dynamic_offsets,
        });
    }
    ensure!(
        next_offset == offsets.len(),
        "VUID-vkCmdBindDescriptorSets-dynamicOffsetCount-00359",
        "dynamicOffsetCount {} differs from the sets' {} dynamic descriptors",
        offsets.len(),
        next_offset
    );
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdPushConstants(
    commandBuffer: VkCommandBuffer,
    layout: VkPipelineLayout,
    stageFlags: VkShaderStageFlags,
    offset: u32,
    size: u32,
    pValues: *const c_void,
) {
    boundary::void("vkCmdPushConstants", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdPushConstants", |state| {
            // SAFETY: `pValues` holds `size` bytes per the spec.
            unsafe { push_constants(state, layout, stageFlags, offset, size, pValues)? };
            Ok(None)
        });
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdPushConstants2(
    commandBuffer: VkCommandBuffer,
    pPushConstantsInfo: *const VkPushConstantsInfo,
) {
    boundary::void("vkCmdPushConstants2", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdPushConstants2", |state| {
            // SAFETY: a valid struct per the spec.
            let info = unsafe { deref(pPushConstantsInfo, "pPushConstantsInfo")? };
            check_stype(
                info.sType,
                VK_STRUCTURE_TYPE_PUSH_CONSTANTS_INFO,
                "VUID-VkPushConstantsInfo-sType-sType",
            )?;
            ensure!(
                !info.layout.is_null(),
                "VUID-VkPushConstantsInfo-None-09495",
                "layout is VK_NULL_HANDLE (the dynamicPipelineLayout feature is not supported)"
            );
            // SAFETY: `pValues` holds `size` bytes per the spec.
            unsafe {
                push_constants(
                    state,
                    info.layout,
                    info.stageFlags,
                    info.offset,
                    info.size,
                    info.pValues,
                )?;
            }
            Ok(None)
        });
        Ok(())
    })
}

/// Validates and records a push-constant update (shared by `vkCmdPushConstants` and
/// `vkCmdPushConstants2`; the VUIDs are those of the first, the second has the same rules).
///
/// # Safety
/// `pValues` must point to `size` readable bytes (the entry points' contract).
unsafe fn push_constants(
    state: &mut ComputeState,
    layout: VkPipelineLayout,
    stageFlags: VkShaderStageFlags,
    offset: u32,
    size: u32,
    pValues: *const c_void,
) -> Result<()> {
    let layout = pipeline_layout(layout)?;
    ensure!(
        stageFlags != 0,
        "VUID-vkCmdPushConstants-stageFlags-requiredbitmask",
        "stageFlags is 0"
    );
    ensure!(
        offset % 4 == 0 && size % 4 == 0 && size > 0,
        "VUID-vkCmdPushConstants-offset-00368",
        "offset {offset} and size {size} must be non-zero multiples of 4"
    );
    let end = u64::from(offset) + u64::from(size);
    let covered = layout.push_ranges.iter().any(|r| {
        r.stages & stageFlags == stageFlags
            && r.offset <= offset
            && end <= u64::from(r.offset) + u64::from(r.size)
    });
    ensure!(
        covered,
        "VUID-vkCmdPushConstants-offset-01795",
        "bytes {offset}..{end} for stages {stageFlags:#x} are not inside one of the layout's push-constant ranges"
    );
    // SAFETY: `size` bytes (this function's contract).
    let bytes = unsafe { slice(pValues.cast::<u8>(), size, "pValues")? };
    if state.push.len() < end as usize {
        state.push.resize(end as usize, 0);
    }
    state.push[offset as usize..end as usize].copy_from_slice(bytes);
    Ok(())
}

fn check_counts(count: [u32; 3], base: [u32; 3]) -> Result<()> {
    for axis in 0..3 {
        let end = u64::from(base[axis]) + u64::from(count[axis]);
        ensure!(
            end <= u64::from(MAX_COMPUTE_WORK_GROUP_COUNT[axis]),
            "VUID-vkCmdDispatch-groupCountX-00386",
            "workgroups {}..{end} on axis {axis} exceed maxComputeWorkGroupCount {}",
            base[axis],
            MAX_COMPUTE_WORK_GROUP_COUNT[axis]
        );
    }
    Ok(())
}

fn dispatch(commandBuffer: VkCommandBuffer, name: &'static str, base: [u32; 3], count: [u32; 3]) {
    boundary::void(name, || {
        command_buffer(commandBuffer)?.record_compute(name, |state| {
            check_counts(count, base)?;
            Ok(Some(Command::Dispatch {
                state: Box::new(state.dispatch_state()?),
                base,
                count,
            }))
        });
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdDispatch(
    commandBuffer: VkCommandBuffer,
    groupCountX: u32,
    groupCountY: u32,
    groupCountZ: u32,
) {
    dispatch(
        commandBuffer,
        "vkCmdDispatch",
        [0; 3],
        [groupCountX, groupCountY, groupCountZ],
    )
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdDispatchBase(
    commandBuffer: VkCommandBuffer,
    baseGroupX: u32,
    baseGroupY: u32,
    baseGroupZ: u32,
    groupCountX: u32,
    groupCountY: u32,
    groupCountZ: u32,
) {
    dispatch(
        commandBuffer,
        "vkCmdDispatchBase",
        [baseGroupX, baseGroupY, baseGroupZ],
        [groupCountX, groupCountY, groupCountZ],
    )
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCmdDispatchIndirect(
    commandBuffer: VkCommandBuffer,
    buffer: VkBuffer,
    offset: VkDeviceSize,
) {
    boundary::void("vkCmdDispatchIndirect", || {
        command_buffer(commandBuffer)?.record_compute("vkCmdDispatchIndirect", |state| {
            let buf = self::buffer(buffer)?;
            ensure!(
                offset % 4 == 0,
                "VUID-vkCmdDispatchIndirect-offset-02710",
                "offset {offset} is not a multiple of 4"
            );
            buf.check_range(offset, 12, "VUID-vkCmdDispatchIndirect-offset-00407")?;
            ensure!(
                buf.usage() & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT as u64 != 0,
                "VUID-vkCmdDispatchIndirect-buffer-02709",
                "buffer lacks VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT"
            );
            buf.bound("VUID-vkCmdDispatchIndirect-buffer-02708")?;
            Ok(Some(Command::DispatchIndirect {
                state: Box::new(state.dispatch_state()?),
                buffer: buf,
                offset,
            }))
        });
        Ok(())
    })
}
