//! Descriptor set layouts, pools, sets (writes, copies, update templates) and pipeline layouts.

use std::ffi::c_void;
use std::sync::Arc;

use parking_lot::Mutex;
use tessera_runtime::buffer::Buffer;
use tessera_runtime::descriptor::{
    Descriptor, DescriptorKind, DescriptorPool, DescriptorSet, DescriptorSetLayout, LayoutBinding,
    PipelineLayout, PushConstantRange,
};
use tessera_runtime::tensor::TensorView;
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{chain_mut, check_stype, deref, deref_mut, find, slice, write};
use crate::entry::buffer::buffer;
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for DescriptorSetLayout {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT;
    const NAME: &'static str = "VkDescriptorSetLayout";
}

impl Object for DescriptorSet {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DESCRIPTOR_SET;
    const NAME: &'static str = "VkDescriptorSet";
}

impl Object for PipelineLayout {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_PIPELINE_LAYOUT;
    const NAME: &'static str = "VkPipelineLayout";
}

/// A descriptor pool and the handles of its sets (freed with the pool).
#[derive(Debug)]
pub struct DescriptorPoolObj {
    /// The runtime pool.
    pub pool: DescriptorPool,
    /// Live set handles.
    pub handles: Mutex<Vec<u64>>,
}

impl Object for DescriptorPoolObj {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DESCRIPTOR_POOL;
    const NAME: &'static str = "VkDescriptorPool";
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

/// A descriptor update template: where each descriptor sits in the application's data.
#[derive(Debug)]
pub struct UpdateTemplate {
    entries: Vec<TemplateEntry>,
}

impl Object for UpdateTemplate {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE;
    const NAME: &'static str = "VkDescriptorUpdateTemplate";
}

/// Looks up a descriptor set layout handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn set_layout(h: VkDescriptorSetLayout) -> Result<Arc<DescriptorSetLayout>> {
    handle::get::<DescriptorSetLayout>(h.raw())
}

/// Looks up a descriptor set handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn descriptor_set(h: VkDescriptorSet) -> Result<Arc<DescriptorSet>> {
    handle::get::<DescriptorSet>(h.raw())
}

/// Looks up a pipeline layout handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn pipeline_layout(h: VkPipelineLayout) -> Result<Arc<PipelineLayout>> {
    handle::get::<PipelineLayout>(h.raw())
}

