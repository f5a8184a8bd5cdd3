//! What the Tessera physical device reports: properties, limits, features, queue families,
//! memory types and extensions.
//!
//! Features are written into any feature struct the application chains, by `sType`; the same
//! tables decide, at `vkCreateDevice`, whether a requested feature is supported (a feature struct
//! is a header followed by `VkBool32`s, so requested and supported structs compare word by word).

use std::ffi::CStr;

use tessera_runtime::limits::{
    ALLOCATION_ALIGNMENT, BUFFER_ALIGNMENT, MAX_BUFFER_SIZE, MAX_MEMORY_ALLOCATION_COUNT,
    MAX_TIMELINE_DIFFERENCE, MAX_UPDATE_BUFFER_SIZE, MEMORY_TYPE_COUNT, QUEUE_COUNT, heap_size,
    max_allocation_size,
};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::conv::{copy_cstr, zeroed};

/// `VkPhysicalDeviceProperties::deviceName`.
pub const DEVICE_NAME: &CStr = c"Tessera (CPU)";
/// `driverName`.
pub const DRIVER_NAME: &CStr = c"Tessera";
/// The Vulkan version the device implements.
pub const API_VERSION: u32 = VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION);
/// Not a registered PCI or Khronos vendor id: Tessera has none.
pub const VENDOR_ID: u32 = 0x7E55;
/// Subgroup size of compute shaders.
pub const SUBGROUP_SIZE: u32 = 32;

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

/// `VK_ARM_tensors` revision we implement (the 1.4.342 headers still say 1; revision 2 adds
/// the bfloat16 and float8 tensor formats).
pub const ARM_TENSORS_SPEC_VERSION: u32 = 2;

/// The device extensions we implement: `(name, specVersion)`.
pub const DEVICE_EXTENSIONS: &[(&CStr, u32)] = &[
    (VK_ARM_TENSORS_EXTENSION_NAME, ARM_TENSORS_SPEC_VERSION),
    (
        VK_KHR_16BIT_STORAGE_EXTENSION_NAME,
        VK_KHR_16BIT_STORAGE_SPEC_VERSION,
    ),
    (
        VK_KHR_8BIT_STORAGE_EXTENSION_NAME,
        VK_KHR_8BIT_STORAGE_SPEC_VERSION,
    ),
    (
        VK_KHR_BIND_MEMORY_2_EXTENSION_NAME,
        VK_KHR_BIND_MEMORY_2_SPEC_VERSION,
    ),
    (
        VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME,
        VK_KHR_BUFFER_DEVICE_ADDRESS_SPEC_VERSION,
    ),
    (
        VK_KHR_COPY_COMMANDS_2_EXTENSION_NAME,
        VK_KHR_COPY_COMMANDS_2_SPEC_VERSION,
    ),
    (
        VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME,
        VK_KHR_DEDICATED_ALLOCATION_SPEC_VERSION,
    ),
    (
        VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME,
        VK_KHR_DRIVER_PROPERTIES_SPEC_VERSION,
    ),
    (
        VK_KHR_FORMAT_FEATURE_FLAGS_2_EXTENSION_NAME,
        VK_KHR_FORMAT_FEATURE_FLAGS_2_SPEC_VERSION,
    ),
    (
        VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME,
        VK_KHR_GET_MEMORY_REQUIREMENTS_2_SPEC_VERSION,
    ),
    (
        VK_KHR_MAINTENANCE_1_EXTENSION_NAME,
        VK_KHR_MAINTENANCE_1_SPEC_VERSION,
    ),
    (
        VK_KHR_MAINTENANCE_3_EXTENSION_NAME,
        VK_KHR_MAINTENANCE_3_SPEC_VERSION,
    ),
    (
        VK_KHR_MAINTENANCE_4_EXTENSION_NAME,
        VK_KHR_MAINTENANCE_4_SPEC_VERSION,
    ),
    (
        VK_KHR_MAINTENANCE_6_EXTENSION_NAME,
        VK_KHR_MAINTENANCE_6_SPEC_VERSION,
    ),
    (
        VK_KHR_MAP_MEMORY_2_EXTENSION_NAME,
        VK_KHR_MAP_MEMORY_2_SPEC_VERSION,
    ),
    (
        VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME,
        VK_KHR_SHADER_BFLOAT16_SPEC_VERSION,
    ),
    (
        VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME,
        VK_KHR_SHADER_FLOAT16_INT8_SPEC_VERSION,
    ),
    (
        VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_EXTENSION_NAME,
        VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_SPEC_VERSION,
    ),
    (
        VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME,
        VK_KHR_SYNCHRONIZATION_2_SPEC_VERSION,
    ),
    (
        VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME,
        VK_KHR_TIMELINE_SEMAPHORE_SPEC_VERSION,
    ),
    (
        VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME,
        VK_KHR_VULKAN_MEMORY_MODEL_SPEC_VERSION,
    ),
    (
        VK_EXT_SHADER_FLOAT8_EXTENSION_NAME,
        VK_EXT_SHADER_FLOAT8_SPEC_VERSION,
    ),
    (
        VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME,
        VK_EXT_HOST_QUERY_RESET_SPEC_VERSION,
    ),
    (
        VK_EXT_PIPELINE_CREATION_CACHE_CONTROL_EXTENSION_NAME,
        VK_EXT_PIPELINE_CREATION_CACHE_CONTROL_SPEC_VERSION,
    ),
    (
        VK_EXT_PRIVATE_DATA_EXTENSION_NAME,
        VK_EXT_PRIVATE_DATA_SPEC_VERSION,
    ),
];

/// The instance extensions we implement.
pub const INSTANCE_EXTENSIONS: &[(&CStr, u32)] = &[(
    VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME,
    VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_SPEC_VERSION,
)];

/// Fills a `VkExtensionProperties`.
pub fn extension_properties(name: &CStr, spec_version: u32) -> VkExtensionProperties {
    let mut p: VkExtensionProperties = zeroed();
    copy_cstr(&mut p.extensionName, name);
    p.specVersion = spec_version;
    p
}

/// Whether `name` is one of `list`.
pub fn is_listed(list: &[(&CStr, u32)], name: &CStr) -> bool {
    list.iter().any(|(n, _)| *n == name)
}

