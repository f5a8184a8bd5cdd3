//! The recorded command list entry and the validation done when each command is recorded.

use std::sync::Arc;

use crate::buffer::Buffer;
use crate::data_graph::DataGraphSession;
use crate::limits::MAX_UPDATE_BUFFER_SIZE;
use crate::pipeline::{BoundSet, ComputePipeline, Pipeline};
use crate::query::{QueryKind, QueryPool, ResultFlags};
use crate::sync::Event;
use crate::tensor::{
    Tensor, USAGE_TRANSFER_DST as TENSOR_TRANSFER_DST, USAGE_TRANSFER_SRC as TENSOR_TRANSFER_SRC,
};
use crate::{Error, Result, ensure};
use tessera_kernels::CopyPlan;

use super::Recording;

/// `VK_BUFFER_USAGE_TRANSFER_SRC_BIT`.
pub const USAGE_TRANSFER_SRC: u64 =
    vulkan_headers::vulkan::vulkan_core::VK_BUFFER_USAGE_TRANSFER_SRC_BIT as u64;
/// `VK_BUFFER_USAGE_TRANSFER_DST_BIT`.
pub const USAGE_TRANSFER_DST: u64 =
    vulkan_headers::vulkan::vulkan_core::VK_BUFFER_USAGE_TRANSFER_DST_BIT as u64;

/// One region of a buffer-to-buffer copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferCopy {
    /// Source offset in bytes.
    pub src_offset: u64,
    /// Destination offset in bytes.
    pub dst_offset: u64,
    /// Bytes to copy.
    pub size: u64,
}

/// What a dispatch captured at record time: the pipeline, the bound sets and push constants.
#[derive(Debug, Clone)]
pub struct DispatchState {
    /// The bound compute pipeline.
    pub pipeline: Arc<ComputePipeline>,
    /// Bound descriptor sets by set number.
    pub sets: Vec<Option<BoundSet>>,
    /// Push-constant bytes.
    pub push: Vec<u8>,
}

/// The state a command buffer accumulates while recording, per bind point.
#[derive(Debug, Clone, Default)]
pub struct ComputeState {
    /// `vkCmdBindPipeline(COMPUTE)`.
    pub pipeline: Option<Arc<ComputePipeline>>,
    /// `vkCmdBindDescriptorSets(COMPUTE)`.
    pub sets: Vec<Option<BoundSet>>,
    /// `vkCmdPushConstants`.
    pub push: Vec<u8>,
    /// `vkCmdBindPipeline(DATA_GRAPH_ARM)`.
    pub graph_pipeline: Option<Arc<Pipeline>>,
    /// `vkCmdBindDescriptorSets(DATA_GRAPH_ARM)`.
    pub graph_sets: Vec<Option<BoundSet>>,
}

impl ComputeState {
    /// Snapshot for a dispatch, checking that a pipeline and every set it uses are bound.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn dispatch_state(&self) -> Result<DispatchState> {
        let Some(pipeline) = self.pipeline.clone() else {
            return Err(Error::invalid(
                "VUID-vkCmdDispatch-None-08606",
                "no compute pipeline is bound",
            ));
        };
        for r in pipeline.program().resources() {
            let bound = self.sets.get(r.set as usize).is_some_and(|s| s.is_some());
            ensure!(
                bound,
                "VUID-vkCmdDispatch-None-08600",
                "the pipeline uses descriptor set {} and none is bound",
                r.set
            );
        }
        Ok(DispatchState {
            pipeline,
            sets: self.sets.clone(),
            push: self.push.clone(),
        })
    }
}

/// One `VkTensorCopyARM` region, read into owned values (`None` for a NULL pointer).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TensorCopy {
    /// `dimensionCount` (0: the pointers are ignored).
    pub dimension_count: u32,
    /// `pSrcOffset`.
    pub src_offset: Option<Vec<u64>>,
    /// `pDstOffset`.
    pub dst_offset: Option<Vec<u64>>,
    /// `pExtent`.
    pub extent: Option<Vec<u64>>,
}

