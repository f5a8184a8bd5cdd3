//! Shader modules, compute pipelines, pipeline caches, and the descriptor resolution a dispatch
//! does before it hands raw memory records to the SPIR-V interpreter.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use tessera_spirv::{
    BoundResource, Module, Program, ResourceDecl, ResourceKind, Resources, TensorElement,
};

use crate::descriptor::{Descriptor, DescriptorKind, DescriptorSet, PipelineLayout};
use crate::{Error, Result, ensure};

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
    /// Specialises `entry` of `module` and checks it against `layout`.
    ///
    /// # Errors
    /// `Validation` for SPIR-V the device cannot run, or a shader resource the layout lacks.
    pub fn new(
        module: &ShaderModule,
        entry: &str,
        spec: &[(u32, Vec<u8>)],
        layout: Arc<PipelineLayout>,
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
        Ok(ComputePipeline {
            program: Arc::new(program),
            layout,
        })
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
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
    Some(match format {
        1_000_460_000 => TensorElement::Bool8,
        13 => TensorElement::U8,
        14 => TensorElement::I8,
        74 => TensorElement::U16,
        75 => TensorElement::I16,
        76 => TensorElement::F16,
        1_000_460_001 => TensorElement::BF16,
        98 => TensorElement::U32,
        99 => TensorElement::I32,
        100 => TensorElement::F32,
        110 => TensorElement::U64,
        111 => TensorElement::I64,
        112 => TensorElement::F64,
        1_000_460_002 => TensorElement::F8E4M3,
        1_000_460_003 => TensorElement::F8E5M2,
        _ => return None,
    })
}

/// Descriptors resolved to raw memory records for one dispatch.
#[derive(Debug, Default)]
pub struct ResolvedResources {
    map: HashMap<(u32, u32, u32), BoundResource>,
    /// Copies of inline uniform blocks, alive for the dispatch (the records point into them).
    _inline: Vec<Box<[u8]>>,
}

impl Resources for ResolvedResources {
    fn get(&self, set: u32, binding: u32, index: u32) -> Option<&BoundResource> {
        self.map.get(&(set, binding, index))
    }
}

impl ResolvedResources {
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
