// The body of bench_coopmat_gemm_{f16,s8}{,_opt}.comp: C = A·B for row-major A (M×K), B (K×N)
// and C (M×N), in the register-tiled style of cooperative-matrix GEMMs without shared memory:
// each workgroup is one subgroup (local_size_x = the device's subgroup size, constant 0) and
// computes one TILE×TILE block of C as (TILE/16)² accumulators, stepping through K by KS (the
// form's K). The includer defines AT, BT, CT (element types) and KS. The loops over tiles are
// marked [[unroll]] as ggml-vulkan's are: glslc alone keeps them (arrays of matrices indexed by
// loop counters), spirv-opt -O (the _opt shaders) unrolls them into SSA values.
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint M = 1024;
layout(constant_id = 2) const uint N = 1024;
layout(constant_id = 3) const uint K = 1024;
layout(set = 0, binding = 0) readonly buffer A { AT a[]; };
layout(set = 0, binding = 1) readonly buffer B { BT b[]; };
layout(set = 0, binding = 2) writeonly buffer C { CT c[]; };

const uint TILE = 32;
const uint PER = TILE / 16;

void main() {
    uint tiles_n = N / TILE;
    uint row = (gl_WorkGroupID.x / tiles_n) * TILE;
    uint col = (gl_WorkGroupID.x % tiles_n) * TILE;
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
