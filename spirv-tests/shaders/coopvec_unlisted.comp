#version 460
// A cooperative-vector product whose form no property entry lists (f16 input, f16 interpretation, E4M3 matrix, f32 result): pipeline creation must fail (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10089)
#extension GL_NV_cooperative_vector : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { uint32_t d[]; };
void main() {
    coopvecNV<float16_t, 16> v;
    coopVecLoadNV(v, d, 0);
    coopvecNV<float, 16> r;
    coopVecMatMulNV(r, v, gl_ComponentTypeFloat16NV, d, 64, gl_ComponentTypeFloatE4M3NV, 16, 16, gl_CooperativeVectorMatrixLayoutInferencingOptimalNV, false, 0);
    coopVecStoreNV(r, d, 1024);
}
