#version 460
// Cooperative matrices kept in arrays and picked by indices read from a buffer (the same for every
// invocation, some past the end of their array): each subgroup multiplies ma[i]·mb + acc[j] for
// four (i, j) pairs, so a multiply-add reads operands straight from the arrays, and an index out of
// range reads a zero matrix, as a load from the array at that index does
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer S { uint picks[]; };
layout(set = 0, binding = 3) writeonly buffer D { float d[]; };

const uint PAIRS = 4;

void main() {
    uint subgroup = gl_WorkGroupID.x * 2 + gl_LocalInvocationID.x / 32;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma[3];
    for (uint i = 0; i < 3; ++i) {
        coopMatLoad(ma[i], a, i * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopMatLoad(mb, b, subgroup * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[2];
    acc[0] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(1.0);
    acc[1] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(-2.5);
    for (uint p = 0; p < PAIRS; ++p) {
        uint i = picks[2 * p];
        uint j = picks[2 * p + 1];
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> r =
            coopMatMulAdd(ma[i], mb, acc[j]);
        coopMatStore(r, d, (subgroup * PAIRS + p) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
}
