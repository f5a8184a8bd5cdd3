#version 460
// Cooperative matrices: element-wise arithmetic, scalar products, component access, length, fills, conversions; stores to shared memory read back by other lanes (no barrier), buffer references, column-major stores, B matrices stored once
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Halfs { float16_t h[]; };
layout(set = 0, binding = 0) readonly buffer In { float16_t x[]; };
layout(set = 0, binding = 1) buffer Out { float y[]; };
layout(set = 0, binding = 2) buffer Ints { int32_t iy[]; };
layout(set = 0, binding = 3) readonly buffer Refs { Halfs src; Halfs dst; };
layout(set = 0, binding = 4) buffer Bs { float16_t z[]; };
shared float stage[512];

#define ACC(T) coopmat<T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

void main() {
    uint sg = gl_SubgroupID;
    uint tile = gl_WorkGroupID.x * 2 + sg;
    ACC(float16_t) a;
    ACC(float16_t) b;
    coopMatLoad(a, x, tile * 512, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, x, tile * 512 + 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
    ACC(float16_t) r = a + b * float16_t(2.0) - (-a);
    for (int i = 0; i < r.length(); ++i) {
        r[i] = r[i] * float16_t(0.5);
    }
    ACC(float) w = ACC(float)(r);
    w = w / ACC(float)(4.0);
    // Through shared memory: every lane reads elements other lanes held, with no barrier.
    coopMatStore(w, stage, sg * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (uint e = gl_SubgroupInvocationID; e < 256; e += 32) {
        y[tile * 256 + e] = stage[sg * 256 + e] + 1.0;
    }
    ACC(int32_t) n = ACC(int32_t)(int(r.length()));
    n = n * 3 + ACC(int32_t)(ACC(int32_t)(w));
    coopMatStore(n, iy, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    // Through buffer references, transposed on the way.
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> p;
    coopMatLoad(p, src.h, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(p, dst.h, tile * 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
    // A B matrix, held by both halves of the subgroup, stored once.
    coopmat<float16_t, gl_ScopeSubgroup, 16, 8, gl_MatrixUseB> q;
    coopMatLoad(q, x, tile * 512 + 128, 8, gl_CooperativeMatrixLayoutRowMajor);
    q = -q;
    coopMatStore(q, z, tile * 128, 8, gl_CooperativeMatrixLayoutRowMajor);
}
