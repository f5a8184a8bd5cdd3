//! `VK_ARM_data_graph`: data graph pipelines, sessions and their execution.
//!
//! A [`DataGraphPipeline`] is a checked TOSA graph ([`tessera_graph::Graph`], decoded from the
//! module's `OpGraphEntryPointARM` with the application's constants and specialization values)
//! plus the map from each interface tensor to its descriptor set and binding, the transient-memory
//! plan of its intermediate tensors, its creation log and its identifier. Everything is decided at
//! creation; a dispatch only resolves the bound tensors and runs the graph, its intermediate
//! tensors and its kernels' scratch memory (a right-hand side packed at dispatch, a convolution's
//! padded input) in the session's TRANSIENT memory (the plan's arena: [`Plan::transient_size`]
//! bytes, each at its planned offset): a dispatch allocates nothing for them.
//!
//! A [`GraphSource`] is everything a pipeline is built from. Its encoding is the pipeline-cache
//! key, the cache's serialized entry and (hashed) the pipeline identifier, so a pipeline can be
//! rebuilt from a cache, from serialized cache data or from its identifier alone.
//!
//! A [`DataGraphSession`] holds its pipeline and the memory bound to its one bind point
//! (`TRANSIENT`, reported only when the graph has intermediate tensors or kernel scratch memory).
//!
//! Invariants: a pipeline's interface bindings match its graph's inputs and outputs one to one
//! and each names a tensor binding of the layout; dispatch never reads or writes outside the
//! bound tensors' memory ranges (each access is range-checked by [`DeviceMemory`]).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tessera_graph::DType;
use tessera_graph::ir::ValueInfo;
use tessera_graph::plan::Plan;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::descriptor::{Descriptor, DescriptorKind, PipelineLayout};
use crate::device::Device;
use crate::memory::DeviceMemory;
use crate::pipeline::{BoundSet, PipelineCache, ShaderModule};
use crate::tensor::{TensorDesc, Tiling, USAGE_DATA_GRAPH};
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// `VkPipelineCreateFlags2` bits a data graph pipeline may have.
pub const ALLOWED_FLAGS: u64 = VK_PIPELINE_CREATE_2_DISABLE_OPTIMIZATION_BIT
    | VK_PIPELINE_CREATE_2_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT
    | VK_PIPELINE_CREATE_2_EARLY_RETURN_ON_FAILURE_BIT
    | VK_PIPELINE_CREATE_2_NO_PROTECTED_ACCESS_BIT
    | VK_PIPELINE_CREATE_2_PROTECTED_ACCESS_ONLY_BIT;
/// `VK_DATA_GRAPH_PIPELINE_PROPERTY_CREATION_LOG_ARM`.
pub const PROPERTY_CREATION_LOG: i32 = VK_DATA_GRAPH_PIPELINE_PROPERTY_CREATION_LOG_ARM;
/// `VK_DATA_GRAPH_PIPELINE_PROPERTY_IDENTIFIER_ARM`.
pub const PROPERTY_IDENTIFIER: i32 = VK_DATA_GRAPH_PIPELINE_PROPERTY_IDENTIFIER_ARM;
/// The properties every data graph pipeline reports, in this order.
pub const PROPERTIES: [i32; 2] = [PROPERTY_CREATION_LOG, PROPERTY_IDENTIFIER];
/// Alignment of the transient memory a session needs (the plan's arena alignment).
pub const TRANSIENT_ALIGNMENT: u64 = tessera_graph::plan::ARENA_ALIGNMENT as u64;
/// The bind point Tessera reports (`VK_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_TRANSIENT_ARM`).
pub const BIND_POINT_TRANSIENT: i32 = VK_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_TRANSIENT_ARM;
/// The rule named for a graph the front end rejects: the message begins with the precise
/// rule (a SPIR-V rule, `SPV_ARM_graph`, a TOSA `ERROR_IF`, a Vulkan VUID).
const GRAPH_RULE: &str = "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-module (SPIR-V graph)";

/// A TOSA profile or extension the device claims (`VkDataGraphTOSANameQualityARM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TosaClaim {
    /// `PRO-INT`, `EXT-INT16`, …
    pub name: &'static str,
    /// `VkDataGraphTOSAQualityFlagsARM`.
    pub quality: u32,
}

/// `VK_DATA_GRAPH_TOSA_QUALITY_CONFORMANT_ARM`: every positive test of Arm's TOSA 1.0.2
/// conformance suite (tosa-tools 2026.8.0) for the claimed profiles and extensions passes
/// `tosa_verify` (`cargo xtask conformance`, which also runs them through this ICD with
/// scenario-runner), and no negative (ERROR_IF) test that reaches the driver is accepted. A
/// profile or extension is claimed only then.
const CONFORMANT: u32 = crate::vk::abi::VK_DATA_GRAPH_TOSA_QUALITY_CONFORMANT_ARM;

/// The TOSA profiles the `TOSA.001000.1` operation set supports (level 8K).
pub const TOSA_PROFILES: &[TosaClaim] = &[
    TosaClaim {
        name: "PRO-INT",
        quality: CONFORMANT,
    },
    TosaClaim {
        name: "PRO-FP",
        quality: CONFORMANT,
    },
];

/// The TOSA extensions it supports: those whose conformance tests were run and pass.
pub const TOSA_EXTENSIONS: &[TosaClaim] = &[
    TosaClaim {
        name: "EXT-INT16",
        quality: CONFORMANT,
    },
    // bf16 and fp8 run on the reference kernels: computed wide, rounded to the type once (fp8
    // dot products accumulate in fp16 as their acc_type says).
    TosaClaim {
        name: "EXT-BF16",
        quality: CONFORMANT,
    },
    TosaClaim {
        name: "EXT-FP8E4M3",
        quality: CONFORMANT,
    },
    TosaClaim {
        name: "EXT-FP8E5M2",
        quality: CONFORMANT,
    },
    TosaClaim {
        name: "EXT-FFT",
        quality: CONFORMANT,
    },
    TosaClaim {
        name: "EXT-DOUBLEROUND",
        quality: CONFORMANT,
    },
    // RESCALE's INEXACT_ROUND runs as an exact single rounding, which its bound always admits.
    TosaClaim {
        name: "EXT-INEXACTROUND",
        quality: CONFORMANT,
    },
];

/// One `VkDataGraphPipelineConstantARM`, its data repacked row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphConstant {
    /// `id` (the `GraphConstantID`).
    pub id: u32,
    /// The description's format.
    pub format: i32,
    /// The description's dimensions.
    pub dims: Vec<u64>,
    /// The data, packed row-major.
    pub data: Vec<u8>,
}

