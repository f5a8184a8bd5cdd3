//! `VkPhysicalDevice`: the one CPU device and everything it reports: properties and limits,
//! features, the queue family, memory types and heaps, extensions, and format support.
//!
//! This is the one source of truth for limits and features: the ICD writes these values out, and
//! every rule that depends on a limit or on a supported feature reads it from here (through the
//! device's [`crate::device::Device::physical`]).

use std::sync::Arc;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::limits::{
    ALLOCATION_ALIGNMENT, BUFFER_ALIGNMENT, MAX_BUFFER_SIZE, MAX_MEMORY_ALLOCATION_COUNT,
    MAX_TIMELINE_DIFFERENCE, MEMORY_TYPE_COUNT, QUEUE_COUNT, heap_size, max_allocation_size,
};
use crate::vk::extensions::{DEVICE_EXTENSIONS, DeviceExtension, ExtensionInfo};
use crate::vk::features::Features;
use crate::vk::properties::Properties;
use crate::vk::structs as vk;
use crate::{Error, Result};

/// `deviceName`.
pub const DEVICE_NAME: &str = "Tessera (CPU)";
/// `driverName`.
pub const DRIVER_NAME: &str = "Tessera";
/// The Vulkan version the device implements.
pub const API_VERSION: u32 = VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION);
/// Not a registered PCI or Khronos vendor id: Tessera has none.
pub const VENDOR_ID: u32 = 0x7E55;
/// Subgroup size of compute shaders.
pub const SUBGROUP_SIZE: u32 = 32;
/// Bitmask of every memory type (what every buffer and tensor accepts).
pub const ALL_MEMORY_TYPES: u32 = (1 << MEMORY_TYPE_COUNT) - 1;

/// The sample counts the limits table requires at least (1 and 4). Tessera has no images or
/// framebuffers, so nothing can use them; the values only keep the limits within the spec's
/// minimums.
const MIN_SAMPLE_COUNTS: VkSampleCountFlags = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;

/// `driverVersion`: the crate version in Vulkan's encoding.
pub fn driver_version() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    VK_MAKE_API_VERSION(
        0,
        part(env!("CARGO_PKG_VERSION_MAJOR")),
        part(env!("CARGO_PKG_VERSION_MINOR")),
        part(env!("CARGO_PKG_VERSION_PATCH")),
    )
}

fn uuid(tag: u8) -> [u8; VK_UUID_SIZE as usize] {
    let mut id = *b"tessera-cpu-0000";
    id[12] = tag;
    let v = driver_version().to_le_bytes();
    id[13..16].copy_from_slice(&v[..3]);
    id
}

/// The physical device.
#[derive(Debug)]
pub struct PhysicalDevice {
    properties: Properties,
    features: Features,
    memory: vk::PhysicalDeviceMemoryProperties,
    queue_family: vk::QueueFamilyProperties,
}

impl Default for PhysicalDevice {
    fn default() -> Self {
        Self::new()
    }
}