/// `VkPhysicalDeviceLimits`.
/// The sample counts the limits table requires at least (1 and 4). Tessera has no images or
/// framebuffers, so nothing can use them; the values only keep the limits within the spec's
/// minimums.
const MIN_SAMPLE_COUNTS: VkSampleCountFlags = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;

pub fn limits() -> VkPhysicalDeviceLimits {
    let mut l: VkPhysicalDeviceLimits = zeroed();
    // Image and graphics limits: the spec's required minimums (no image formats are supported).
    l.maxImageDimension1D = 4096;
    l.maxImageDimension2D = 4096;
    l.maxImageDimension3D = 256;
    l.maxImageDimensionCube = 4096;
    l.maxImageArrayLayers = 256;
    l.maxTexelBufferElements = 65536;
    l.maxUniformBufferRange = 65536;
    l.maxStorageBufferRange = u32::MAX;
    l.maxPushConstantsSize = 256;
    l.maxMemoryAllocationCount = MAX_MEMORY_ALLOCATION_COUNT;
    l.maxSamplerAllocationCount = 4000;
    l.bufferImageGranularity = 1;
    l.sparseAddressSpaceSize = 0;
    l.maxBoundDescriptorSets = 8;
    l.maxPerStageDescriptorSamplers = 16;
    l.maxPerStageDescriptorUniformBuffers = 15;
    l.maxPerStageDescriptorStorageBuffers = 1 << 20;
    l.maxPerStageDescriptorSampledImages = 16;
    l.maxPerStageDescriptorStorageImages = 4;
    l.maxPerStageDescriptorInputAttachments = 4;
    l.maxPerStageResources = 1 << 20;
    l.maxDescriptorSetSamplers = 96;
    l.maxDescriptorSetUniformBuffers = 90;
    l.maxDescriptorSetUniformBuffersDynamic = 8;
    l.maxDescriptorSetStorageBuffers = 1 << 20;
    l.maxDescriptorSetStorageBuffersDynamic = 8;
    l.maxDescriptorSetSampledImages = 96;
    l.maxDescriptorSetStorageImages = 24;
    l.maxDescriptorSetInputAttachments = 4;
    l.maxVertexInputAttributes = 16;
    l.maxVertexInputBindings = 16;
    l.maxVertexInputAttributeOffset = 2047;
    l.maxVertexInputBindingStride = 2048;
    l.maxVertexOutputComponents = 64;
    l.maxFragmentInputComponents = 64;
    l.maxFragmentOutputAttachments = 4;
    l.maxFragmentCombinedOutputResources = 4;
    l.maxComputeSharedMemorySize = 64 * 1024;
    l.maxComputeWorkGroupCount = [u32::MAX, 65535, 65535];
    l.maxComputeWorkGroupInvocations = 1024;
    l.maxComputeWorkGroupSize = [1024, 1024, 64];
    l.subPixelPrecisionBits = 4;
    l.subTexelPrecisionBits = 4;
    l.mipmapPrecisionBits = 4;
    l.maxDrawIndexedIndexValue = u32::MAX;
    l.maxDrawIndirectCount = 1;
    l.maxSamplerLodBias = tessera_runtime::limits::MAX_SAMPLER_LOD_BIAS;
    l.maxSamplerAnisotropy = 1.0;
    l.maxViewports = 1;
    l.maxViewportDimensions = [4096, 4096];
    l.viewportBoundsRange = [-8192.0, 8191.0];
    l.viewportSubPixelBits = 0;
    l.minMemoryMapAlignment = ALLOCATION_ALIGNMENT;
    l.minTexelBufferOffsetAlignment = 16;
    l.minUniformBufferOffsetAlignment = 16;
    l.minStorageBufferOffsetAlignment = 16;
    l.minTexelOffset = -8;
    l.maxTexelOffset = 7;
    l.minTexelGatherOffset = -8;
    l.maxTexelGatherOffset = 7;
    l.minInterpolationOffset = -0.5;
    l.maxInterpolationOffset = 0.4375;
    l.subPixelInterpolationOffsetBits = 4;
    l.maxFramebufferWidth = 4096;
    l.maxFramebufferHeight = 4096;
    l.maxFramebufferLayers = 256;
    l.framebufferColorSampleCounts = MIN_SAMPLE_COUNTS;
    l.framebufferDepthSampleCounts = MIN_SAMPLE_COUNTS;
    l.framebufferStencilSampleCounts = MIN_SAMPLE_COUNTS;
    l.framebufferNoAttachmentsSampleCounts = MIN_SAMPLE_COUNTS;
    l.maxColorAttachments = 4;
    l.sampledImageColorSampleCounts = MIN_SAMPLE_COUNTS;
    l.sampledImageIntegerSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l.sampledImageDepthSampleCounts = MIN_SAMPLE_COUNTS;
    l.sampledImageStencilSampleCounts = MIN_SAMPLE_COUNTS;
    l.storageImageSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l.maxSampleMaskWords = 1;
    l.timestampComputeAndGraphics = VK_TRUE;
    l.timestampPeriod = 1.0;
    l.discreteQueuePriorities = 2;
    l.pointSizeRange = [1.0, 1.0];
    l.lineWidthRange = [1.0, 1.0];
    l.pointSizeGranularity = 0.0;
    l.lineWidthGranularity = 0.0;
    l.strictLines = VK_FALSE;
    l.standardSampleLocations = VK_FALSE;
    l.optimalBufferCopyOffsetAlignment = BUFFER_ALIGNMENT;
    l.optimalBufferCopyRowPitchAlignment = BUFFER_ALIGNMENT;
    l.nonCoherentAtomSize = 1;
    l
}

/// `VkPhysicalDeviceProperties`.
pub fn properties() -> VkPhysicalDeviceProperties {
    let mut p: VkPhysicalDeviceProperties = zeroed();
    p.apiVersion = API_VERSION;
    p.driverVersion = driver_version();
    p.vendorID = VENDOR_ID;
    p.deviceID = 1;
    p.deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
    copy_cstr(&mut p.deviceName, DEVICE_NAME);
    p.pipelineCacheUUID = uuid(b'p');
    p.limits = limits();
    p
}