/// One `VkDataGraphPipelineResourceInfoARM` with its tensor description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceDesc {
    /// `descriptorSet`.
    pub set: u32,
    /// `binding`.
    pub binding: u32,
    /// `arrayElement`.
    pub array_element: u32,
    /// `VkTensorTilingARM`.
    pub tiling: i32,
    /// The format.
    pub format: i32,
    /// The dimensions.
    pub dims: Vec<u64>,
    /// The strides the application declared (empty: packed).
    pub strides: Vec<u64>,
}

/// Everything a data graph pipeline is made from (the cache key).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphSource {
    /// The module's SPIR-V words.
    pub words: Vec<u32>,
    /// The `OpGraphEntryPointARM` name.
    pub entry: String,
    /// Specialization constants (SpecId, bytes), sorted by SpecId.
    pub specialization: Vec<(u32, Vec<u8>)>,
    /// The constants, sorted by id.
    pub constants: Vec<GraphConstant>,
    /// The resource infos, in the application's order.
    pub resources: Vec<ResourceDesc>,
}

/// A little-endian byte writer for [`GraphSource::encode`].
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn u64s(&mut self, v: &[u64]) {
        self.u32(v.len() as u32);
        v.iter().for_each(|x| self.u64(*x));
    }
}

/// The reader matching [`Writer`]; `None` on any truncation or absurd length.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = usize::try_from(self.u64()?).ok()?;
        Some(self.take(n)?.to_vec())
    }
    fn u64s(&mut self) -> Option<Vec<u64>> {
        let n = self.u32()? as usize;
        if n > self.0.len() / 8 {
            return None;
        }
        (0..n).map(|_| self.u64()).collect()
    }
    fn count(&mut self, min_size: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= self.0.len() / min_size.max(1)).then_some(n)
    }
}

