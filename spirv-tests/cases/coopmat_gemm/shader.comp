#version 460
// A tiled cooperative-matrix GEMM (C = A·B, row-major): each subgroup computes a 32×32 block of C as a 2×2 array of accumulators and steps through K, loading arrays of A and B matrices; every array is indexed by loop counters
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { AT a[]; };
layout(set = 0, binding = 1) readonly buffer B { BT b[]; };
layout(set = 0, binding = 2) writeonly buffer C { CT c[]; };

const uint TILE = 32;
const uint PER = TILE / 16;

void main() {
    uint block = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    uint tiles_n = N / TILE;
    uint row = (block / tiles_n) * TILE;
    uint col = (block % tiles_n) * TILE;
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[PER][PER];
    for (uint i = 0; i < PER; ++i) {
        for (uint j = 0; j < PER; ++j) {
            acc[i][j] = coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0);
        }
    }
    for (uint k = 0; k < K; k += KS) {
        coopmat<AT, gl_ScopeSubgroup, 16, KS, gl_MatrixUseA> ma[PER];
        coopmat<BT, gl_ScopeSubgroup, KS, 16, gl_MatrixUseB> mb[PER];
        for (uint i = 0; i < PER; ++i) {
            coopMatLoad(ma[i], a, (row + 16 * i) * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        }
        for (uint j = 0; j < PER; ++j) {
            coopMatLoad(mb[j], b, k * N + col + 16 * j, N, gl_CooperativeMatrixLayoutRowMajor);
        }
        for (uint i = 0; i < PER; ++i) {
            for (uint j = 0; j < PER; ++j) {
                acc[i][j] = coopMatMulAdd(ma[i], mb[j], acc[i][j]);
            }
        }
    }
    for (uint i = 0; i < PER; ++i) {
        for (uint j = 0; j < PER; ++j) {
            coopMatStore(acc[i][j], c, (row + 16 * i) * N + col + 16 * j, N,
                         gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}
