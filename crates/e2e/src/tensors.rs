//! `VK_ARM_tensors` helpers for the tests: the extension's usage and create flags, the tensor
//! formats and their sizes, strides and footprints, [`TensorInfo`] (a create info with its
//! chained structures), creation, memory requirements, binding and copies, [`HostMemory`] (mapped
//! memory for a tensor) and the tensor helpers of [`Ctx`].

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;

use crate::vulkanalia::vk::ArmTensorsExtensionDeviceCommands;
use crate::*;
/// Name of the tensor extension.
pub const ARM_TENSORS_EXTENSION_NAME: &str = "VK_ARM_tensors";

/// `VK_TENSOR_USAGE_SHADER_BIT_ARM`.
pub const TENSOR_USAGE_SHADER: u64 = 0x2;
/// `VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM`.
pub const TENSOR_USAGE_TRANSFER_SRC: u64 = 0x4;
/// `VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM`.
pub const TENSOR_USAGE_TRANSFER_DST: u64 = 0x8;
/// `VK_TENSOR_USAGE_IMAGE_ALIASING_BIT_ARM`.
pub const TENSOR_USAGE_IMAGE_ALIASING: u64 = 0x10;
/// TRANSFER_SRC | TRANSFER_DST.
pub const TENSOR_USAGE_TRANSFER: u64 = TENSOR_USAGE_TRANSFER_SRC | TENSOR_USAGE_TRANSFER_DST;
/// `VK_TENSOR_CREATE_PROTECTED_BIT_ARM`.
pub const TENSOR_CREATE_PROTECTED: u64 = 0x2;
/// `VK_TENSOR_CREATE_MUTABLE_FORMAT_BIT_ARM`.
pub const TENSOR_CREATE_MUTABLE_FORMAT: u64 = 0x1;

/// Every tensor format the driver supports, with its element size in bytes.
pub const TENSOR_FORMATS: &[(vk::Format, u64)] = &[
    (vk::Format::R8_UNORM, 1),
    (vk::Format::R8_SNORM, 1),
    (vk::Format::R8_USCALED, 1),
    (vk::Format::R8_SSCALED, 1),
    (vk::Format::R8_UINT, 1),
    (vk::Format::R8_SINT, 1),
    (vk::Format::R16_UNORM, 2),
    (vk::Format::R16_SNORM, 2),
    (vk::Format::R16_USCALED, 2),
    (vk::Format::R16_SSCALED, 2),
    (vk::Format::R16_UINT, 2),
    (vk::Format::R16_SINT, 2),
    (vk::Format::R16_SFLOAT, 2),
    (vk::Format::R32_UINT, 4),
    (vk::Format::R32_SINT, 4),
    (vk::Format::R32_SFLOAT, 4),
    (vk::Format::R64_UINT, 8),
    (vk::Format::R64_SINT, 8),
    (vk::Format::R64_SFLOAT, 8),
    (vk::Format::R8_BOOL_ARM, 1),
    (vk::Format::R16_SFLOAT_FPENCODING_BFLOAT16_ARM, 2),
    (vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM, 1),
    (vk::Format::R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM, 1),
];

/// Element size of a tensor format of [`TENSOR_FORMATS`] (panics for others).
pub fn tensor_format_size(format: vk::Format) -> u64 {
    TENSOR_FORMATS
        .iter()
        .find(|(f, _)| *f == format)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("{format:?} is not a tensor format"))
}

/// Packed row-major byte strides of `dims` (outermost first) with `elem`-byte elements.
pub fn packed_strides(elem: u64, dims: &[i64]) -> Vec<i64> {
    padded_strides(elem, dims, 0)
}

/// Byte strides with `pad` extra bytes on every outer stride, as the CTS
/// builds its non-packed tensors: `s[n-1] = elem`, `s[i] = s[i+1]·d[i+1] + pad`.
pub fn padded_strides(elem: u64, dims: &[i64], pad: u64) -> Vec<i64> {
    let mut strides = vec![0i64; dims.len()];
    let mut acc = elem as i64;
    for i in (0..dims.len()).rev() {
        strides[i] = acc;
        acc = acc * dims[i] + pad as i64;
    }
    strides
}

/// Bytes a tensor spans: `strides[0]·dims[0]`.
pub fn tensor_footprint(dims: &[i64], strides: &[i64]) -> u64 {
    (strides[0] * dims[0]) as u64
}

/// The byte offset of every element, in row-major coordinate order.
pub fn element_offsets(dims: &[i64], strides: &[i64]) -> Vec<u64> {
    assert_eq!(dims.len(), strides.len(), "rank of dims and strides");
    let count: i64 = dims.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    let mut coord = vec![0i64; dims.len()];
    for _ in 0..count {
        out.push(coord.iter().zip(strides).map(|(c, s)| c * s).sum::<i64>() as u64);
        for i in (0..dims.len()).rev() {
            coord[i] += 1;
            if coord[i] < dims[i] {
                break;
            }
            coord[i] = 0;
        }
    }
    out
}

