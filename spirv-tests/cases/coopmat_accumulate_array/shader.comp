#version 460
// Cooperative-matrix results stored into an array at indices read from a buffer (the same for
// every invocation): acc[k] = ma[i]·mb + acc[j] for five (i, j, k), so a multiply-add writes its
// result straight into the array, in place when k = j; an index past the end reads a zero
// matrix (i, j) or drops the store (k), as loads from and stores to the array at that index do
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer S { uint picks[]; };
layout(set = 0, binding = 3) writeonly buffer D { float d[]; };
layout(set = 0, binding = 4) readonly buffer C { float c[]; };

const uint STEPS = 5;

void main() {
    uint subgroup = gl_WorkGroupID.x * 2 + gl_LocalInvocationID.x / 32;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma[3];
    for (uint i = 0; i < 3; ++i) {
        coopMatLoad(ma[i], a, i * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopMatLoad(mb, b, subgroup * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[2];
    for (uint k = 0; k < 2; ++k) {
        coopMatLoad(acc[k], c, (subgroup * 2 + k) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
    for (uint p = 0; p < STEPS; ++p) {
        uint i = picks[3 * p];
        uint j = picks[3 * p + 1];
        uint k = picks[3 * p + 2];
        acc[k] = coopMatMulAdd(ma[i], mb, acc[j]);
    }
    for (uint k = 0; k < 2; ++k) {
        coopMatStore(acc[k], d, (subgroup * 2 + k) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
}
