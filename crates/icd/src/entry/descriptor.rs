//! Descriptor set layouts, pools, sets (writes, copies, update templates) and pipeline layouts
//! (the rules are the runtime's, [`tessera_runtime::descriptor`]).

use std::ffi::c_void;
use std::sync::Arc;

use tessera_runtime::descriptor::{
    DescriptorPool, DescriptorSet, DescriptorSetLayout, PipelineLayout, TemplateData,
    UpdateTemplate,
};
use tessera_runtime::device::Device;
use tessera_runtime::vk::structs as vk;
use tessera_runtime::{Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{array, check_stype, deref_mut, write_handle};
use crate::generated::write as w;
use crate::handle::{self, RawHandle};

pub(crate) unsafe fn create_descriptor_set_layout(
    device: Arc<Device>,
    info: vk::DescriptorSetLayoutCreateInfo,
    out: *mut VkDescriptorSetLayout,
) -> Result<VkResult> {
    let layout = Arc::new(DescriptorSetLayout::create(&device, &info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pSetLayout", handle::insert(layout))? };
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn get_descriptor_set_layout_support(
    device: Arc<Device>,
    info: vk::DescriptorSetLayoutCreateInfo,
    out: *mut VkDescriptorSetLayoutSupport,
) -> Result<()> {
    // SAFETY: a valid struct per the spec.
    let dst = unsafe { deref_mut(out, "pSupport")? };
    check_stype(
        dst.sType,
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT,
        "VUID-VkDescriptorSetLayoutSupport-sType-sType",
    )?;
    // SAFETY: as above.
    unsafe {
        w::write_descriptor_set_layout_support(dst, &DescriptorSetLayout::support(&device, &info))
    };
    Ok(())
}

pub(crate) unsafe fn create_descriptor_pool(
    _device: Arc<Device>,
    info: vk::DescriptorPoolCreateInfo,
    out: *mut VkDescriptorPool,
) -> Result<VkResult> {
    let pool = Arc::new(DescriptorPool::create(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pDescriptorPool", handle::insert(pool))? };
    Ok(VK_SUCCESS)
}

pub(crate) fn destroy_descriptor_pool(
    _device: Arc<Device>,
    pool: Option<Arc<DescriptorPool>>,
) -> Result<()> {
    if let Some(pool) = pool {
        pool.reset().iter().for_each(handle::forget);
    }
    Ok(())
}

pub(crate) fn reset_descriptor_pool(
    _device: Arc<Device>,
    pool: Arc<DescriptorPool>,
    _flags: VkDescriptorPoolResetFlags,
) -> Result<VkResult> {
    pool.reset().iter().for_each(handle::forget);
    Ok(VK_SUCCESS)
}

pub(crate) unsafe fn allocate_descriptor_sets(
    _device: Arc<Device>,
    info: vk::DescriptorSetAllocateInfo,
    out: *mut VkDescriptorSet,
) -> Result<VkResult> {
    ensure!(
        !out.is_null() || info.set_layouts.is_empty(),
        "VUID-vkAllocateDescriptorSets-pDescriptorSets-parameter",
        "pDescriptorSets is NULL"
    );
    match info.descriptor_pool.allocate_sets(&info) {
        Ok(sets) => {
            for (i, set) in sets.into_iter().enumerate() {
                // SAFETY: `descriptorSetCount` writable handles per the spec.
                unsafe {
                    out.add(i)
                        .write(VkDescriptorSet::from_raw(handle::insert(set)))
                };
            }
            Ok(VK_SUCCESS)
        }
        Err(e) => {
            // All or nothing: the outputs are nulled.
            for i in 0..info.set_layouts.len() {
                // SAFETY: as above.
                unsafe { out.add(i).write(std::ptr::null_mut()) };
            }
            Err(e)
        }
    }
}

pub(crate) unsafe fn free_descriptor_sets(
    _device: Arc<Device>,
    pool: Arc<DescriptorPool>,
    count: u32,
    sets: *const VkDescriptorSet,
) -> Result<VkResult> {
    pool.check_free_individual()?;
    // SAFETY: `descriptorSetCount` handles per the spec (VK_NULL_HANDLE entries are skipped).
    let handles = unsafe {
        array(
            sets,
            count as usize,
            false,
            "VUID-vkFreeDescriptorSets-pDescriptorSets-00310",
        )?
    };
    for h in handles.iter().filter(|h| !h.is_null()) {
        let set = handle::lookup::<DescriptorSet>(
            h.raw(),
            "VUID-vkFreeDescriptorSets-pDescriptorSets-00310",
        )?;
        pool.free(&set)?;
        handle::forget(&set);
    }
    Ok(VK_SUCCESS)
}

pub(crate) fn update_descriptor_sets(
    _device: Arc<Device>,
    writes: Vec<vk::WriteDescriptorSet>,
    copies: Vec<vk::CopyDescriptorSet>,
) -> Result<()> {
    tessera_runtime::descriptor::update_descriptor_sets(&writes, &copies)
}

pub(crate) unsafe fn create_descriptor_update_template(
    _device: Arc<Device>,
    info: vk::DescriptorUpdateTemplateCreateInfo,
    out: *mut VkDescriptorUpdateTemplate,
) -> Result<VkResult> {
    let template = Arc::new(UpdateTemplate::create(&info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pDescriptorUpdateTemplate", handle::insert(template))? };
    Ok(VK_SUCCESS)
}

/// The application's template data, read where the template's entries say (the ICD reads the
/// `VkDescriptorBufferInfo`s and handles; the runtime decides what they mean).
struct RawTemplateData(*const u8);

impl TemplateData for RawTemplateData {
    fn buffer_info(&self, at: usize) -> Result<vk::DescriptorBufferInfo> {
        // SAFETY: the template describes a VkDescriptorBufferInfo at `at` (the caller's
        // contract, per the spec).
        let info = unsafe {
            self.0
                .add(at)
                .cast::<VkDescriptorBufferInfo>()
                .read_unaligned()
        };
        // SAFETY: a plain struct just read.
        unsafe { crate::generated::read::read_descriptor_buffer_info(&info) }
    }

    fn tensor_view(&self, at: usize) -> Result<Option<Arc<tessera_runtime::tensor::TensorView>>> {
        // SAFETY: the template describes a VkTensorViewARM at `at`.
        let view = unsafe { self.0.add(at).cast::<VkTensorViewARM>().read_unaligned() };
        handle::get_optional(
            view.raw(),
            "VUID-vkUpdateDescriptorSetWithTemplate-pData-01685",
        )
    }

    fn bytes(&self, at: usize, len: usize) -> Vec<u8> {
        // SAFETY: the template describes `len` bytes at `at`.
        unsafe { std::slice::from_raw_parts(self.0.add(at), len) }.to_vec()
    }
}

pub(crate) fn update_descriptor_set_with_template(
    _device: Arc<Device>,
    set: Arc<DescriptorSet>,
    template: Arc<UpdateTemplate>,
    data: *const c_void,
) -> Result<()> {
    ensure!(
        !data.is_null() || template.is_empty(),
        "VUID-vkUpdateDescriptorSetWithTemplate-pData-01685",
        "pData is NULL"
    );
    template.apply(&set, &RawTemplateData(data.cast()))
}

pub(crate) unsafe fn create_pipeline_layout(
    device: Arc<Device>,
    info: vk::PipelineLayoutCreateInfo,
    out: *mut VkPipelineLayout,
) -> Result<VkResult> {
    let layout = Arc::new(PipelineLayout::create(&device, &info)?);
    // SAFETY: a valid out pointer per the spec.
    unsafe { write_handle(out, "pPipelineLayout", handle::insert(layout))? };
    Ok(VK_SUCCESS)
}
