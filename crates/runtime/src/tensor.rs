//! `VkTensorARM` and `VkTensorViewARM`: validated descriptions, the memory layout, binding and
//! views.
//!
//! Layout: both tilings store elements at `Σ coord[i] · strides[i]` bytes from the binding offset,
//! with coordinates and strides outermost first. Linear tensors use the application's strides (or
//! packed strides when it gives none); optimal tensors are always packed row-major, so a buffer
//! bound to the same memory sees the same bytes a linear packed tensor would hold. The memory
//! footprint is `strides[0] · dims[0]` bytes.

use std::sync::{Arc, OnceLock};

use crate::format::{TensorFormat, tensor_format};
use crate::limits::{
    MAX_PER_DIMENSION_TENSOR_ELEMENTS, MAX_TENSOR_DIMENSIONS, TENSOR_ALIGNMENT,
    max_tensor_elements, max_tensor_size, max_tensor_stride,
};
use crate::memory::{BindVuids, Binding, DeviceMemory, MemoryRequirements, check_bind};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::device::Device;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// `VK_TENSOR_USAGE_SHADER_BIT_ARM`.
pub const USAGE_SHADER: u64 = VK_TENSOR_USAGE_SHADER_BIT_ARM;
/// `VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM`.
pub const USAGE_TRANSFER_SRC: u64 = VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM;
/// `VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM`.
pub const USAGE_TRANSFER_DST: u64 = VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM;
/// `VK_TENSOR_USAGE_IMAGE_ALIASING_BIT_ARM`.
pub const USAGE_IMAGE_ALIASING: u64 = VK_TENSOR_USAGE_IMAGE_ALIASING_BIT_ARM;
/// `VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM`.
pub const USAGE_DATA_GRAPH: u64 = VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM;
const KNOWN_USAGE: u64 = USAGE_SHADER
    | USAGE_TRANSFER_SRC
    | USAGE_TRANSFER_DST
    | USAGE_IMAGE_ALIASING
    | USAGE_DATA_GRAPH;

/// `VK_FORMAT_FEATURE_2_TRANSFER_SRC_BIT`.
pub const FEATURE_TRANSFER_SRC: u64 = VK_FORMAT_FEATURE_2_TRANSFER_SRC_BIT;
/// `VK_FORMAT_FEATURE_2_TRANSFER_DST_BIT`.
pub const FEATURE_TRANSFER_DST: u64 = VK_FORMAT_FEATURE_2_TRANSFER_DST_BIT;
/// `VK_FORMAT_FEATURE_2_TENSOR_SHADER_BIT_ARM`.
pub const FEATURE_TENSOR_SHADER: u64 = VK_FORMAT_FEATURE_2_TENSOR_SHADER_BIT_ARM;
/// `VK_FORMAT_FEATURE_2_TENSOR_IMAGE_ALIASING_BIT_ARM`.
pub const FEATURE_TENSOR_IMAGE_ALIASING: u64 = VK_FORMAT_FEATURE_2_TENSOR_IMAGE_ALIASING_BIT_ARM;
/// `VK_FORMAT_FEATURE_2_TENSOR_DATA_GRAPH_BIT_ARM`.
pub const FEATURE_TENSOR_DATA_GRAPH: u64 = VK_FORMAT_FEATURE_2_TENSOR_DATA_GRAPH_BIT_ARM;

/// `VK_TENSOR_CREATE_MUTABLE_FORMAT_BIT_ARM`.
pub const CREATE_MUTABLE_FORMAT: u64 = VK_TENSOR_CREATE_MUTABLE_FORMAT_BIT_ARM;
/// `VK_TENSOR_CREATE_PROTECTED_BIT_ARM`.
pub const CREATE_PROTECTED: u64 = VK_TENSOR_CREATE_PROTECTED_BIT_ARM;
/// `VK_TENSOR_CREATE_DESCRIPTOR_BUFFER_CAPTURE_REPLAY_BIT_ARM`.
pub const CREATE_DESCRIPTOR_BUFFER_CAPTURE_REPLAY: u64 =
    VK_TENSOR_CREATE_DESCRIPTOR_BUFFER_CAPTURE_REPLAY_BIT_ARM;
