#version 460
// Cooperative matrices: coopMatLoad (row- and column-major, strides), coopMatMulAdd (float, integer, saturating) and coopMatStore for one form (the defines), one tile per subgroup
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_bfloat16 : enable
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { AT a[]; };
layout(set = 0, binding = 1) readonly buffer B { BT b[]; };
layout(set = 0, binding = 2) readonly buffer C { CT c[]; };
layout(set = 0, binding = 3) buffer D { RT d[]; };

void main() {
    uint tile = gl_WorkGroupID.x * 2 + gl_SubgroupID;
    coopmat<AT, gl_ScopeSubgroup, M, K, gl_MatrixUseA> ma;
    coopmat<BT, gl_ScopeSubgroup, K, N, gl_MatrixUseB> mb;
    coopmat<CT, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, tile * A_TILE, A_STRIDE, A_LAYOUT);
    coopMatLoad(mb, b, tile * B_TILE, B_STRIDE, B_LAYOUT);
    coopMatLoad(mc, c, tile * M * N, N, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<RT, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> md = coopMatMulAdd(ma, mb, mc OPERANDS);
    coopMatStore(md, d, tile * M * N, N, gl_CooperativeMatrixLayoutRowMajor);
}
