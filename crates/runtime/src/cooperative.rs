//! `VK_NV_cooperative_vector` and `VK_KHR_cooperative_matrix` on the runtime's side: the
//! device's lists of supported matrix-vector product forms and cooperative matrix shapes, the
//! checks of a pipeline's cooperative use against them (the `RuntimeSpirv` rules), and matrix
//! conversions (`vkConvertCooperativeVectorMatrixNV` and `vkCmdConvertCooperativeVectorMatrixNV`),
//! whose arithmetic is `tessera-coop`'s.

use tessera_coop::matrix::{MatrixType, MulAdd, Use, operands};
use tessera_coop::{ComponentType, ConvertError, Matrix, MatrixLayout};
use tessera_spirv::Program;

use crate::vk::features::Features;
use crate::vk::properties::Properties;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The most components of a cooperative vector (`maxCooperativeVectorComponents`; the CTS
/// uses 1024).
pub const MAX_VECTOR_COMPONENTS: u32 = 1024;

/// The product forms listed by `vkGetPhysicalDeviceCooperativeVectorPropertiesNV`: (input
/// type, input interpretation, matrix interpretation, bias interpretation, result type). Every
/// form transposes. NVIDIA's driver lists the first sixteen (the float forms transpose there
/// only for f16); the CPU adds float32 throughout. Unsigned 32-bit results are not listed:
/// the CTS's reference for them (`cooperative_vector.matmul.*uint32.*acthardgelu*`) sums
/// without the spec's 32-bit wrap before a non-linear activation, so a correct wrapping result
/// fails there, and no GPU lists the form to settle it.
pub const VECTOR_FORMS: &[[ComponentType; 5]] = {
    use ComponentType::*;
    &[
        [Float16, Float16, Float16, Float16, Float16],
        [SInt8, SInt8, SInt8, SInt32, SInt32],
        [SInt32, SInt8, SInt8, SInt32, SInt32],
        [Float32, SInt8, SInt8, SInt32, SInt32],
        [UInt32, SInt8Packed, SInt8, SInt32, SInt32],
        [UInt8, UInt8, SInt8, SInt32, SInt32],
        [SInt32, UInt8, SInt8, SInt32, SInt32],
        [UInt32, UInt8Packed, SInt8, SInt32, SInt32],
        [UInt8, UInt8, UInt8, SInt32, SInt32],
        [SInt32, UInt8, UInt8, SInt32, SInt32],
        [UInt32, UInt8Packed, UInt8, SInt32, SInt32],
        [SInt8, SInt8, UInt8, SInt32, SInt32],
        [SInt32, SInt8, UInt8, SInt32, SInt32],
        [UInt32, SInt8Packed, UInt8, SInt32, SInt32],
        [Float16, FloatE4M3, FloatE4M3, Float16, Float16],
        [Float16, FloatE5M2, FloatE5M2, Float16, Float16],
        [Float32, Float32, Float32, Float32, Float32],
        [Float16, Float16, Float16, Float32, Float32],
        [Float32, Float32, Float16, Float32, Float32],
    ]
};

/// One entry of `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` (subgroup scope).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixForm {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// A, B, C and result types.
    pub types: [ComponentType; 4],
    pub saturating: bool,
}

const fn form(m: u32, n: u32, k: u32, types: [ComponentType; 4], saturating: bool) -> MatrixForm {
    MatrixForm {
        m,
        n,
        k,
        types,
        saturating,
    }
}