/// `VK_TENSOR_CREATE_DESCRIPTOR_HEAP_CAPTURE_REPLAY_BIT_ARM`.
pub const CREATE_DESCRIPTOR_HEAP_CAPTURE_REPLAY: u64 =
    VK_TENSOR_CREATE_DESCRIPTOR_HEAP_CAPTURE_REPLAY_BIT_ARM;

/// `VkTensorTilingARM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiling {
    /// `VK_TENSOR_TILING_OPTIMAL_ARM` (stored packed row-major).
    Optimal,
    /// `VK_TENSOR_TILING_LINEAR_ARM`.
    Linear,
}

/// The format features a tensor format has with a tiling (`VkTensorFormatPropertiesARM`).
///
/// Every tensor format can be copied. Shaders can access the formats that have a SPIR-V element
/// type without the bfloat16/float8 shader extensions (bool, 8/16/32/64-bit integers, 16/32/64-bit
/// floats); `TENSOR_IMAGE_ALIASING` needs images, which Tessera does not support.
pub fn format_features(format: &TensorFormat, _tiling: Tiling) -> u64 {
    // Every format the interpreter can read and write, the bfloat16 and float8 encodings included
    // (shaders reach those through VK_KHR_shader_bfloat16 / VK_EXT_shader_float8).
    let shader = crate::pipeline::tensor_element(format.vk).is_some();
    // TENSOR_DATA_GRAPH goes with TENSOR_SHADER: Arm's graph layer, which implements
    // VK_ARM_data_graph on top of a device's compute shaders, creates its tensors with
    // DATA_GRAPH usage and runs them with our shaders.
    let shader_bits = FEATURE_TENSOR_SHADER | FEATURE_TENSOR_DATA_GRAPH;
    FEATURE_TRANSFER_SRC | FEATURE_TRANSFER_DST | if shader { shader_bits } else { 0 }
}

/// The format features each usage bit needs.
fn required_features(usage: u64) -> u64 {
    [
        (USAGE_TRANSFER_SRC, FEATURE_TRANSFER_SRC),
        (USAGE_TRANSFER_DST, FEATURE_TRANSFER_DST),
        (USAGE_SHADER, FEATURE_TENSOR_SHADER),
        (USAGE_IMAGE_ALIASING, FEATURE_TENSOR_IMAGE_ALIASING),
        (USAGE_DATA_GRAPH, FEATURE_TENSOR_DATA_GRAPH),
    ]
    .iter()
    .filter(|(u, _)| usage & u != 0)
    .fold(0, |acc, (_, f)| acc | f)
}

/// A validated `VkTensorDescriptionARM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorDesc {
    /// Tiling.
    pub tiling: Tiling,
    /// Element format.
    pub format: &'static TensorFormat,
    /// Extents, outermost first.
    pub dims: Vec<u64>,
    /// Byte strides, outermost first (packed for optimal tiling).
    pub strides: Vec<u64>,
    /// `VkTensorUsageFlagsARM`.
    pub usage: u64,
}

/// Packed row-major strides for `dims` with `elem`-byte elements (`None` on overflow).
pub fn packed_strides(dims: &[u64], elem: u64) -> Option<Vec<u64>> {
    let mut strides = vec![0; dims.len()];
    let mut s = elem;
    for i in (0..dims.len()).rev() {
        strides[i] = s;
        s = s.checked_mul(dims[i])?;
    }
    Some(strides)
}

