//! The allow-list: capabilities, extensions, extended instruction sets and the addressing model a
//! module may declare (`Logical`, or `PhysicalStorageBuffer64` for buffer device addresses). Runs
//! first, so everything later may assume only these were declared. Records the `GLSL.std.450` import in `Lowerer::glsl` and `NonSemantic.*` imports in
//! `Lowerer::ignored_sets` (their `OpExtInst`s are dropped, see `glsl450`).

use super::{LowerResult, Lowerer, err};
use rspirv::dr::Operand;
use rspirv::spirv::{AddressingModel, Capability};

impl<'m> Lowerer<'m> {
    pub(super) fn check_caps(&mut self) -> LowerResult<()> {
        use Capability as C;
        let dr = &self.m.dr;
        for inst in &dr.capabilities {
            let Some(Operand::Capability(c)) = inst.operands.first() else {
                return err("malformed OpCapability");
            };
            let ok = matches!(
                c,
                C::Shader
                    | C::Matrix
                    | C::Int8
                    | C::Int16
                    | C::Int64
                    | C::Float16
                    | C::Float64
                    | C::StorageBuffer8BitAccess
                    | C::UniformAndStorageBuffer8BitAccess
                    | C::StoragePushConstant8
                    | C::StorageBuffer16BitAccess
                    | C::UniformAndStorageBuffer16BitAccess
                    | C::StoragePushConstant16
                    | C::Int64Atomics
                    | C::TensorsARM
                    | C::StorageTensorArrayDynamicIndexingARM
                    | C::StorageTensorArrayNonUniformIndexingARM
                    | C::ShaderNonUniform
                    | C::RuntimeDescriptorArray
                    | C::StorageBufferArrayDynamicIndexing
                    | C::UniformBufferArrayDynamicIndexing
                    | C::StorageBufferArrayNonUniformIndexing
                    | C::UniformBufferArrayNonUniformIndexing
                    | C::VulkanMemoryModel
                    | C::VulkanMemoryModelDeviceScope
                    | C::DeviceGroup
                    // Float controls the device reports: IEEE behaviour is what the interpreter
                    // does anyway (no flush-to-zero, round to nearest even, signed zeros, infinities
                    // and NaNs kept). DenormFlushToZero and RoundingModeRTZ are not supported.
                    | C::DotProduct
                    | C::DotProductInputAll
                    | C::DotProductInput4x8Bit
                    | C::DotProductInput4x8BitPacked
                    | C::SignedZeroInfNanPreserve
                    | C::DenormPreserve
                    | C::RoundingModeRTE
                    | C::BFloat16TypeKHR
                    | C::BFloat16DotProductKHR
                    | C::Float8EXT
                    | C::GroupNonUniform
                    | C::GroupNonUniformVote
                    | C::GroupNonUniformArithmetic
                    | C::GroupNonUniformBallot
                    | C::GroupNonUniformShuffle
                    | C::GroupNonUniformShuffleRelative
                    | C::GroupNonUniformClustered
                    | C::GroupNonUniformQuad
                    | C::PhysicalStorageBufferAddresses
                    | C::VariablePointers
                    | C::VariablePointersStorageBuffer
                    | C::CooperativeVectorNV
                    | C::CooperativeVectorTrainingNV
                    | C::ReplicatedCompositesEXT
                    | C::CooperativeMatrixKHR
                    | C::BFloat16CooperativeMatrixKHR
                    | C::Float8CooperativeMatrixEXT
            );
            if matches!(c, C::VariablePointers | C::VariablePointersStorageBuffer) {
                self.variable_pointers.storage_buffer = true;
            }
            if *c == C::VariablePointers {
                self.variable_pointers.workgroup = true;
            }
            if *c == C::CooperativeVectorTrainingNV {
                self.cooperative.training = true;
            }
            if !ok {
                return err(format!("unsupported capability {c:?} ({})", *c as u32));
            }
        }
        for inst in &dr.extensions {
            let Some(Operand::LiteralString(s)) = inst.operands.first() else {
                return err("malformed OpExtension");
            };
            let ok = matches!(
                s.as_str(),
                "SPV_ARM_tensors"
                    | "SPV_KHR_storage_buffer_storage_class"
                    | "SPV_KHR_8bit_storage"
                    | "SPV_KHR_16bit_storage"
                    | "SPV_KHR_vulkan_memory_model"
                    | "SPV_EXT_descriptor_indexing"
                    | "SPV_KHR_non_semantic_info"
                    | "SPV_KHR_device_group"
                    | "SPV_KHR_float_controls"
                    | "SPV_KHR_integer_dot_product"
                    | "SPV_KHR_bfloat16"
                    | "SPV_EXT_float8"
                    | "SPV_KHR_physical_storage_buffer"
                    | "SPV_EXT_physical_storage_buffer"
                    | "SPV_KHR_variable_pointers"
                    | "SPV_NV_cooperative_vector"
                    | "SPV_EXT_replicated_composites"
                    | "SPV_KHR_cooperative_matrix"
            );
            if !ok {
                return err(format!("unsupported extension {s}"));
            }
        }
        for inst in &dr.ext_inst_imports {
            let (Some(id), Some(Operand::LiteralString(s))) =
                (inst.result_id, inst.operands.first())
            else {
                return err("malformed OpExtInstImport");
            };
            if s == "GLSL.std.450" {
                self.glsl = Some(id);
            } else if s.starts_with("NonSemantic.") {
                self.ignored_sets.push(id);
            } else {
                return err(format!("unsupported extended instruction set {s}"));
            }
        }
        if let Some(mm) = &dr.memory_model
            && let Some(Operand::AddressingModel(a)) = mm.operands.first()
            && !matches!(
                a,
                AddressingModel::Logical | AddressingModel::PhysicalStorageBuffer64
            )
        {
            return err(format!("unsupported addressing model {a:?}"));
        }
        Ok(())
    }
}