/// The cooperative matrix shapes and types Tessera multiplies, preferred first: NVIDIA's eleven
/// (f16 with f32 or f16 accumulators at 16×16×16, 16×8×16 and 16×8×8; 8-bit integers at
/// 16×16×32 and 16×8×32; bfloat16 at 16×16×16) with f32 after the f16 forms and the 8-bit forms
/// also saturating, and AMD's 16×16×16 for 8-bit integers (also saturating). The list
/// ends with an entry whose A type is not f32: the CTS's `op_constant_null` walks the list with an
/// iterator that uses an empty configuration when the last entries are ones it cannot build.
pub const MATRIX_FORMS: &[MatrixForm] = {
    use ComponentType::*;
    const F16_F32: [ComponentType; 4] = [Float16, Float16, Float32, Float32];
    const F16_F16: [ComponentType; 4] = [Float16, Float16, Float16, Float16];
    const S8: [ComponentType; 4] = [SInt8, SInt8, SInt32, SInt32];
    const U8: [ComponentType; 4] = [UInt8, UInt8, UInt32, UInt32];
    const F32: [ComponentType; 4] = [Float32, Float32, Float32, Float32];
    &[
        form(16, 16, 16, F16_F32, false),
        form(16, 16, 16, F16_F16, false),
        form(16, 8, 16, F16_F32, false),
        form(16, 8, 16, F16_F16, false),
        form(16, 8, 8, F16_F32, false),
        form(16, 8, 8, F16_F16, false),
        form(16, 16, 16, F32, false),
        form(16, 16, 8, F32, false),
        form(16, 16, 32, S8, false),
        form(16, 8, 32, S8, false),
        form(16, 16, 32, U8, false),
        form(16, 8, 32, U8, false),
        form(16, 16, 32, S8, true),
        form(16, 8, 32, S8, true),
        form(16, 16, 32, U8, true),
        form(16, 8, 32, U8, true),
        // AMD's WMMA shape for 8-bit integers, also with the accumulator's signedness left
        // unsaid, as IREE's `rdna3` target emits it (a wrapping 32-bit sum is the same bits).
        form(16, 16, 16, S8, false),
        form(16, 16, 16, U8, false),
        form(16, 16, 16, S8, true),
        form(16, 16, 16, U8, true),
        form(16, 16, 16, [SInt8, SInt8, UInt32, UInt32], false),
        form(16, 16, 16, [BFloat16, BFloat16, Float32, Float32], false),
        // A bfloat16 accumulator, as ncnn's bf16 GEMM declares one to load its bias and store its
        // output (NVIDIA lists none): the kernels sum in f32 and round the result once.
        form(16, 16, 16, [BFloat16, BFloat16, BFloat16, BFloat16], false),
    ]
};

/// `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`'s list.
pub fn matrix_properties() -> Vec<vk::CooperativeMatrixPropertiesKHR> {
    MATRIX_FORMS
        .iter()
        .map(|f| vk::CooperativeMatrixPropertiesKHR {
            m_size: f.m,
            n_size: f.n,
            k_size: f.k,
            a_type: f.types[0].raw() as i32,
            b_type: f.types[1].raw() as i32,
            c_type: f.types[2].raw() as i32,
            result_type: f.types[3].raw() as i32,
            saturating_accumulation: f.saturating,
            scope: vulkan_headers::vulkan::vulkan_core::VK_SCOPE_SUBGROUP_KHR,
        })
        .collect()
}

/// Whether integer types `a` and `b` have the same width (SPIR-V's `OpTypeInt` signedness does
/// not say what a matrix holds: the multiply-add's operands do), or floats are equal.
fn same_type(a: ComponentType, b: ComponentType) -> bool {
    if a.is_float() || b.is_float() {
        a == b
    } else {
        a.bytes() == b.bytes()
    }
}

/// Whether some listed form has a matrix of type `t` (VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163).
fn listed_matrix(t: &MatrixType) -> bool {
    MATRIX_FORMS.iter().any(|f| match t.usage {
        Use::A => (t.rows, t.cols) == (f.m, f.k) && same_type(t.elem, f.types[0]),
        Use::B => (t.rows, t.cols) == (f.k, f.n) && same_type(t.elem, f.types[1]),
        Use::Accumulator => {
            (t.rows, t.cols) == (f.m, f.n)
                && (same_type(t.elem, f.types[2]) || same_type(t.elem, f.types[3]))
        }
    })
}

/// Whether some listed form is multiply-add `m`, signedness bits and saturation included
/// (VUID-RuntimeSpirv-OpCooperativeMatrixMulAddKHR-10060).
fn listed_mul_add(m: &MulAdd) -> bool {
    MATRIX_FORMS.iter().any(|f| {
        (f.m, f.n, f.k) == (m.m, m.n, m.k)
            && [m.a, m.b, m.c, m.result] == f.types
            && f.saturating == (m.operands & operands::SATURATING != 0)
    })
}

/// `vkGetPhysicalDeviceCooperativeVectorPropertiesNV`'s list.
pub fn vector_properties() -> Vec<vk::CooperativeVectorPropertiesNV> {
    VECTOR_FORMS
        .iter()
        .map(|f| vk::CooperativeVectorPropertiesNV {
            input_type: f[0].raw() as i32,
            input_interpretation: f[1].raw() as i32,
            matrix_interpretation: f[2].raw() as i32,
            bias_interpretation: f[3].raw() as i32,
            result_type: f[4].raw() as i32,
            transpose: true,
        })
        .collect()
}