impl GraphSource {
    /// The canonical encoding (cache key and serialized cache entry).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.words.len() as u32);
        self.words.iter().for_each(|x| w.u32(*x));
        w.bytes(self.entry.as_bytes());
        w.u32(self.specialization.len() as u32);
        for (id, bytes) in &self.specialization {
            w.u32(*id);
            w.bytes(bytes);
        }
        w.u32(self.constants.len() as u32);
        for c in &self.constants {
            w.u32(c.id);
            w.u32(c.format as u32);
            w.u64s(&c.dims);
            w.bytes(&c.data);
        }
        w.u32(self.resources.len() as u32);
        for r in &self.resources {
            w.u32(r.set);
            w.u32(r.binding);
            w.u32(r.array_element);
            w.u32(r.tiling as u32);
            w.u32(r.format as u32);
            w.u64s(&r.dims);
            w.u64s(&r.strides);
        }
        w.0
    }

    /// Decodes [`GraphSource::encode`]'s bytes; `None` when they are not such an encoding.
    pub fn decode(bytes: &[u8]) -> Option<GraphSource> {
        let mut r = Reader(bytes);
        let n = r.count(4)?;
        let words = (0..n).map(|_| r.u32()).collect::<Option<Vec<_>>>()?;
        let entry = String::from_utf8(r.bytes()?).ok()?;
        let n = r.count(12)?;
        let specialization = (0..n)
            .map(|_| Some((r.u32()?, r.bytes()?)))
            .collect::<Option<Vec<_>>>()?;
        let n = r.count(20)?;
        let constants = (0..n)
            .map(|_| {
                Some(GraphConstant {
                    id: r.u32()?,
                    format: r.u32()? as i32,
                    dims: r.u64s()?,
                    data: r.bytes()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let n = r.count(28)?;
        let resources = (0..n)
            .map(|_| {
                Some(ResourceDesc {
                    set: r.u32()?,
                    binding: r.u32()?,
                    array_element: r.u32()?,
                    tiling: r.u32()? as i32,
                    format: r.u32()? as i32,
                    dims: r.u64s()?,
                    strides: r.u64s()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        r.0.is_empty().then_some(GraphSource {
            words,
            entry,
            specialization,
            constants,
            resources,
        })
    }
}

/// A 128-bit FNV-1a digest of `bytes` (two 64-bit lanes with different offset bases).
pub fn digest(bytes: &[u8]) -> [u8; 16] {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for &x in bytes {
        a = (a ^ u64::from(x)).wrapping_mul(PRIME);
        b = (b ^ u64::from(x.rotate_left(3))).wrapping_mul(PRIME);
    }
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.to_le_bytes());
    out[8..].copy_from_slice(&b.to_le_bytes());
    out
}

/// The identifier of a source: its digest as 32 lower-case hex digits (text, so it never holds
/// the byte 0x7F).
pub fn identifier(key: &[u8; 16]) -> Vec<u8> {
    key.iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect()
}

/// The graph element type a tensor format carries (signless integers: either signedness).
fn format_matches(format: i32, dtype: DType) -> bool {
    use crate::vk::abi::*;
    match dtype {
        DType::Bool => format == VK_FORMAT_R8_BOOL_ARM,
        DType::I8 => matches!(format, VK_FORMAT_R8_SINT | VK_FORMAT_R8_UINT),
        DType::I16 => matches!(format, VK_FORMAT_R16_SINT | VK_FORMAT_R16_UINT),
        DType::I32 => matches!(format, VK_FORMAT_R32_SINT | VK_FORMAT_R32_UINT),
        DType::I48 => matches!(format, VK_FORMAT_R64_SINT | VK_FORMAT_R64_UINT),
        DType::F16 => format == VK_FORMAT_R16_SFLOAT,
        DType::Bf16 => format == VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM,
        DType::F32 => format == VK_FORMAT_R32_SFLOAT,
        DType::Fp8E4m3 => format == VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM,
        DType::Fp8E5m2 => format == VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM,
    }
}

fn tiling_of(tiling: i32) -> Tiling {
    if tiling == VK_TENSOR_TILING_OPTIMAL_ARM {
        Tiling::Optimal
    } else {
        Tiling::Linear
    }
}

/// Validates a chained `VkTensorDescriptionARM` (`what` names its owner in messages).
fn describe(device: &Device, d: &vk::TensorDescriptionARM) -> Result<TensorDesc> {
    TensorDesc::new(
        tiling_of(d.tiling),
        d.format,
        &d.dimensions,
        d.strides.as_deref(),
        d.usage,
        device.features().tensor_arm.tensor_non_packed,
    )
}

/// The bytes the application's `pConstantData` holds for constant `c` (the ICD copies that many
/// bytes during the call), after checking its description.
///
/// # Errors
/// `Validation` for a constant without a valid tensor description.
pub fn constant_footprint(device: &Device, c: &vk::DataGraphPipelineConstantARM) -> Result<u64> {
    let Some(d) = &c.tensor_description_arm else {
        return Err(Error::invalid(
            "VUID-VkDataGraphPipelineConstantARM-id-09850",
            format!(
                "constant {} has no VkTensorDescriptionARM in its pNext chain (the only constants Tessera knows are tensors)",
                c.id
            ),
        ));
    };
    ensure!(
        d.tiling == VK_TENSOR_TILING_LINEAR_ARM,
        "VUID-VkDataGraphPipelineConstantARM-tiling-09852",
        "constant {}: tensor constants must have VK_TENSOR_TILING_LINEAR_ARM",
        c.id
    );
    ensure!(
        d.usage & USAGE_DATA_GRAPH != 0,
        "VUID-VkDataGraphPipelineConstantARM-usage-09853",
        "constant {}: the description's usage lacks VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM",
        c.id
    );
    ensure!(
        c.constant_data != 0,
        "VUID-VkDataGraphPipelineConstantARM-pConstantData-parameter",
        "constant {}: pConstantData is NULL",
        c.id
    );
    Ok(describe(device, d)?.footprint())
}

/// Gathers a strided tensor of `dims` (element size `elem`) from `read(offset, buf)` into packed
/// row-major bytes.
fn gather(
    dims: &[u64],
    strides: &[u64],
    elem: usize,
    mut read: impl FnMut(u64, &mut [u8]) -> Result<()>,
) -> Result<Vec<u8>> {
    let n: u64 = dims.iter().product();
    let total = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(elem))
        .ok_or_else(|| Error::OutOfHostMemory("tensor larger than the address space".into()))?;
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| Error::OutOfHostMemory(format!("{total} bytes for a graph tensor")))?;
    out.resize(total, 0);
    for_each_row(dims, strides, elem, |offset, row, len| {
        read(offset, &mut out[row..row + len])
    })?;
    Ok(out)
}

/// Calls `f(memory offset, packed offset, bytes)` for each run of contiguous elements of a tensor.
fn for_each_row(
    dims: &[u64],
    strides: &[u64],
    elem: usize,
    mut f: impl FnMut(u64, usize, usize) -> Result<()>,
) -> Result<()> {
    let rank = dims.len();
    if rank == 0 || dims.contains(&0) {
        return Ok(());
    }
    // Fold trailing dimensions that are packed into one run.
    let mut run_dims = rank;
    let mut run = elem as u64;
    while run_dims > 0 && strides[run_dims - 1] == run {
        run *= dims[run_dims - 1];
        run_dims -= 1;
    }
    let (outer, run_len) = if run_dims == rank {
        (rank, elem)
    } else {
        (run_dims, run as usize)
    };
    let mut index = vec![0u64; outer];
    let mut packed = 0usize;
    loop {
        let offset: u64 = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        f(offset, packed, run_len)?;
        packed += run_len;
        let mut axis = outer;
        loop {
            if axis == 0 {
                return Ok(());
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < dims[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

/// Where a graph interface tensor is bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceBinding {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// The graph value type.
    pub info: ValueInfo,
}

/// A compiled graph: the checked IR, its interface bindings and its transient-memory plan.
#[derive(Debug)]
pub struct CompiledGraph {
    /// The graph's execution plan (the graph itself is `plan.graph()`).
    pub plan: Plan,
    /// One per graph input, in order.
    pub inputs: Vec<InterfaceBinding>,
    /// One per graph output, in order.
    pub outputs: Vec<InterfaceBinding>,
    /// Bytes of transient memory the intermediate tensors need (0: no session memory).
    pub transient_size: u64,
    /// The creation log.
    pub log: String,
}

impl CompiledGraph {
    /// Compiles `source` against `layout`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn compile(source: &GraphSource, layout: &PipelineLayout) -> Result<CompiledGraph> {
        let module = tessera_graph::Module::read(&source.words)
            .map_err(|e| Error::invalid(GRAPH_RULE, e.to_string()))?;
        let inputs = tessera_graph::Inputs {
            graph_constants: source
                .constants
                .iter()
                .map(|c| (c.id, c.data.clone()))
                .collect(),
            specialization: source.specialization.iter().cloned().collect(),
        };
        let graph = tessera_graph::decode(&module, &source.entry, &inputs)
            .map_err(|e| Error::invalid(GRAPH_RULE, e.to_string()))?;
        for (id, info) in &graph.graph_constants {
            let Some(c) = source.constants.iter().find(|c| c.id == *id) else {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-pConstants-09923",
                    format!(
                        "the graph uses OpGraphConstantARM id {id} and no constant has that id"
                    ),
                ));
            };
            let dims: Vec<u64> = info.shape.iter().map(|d| *d as u64).collect();
            ensure!(
                c.dims == dims && format_matches(c.format, info.dtype),
                "VUID-VkDataGraphPipelineConstantARM-id-09850",
                "constant {id}: the description (format {}, dimensions {:?}) does not match the graph's {info}",
                c.format,
                c.dims
            );
        }
        let bind = |iface: &tessera_graph::ir::Interface, what: &str| -> Result<InterfaceBinding> {
            let Some(r) = source
                .resources
                .iter()
                .find(|r| r.set == iface.set && r.binding == iface.binding)
            else {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineCreateInfoARM-pResourceInfos-09923",
                    format!(
                        "graph {what} (set {}, binding {}) has no VkDataGraphPipelineResourceInfoARM",
                        iface.set, iface.binding
                    ),
                ));
            };
            let dims: Vec<u64> = iface.info.shape.iter().map(|d| *d as u64).collect();
            ensure!(
                r.dims == dims,
                "VUID-VkDataGraphPipelineCreateInfoARM-dimensionCount-09925",
                "set {} binding {}: the resource's dimensions {:?} differ from the graph {what}'s {}",
                r.set,
                r.binding,
                r.dims,
                iface.info
            );
            ensure!(
                format_matches(r.format, iface.info.dtype),
                "VUID-VkDataGraphPipelineCreateInfoARM-format-09926",
                "set {} binding {}: format {} does not carry the graph {what}'s element type {}",
                r.set,
                r.binding,
                r.format,
                iface.info.dtype.name()
            );
            Ok(InterfaceBinding {
                set: iface.set,
                binding: iface.binding,
                info: iface.info.clone(),
            })
        };
        let inputs = graph
            .inputs
            .iter()
            .map(|i| bind(i, "input"))
            .collect::<Result<Vec<_>>>()?;
        let outputs = graph
            .outputs
            .iter()
            .map(|i| bind(i, "output"))
            .collect::<Result<Vec<_>>>()?;
        for r in &source.resources {
            let used = graph
                .inputs
                .iter()
                .chain(&graph.outputs)
                .any(|i| i.set == r.set && i.binding == r.binding);
            ensure!(
                used,
                "VUID-VkDataGraphPipelineCreateInfoARM-pResourceInfos-09923",
                "resource info for set {} binding {} names no interface tensor of entry point {:?}",
                r.set,
                r.binding,
                source.entry
            );
        }
        let plan = Plan::new(graph);
        plan.check_limits()
            .map_err(|e| Error::OutOfHostMemory(format!("data graph pipeline: {e}")))?;
        // The plan's arena of intermediate values is the session's TRANSIENT memory.
        let transient_size = plan.transient_size() as u64;
        let graph = plan.graph();
        let compiled_interface = inputs.iter().chain(&outputs);
        for b in compiled_interface {
            check_binding(b, layout)?;
        }
        let mut log = String::new();
        let _ = writeln!(
            log,
            "Tessera data graph pipeline, entry point {:?}: {} inputs, {} outputs, {} TOSA.001000.1 operators ({} on native kernels, the others on the reference kernels), {} bytes of transient memory",
            source.entry,
            inputs.len(),
            outputs.len(),
            graph.nodes.len(),
            plan.native_nodes(),
            transient_size
        );
        log.push_str(&graph.text());
        Ok(CompiledGraph {
            plan,
            inputs,
            outputs,
            transient_size,
            log,
        })
    }
}

/// Checks that the layout has a tensor binding at `b`'s set and binding.
fn check_binding(b: &InterfaceBinding, layout: &PipelineLayout) -> Result<()> {
    let kind = layout
        .set_layouts
        .get(b.set as usize)
        .and_then(Option::as_ref)
        .and_then(|l| l.binding(b.binding).map(|(lb, _)| lb.kind));
    ensure!(
        kind == Some(DescriptorKind::Tensor),
        "VUID-VkDataGraphPipelineCreateInfoARM-layout-09767",
        "the graph's interface tensor at set {} binding {} is not a VK_DESCRIPTOR_TYPE_TENSOR_ARM binding of the layout",
        b.set,
        b.binding
    );
    Ok(())
}

/// Checks a compiled graph's interface against a layout.
fn check_layout(c: &CompiledGraph, layout: &PipelineLayout) -> Result<()> {
    c.inputs
        .iter()
        .chain(&c.outputs)
        .try_for_each(|b| check_binding(b, layout))
}

/// A data graph pipeline.
#[derive(Debug)]
pub struct DataGraphPipeline {
    compiled: Arc<CompiledGraph>,
    layout: Arc<PipelineLayout>,
    identifier: Vec<u8>,
}

/// What creating one data graph pipeline gave.
#[derive(Debug)]
pub enum Created {
    /// The pipeline, and whether it came from the pipeline cache.
    Pipeline {
        pipeline: DataGraphPipeline,
        cache_hit: bool,
        duration: Duration,
    },
    /// `VK_PIPELINE_COMPILE_REQUIRED`: FAIL_ON_PIPELINE_COMPILE_REQUIRED and no cache entry.
    CompileRequired,
}

/// Reads the specialization info into sorted (SpecId, bytes) pairs.
fn specialization(info: &Option<vk::SpecializationInfo>) -> Result<Vec<(u32, Vec<u8>)>> {
    let mut out = crate::pipeline::specialization(info)?;
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

impl DataGraphPipeline {
    /// `vkCreateDataGraphPipelinesARM` of one pipeline. `constant_data` holds the bytes of each
    /// of the shader-module info's constants (read by the ICD, [`constant_footprint`] each).
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn create(
        device: &Device,
        cache: Option<&PipelineCache>,
        info: &vk::DataGraphPipelineCreateInfoARM,
        constant_data: &[Vec<u8>],
    ) -> Result<Created> {
        let started = Instant::now();
        let features = &device.features().data_graph_arm;
        ensure!(
            features.data_graph,
            "VUID-vkCreateDataGraphPipelinesARM-dataGraph-09760",
            "the dataGraph feature was not enabled"
        );
        ensure!(
            info.flags & !ALLOWED_FLAGS == 0,
            "VUID-VkDataGraphPipelineCreateInfoARM-flags-09764",
            "flags {:#x} are not allowed for a data graph pipeline (DESCRIPTOR_BUFFER needs dataGraphDescriptorBuffer, which is not supported)",
            info.flags & !ALLOWED_FLAGS
        );
        ensure!(
            info.flags & VK_PIPELINE_CREATE_2_PROTECTED_ACCESS_ONLY_BIT == 0,
            "VUID-VkDataGraphPipelineCreateInfoARM-flags-09765",
            "PROTECTED_ACCESS_ONLY needs protected memory, which is not supported"
        );
        let layout = &info.layout;
        ensure!(
            layout.push_ranges.is_empty(),
            "VUID-VkDataGraphPipelineCreateInfoARM-layout-09767",
            "the layout has push-constant ranges; data graph pipelines have none"
        );
        if let Some(engines) = &info.data_graph_processing_engine_create_info_arm {
            for e in &engines.processing_engines {
                ensure!(
                    e.ty == VK_PHYSICAL_DEVICE_DATA_GRAPH_PROCESSING_ENGINE_TYPE_DEFAULT_ARM
                        && !e.is_foreign,
                    "VUID-VkDataGraphProcessingEngineCreateInfoARM-pProcessingEngines-09918",
                    "processing engine (type {}, foreign {}) is not one the queue family reports (DEFAULT, not foreign)",
                    e.ty,
                    e.is_foreign
                );
            }
        }
        let fail_on_compile =
            info.flags & VK_PIPELINE_CREATE_2_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT != 0;
        let (source, key) = match (
            &info.data_graph_pipeline_shader_module_create_info_arm,
            &info.data_graph_pipeline_identifier_create_info_arm,
        ) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineCreateInfoARM-pNext-09763",
                    "the pNext chain must hold exactly one of VkDataGraphPipelineShaderModuleCreateInfoARM and VkDataGraphPipelineIdentifierCreateInfoARM",
                ));
            }
            (None, Some(id)) => {
                ensure!(
                    info.resource_infos.is_empty(),
                    "VUID-VkDataGraphPipelineCreateInfoARM-pNext-09876",
                    "a pipeline created from an identifier takes no resource infos"
                );
                ensure!(
                    fail_on_compile,
                    "VUID-VkDataGraphPipelineCreateInfoARM-pNext-09877",
                    "creation from an identifier needs VK_PIPELINE_CREATE_2_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT"
                );
                let Some(cache) = cache else {
                    return Err(Error::invalid(
                        "VUID-vkCreateDataGraphPipelinesARM-pNext-09878",
                        "creation from an identifier needs a pipeline cache",
                    ));
                };
                match cache.graph_by_identifier(&id.identifier) {
                    Some((source, key)) => (source, key),
                    None => return Ok(Created::CompileRequired),
                }
            }
            (Some(sm), None) => {
                let source = Self::source(device, info, sm, constant_data)?;
                let key = digest(&source.encode());
                (Arc::new(source), key)
            }
        };
        let cached = cache.and_then(|c| c.graphs().get(&key, &source));
        let (compiled, cache_hit) = match cached {
            Some(Some(compiled)) => {
                check_layout(&compiled, layout)?;
                (compiled, true)
            }
            // From serialized cache data: everything needed is there, so it is a hit.
            Some(None) => {
                let compiled = Arc::new(CompiledGraph::compile(&source, layout)?);
                if let Some(cache) = cache {
                    cache.insert_graph(key, source.clone(), compiled.clone());
                }
                (compiled, true)
            }
            None if fail_on_compile => return Ok(Created::CompileRequired),
            None => {
                let compiled = Arc::new(CompiledGraph::compile(&source, layout)?);
                if let Some(cache) = cache {
                    cache.insert_graph(key, source.clone(), compiled.clone());
                }
                (compiled, false)
            }
        };
        Ok(Created::Pipeline {
            pipeline: DataGraphPipeline {
                compiled,
                layout: layout.clone(),
                identifier: identifier(&key),
            },
            cache_hit,
            duration: started.elapsed(),
        })
    }

    /// The [`GraphSource`] of a shader-module create info.
    fn source(
        device: &Device,
        info: &vk::DataGraphPipelineCreateInfoARM,
        sm: &vk::DataGraphPipelineShaderModuleCreateInfoARM,
        constant_data: &[Vec<u8>],
    ) -> Result<GraphSource> {
        let features = &device.features().data_graph_arm;
        ensure!(
            features.data_graph_shader_module,
            "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-dataGraphShaderModule-09886",
            "the dataGraphShaderModule feature was not enabled"
        );
        let words: Vec<u32> = match (&sm.module, &info.shader_module_create_info) {
            (Some(m), None) => m.words().to_vec(),
            (None, Some(inline)) => ShaderModule::new(inline.code.clone())?.words().to_vec(),
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-module-09873",
                    "module is not VK_NULL_HANDLE and a VkShaderModuleCreateInfo is chained too",
                ));
            }
            (None, None) => {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-module-09874",
                    "module is VK_NULL_HANDLE and no VkShaderModuleCreateInfo is chained",
                ));
            }
        };
        let spec = specialization(&sm.specialization_info)?;
        ensure!(
            spec.is_empty() || features.data_graph_specialization_constants,
            "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-dataGraphSpecializationConstants-09849",
            "pSpecializationInfo is given and dataGraphSpecializationConstants was not enabled"
        );
        let mut constants = Vec::new();
        let list = sm.constants.as_deref().unwrap_or(&[]);
        ensure!(
            list.len() == constant_data.len(),
            "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-pConstants-parameter",
            "internal: {} constants, {} data blocks",
            list.len(),
            constant_data.len()
        );
        for (c, data) in list.iter().zip(constant_data) {
            ensure!(
                !constants.iter().any(|k: &GraphConstant| k.id == c.id),
                "VUID-VkDataGraphPipelineShaderModuleCreateInfoARM-id-09774",
                "two constants have id {}",
                c.id
            );
            let Some(d) = &c.tensor_description_arm else {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineConstantARM-id-09850",
                    format!("constant {} has no VkTensorDescriptionARM", c.id),
                ));
            };
            let desc = describe(device, d)?;
            let elem = desc.format.size as usize;
            let packed = if desc.is_packed() {
                data.clone()
            } else {
                gather(&desc.dims, &desc.strides, elem, |offset, buf| {
                    let start = usize::try_from(offset).unwrap_or(usize::MAX);
                    let src = start
                        .checked_add(buf.len())
                        .and_then(|end| data.get(start..end))
                        .ok_or_else(|| {
                            Error::invalid(
                                "VUID-VkDataGraphPipelineConstantARM-pConstantData-parameter",
                                "constant data shorter than its strides say",
                            )
                        })?;
                    buf.copy_from_slice(src);
                    Ok(())
                })?
            };
            if let Some(s) =
                &c.data_graph_pipeline_constant_tensor_semi_structured_sparsity_info_arm
            {
                ensure!(
                    (s.dimension as usize) < desc.dims.len()
                        && s.group_size > 0
                        && desc.dims[s.dimension as usize] % u64::from(s.group_size) == 0
                        && s.zero_count <= s.group_size,
                    "VUID-VkDataGraphPipelineConstantTensorSemiStructuredSparsityInfoARM-dimension-09871",
                    "constant {}: sparsity hint (dimension {}, {} zeros per {}) does not fit its dimensions {:?}",
                    c.id,
                    s.dimension,
                    s.zero_count,
                    s.group_size,
                    desc.dims
                );
            }
            constants.push(GraphConstant {
                id: c.id,
                format: d.format,
                dims: desc.dims.clone(),
                data: packed,
            });
        }
        constants.sort_by_key(|c| c.id);
        let mut resources = Vec::new();
        for r in &info.resource_infos {
            ensure!(
                r.array_element == 0,
                "VUID-VkDataGraphPipelineResourceInfoARM-arrayElement-09779",
                "arrayElement {} must be 0",
                r.array_element
            );
            let Some(d) = &r.tensor_description_arm else {
                return Err(Error::invalid(
                    "VUID-VkDataGraphPipelineResourceInfoARM-descriptorSet-09851",
                    format!(
                        "resource info for set {} binding {} has no VkTensorDescriptionARM",
                        r.descriptor_set, r.binding
                    ),
                ));
            };
            ensure!(
                d.usage & USAGE_DATA_GRAPH != 0,
                "VUID-VkDataGraphPipelineResourceInfoARM-descriptorSet-09851",
                "set {} binding {}: the description's usage lacks VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM",
                r.descriptor_set,
                r.binding
            );
            let desc = describe(device, d)?;
            ensure!(
                !resources
                    .iter()
                    .any(|k: &ResourceDesc| k.set == r.descriptor_set && k.binding == r.binding),
                "VUID-VkDataGraphPipelineCreateInfoARM-pResourceInfos-09923",
                "two resource infos name set {} binding {}",
                r.descriptor_set,
                r.binding
            );
            resources.push(ResourceDesc {
                set: r.descriptor_set,
                binding: r.binding,
                array_element: r.array_element,
                tiling: d.tiling,
                format: d.format,
                dims: desc.dims.clone(),
                strides: d
                    .strides
                    .as_ref()
                    .map(|s| s.iter().map(|x| *x as u64).collect())
                    .unwrap_or_default(),
            });
        }
        Ok(GraphSource {
            words,
            entry: sm.name.clone(),
            specialization: spec,
            constants,
            resources,
        })
    }

    /// The compiled graph.
    pub fn compiled(&self) -> &Arc<CompiledGraph> {
        &self.compiled
    }

    /// The layout.
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }

    /// The value of property `property` (`isText`, bytes; text without its NUL).
    pub fn property(&self, property: i32) -> Option<(bool, &[u8])> {
        match property {
            PROPERTY_CREATION_LOG => Some((true, self.compiled.log.as_bytes())),
            PROPERTY_IDENTIFIER => Some((false, &self.identifier)),
            _ => None,
        }
    }

    /// Runs the graph on the tensors bound in `sets`: reads every input (at its view's strides),
    /// runs, writes every output.
    ///
    /// # Errors
    /// `DeviceLost` when a bound tensor lost its memory or the graph fails at run time.
    pub fn execute(
        &self,
        sets: &[Option<BoundSet>],
        transient: Option<(Arc<DeviceMemory>, u64)>,
    ) -> Result<()> {
        let c = &self.compiled;
        // Packed tensors are used in place; strided ones go through a packed copy. An output in
        // place must not overlap an input or another output (then it goes through a copy too).
        let mut in_ranges: Vec<(usize, usize)> = Vec::new();
        let mut in_copies: Vec<Option<Vec<u8>>> = Vec::new();
        let mut in_slices: Vec<(*const u8, usize)> = Vec::new();
        let mut keep: Vec<Arc<DeviceMemory>> = Vec::new();
        for b in &c.inputs {
            let (memory, offset, desc) = resolve(sets, b)?;
            let elem = b.info.dtype.bytes();
            let len = b.info.elements() * elem;
            if desc.is_packed() {
                let ptr = memory.raw_range(offset, len as u64)?;
                in_ranges.push((ptr as usize, len));
                in_slices.push((ptr, len));
                in_copies.push(None);
            } else {
                let copy = gather(&desc.dims, &desc.strides, elem, |o, buf| {
                    memory.read(offset + o, buf)
                })?;
                in_ranges.push((
                    memory.raw_range(offset, desc.footprint())? as usize,
                    desc.footprint() as usize,
                ));
                in_slices.push((std::ptr::null(), 0));
                in_copies.push(Some(copy));
            }
            keep.push(memory);
        }
        let overlaps = |a: (usize, usize), b: (usize, usize)| a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
        let mut out_places: Vec<(Arc<DeviceMemory>, u64, TensorDesc)> = Vec::new();
        let mut out_direct: Vec<Option<(*mut u8, usize)>> = Vec::new();
        let mut out_ranges: Vec<(usize, usize)> = Vec::new();
        for b in &c.outputs {
            let (memory, offset, desc) = resolve(sets, b)?;
            let len = b.info.elements() * b.info.dtype.bytes();
            let start = memory.raw_range(offset, desc.footprint())? as usize;
            let range = (start, desc.footprint() as usize);
            let free = !in_ranges.iter().any(|r| overlaps(*r, range))
                && !out_ranges.iter().any(|r| overlaps(*r, range));
            out_ranges.push(range);
            out_direct.push((desc.is_packed() && free).then_some((start as *mut u8, len)));
            out_places.push((memory, offset, desc));
        }
        let mut out_copies: Vec<Vec<u8>> = c
            .outputs
            .iter()
            .zip(&out_direct)
            .map(|(b, d)| {
                if d.is_some() {
                    Vec::new()
                } else {
                    vec![0u8; b.info.elements() * b.info.dtype.bytes()]
                }
            })
            .collect();
        {
            let inputs: Vec<&[u8]> = in_slices
                .iter()
                .zip(&in_copies)
                .map(|(&(ptr, len), copy)| match copy {
                    Some(v) => v.as_slice(),
                    // SAFETY: `len` bytes of a live, bound allocation (`keep` holds it), checked
                    // by `raw_range`; the Vulkan ordering rules keep other access to it out while
                    // the dispatch runs.
                    None => unsafe { std::slice::from_raw_parts(ptr, len) },
                })
                .collect();
            let mut outputs: Vec<&mut [u8]> = out_direct
                .iter()
                .zip(out_copies.iter_mut())
                .map(|(d, copy)| match d {
                    // SAFETY: as for the inputs; this range overlaps no input and no other
                    // output (checked above), so the slices do not alias.
                    Some((ptr, len)) => unsafe { std::slice::from_raw_parts_mut(*ptr, *len) },
                    None => copy.as_mut_slice(),
                })
                .collect();
            // The intermediate values go in the session's transient memory, unless it overlaps a
            // bound tensor (which the application must not do); then in host memory.
            let size = c.transient_size;
            let arena = match &transient {
                Some((memory, offset)) if size > 0 => {
                    let start = memory.raw_range(*offset, size)?;
                    let range = (start as usize, size as usize);
                    if in_ranges
                        .iter()
                        .chain(&out_ranges)
                        .any(|r| overlaps(*r, range))
                    {
                        tracing::warn!(
                            "vkCmdDispatchDataGraphARM: the session's TRANSIENT memory overlaps a tensor of the dispatch (the implementation owns that memory while the dispatch runs: a data race); its intermediate values go to host memory instead"
                        );
                        None
                    } else {
                        Some((start, size as usize))
                    }
                }
                _ => None,
            };
            let done = match arena {
                // SAFETY: `size` bytes of the live allocation bound to the session (`transient`
                // holds it), checked by `raw_range`, overlapping no tensor of this dispatch
                // (checked above); the application may not use it while the dispatch runs.
                Some((ptr, len)) => c.plan.run_in(&inputs, &mut outputs, unsafe {
                    std::slice::from_raw_parts_mut(ptr, len)
                }),
                None => c.plan.run(&inputs, &mut outputs),
            };
            done.map_err(|e| Error::DeviceLost(format!("data graph dispatch failed: {e}")))?;
        }
        for (((memory, offset, desc), d), bytes) in
            out_places.iter().zip(&out_direct).zip(&out_copies)
        {
            if d.is_some() {
                continue;
            }
            let elem = desc.format.size as usize;
            for_each_row(&desc.dims, &desc.strides, elem, |o, row, len| {
                memory.write(offset + o, &bytes[row..row + len])
            })?;
        }
        drop(keep);
        Ok(())
    }
}

