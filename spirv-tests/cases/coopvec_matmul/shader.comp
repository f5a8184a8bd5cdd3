#version 460
// Cooperative vectors: coopVecLoadNV, coopVecMatMulNV / coopVecMatMulAddNV for one form (the defines), coopVecStoreNV
#extension GL_NV_cooperative_vector : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Inputs { uint32_t x[]; };
layout(set = 0, binding = 1) readonly buffer Matrix { uint32_t m[]; };
layout(set = 0, binding = 2) readonly buffer Bias { uint32_t b[]; };
layout(set = 0, binding = 3) buffer Outputs { uint32_t y[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    coopvecNV<IN_T, IN_N> v;
    coopVecLoadNV(v, x, i * IN_BYTES);
    coopvecNV<OUT_T, M> r;
#ifdef BIAS_T
    coopVecMatMulAddNV(r, v, INTERP, m, MAT_OFFSET, MAT_T, b, 0, BIAS_T, M, K, LAYOUT, TRANSPOSE, STRIDE);
#else
    coopVecMatMulNV(r, v, INTERP, m, MAT_OFFSET, MAT_T, M, K, LAYOUT, TRANSPOSE, STRIDE);
#endif
#ifdef RELU
    r = max(r, coopvecNV<OUT_T, M>(0.0));
#endif
    coopVecStoreNV(r, y, i * OUT_BYTES);
}