/// The device's cooperative-vector and cooperative-matrix features and limits.
pub fn set_caps(features: &mut Features, properties: &mut Properties) {
    features.cooperative_vector_nv.cooperative_vector = true;
    features.cooperative_vector_nv.cooperative_vector_training = true;
    let p = &mut properties.cooperative_vector_nv;
    p.cooperative_vector_supported_stages =
        vulkan_headers::vulkan::vulkan_core::VK_SHADER_STAGE_COMPUTE_BIT;
    p.cooperative_vector_training_float16_accumulation = true;
    p.cooperative_vector_training_float32_accumulation = true;
    p.max_cooperative_vector_components = MAX_VECTOR_COMPONENTS;
    let m = &mut features.cooperative_matrix_khr;
    m.cooperative_matrix = true;
    // Every cooperative matrix load and store is bounds-checked (out of range: 0, dropped).
    m.cooperative_matrix_robust_buffer_access = true;
    features
        .shader_bfloat16_khr
        .shader_b_float16_cooperative_matrix = true;
    properties
        .cooperative_matrix_khr
        .cooperative_matrix_supported_stages =
        vulkan_headers::vulkan::vulkan_core::VK_SHADER_STAGE_COMPUTE_BIT;
}

/// Checks a pipeline's cooperative-vector use against the device (the `RuntimeSpirv` rules
/// lowering cannot know) and the features the device was created with.
///
/// # Errors
/// `Validation` naming the rule broken.
pub fn check_program(program: &Program, enabled: &Features) -> Result<()> {
    check_matrices(program, enabled)?;
    let c = program.cooperative();
    if c.mat_vecs.is_empty() && c.max_vector_components == 0 && !c.training {
        return Ok(());
    }
    ensure!(
        enabled.cooperative_vector_nv.cooperative_vector,
        "VUID-RuntimeSpirv-cooperativeVector-10089",
        "the shader uses cooperative vectors but cooperativeVector was not enabled"
    );
    ensure!(
        !c.training || enabled.cooperative_vector_nv.cooperative_vector_training,
        "VUID-RuntimeSpirv-OpCooperativeVectorOuterProductAccumulateNV-10093",
        "the shader uses the training instructions but cooperativeVectorTraining was not enabled"
    );
    ensure!(
        c.max_vector_components <= MAX_VECTOR_COMPONENTS,
        "VUID-RuntimeSpirv-maxCooperativeVectorComponents-10094",
        "a cooperative vector has {} components, more than maxCooperativeVectorComponents ({MAX_VECTOR_COMPONENTS})",
        c.max_vector_components
    );
    for f in &c.mat_vecs {
        let listed = VECTOR_FORMS.iter().any(|l| {
            l[0] == f.input
                && l[1] == f.interpretation
                && l[2] == f.matrix
                && f.bias.is_none_or(|b| b == l[3])
                && l[4] == f.result
        });
        ensure!(
            listed,
            "VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10089",
            "no entry of vkGetPhysicalDeviceCooperativeVectorPropertiesNV has input {:?} \
             interpreted as {:?}, matrix {:?}, bias {:?} and result {:?}",
            f.input,
            f.interpretation,
            f.matrix,
            f.bias,
            f.result
        );
    }
    Ok(())
}

