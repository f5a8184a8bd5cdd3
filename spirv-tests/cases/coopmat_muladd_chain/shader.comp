#version 460
// Multiply-adds in one block that read each other's results (D1 = A0·B + C, D2 = A1·B + D1)
// beside independent ones (E = A0·B1 + C, F = A1·B1 + E0) and one whose accumulator is an
// operand loaded in the same block: compiled code runs consecutive independent ones in one
// kernel call and never batches a product with one whose result it reads
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#pragma use_vulkan_memory_model
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { AT a[]; };
layout(set = 0, binding = 1) readonly buffer B { AT b[]; };
layout(set = 0, binding = 2) readonly buffer C { CT c[]; };
layout(set = 0, binding = 3) writeonly buffer D { CT d[]; };

void main() {
    coopmat<AT, gl_ScopeSubgroup, 16, KS, gl_MatrixUseA> a0, a1;
    coopmat<AT, gl_ScopeSubgroup, KS, 16, gl_MatrixUseB> b0, b1;
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c0, e0;
    coopMatLoad(a0, a, 0, KS, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(a1, a, 16 * KS, KS, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b0, b, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b1, b, 16 * KS, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(c0, c, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(e0, c, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> d1 = coopMatMulAdd(a0, b0, c0);
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> d2 = coopMatMulAdd(a1, b0, d1);
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> e = coopMatMulAdd(a0, b1, c0);
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> f = coopMatMulAdd(a1, b1, e0);
    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> g = coopMatMulAdd(a1, b0, f);
    coopMatStore(d1, d, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(d2, d, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(e, d, 512, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(f, d, 768, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(g, d, 1024, 16, gl_CooperativeMatrixLayoutRowMajor);
}