/// The memory, offset and description of the tensor bound for `b`.
fn resolve(
    sets: &[Option<BoundSet>],
    b: &InterfaceBinding,
) -> Result<(Arc<DeviceMemory>, u64, TensorDesc)> {
    let lost = |what: &str| {
        Error::DeviceLost(format!(
            "data graph tensor at set {} binding {}: {what}",
            b.set, b.binding
        ))
    };
    let set = sets
        .get(b.set as usize)
        .and_then(Option::as_ref)
        .ok_or_else(|| lost("no descriptor set is bound"))?;
    let Some((_, Descriptor::Tensor(view))) = set.set.get(b.binding, 0) else {
        return Err(lost("the descriptor is not a written tensor view"));
    };
    let tensor = view.tensor();
    let desc = tensor.desc().clone();
    let dims: Vec<u64> = b.info.shape.iter().map(|d| *d as u64).collect();
    if desc.dims != dims || desc.format.size as usize != b.info.dtype.bytes() {
        return Err(lost(&format!(
            "the bound tensor ({} {:?}) is not the graph's {}",
            desc.format.name, desc.dims, b.info
        )));
    }
    let binding = tensor
        .binding()
        .ok_or_else(|| lost("the tensor has no memory bound"))?;
    Ok((binding.memory.clone(), binding.offset, desc))
}