fn limits() -> vk::PhysicalDeviceLimits {
    vk::PhysicalDeviceLimits {
        // Image and graphics limits: the spec's required minimums (no image formats are supported).
        max_image_dimension1d: 4096,
        max_image_dimension2d: 4096,
        max_image_dimension3d: 256,
        max_image_dimension_cube: 4096,
        max_image_array_layers: 256,
        max_texel_buffer_elements: 65536,
        max_uniform_buffer_range: 65536,
        max_storage_buffer_range: u32::MAX,
        max_push_constants_size: 256,
        max_memory_allocation_count: MAX_MEMORY_ALLOCATION_COUNT,
        max_sampler_allocation_count: 4000,
        buffer_image_granularity: 1,
        sparse_address_space_size: 0,
        max_bound_descriptor_sets: 8,
        max_per_stage_descriptor_samplers: 16,
        max_per_stage_descriptor_uniform_buffers: 15,
        max_per_stage_descriptor_storage_buffers: 1 << 20,
        max_per_stage_descriptor_sampled_images: 16,
        max_per_stage_descriptor_storage_images: 4,
        max_per_stage_descriptor_input_attachments: 4,
        max_per_stage_resources: 1 << 20,
        max_descriptor_set_samplers: 96,
        max_descriptor_set_uniform_buffers: 90,
        max_descriptor_set_uniform_buffers_dynamic: 8,
        max_descriptor_set_storage_buffers: 1 << 20,
        max_descriptor_set_storage_buffers_dynamic: 8,
        max_descriptor_set_sampled_images: 96,
        max_descriptor_set_storage_images: 24,
        max_descriptor_set_input_attachments: 4,
        max_vertex_input_attributes: 16,
        max_vertex_input_bindings: 16,
        max_vertex_input_attribute_offset: 2047,
        max_vertex_input_binding_stride: 2048,
        max_vertex_output_components: 64,
        max_fragment_input_components: 64,
        max_fragment_output_attachments: 4,
        max_fragment_combined_output_resources: 4,
        max_compute_shared_memory_size: 64 * 1024,
        max_compute_work_group_count: [u32::MAX, 65535, 65535],
        max_compute_work_group_invocations: 1024,
        max_compute_work_group_size: [1024, 1024, 64],
        sub_pixel_precision_bits: 4,
        sub_texel_precision_bits: 4,
        mipmap_precision_bits: 4,
        max_draw_indexed_index_value: u32::MAX,
        max_draw_indirect_count: 1,
        max_sampler_lod_bias: crate::limits::MAX_SAMPLER_LOD_BIAS,
        max_sampler_anisotropy: 1.0,
        max_viewports: 1,
        max_viewport_dimensions: [4096, 4096],
        viewport_bounds_range: [-8192.0, 8191.0],
        viewport_sub_pixel_bits: 0,
        min_memory_map_alignment: ALLOCATION_ALIGNMENT,
        min_texel_buffer_offset_alignment: 16,
        min_uniform_buffer_offset_alignment: 16,
        min_storage_buffer_offset_alignment: 16,
        min_texel_offset: -8,
        max_texel_offset: 7,
        min_texel_gather_offset: -8,
        max_texel_gather_offset: 7,
        min_interpolation_offset: -0.5,
        max_interpolation_offset: 0.4375,
        sub_pixel_interpolation_offset_bits: 4,
        max_framebuffer_width: 4096,
        max_framebuffer_height: 4096,
        max_framebuffer_layers: 256,
        framebuffer_color_sample_counts: MIN_SAMPLE_COUNTS,
        framebuffer_depth_sample_counts: MIN_SAMPLE_COUNTS,
        framebuffer_stencil_sample_counts: MIN_SAMPLE_COUNTS,
        framebuffer_no_attachments_sample_counts: MIN_SAMPLE_COUNTS,
        max_color_attachments: 4,
        sampled_image_color_sample_counts: MIN_SAMPLE_COUNTS,
        sampled_image_integer_sample_counts: VK_SAMPLE_COUNT_1_BIT,
        sampled_image_depth_sample_counts: MIN_SAMPLE_COUNTS,
        sampled_image_stencil_sample_counts: MIN_SAMPLE_COUNTS,
        storage_image_sample_counts: VK_SAMPLE_COUNT_1_BIT,
        max_sample_mask_words: 1,
        timestamp_compute_and_graphics: true,
        timestamp_period: 1.0,
        discrete_queue_priorities: 2,
        point_size_range: [1.0, 1.0],
        line_width_range: [1.0, 1.0],
        point_size_granularity: 0.0,
        line_width_granularity: 0.0,
        strict_lines: false,
        standard_sample_locations: false,
        optimal_buffer_copy_offset_alignment: BUFFER_ALIGNMENT,
        optimal_buffer_copy_row_pitch_alignment: BUFFER_ALIGNMENT,
        non_coherent_atom_size: 1,
        ..Default::default()
    }
}

