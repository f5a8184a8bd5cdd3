#version 460
// Cooperative vectors, training: coopVecOuterProductAccumulateNV and coopVecReduceSumAccumulateNV into f16 and f32 matrices and vectors, shared and per-invocation
#extension GL_NV_cooperative_vector : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Inputs { uint32_t x[]; };
layout(set = 0, binding = 1) buffer Matrices16 { uint32_t m16[]; };
layout(set = 0, binding = 2) buffer Matrices32 { uint32_t m32[]; };
layout(set = 0, binding = 3) buffer Sums16 { uint32_t s16[]; };
layout(set = 0, binding = 4) buffer Sums32 { uint32_t s32[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    coopvecNV<float16_t, 8> a;
    coopVecLoadNV(a, x, i * 32);
    coopvecNV<float16_t, 4> b;
    coopVecLoadNV(b, x, i * 32 + 16);
    // Every invocation into matrix 0; invocations i % 3 == 1 also into matrix 1 + i % 2, and
    // of those the even ones (i % 6 == 4) into vector 4 of s32: training ops under a divergent
    // branch, and a branch inside it, add only their lanes.
    coopVecOuterProductAccumulateNV(a, b, m16, 0, 0, gl_CooperativeVectorMatrixLayoutTrainingOptimalNV, gl_ComponentTypeFloat16NV);
    coopVecOuterProductAccumulateNV(a, b, m32, 0, 0, gl_CooperativeVectorMatrixLayoutTrainingOptimalNV, gl_ComponentTypeFloat32NV);
    coopvecNV<float, 8> wide = coopvecNV<float, 8>(a);
    if (i % 3 == 1) {
        coopVecOuterProductAccumulateNV(a, b, m16, 64 * (1 + i % 2), 0, gl_CooperativeVectorMatrixLayoutTrainingOptimalNV, gl_ComponentTypeFloat16NV);
        if (i % 2 == 0) {
            coopVecReduceSumAccumulateNV(wide, s32, 4 * 32);
        }
    }
    coopVecReduceSumAccumulateNV(a, s16, 0);
    coopVecReduceSumAccumulateNV(wide, s32, (i % 4) * 32);
}