/// A `VkDataGraphPipelineSessionARM`.
#[derive(Debug)]
pub struct DataGraphSession {
    pipeline: Arc<crate::pipeline::Pipeline>,
    transient: Mutex<Option<(Arc<DeviceMemory>, u64)>>,
}

/// One reported bind point (`VkDataGraphPipelineSessionBindPointRequirementARM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindPointRequirement {
    /// `bindPoint`.
    pub bind_point: i32,
    /// `numObjects`.
    pub objects: u32,
}

impl DataGraphSession {
    /// `vkCreateDataGraphPipelineSessionARM`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn create(
        device: &Device,
        info: &vk::DataGraphPipelineSessionCreateInfoARM,
    ) -> Result<Self> {
        ensure!(
            device.features().data_graph_arm.data_graph,
            "VUID-vkCreateDataGraphPipelineSessionARM-dataGraph-09781",
            "the dataGraph feature was not enabled"
        );
        ensure!(
            info.data_graph_pipeline.data_graph().is_some(),
            "VUID-VkDataGraphPipelineSessionCreateInfoARM-dataGraphPipeline-09782",
            "dataGraphPipeline is not a data graph pipeline"
        );
        ensure!(
            info.flags & !VK_DATA_GRAPH_PIPELINE_SESSION_CREATE_PROTECTED_BIT_ARM == 0,
            "VUID-VkDataGraphPipelineSessionCreateInfoARM-flags-parameter",
            "unknown session flags {:#x}",
            info.flags
        );
        ensure!(
            info.flags == 0,
            "VUID-VkDataGraphPipelineSessionCreateInfoARM-protectedMemory-09783",
            "PROTECTED sessions need protectedMemory, which is not supported"
        );
        Ok(DataGraphSession {
            pipeline: info.data_graph_pipeline.clone(),
            transient: Mutex::new(None),
        })
    }

    /// The session's pipeline.
    pub fn pipeline(&self) -> Option<&DataGraphPipeline> {
        self.pipeline.data_graph()
    }

    /// The session's pipeline handle object.
    pub fn pipeline_object(&self) -> &Arc<crate::pipeline::Pipeline> {
        &self.pipeline
    }

    fn transient_size(&self) -> u64 {
        self.pipeline().map_or(0, |p| p.compiled.transient_size)
    }

    /// `vkGetDataGraphPipelineSessionBindPointRequirementsARM`: one `TRANSIENT` memory bind
    /// point when the graph has intermediate tensors, none otherwise.
    pub fn bind_point_requirements(&self) -> Vec<BindPointRequirement> {
        if self.transient_size() == 0 {
            return Vec::new();
        }
        vec![BindPointRequirement {
            bind_point: BIND_POINT_TRANSIENT,
            objects: 1,
        }]
    }

    fn check_bind_point(&self, bind_point: i32, object: u32, vuid: &'static str) -> Result<()> {
        ensure!(
            bind_point == BIND_POINT_TRANSIENT && self.transient_size() > 0 && object == 0,
            vuid,
            "bind point {bind_point} object {object} is not one the session reports ({})",
            if self.transient_size() > 0 {
                "TRANSIENT, object 0"
            } else {
                "none: the graph has no intermediate tensors"
            }
        );
        Ok(())
    }

    /// `vkGetDataGraphPipelineSessionMemoryRequirementsARM`: (size, alignment).
    ///
    /// # Errors
    /// `Validation` for a bind point the session does not report.
    pub fn memory_requirements(&self, bind_point: i32, object: u32) -> Result<(u64, u64)> {
        self.check_bind_point(
            bind_point,
            object,
            "VUID-VkDataGraphPipelineSessionMemoryRequirementsInfoARM-bindPoint-09784",
        )?;
        Ok((self.transient_size(), TRANSIENT_ALIGNMENT))
    }

    /// `vkBindDataGraphPipelineSessionMemoryARM` of one bind point.
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn bind(
        &self,
        bind_point: i32,
        object: u32,
        memory: Arc<DeviceMemory>,
        offset: u64,
    ) -> Result<()> {
        self.check_bind_point(
            bind_point,
            object,
            "VUID-VkBindDataGraphPipelineSessionMemoryInfoARM-bindPoint-09785",
        )?;
        ensure!(
            offset.is_multiple_of(TRANSIENT_ALIGNMENT),
            "VUID-VkBindDataGraphPipelineSessionMemoryInfoARM-memoryOffset-09788",
            "memoryOffset {offset} is not a multiple of the required alignment {TRANSIENT_ALIGNMENT}"
        );
        let size = self.transient_size();
        ensure!(
            offset < memory.size() && size <= memory.size() - offset,
            "VUID-VkBindDataGraphPipelineSessionMemoryInfoARM-size-09789",
            "{size} bytes at offset {offset} do not fit in the {}-byte allocation",
            memory.size()
        );
        let mut slot = self.transient.lock();
        ensure!(
            slot.is_none(),
            "VUID-VkBindDataGraphPipelineSessionMemoryInfoARM-session-09786",
            "the session's TRANSIENT bind point is already bound"
        );
        *slot = Some((memory, offset));
        Ok(())
    }

    /// The memory bound at the TRANSIENT bind point, and its offset.
    pub fn transient_memory(&self) -> Option<(Arc<DeviceMemory>, u64)> {
        self.transient.lock().clone()
    }

    /// Whether every reported bind point is bound.
    pub fn is_bound(&self) -> bool {
        self.transient_size() == 0 || self.transient.lock().is_some()
    }
}

