#version 460
// The tiled cooperative-matrix GEMM of coopmat_gemm with every constant loop marked [[unroll]]: optimised by spirv-opt -O, the way ggml-vulkan and IREE ship such shaders, the K loop holds four loads and four multiply-adds on SSA values, and its accumulators are loop-carried values
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
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
    [[unroll]] for (uint i = 0; i < PER; ++i) {
        [[unroll]] for (uint j = 0; j < PER; ++j) {
            acc[i][j] = coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0);
        }
    }
    for (uint k = 0; k < K; k += KS) {
        coopmat<AT, gl_ScopeSubgroup, 16, KS, gl_MatrixUseA> ma[PER];
        coopmat<BT, gl_ScopeSubgroup, KS, 16, gl_MatrixUseB> mb[PER];
        [[unroll]] for (uint i = 0; i < PER; ++i) {
            coopMatLoad(ma[i], a, (row + 16 * i) * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        }
        [[unroll]] for (uint j = 0; j < PER; ++j) {
            coopMatLoad(mb[j], b, k * N + col + 16 * j, N, gl_CooperativeMatrixLayoutRowMajor);
        }
        [[unroll]] for (uint i = 0; i < PER; ++i) {
            [[unroll]] for (uint j = 0; j < PER; ++j) {
                acc[i][j] = coopMatMulAdd(ma[i], mb[j], acc[i][j]);
            }
        }
    }
    [[unroll]] for (uint i = 0; i < PER; ++i) {
        [[unroll]] for (uint j = 0; j < PER; ++j) {
            coopMatStore(acc[i][j], c, (row + 16 * i) * N + col + 16 * j, N,
                         gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}