fn properties() -> Properties {
    let mut p = Properties::default();
    let v10 = &mut p.vulkan10;
    v10.api_version = API_VERSION;
    v10.driver_version = driver_version();
    v10.vendor_id = VENDOR_ID;
    v10.device_id = 1;
    v10.device_type = VK_PHYSICAL_DEVICE_TYPE_CPU;
    v10.device_name = DEVICE_NAME.into();
    v10.pipeline_cache_uuid = uuid(b'p');
    v10.limits = limits();

    let v11 = &mut p.vulkan11;
    v11.device_uuid = uuid(b'd');
    v11.driver_uuid = uuid(b'r');
    v11.subgroup_size = SUBGROUP_SIZE;
    v11.subgroup_supported_stages = VK_SHADER_STAGE_COMPUTE_BIT;
    v11.subgroup_supported_operations = VK_SUBGROUP_FEATURE_BASIC_BIT
        | VK_SUBGROUP_FEATURE_VOTE_BIT
        | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
        | VK_SUBGROUP_FEATURE_BALLOT_BIT
        | VK_SUBGROUP_FEATURE_SHUFFLE_BIT
        | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT
        | VK_SUBGROUP_FEATURE_CLUSTERED_BIT
        | VK_SUBGROUP_FEATURE_QUAD_BIT;
    v11.point_clipping_behavior = VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
    v11.max_multiview_view_count = 6;
    v11.max_multiview_instance_index = (1 << 27) - 1;
    v11.max_per_set_descriptors = 1 << 20;
    v11.max_memory_allocation_size = max_allocation_size();

    let v12 = &mut p.vulkan12;
    // Tessera has no registered VkDriverId; 0 reads as "unknown".
    v12.driver_id = 0;
    v12.driver_name = DRIVER_NAME.into();
    v12.driver_info = format!(
        "Tessera {} (pure-Rust CPU driver)",
        env!("CARGO_PKG_VERSION")
    );
    // Required even without images: SAMPLE_ZERO is the mandatory resolve mode.
    v12.supported_depth_resolve_modes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
    v12.supported_stencil_resolve_modes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
    v12.denorm_behavior_independence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
    v12.rounding_mode_independence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
    v12.shader_signed_zero_inf_nan_preserve_float16 = true;
    v12.shader_signed_zero_inf_nan_preserve_float32 = true;
    v12.shader_signed_zero_inf_nan_preserve_float64 = true;
    v12.shader_denorm_preserve_float32 = true;
    v12.shader_denorm_preserve_float64 = true;
    v12.shader_rounding_mode_rte_float16 = true;
    v12.shader_rounding_mode_rte_float32 = true;
    v12.shader_rounding_mode_rte_float64 = true;
    v12.max_update_after_bind_descriptors_in_all_pools = 1 << 20;
    v12.robust_buffer_access_update_after_bind = true;
    v12.max_per_stage_descriptor_update_after_bind_uniform_buffers = 15;
    v12.max_per_stage_descriptor_update_after_bind_storage_buffers = 1 << 20;
    v12.max_per_stage_update_after_bind_resources = 1 << 20;
    v12.max_descriptor_set_update_after_bind_uniform_buffers = 90;
    v12.max_descriptor_set_update_after_bind_uniform_buffers_dynamic = 8;
    v12.max_descriptor_set_update_after_bind_storage_buffers = 1 << 20;
    v12.max_descriptor_set_update_after_bind_storage_buffers_dynamic = 8;
    v12.max_timeline_semaphore_value_difference = MAX_TIMELINE_DIFFERENCE;
    v12.framebuffer_integer_color_sample_counts = VK_SAMPLE_COUNT_1_BIT;

    let v13 = &mut p.vulkan13;
    v13.min_subgroup_size = SUBGROUP_SIZE;
    v13.max_subgroup_size = SUBGROUP_SIZE;
    v13.max_compute_workgroup_subgroups = 1024 / SUBGROUP_SIZE;
    v13.required_subgroup_size_stages = VK_SHADER_STAGE_COMPUTE_BIT;
    v13.max_inline_uniform_block_size = 256;
    v13.max_per_stage_descriptor_inline_uniform_blocks = 4;
    v13.max_per_stage_descriptor_update_after_bind_inline_uniform_blocks = 4;
    v13.max_descriptor_set_inline_uniform_blocks = 4;
    v13.max_descriptor_set_update_after_bind_inline_uniform_blocks = 4;
    v13.max_inline_uniform_total_size = 4 * 256;
    v13.storage_texel_buffer_offset_alignment_bytes = 16;
    // Compiled code multiplies 8-bit components (separate or packed four to a word) with
    // `pmaddwd`s of their even and odd bytes, in vectors (`tessera_jit`'s `codegen/dot.rs`);
    // other widths and the saturating forms are not faster than the instructions they stand for.
    v13.integer_dot_product8_bit_unsigned_accelerated = true;
    v13.integer_dot_product8_bit_signed_accelerated = true;
    v13.integer_dot_product8_bit_mixed_signedness_accelerated = true;
    v13.integer_dot_product4x8_bit_packed_unsigned_accelerated = true;
    v13.integer_dot_product4x8_bit_packed_signed_accelerated = true;
    v13.integer_dot_product4x8_bit_packed_mixed_signedness_accelerated = true;
    v13.uniform_texel_buffer_offset_alignment_bytes = 16;
    v13.max_buffer_size = MAX_BUFFER_SIZE;

    // No images or samplers: no block-texel views, no fragment shading rate. Three descriptors
    // covers any multi-planar format, should one ever be supported.
    p.maintenance6.max_combined_image_sampler_descriptor_count = 3;

    let t = &mut p.tensor_arm;
    {
        use crate::limits as l;
        t.max_tensor_dimension_count = l::MAX_TENSOR_DIMENSIONS;
        t.max_tensor_elements = l::max_tensor_elements();
        t.max_per_dimension_tensor_elements = l::MAX_PER_DIMENSION_TENSOR_ELEMENTS;
        t.max_tensor_stride = i64::try_from(l::max_tensor_stride()).unwrap_or(i64::MAX);
        t.max_tensor_size = l::max_tensor_size();
        t.max_tensor_shader_access_array_length = l::MAX_TENSOR_SHADER_ACCESS_ARRAY_LENGTH;
        t.max_tensor_shader_access_size = l::MAX_TENSOR_SHADER_ACCESS_SIZE;
    }
    t.max_descriptor_set_storage_tensors = 1 << 20;
    t.max_per_stage_descriptor_set_storage_tensors = 1 << 20;
    t.max_descriptor_set_update_after_bind_storage_tensors = 1 << 20;
    t.max_per_stage_descriptor_update_after_bind_storage_tensors = 1 << 20;
    t.shader_storage_tensor_array_non_uniform_indexing_native = true;
    t.shader_tensor_supported_stages = VK_SHADER_STAGE_COMPUTE_BIT;
    p
}

