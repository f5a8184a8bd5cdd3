//! The `vkCmd*` rules: a [`Recorder`] is what a command buffer in the recording state hands each
//! command. Every method checks the command's valid-usage rules (against the physical device's
//! limits and the state bound so far) and appends what the executor will run; barriers are
//! checked and record nothing (one queue's commands run in order on one thread).

use std::sync::Arc;

use vulkan_headers::vulkan::vulkan_core::*;

use super::{BufferCopy, Command, ComputeState, Level, TensorCopy};
use crate::buffer::Buffer;
use crate::data_graph::DataGraphSession;
use crate::descriptor::{DescriptorSet, PipelineLayout};
use crate::limits::MAX_UPDATE_BUFFER_SIZE;
use crate::physical_device::PhysicalDevice;
use crate::pipeline::{BoundSet, Pipeline};
use crate::query::{QueryPool, ResultFlags};
use crate::sync::Event;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// What a command being recorded may read and change.
#[derive(Debug)]
pub struct Recorder<'a> {
    pub(super) level: Level,
    pub(super) physical: &'a PhysicalDevice,
    pub(super) commands: &'a mut Vec<Command>,
    pub(super) compute: &'a mut ComputeState,
}

/// `vkCmdUpdateBuffer`'s size rule, checked before the ICD reads `pData`: the payload it returns
/// the length of is at most 65536 bytes.
///
/// # Errors
/// `Validation` (VUID-vkCmdUpdateBuffer-dataSize-00037).
pub fn check_update_size(size: u64) -> Result<usize> {
    ensure!(
        size <= MAX_UPDATE_BUFFER_SIZE,
        "VUID-vkCmdUpdateBuffer-dataSize-00037",
        "dataSize {size} exceeds 65536"
    );
    Ok(size as usize)
}

/// The bind points the queue family supports: compute and data graph.
fn check_bind_point(bind_point: VkPipelineBindPoint, vuid: &'static str) -> Result<()> {
    ensure!(
        bind_point == VK_PIPELINE_BIND_POINT_COMPUTE
            || bind_point == VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM,
        vuid,
        "pipelineBindPoint {bind_point} is neither COMPUTE nor DATA_GRAPH_ARM (the only queue family is COMPUTE | TRANSFER | DATA_GRAPH)"
    );
    Ok(())
}

/// Checks the buffer barriers of a dependency: buffers bound ranges inside them.
fn check_buffer_barrier(buffer: &Buffer, offset: u64, size: u64) -> Result<()> {
    ensure!(
        offset < buffer.size(),
        "VUID-VkBufferMemoryBarrier2-offset-01187",
        "barrier offset {offset} is not less than the buffer size {}",
        buffer.size()
    );
    if size != VK_WHOLE_SIZE {
        buffer.check_range(offset, size, "VUID-VkBufferMemoryBarrier2-size-01189")?;
    }
    Ok(())
}

fn check_no_images(count: usize, vuid: &'static str) -> Result<()> {
    ensure!(
        count == 0,
        vuid,
        "image memory barriers name images, and no image can exist"
    );
    Ok(())
}

/// `vkCmdPipelineBarrier` / `vkCmdWaitEvents` barrier arrays.
fn check_barriers(
    buffers: &[vk::BufferMemoryBarrier],
    images: &[vk::ImageMemoryBarrier],
) -> Result<()> {
    for b in buffers {
        check_buffer_barrier(&b.buffer, b.offset, b.size)?;
    }
    check_no_images(images.len(), "VUID-VkImageMemoryBarrier-image-parameter")
}