impl TensorDesc {
    /// Validates a tensor description. `non_packed_allowed` is whether the `tensorNonPacked`
    /// feature is enabled.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn new(
        tiling: Tiling,
        format: i32,
        dims: &[i64],
        strides: Option<&[i64]>,
        usage: u64,
        non_packed_allowed: bool,
    ) -> Result<Self> {
        let rank = dims.len();
        ensure!(
            rank > 0,
            "VUID-VkTensorDescriptionARM-dimensionCount-arraylength",
            "dimensionCount is 0"
        );
        ensure!(
            rank <= MAX_TENSOR_DIMENSIONS as usize,
            "VUID-VkTensorDescriptionARM-dimensionCount-09733",
            "dimensionCount {rank} exceeds maxTensorDimensionCount {MAX_TENSOR_DIMENSIONS}"
        );
        let Some(format) = tensor_format(format) else {
            return Err(Error::invalid(
                "VUID-VkTensorDescriptionARM-format-09735",
                format!(
                    "format {format} is not a one-component tensor format this device supports"
                ),
            ));
        };
        ensure!(
            usage != 0,
            "VUID-VkTensorDescriptionARM-usage-requiredbitmask",
            "usage is 0"
        );
        ensure!(
            usage & !KNOWN_USAGE == 0,
            "VUID-VkTensorDescriptionARM-usage-parameter",
            "unknown usage bits {:#x}",
            usage & !KNOWN_USAGE
        );
        let mut extents = Vec::with_capacity(rank);
        for (i, d) in dims.iter().enumerate() {
            ensure!(
                *d > 0,
                "VUID-VkTensorDescriptionARM-pDimensions-09734",
                "pDimensions[{i}] = {d} is not positive"
            );
            ensure!(
                *d as u64 <= MAX_PER_DIMENSION_TENSOR_ELEMENTS,
                "VUID-VkTensorDescriptionARM-pDimensions-09883",
                "pDimensions[{i}] = {d} exceeds maxPerDimensionTensorElements {MAX_PER_DIMENSION_TENSOR_ELEMENTS}"
            );
            extents.push(*d as u64);
        }
        let elements = extents.iter().try_fold(1u64, |acc, d| acc.checked_mul(*d));
        ensure!(
            elements.is_some_and(|n| n <= max_tensor_elements()),
            "VUID-VkTensorCreateInfoARM-tensorElements-09721",
            "the tensor has more than maxTensorElements ({}) elements",
            max_tensor_elements()
        );
        if tiling == Tiling::Linear {
            ensure!(
                usage & USAGE_IMAGE_ALIASING == 0,
                "VUID-VkTensorDescriptionARM-tiling-09742",
                "a linear tensor cannot have VK_TENSOR_USAGE_IMAGE_ALIASING_BIT_ARM"
            );
        } else if usage & USAGE_IMAGE_ALIASING != 0 {
            ensure!(
                extents[rank - 1] <= 4,
                "VUID-VkTensorDescriptionARM-tiling-09741",
                "an image-aliasing optimal tensor's innermost dimension {} exceeds 4",
                extents[rank - 1]
            );
        }
        let elem = u64::from(format.size);
        let packed = packed_strides(&extents, elem);
        let strides = match (tiling, strides) {
            (Tiling::Optimal, Some(_)) => {
                return Err(Error::invalid(
                    "VUID-VkTensorCreateInfoARM-pDescription-09720",
                    "pStrides must be NULL for VK_TENSOR_TILING_OPTIMAL_ARM",
                ));
            }
            (_, None) => packed.ok_or_else(|| {
                Error::invalid(
                    "VUID-VkTensorDescriptionARM-pStrides-09884",
                    "the packed tensor size overflows",
                )
            })?,
            (Tiling::Linear, Some(given)) => {
                Self::check_strides(given, &extents, elem)?;
                let given: Vec<u64> = given.iter().map(|s| *s as u64).collect();
                ensure!(
                    non_packed_allowed || packed.as_ref() == Some(&given),
                    "VUID-VkTensorDescriptionARM-None-09740",
                    "strides {given:?} do not describe a packed tensor and tensorNonPacked is not enabled"
                );
                given
            }
        };
        let footprint = strides[0].checked_mul(extents[0]);
        ensure!(
            footprint.is_some_and(|f| f <= max_tensor_size()),
            "VUID-VkTensorDescriptionARM-pStrides-09884",
            "the tensor spans more than maxTensorSize ({}) bytes",
            max_tensor_size()
        );
        let desc = TensorDesc {
            tiling,
            format,
            dims: extents,
            strides,
            usage,
        };
        // Usage bits that allow a view are checked against the format at view creation.
        if usage & (USAGE_SHADER | USAGE_DATA_GRAPH) == 0 {
            let missing = required_features(usage) & !format_features(format, tiling);
            ensure!(
                missing == 0,
                "VUID-VkTensorCreateInfoARM-pDescription-09728",
                "{} with this tiling lacks format features {missing:#x} that the usage needs",
                format.name
            );
        }
        Ok(desc)
    }

    fn check_strides(strides: &[i64], dims: &[u64], elem: u64) -> Result<()> {
        let rank = dims.len();
        ensure!(
            strides.len() == rank,
            "VUID-VkTensorDescriptionARM-pStrides-parameter",
            "pStrides has {} entries for {rank} dimensions",
            strides.len()
        );
        ensure!(
            strides[rank - 1] as u64 == elem,
            "VUID-VkTensorDescriptionARM-pStrides-09736",
            "pStrides[{}] = {} is not the element size {elem}",
            rank - 1,
            strides[rank - 1]
        );
        for (i, s) in strides.iter().enumerate() {
            ensure!(
                *s > 0 && *s as u64 <= max_tensor_stride(),
                "VUID-VkTensorDescriptionARM-pStrides-09738",
                "pStrides[{i}] = {s} is not in 1..=maxTensorStride ({})",
                max_tensor_stride()
            );
            ensure!(
                (*s as u64).is_multiple_of(elem),
                "VUID-VkTensorDescriptionARM-pStrides-09737",
                "pStrides[{i}] = {s} is not a multiple of the element size {elem}"
            );
        }
        for i in 1..rank {
            let inner = (strides[i] as u64).checked_mul(dims[i]);
            ensure!(
                inner.is_some_and(|n| strides[i - 1] as u64 >= n),
                "VUID-VkTensorDescriptionARM-pStrides-09739",
                "pStrides[{}] = {} is less than pStrides[{i}] × pDimensions[{i}]: elements would overlap",
                i - 1,
                strides[i - 1]
            );
        }
        Ok(())
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes from the first element to the end of the tensor: `strides[0] · dims[0]`.
    pub fn footprint(&self) -> u64 {
        self.strides[0] * self.dims[0]
    }

    /// Whether the strides are the packed ones.
    pub fn is_packed(&self) -> bool {
        packed_strides(&self.dims, u64::from(self.format.size)).as_ref() == Some(&self.strides)
    }

    /// Memory requirements of a tensor with this description.
    pub fn requirements(&self) -> MemoryRequirements {
        MemoryRequirements {
            size: self.footprint().div_ceil(TENSOR_ALIGNMENT) * TENSOR_ALIGNMENT,
            alignment: TENSOR_ALIGNMENT,
        }
    }
}