fn features_and_properties() -> (Features, Properties) {
    let (mut f, mut p) = (features(), properties());
    crate::cooperative::set_caps(&mut f, &mut p);
    (f, p)
}

fn features() -> Features {
    let mut f = Features::default();
    let v10 = &mut f.vulkan10;
    v10.robust_buffer_access = true;
    v10.shader_float64 = true;
    v10.shader_int64 = true;
    v10.shader_int16 = true;

    let v11 = &mut f.vulkan11;
    v11.storage_buffer16_bit_access = true;
    v11.uniform_and_storage_buffer16_bit_access = true;
    v11.storage_push_constant16 = true;
    // Required by Vulkan 1.1; it only affects render passes, which a compute-only queue never runs.
    v11.multiview = true;
    // Buffer pointers as descriptor addresses, workgroup pointers as offsets (`spirv::lower::memory`).
    v11.variable_pointers_storage_buffer = true;
    v11.variable_pointers = true;

    let v12 = &mut f.vulkan12;
    v12.storage_buffer8_bit_access = true;
    v12.uniform_and_storage_buffer8_bit_access = true;
    v12.storage_push_constant8 = true;
    v12.shader_float16 = true;
    v12.shader_int8 = true;
    v12.imageless_framebuffer = true;
    // Shaders address buffers at the offsets their decorations give, whatever rules made them.
    v12.scalar_block_layout = true;
    v12.uniform_buffer_standard_layout = true;
    v12.shader_subgroup_extended_types = true;
    v12.separate_depth_stencil_layouts = true;
    // Descriptors are read when a dispatch executes and an unwritten one reads as out of bounds,
    // so these descriptor-indexing behaviours come for free (Arm's graph layer relies on them).
    v12.descriptor_binding_uniform_buffer_update_after_bind = true;
    v12.descriptor_binding_storage_buffer_update_after_bind = true;
    v12.descriptor_binding_update_unused_while_pending = true;
    v12.descriptor_binding_partially_bound = true;
    v12.host_query_reset = true;
    v12.timeline_semaphore = true;
    v12.buffer_device_address = true;
    v12.vulkan_memory_model = true;
    v12.vulkan_memory_model_device_scope = true;
    v12.subgroup_broadcast_dynamic_id = true;

    let v13 = &mut f.vulkan13;
    v13.robust_image_access = true;
    v13.inline_uniform_block = true;
    v13.pipeline_creation_cache_control = true;
    v13.private_data = true;
    v13.shader_demote_to_helper_invocation = true;
    v13.shader_terminate_invocation = true;
    v13.subgroup_size_control = true;
    v13.compute_full_subgroups = true;
    v13.synchronization2 = true;
    v13.shader_zero_initialize_workgroup_memory = true;
    v13.dynamic_rendering = true;
    v13.shader_integer_dot_product = true;
    v13.maintenance4 = true;

    let t = &mut f.tensor_arm;
    t.tensor_non_packed = true;
    t.shader_tensor_access = true;
    t.shader_storage_tensor_array_dynamic_indexing = true;
    t.shader_storage_tensor_array_non_uniform_indexing = true;
    t.descriptor_binding_storage_tensor_update_after_bind = true;
    t.tensors = true;

    f.maintenance5.maintenance5 = true;
    f.maintenance6.maintenance6 = true;
    // Data graph pipelines run TOSA.001000.1 graphs from shader modules; specialization
    // constants are applied when the graph is decoded, and descriptors are read when a dispatch
    // executes (so update-after-bind sets work as they do for compute). No descriptor buffers.
    let g = &mut f.data_graph_arm;
    g.data_graph = true;
    g.data_graph_shader_module = true;
    g.data_graph_specialization_constants = true;
    g.data_graph_update_after_bind = true;
    f.shader_bfloat16_khr.shader_b_float16_type = true;
    f.shader_bfloat16_khr.shader_b_float16_dot_product = true;
    f.shader_float8_ext.shader_float8 = true;
    f
}

