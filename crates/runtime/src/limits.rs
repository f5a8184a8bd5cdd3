//! Fixed properties of the CPU device that the runtime enforces and the ICD reports.

use std::sync::OnceLock;

/// Queues in the one queue family (compute | transfer).
pub const QUEUE_COUNT: u32 = 4;
/// Alignment of every buffer's memory requirements and of every device-memory allocation's start.
pub const BUFFER_ALIGNMENT: u64 = 64;
/// Alignment of the host allocation behind a `VkDeviceMemory` (also `minMemoryMapAlignment`).
pub const ALLOCATION_ALIGNMENT: usize = 4096;
/// `maxMemoryAllocationCount`.
pub const MAX_MEMORY_ALLOCATION_COUNT: u32 = 1 << 20;
/// `maxStorageBufferRange` and the largest buffer we accept.
pub const MAX_BUFFER_SIZE: u64 = 1 << 40;
/// Largest `vkCmdUpdateBuffer` payload (spec: 65536).
pub const MAX_UPDATE_BUFFER_SIZE: u64 = 65536;
/// Memory types (one: device-local, host-visible, coherent and cached).
pub const MEMORY_TYPE_COUNT: u32 = 1;
/// `maxTimelineSemaphoreValueDifference`.
pub const MAX_TIMELINE_DIFFERENCE: u64 = u64::MAX >> 1;

/// `maxComputeWorkGroupCount`.
pub const MAX_COMPUTE_WORK_GROUP_COUNT: [u32; 3] = [u32::MAX, 65535, 65535];
/// `maxPushConstantsSize`.
pub const MAX_PUSH_CONSTANTS_SIZE: u32 = 256;
/// `maxTensorDimensionCount`.
pub const MAX_TENSOR_DIMENSIONS: u32 = 8;
/// `maxPerDimensionTensorElements` (shader coordinates are 32-bit signed).
pub const MAX_PER_DIMENSION_TENSOR_ELEMENTS: u64 = (1 << 31) - 1;
/// Alignment of a tensor's memory requirements.
pub const TENSOR_ALIGNMENT: u64 = 64;
/// `maxTensorShaderAccessArrayLength`.
pub const MAX_TENSOR_SHADER_ACCESS_ARRAY_LENGTH: u32 = 256;
/// `maxTensorShaderAccessSize` in bytes.
pub const MAX_TENSOR_SHADER_ACCESS_SIZE: u32 = 2048;

/// `maxTensorSize` in bytes: one tensor may fill the largest allocation.
pub fn max_tensor_size() -> u64 {
    max_allocation_size()
}

/// `maxTensorStride` in bytes.
pub fn max_tensor_stride() -> u64 {
    max_tensor_size()
}

/// `maxTensorElements`: chosen so that any packed tensor within it (elements of at most 8 bytes)
/// also fits in `maxTensorSize`.
pub fn max_tensor_elements() -> u64 {
    max_tensor_size() / 8
}

/// Size of the one memory heap: three quarters of the machine's RAM (at least 1 GiB).
pub fn heap_size() -> u64 {
    static SIZE: OnceLock<u64> = OnceLock::new();
    *SIZE.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| parse_mem_total_kib(&text))
            .map(|kib| kib * 1024)
            .unwrap_or(8 << 30);
        (total / 4 * 3).max(1 << 30)
    })
}

/// `maxMemoryAllocationSize`: one allocation may take the whole heap.
pub fn max_allocation_size() -> u64 {
    heap_size()
}

fn parse_mem_total_kib(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `maxSamplerLodBias`.
pub const MAX_SAMPLER_LOD_BIAS: f32 = 2.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_meminfo() {
        let text = "MemTotal:       24576000 kB\nMemFree: 1 kB\n";
        assert_eq!(parse_mem_total_kib(text), Some(24_576_000));
        assert_eq!(parse_mem_total_kib("nothing"), None);
    }

    #[test]
    fn heap_is_at_least_one_gib() {
        assert!(heap_size() >= 1 << 30);
    }
}