/// A tensor.
#[derive(Debug)]
pub struct Tensor {
    desc: TensorDesc,
    flags: u64,
    binding: OnceLock<Binding>,
}

impl Tensor {
    /// `vkCreateTensorARM` (and the tensor `vkGetDeviceTensorMemoryRequirementsARM` describes).
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn create(device: &Device, info: &vk::TensorCreateInfoARM) -> Result<Self> {
        ensure!(
            device.features().tensor_arm.tensors,
            "VUID-vkCreateTensorARM-tensors-09832",
            "the tensors feature (VK_ARM_tensors) was not enabled at device creation"
        );
        Self::describe(device, info)
    }

    /// The tensor a `VkTensorCreateInfoARM` describes (for
    /// `vkGetDeviceTensorMemoryRequirementsARM`, which creates nothing).
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn describe(device: &Device, info: &vk::TensorCreateInfoARM) -> Result<Self> {
        let d = &info.description;
        let tiling = match d.tiling {
            VK_TENSOR_TILING_OPTIMAL_ARM => Tiling::Optimal,
            _ => Tiling::Linear,
        };
        if info.sharing_mode == VK_SHARING_MODE_CONCURRENT {
            let families = &info.queue_family_indices;
            ensure!(
                families.len() > 1,
                "VUID-VkTensorCreateInfoARM-sharingMode-09723",
                "CONCURRENT sharing needs more than one queue family index (got {})",
                families.len()
            );
            let unique = families
                .iter()
                .enumerate()
                .all(|(i, f)| !families[..i].contains(f));
            let count = device.physical().queue_families().len() as u32;
            ensure!(
                unique && families.iter().all(|f| *f < count),
                "VUID-VkTensorCreateInfoARM-sharingMode-09725",
                "pQueueFamilyIndices {families:?} must be unique indices of existing queue families (there is one, 0)"
            );
        }
        if let Some(ext) = &info.external_memory_tensor_create_info_arm {
            ensure!(
                ext.handle_types == 0,
                "VUID-VkTensorCreateInfoARM-pNext-09864",
                "external memory handle types {:#x} are not supported for tensors",
                ext.handle_types
            );
        }
        let desc = TensorDesc::new(
            tiling,
            d.format,
            &d.dimensions,
            d.strides.as_deref(),
            d.usage,
            device.features().tensor_arm.tensor_non_packed,
        )?;
        Tensor::new(desc, info.flags)
    }