/// Keyed graph entries of a pipeline cache.
#[derive(Debug, Default)]
pub struct GraphEntries {
    entries: Mutex<HashMap<[u8; 16], GraphEntry>>,
}

#[derive(Debug, Clone)]
struct GraphEntry {
    source: Arc<GraphSource>,
    compiled: Option<Arc<CompiledGraph>>,
}

impl GraphEntries {
    /// The compiled graph stored for `key` (compiled now when the entry came from serialized
    /// data), when its source is `source`.
    pub fn get(&self, key: &[u8; 16], source: &GraphSource) -> Option<Option<Arc<CompiledGraph>>> {
        let entries = self.entries.lock();
        let e = entries.get(key)?;
        (*e.source == *source).then(|| e.compiled.clone())
    }

    /// The source stored under identifier `id` (hex text of the key).
    pub fn by_identifier(&self, id: &[u8]) -> Option<(Arc<GraphSource>, [u8; 16])> {
        let entries = self.entries.lock();
        entries
            .iter()
            .find(|(k, _)| identifier(k) == id)
            .map(|(k, e)| (e.source.clone(), *k))
    }

    /// Stores an entry.
    pub fn insert(
        &self,
        key: [u8; 16],
        source: Arc<GraphSource>,
        compiled: Option<Arc<CompiledGraph>>,
    ) {
        self.entries
            .lock()
            .entry(key)
            .and_modify(|e| {
                if e.compiled.is_none() {
                    e.compiled = compiled.clone();
                }
            })
            .or_insert(GraphEntry { source, compiled });
    }

