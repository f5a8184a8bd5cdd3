//! Descriptor set layouts, pools and sets, and pipeline layouts.
//!
//! A set stores one [`Descriptor`] per array element of each binding in a flat slot array (the
//! layout gives each binding's first slot), plus the bytes of its inline uniform blocks. Sets are
//! read when a dispatch executes, so update-after-bind works without extra machinery.

use std::sync::{Arc, Weak};

use parking_lot::{Mutex, RwLock};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::buffer::Buffer;
use crate::device::Device;
use crate::tensor::TensorView;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The descriptor types compute shaders can use on this device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorKind {
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`.
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC`.
    UniformBufferDynamic,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC`.
    StorageBufferDynamic,
    /// `VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK` (`count` is the block's size in bytes).
    InlineUniformBlock,
    /// `VK_DESCRIPTOR_TYPE_TENSOR_ARM`.
    Tensor,
}

impl DescriptorKind {
    /// Whether the descriptor takes a dynamic offset at bind time.
    pub fn is_dynamic(self) -> bool {
        matches!(
            self,
            DescriptorKind::UniformBufferDynamic | DescriptorKind::StorageBufferDynamic
        )
    }

    /// Whether the descriptor is a buffer range.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            DescriptorKind::UniformBuffer
                | DescriptorKind::StorageBuffer
                | DescriptorKind::UniformBufferDynamic
                | DescriptorKind::StorageBufferDynamic
        )
    }
}

/// `VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT`.
pub const BINDING_UPDATE_AFTER_BIND: u32 = VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT;
/// `VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT`.
pub const BINDING_PARTIALLY_BOUND: u32 = VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT;
/// `VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT`.
pub const BINDING_VARIABLE_DESCRIPTOR_COUNT: u32 =
    VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;

impl DescriptorKind {
    /// The kind of a `VkDescriptorType`.
    ///
    /// # Errors
    /// `NotSupported` for image, sampler, texel-buffer and other types this device cannot use.
    pub fn from_vk(ty: VkDescriptorType) -> Result<Self> {
        Ok(match ty {
            VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER => DescriptorKind::UniformBuffer,
            VK_DESCRIPTOR_TYPE_STORAGE_BUFFER => DescriptorKind::StorageBuffer,
            VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC => DescriptorKind::UniformBufferDynamic,
            VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC => DescriptorKind::StorageBufferDynamic,
            VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK => DescriptorKind::InlineUniformBlock,
            VK_DESCRIPTOR_TYPE_TENSOR_ARM => DescriptorKind::Tensor,
            other => {
                return Err(Error::NotSupported(format!(
                    "descriptor type {other}: Tessera has no images, samplers or texel buffers"
                )));
            }
        })
    }
}

/// Checks `VkDescriptorBindingFlags` against the descriptor-indexing features Tessera reports:
/// update-after-bind (every descriptor is read when a dispatch executes), update-unused-while-
/// pending and partially-bound (an unwritten descriptor reads as out of bounds) for the
/// non-dynamic buffer and tensor descriptors; no variable descriptor counts.
fn check_binding_flags(kind: DescriptorKind, flags: u32, uab_pool: bool) -> Result<()> {
    let uab = VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT;
    let supported = uab
        | VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT
        | VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT;
    ensure!(
        flags & !supported == 0,
        "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-descriptorBindingVariableDescriptorCount-03014",
        "binding flags {flags:#x}: variable descriptor counts are not supported"
    );
    if flags & uab != 0 {
        ensure!(
            !kind.is_dynamic() && kind != DescriptorKind::InlineUniformBlock,
            "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-None-03005",
            "UPDATE_AFTER_BIND on a {kind:?} binding is not supported"
        );
        ensure!(
            uab_pool,
            "VUID-VkDescriptorSetLayoutCreateInfo-flags-03000",
            "an UPDATE_AFTER_BIND binding needs a layout created with UPDATE_AFTER_BIND_POOL"
        );
    }
    Ok(())
}

/// One `VkDescriptorSetLayoutBinding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutBinding {
    /// Binding number.
    pub binding: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// Array length (bytes for an inline uniform block).
    pub count: u32,
    /// `VkDescriptorBindingFlags`.
    pub flags: u32,
}

/// A descriptor set layout.
#[derive(Debug)]
pub struct DescriptorSetLayout {
    bindings: Vec<LayoutBinding>,
    first_slot: Vec<u32>,
    slots: u32,
    inline_bytes: u32,
}

impl DescriptorSetLayout {
    /// `vkCreateDescriptorSetLayout`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken; `NotSupported` for descriptor types Tessera cannot
    /// use.
    pub fn create(_device: &Device, info: &vk::DescriptorSetLayoutCreateInfo) -> Result<Self> {
        let uab_pool = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
        ensure!(
            info.flags & !uab_pool == 0,
            "VUID-VkDescriptorSetLayoutCreateInfo-flags-parameter",
            "layout flags {:#x}: only UPDATE_AFTER_BIND_POOL is supported (no push descriptors)",
            info.flags
        );
        let binding_flags: &[u32] = match &info.descriptor_set_layout_binding_flags_create_info {
            Some(f) => {
                ensure!(
                    f.binding_flags.is_empty() || f.binding_flags.len() == info.bindings.len(),
                    "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-bindingCount-03002",
                    "bindingCount {} differs from the layout's {}",
                    f.binding_flags.len(),
                    info.bindings.len()
                );
                &f.binding_flags
            }
            None => &[],
        };
        let bindings = info
            .bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let kind = DescriptorKind::from_vk(b.descriptor_type)?;
                let flags = binding_flags.get(i).copied().unwrap_or(0);
                check_binding_flags(kind, flags, info.flags & uab_pool != 0)?;
                Ok(LayoutBinding {
                    binding: b.binding,
                    kind,
                    count: b.descriptor_count,
                    flags,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        DescriptorSetLayout::new(bindings)
    }

    /// `vkGetDescriptorSetLayoutSupport`: whether the layout could be created; no variable
    /// descriptor counts.
    pub fn support(
        device: &Device,
        info: &vk::DescriptorSetLayoutCreateInfo,
    ) -> vk::DescriptorSetLayoutSupport {
        vk::DescriptorSetLayoutSupport {
            supported: Self::create(device, info).is_ok(),
            descriptor_set_variable_descriptor_count_layout_support: Some(Box::default()),
        }
    }

    /// A layout from its bindings.
    ///
    /// # Errors
    /// `Validation` for duplicate binding numbers or misplaced flags.
    pub fn new(mut bindings: Vec<LayoutBinding>) -> Result<Self> {
        bindings.sort_by_key(|b| b.binding);
        for w in bindings.windows(2) {
            ensure!(
                w[0].binding != w[1].binding,
                "VUID-VkDescriptorSetLayoutCreateInfo-binding-00279",
                "binding {} appears twice",
                w[0].binding
            );
        }
        if let Some((last, rest)) = bindings.split_last() {
            ensure!(
                rest.iter()
                    .all(|b| b.flags & BINDING_VARIABLE_DESCRIPTOR_COUNT == 0),
                "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-pBindingFlags-03004",
                "only the highest binding may have a variable descriptor count"
            );
            ensure!(
                !(last.kind.is_dynamic() && last.flags & BINDING_VARIABLE_DESCRIPTOR_COUNT != 0),
                "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-pBindingFlags-03015",
                "a dynamic buffer binding cannot have a variable descriptor count"
            );
        }
        for b in &bindings {
            if b.kind == DescriptorKind::InlineUniformBlock {
                ensure!(
                    b.count % 4 == 0,
                    "VUID-VkDescriptorSetLayoutBinding-descriptorType-02209",
                    "inline uniform block size {} is not a multiple of 4",
                    b.count
                );
            }
        }
        let mut first_slot = Vec::with_capacity(bindings.len());
        let (mut slots, mut inline_bytes) = (0u32, 0u32);
        for b in &bindings {
            if b.kind == DescriptorKind::InlineUniformBlock {
                first_slot.push(inline_bytes);
                inline_bytes = inline_bytes.saturating_add(b.count);
            } else {
                first_slot.push(slots);
                slots = slots.saturating_add(b.count);
            }
        }
        Ok(DescriptorSetLayout {
            bindings,
            first_slot,
            slots,
            inline_bytes,
        })
    }

    /// The bindings, sorted by number.
    pub fn bindings(&self) -> &[LayoutBinding] {
        &self.bindings
    }

    /// The binding with number `binding` and its first slot (or inline byte offset).
    pub fn binding(&self, binding: u32) -> Option<(&LayoutBinding, u32)> {
        let i = self
            .bindings
            .binary_search_by_key(&binding, |b| b.binding)
            .ok()?;
        Some((&self.bindings[i], self.first_slot[i]))
    }

    /// Number of dynamic descriptors (offsets expected at bind time), in binding order.
    pub fn dynamic_count(&self) -> u32 {
        self.bindings
            .iter()
            .filter(|b| b.kind.is_dynamic())
            .map(|b| b.count)
            .sum()
    }
}

/// What one descriptor slot holds.
#[derive(Debug, Clone, Default)]
pub enum Descriptor {
    /// Never written (or partially bound).
    #[default]
    Empty,
    /// A buffer range (`range` resolved from `VK_WHOLE_SIZE`).
    Buffer {
        buffer: Arc<Buffer>,
        offset: u64,
        range: u64,
    },
    /// A tensor view.
    Tensor(Arc<TensorView>),
}

/// A descriptor set.
#[derive(Debug)]
pub struct DescriptorSet {
    layout: Arc<DescriptorSetLayout>,
    slots: RwLock<Vec<Descriptor>>,
    inline: RwLock<Vec<u8>>,
}

impl DescriptorSet {
    fn new(layout: Arc<DescriptorSetLayout>) -> Self {
        let slots = vec![Descriptor::Empty; layout.slots as usize];
        let inline = vec![0; layout.inline_bytes as usize];
        DescriptorSet {
            layout,
            slots: RwLock::new(slots),
            inline: RwLock::new(inline),
        }
    }

    /// The layout.
    pub fn layout(&self) -> &Arc<DescriptorSetLayout> {
        &self.layout
    }

    /// Writes `descriptors` starting at `array_element` of `binding`, rolling over into the
    /// following bindings as `vkUpdateDescriptorSets` specifies.
    ///
    /// # Errors
    /// `Validation` when the binding does not exist, types differ, or the write runs past the end.
    pub fn write(
        &self,
        binding: u32,
        array_element: u32,
        kind: DescriptorKind,
        descriptors: Vec<Descriptor>,
    ) -> Result<()> {
        let mut slots = self.slots.write();
        let (mut b, mut element) = (binding, array_element);
        for d in descriptors {
            let (lb, first) = loop {
                let (lb, first) = self.layout.binding(b).ok_or_else(|| {
                    Error::invalid(
                        "VUID-VkWriteDescriptorSet-dstBinding-00316",
                        format!("binding {b} does not exist in the set's layout"),
                    )
                })?;
                if element < lb.count {
                    break (lb, first);
                }
                element -= lb.count;
                b = self
                    .layout
                    .bindings
                    .iter()
                    .find(|x| x.binding > b)
                    .map(|x| x.binding)
                    .ok_or_else(|| {
                        Error::invalid(
                            "VUID-VkWriteDescriptorSet-dstArrayElement-00321",
                            "the write runs past the last binding",
                        )
                    })?;
            };
            ensure!(
                lb.kind == kind,
                "VUID-VkWriteDescriptorSet-descriptorType-00319",
                "binding {b} has type {:?}, the write {kind:?}",
                lb.kind
            );
            slots[(first + element) as usize] = d;
            element += 1;
        }
        Ok(())
    }

    /// Writes inline uniform block bytes at `offset` of `binding`.
    ///
    /// # Errors
    /// `Validation` when the binding is not an inline block or the bytes do not fit.
    pub fn write_inline(&self, binding: u32, offset: u32, bytes: &[u8]) -> Result<()> {
        let (lb, first) = self.layout.binding(binding).ok_or_else(|| {
            Error::invalid(
                "VUID-VkWriteDescriptorSet-dstBinding-00316",
                format!("binding {binding} does not exist"),
            )
        })?;
        ensure!(
            lb.kind == DescriptorKind::InlineUniformBlock,
            "VUID-VkWriteDescriptorSet-descriptorType-00319",
            "binding {binding} is not an inline uniform block"
        );
        ensure!(
            offset.is_multiple_of(4)
                && bytes.len().is_multiple_of(4)
                && u64::from(offset) + bytes.len() as u64 <= u64::from(lb.count),
            "VUID-VkWriteDescriptorSet-descriptorType-02220",
            "inline write of {} bytes at {offset} does not fit the {}-byte block",
            bytes.len(),
            lb.count
        );
        let start = (first + offset) as usize;
        self.inline.write()[start..start + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// The descriptor at `index` of `binding` (`None` when out of range).
    pub fn get(&self, binding: u32, index: u32) -> Option<(DescriptorKind, Descriptor)> {
        let (lb, first) = self.layout.binding(binding)?;
        if lb.kind == DescriptorKind::InlineUniformBlock || index >= lb.count {
            return None;
        }
        Some((lb.kind, self.slots.read()[(first + index) as usize].clone()))
    }

    /// A copy of inline uniform block `binding`'s bytes.
    pub fn inline_bytes(&self, binding: u32) -> Option<Vec<u8>> {
        let (lb, first) = self.layout.binding(binding)?;
        (lb.kind == DescriptorKind::InlineUniformBlock)
            .then(|| self.inline.read()[first as usize..(first + lb.count) as usize].to_vec())
    }

    /// `VkCopyDescriptorSet`: copies `count` descriptors.
    ///
    /// # Errors
    /// `Validation` when a range does not exist or the types differ.
    pub fn copy_from(
        &self,
        src: &DescriptorSet,
        src_binding: u32,
        src_element: u32,
        dst_binding: u32,
        dst_element: u32,
        count: u32,
    ) -> Result<()> {
        let (sl, _) = src.layout.binding(src_binding).ok_or_else(|| {
            Error::invalid(
                "VUID-VkCopyDescriptorSet-srcBinding-00345",
                format!("source binding {src_binding} does not exist"),
            )
        })?;
        if sl.kind == DescriptorKind::InlineUniformBlock {
            let bytes = src.inline_bytes(src_binding).unwrap_or_default();
            let end = src_element as usize + count as usize;
            ensure!(
                end <= bytes.len(),
                "VUID-VkCopyDescriptorSet-srcBinding-02223",
                "inline copy past the block"
            );
            return self.write_inline(dst_binding, dst_element, &bytes[src_element as usize..end]);
        }
        let mut items = Vec::with_capacity(count as usize);
        for i in 0..count {
            let (_, d) = src.get(src_binding, src_element + i).ok_or_else(|| {
                Error::invalid(
                    "VUID-VkCopyDescriptorSet-srcArrayElement-00346",
                    "the copy runs past the source binding",
                )
            })?;
            items.push(d);
        }
        self.write(dst_binding, dst_element, sl.kind, items)
    }
}

/// A descriptor pool.
#[derive(Debug)]
pub struct DescriptorPool {
    max_sets: u32,
    free_individual: bool,
    sets: Mutex<Vec<Weak<DescriptorSet>>>,
}

impl DescriptorPool {
    /// `vkCreateDescriptorPool`.
    ///
    /// # Errors
    /// `Validation` for `maxSets == 0`.
    pub fn create(info: &vk::DescriptorPoolCreateInfo) -> Result<Self> {
        let free = info.flags & VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT != 0;
        Self::new(info.max_sets, free)
    }

    /// `vkAllocateDescriptorSets`: one set per layout, all or nothing.
    ///
    /// # Errors
    /// `OutOfPoolMemory` when the pool is full (no set is allocated then).
    pub fn allocate_sets(
        &self,
        info: &vk::DescriptorSetAllocateInfo,
    ) -> Result<Vec<Arc<DescriptorSet>>> {
        let mut made = Vec::with_capacity(info.set_layouts.len());
        for layout in &info.set_layouts {
            match self.allocate(layout.clone()) {
                Ok(set) => made.push(set),
                Err(e) => {
                    made.iter().for_each(|s| self.forget(s));
                    return Err(e);
                }
            }
        }
        Ok(made)
    }

    /// Fails unless sets may be freed one by one.
    ///
    /// # Errors
    /// `Validation` (VUID-vkFreeDescriptorSets-descriptorPool-00312).
    pub fn check_free_individual(&self) -> Result<()> {
        ensure!(
            self.free_individual,
            "VUID-vkFreeDescriptorSets-descriptorPool-00312",
            "the pool was not created with VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT"
        );
        Ok(())
    }

    /// `vkFreeDescriptorSets` of one set.
    ///
    /// # Errors
    /// `Validation` when the set was not allocated from this pool.
    pub fn free(&self, set: &Arc<DescriptorSet>) -> Result<()> {
        let owned = self
            .sets
            .lock()
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(set)));
        ensure!(
            owned,
            "VUID-vkFreeDescriptorSets-pDescriptorSets-parent",
            "the descriptor set was not allocated from this pool"
        );
        self.forget(set);
        Ok(())
    }

    /// `vkResetDescriptorPool` / `vkDestroyDescriptorPool`: the live sets it frees.
    pub fn reset(&self) -> Vec<Arc<DescriptorSet>> {
        let mut sets = self.sets.lock();
        let live = sets.iter().filter_map(Weak::upgrade).collect();
        sets.clear();
        live
    }

    /// A pool for `max_sets` sets; `free_individual` is `FREE_DESCRIPTOR_SET_BIT`.
    ///
    /// # Errors
    /// `Validation` for `max_sets == 0`.
    pub fn new(max_sets: u32, free_individual: bool) -> Result<Self> {
        ensure!(
            max_sets > 0,
            "VUID-VkDescriptorPoolCreateInfo-descriptorPoolOverallocation-09227",
            "maxSets is 0"
        );
        Ok(DescriptorPool {
            max_sets,
            free_individual,
            sets: Mutex::new(Vec::new()),
        })
    }

    /// Allocates a set.
    ///
    /// # Errors
    /// `OutOfPoolMemory` (as `OutOfHostMemory`-like `PoolExhausted`) when `maxSets` are live.
    pub fn allocate(&self, layout: Arc<DescriptorSetLayout>) -> Result<Arc<DescriptorSet>> {
        let mut sets = self.sets.lock();
        sets.retain(|w| w.strong_count() > 0);
        if sets.len() as u32 >= self.max_sets {
            return Err(Error::OutOfPoolMemory(format!(
                "the pool's {} sets are all allocated",
                self.max_sets
            )));
        }
        let set = Arc::new(DescriptorSet::new(layout));
        sets.push(Arc::downgrade(&set));
        Ok(set)
    }

    fn forget(&self, set: &Arc<DescriptorSet>) {
        self.sets
            .lock()
            .retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(set)));
    }
}

/// One push-constant range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantRange {
    /// Shader stages.
    pub stages: u32,
    /// Byte offset.
    pub offset: u32,
    /// Byte size.
    pub size: u32,
}