    /// A tensor with a validated description and `VkTensorCreateFlagsARM`.
    ///
    /// # Errors
    /// `Validation` for flags that need features Tessera does not support.
    pub fn new(desc: TensorDesc, flags: u64) -> Result<Self> {
        let known = CREATE_MUTABLE_FORMAT
            | CREATE_PROTECTED
            | CREATE_DESCRIPTOR_BUFFER_CAPTURE_REPLAY
            | CREATE_DESCRIPTOR_HEAP_CAPTURE_REPLAY;
        ensure!(
            flags & !known == 0,
            "VUID-VkTensorCreateInfoARM-flags-parameter",
            "unknown create flags {:#x}",
            flags & !known
        );
        ensure!(
            flags & CREATE_PROTECTED == 0,
            "VUID-VkTensorCreateInfoARM-protectedMemory-09729",
            "VK_TENSOR_CREATE_PROTECTED_BIT_ARM needs the protectedMemory feature, which is not supported"
        );
        ensure!(
            flags & CREATE_DESCRIPTOR_BUFFER_CAPTURE_REPLAY == 0,
            "VUID-VkTensorCreateInfoARM-flags-09726",
            "descriptor-buffer capture/replay is not supported"
        );
        ensure!(
            flags & CREATE_DESCRIPTOR_HEAP_CAPTURE_REPLAY == 0,
            "VUID-VkTensorCreateInfoARM-flags-parameter",
            "descriptor-heap capture/replay is not supported"
        );
        Ok(Tensor {
            desc,
            flags,
            binding: OnceLock::new(),
        })
    }

    /// The description.
    pub fn desc(&self) -> &TensorDesc {
        &self.desc
    }

    /// Whether views may use other formats of the same class.
    pub fn mutable_format(&self) -> bool {
        self.flags & CREATE_MUTABLE_FORMAT != 0
    }

    /// Memory requirements.
    pub fn requirements(&self) -> MemoryRequirements {
        self.desc.requirements()
    }