/// Checks a `VkDependencyInfo`: its buffer barriers, no image barrier, and the tensor barriers
/// chained to it (one `VkTensorMemoryBarrierARM` or a `VkTensorDependencyInfoARM`) naming bound
/// tensors with valid queue family indices.
fn check_dependency(info: &vk::DependencyInfo) -> Result<()> {
    for b in &info.buffer_memory_barriers {
        check_buffer_barrier(&b.buffer, b.offset, b.size)?;
    }
    check_no_images(
        info.image_memory_barriers.len(),
        "VUID-VkImageMemoryBarrier2-image-parameter",
    )?;
    let tensors: &[vk::TensorMemoryBarrierARM] = match (
        &info.tensor_memory_barrier_arm,
        &info.tensor_dependency_info_arm,
    ) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid(
                "VUID-VkDependencyInfo-pNext-09754",
                "both a VkTensorDependencyInfoARM and a VkTensorMemoryBarrierARM are chained",
            ));
        }
        (Some(b), None) => std::slice::from_ref(b),
        (None, Some(d)) => &d.tensor_memory_barriers,
        (None, None) => &[],
    };
    for b in tensors {
        b.tensor
            .bound("VUID-VkTensorMemoryBarrierARM-tensor-09758")?;
        let valid =
            |f: u32| f == VK_QUEUE_FAMILY_IGNORED || f == 0 || f == VK_QUEUE_FAMILY_EXTERNAL;
        ensure!(
            valid(b.src_queue_family_index) && valid(b.dst_queue_family_index),
            "VUID-VkTensorMemoryBarrierARM-tensor-09756",
            "queue family indices {} / {} are neither VK_QUEUE_FAMILY_IGNORED nor a queue family",
            b.src_queue_family_index,
            b.dst_queue_family_index
        );
    }
    Ok(())
}