    /// Whether no graph is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.lock().is_empty()
    }

    /// The entries serialized: count, then (key, length, encoding) each, sorted by key.
    pub fn serialize(&self) -> Vec<u8> {
        let entries = self.entries.lock();
        let mut keys: Vec<_> = entries.keys().copied().collect();
        keys.sort_unstable();
        let mut w = Writer::default();
        w.u32(keys.len() as u32);
        for k in keys {
            w.0.extend_from_slice(&k);
            w.bytes(&entries[&k].source.encode());
        }
        w.0
    }

    /// Adds the entries of [`GraphEntries::serialize`]'s bytes; invalid data adds nothing.
    pub fn deserialize(&self, bytes: &[u8]) {
        let mut r = Reader(bytes);
        let Some(n) = r.count(24) else {
            return;
        };
        let mut found = Vec::new();
        for _ in 0..n {
            let Some(key) = r.take(16).and_then(|k| <[u8; 16]>::try_from(k).ok()) else {
                return;
            };
            let Some(source) = r.bytes().and_then(|b| GraphSource::decode(&b)) else {
                return;
            };
            if digest(&source.encode()) != key {
                return;
            }
            found.push((key, source));
        }
        for (key, source) in found {
            self.insert(key, Arc::new(source), None);
        }
    }

    /// Copies every entry of `other` in.
    pub fn merge(&self, other: &GraphEntries) {
        let theirs: Vec<_> = other
            .entries
            .lock()
            .iter()
            .map(|(k, e)| (*k, e.clone()))
            .collect();
        for (k, e) in theirs {
            self.insert(k, e.source, e.compiled);
        }
    }
}