    /// Binds the tensor to `memory` at `offset`.
    ///
    /// # Errors
    /// `Validation` when already bound, misaligned, or out of range.
    pub fn bind(&self, memory: Arc<DeviceMemory>, offset: u64) -> Result<()> {
        ensure!(
            self.binding.get().is_none(),
            "VUID-VkBindTensorMemoryInfoARM-tensor-09712",
            "tensor is already bound to memory"
        );
        if let Some(key) = memory.dedicated_to() {
            ensure!(
                key == self as *const Tensor as usize && offset == 0,
                "VUID-VkBindTensorMemoryInfoARM-memory-09806",
                "memory is a dedicated allocation for another tensor, or memoryOffset {offset} is not 0"
            );
        }
        check_bind(
            &memory,
            offset,
            self.requirements(),
            BindVuids {
                offset: "VUID-VkBindTensorMemoryInfoARM-memoryOffset-09713",
                alignment: "VUID-VkBindTensorMemoryInfoARM-memoryOffset-09715",
                size: "VUID-VkBindTensorMemoryInfoARM-size-09716",
            },
        )?;
        self.binding.set(Binding { memory, offset }).map_err(|_| {
            Error::invalid(
                "VUID-VkBindTensorMemoryInfoARM-tensor-09712",
                "tensor is already bound",
            )
        })
    }

    /// The binding, if bound.
    pub fn binding(&self) -> Option<&Binding> {
        self.binding.get()
    }

    /// The binding, or a validation error naming `vuid`.
    ///
    /// # Errors
    /// `Validation` when the tensor is not bound.
    pub fn bound(&self, vuid: &'static str) -> Result<&Binding> {
        self.binding
            .get()
            .ok_or_else(|| Error::invalid(vuid, "tensor is not bound to memory"))
    }
}

/// A tensor view.
#[derive(Debug)]
pub struct TensorView {
    tensor: Arc<Tensor>,
    format: &'static TensorFormat,
}

/// `vkGetTensorOpaqueCaptureDescriptorDataARM` (`view`: false) and its tensor-view twin:
/// descriptor-buffer capture and replay needs `VK_EXT_descriptor_buffer`, which Tessera does not
/// implement.
///
/// # Errors
/// `Validation` always, naming the feature rule.
pub fn opaque_capture_descriptor_data(view: bool) -> Result<()> {
    Err(Error::invalid(
        if view {
            "VUID-vkGetTensorViewOpaqueCaptureDescriptorDataARM-descriptorBufferCaptureReplay-09706"
        } else {
            "VUID-vkGetTensorOpaqueCaptureDescriptorDataARM-descriptorBufferCaptureReplay-09702"
        },
        "descriptorBufferCaptureReplay and descriptorBufferTensorDescriptors are not supported (no VK_EXT_descriptor_buffer)",
    ))
}

impl TensorView {
    /// `vkCreateTensorViewARM`.
    ///
    /// # Errors
    /// `Validation` naming the rule broken.
    pub fn create(device: &Device, info: &vk::TensorViewCreateInfoARM) -> Result<Self> {
        ensure!(
            device.features().tensor_arm.tensors,
            "VUID-vkCreateTensorViewARM-tensors-09832",
            "the tensors feature (VK_ARM_tensors) was not enabled at device creation"
        );
        ensure!(
            info.flags == 0,
            "VUID-VkTensorViewCreateInfoARM-flags-09745",
            "view flags {:#x}: descriptor-buffer capture/replay is not supported",
            info.flags
        );
        TensorView::new(info.tensor.clone(), info.format, format_features)
    }