/// A recorded command. Barriers are not recorded: the executor runs one queue's commands in order
/// on one thread, so every execution and memory dependency within a queue already holds.
#[derive(Debug)]
pub enum Command {
    /// `vkCmdCopyBuffer(2)`.
    CopyBuffer {
        src: Arc<Buffer>,
        dst: Arc<Buffer>,
        regions: Box<[BufferCopy]>,
    },
    /// `vkCmdFillBuffer` (size resolved and a multiple of 4).
    FillBuffer {
        dst: Arc<Buffer>,
        offset: u64,
        size: u64,
        data: u32,
    },
    /// `vkCmdUpdateBuffer`.
    UpdateBuffer {
        dst: Arc<Buffer>,
        offset: u64,
        data: Box<[u8]>,
    },
    /// `vkCmdSetEvent(2)` (`set`) and `vkCmdResetEvent(2)` (`!set`).
    SetEvent { event: Arc<Event>, set: bool },
    /// `vkCmdWaitEvents(2)`.
    WaitEvents { events: Box<[Arc<Event>]> },
    /// `vkCmdResetQueryPool`.
    ResetQueries {
        pool: Arc<QueryPool>,
        first: u32,
        count: u32,
    },
    /// `vkCmdWriteTimestamp(2)`.
    WriteTimestamp { pool: Arc<QueryPool>, query: u32 },
    /// `vkCmdCopyQueryPoolResults`.
    CopyQueryResults {
        pool: Arc<QueryPool>,
        first: u32,
        count: u32,
        dst: Arc<Buffer>,
        offset: u64,
        stride: u64,
        flags: ResultFlags,
    },
    /// `vkCmdCopyTensorARM`, planned once at record time.
    CopyTensor {
        src: Arc<Tensor>,
        dst: Arc<Tensor>,
        plan: Box<CopyPlan>,
    },
    /// `vkCmdDispatch` / `vkCmdDispatchBase`, with the state bound when it was recorded.
    Dispatch {
        state: Box<DispatchState>,
        base: [u32; 3],
        count: [u32; 3],
    },
    /// `vkCmdDispatchDataGraphARM`, with the sets bound at the data graph bind point.
    DispatchDataGraph {
        session: Arc<DataGraphSession>,
        sets: Vec<Option<BoundSet>>,
    },
    /// `vkCmdDispatchIndirect`: the group counts are read from `buffer` at execution.
    DispatchIndirect {
        state: Box<DispatchState>,
        buffer: Arc<Buffer>,
        offset: u64,
    },
    /// `vkCmdExecuteCommands`: the secondaries' recordings, run inline.
    ExecuteCommands { recordings: Box<[Arc<Recording>]> },
    /// `vkCmdConvertCooperativeVectorMatrixNV`, checked at record time.
    ConvertCooperativeVectorMatrix {
        conversions: Box<[crate::cooperative::DeviceConversion]>,
    },
}