/// A pipeline layout.
#[derive(Debug)]
pub struct PipelineLayout {
    /// The set layouts, by set number (`None`: a null layout, allowed with graphics-pipeline
    /// libraries only, kept for index alignment).
    pub set_layouts: Vec<Option<Arc<DescriptorSetLayout>>>,
    /// Push-constant ranges.
    pub push_ranges: Vec<PushConstantRange>,
}

impl PipelineLayout {
    /// `vkCreatePipelineLayout`.
    ///
    /// # Errors
    /// `Validation` for push-constant ranges outside `maxPushConstantsSize`.
    pub fn create(device: &Device, info: &vk::PipelineLayoutCreateInfo) -> Result<Self> {
        let max = device.physical().limits().max_push_constants_size;
        let ranges = info
            .push_constant_ranges
            .iter()
            .map(|r| PushConstantRange {
                stages: r.stage_flags,
                offset: r.offset,
                size: r.size,
            })
            .collect();
        Self::with_limit(info.set_layouts.clone(), ranges, max)
    }

    /// A pipeline layout.
    ///
    /// # Errors
    /// `Validation` for push-constant ranges outside `maxPushConstantsSize`.
    pub fn new(
        set_layouts: Vec<Option<Arc<DescriptorSetLayout>>>,
        push_ranges: Vec<PushConstantRange>,
    ) -> Result<Self> {
        Self::with_limit(
            set_layouts,
            push_ranges,
            crate::limits::MAX_PUSH_CONSTANTS_SIZE,
        )
    }