impl PhysicalDevice {
    /// The CPU device.
    pub fn new() -> Self {
        let mut memory = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: MEMORY_TYPE_COUNT,
            memory_heap_count: 1,
            ..Default::default()
        };
        memory.memory_types[0] = vk::MemoryType {
            property_flags: VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
                | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
            heap_index: 0,
        };
        memory.memory_heaps[0] = vk::MemoryHeap {
            size: heap_size(),
            flags: VK_MEMORY_HEAP_DEVICE_LOCAL_BIT,
        };
        let (features, properties) = features_and_properties();
        PhysicalDevice {
            properties,
            features,
            memory,
            queue_family: vk::QueueFamilyProperties {
                queue_flags: VK_QUEUE_COMPUTE_BIT
                    | VK_QUEUE_TRANSFER_BIT
                    | VK_QUEUE_DATA_GRAPH_BIT_ARM,
                queue_count: QUEUE_COUNT,
                timestamp_valid_bits: 64,
                min_image_transfer_granularity: vk::Extent3D {
                    width: 1,
                    height: 1,
                    depth: 1,
                },
            },
        }
    }

    /// Every property struct's values.
    pub fn properties(&self) -> &Properties {
        &self.properties
    }

    /// The limits (`VkPhysicalDeviceLimits`).
    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.properties.vulkan10.limits
    }

    /// Every supported feature.
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// Memory types and heaps.
    pub fn memory_properties(&self) -> &vk::PhysicalDeviceMemoryProperties {
        &self.memory
    }

    /// The queue families (one: compute | transfer).
    pub fn queue_families(&self) -> &[vk::QueueFamilyProperties] {
        std::slice::from_ref(&self.queue_family)
    }

    /// The device extensions, in the order they are listed.
    pub fn extensions(&self) -> &'static [ExtensionInfo<DeviceExtension>] {
        DEVICE_EXTENSIONS
    }

    /// `vkGetPhysicalDeviceFormatProperties2`: no format supports images or texel buffers; the
    /// tensor formats report their tensor features.
    pub fn format_properties(&self, format: VkFormat) -> vk::FormatProperties2 {
        let tensor = crate::format::tensor_format(format).map_or(
            vk::TensorFormatPropertiesARM::default(),
            |f| vk::TensorFormatPropertiesARM {
                optimal_tiling_tensor_features: crate::tensor::format_features(
                    f,
                    crate::tensor::Tiling::Optimal,
                ),
                linear_tiling_tensor_features: crate::tensor::format_features(
                    f,
                    crate::tensor::Tiling::Linear,
                ),
            },
        );
        vk::FormatProperties2 {
            format_properties: vk::FormatProperties::default(),
            format_properties3: Some(Box::default()),
            tensor_format_properties_arm: Some(Box::new(tensor)),
        }
    }

    /// `vkGetPhysicalDeviceImageFormatProperties(2)`.
    ///
    /// # Errors
    /// `FormatNotSupported`: no format supports images.
    pub fn image_format_properties(&self) -> Result<()> {
        Err(Error::FormatNotSupported(
            "Tessera supports no image formats".into(),
        ))
    }

    /// `vkGetPhysicalDeviceExternalBufferProperties` (and the fence, semaphore and tensor
    /// variants): no external handle type is supported.
    pub fn external_memory_properties(&self) -> vk::ExternalMemoryProperties {
        vk::ExternalMemoryProperties::default()
    }
}

/// Shared handle to the physical device.
pub type PhysicalDeviceRef = Arc<PhysicalDevice>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_meet_the_issue() {
        let pd = PhysicalDevice::new();
        let l = pd.limits();
        assert!(l.max_compute_work_group_count[0] > 96_577);
        assert!(u64::from(l.max_storage_buffer_range) >= (1 << 31) - 1);
    }

    #[test]
    fn features_meet_the_core_requirements() {
        // Vulkan 1.3 requires these (the registry's `<feature>` requirements of 1.0–1.3).
        let f = PhysicalDevice::new().features().clone();
        assert!(f.vulkan10.robust_buffer_access);
        assert!(f.vulkan11.multiview);
        assert!(f.vulkan12.timeline_semaphore && f.vulkan12.buffer_device_address);
        assert!(f.vulkan13.synchronization2 && f.vulkan13.maintenance4);
    }
}