/// Checks a pipeline's cooperative-matrix use against the device.
///
/// # Errors
/// `Validation` naming the rule broken.
fn check_matrices(program: &Program, enabled: &Features) -> Result<()> {
    let c = program.cooperative();
    if c.matrix_types.is_empty() {
        return Ok(());
    }
    ensure!(
        enabled.cooperative_matrix_khr.cooperative_matrix,
        "VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163",
        "the shader uses cooperative matrices but cooperativeMatrix was not enabled"
    );
    let bf16 = c
        .matrix_types
        .iter()
        .any(|t| t.elem == ComponentType::BFloat16);
    ensure!(
        !bf16
            || enabled
                .shader_bfloat16_khr
                .shader_b_float16_cooperative_matrix,
        "VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163",
        "the shader uses bfloat16 cooperative matrices but shaderBFloat16CooperativeMatrix was not enabled"
    );
    let x = program.local_size()[0];
    ensure!(
        x.is_multiple_of(tessera_coop::matrix::SUBGROUP as u32),
        "VUID-VkPipelineShaderStageCreateInfo-module-08987",
        "the workgroup's X size {x} is not a multiple of the subgroup size 32, which a shader          with subgroup-scope cooperative matrices needs"
    );
    for t in &c.matrix_types {
        ensure!(
            listed_matrix(t),
            "VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163",
            "no entry of vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR has a {:?} matrix of              {}×{} {:?}",
            t.usage,
            t.rows,
            t.cols,
            t.elem
        );
    }
    for m in &c.mul_adds {
        ensure!(
            listed_mul_add(m),
            "VUID-RuntimeSpirv-OpCooperativeMatrixMulAddKHR-10060",
            "no entry of vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR is M×N×K = {}×{}×{}              with A {:?}, B {:?}, C {:?}, result {:?} and saturatingAccumulation {}",
            m.m,
            m.n,
            m.k,
            m.a,
            m.b,
            m.c,
            m.result,
            m.operands & operands::SATURATING != 0
        );
    }
    Ok(())
}

/// A checked matrix conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conversion {
    pub src: Matrix,
    pub dst: Matrix,
    /// `srcSize`.
    pub src_size: usize,
}

fn component(raw: i32, what: &'static str, vuid: &'static str) -> Result<ComponentType> {
    u32::try_from(raw)
        .ok()
        .and_then(ComponentType::from_raw)
        .ok_or_else(|| Error::invalid(vuid, format!("{what} {raw} is not a VkComponentTypeKHR")))
}

fn layout(raw: i32, what: &'static str, vuid: &'static str) -> Result<MatrixLayout> {
    u32::try_from(raw)
        .ok()
        .and_then(MatrixLayout::from_raw)
        .ok_or_else(|| {
            Error::invalid(
                vuid,
                format!("{what} {raw} is not a VkCooperativeVectorMatrixLayoutNV"),
            )
        })
}

/// Whether `ty` is a matrix interpretation of some listed form.
fn is_matrix_type(ty: ComponentType) -> bool {
    VECTOR_FORMS.iter().any(|f| f[2] == ty)
}

impl Conversion {
    /// Checks `info`'s rules that do not depend on the memory.
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn new(info: &vk::ConvertCooperativeVectorMatrixInfoNV) -> Result<Conversion> {
        Self::checked(info, false)
    }

    /// [`Conversion::new`] for a size query (`dstData` NULL), which reads no source: a source
    /// stride that breaks VUID-…-srcLayout-10077 is reported as a warning, not an error (the
    /// CTS's training tests query sizes with the stride of the input type, not of
    /// `srcComponentType`, and the size depends on the destination alone).
    ///
    /// # Errors
    /// `Validation` naming the VUID broken.
    pub fn for_size_query(info: &vk::ConvertCooperativeVectorMatrixInfoNV) -> Result<Conversion> {
        Self::checked(info, true)
    }

    fn checked(info: &vk::ConvertCooperativeVectorMatrixInfoNV, query: bool) -> Result<Conversion> {
        let src_ty = component(
            info.src_component_type,
            "srcComponentType",
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcComponentType-parameter",
        )?;
        let dst_ty = component(
            info.dst_component_type,
            "dstComponentType",
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstComponentType-parameter",
        )?;
        for (ty, vuid, what) in [
            (
                src_ty,
                "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcComponentType-10079",
                "srcComponentType",
            ),
            (
                dst_ty,
                "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstComponentType-10080",
                "dstComponentType",
            ),
        ] {
            ensure!(
                ty == ComponentType::Float32 || is_matrix_type(ty),
                vuid,
                "{what} {ty:?} is neither FLOAT32 nor a matrixInterpretation the device lists"
            );
        }
        let src = Matrix {
            rows: info.num_rows,
            cols: info.num_columns,
            ty: src_ty,
            layout: layout(
                info.src_layout,
                "srcLayout",
                "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcLayout-parameter",
            )?,
            stride: info.src_stride,
        };
        let dst = Matrix {
            ty: dst_ty,
            layout: layout(
                info.dst_layout,
                "dstLayout",
                "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstLayout-parameter",
            )?,
            stride: info.dst_stride,
            ..src
        };
        match tessera_coop::check(&src, &dst) {
            Err(ConvertError::Stride {
                which: "src", need, ..
            }) if query => {
                tracing::warn!(
                    "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcLayout-10077: srcStride {} is \
                     less than the {need} bytes of a line (ignored: a size query reads no source)",
                    src.stride
                );
                let fixed = Matrix {
                    stride: need,
                    ..src
                };
                tessera_coop::check(&fixed, &dst).map_err(convert_error)?;
            }
            checked => checked.map_err(convert_error)?,
        }
        Ok(Conversion {
            src,
            dst,
            src_size: info.src_size,
        })
    }

