#version 460
// Cooperative vectors: loads and stores from buffers, shared memory and buffer references; element-wise arithmetic, conversions, splats, composites
#extension GL_NV_cooperative_vector : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vecs { uint32_t v[]; };
layout(set = 0, binding = 0) readonly buffer Inputs { uint32_t x[]; };
layout(set = 0, binding = 1) buffer Outputs { uint32_t y[]; };
layout(set = 0, binding = 2) readonly buffer Addresses { Vecs ref; };
shared uint32_t staging[64 * 4];

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationID.x;
    coopvecNV<float16_t, 8> a;
    coopVecLoadNV(a, x, i * 32);
    coopvecNV<float16_t, 8> b;
    coopVecLoadNV(b, x, i * 32 + 16);
    // Through shared memory: each invocation stores, the neighbour reads it.
    coopVecStoreNV(b, staging, l * 16);
    barrier();
    coopvecNV<float16_t, 8> n;
    coopVecLoadNV(n, staging, ((l + 1) % 64) * 16);
    coopvecNV<float16_t, 8> r = a * b + n - coopvecNV<float16_t, 8>(float16_t(0.5));
    r = max(r, coopvecNV<float16_t, 8>(float16_t(-1.0))) * float16_t(2.0);
    r[3] = a[i % 8];
    coopvecNV<float, 8> wide = coopvecNV<float, 8>(r);
    wide = clamp(wide, coopvecNV<float, 8>(-3.0), coopvecNV<float, 8>(9.0));
    coopVecStoreNV(wide, y, i * 64);
    coopvecNV<int32_t, 8> k = coopvecNV<int32_t, 8>(wide) * coopvecNV<int32_t, 8>(3) + coopvecNV<int32_t, 8>(int(i));
    coopVecStoreNV(k, y, i * 64 + 32);
    // Through a buffer reference: the element-wise product into the third buffer.
    coopVecStoreNV(a * b, ref.v, i * 16);
}