    /// A view of `tensor` as `format`; `features` gives the device's format features (normally
    /// [`format_features`]).
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn new(
        tensor: Arc<Tensor>,
        format: i32,
        features: impl Fn(&TensorFormat, Tiling) -> u64,
    ) -> Result<Self> {
        let desc = tensor.desc();
        let Some(view_format) = tensor_format(format) else {
            return Err(Error::invalid(
                "VUID-VkTensorViewCreateInfoARM-tensor-09744",
                format!("format {format} is not a tensor format"),
            ));
        };
        if tensor.mutable_format() {
            ensure!(
                view_format.compatible(desc.format),
                "VUID-VkTensorViewCreateInfoARM-tensor-09744",
                "{} is not in the compatibility class of the tensor's {}",
                view_format.name,
                desc.format.name
            );
        } else {
            ensure!(
                std::ptr::eq(view_format, desc.format),
                "VUID-VkTensorViewCreateInfoARM-tensor-09743",
                "view format {} differs from the tensor's {} and the tensor is not MUTABLE_FORMAT",
                view_format.name,
                desc.format.name
            );
        }
        ensure!(
            desc.usage & (USAGE_SHADER | USAGE_DATA_GRAPH) != 0,
            "VUID-VkTensorViewCreateInfoARM-usage-09747",
            "the tensor's usage has neither SHADER nor DATA_GRAPH"
        );
        let missing = required_features(desc.usage & (USAGE_SHADER | USAGE_DATA_GRAPH))
            & !features(view_format, desc.tiling);
        ensure!(
            missing == 0,
            "VUID-VkTensorViewCreateInfoARM-usage-09748",
            "{} lacks format features {missing:#x} that the tensor's usage needs",
            view_format.name
        );
        if tensor.binding().is_none() {
            // Arm's graph emulation layer creates views before it binds memory. The view only
            // records which tensor it names; dispatches resolve the memory when they run, and a
            // tensor still unbound then reads as out of bounds.
            tracing::warn!(
                "VUID-VkTensorViewCreateInfoARM-tensor-09749: view of a tensor not bound to memory yet; accepted"
            );
        }
        Ok(TensorView {
            tensor,
            format: view_format,
        })
    }

    /// The tensor.
    pub fn tensor(&self) -> &Arc<Tensor> {
        &self.tensor
    }

    /// The view's format.
    pub fn format(&self) -> &'static TensorFormat {
        self.format
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HeapBudget;

    const R32_UINT: i32 = VK_FORMAT_R32_UINT;
    const R8_UINT: i32 = VK_FORMAT_R8_UINT;
    const ALL: u64 = USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST;