/// `VkPhysicalDeviceVulkan11Properties` (header fields left for the caller).
pub fn vulkan11_properties(p: &mut VkPhysicalDeviceVulkan11Properties) {
    p.deviceUUID = uuid(b'd');
    p.driverUUID = uuid(b'r');
    p.deviceLUID = [0; VK_LUID_SIZE as usize];
    p.deviceNodeMask = 0;
    p.deviceLUIDValid = VK_FALSE;
    p.subgroupSize = SUBGROUP_SIZE;
    p.subgroupSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
    p.subgroupSupportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT
        | VK_SUBGROUP_FEATURE_VOTE_BIT
        | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
        | VK_SUBGROUP_FEATURE_BALLOT_BIT
        | VK_SUBGROUP_FEATURE_SHUFFLE_BIT
        | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT
        | VK_SUBGROUP_FEATURE_CLUSTERED_BIT
        | VK_SUBGROUP_FEATURE_QUAD_BIT;
    p.subgroupQuadOperationsInAllStages = VK_FALSE;
    p.pointClippingBehavior = VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
    p.maxMultiviewViewCount = 6;
    p.maxMultiviewInstanceIndex = (1 << 27) - 1;
    p.protectedNoFault = VK_FALSE;
    p.maxPerSetDescriptors = 1 << 20;
    p.maxMemoryAllocationSize = max_allocation_size();
}

/// `VkPhysicalDeviceVulkan12Properties` (header fields left for the caller).
pub fn vulkan12_properties(p: &mut VkPhysicalDeviceVulkan12Properties) {
    // Tessera has no registered VkDriverId; 0 reads as "unknown".
    p.driverID = 0;
    copy_cstr(&mut p.driverName, DRIVER_NAME);
    let info = format!(
        "Tessera {} (pure-Rust CPU driver)\0",
        env!("CARGO_PKG_VERSION")
    );
    copy_cstr(
        &mut p.driverInfo,
        CStr::from_bytes_until_nul(info.as_bytes()).unwrap_or(c"Tessera"),
    );
    p.conformanceVersion = VkConformanceVersion {
        major: 0,
        minor: 0,
        subminor: 0,
        patch: 0,
    };
    // Required even without images: SAMPLE_ZERO is the mandatory resolve mode.
    p.supportedDepthResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
    p.supportedStencilResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
    p.denormBehaviorIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
    p.roundingModeIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
    p.shaderSignedZeroInfNanPreserveFloat16 = VK_TRUE;
    p.shaderSignedZeroInfNanPreserveFloat32 = VK_TRUE;
    p.shaderSignedZeroInfNanPreserveFloat64 = VK_TRUE;
    p.shaderDenormPreserveFloat32 = VK_TRUE;
    p.shaderDenormPreserveFloat64 = VK_TRUE;
    p.shaderRoundingModeRTEFloat16 = VK_TRUE;
    p.shaderRoundingModeRTEFloat32 = VK_TRUE;
    p.shaderRoundingModeRTEFloat64 = VK_TRUE;
    p.maxUpdateAfterBindDescriptorsInAllPools = 1 << 20;
    p.robustBufferAccessUpdateAfterBind = VK_TRUE;
    p.maxPerStageDescriptorUpdateAfterBindUniformBuffers = 15;
    p.maxPerStageDescriptorUpdateAfterBindStorageBuffers = 1 << 20;
    p.maxPerStageUpdateAfterBindResources = 1 << 20;
    p.maxDescriptorSetUpdateAfterBindUniformBuffers = 90;
    p.maxDescriptorSetUpdateAfterBindUniformBuffersDynamic = 8;
    p.maxDescriptorSetUpdateAfterBindStorageBuffers = 1 << 20;
    p.maxDescriptorSetUpdateAfterBindStorageBuffersDynamic = 8;
    p.maxTimelineSemaphoreValueDifference = MAX_TIMELINE_DIFFERENCE;
    p.framebufferIntegerColorSampleCounts = VK_SAMPLE_COUNT_1_BIT;
}

/// `VkPhysicalDeviceVulkan13Properties` (header fields left for the caller).
pub fn vulkan13_properties(p: &mut VkPhysicalDeviceVulkan13Properties) {
    p.minSubgroupSize = SUBGROUP_SIZE;
    p.maxSubgroupSize = SUBGROUP_SIZE;
    p.maxComputeWorkgroupSubgroups = 1024 / SUBGROUP_SIZE;
    p.requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
    p.maxInlineUniformBlockSize = 256;
    p.maxPerStageDescriptorInlineUniformBlocks = 4;
    p.maxPerStageDescriptorUpdateAfterBindInlineUniformBlocks = 4;
    p.maxDescriptorSetInlineUniformBlocks = 4;
    p.maxDescriptorSetUpdateAfterBindInlineUniformBlocks = 4;
    p.maxInlineUniformTotalSize = 4 * 256;
    p.storageTexelBufferOffsetAlignmentBytes = 16;
    p.storageTexelBufferOffsetSingleTexelAlignment = VK_FALSE;
    p.uniformTexelBufferOffsetAlignmentBytes = 16;
    p.uniformTexelBufferOffsetSingleTexelAlignment = VK_FALSE;
    p.maxBufferSize = MAX_BUFFER_SIZE;
}

/// `VkPhysicalDeviceFeatures`.
pub fn features10() -> VkPhysicalDeviceFeatures {
    let mut f: VkPhysicalDeviceFeatures = zeroed();
    f.robustBufferAccess = VK_TRUE;
    f.shaderFloat64 = VK_TRUE;
    f.shaderInt64 = VK_TRUE;
    f.shaderInt16 = VK_TRUE;
    f
}

/// `VkPhysicalDeviceVulkan11Features` (header fields left for the caller).
pub fn vulkan11_features(f: &mut VkPhysicalDeviceVulkan11Features) {
    f.storageBuffer16BitAccess = VK_TRUE;
    f.uniformAndStorageBuffer16BitAccess = VK_TRUE;
    f.storagePushConstant16 = VK_TRUE;
    f.storageInputOutput16 = VK_FALSE;
    // Required by Vulkan 1.1; it only affects render passes, which a compute-only queue never runs.
    f.multiview = VK_TRUE;
}