    fn with_limit(
        set_layouts: Vec<Option<Arc<DescriptorSetLayout>>>,
        push_ranges: Vec<PushConstantRange>,
        max_push: u32,
    ) -> Result<Self> {
        for r in &push_ranges {
            ensure!(
                r.offset % 4 == 0 && r.size % 4 == 0 && r.size > 0,
                "VUID-VkPushConstantRange-offset-00295",
                "push-constant range {}+{} is not a non-empty multiple of 4",
                r.offset,
                r.size
            );
            ensure!(
                u64::from(r.offset) + u64::from(r.size) <= u64::from(max_push),
                "VUID-VkPushConstantRange-size-00298",
                "push-constant range {}+{} exceeds maxPushConstantsSize",
                r.offset,
                r.size
            );
        }
        Ok(PipelineLayout {
            set_layouts,
            push_ranges,
        })
    }

    /// Total push-constant bytes the layout covers.
    pub fn push_size(&self) -> u32 {
        self.push_ranges
            .iter()
            .map(|r| r.offset + r.size)
            .max()
            .unwrap_or(0)
    }
}

/// A buffer descriptor from a `VkDescriptorBufferInfo`.
fn buffer_descriptor(kind: DescriptorKind, info: &vk::DescriptorBufferInfo) -> Result<Descriptor> {
    let Some(buf) = info.buffer.clone() else {
        return Err(Error::invalid(
            "VUID-VkDescriptorBufferInfo-buffer-02998",
            "buffer is VK_NULL_HANDLE and the nullDescriptor feature is not supported",
        ));
    };
    ensure!(
        info.offset < buf.size(),
        "VUID-VkDescriptorBufferInfo-offset-00340",
        "offset {} is not less than the buffer size {}",
        info.offset,
        buf.size()
    );
    let range = if info.range == VK_WHOLE_SIZE {
        buf.size() - info.offset
    } else {
        info.range
    };
    ensure!(
        range > 0 && range <= buf.size() - info.offset,
        "VUID-VkDescriptorBufferInfo-range-00341",
        "range {} does not fit after offset {} in a {}-byte buffer",
        info.range,
        info.offset,
        buf.size()
    );
    let (usage, vuid) = match kind {
        DescriptorKind::UniformBuffer | DescriptorKind::UniformBufferDynamic => (
            u64::from(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT),
            "VUID-VkWriteDescriptorSet-descriptorType-00330",
        ),
        _ => (
            u64::from(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT),
            "VUID-VkWriteDescriptorSet-descriptorType-00331",
        ),
    };
    ensure!(
        buf.usage() & usage != 0,
        vuid,
        "the buffer lacks the usage bit for a {kind:?} descriptor"
    );
    ensure!(
        info.offset.is_multiple_of(16),
        "VUID-VkWriteDescriptorSet-descriptorType-00327",
        "offset {} is not a multiple of the minimum buffer offset alignment (16)",
        info.offset
    );
    Ok(Descriptor::Buffer {
        buffer: buf,
        offset: info.offset,
        range,
    })
}