impl PipelineCache {
    /// The source stored under identifier `id`.
    pub fn graph_by_identifier(&self, id: &[u8]) -> Option<(Arc<GraphSource>, [u8; 16])> {
        self.graphs().by_identifier(id)
    }

    /// Stores a compiled graph.
    pub fn insert_graph(
        &self,
        key: [u8; 16],
        source: Arc<GraphSource>,
        compiled: Arc<CompiledGraph>,
    ) {
        self.graphs().insert(key, source, Some(compiled));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_round_trip_through_their_encoding() {
        let s = GraphSource {
            words: vec![0x0723_0203, 7, 9],
            entry: "main".into(),
            specialization: vec![(3, vec![1, 0, 0, 0])],
            constants: vec![GraphConstant {
                id: 0,
                format: VK_FORMAT_R8_SINT,
                dims: vec![2, 2],
                data: vec![1, 2, 3, 4],
            }],
            resources: vec![ResourceDesc {
                set: 0,
                binding: 1,
                array_element: 0,
                tiling: VK_TENSOR_TILING_LINEAR_ARM,
                format: VK_FORMAT_R32_SFLOAT,
                dims: vec![1, 8],
                strides: vec![64, 4],
            }],
        };
        let bytes = s.encode();
        assert_eq!(GraphSource::decode(&bytes), Some(s));
        assert_eq!(GraphSource::decode(&bytes[..bytes.len() - 1]), None);
        let id = identifier(&digest(&bytes));
        assert_eq!(id.len(), 32);
        assert!(id.iter().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn strided_rows_visit_every_element_once() {
        // [2, 3] of 4-byte elements, rows 16 bytes apart: two runs of 12 bytes.
        let mut runs = Vec::new();
        for_each_row(&[2, 3], &[16, 4], 4, |o, p, n| {
            runs.push((o, p, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, vec![(0, 0, 12), (16, 12, 12)]);
        // Packed: one run.
        runs.clear();
        for_each_row(&[2, 3], &[12, 4], 4, |o, p, n| {
            runs.push((o, p, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, vec![(0, 0, 24)]);
        // Transposed strides: element by element.
        runs.clear();
        for_each_row(&[2, 2], &[4, 8], 4, |o, p, n| {
            runs.push((o, p, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, vec![(0, 0, 4), (8, 4, 4), (4, 8, 4), (12, 12, 4)]);
    }

    #[test]
    fn serialized_entries_survive_and_garbage_is_ignored() {
        let entries = GraphEntries::default();
        let s = GraphSource {
            words: vec![1, 2, 3],
            entry: "g".into(),
            ..GraphSource::default()
        };
        let key = digest(&s.encode());
        entries.insert(key, Arc::new(s.clone()), None);
        let bytes = entries.serialize();
        let copy = GraphEntries::default();
        copy.deserialize(&bytes);
        assert!(copy.get(&key, &s).is_some());
        assert!(copy.by_identifier(&identifier(&key)).is_some());
        let junk = GraphEntries::default();
        junk.deserialize(&[9, 9, 9, 9, 1]);
        junk.deserialize(&bytes[..bytes.len() - 2]);
        assert!(junk.get(&key, &s).is_none());
    }
}