/// `VkPhysicalDeviceVulkan12Features` (header fields left for the caller).
pub fn vulkan12_features(f: &mut VkPhysicalDeviceVulkan12Features) {
    f.storageBuffer8BitAccess = VK_TRUE;
    f.uniformAndStorageBuffer8BitAccess = VK_TRUE;
    f.storagePushConstant8 = VK_TRUE;
    f.shaderFloat16 = VK_TRUE;
    f.shaderInt8 = VK_TRUE;
    f.imagelessFramebuffer = VK_TRUE;
    f.uniformBufferStandardLayout = VK_TRUE;
    f.shaderSubgroupExtendedTypes = VK_TRUE;
    f.separateDepthStencilLayouts = VK_TRUE;
    // Descriptors are read when a dispatch executes and an unwritten one reads as out of bounds,
    // so these descriptor-indexing behaviours come for free (Arm's graph layer relies on them).
    f.descriptorBindingUniformBufferUpdateAfterBind = VK_TRUE;
    f.descriptorBindingStorageBufferUpdateAfterBind = VK_TRUE;
    f.descriptorBindingUpdateUnusedWhilePending = VK_TRUE;
    f.descriptorBindingPartiallyBound = VK_TRUE;
    f.hostQueryReset = VK_TRUE;
    f.timelineSemaphore = VK_TRUE;
    f.bufferDeviceAddress = VK_TRUE;
    f.vulkanMemoryModel = VK_TRUE;
    f.vulkanMemoryModelDeviceScope = VK_TRUE;
    f.subgroupBroadcastDynamicId = VK_TRUE;
}

/// `VkPhysicalDeviceVulkan13Features` (header fields left for the caller).
pub fn vulkan13_features(f: &mut VkPhysicalDeviceVulkan13Features) {
    f.robustImageAccess = VK_TRUE;
    f.inlineUniformBlock = VK_TRUE;
    f.pipelineCreationCacheControl = VK_TRUE;
    f.privateData = VK_TRUE;
    f.shaderDemoteToHelperInvocation = VK_TRUE;
    f.shaderTerminateInvocation = VK_TRUE;
    f.subgroupSizeControl = VK_TRUE;
    f.computeFullSubgroups = VK_TRUE;
    f.synchronization2 = VK_TRUE;
    f.shaderZeroInitializeWorkgroupMemory = VK_TRUE;
    f.dynamicRendering = VK_TRUE;
    f.shaderIntegerDotProduct = VK_TRUE;
    f.maintenance4 = VK_TRUE;
}

/// `VkPhysicalDeviceTensorFeaturesARM` (header fields left zero).
pub fn tensor_features() -> VkPhysicalDeviceTensorFeaturesARM {
    let mut f: VkPhysicalDeviceTensorFeaturesARM = zeroed();
    f.tensorNonPacked = VK_TRUE;
    f.shaderTensorAccess = VK_TRUE;
    f.shaderStorageTensorArrayDynamicIndexing = VK_TRUE;
    f.shaderStorageTensorArrayNonUniformIndexing = VK_TRUE;
    f.descriptorBindingStorageTensorUpdateAfterBind = VK_TRUE;
    f.tensors = VK_TRUE;
    f
}

/// `VkPhysicalDeviceTensorPropertiesARM` (header fields left for the caller).
pub fn tensor_properties(p: &mut VkPhysicalDeviceTensorPropertiesARM) {
    use tessera_runtime::limits as l;
    p.maxTensorDimensionCount = l::MAX_TENSOR_DIMENSIONS;
    p.maxTensorElements = l::max_tensor_elements();
    p.maxPerDimensionTensorElements = l::MAX_PER_DIMENSION_TENSOR_ELEMENTS;
    p.maxTensorStride = l::max_tensor_stride() as i64;
    p.maxTensorSize = l::max_tensor_size();
    p.maxTensorShaderAccessArrayLength = l::MAX_TENSOR_SHADER_ACCESS_ARRAY_LENGTH;
    p.maxTensorShaderAccessSize = l::MAX_TENSOR_SHADER_ACCESS_SIZE;
    p.maxDescriptorSetStorageTensors = 1 << 20;
    p.maxPerStageDescriptorSetStorageTensors = 1 << 20;
    p.maxDescriptorSetUpdateAfterBindStorageTensors = 1 << 20;
    p.maxPerStageDescriptorUpdateAfterBindStorageTensors = 1 << 20;
    p.shaderStorageTensorArrayNonUniformIndexingNative = VK_TRUE;
    p.shaderTensorSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
}

/// Copies the named fields (all members of the struct) from `$src` into the struct at `$p` (of
/// type `$ty`) and returns the offset just past the last member, so that tail padding, whose
/// contents the spec leaves undefined, is never compared.
macro_rules! copy_fields {
    ($p:expr, $ty:ty, $src:expr, [$($field:ident),* $(,)?]) => {{
        // SAFETY: the caller matched `sType` to `$ty`, so `$p` points to a writable `$ty`.
        let dst = unsafe { &mut *$p.cast::<$ty>() };
        $(dst.$field = $src.$field;)*
        let end = 0usize $(.max(std::mem::offset_of!($ty, $field) + std::mem::size_of_val(&dst.$field)))*;
        Some(end)
    }};
}

/// Copies `full` (made with [`zeroed`], so its padding is zero too) over `dst` byte for byte,
/// keeping `dst`'s `sType` and `pNext`: every byte of the caller's struct is then written.
fn write_whole<T>(dst: &mut T, full: &T) {
    const HEADER: usize = std::mem::size_of::<VkBaseOutStructure>();
    let size = std::mem::size_of::<T>();
    if size <= HEADER {
        return;
    }
    // SAFETY: both point to live `T`s of `size` bytes; the header (sType, pNext) is skipped; the
    // bytes copied come from a zero-initialised value, so none is uninitialised.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (full as *const T).cast::<u8>().add(HEADER),
            (dst as *mut T).cast::<u8>().add(HEADER),
            size - HEADER,
        );
    }
}