fn tensor_descriptor(view: Option<Arc<TensorView>>) -> Result<Descriptor> {
    view.map(Descriptor::Tensor).ok_or_else(|| {
        Error::invalid(
            "VUID-VkWriteDescriptorSetTensorARM-nullDescriptor-09898",
            "tensor view is VK_NULL_HANDLE and the nullDescriptor feature is not supported",
        )
    })
}

fn apply_write(w: &vk::WriteDescriptorSet) -> Result<()> {
    let Some(set) = &w.dst_set else {
        return Err(Error::invalid(
            "VUID-VkWriteDescriptorSet-dstSet-00320",
            "dstSet is not a valid VkDescriptorSet",
        ));
    };
    let kind = DescriptorKind::from_vk(w.descriptor_type)?;
    match kind {
        DescriptorKind::InlineUniformBlock => {
            let block = w
                .write_descriptor_set_inline_uniform_block
                .as_ref()
                .ok_or_else(|| {
                    Error::invalid(
                        "VUID-VkWriteDescriptorSet-descriptorType-02221",
                        "no VkWriteDescriptorSetInlineUniformBlock in pNext",
                    )
                })?;
            ensure!(
                block.data_size == w.descriptor_count,
                "VUID-VkWriteDescriptorSet-descriptorType-02221",
                "dataSize {} differs from descriptorCount {}",
                block.data_size,
                w.descriptor_count
            );
            set.write_inline(w.dst_binding, w.dst_array_element, &block.data)
        }
        DescriptorKind::Tensor => {
            let t = w.write_descriptor_set_tensor_arm.as_ref().ok_or_else(|| {
                Error::invalid(
                    "VUID-VkWriteDescriptorSet-descriptorType-09945",
                    "no VkWriteDescriptorSetTensorARM in pNext",
                )
            })?;
            ensure!(
                t.tensor_view_count == w.descriptor_count,
                "VUID-VkWriteDescriptorSet-descriptorType-09946",
                "tensorViewCount {} differs from descriptorCount {}",
                t.tensor_view_count,
                w.descriptor_count
            );
            let ds = t
                .tensor_views
                .iter()
                .map(|v| tensor_descriptor(v.clone()))
                .collect::<Result<Vec<_>>>()?;
            set.write(w.dst_binding, w.dst_array_element, kind, ds)
        }
        _ => {
            let ds = w
                .buffer_info
                .iter()
                .map(|i| buffer_descriptor(kind, i))
                .collect::<Result<Vec<_>>>()?;
            set.write(w.dst_binding, w.dst_array_element, kind, ds)
        }
    }
}

