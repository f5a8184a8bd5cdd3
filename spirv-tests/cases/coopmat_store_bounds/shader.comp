#version 460
// Cooperative matrices: row-major stores whose matrix runs past the end of the descriptor's range (elements outside are dropped, the memory past it keeps its bytes), for A (only its second half of rows out), B and accumulators, beside stores wholly inside it; two subgroups a workgroup, so both halves of each subgroup store
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer H { float16_t h[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(set = 0, binding = 2) buffer OA { float16_t oa[]; };
layout(set = 0, binding = 3) buffer OB { float16_t ob[]; };
layout(set = 0, binding = 4) buffer OC { float oc[]; };

void main() {
    uint tile = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, h, tile * 512, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, h, tile * 512 + 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, f, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(ma, oa, tile * 320, 20, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(mb, ob, tile * 280, 17, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(mc, oc, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