    /// Bytes the destination takes.
    pub fn dst_size(&self) -> usize {
        self.dst.size()
    }

    /// Checks that `srcSize` holds the source (`vuid`: the command's rule).
    ///
    /// # Errors
    /// `Validation` naming `vuid`.
    pub fn check_src_size(&self, vuid: &'static str) -> Result<()> {
        ensure!(
            self.src_size >= self.src.footprint(),
            vuid,
            "srcSize {} is less than the {} bytes of the source matrix",
            self.src_size,
            self.src.footprint()
        );
        Ok(())
    }

    /// Converts `src` (at least [`Matrix::footprint`] bytes) into `dst` (at least
    /// [`Self::dst_size`] bytes).
    pub fn run(&self, src: &[u8], dst: &mut [u8]) {
        tessera_coop::convert(&self.src, src, &self.dst, dst);
    }
}

/// One conversion of `vkCmdConvertCooperativeVectorMatrixNV`: device addresses, and the room
/// `*pDstSize` gave when the command was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceConversion {
    pub conversion: Conversion,
    pub src: u64,
    pub dst: u64,
    pub dst_capacity: usize,
}

/// Checks the rules of `vkCmdConvertCooperativeVectorMatrixNV` that hold at record time.
///
/// # Errors
/// `Validation` naming the VUID broken.
pub fn check_device_conversions(list: &[DeviceConversion]) -> Result<()> {
    let mut ranges = Vec::with_capacity(2 * list.len());
    for c in list {
        ensure!(
            c.src.is_multiple_of(64),
            "VUID-vkCmdConvertCooperativeVectorMatrixNV-pInfo-10084",
            "srcData.deviceAddress {:#x} is not 64-byte aligned",
            c.src
        );
        ensure!(
            c.dst.is_multiple_of(64),
            "VUID-vkCmdConvertCooperativeVectorMatrixNV-pInfo-10085",
            "dstData.deviceAddress {:#x} is not 64-byte aligned",
            c.dst
        );
        c.conversion
            .check_src_size("VUID-vkCmdConvertCooperativeVectorMatrixNV-pInfo-10086")?;
        ensure!(
            c.dst_capacity >= c.conversion.dst_size(),
            "VUID-vkCmdConvertCooperativeVectorMatrixNV-pInfo-10087",
            "*pDstSize {} is less than the {} bytes of the destination matrix",
            c.dst_capacity,
            c.conversion.dst_size()
        );
        ranges.push((
            c.src,
            c.src.saturating_add(c.conversion.src.footprint() as u64),
            false,
        ));
        ranges.push((
            c.dst,
            c.dst.saturating_add(c.conversion.dst_size() as u64),
            true,
        ));
    }
    for (i, a) in ranges.iter().enumerate() {
        for b in &ranges[i + 1..] {
            // Sources may share memory; a destination may not touch anything else.
            let overlap = a.0 < b.1 && b.0 < a.1 && a.0 < a.1 && b.0 < b.1;
            ensure!(
                !(overlap && (a.2 || b.2)),
                "VUID-vkCmdConvertCooperativeVectorMatrixNV-None-10088",
                "the memory of two conversions overlaps ({:#x}..{:#x} and {:#x}..{:#x})",
                a.0,
                a.1,
                b.0,
                b.1
            );
        }
    }
    Ok(())
}