/// `vkUpdateDescriptorSets`: the writes, then the copies, in order.
///
/// # Errors
/// `Validation` naming the rule broken (earlier updates stay applied).
pub fn update_descriptor_sets(
    writes: &[vk::WriteDescriptorSet],
    copies: &[vk::CopyDescriptorSet],
) -> Result<()> {
    for w in writes {
        apply_write(w)?;
    }
    for c in copies {
        c.dst_set.copy_from(
            &c.src_set,
            c.src_binding,
            c.src_array_element,
            c.dst_binding,
            c.dst_array_element,
            c.descriptor_count,
        )?;
    }
    Ok(())
}

/// One `VkDescriptorUpdateTemplateEntry`.
#[derive(Debug, Clone, Copy)]
struct TemplateEntry {
    binding: u32,
    element: u32,
    count: u32,
    kind: DescriptorKind,
    offset: usize,
    stride: usize,
}

/// Where `vkUpdateDescriptorSetWithTemplate` reads the application's data (the ICD reads the raw
/// memory; offsets come from the template).
pub trait TemplateData {
    /// The `VkDescriptorBufferInfo` at byte `at`.
    ///
    /// # Errors
    /// As the struct's reader (bad handles).
    fn buffer_info(&self, at: usize) -> Result<vk::DescriptorBufferInfo>;
    /// The `VkTensorViewARM` at byte `at` (`None` for `VK_NULL_HANDLE`).
    ///
    /// # Errors
    /// `Validation` for a handle that is not a live tensor view.
    fn tensor_view(&self, at: usize) -> Result<Option<Arc<TensorView>>>;
    /// `len` bytes at byte `at`.
    fn bytes(&self, at: usize, len: usize) -> Vec<u8>;
}

