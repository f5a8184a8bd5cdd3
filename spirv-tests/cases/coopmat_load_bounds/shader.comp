#version 460
// Cooperative matrices: row-major loads whose matrix runs past the end of the descriptor's range (elements outside read 0), for A (the second half of the rows out), B and accumulators, next to loads wholly inside it; the matrices are stored back in range
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer H { float16_t h[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(set = 0, binding = 2) buffer OA { float16_t oa[]; };
layout(set = 0, binding = 3) buffer OB { float16_t ob[]; };
layout(set = 0, binding = 4) buffer OC { float oc[]; };
layout(set = 0, binding = 5) readonly buffer S { uint stride; };

void main() {
    uint tile = gl_WorkGroupID.x;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, h, tile * 96, 20, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, h, tile * 96 + 8, stride, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, f, tile * 64, 17, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(ma, oa, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(mb, ob, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(mc, oc, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