impl Command {
    /// Validates and builds `vkCmdCopyBuffer`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_buffer(
        src: Arc<Buffer>,
        dst: Arc<Buffer>,
        regions: Vec<BufferCopy>,
    ) -> Result<Self> {
        ensure!(
            !regions.is_empty(),
            "VUID-vkCmdCopyBuffer-regionCount-arraylength",
            "regionCount is 0"
        );
        ensure!(
            src.usage() & USAGE_TRANSFER_SRC != 0,
            "VUID-vkCmdCopyBuffer-srcBuffer-00118",
            "srcBuffer lacks VK_BUFFER_USAGE_TRANSFER_SRC_BIT"
        );
        ensure!(
            dst.usage() & USAGE_TRANSFER_DST != 0,
            "VUID-vkCmdCopyBuffer-dstBuffer-00120",
            "dstBuffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT"
        );
        let sb = src.bound("VUID-vkCmdCopyBuffer-srcBuffer-00119")?;
        let db = dst.bound("VUID-vkCmdCopyBuffer-dstBuffer-00121")?;
        let same_memory = Arc::ptr_eq(&sb.memory, &db.memory);
        for (i, r) in regions.iter().enumerate() {
            ensure!(
                r.size > 0,
                "VUID-VkBufferCopy-size-01988",
                "region {i}: size is 0"
            );
            src.check_range(r.src_offset, r.size, "VUID-vkCmdCopyBuffer-size-00115")?;
            dst.check_range(r.dst_offset, r.size, "VUID-vkCmdCopyBuffer-size-00116")?;
            if same_memory {
                let s = sb.offset + r.src_offset;
                let d = db.offset + r.dst_offset;
                ensure!(
                    s + r.size <= d || d + r.size <= s,
                    "VUID-vkCmdCopyBuffer-pRegions-00117",
                    "region {i}: source and destination ranges overlap in memory"
                );
            }
        }
        Ok(Command::CopyBuffer {
            src,
            dst,
            regions: regions.into(),
        })
    }

    /// Validates and builds `vkCmdFillBuffer`; `size == None` is `VK_WHOLE_SIZE`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn fill_buffer(
        dst: Arc<Buffer>,
        offset: u64,
        size: Option<u64>,
        data: u32,
    ) -> Result<Self> {
        ensure!(
            offset < dst.size(),
            "VUID-vkCmdFillBuffer-dstOffset-00024",
            "dstOffset {offset} is not less than the buffer size {}",
            dst.size()
        );
        ensure!(
            offset.is_multiple_of(4),
            "VUID-vkCmdFillBuffer-dstOffset-00025",
            "dstOffset {offset} is not a multiple of 4"
        );
        let size = match size {
            None => (dst.size() - offset) & !3,
            Some(size) => {
                ensure!(size > 0, "VUID-vkCmdFillBuffer-size-00026", "size is 0");
                ensure!(
                    size % 4 == 0,
                    "VUID-vkCmdFillBuffer-size-00028",
                    "size {size} is not a multiple of 4"
                );
                dst.check_range(offset, size, "VUID-vkCmdFillBuffer-size-00027")?;
                size
            }
        };
        ensure!(
            dst.usage() & USAGE_TRANSFER_DST != 0,
            "VUID-vkCmdFillBuffer-dstBuffer-00029",
            "dstBuffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT"
        );
        dst.bound("VUID-vkCmdFillBuffer-dstBuffer-00031")?;
        Ok(Command::FillBuffer {
            dst,
            offset,
            size,
            data,
        })
    }

    /// Validates and builds `vkCmdUpdateBuffer`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn update_buffer(dst: Arc<Buffer>, offset: u64, data: Vec<u8>) -> Result<Self> {
        let size = data.len() as u64;
        ensure!(
            size > 0,
            "VUID-vkCmdUpdateBuffer-dataSize-arraylength",
            "dataSize is 0"
        );
        ensure!(
            offset.is_multiple_of(4),
            "VUID-vkCmdUpdateBuffer-dstOffset-00036",
            "dstOffset {offset} is not a multiple of 4"
        );
        ensure!(
            size.is_multiple_of(4),
            "VUID-vkCmdUpdateBuffer-dataSize-00038",
            "dataSize {size} is not a multiple of 4"
        );
        ensure!(
            size <= MAX_UPDATE_BUFFER_SIZE,
            "VUID-vkCmdUpdateBuffer-dataSize-00037",
            "dataSize {size} exceeds 65536"
        );
        dst.check_range(offset, size, "VUID-vkCmdUpdateBuffer-dataSize-00033")?;
        ensure!(
            dst.usage() & USAGE_TRANSFER_DST != 0,
            "VUID-vkCmdUpdateBuffer-dstBuffer-00034",
            "dstBuffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT"
        );
        dst.bound("VUID-vkCmdUpdateBuffer-dstBuffer-00035")?;
        Ok(Command::UpdateBuffer {
            dst,
            offset,
            data: data.into(),
        })
    }

    /// Validates and builds `vkCmdResetQueryPool`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn reset_queries(pool: Arc<QueryPool>, first: u32, count: u32) -> Result<Self> {
        pool.check_range(first, count, "VUID-vkCmdResetQueryPool-firstQuery-09437")?;
        Ok(Command::ResetQueries { pool, first, count })
    }

    /// Validates and builds `vkCmdWriteTimestamp(2)`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn write_timestamp(pool: Arc<QueryPool>, query: u32) -> Result<Self> {
        ensure!(
            pool.kind() == QueryKind::Timestamp,
            "VUID-vkCmdWriteTimestamp2-queryPool-03861",
            "queryPool was not created with VK_QUERY_TYPE_TIMESTAMP"
        );
        pool.check_range(query, 1, "VUID-vkCmdWriteTimestamp2-query-04903")?;
        Ok(Command::WriteTimestamp { pool, query })
    }

    /// Validates and builds `vkCmdCopyQueryPoolResults`.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_query_results(
        pool: Arc<QueryPool>,
        first: u32,
        count: u32,
        dst: Arc<Buffer>,
        offset: u64,
        stride: u64,
        flags: ResultFlags,
    ) -> Result<Self> {
        pool.check_range(
            first,
            count,
            "VUID-vkCmdCopyQueryPoolResults-firstQuery-09436",
        )?;
        ensure!(
            count > 0,
            "VUID-vkCmdCopyQueryPoolResults-queryCount-09438",
            "queryCount is 0"
        );
        let word = if flags.wide { 8 } else { 4 };
        ensure!(
            offset.is_multiple_of(word),
            "VUID-vkCmdCopyQueryPoolResults-flags-00822",
            "dstOffset {offset} is not a multiple of {word}"
        );
        ensure!(
            stride.is_multiple_of(word),
            "VUID-vkCmdCopyQueryPoolResults-flags-00823",
            "stride {stride} is not a multiple of {word}"
        );
        let per_query = word * (1 + u64::from(flags.with_availability));
        let span = stride
            .checked_mul(u64::from(count - 1))
            .and_then(|s| s.checked_add(per_query));
        ensure!(
            span.is_some(),
            "VUID-vkCmdCopyQueryPoolResults-dstBuffer-00824",
            "stride {stride} overflows"
        );
        dst.check_range(
            offset,
            span.unwrap_or(0),
            "VUID-vkCmdCopyQueryPoolResults-dstBuffer-00824",
        )?;
        ensure!(
            dst.usage() & USAGE_TRANSFER_DST != 0,
            "VUID-vkCmdCopyQueryPoolResults-dstBuffer-00825",
            "dstBuffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT"
        );
        dst.bound("VUID-vkCmdCopyQueryPoolResults-dstBuffer-00826")?;
        Ok(Command::CopyQueryResults {
            pool,
            first,
            count,
            dst,
            offset,
            stride,
            flags,
        })
    }

    /// Validates and plans `vkCmdCopyTensorARM`: a whole-tensor raw copy between tensors of the
    /// same shape, each with its own strides.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn copy_tensor(
        src: Arc<Tensor>,
        dst: Arc<Tensor>,
        regions: Vec<TensorCopy>,
    ) -> Result<Self> {
        let (sd, dd) = (src.desc(), dst.desc());
        ensure!(
            regions.len() == 1,
            "VUID-VkCopyTensorInfoARM-regionCount-09686",
            "regionCount is {}, must be 1",
            regions.len()
        );
        ensure!(
            sd.rank() == dd.rank(),
            "VUID-VkCopyTensorInfoARM-dimensionCount-09684",
            "srcTensor has {} dimensions, dstTensor {}",
            sd.rank(),
            dd.rank()
        );
        ensure!(
            sd.dims == dd.dims,
            "VUID-VkCopyTensorInfoARM-pDimensions-09685",
            "srcTensor dimensions {:?} differ from dstTensor dimensions {:?}",
            sd.dims,
            dd.dims
        );
        let r = &regions[0];
        ensure!(
            r.dimension_count == 0 || r.dimension_count as usize == sd.rank(),
            "VUID-VkCopyTensorInfoARM-pRegions-09954",
            "region dimensionCount {} is neither 0 nor the tensors' rank {}",
            r.dimension_count,
            sd.rank()
        );
        ensure!(
            r.src_offset
                .as_ref()
                .is_none_or(|o| o.iter().all(|x| *x == 0)),
            "VUID-VkCopyTensorInfoARM-pRegions-09687",
            "pSrcOffset is not all zeros"
        );
        ensure!(
            r.dst_offset
                .as_ref()
                .is_none_or(|o| o.iter().all(|x| *x == 0)),
            "VUID-VkCopyTensorInfoARM-pRegions-09688",
            "pDstOffset is not all zeros"
        );
        ensure!(
            r.extent.as_ref().is_none_or(|e| *e == sd.dims),
            "VUID-VkCopyTensorInfoARM-pRegions-09689",
            "pExtent {:?} differs from the tensors' dimensions {:?}",
            r.extent,
            sd.dims
        );
        ensure!(
            sd.usage & TENSOR_TRANSFER_SRC != 0,
            "VUID-VkCopyTensorInfoARM-srcTensor-09691",
            "srcTensor lacks VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM"
        );
        ensure!(
            dd.usage & TENSOR_TRANSFER_DST != 0,
            "VUID-VkCopyTensorInfoARM-dstTensor-09693",
            "dstTensor lacks VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM"
        );
        // The spec copies raw bits element by element; elements of different sizes cannot be.
        ensure!(
            sd.format.size == dd.format.size,
            "VkCopyTensorInfoARM (element sizes)",
            "{} and {} have different element sizes",
            sd.format.name,
            dd.format.name
        );
        src.bound("VUID-VkCopyTensorInfoARM-srcTensor-09694")?;
        dst.bound("VUID-VkCopyTensorInfoARM-dstTensor-09695")?;
        let plan = CopyPlan::new(sd.format.size as usize, &sd.dims, &sd.strides, &dd.strides)
            .map_err(|e| Error::DeviceLost(format!("tensor copy plan: {e}")))?;
        Ok(Command::CopyTensor {
            src,
            dst,
            plan: Box::new(plan),
        })
    }

    /// The `vkCmd*` name, for traces.
    pub fn name(&self) -> &'static str {
        match self {
            Command::CopyBuffer { .. } => "vkCmdCopyBuffer",
            Command::FillBuffer { .. } => "vkCmdFillBuffer",
            Command::UpdateBuffer { .. } => "vkCmdUpdateBuffer",
            Command::SetEvent { set: true, .. } => "vkCmdSetEvent",
            Command::SetEvent { set: false, .. } => "vkCmdResetEvent",
            Command::WaitEvents { .. } => "vkCmdWaitEvents",
            Command::ResetQueries { .. } => "vkCmdResetQueryPool",
            Command::WriteTimestamp { .. } => "vkCmdWriteTimestamp",
            Command::CopyQueryResults { .. } => "vkCmdCopyQueryPoolResults",
            Command::CopyTensor { .. } => "vkCmdCopyTensorARM",
            Command::Dispatch { .. } => "vkCmdDispatch",
            Command::DispatchIndirect { .. } => "vkCmdDispatchIndirect",
            Command::DispatchDataGraph { .. } => "vkCmdDispatchDataGraphARM",
            Command::ExecuteCommands { .. } => "vkCmdExecuteCommands",
            Command::ConvertCooperativeVectorMatrix { .. } => {
                "vkCmdConvertCooperativeVectorMatrixNV"
            }
        }
    }
}