    fn vuid(r: Result<impl std::fmt::Debug>) -> &'static str {
        match r {
            Err(Error::Validation { vuid, .. }) => vuid,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn packed_linear_and_optimal() {
        let d = TensorDesc::new(Tiling::Linear, R32_UINT, &[13, 17, 19], None, ALL, false).unwrap();
        assert_eq!(d.strides, vec![17 * 19 * 4, 19 * 4, 4]);
        assert_eq!(d.footprint(), 13 * 17 * 19 * 4);
        assert!(d.is_packed());
        let o =
            TensorDesc::new(Tiling::Optimal, R32_UINT, &[13, 17, 19], None, ALL, false).unwrap();
        assert_eq!(o.strides, d.strides);
        assert_eq!(o.requirements().size % TENSOR_ALIGNMENT, 0);
    }

    #[test]
    fn stride_rules() {
        let padded = [2 * (17 * 4 + 13 * 4), 17 * 4 + 13 * 4, 4];
        let dims = [3, 2, 17];
        let ok =
            TensorDesc::new(Tiling::Linear, R32_UINT, &dims, Some(&padded), ALL, true).unwrap();
        assert!(!ok.is_packed());
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &dims,
                Some(&padded),
                ALL,
                false
            )),
            "VUID-VkTensorDescriptionARM-None-09740"
        );
        let bad_inner = [2 * 68, 68, 8];
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &dims,
                Some(&bad_inner),
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pStrides-09736"
        );
        let not_multiple = [2 * 70, 70, 4];
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &dims,
                Some(&not_multiple),
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pStrides-09737"
        );
        let overlap = [60, 68, 4];
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &dims,
                Some(&overlap),
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pStrides-09739"
        );
        let negative = [-136, 68, 4];
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &dims,
                Some(&negative),
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pStrides-09738"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Optimal,
                R32_UINT,
                &dims,
                Some(&padded),
                ALL,
                true
            )),
            "VUID-VkTensorCreateInfoARM-pDescription-09720"
        );
    }

    #[test]
    fn description_rules() {
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[],
                None,
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-dimensionCount-arraylength"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[1; 9],
                None,
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-dimensionCount-09733"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[4, 0],
                None,
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pDimensions-09734"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[1 << 40],
                None,
                ALL,
                true
            )),
            "VUID-VkTensorDescriptionARM-pDimensions-09883"
        );
        assert_eq!(
            vuid(TensorDesc::new(Tiling::Linear, 37, &[4], None, ALL, true)),
            "VUID-VkTensorDescriptionARM-format-09735"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[4],
                None,
                0,
                true
            )),
            "VUID-VkTensorDescriptionARM-usage-requiredbitmask"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[4],
                None,
                1 << 40,
                true
            )),
            "VUID-VkTensorDescriptionARM-usage-parameter"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[4],
                None,
                USAGE_IMAGE_ALIASING,
                true
            )),
            "VUID-VkTensorDescriptionARM-tiling-09742"
        );
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Optimal,
                R32_UINT,
                &[4],
                None,
                USAGE_IMAGE_ALIASING,
                true
            )),
            "VUID-VkTensorCreateInfoARM-pDescription-09728"
        );
        let huge = (1 << 30) as i64;
        assert_eq!(
            vuid(TensorDesc::new(
                Tiling::Linear,
                R32_UINT,
                &[huge, huge, huge],
                None,
                ALL,
                true
            )),
            "VUID-VkTensorCreateInfoARM-tensorElements-09721"
        );
        // SHADER usage is accepted at creation; views check the format features.
        assert!(TensorDesc::new(Tiling::Linear, R32_UINT, &[4], None, USAGE_SHADER, true).is_ok());
    }

    #[test]
    fn bind_and_views() {
        let heap = Arc::new(HeapBudget::new(1 << 20));
        let mem = Arc::new(DeviceMemory::allocate(&heap, 4096, 0).unwrap());
        let desc = TensorDesc::new(
            Tiling::Linear,
            R8_UINT,
            &[8, 8],
            None,
            USAGE_SHADER | ALL,
            false,
        )
        .unwrap();
        let t = Arc::new(Tensor::new(desc, CREATE_MUTABLE_FORMAT).unwrap());
        let shader = |_: &TensorFormat, _: Tiling| {
            FEATURE_TENSOR_SHADER | FEATURE_TRANSFER_SRC | FEATURE_TRANSFER_DST
        };
        assert!(
            TensorView::new(t.clone(), R8_UINT, shader).is_ok(),
            "a view of an unbound tensor is accepted (with a warning)"
        );
        assert_eq!(
            vuid(t.bind(mem.clone(), 1)),
            "VUID-VkBindTensorMemoryInfoARM-memoryOffset-09715"
        );
        assert_eq!(
            vuid(t.bind(mem.clone(), 4096 - 64 + 64)),
            "VUID-VkBindTensorMemoryInfoARM-memoryOffset-09713"
        );
        t.bind(mem.clone(), 2048).unwrap();
        assert_eq!(
            vuid(t.bind(mem.clone(), 0)),
            "VUID-VkBindTensorMemoryInfoARM-tensor-09712"
        );
        let bool_view = TensorView::new(t.clone(), VK_FORMAT_R8_BOOL_ARM, shader).unwrap();
        assert_eq!(bool_view.format().name, "R8_BOOL_ARM");
        assert_eq!(
            vuid(TensorView::new(t.clone(), R32_UINT, shader)),
            "VUID-VkTensorViewCreateInfoARM-tensor-09744"
        );
        // R8_UNORM (same class, MUTABLE_FORMAT) has no SPIR-V type, so no TENSOR_SHADER feature.
        assert_eq!(
            vuid(TensorView::new(
                t.clone(),
                VK_FORMAT_R8_UNORM,
                format_features
            )),
            "VUID-VkTensorViewCreateInfoARM-usage-09748"
        );
        assert!(TensorView::new(t.clone(), R8_UINT, format_features).is_ok());
        assert!(Tensor::new(t.desc().clone(), CREATE_PROTECTED).is_err());
    }
}