/// A descriptor update template: where each descriptor sits in the application's data.
#[derive(Debug)]
pub struct UpdateTemplate {
    entries: Vec<TemplateEntry>,
}

impl UpdateTemplate {
    /// `vkCreateDescriptorUpdateTemplate`.
    ///
    /// # Errors
    /// `Validation` for push-descriptor templates (not supported) or a missing set layout.
    pub fn create(info: &vk::DescriptorUpdateTemplateCreateInfo) -> Result<Self> {
        ensure!(
            info.template_type == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
            "VUID-VkDescriptorUpdateTemplateCreateInfo-templateType-00351",
            "templateType {} is not DESCRIPTOR_SET (push descriptors are not supported)",
            info.template_type
        );
        ensure!(
            info.descriptor_set_layout.is_some(),
            "VUID-VkDescriptorUpdateTemplateCreateInfo-templateType-00350",
            "descriptorSetLayout is not a valid VkDescriptorSetLayout"
        );
        let entries = info
            .descriptor_update_entries
            .iter()
            .map(|e| {
                Ok(TemplateEntry {
                    binding: e.dst_binding,
                    element: e.dst_array_element,
                    count: e.descriptor_count,
                    kind: DescriptorKind::from_vk(e.descriptor_type)?,
                    offset: e.offset,
                    stride: e.stride,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(UpdateTemplate { entries })
    }

    /// Whether it updates nothing (then `pData` may be null).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `vkUpdateDescriptorSetWithTemplate`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn apply(&self, set: &DescriptorSet, data: &dyn TemplateData) -> Result<()> {
        for e in &self.entries {
            let at = |i: u32| e.offset + i as usize * e.stride;
            match e.kind {
                DescriptorKind::InlineUniformBlock => {
                    set.write_inline(e.binding, e.element, &data.bytes(at(0), e.count as usize))?;
                }
                DescriptorKind::Tensor => {
                    let ds = (0..e.count)
                        .map(|i| tensor_descriptor(data.tensor_view(at(i))?))
                        .collect::<Result<Vec<_>>>()?;
                    set.write(e.binding, e.element, e.kind, ds)?;
                }
                kind => {
                    let ds = (0..e.count)
                        .map(|i| buffer_descriptor(kind, &data.buffer_info(at(i))?))
                        .collect::<Result<Vec<_>>>()?;
                    set.write(e.binding, e.element, kind, ds)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Arc<DescriptorSetLayout> {
        Arc::new(
            DescriptorSetLayout::new(vec![
                LayoutBinding {
                    binding: 3,
                    kind: DescriptorKind::StorageBuffer,
                    count: 2,
                    flags: 0,
                },
                LayoutBinding {
                    binding: 1,
                    kind: DescriptorKind::StorageBuffer,
                    count: 1,
                    flags: 0,
                },
                LayoutBinding {
                    binding: 5,
                    kind: DescriptorKind::InlineUniformBlock,
                    count: 16,
                    flags: 0,
                },
            ])
            .unwrap(),
        )
    }

    #[test]
    fn writes_roll_over_and_check_types() {
        let pool = DescriptorPool::new(1, true).unwrap();
        let set = pool.allocate(layout()).unwrap();
        assert!(pool.allocate(layout()).is_err());
        let buf = Arc::new(Buffer::new(64, 1).unwrap());
        let d = || Descriptor::Buffer {
            buffer: buf.clone(),
            offset: 0,
            range: 64,
        };
        set.write(1, 0, DescriptorKind::StorageBuffer, vec![d(), d(), d()])
            .unwrap();
        assert!(matches!(
            set.get(3, 1),
            Some((_, Descriptor::Buffer { .. }))
        ));
        assert!(
            set.write(3, 1, DescriptorKind::StorageBuffer, vec![d(), d()])
                .is_err(),
            "runs into the inline block"
        );
        assert!(
            set.write(1, 0, DescriptorKind::UniformBuffer, vec![d()])
                .is_err()
        );
        assert!(
            set.write(2, 0, DescriptorKind::StorageBuffer, vec![d()])
                .is_err()
        );
        set.write_inline(5, 4, &[1, 2, 3, 4]).unwrap();
        assert_eq!(set.inline_bytes(5).unwrap()[4..8], [1, 2, 3, 4]);
        assert!(set.write_inline(5, 16, &[0; 4]).is_err());
        let other = pool_set();
        other.copy_from(&set, 3, 0, 3, 1, 1).unwrap();
        assert!(matches!(
            other.get(3, 1),
            Some((_, Descriptor::Buffer { .. }))
        ));
        pool.free(&set).unwrap();
        assert!(pool.allocate(layout()).is_ok());
    }

    fn pool_set() -> Arc<DescriptorSet> {
        DescriptorPool::new(1, false)
            .unwrap()
            .allocate(layout())
            .unwrap()
    }

    #[test]
    fn layout_rules() {
        let dup = vec![
            LayoutBinding {
                binding: 0,
                kind: DescriptorKind::StorageBuffer,
                count: 1,
                flags: 0,
            },
            LayoutBinding {
                binding: 0,
                kind: DescriptorKind::Tensor,
                count: 1,
                flags: 0,
            },
        ];
        assert!(DescriptorSetLayout::new(dup).is_err());
        let l = layout();
        assert_eq!(l.binding(3).unwrap().1, 1);
        assert_eq!(l.dynamic_count(), 0);
        assert!(
            PipelineLayout::new(
                vec![Some(l)],
                vec![PushConstantRange {
                    stages: 32,
                    offset: 0,
                    size: 300
                }]
            )
            .is_err()
        );
    }
}