/// Runs `vkCmdConvertCooperativeVectorMatrixNV`'s conversions on the device's `live`
/// allocations. A conversion whose memory no live allocation holds is skipped with an error
/// log (its addresses broke VUID-…-pInfo-10083/10895).
pub fn run_device_conversions(
    live: &[std::sync::Arc<crate::memory::DeviceMemory>],
    list: &[DeviceConversion],
) {
    let find = |address: u64, len: usize| {
        live.iter().find_map(|m| {
            let start = address.checked_sub(m.address(0))?;
            (start.checked_add(len as u64)? <= m.size()).then(|| (m.clone(), start))
        })
    };
    for c in list {
        let src_len = c.conversion.src.footprint();
        let dst_len = c.conversion.dst_size();
        let (Some((sm, so)), Some((dm, doff))) = (find(c.src, src_len), find(c.dst, dst_len))
        else {
            tracing::error!(
                "vkCmdConvertCooperativeVectorMatrixNV: {:#x} or {:#x} is not the address of a                  live allocation holding the matrix (VUID-vkCmdConvertCooperativeVectorMatrixNV-pInfo-10083,                  -10895); the conversion is skipped",
                c.src,
                c.dst
            );
            continue;
        };
        let mut src = vec![0u8; src_len];
        let mut dst = vec![0u8; dst_len];
        let read = sm.read(so, &mut src).and_then(|()| dm.read(doff, &mut dst));
        if read.is_ok() {
            c.conversion.run(&src, &mut dst);
            if let Err(e) = dm.write(doff, &dst) {
                tracing::error!("vkCmdConvertCooperativeVectorMatrixNV: {e}");
            }
        }
    }
}

fn convert_error(e: ConvertError) -> Error {
    let vuid = match &e {
        ConvertError::Stride { vuid: 10077, .. } => {
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcLayout-10077"
        }
        ConvertError::Stride { .. } => {
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstLayout-10078"
        }
        ConvertError::Types { .. } => {
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcComponentType-10081"
        }
        ConvertError::Float8Layout { .. } => {
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-dstComponentType-10082"
        }
        ConvertError::Packed { .. } => {
            "VUID-VkConvertCooperativeVectorMatrixInfoNV-srcComponentType-10079"
        }
    };
    // The message starts with the VUID too, for callers of `tessera_coop` alone.
    let text = e.to_string();
    let msg = text
        .strip_prefix(vuid)
        .and_then(|t| t.strip_prefix(": "))
        .unwrap_or(&text);
    Error::invalid(vuid, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_form_has_a_kernel() {
        for f in VECTOR_FORMS {
            let form = tessera_coop::MatVec {
                m: 4,
                k: 8,
                input: f[0],
                interpretation: f[1],
                matrix: f[2],
                layout: MatrixLayout::InferencingOptimal,
                transpose: true,
                bias: Some(f[3]),
                result: f[4],
            };
            form.check().unwrap();
        }
    }

    #[test]
    fn every_listed_matrix_form_has_a_kernel() {
        for f in MATRIX_FORMS {
            let [a, b, c, result] = f.types;
            let signed = |t: ComponentType, bit| if t.is_signed_int() { bit } else { 0 };
            let m = MulAdd {
                m: f.m,
                n: f.n,
                k: f.k,
                a,
                b,
                c,
                result,
                operands: signed(a, operands::A_SIGNED)
                    | signed(b, operands::B_SIGNED)
                    | signed(c, operands::C_SIGNED)
                    | signed(result, operands::RESULT_SIGNED)
                    | if f.saturating {
                        operands::SATURATING
                    } else {
                        0
                    },
            };
            m.check().unwrap();
            assert!(listed_mul_add(&m));
            for (usage, rows, cols, elem) in [
                (Use::A, f.m, f.k, a),
                (Use::B, f.k, f.n, b),
                (Use::Accumulator, f.m, f.n, c),
            ] {
                let t = MatrixType {
                    elem,
                    rows,
                    cols,
                    usage,
                };
                t.check().unwrap();
                assert!(listed_matrix(&t));
            }
        }
    }

    #[test]
    fn the_required_combinations_are_listed() {
        use ComponentType::*;
        for r in [
            [Float16, Float16, Float16, Float16, Float16],
            [UInt32, SInt8Packed, SInt8, SInt32, SInt32],
            [SInt8, SInt8, SInt8, SInt32, SInt32],
            [Float32, SInt8, SInt8, SInt32, SInt32],
            [Float16, FloatE4M3, FloatE4M3, Float16, Float16],
            [Float16, FloatE5M2, FloatE5M2, Float16, Float16],
        ] {
            assert!(VECTOR_FORMS.contains(&r), "{r:?}");
        }
    }
}