impl Recorder<'_> {
    /// Primary or secondary.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Appends a command whose rules were checked.
    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// `vkCmdCopyBuffer`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_buffer(
        &mut self,
        src: Arc<Buffer>,
        dst: Arc<Buffer>,
        regions: &[vk::BufferCopy],
    ) -> Result<()> {
        let regions = regions
            .iter()
            .map(|r| BufferCopy {
                src_offset: r.src_offset,
                dst_offset: r.dst_offset,
                size: r.size,
            })
            .collect();
        self.push(Command::copy_buffer(src, dst, regions)?);
        Ok(())
    }

    /// `vkCmdCopyBuffer2` (the rules of `vkCmdCopyBuffer`).
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_buffer2(&mut self, info: vk::CopyBufferInfo2) -> Result<()> {
        let regions = info
            .regions
            .iter()
            .map(|r| BufferCopy {
                src_offset: r.src_offset,
                dst_offset: r.dst_offset,
                size: r.size,
            })
            .collect();
        self.push(Command::copy_buffer(
            info.src_buffer,
            info.dst_buffer,
            regions,
        )?);
        Ok(())
    }

    /// `vkCmdFillBuffer` (`VK_WHOLE_SIZE` fills to the last multiple of 4).
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn fill_buffer(
        &mut self,
        dst: Arc<Buffer>,
        offset: u64,
        size: u64,
        data: u32,
    ) -> Result<()> {
        let size = (size != VK_WHOLE_SIZE).then_some(size);
        self.push(Command::fill_buffer(dst, offset, size, data)?);
        Ok(())
    }

    /// `vkCmdUpdateBuffer`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn update_buffer(&mut self, dst: Arc<Buffer>, offset: u64, data: Vec<u8>) -> Result<()> {
        self.push(Command::update_buffer(dst, offset, data)?);
        Ok(())
    }

    /// `vkCmdPipelineBarrier`: checked, nothing recorded.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn pipeline_barrier(
        &mut self,
        buffers: &[vk::BufferMemoryBarrier],
        images: &[vk::ImageMemoryBarrier],
    ) -> Result<()> {
        check_barriers(buffers, images)
    }

    /// `vkCmdPipelineBarrier2`: checked, nothing recorded.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn pipeline_barrier2(&mut self, info: &vk::DependencyInfo) -> Result<()> {
        check_dependency(info)
    }

    /// `vkCmdSetEvent(2)` (`set`) and `vkCmdResetEvent(2)`.
    ///
    /// # Errors
    /// `Validation` for a bad dependency.
    pub fn set_event(
        &mut self,
        event: Arc<Event>,
        set: bool,
        dependency: Option<&vk::DependencyInfo>,
    ) -> Result<()> {
        if let Some(d) = dependency {
            check_dependency(d)?;
        }
        self.push(Command::SetEvent { event, set });
        Ok(())
    }

    /// `vkCmdWaitEvents`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn wait_events(
        &mut self,
        events: Vec<Arc<Event>>,
        buffers: &[vk::BufferMemoryBarrier],
        images: &[vk::ImageMemoryBarrier],
    ) -> Result<()> {
        check_barriers(buffers, images)?;
        self.push(Command::WaitEvents {
            events: events.into(),
        });
        Ok(())
    }

    /// `vkCmdWaitEvents2`: one dependency per event.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn wait_events2(
        &mut self,
        events: Vec<Arc<Event>>,
        dependencies: &[vk::DependencyInfo],
    ) -> Result<()> {
        for d in dependencies {
            check_dependency(d)?;
        }
        self.push(Command::WaitEvents {
            events: events.into(),
        });
        Ok(())
    }

    /// `vkCmdExecuteCommands`: the secondaries' recordings run inline.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn execute_commands(&mut self, secondaries: &[Arc<super::CommandBuffer>]) -> Result<()> {
        ensure!(
            self.level == Level::Primary,
            "VUID-vkCmdExecuteCommands-bufferlevel",
            "vkCmdExecuteCommands is recorded into a secondary command buffer"
        );
        let recordings = secondaries
            .iter()
            .map(|s| s.secondary_recording())
            .collect::<Result<_>>()?;
        self.push(Command::ExecuteCommands { recordings });
        Ok(())
    }

    /// `vkCmdResetQueryPool`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn reset_query_pool(&mut self, pool: Arc<QueryPool>, first: u32, count: u32) -> Result<()> {
        self.push(Command::reset_queries(pool, first, count)?);
        Ok(())
    }

    /// `vkCmdWriteTimestamp(2)`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn write_timestamp(&mut self, pool: Arc<QueryPool>, query: u32) -> Result<()> {
        self.push(Command::write_timestamp(pool, query)?);
        Ok(())
    }

    /// `vkCmdCopyQueryPoolResults`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_query_pool_results(
        &mut self,
        pool: Arc<QueryPool>,
        first: u32,
        count: u32,
        dst: Arc<Buffer>,
        offset: u64,
        stride: u64,
        flags: VkQueryResultFlags,
    ) -> Result<()> {
        let flags = ResultFlags::from_vk(flags);
        self.push(Command::copy_query_results(
            pool, first, count, dst, offset, stride, flags,
        )?);
        Ok(())
    }

    /// `vkCmdSetDeviceMask`: the group has one device.
    ///
    /// # Errors
    /// `Validation` for a mask other than 1.
    pub fn set_device_mask(&mut self, mask: u32) -> Result<()> {
        ensure!(
            mask != 0,
            "VUID-vkCmdSetDeviceMask-deviceMask-00109",
            "deviceMask is 0"
        );
        ensure!(
            mask == 1,
            "VUID-vkCmdSetDeviceMask-deviceMask-00108",
            "deviceMask {mask:#x} names devices beyond the one in the group"
        );
        Ok(())
    }

    /// `vkCmdBindPipeline`.
    ///
    /// # Errors
    /// `Validation` for a bind point other than compute.
    pub fn bind_pipeline(
        &mut self,
        bind_point: VkPipelineBindPoint,
        pipeline: Arc<Pipeline>,
    ) -> Result<()> {
        check_bind_point(bind_point, "VUID-vkCmdBindPipeline-pipelineBindPoint-00777")?;
        if bind_point == VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM {
            ensure!(
                pipeline.data_graph().is_some(),
                "VUID-vkCmdBindPipeline-pipelineBindPoint-09910",
                "pipelineBindPoint is DATA_GRAPH_ARM and pipeline is not a data graph pipeline"
            );
            self.compute.graph_pipeline = Some(pipeline);
            return Ok(());
        }
        let Some(compute) = pipeline.compute() else {
            return Err(Error::invalid(
                "VUID-vkCmdBindPipeline-pipelineBindPoint-00777",
                "pipelineBindPoint is COMPUTE and pipeline is not a compute pipeline",
            ));
        };
        self.compute.pipeline = Some(compute.clone());
        Ok(())
    }

    /// `vkCmdBindDescriptorSets`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn bind_descriptor_sets(
        &mut self,
        bind_point: VkPipelineBindPoint,
        layout: Arc<PipelineLayout>,
        first_set: u32,
        sets: &[Option<Arc<DescriptorSet>>],
        offsets: &[u32],
    ) -> Result<()> {
        check_bind_point(
            bind_point,
            "VUID-vkCmdBindDescriptorSets-pipelineBindPoint-00361",
        )?;
        let graph = bind_point == VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM;
        self.bind_sets(&layout, first_set, sets, offsets, graph)
    }

    /// `vkCmdBindDescriptorSets2`: binds at the compute bind point when the stages include
    /// COMPUTE, and at the data graph bind point for `VK_SHADER_STAGE_ALL` (data graphs have no
    /// stage bit); other stages have no bind point on this device.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn bind_descriptor_sets2(&mut self, info: &vk::BindDescriptorSetsInfo) -> Result<()> {
        let Some(layout) = &info.layout else {
            return Err(Error::invalid(
                "VUID-VkBindDescriptorSetsInfo-None-09495",
                "layout is VK_NULL_HANDLE (the dynamicPipelineLayout feature is not supported)",
            ));
        };
        let sets: Vec<_> = info.descriptor_sets.iter().cloned().map(Some).collect();
        let offsets = info.dynamic_offsets.as_deref().unwrap_or(&[]);
        if info.stage_flags & VK_SHADER_STAGE_COMPUTE_BIT != 0 {
            self.bind_sets(layout, info.first_set, &sets, offsets, false)?;
        }
        // Data graph pipelines have no stage bit: VK_SHADER_STAGE_ALL reaches their bind point.
        if info.stage_flags == VK_SHADER_STAGE_ALL {
            self.bind_sets(layout, info.first_set, &sets, offsets, true)?;
        }
        Ok(())
    }

    fn bind_sets(
        &mut self,
        layout: &PipelineLayout,
        first_set: u32,
        sets: &[Option<Arc<DescriptorSet>>],
        offsets: &[u32],
        graph: bool,
    ) -> Result<()> {
        ensure!(
            u64::from(first_set) + sets.len() as u64 <= layout.set_layouts.len() as u64,
            "VUID-vkCmdBindDescriptorSets-firstSet-00360",
            "sets {first_set}..{} exceed the layout's {} set layouts",
            u64::from(first_set) + sets.len() as u64,
            layout.set_layouts.len()
        );
        let alignment = self.physical.limits().min_storage_buffer_offset_alignment;
        let mut next_offset = 0usize;
        for (i, set) in sets.iter().enumerate() {
            let index = first_set as usize + i;
            let Some(set) = set else {
                continue;
            };
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
                dynamic_offsets
                    .iter()
                    .all(|o| u64::from(*o) % alignment == 0),
                "VUID-vkCmdBindDescriptorSets-pDynamicOffsets-01971",
                "a dynamic offset is not a multiple of the minimum offset alignment ({alignment})"
            );
            next_offset += dynamic;
            let bound = if graph {
                &mut self.compute.graph_sets
            } else {
                &mut self.compute.sets
            };
            if bound.len() <= index {
                bound.resize(index + 1, None);
            }
            bound[index] = Some(BoundSet {
                set: set.clone(),
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

    /// `vkCmdPushConstants`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn push_constants(
        &mut self,
        layout: &PipelineLayout,
        stages: VkShaderStageFlags,
        offset: u32,
        values: &[u8],
    ) -> Result<()> {
        let size = values.len() as u64;
        ensure!(
            offset.is_multiple_of(4) && size.is_multiple_of(4) && size > 0,
            "VUID-vkCmdPushConstants-offset-00368",
            "offset {offset} and size {size} must be non-zero multiples of 4"
        );
        let end = u64::from(offset) + size;
        let covered = layout.push_ranges.iter().any(|r| {
            r.stages & stages == stages
                && r.offset <= offset
                && end <= u64::from(r.offset) + u64::from(r.size)
        });
        ensure!(
            covered,
            "VUID-vkCmdPushConstants-offset-01795",
            "bytes {offset}..{end} for stages {stages:#x} are not inside one of the layout's push-constant ranges"
        );
        let push = &mut self.compute.push;
        if push.len() < end as usize {
            push.resize(end as usize, 0);
        }
        push[offset as usize..end as usize].copy_from_slice(values);
        Ok(())
    }

    /// `vkCmdPushConstants2` (the rules of `vkCmdPushConstants`).
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn push_constants2(&mut self, info: &vk::PushConstantsInfo) -> Result<()> {
        let Some(layout) = &info.layout else {
            return Err(Error::invalid(
                "VUID-VkPushConstantsInfo-None-09495",
                "layout is VK_NULL_HANDLE (the dynamicPipelineLayout feature is not supported)",
            ));
        };
        self.push_constants(layout, info.stage_flags, info.offset, &info.values)
    }

    /// `vkCmdDispatch` / `vkCmdDispatchBase`.
    ///
    /// # Errors
    /// `Validation` for counts beyond `maxComputeWorkGroupCount` or a missing pipeline or set.
    pub fn dispatch(&mut self, base: [u32; 3], count: [u32; 3]) -> Result<()> {
        let max = self.physical.limits().max_compute_work_group_count;
        for axis in 0..3 {
            let end = u64::from(base[axis]) + u64::from(count[axis]);
            ensure!(
                end <= u64::from(max[axis]),
                "VUID-vkCmdDispatch-groupCountX-00386",
                "workgroups {}..{end} on axis {axis} exceed maxComputeWorkGroupCount {}",
                base[axis],
                max[axis]
            );
        }
        let state = Box::new(self.compute.dispatch_state()?);
        self.push(Command::Dispatch { state, base, count });
        Ok(())
    }

    /// `vkCmdDispatchIndirect`: the counts are read from `buffer` at execution.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn dispatch_indirect(&mut self, buffer: Arc<Buffer>, offset: u64) -> Result<()> {
        ensure!(
            offset.is_multiple_of(4),
            "VUID-vkCmdDispatchIndirect-offset-02710",
            "offset {offset} is not a multiple of 4"
        );
        buffer.check_range(offset, 12, "VUID-vkCmdDispatchIndirect-offset-00407")?;
        ensure!(
            buffer.usage() & u64::from(VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT) != 0,
            "VUID-vkCmdDispatchIndirect-buffer-02709",
            "buffer lacks VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT"
        );
        buffer.bound("VUID-vkCmdDispatchIndirect-buffer-02708")?;
        let state = Box::new(self.compute.dispatch_state()?);
        self.push(Command::DispatchIndirect {
            state,
            buffer,
            offset,
        });
        Ok(())
    }

    /// `vkCmdDispatchDataGraphARM`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn dispatch_data_graph(
        &mut self,
        session: Arc<DataGraphSession>,
        info: Option<&vk::DataGraphPipelineDispatchInfoARM>,
    ) -> Result<()> {
        if let Some(info) = info {
            ensure!(
                info.flags == 0,
                "VUID-VkDataGraphPipelineDispatchInfoARM-flags-zerobitmask",
                "flags {:#x}: no dispatch flags are defined",
                info.flags
            );
        }
        let bound = self
            .compute
            .graph_pipeline
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, session.pipeline_object()));
        ensure!(
            bound,
            "VUID-vkCmdDispatchDataGraphARM-session-09796",
            "the pipeline bound at VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM is not the session's pipeline"
        );
        ensure!(
            session.is_bound(),
            "VUID-vkCmdDispatchDataGraphARM-session-09797",
            "the session's TRANSIENT bind point has no memory bound"
        );
        let Some(pipeline) = session.pipeline() else {
            return Err(Error::invalid(
                "VUID-vkCmdDispatchDataGraphARM-session-09796",
                "the session's pipeline is not a data graph pipeline",
            ));
        };
        let compiled = pipeline.compiled();
        for b in compiled.inputs.iter().chain(&compiled.outputs) {
            let set_bound = self
                .compute
                .graph_sets
                .get(b.set as usize)
                .is_some_and(|s| s.is_some());
            ensure!(
                set_bound,
                "VUID-vkCmdDispatchDataGraphARM-None-09799",
                "the pipeline uses descriptor set {} and none is bound at the data graph bind point",
                b.set
            );
        }
        self.push(Command::DispatchDataGraph {
            session,
            sets: self.compute.graph_sets.clone(),
        });
        Ok(())
    }

    /// `vkCmdCopyTensorARM`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_tensor(&mut self, info: &vk::CopyTensorInfoARM) -> Result<()> {
        let regions = info
            .regions
            .iter()
            .map(|r| {
                let any = r.src_offset.is_some() || r.dst_offset.is_some() || r.extent.is_some();
                ensure!(
                    r.dimension_count > 0 || !any,
                    "VUID-VkTensorCopyARM-dimensionCount-09955",
                    "dimensionCount is 0 but an offset or extent array is given"
                );
                Ok(TensorCopy {
                    dimension_count: r.dimension_count,
                    src_offset: r.src_offset.clone(),
                    dst_offset: r.dst_offset.clone(),
                    extent: r.extent.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.push(Command::copy_tensor(
            info.src_tensor.clone(),
            info.dst_tensor.clone(),
            regions,
        )?);
        Ok(())
    }
}