/// Writes `value` as a `u64` at byte `offset` of `target`: the 64-bit
/// `VkFlags64` members (`VkTensorCreateFlagsARM`, `VkTensorUsageFlagsARM`,
/// `VkTensorViewCreateFlagsARM`) that `vulkanalia` declares as `u32`
/// followed by 4 bytes of padding. This sets the upper half (the padding) too,
/// instead of leaving it undefined.
pub fn write_flags64<T>(target: &mut T, offset: usize, value: u64) {
    assert!(
        offset.is_multiple_of(8) && offset + 8 <= std::mem::size_of::<T>(),
        "offset {offset} is not an aligned 8-byte field of a {}-byte struct",
        std::mem::size_of::<T>()
    );
    // SAFETY: the 8 bytes at `offset` lie inside `*target` (checked above),
    // are 8-byte aligned in a struct containing pointers, and hold a `u32`
    // flags member plus its padding, for which any bit pattern is valid.
    unsafe {
        (target as *mut T)
            .cast::<u8>()
            .add(offset)
            .cast::<u64>()
            .write(value)
    };
}

/// A `VkTensorCreateInfoARM` with its description and arrays, in stable
/// heap storage so the pointers stay valid while the value moves.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// Tiling.
    pub tiling: vk::TensorTilingARM,
    /// Element format.
    pub format: vk::Format,
    /// `pDimensions`, outermost first.
    pub dims: Vec<i64>,
    /// `pStrides` (`None`: NULL).
    pub strides: Option<Vec<i64>>,
    /// `VkTensorUsageFlagsARM` (64-bit).
    pub usage: u64,
    /// `VkTensorCreateFlagsARM` (64-bit).
    pub flags: u64,
    /// `sharingMode`.
    pub sharing_mode: vk::SharingMode,
    /// `pQueueFamilyIndices`.
    pub queue_families: Vec<u32>,
    /// `pNext` of the create info (must outlive every use).
    pub next: *const c_void,
    /// `dimensionCount` override (`None`: `dims.len()`).
    pub dimension_count: Option<u32>,
    desc: Box<vk::TensorDescriptionARM>,
    info: Box<vk::TensorCreateInfoARM>,
}

impl TensorInfo {
    /// A tensor of `dims` with NULL strides, exclusive sharing and no flags.
    pub fn new(tiling: vk::TensorTilingARM, format: vk::Format, dims: &[i64], usage: u64) -> Self {
        Self {
            tiling,
            format,
            dims: dims.to_vec(),
            strides: None,
            usage,
            flags: 0,
            sharing_mode: vk::SharingMode::EXCLUSIVE,
            queue_families: Vec::new(),
            next: std::ptr::null(),
            dimension_count: None,
            desc: Box::default(),
            info: Box::default(),
        }
    }

    /// A linear tensor with NULL (packed) strides and TRANSFER_SRC|DST usage.
    pub fn linear(format: vk::Format, dims: &[i64]) -> Self {
        Self::new(
            vk::TensorTilingARM::LINEAR,
            format,
            dims,
            TENSOR_USAGE_TRANSFER,
        )
    }

    /// An optimal tensor with TRANSFER_SRC|DST usage.
    pub fn optimal(format: vk::Format, dims: &[i64]) -> Self {
        Self::new(
            vk::TensorTilingARM::OPTIMAL,
            format,
            dims,
            TENSOR_USAGE_TRANSFER,
        )
    }

    /// Sets explicit `pStrides`.
    pub fn with_strides(mut self, strides: &[i64]) -> Self {
        self.strides = Some(strides.to_vec());
        self
    }

    /// Element size of the format.
    pub fn elem(&self) -> u64 {
        tensor_format_size(self.format)
    }

    /// The strides the tensor will have: the explicit ones or packed.
    pub fn effective_strides(&self) -> Vec<i64> {
        self.strides
            .clone()
            .unwrap_or_else(|| packed_strides(self.elem(), &self.dims))
    }

    /// Bytes the tensor spans.
    pub fn footprint(&self) -> u64 {
        tensor_footprint(&self.dims, &self.effective_strides())
    }