/// The runtime kind of a `VkDescriptorType`.
///
/// # Errors
/// `NotSupported` for image, sampler, texel-buffer and other types this device cannot use.
pub fn descriptor_kind(ty: VkDescriptorType) -> Result<DescriptorKind> {
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

/// Checks `VkDescriptorBindingFlags` against the descriptor-indexing features Tessera reports:
/// update-after-bind (every descriptor is read when a dispatch executes), update-unused-while-
/// pending and partially-bound (an unwritten descriptor reads as out of bounds) for the
/// non-dynamic buffer and tensor descriptors; no variable descriptor counts.
fn check_binding_flags(
    kind: DescriptorKind,
    flags: VkDescriptorBindingFlags,
    uab_pool: bool,
) -> Result<()> {
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

/// Reads a `VkDescriptorSetLayoutCreateInfo` into runtime bindings.
///
/// # Safety
/// `info` must be valid per the spec.
unsafe fn read_layout(info: &VkDescriptorSetLayoutCreateInfo) -> Result<DescriptorSetLayout> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        "VUID-VkDescriptorSetLayoutCreateInfo-sType-sType",
    )?;
    let uab_pool = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
    ensure!(
        info.flags & !uab_pool == 0,
        "VUID-VkDescriptorSetLayoutCreateInfo-flags-parameter",
        "layout flags {:#x}: only UPDATE_AFTER_BIND_POOL is supported (no push descriptors)",
        info.flags
    );
    // SAFETY: `bindingCount` structs per the spec.
    let bindings = unsafe { slice(info.pBindings, info.bindingCount, "pBindings")? };
    // SAFETY: a valid chain per the spec.
    let flags = unsafe {
        find::<VkDescriptorSetLayoutBindingFlagsCreateInfo>(
            info.pNext,
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
        )
    };
    if let Some(f) = flags {
        ensure!(
            f.bindingCount == 0 || f.bindingCount == info.bindingCount,
            "VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-bindingCount-03002",
            "bindingCount {} differs from the layout's {}",
            f.bindingCount,
            info.bindingCount
        );
    }
    let binding_flags: &[VkDescriptorBindingFlags] = match flags {
        // SAFETY: `bindingCount` flags per the spec.
        Some(f) => unsafe { slice(f.pBindingFlags, f.bindingCount, "pBindingFlags")? },
        None => &[],
    };
    let bindings = bindings
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let kind = descriptor_kind(b.descriptorType)?;
            let flags = binding_flags.get(i).copied().unwrap_or(0);
            check_binding_flags(kind, flags, info.flags & uab_pool != 0)?;
            Ok(LayoutBinding {
                binding: b.binding,
                kind,
                count: b.descriptorCount,
                flags,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    DescriptorSetLayout::new(bindings)
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateDescriptorSetLayout(
    device: VkDevice,
    pCreateInfo: *const VkDescriptorSetLayoutCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pSetLayout: *mut VkDescriptorSetLayout,
) -> VkResult {
    boundary::result("vkCreateDescriptorSetLayout", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let layout = unsafe { read_layout(deref(pCreateInfo, "pCreateInfo")?)? };
        let h = handle::insert(Arc::new(layout));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pSetLayout, "pSetLayout", VkDescriptorSetLayout::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyDescriptorSetLayout(
    _device: VkDevice,
    descriptorSetLayout: VkDescriptorSetLayout,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyDescriptorSetLayout", || {
        handle::remove::<DescriptorSetLayout>(descriptorSetLayout.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetDescriptorSetLayoutSupport(
    device: VkDevice,
    pCreateInfo: *const VkDescriptorSetLayoutCreateInfo,
    pSupport: *mut VkDescriptorSetLayoutSupport,
) {
    boundary::void("vkGetDescriptorSetLayoutSupport", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let support = unsafe { deref_mut(pSupport, "pSupport")? };
        // SAFETY: valid per the spec (null rejected).
        let ok = unsafe { read_layout(deref(pCreateInfo, "pCreateInfo")?) }.is_ok();
        support.supported = if ok { VK_TRUE } else { VK_FALSE };
        // SAFETY: a valid output chain per the spec.
        for (stype, p) in unsafe { chain_mut(support.pNext) } {
            if stype == VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_LAYOUT_SUPPORT {
                // SAFETY: the sType names this struct.
                unsafe {
                    (*p.cast::<VkDescriptorSetVariableDescriptorCountLayoutSupport>())
                        .maxVariableDescriptorCount = 0
                };
            }
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateDescriptorPool(
    device: VkDevice,
    pCreateInfo: *const VkDescriptorPoolCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pDescriptorPool: *mut VkDescriptorPool,
) -> VkResult {
    boundary::result("vkCreateDescriptorPool", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            "VUID-VkDescriptorPoolCreateInfo-sType-sType",
        )?;
        let free = info.flags & VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT != 0;
        let pool = DescriptorPool::new(info.maxSets, free)?;
        let h = handle::insert(Arc::new(DescriptorPoolObj {
            pool,
            handles: Mutex::new(Vec::new()),
        }));
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pDescriptorPool,
                "pDescriptorPool",
                VkDescriptorPool::from_raw(h),
            )?
        };
        Ok(VK_SUCCESS)
    })
}

fn pool(h: VkDescriptorPool) -> Result<Arc<DescriptorPoolObj>> {
    handle::get::<DescriptorPoolObj>(h.raw())
}

fn release_sets(pool: &DescriptorPoolObj) -> Result<()> {
    for h in pool.handles.lock().drain(..) {
        handle::remove::<DescriptorSet>(h)?;
    }
    pool.pool.reset();
    Ok(())
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyDescriptorPool(
    _device: VkDevice,
    descriptorPool: VkDescriptorPool,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyDescriptorPool", || {
        match handle::remove::<DescriptorPoolObj>(descriptorPool.raw())? {
            Some(pool) => release_sets(&pool),
            None => Ok(()),
        }
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetDescriptorPool(
    device: VkDevice,
    descriptorPool: VkDescriptorPool,
    _flags: VkDescriptorPoolResetFlags,
) -> VkResult {
    boundary::result("vkResetDescriptorPool", || {
        self::device(device)?;
        let pool = pool(descriptorPool)?;
        release_sets(&pool)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkAllocateDescriptorSets(
    device: VkDevice,
    pAllocateInfo: *const VkDescriptorSetAllocateInfo,
    pDescriptorSets: *mut VkDescriptorSet,
) -> VkResult {
    boundary::result("vkAllocateDescriptorSets", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pAllocateInfo, "pAllocateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            "VUID-VkDescriptorSetAllocateInfo-sType-sType",
        )?;
        // SAFETY: `descriptorSetCount` handles per the spec.
        let layouts = unsafe { slice(info.pSetLayouts, info.descriptorSetCount, "pSetLayouts")? };
        ensure!(
            !pDescriptorSets.is_null() || layouts.is_empty(),
            "VUID-vkAllocateDescriptorSets-pDescriptorSets-parameter",
            "pDescriptorSets is NULL"
        );
        let pool = pool(info.descriptorPool)?;
        let mut made = Vec::with_capacity(layouts.len());
        for l in layouts {
            let result = set_layout(*l).and_then(|layout| pool.pool.allocate(layout));
            match result {
                Ok(set) => made.push(handle::insert(set)),
                Err(e) => {
                    // All or nothing: free what this call allocated and null the outputs.
                    for h in made {
                        if let Ok(Some(set)) = handle::remove::<DescriptorSet>(h) {
                            pool.pool.free(&set);
                        }
                    }
                    for i in 0..layouts.len() {
                        // SAFETY: `descriptorSetCount` writable handles per the spec.
                        unsafe { pDescriptorSets.add(i).write(std::ptr::null_mut()) };
                    }
                    return Err(e);
                }
            }
        }
        for (i, h) in made.iter().enumerate() {
            // SAFETY: `descriptorSetCount` writable handles per the spec.
            unsafe { pDescriptorSets.add(i).write(VkDescriptorSet::from_raw(*h)) };
        }
        pool.handles.lock().extend(made);
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkFreeDescriptorSets(
    device: VkDevice,
    descriptorPool: VkDescriptorPool,
    descriptorSetCount: u32,
    pDescriptorSets: *const VkDescriptorSet,
) -> VkResult {
    boundary::result("vkFreeDescriptorSets", || {
        self::device(device)?;
        let pool = pool(descriptorPool)?;
        ensure!(
            pool.pool.can_free_individual(),
            "VUID-vkFreeDescriptorSets-descriptorPool-00312",
            "the pool was not created with VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT"
        );
        // SAFETY: `descriptorSetCount` handles per the spec.
        let sets = unsafe { slice(pDescriptorSets, descriptorSetCount, "pDescriptorSets")? };
        let mut handles = pool.handles.lock();
        for s in sets.iter().filter(|s| !s.is_null()) {
            ensure!(
                handles.contains(&s.raw()),
                "VUID-vkFreeDescriptorSets-pDescriptorSets-parent",
                "descriptor set {:#x} was not allocated from this pool",
                s.raw()
            );
            if let Some(set) = handle::remove::<DescriptorSet>(s.raw())? {
                pool.pool.free(&set);
            }
            handles.retain(|h| *h != s.raw());
        }
        Ok(VK_SUCCESS)
    })
}

/// A buffer descriptor from a `VkDescriptorBufferInfo`.
fn buffer_descriptor(kind: DescriptorKind, info: &VkDescriptorBufferInfo) -> Result<Descriptor> {
    ensure!(
        !info.buffer.is_null(),
        "VUID-VkDescriptorBufferInfo-buffer-02998",
        "buffer is VK_NULL_HANDLE and the nullDescriptor feature is not supported"
    );
    let buf: Arc<Buffer> = buffer(info.buffer)?;
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
            VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT as u64,
            "VUID-VkWriteDescriptorSet-descriptorType-00330",
        ),
        _ => (
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT as u64,
            "VUID-VkWriteDescriptorSet-descriptorType-00331",
        ),
    };
    ensure!(
        buf.usage() & usage != 0,
        vuid,
        "the buffer lacks the usage bit for a {kind:?} descriptor"
    );
    ensure!(
        info.offset % 16 == 0,
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

fn tensor_descriptor(view: VkTensorViewARM) -> Result<Descriptor> {
    ensure!(
        !view.is_null(),
        "VUID-VkWriteDescriptorSetTensorARM-nullDescriptor-09898",
        "tensor view is VK_NULL_HANDLE and the nullDescriptor feature is not supported"
    );
    Ok(Descriptor::Tensor(handle::get::<TensorView>(view.raw())?))
}

/// Applies one `VkWriteDescriptorSet`.
///
/// # Safety
/// `w` must be valid per the spec.
unsafe fn apply_write(w: &VkWriteDescriptorSet) -> Result<()> {
    check_stype(
        w.sType,
        VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        "VUID-VkWriteDescriptorSet-sType-sType",
    )?;
    let set = descriptor_set(w.dstSet)?;
    let kind = descriptor_kind(w.descriptorType)?;
    match kind {
        DescriptorKind::InlineUniformBlock => {
            // SAFETY: a valid chain per the spec.
            let block = unsafe {
                find::<VkWriteDescriptorSetInlineUniformBlock>(
                    w.pNext,
                    VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_INLINE_UNIFORM_BLOCK,
                )
            }
            .ok_or_else(|| {
                Error::invalid(
                    "VUID-VkWriteDescriptorSet-descriptorType-02221",
                    "no VkWriteDescriptorSetInlineUniformBlock in pNext",
                )
            })?;
            ensure!(
                block.dataSize == w.descriptorCount,
                "VUID-VkWriteDescriptorSet-descriptorType-02221",
                "dataSize {} differs from descriptorCount {}",
                block.dataSize,
                w.descriptorCount
            );
            // SAFETY: `dataSize` bytes per the spec.
            let bytes = unsafe { slice(block.pData.cast::<u8>(), block.dataSize, "pData")? };
            set.write_inline(w.dstBinding, w.dstArrayElement, bytes)
        }
        DescriptorKind::Tensor => {
            // SAFETY: a valid chain per the spec.
            let t = unsafe {
                find::<VkWriteDescriptorSetTensorARM>(
                    w.pNext,
                    VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_TENSOR_ARM,
                )
            }
            .ok_or_else(|| {
                Error::invalid(
                    "VUID-VkWriteDescriptorSet-descriptorType-09945",
                    "no VkWriteDescriptorSetTensorARM in pNext",
                )
            })?;
            ensure!(
                t.tensorViewCount == w.descriptorCount,
                "VUID-VkWriteDescriptorSet-descriptorType-09946",
                "tensorViewCount {} differs from descriptorCount {}",
                t.tensorViewCount,
                w.descriptorCount
            );
            // SAFETY: `tensorViewCount` handles per the spec.
            let views = unsafe { slice(t.pTensorViews, t.tensorViewCount, "pTensorViews")? };
            let ds = views
                .iter()
                .map(|v| tensor_descriptor(*v))
                .collect::<Result<Vec<_>>>()?;
            set.write(w.dstBinding, w.dstArrayElement, kind, ds)
        }
        _ => {
            // SAFETY: `descriptorCount` structs per the spec.
            let infos = unsafe { slice(w.pBufferInfo, w.descriptorCount, "pBufferInfo")? };
            let ds = infos
                .iter()
                .map(|i| buffer_descriptor(kind, i))
                .collect::<Result<Vec<_>>>()?;
            set.write(w.dstBinding, w.dstArrayElement, kind, ds)
        }
    }
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkUpdateDescriptorSets(
    device: VkDevice,
    descriptorWriteCount: u32,
    pDescriptorWrites: *const VkWriteDescriptorSet,
    descriptorCopyCount: u32,
    pDescriptorCopies: *const VkCopyDescriptorSet,
) {
    boundary::void("vkUpdateDescriptorSets", || {
        self::device(device)?;
        // SAFETY: counts and arrays per the spec.
        let (writes, copies) = unsafe {
            (
                slice(pDescriptorWrites, descriptorWriteCount, "pDescriptorWrites")?,
                slice(pDescriptorCopies, descriptorCopyCount, "pDescriptorCopies")?,
            )
        };
        for w in writes {
            // SAFETY: each write is valid per the spec.
            unsafe { apply_write(w)? };
        }
        for c in copies {
            check_stype(
                c.sType,
                VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET,
                "VUID-VkCopyDescriptorSet-sType-sType",
            )?;
            let (src, dst) = (descriptor_set(c.srcSet)?, descriptor_set(c.dstSet)?);
            dst.copy_from(
                &src,
                c.srcBinding,
                c.srcArrayElement,
                c.dstBinding,
                c.dstArrayElement,
                c.descriptorCount,
            )?;
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateDescriptorUpdateTemplate(
    device: VkDevice,
    pCreateInfo: *const VkDescriptorUpdateTemplateCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pDescriptorUpdateTemplate: *mut VkDescriptorUpdateTemplate,
) -> VkResult {
    boundary::result("vkCreateDescriptorUpdateTemplate", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO,
            "VUID-VkDescriptorUpdateTemplateCreateInfo-sType-sType",
        )?;
        ensure!(
            info.templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
            "VUID-VkDescriptorUpdateTemplateCreateInfo-templateType-00351",
            "templateType {} is not DESCRIPTOR_SET (push descriptors are not supported)",
            info.templateType
        );
        set_layout(info.descriptorSetLayout)?;
        // SAFETY: `descriptorUpdateEntryCount` structs per the spec.
        let entries = unsafe {
            slice(
                info.pDescriptorUpdateEntries,
                info.descriptorUpdateEntryCount,
                "pDescriptorUpdateEntries",
            )?
        };
        let entries = entries
            .iter()
            .map(|e| {
                Ok(TemplateEntry {
                    binding: e.dstBinding,
                    element: e.dstArrayElement,
                    count: e.descriptorCount,
                    kind: descriptor_kind(e.descriptorType)?,
                    offset: e.offset,
                    stride: e.stride,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let h = handle::insert(Arc::new(UpdateTemplate { entries }));
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pDescriptorUpdateTemplate,
                "pDescriptorUpdateTemplate",
                VkDescriptorUpdateTemplate::from_raw(h),
            )?
        };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyDescriptorUpdateTemplate(
    _device: VkDevice,
    descriptorUpdateTemplate: VkDescriptorUpdateTemplate,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyDescriptorUpdateTemplate", || {
        handle::remove::<UpdateTemplate>(descriptorUpdateTemplate.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkUpdateDescriptorSetWithTemplate(
    device: VkDevice,
    descriptorSet: VkDescriptorSet,
    descriptorUpdateTemplate: VkDescriptorUpdateTemplate,
    pData: *const c_void,
) {
    boundary::void("vkUpdateDescriptorSetWithTemplate", || {
        self::device(device)?;
        let set = descriptor_set(descriptorSet)?;
        let template = handle::get::<UpdateTemplate>(descriptorUpdateTemplate.raw())?;
        ensure!(
            !pData.is_null() || template.entries.is_empty(),
            "VUID-vkUpdateDescriptorSetWithTemplate-pData-01685",
            "pData is NULL"
        );
        let base = pData.cast::<u8>();
        for e in &template.entries {
            let kind = e.kind;
            let at = |i: u32| base.wrapping_add(e.offset + i as usize * e.stride);
            match kind {
                DescriptorKind::InlineUniformBlock => {
                    // SAFETY: the template describes `descriptorCount` bytes at `offset` of pData.
                    let bytes = unsafe { std::slice::from_raw_parts(at(0), e.count as usize) };
                    set.write_inline(e.binding, e.element, bytes)?;
                }
                DescriptorKind::Tensor => {
                    let ds = (0..e.count)
                        .map(|i| {
                            // SAFETY: the template describes a VkTensorViewARM at each position.
                            let view = unsafe { at(i).cast::<VkTensorViewARM>().read_unaligned() };
                            tensor_descriptor(view)
                        })
                        .collect::<Result<Vec<_>>>()?;
                    set.write(e.binding, e.element, kind, ds)?;
                }
                _ => {
                    let ds = (0..e.count)
                        .map(|i| {
                            // SAFETY: the template describes a VkDescriptorBufferInfo at each position.
                            let info =
                                unsafe { at(i).cast::<VkDescriptorBufferInfo>().read_unaligned() };
                            buffer_descriptor(kind, &info)
                        })
                        .collect::<Result<Vec<_>>>()?;
                    set.write(e.binding, e.element, kind, ds)?;
                }
            }
        }
        Ok(())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreatePipelineLayout(
    device: VkDevice,
    pCreateInfo: *const VkPipelineLayoutCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pPipelineLayout: *mut VkPipelineLayout,
) -> VkResult {
    boundary::result("vkCreatePipelineLayout", || {
        self::device(device)?;
        // SAFETY: valid per the spec (null rejected).
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
            "VUID-VkPipelineLayoutCreateInfo-sType-sType",
        )?;
        // SAFETY: counts and arrays per the spec.
        let (layouts, ranges) = unsafe {
            (
                slice(info.pSetLayouts, info.setLayoutCount, "pSetLayouts")?,
                slice(
                    info.pPushConstantRanges,
                    info.pushConstantRangeCount,
                    "pPushConstantRanges",
                )?,
            )
        };
        let layouts = layouts
            .iter()
            .map(|l| {
                if l.is_null() {
                    Ok(None)
                } else {
                    set_layout(*l).map(Some)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let ranges = ranges
            .iter()
            .map(|r| PushConstantRange {
                stages: r.stageFlags,
                offset: r.offset,
                size: r.size,
            })
            .collect();
        let h = handle::insert(Arc::new(PipelineLayout::new(layouts, ranges)?));
        // SAFETY: valid out pointer per the spec.
        unsafe {
            write(
                pPipelineLayout,
                "pPipelineLayout",
                VkPipelineLayout::from_raw(h),
            )?
        };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyPipelineLayout(
    _device: VkDevice,
    pipelineLayout: VkPipelineLayout,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyPipelineLayout", || {
        handle::remove::<PipelineLayout>(pipelineLayout.raw()).map(|_| ())
    })
}
