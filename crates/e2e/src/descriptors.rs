//! One descriptor set of tensor views and storage buffers: the pool sized for it, the set and
//! its writes, which the tests, the demo and the benchmarks all need the same way.

use crate::VkResult;
use vulkanalia::prelude::v1_3::*;

/// What one binding of a set holds.
#[derive(Debug, Clone, Copy)]
pub enum Descriptor {
    /// A tensor view (`VK_DESCRIPTOR_TYPE_TENSOR_ARM`).
    Tensor(vk::TensorViewARM),
    /// A whole storage buffer.
    Buffer(vk::Buffer),
}

impl Descriptor {
    /// Its descriptor type.
    pub fn type_(self) -> vk::DescriptorType {
        match self {
            Descriptor::Tensor(_) => vk::DescriptorType::TENSOR_ARM,
            Descriptor::Buffer(_) => vk::DescriptorType::STORAGE_BUFFER,
        }
    }
}

/// A descriptor pool with room for exactly one set of `set_layout`, that set, and each
/// `(binding, descriptor)` written into it. Destroying the pool frees the set.
///
/// # Errors
/// The driver's error from creating the pool or allocating the set.
pub fn descriptor_set(
    device: &Device,
    set_layout: vk::DescriptorSetLayout,
    descriptors: &[(u32, Descriptor)],
) -> VkResult<(vk::DescriptorPool, vk::DescriptorSet)> {
    let sizes: Vec<vk::DescriptorPoolSize> = [
        vk::DescriptorType::TENSOR_ARM,
        vk::DescriptorType::STORAGE_BUFFER,
    ]
    .into_iter()
    .map(|t| vk::DescriptorPoolSize {
        type_: t,
        descriptor_count: descriptors.iter().filter(|(_, d)| d.type_() == t).count() as u32,
    })
    .filter(|s| s.descriptor_count > 0)
    .collect();
    let info = vk::DescriptorPoolCreateInfo::builder()
        .max_sets(1)
        .pool_sizes(&sizes);
    // SAFETY: valid create info on a live device.
    let pool = unsafe { device.create_descriptor_pool(&info, None) }?;
    let set_layouts = [set_layout];
    let info = vk::DescriptorSetAllocateInfo::builder()
        .descriptor_pool(pool)
        .set_layouts(&set_layouts);
    // SAFETY: valid allocate info.
    let set = match unsafe { device.allocate_descriptor_sets(&info) } {
        Ok(sets) => sets[0],
        Err(e) => {
            // SAFETY: the pool has no set in use.
            unsafe { device.destroy_descriptor_pool(pool, None) };
            return Err(e);
        }
    };
    // Per-binding payloads, alive until the update.
    let views: Vec<[vk::TensorViewARM; 1]> = descriptors
        .iter()
        .map(|(_, d)| match d {
            Descriptor::Tensor(v) => [*v],
            Descriptor::Buffer(_) => [vk::TensorViewARM::null()],
        })
        .collect();
    let tensor_writes: Vec<vk::WriteDescriptorSetTensorARM> = views
        .iter()
        .map(|v| vk::WriteDescriptorSetTensorARM {
            tensor_view_count: 1,
            tensor_views: v.as_ptr(),
            ..Default::default()
        })
        .collect();
    let buffers: Vec<[vk::DescriptorBufferInfo; 1]> = descriptors
        .iter()
        .map(|(_, d)| {
            let buffer = match d {
                Descriptor::Buffer(b) => *b,
                Descriptor::Tensor(_) => vk::Buffer::null(),
            };
            [vk::DescriptorBufferInfo {
                buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = descriptors
        .iter()
        .enumerate()
        .map(|(i, &(binding, d))| {
            let write = vk::WriteDescriptorSet {
                dst_set: set,
                dst_binding: binding,
                descriptor_count: 1,
                descriptor_type: d.type_(),
                ..Default::default()
            };
            match d {
                Descriptor::Tensor(_) => vk::WriteDescriptorSet {
                    next: (&tensor_writes[i] as *const vk::WriteDescriptorSetTensorARM).cast(),
                    ..write
                },
                Descriptor::Buffer(_) => vk::WriteDescriptorSet {
                    buffer_info: buffers[i].as_ptr(),
                    ..write
                },
            }
        })
        .collect();
    // SAFETY: valid writes whose pointers live until the call returns.
    unsafe { device.update_descriptor_sets(&writes, &[] as &[vk::CopyDescriptorSet]) };
    Ok((pool, set))
}