    /// The raw description (pointers into `self`).
    pub fn description(&mut self) -> &vk::TensorDescriptionARM {
        *self.desc = vk::TensorDescriptionARM {
            s_type: vk::StructureType::TENSOR_DESCRIPTION_ARM,
            next: std::ptr::null(),
            tiling: self.tiling,
            format: self.format,
            dimension_count: self.dimension_count.unwrap_or(self.dims.len() as u32),
            dimensions: if self.dims.is_empty() {
                std::ptr::null()
            } else {
                self.dims.as_ptr()
            },
            strides: self
                .strides
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            usage: vk::TensorUsageFlagsARM::empty(),
        };
        write_flags64(
            &mut *self.desc,
            std::mem::offset_of!(vk::TensorDescriptionARM, usage),
            self.usage,
        );
        &self.desc
    }

    /// The raw create info (pointers into `self`).
    pub fn raw(&mut self) -> &vk::TensorCreateInfoARM {
        let desc: *const vk::TensorDescriptionARM = self.description();
        *self.info = vk::TensorCreateInfoARM {
            s_type: vk::StructureType::TENSOR_CREATE_INFO_ARM,
            next: self.next,
            flags: vk::TensorCreateFlagsARM::empty(),
            description: desc,
            sharing_mode: self.sharing_mode,
            queue_family_index_count: self.queue_families.len() as u32,
            queue_family_indices: if self.queue_families.is_empty() {
                std::ptr::null()
            } else {
                self.queue_families.as_ptr()
            },
        };
        write_flags64(
            &mut *self.info,
            std::mem::offset_of!(vk::TensorCreateInfoARM, flags),
            self.flags,
        );
        &self.info
    }
}

/// `vkCreateTensorARM` (the caller owns the tensor).
pub fn create_tensor(device: &Device, info: &mut TensorInfo) -> VkResult<vk::TensorARM> {
    let raw = info.raw();
    // SAFETY: `raw` and everything it points to live in `info` for the call.
    unsafe { device.create_tensor_arm(raw, None) }
}

/// `vkGetTensorMemoryRequirementsARM` with `VkMemoryDedicatedRequirements`
/// chained (pre-filled with TRUE/TRUE so the driver must write it).
pub fn tensor_requirements(
    device: &Device,
    tensor: vk::TensorARM,
) -> (vk::MemoryRequirements, vk::MemoryDedicatedRequirements) {
    let info = vk::TensorMemoryRequirementsInfoARM::builder().tensor(tensor);
    let mut dedicated = vk::MemoryDedicatedRequirements {
        prefers_dedicated_allocation: vk::TRUE,
        requires_dedicated_allocation: vk::TRUE,
        ..Default::default()
    };
    let mut reqs = vk::MemoryRequirements2::builder().push_next(&mut dedicated);
    // SAFETY: `tensor` is a live tensor of `device`; the output chain is writable.
    unsafe { device.get_tensor_memory_requirements_arm(&info, &mut reqs) };
    let reqs = reqs.memory_requirements;
    (
        reqs,
        vk::MemoryDedicatedRequirements {
            next: std::ptr::null_mut(),
            ..dedicated
        },
    )
}

/// `vkBindTensorMemoryARM` of one tensor.
pub fn bind_tensor(
    device: &Device,
    tensor: vk::TensorARM,
    memory: vk::DeviceMemory,
    offset: u64,
) -> VkResult<()> {
    let info = vk::BindTensorMemoryInfoARM::builder()
        .tensor(tensor)
        .memory(memory)
        .memory_offset(offset);
    // SAFETY: valid handles of `device`; the driver validates the rest.
    unsafe { device.bind_tensor_memory_arm(&[info]) }
}

/// Records `vkCmdCopyTensorARM` of the whole tensor `src` to `dst`, with one
/// region of `dimensionCount = 0` (NULL offsets and extent).
pub fn cmd_copy_whole_tensor(
    device: &Device,
    cb: vk::CommandBuffer,
    src: vk::TensorARM,
    dst: vk::TensorARM,
) {
    let region = vk::TensorCopyARM::default();
    cmd_copy_tensor_regions(device, cb, src, dst, std::slice::from_ref(&region));
}

/// Records `vkCmdCopyTensorARM` with explicit regions.
pub fn cmd_copy_tensor_regions(
    device: &Device,
    cb: vk::CommandBuffer,
    src: vk::TensorARM,
    dst: vk::TensorARM,
    regions: &[vk::TensorCopyARM],
) {
    let info = vk::CopyTensorInfoARM {
        src_tensor: src,
        dst_tensor: dst,
        region_count: regions.len() as u32,
        regions: if regions.is_empty() {
            std::ptr::null()
        } else {
            regions.as_ptr()
        },
        ..Default::default()
    };
    // SAFETY: `cb` is recording; `info` and the regions outlive the call.
    unsafe { device.cmd_copy_tensor_arm(cb, &info) };
}

/// A host-visible, host-coherent allocation, persistently mapped.
pub struct HostMemory<'a> {
    /// The memory object.
    pub memory: vk::DeviceMemory,
    /// Its size in bytes.
    pub size: u64,
    ptr: *mut u8,
    _ctx: PhantomData<&'a Ctx>,
}

