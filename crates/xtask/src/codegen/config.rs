//! What Tessera implements, as the generator needs to know it: the core version, the extensions
//! the driver advertises, and which runtime type stands behind each Vulkan handle. Everything
//! else (commands, structs, aliases, spec versions, enum values) comes from the registry.

/// The core version the device implements.
pub const API_VERSION: (u32, u32) = (1, 3);

/// Instance extensions we implement.
pub const INSTANCE_EXTENSIONS: &[&str] = &["VK_KHR_get_physical_device_properties2"];

/// Device extensions we implement, with the revision we implement where it differs from the
/// registry's `SPEC_VERSION` (the 1.4.342 registry says 1 for `VK_ARM_tensors`; revision 2 adds
/// the bfloat16 and float8 tensor formats, which we support).
pub const DEVICE_EXTENSIONS: &[(&str, Option<u32>)] = &[
    ("VK_ARM_data_graph", None),
    ("VK_ARM_data_graph_instruction_set_tosa", None),
    ("VK_ARM_tensors", Some(2)),
    ("VK_KHR_cooperative_matrix", None),
    ("VK_KHR_16bit_storage", None),
    ("VK_KHR_8bit_storage", None),
    ("VK_KHR_bind_memory2", None),
    ("VK_KHR_buffer_device_address", None),
    ("VK_KHR_copy_commands2", None),
    ("VK_KHR_dedicated_allocation", None),
    ("VK_KHR_deferred_host_operations", None),
    ("VK_KHR_driver_properties", None),
    ("VK_KHR_format_feature_flags2", None),
    ("VK_KHR_get_memory_requirements2", None),
    ("VK_KHR_maintenance1", None),
    ("VK_KHR_maintenance3", None),
    ("VK_KHR_maintenance4", None),
    ("VK_KHR_maintenance5", None),
    ("VK_KHR_maintenance6", None),
    ("VK_KHR_map_memory2", None),
    ("VK_KHR_shader_bfloat16", None),
    ("VK_KHR_shader_float16_int8", None),
    ("VK_KHR_shader_integer_dot_product", None),
    ("VK_KHR_shader_subgroup_extended_types", None),
    ("VK_KHR_storage_buffer_storage_class", None),
    ("VK_KHR_synchronization2", None),
    ("VK_KHR_timeline_semaphore", None),
    ("VK_KHR_uniform_buffer_standard_layout", None),
    ("VK_KHR_variable_pointers", None),
    ("VK_KHR_vulkan_memory_model", None),
    ("VK_EXT_shader_float8", None),
    ("VK_NV_cooperative_vector", None),
    ("VK_EXT_host_query_reset", None),
    ("VK_EXT_pipeline_creation_cache_control", None),
    ("VK_EXT_private_data", None),
    ("VK_EXT_scalar_block_layout", None),
];

/// Extensions of [`DEVICE_EXTENSIONS`] that the ABI's registry (vk-1.4.342.xml, what
/// `vulkan-headers` mirrors) does not have: grafted from the newer one, their C declarations
/// emitted into `vk/abi.rs` (see `newer.rs`).
pub const NEWER_EXTENSIONS: &[&str] = &["VK_ARM_data_graph_instruction_set_tosa"];

/// The runtime type behind each Vulkan handle we implement (`tessera_runtime::…`). A handle type
/// not listed here (images, render passes, …) stays a raw `u64` in the runtime's structs.
pub const OBJECTS: &[(&str, &str)] = &[
    ("VkInstance", "instance::Instance"),
    ("VkPhysicalDevice", "physical_device::PhysicalDevice"),
    ("VkDevice", "device::Device"),
    ("VkQueue", "queue::Queue"),
    ("VkCommandPool", "cmd::CommandPool"),
    ("VkCommandBuffer", "cmd::CommandBuffer"),
    ("VkDeviceMemory", "memory::DeviceMemory"),
    ("VkBuffer", "buffer::Buffer"),
    ("VkFence", "sync::Fence"),
    ("VkSemaphore", "sync::Semaphore"),
    ("VkEvent", "sync::Event"),
    ("VkQueryPool", "query::QueryPool"),
    ("VkShaderModule", "pipeline::ShaderModule"),
    ("VkPipelineCache", "pipeline::PipelineCache"),
    ("VkPipeline", "pipeline::Pipeline"),
    ("VkPipelineLayout", "descriptor::PipelineLayout"),
    ("VkDescriptorSetLayout", "descriptor::DescriptorSetLayout"),
    ("VkDescriptorPool", "descriptor::DescriptorPool"),
    ("VkDescriptorSet", "descriptor::DescriptorSet"),
    ("VkDescriptorUpdateTemplate", "descriptor::UpdateTemplate"),
    ("VkSampler", "sampler::Sampler"),
    ("VkPrivateDataSlot", "private_data::PrivateDataSlot"),
    ("VkTensorARM", "tensor::Tensor"),
    ("VkTensorViewARM", "tensor::TensorView"),
    (
        "VkDataGraphPipelineSessionARM",
        "data_graph::DataGraphSession",
    ),
    ("VkDeferredOperationKHR", "deferred::DeferredOperation"),
];

/// Structs Tessera understands although neither its core version nor its extensions define
/// them: `VkBufferUsageFlags2CreateInfo` (64-bit buffer usage, from `VK_KHR_maintenance5`) is
/// honoured when chained to `VkBufferCreateInfo`, as the driver always did.
pub const EXTRA_STRUCTS: &[&str] = &["VkBufferUsageFlags2CreateInfo"];

/// Where the generated files go, relative to the repository root.
pub const ICD_OUT: &str = "crates/icd/src/generated";
/// Where the runtime's generated files go.
pub const RUNTIME_OUT: &str = "crates/runtime/src/vk";
/// The hand-written entry points the generator looks for (one file per object family).
pub const ENTRY_DIR: &str = "crates/icd/src/entry";

/// Whether `name` is an extension we implement.
pub fn is_supported_extension(name: &str) -> bool {
    INSTANCE_EXTENSIONS.contains(&name) || DEVICE_EXTENSIONS.iter().any(|(n, _)| *n == name)
}

/// Whether a `depends` term (an extension or `VK_VERSION_x_y`) is available on our device.
pub fn has(term: &str) -> bool {
    if let Some(version) = term.strip_prefix("VK_VERSION_") {
        return parse_version(version).is_some_and(|v| v <= API_VERSION);
    }
    is_supported_extension(term)
}

/// `1_2` → `(1, 2)`.
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('_')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