/// Writes our supported features into the feature struct at `p` (by its `sType`) and returns the
/// end of its last member (its size without tail padding); `None` for a struct we do not know
/// (left untouched).
///
/// # Safety
/// `p` must point to a writable structure of the type that `stype` names.
pub unsafe fn fill_features(stype: VkStructureType, p: *mut VkBaseOutStructure) -> Option<usize> {
    let mut v11: VkPhysicalDeviceVulkan11Features = zeroed();
    vulkan11_features(&mut v11);
    let mut v12: VkPhysicalDeviceVulkan12Features = zeroed();
    vulkan12_features(&mut v12);
    let mut v13: VkPhysicalDeviceVulkan13Features = zeroed();
    vulkan13_features(&mut v13);
    let v10 = features10();
    let wrap = VkPhysicalDeviceFeatures2 {
        sType: 0,
        pNext: std::ptr::null_mut(),
        features: v10,
    };
    match stype {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 => {
            copy_fields!(p, VkPhysicalDeviceFeatures2, wrap, [features])
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceVulkan11Features,
            v11,
            [
                storageBuffer16BitAccess,
                uniformAndStorageBuffer16BitAccess,
                storagePushConstant16,
                storageInputOutput16,
                multiview,
                multiviewGeometryShader,
                multiviewTessellationShader,
                variablePointersStorageBuffer,
                variablePointers,
                protectedMemory,
                samplerYcbcrConversion,
                shaderDrawParameters,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceVulkan12Features,
            v12,
            [
                samplerMirrorClampToEdge,
                drawIndirectCount,
                storageBuffer8BitAccess,
                uniformAndStorageBuffer8BitAccess,
                storagePushConstant8,
                shaderBufferInt64Atomics,
                shaderSharedInt64Atomics,
                shaderFloat16,
                shaderInt8,
                descriptorIndexing,
                shaderInputAttachmentArrayDynamicIndexing,
                shaderUniformTexelBufferArrayDynamicIndexing,
                shaderStorageTexelBufferArrayDynamicIndexing,
                shaderUniformBufferArrayNonUniformIndexing,
                shaderSampledImageArrayNonUniformIndexing,
                shaderStorageBufferArrayNonUniformIndexing,
                shaderStorageImageArrayNonUniformIndexing,
                shaderInputAttachmentArrayNonUniformIndexing,
                shaderUniformTexelBufferArrayNonUniformIndexing,
                shaderStorageTexelBufferArrayNonUniformIndexing,
                descriptorBindingUniformBufferUpdateAfterBind,
                descriptorBindingSampledImageUpdateAfterBind,
                descriptorBindingStorageImageUpdateAfterBind,
                descriptorBindingStorageBufferUpdateAfterBind,
                descriptorBindingUniformTexelBufferUpdateAfterBind,
                descriptorBindingStorageTexelBufferUpdateAfterBind,
                descriptorBindingUpdateUnusedWhilePending,
                descriptorBindingPartiallyBound,
                descriptorBindingVariableDescriptorCount,
                runtimeDescriptorArray,
                samplerFilterMinmax,
                scalarBlockLayout,
                imagelessFramebuffer,
                uniformBufferStandardLayout,
                shaderSubgroupExtendedTypes,
                separateDepthStencilLayouts,
                hostQueryReset,
                timelineSemaphore,
                bufferDeviceAddress,
                bufferDeviceAddressCaptureReplay,
                bufferDeviceAddressMultiDevice,
                vulkanMemoryModel,
                vulkanMemoryModelDeviceScope,
                vulkanMemoryModelAvailabilityVisibilityChains,
                shaderOutputViewportIndex,
                shaderOutputLayer,
                subgroupBroadcastDynamicId,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceVulkan13Features,
            v13,
            [
                robustImageAccess,
                inlineUniformBlock,
                descriptorBindingInlineUniformBlockUpdateAfterBind,
                pipelineCreationCacheControl,
                privateData,
                shaderDemoteToHelperInvocation,
                shaderTerminateInvocation,
                subgroupSizeControl,
                computeFullSubgroups,
                synchronization2,
                textureCompressionASTC_HDR,
                shaderZeroInitializeWorkgroupMemory,
                dynamicRendering,
                shaderIntegerDotProduct,
                maintenance4,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES => copy_fields!(
            p,
            VkPhysicalDevice16BitStorageFeatures,
            v11,
            [
                storageBuffer16BitAccess,
                uniformAndStorageBuffer16BitAccess,
                storagePushConstant16,
                storageInputOutput16
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceMultiviewFeatures,
            v11,
            [
                multiview,
                multiviewGeometryShader,
                multiviewTessellationShader
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceVariablePointersFeatures,
            v11,
            [variablePointersStorageBuffer, variablePointers]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceProtectedMemoryFeatures,
                v11,
                [protectedMemory]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceSamplerYcbcrConversionFeatures,
                v11,
                [samplerYcbcrConversion]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderDrawParametersFeatures,
                v11,
                [shaderDrawParameters]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES => copy_fields!(
            p,
            VkPhysicalDevice8BitStorageFeatures,
            v12,
            [
                storageBuffer8BitAccess,
                uniformAndStorageBuffer8BitAccess,
                storagePushConstant8
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderFloat16Int8Features,
                v12,
                [shaderFloat16, shaderInt8]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceShaderAtomicInt64Features,
            v12,
            [shaderBufferInt64Atomics, shaderSharedInt64Atomics]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceScalarBlockLayoutFeatures,
                v12,
                [scalarBlockLayout]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceImagelessFramebufferFeatures,
                v12,
                [imagelessFramebuffer]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceUniformBufferStandardLayoutFeatures,
                v12,
                [uniformBufferStandardLayout]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures,
                v12,
                [shaderSubgroupExtendedTypes]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SEPARATE_DEPTH_STENCIL_LAYOUTS_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceSeparateDepthStencilLayoutsFeatures,
                v12,
                [separateDepthStencilLayouts]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceHostQueryResetFeatures,
                v12,
                [hostQueryReset]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceTimelineSemaphoreFeatures,
                v12,
                [timelineSemaphore]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceBufferDeviceAddressFeatures,
            v12,
            [
                bufferDeviceAddress,
                bufferDeviceAddressCaptureReplay,
                bufferDeviceAddressMultiDevice
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceVulkanMemoryModelFeatures,
            v12,
            [
                vulkanMemoryModel,
                vulkanMemoryModelDeviceScope,
                vulkanMemoryModelAvailabilityVisibilityChains
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceImageRobustnessFeatures,
                v13,
                [robustImageAccess]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INLINE_UNIFORM_BLOCK_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceInlineUniformBlockFeatures,
            v13,
            [
                inlineUniformBlock,
                descriptorBindingInlineUniformBlockUpdateAfterBind
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_CREATION_CACHE_CONTROL_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDevicePipelineCreationCacheControlFeatures,
                v13,
                [pipelineCreationCacheControl]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIVATE_DATA_FEATURES => {
            copy_fields!(p, VkPhysicalDevicePrivateDataFeatures, v13, [privateData])
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DEMOTE_TO_HELPER_INVOCATION_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderDemoteToHelperInvocationFeatures,
                v13,
                [shaderDemoteToHelperInvocation]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_TERMINATE_INVOCATION_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderTerminateInvocationFeatures,
                v13,
                [shaderTerminateInvocation]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceSubgroupSizeControlFeatures,
            v13,
            [subgroupSizeControl, computeFullSubgroups]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceSynchronization2Features,
                v13,
                [synchronization2]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ZERO_INITIALIZE_WORKGROUP_MEMORY_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceZeroInitializeWorkgroupMemoryFeatures,
                v13,
                [shaderZeroInitializeWorkgroupMemory]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceDynamicRenderingFeatures,
                v13,
                [dynamicRendering]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceShaderIntegerDotProductFeatures,
                v13,
                [shaderIntegerDotProduct]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES => {
            copy_fields!(p, VkPhysicalDeviceMaintenance4Features, v13, [maintenance4])
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR => {
            // The type, its conversions and dot products; no cooperative matrices.
            let mut b: VkPhysicalDeviceShaderBfloat16FeaturesKHR = zeroed();
            b.shaderBFloat16Type = VK_TRUE;
            b.shaderBFloat16DotProduct = VK_TRUE;
            b.shaderBFloat16CooperativeMatrix = VK_FALSE;
            copy_fields!(
                p,
                VkPhysicalDeviceShaderBfloat16FeaturesKHR,
                b,
                [
                    shaderBFloat16Type,
                    shaderBFloat16DotProduct,
                    shaderBFloat16CooperativeMatrix,
                ]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT8_FEATURES_EXT => {
            let mut f8: VkPhysicalDeviceShaderFloat8FeaturesEXT = zeroed();
            f8.shaderFloat8 = VK_TRUE;
            f8.shaderFloat8CooperativeMatrix = VK_FALSE;
            copy_fields!(
                p,
                VkPhysicalDeviceShaderFloat8FeaturesEXT,
                f8,
                [shaderFloat8, shaderFloat8CooperativeMatrix]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES => copy_fields!(
            p,
            VkPhysicalDeviceDescriptorIndexingFeatures,
            v12,
            [
                shaderInputAttachmentArrayDynamicIndexing,
                shaderUniformTexelBufferArrayDynamicIndexing,
                shaderStorageTexelBufferArrayDynamicIndexing,
                shaderUniformBufferArrayNonUniformIndexing,
                shaderSampledImageArrayNonUniformIndexing,
                shaderStorageBufferArrayNonUniformIndexing,
                shaderStorageImageArrayNonUniformIndexing,
                shaderInputAttachmentArrayNonUniformIndexing,
                shaderUniformTexelBufferArrayNonUniformIndexing,
                shaderStorageTexelBufferArrayNonUniformIndexing,
                descriptorBindingUniformBufferUpdateAfterBind,
                descriptorBindingSampledImageUpdateAfterBind,
                descriptorBindingStorageImageUpdateAfterBind,
                descriptorBindingStorageBufferUpdateAfterBind,
                descriptorBindingUniformTexelBufferUpdateAfterBind,
                descriptorBindingStorageTexelBufferUpdateAfterBind,
                descriptorBindingUpdateUnusedWhilePending,
                descriptorBindingPartiallyBound,
                descriptorBindingVariableDescriptorCount,
                runtimeDescriptorArray,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_TENSOR_FEATURES_ARM => {
            // No VK_EXT_descriptor_buffer, so no tensor descriptors in descriptor buffers.
            let none: VkPhysicalDeviceDescriptorBufferTensorFeaturesARM = zeroed();
            copy_fields!(
                p,
                VkPhysicalDeviceDescriptorBufferTensorFeaturesARM,
                none,
                [descriptorBufferTensorDescriptors]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_6_FEATURES => {
            let mut m6: VkPhysicalDeviceMaintenance6Features = zeroed();
            m6.maintenance6 = VK_TRUE;
            copy_fields!(p, VkPhysicalDeviceMaintenance6Features, m6, [maintenance6])
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_FEATURES_ARM => {
            let t = tensor_features();
            copy_fields!(
                p,
                VkPhysicalDeviceTensorFeaturesARM,
                t,
                [
                    tensorNonPacked,
                    shaderTensorAccess,
                    shaderStorageTensorArrayDynamicIndexing,
                    shaderStorageTensorArrayNonUniformIndexing,
                    descriptorBindingStorageTensorUpdateAfterBind,
                    tensors,
                ]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TEXTURE_COMPRESSION_ASTC_HDR_FEATURES => {
            copy_fields!(
                p,
                VkPhysicalDeviceTextureCompressionASTCHDRFeatures,
                v13,
                [textureCompressionASTC_HDR]
            )
        }
        _ => None,
    }
}

/// Writes our properties into the property struct at `p` (by its `sType`); `false` when unknown.
///
/// # Safety
/// `p` must point to a writable structure of the type that `stype` names.
pub unsafe fn fill_properties(stype: VkStructureType, p: *mut VkBaseOutStructure) -> bool {
    let mut v11: VkPhysicalDeviceVulkan11Properties = zeroed();
    vulkan11_properties(&mut v11);
    let mut v12: VkPhysicalDeviceVulkan12Properties = zeroed();
    vulkan12_properties(&mut v12);
    let mut v13: VkPhysicalDeviceVulkan13Properties = zeroed();
    vulkan13_properties(&mut v13);
    let known = match stype {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES => {
            // SAFETY: `stype` names this struct (caller contract).
            let dst = unsafe { &mut *p.cast::<VkPhysicalDeviceVulkan11Properties>() };
            // Every member is written, the unused bytes of the name arrays included: start from
            // a zeroed struct and keep only the caller's header.
            let mut full: VkPhysicalDeviceVulkan11Properties = zeroed();
            vulkan11_properties(&mut full);
            write_whole(dst, &full);
            Some(0)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES => {
            // SAFETY: as above.
            let dst = unsafe { &mut *p.cast::<VkPhysicalDeviceVulkan12Properties>() };
            // Every member is written, the unused bytes of the name arrays included: start from
            // a zeroed struct and keep only the caller's header.
            let mut full: VkPhysicalDeviceVulkan12Properties = zeroed();
            vulkan12_properties(&mut full);
            write_whole(dst, &full);
            Some(0)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES => {
            // SAFETY: as above.
            let dst = unsafe { &mut *p.cast::<VkPhysicalDeviceVulkan13Properties>() };
            // Every member is written, the unused bytes of the name arrays included: start from
            // a zeroed struct and keep only the caller's header.
            let mut full: VkPhysicalDeviceVulkan13Properties = zeroed();
            vulkan13_properties(&mut full);
            write_whole(dst, &full);
            Some(0)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceIDProperties,
            v11,
            [
                deviceUUID,
                driverUUID,
                deviceLUID,
                deviceNodeMask,
                deviceLUIDValid
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES => {
            // SAFETY: as above.
            let dst = unsafe { &mut *p.cast::<VkPhysicalDeviceSubgroupProperties>() };
            dst.subgroupSize = v11.subgroupSize;
            dst.supportedStages = v11.subgroupSupportedStages;
            dst.supportedOperations = v11.subgroupSupportedOperations;
            dst.quadOperationsInAllStages = v11.subgroupQuadOperationsInAllStages;
            Some(0)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES => {
            copy_fields!(
                p,
                VkPhysicalDevicePointClippingProperties,
                v11,
                [pointClippingBehavior]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceMultiviewProperties,
            v11,
            [maxMultiviewViewCount, maxMultiviewInstanceIndex]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_PROPERTIES => {
            copy_fields!(
                p,
                VkPhysicalDeviceProtectedMemoryProperties,
                v11,
                [protectedNoFault]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceMaintenance3Properties,
            v11,
            [maxPerSetDescriptors, maxMemoryAllocationSize]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceDriverProperties,
            v12,
            [driverID, driverName, driverInfo, conformanceVersion]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceFloatControlsProperties,
            v12,
            [
                denormBehaviorIndependence,
                roundingModeIndependence,
                shaderSignedZeroInfNanPreserveFloat16,
                shaderSignedZeroInfNanPreserveFloat32,
                shaderSignedZeroInfNanPreserveFloat64,
                shaderDenormPreserveFloat16,
                shaderDenormPreserveFloat32,
                shaderDenormPreserveFloat64,
                shaderDenormFlushToZeroFloat16,
                shaderDenormFlushToZeroFloat32,
                shaderDenormFlushToZeroFloat64,
                shaderRoundingModeRTEFloat16,
                shaderRoundingModeRTEFloat32,
                shaderRoundingModeRTEFloat64,
                shaderRoundingModeRTZFloat16,
                shaderRoundingModeRTZFloat32,
                shaderRoundingModeRTZFloat64,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceTimelineSemaphoreProperties,
            v12,
            [maxTimelineSemaphoreValueDifference]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceSubgroupSizeControlProperties,
            v13,
            [
                minSubgroupSize,
                maxSubgroupSize,
                maxComputeWorkgroupSubgroups,
                requiredSubgroupSizeStages
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INLINE_UNIFORM_BLOCK_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceInlineUniformBlockProperties,
            v13,
            [
                maxInlineUniformBlockSize,
                maxPerStageDescriptorInlineUniformBlocks,
                maxPerStageDescriptorUpdateAfterBindInlineUniformBlocks,
                maxDescriptorSetInlineUniformBlocks,
                maxDescriptorSetUpdateAfterBindInlineUniformBlocks,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TEXEL_BUFFER_ALIGNMENT_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceTexelBufferAlignmentProperties,
            v13,
            [
                storageTexelBufferOffsetAlignmentBytes,
                storageTexelBufferOffsetSingleTexelAlignment,
                uniformTexelBufferOffsetAlignmentBytes,
                uniformTexelBufferOffsetSingleTexelAlignment,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_PROPERTIES_ARM => {
            // SAFETY: `stype` names this struct (caller contract).
            let dst = unsafe { &mut *p.cast::<VkPhysicalDeviceTensorPropertiesARM>() };
            let mut full: VkPhysicalDeviceTensorPropertiesARM = zeroed();
            tensor_properties(&mut full);
            write_whole(dst, &full);
            Some(0)
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceDescriptorIndexingProperties,
            v12,
            [
                maxUpdateAfterBindDescriptorsInAllPools,
                shaderUniformBufferArrayNonUniformIndexingNative,
                shaderSampledImageArrayNonUniformIndexingNative,
                shaderStorageBufferArrayNonUniformIndexingNative,
                shaderStorageImageArrayNonUniformIndexingNative,
                shaderInputAttachmentArrayNonUniformIndexingNative,
                robustBufferAccessUpdateAfterBind,
                quadDivergentImplicitLod,
                maxPerStageDescriptorUpdateAfterBindSamplers,
                maxPerStageDescriptorUpdateAfterBindUniformBuffers,
                maxPerStageDescriptorUpdateAfterBindStorageBuffers,
                maxPerStageDescriptorUpdateAfterBindSampledImages,
                maxPerStageDescriptorUpdateAfterBindStorageImages,
                maxPerStageDescriptorUpdateAfterBindInputAttachments,
                maxPerStageUpdateAfterBindResources,
                maxDescriptorSetUpdateAfterBindSamplers,
                maxDescriptorSetUpdateAfterBindUniformBuffers,
                maxDescriptorSetUpdateAfterBindUniformBuffersDynamic,
                maxDescriptorSetUpdateAfterBindStorageBuffers,
                maxDescriptorSetUpdateAfterBindStorageBuffersDynamic,
                maxDescriptorSetUpdateAfterBindSampledImages,
                maxDescriptorSetUpdateAfterBindStorageImages,
                maxDescriptorSetUpdateAfterBindInputAttachments,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_STENCIL_RESOLVE_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceDepthStencilResolveProperties,
            v12,
            [
                supportedDepthResolveModes,
                supportedStencilResolveModes,
                independentResolveNone,
                independentResolve,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_FILTER_MINMAX_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceSamplerFilterMinmaxProperties,
            v12,
            [
                filterMinmaxSingleComponentFormats,
                filterMinmaxImageComponentMapping,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES => copy_fields!(
            p,
            VkPhysicalDeviceShaderIntegerDotProductProperties,
            v13,
            [
                integerDotProduct8BitUnsignedAccelerated,
                integerDotProduct8BitSignedAccelerated,
                integerDotProduct8BitMixedSignednessAccelerated,
                integerDotProduct4x8BitPackedUnsignedAccelerated,
                integerDotProduct4x8BitPackedSignedAccelerated,
                integerDotProduct4x8BitPackedMixedSignednessAccelerated,
                integerDotProduct16BitUnsignedAccelerated,
                integerDotProduct16BitSignedAccelerated,
                integerDotProduct16BitMixedSignednessAccelerated,
                integerDotProduct32BitUnsignedAccelerated,
                integerDotProduct32BitSignedAccelerated,
                integerDotProduct32BitMixedSignednessAccelerated,
                integerDotProduct64BitUnsignedAccelerated,
                integerDotProduct64BitSignedAccelerated,
                integerDotProduct64BitMixedSignednessAccelerated,
                integerDotProductAccumulatingSaturating8BitUnsignedAccelerated,
                integerDotProductAccumulatingSaturating8BitSignedAccelerated,
                integerDotProductAccumulatingSaturating8BitMixedSignednessAccelerated,
                integerDotProductAccumulatingSaturating4x8BitPackedUnsignedAccelerated,
                integerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated,
                integerDotProductAccumulatingSaturating4x8BitPackedMixedSignednessAccelerated,
                integerDotProductAccumulatingSaturating16BitUnsignedAccelerated,
                integerDotProductAccumulatingSaturating16BitSignedAccelerated,
                integerDotProductAccumulatingSaturating16BitMixedSignednessAccelerated,
                integerDotProductAccumulatingSaturating32BitUnsignedAccelerated,
                integerDotProductAccumulatingSaturating32BitSignedAccelerated,
                integerDotProductAccumulatingSaturating32BitMixedSignednessAccelerated,
                integerDotProductAccumulatingSaturating64BitUnsignedAccelerated,
                integerDotProductAccumulatingSaturating64BitSignedAccelerated,
                integerDotProductAccumulatingSaturating64BitMixedSignednessAccelerated,
            ]
        ),
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_6_PROPERTIES => {
            // No images or samplers: no block-texel views, no fragment shading rate. Three
            // descriptors covers any multi-planar format, should one ever be supported.
            let mut m6: VkPhysicalDeviceMaintenance6Properties = zeroed();
            m6.blockTexelViewCompatibleMultipleLayers = VK_FALSE;
            m6.maxCombinedImageSamplerDescriptorCount = 3;
            m6.fragmentShadingRateClampCombinerInputs = VK_FALSE;
            copy_fields!(
                p,
                VkPhysicalDeviceMaintenance6Properties,
                m6,
                [
                    blockTexelViewCompatibleMultipleLayers,
                    maxCombinedImageSamplerDescriptorCount,
                    fragmentShadingRateClampCombinerInputs,
                ]
            )
        }
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES => {
            copy_fields!(
                p,
                VkPhysicalDeviceMaintenance4Properties,
                v13,
                [maxBufferSize]
            )
        }
        _ => None,
    };
    known.is_some()
}

/// The one queue family.
pub fn queue_family_properties() -> VkQueueFamilyProperties {
    VkQueueFamilyProperties {
        queueFlags: (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT),
        queueCount: QUEUE_COUNT,
        timestampValidBits: 64,
        minImageTransferGranularity: VkExtent3D {
            width: 1,
            height: 1,
            depth: 1,
        },
    }
}

/// Memory types and heaps.
pub fn memory_properties() -> VkPhysicalDeviceMemoryProperties {
    let mut m: VkPhysicalDeviceMemoryProperties = zeroed();
    m.memoryTypeCount = MEMORY_TYPE_COUNT;
    m.memoryTypes[0] = VkMemoryType {
        propertyFlags: (VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
            | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
            | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
            | VK_MEMORY_PROPERTY_HOST_CACHED_BIT),
        heapIndex: 0,
    };
    m.memoryHeapCount = 1;
    m.memoryHeaps[0] = VkMemoryHeap {
        size: heap_size(),
        flags: VK_MEMORY_HEAP_DEVICE_LOCAL_BIT,
    };
    m
}

/// Bitmask of every memory type (what every buffer accepts).
pub const ALL_MEMORY_TYPES: u32 = (1 << MEMORY_TYPE_COUNT) - 1;

/// Largest `vkCmdUpdateBuffer` payload, re-exported for the entry points.
pub const UPDATE_BUFFER_MAX: u64 = MAX_UPDATE_BUFFER_SIZE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_meet_the_issue() {
        let l = limits();
        assert!(l.maxComputeWorkGroupCount[0] > 96_577);
        assert!(u64::from(l.maxStorageBufferRange) >= (1 << 31) - 1);
    }

    #[test]
    fn feature_fill_knows_the_core_structs() {
        let mut f: VkPhysicalDeviceVulkan12Features = zeroed();
        f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        // SAFETY: `f` is the struct the sType names.
        let size = unsafe {
            fill_features(
                f.sType,
                (&mut f as *mut VkPhysicalDeviceVulkan12Features).cast(),
            )
        };
        // 4 header words and 47 members; the struct's size also counts 4 bytes of tail padding,
        // which must not be compared at device creation.
        assert_eq!(size, Some(16 + 47 * 4));
        assert_eq!(
            std::mem::size_of::<VkPhysicalDeviceVulkan12Features>(),
            16 + 48 * 4
        );
        assert_eq!(f.timelineSemaphore, VK_TRUE);
        assert_eq!(
            f.sType,
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
        );
    }
}