impl fmt::Debug for HostMemory<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostMemory")
            .field("memory", &self.memory)
            .field("size", &self.size)
            .finish()
    }
}

impl HostMemory<'_> {
    /// All mapped bytes (copied out). Only call while no device work writes them.
    pub fn read(&self) -> Vec<u8> {
        // SAFETY: `ptr` maps `size` bytes of HOST_COHERENT memory that lives
        // as long as the owning `Ctx`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size as usize) }.to_vec()
    }

    /// Writes `data` at `offset`.
    pub fn write(&self, offset: u64, data: &[u8]) {
        assert!(
            offset + data.len() as u64 <= self.size,
            "write out of range"
        );
        // SAFETY: the range was checked against the mapped size above.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset as usize), data.len())
        };
    }

    /// The mapped pointer.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

/// Deterministic, non-repeating-looking bytes (seeded).
pub fn pattern_bytes(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 11) as u8
        })
        .collect()
}

impl Ctx {
    /// Creates a tensor owned by the context (panics on failure).
    pub fn tensor(&self, info: &mut TensorInfo) -> vk::TensorARM {
        self.try_tensor(info)
            .unwrap_or_else(|e| panic!("vkCreateTensorARM({:?}) failed: {e:?}", info.dims))
    }

    /// Creates a tensor; on success it is owned by the context.
    pub fn try_tensor(&self, info: &mut TensorInfo) -> VkResult<vk::TensorARM> {
        let tensor = create_tensor(&self.device, info)?;
        self.own(Owned::Tensor(tensor));
        Ok(tensor)
    }

    /// `vkCreateTensorViewARM` with 64-bit `flags`; on success the view is
    /// owned by the context.
    pub fn try_tensor_view(
        &self,
        tensor: vk::TensorARM,
        format: vk::Format,
        flags: u64,
    ) -> VkResult<vk::TensorViewARM> {
        let mut info = vk::TensorViewCreateInfoARM {
            tensor,
            format,
            ..Default::default()
        };
        write_flags64(
            &mut info,
            std::mem::offset_of!(vk::TensorViewCreateInfoARM, flags),
            flags,
        );
        // SAFETY: `info` is a complete create info on a live device.
        let view = unsafe { self.device.create_tensor_view_arm(&info, None) }?;
        self.own(Owned::TensorView(view));
        Ok(view)
    }

    /// `vkBindTensorMemoryARM` of one tensor.
    pub fn bind_tensor(
        &self,
        tensor: vk::TensorARM,
        memory: vk::DeviceMemory,
        offset: u64,
    ) -> VkResult<()> {
        bind_tensor(&self.device, tensor, memory, offset)
    }

    /// Memory requirements of `tensor` (+ the dedicated-allocation answer).
    pub fn tensor_requirements(
        &self,
        tensor: vk::TensorARM,
    ) -> (vk::MemoryRequirements, vk::MemoryDedicatedRequirements) {
        tensor_requirements(&self.device, tensor)
    }

    /// Allocates `size` bytes of host-visible memory (owned) and maps it.
    pub fn host_memory(&self, size: u64) -> HostMemory<'_> {
        let memory = self.memory(size);
        // SAFETY: host-visible memory, not mapped yet.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap_or_else(|e| panic!("vkMapMemory failed: {e:?}"));
        assert!(!ptr.is_null(), "vkMapMemory returned NULL");
        HostMemory {
            memory,
            size,
            ptr: ptr.cast(),
            _ctx: PhantomData,
        }
    }

    /// A transfer buffer of `size` bytes bound to `memory` at `offset` (owned).
    pub fn buffer_on(&self, memory: vk::DeviceMemory, offset: u64, size: u64) -> vk::Buffer {
        let buffer = self.transfer_buffer(size);
        // SAFETY: fresh buffer; the driver validates offset and size.
        unsafe { self.device.bind_buffer_memory(buffer, memory, offset) }
            .unwrap_or_else(|e| panic!("vkBindBufferMemory(offset {offset}) failed: {e:?}"));
        buffer
    }

    /// Records commands into a fresh command buffer and returns what
    /// `vkEndCommandBuffer` says (the command buffer is not submitted).
    pub fn record_only(&self, record: impl FnOnce(&Device, vk::CommandBuffer)) -> VkResult<()> {
        let pool = self.command_pool(vk::CommandPoolCreateFlags::TRANSIENT);
        let cb = self.command_buffer(pool);
        self.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        record(&self.device, cb);
        // SAFETY: `cb` is a recording command buffer of this device.
        unsafe { self.device.end_command_buffer(cb) }
    }
}
