#version 460
// PhysicalStorageBuffer pointers from push constants: one as a buffer_reference, one as a
// uvec2 (OpBitcast), an out-of-range address (reads 0, writes dropped) and one that straddles
// the end of its allocation.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vecs { uvec4 v[]; };
layout(push_constant) uniform P {
    Words src;       // binding 0
    uvec2 dst;       // binding 1, as two 32-bit halves
    Words bogus;     // no allocation
    Words tail;      // the last 2 bytes of binding 0
    Vecs vecs;       // binding 2
};
layout(set = 0, binding = 3) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Words d = Words(dst);
    d.w[i] = src.w[i] * 3u + 1u;
    // Out of range: reads 0, writes dropped.
    o[i] = bogus.w[i] + 7u;
    bogus.w[i] = 99u;
    // Straddles the end of binding 0: reads 0, write dropped.
    o[16u + i] = tail.w[0] + 5u;
    if (i == 0u) tail.w[0] = 0xdeadbeefu;
    // 16-byte vectors through an aligned pointer.
    vecs.v[i] = vecs.v[i].wzyx + uvec4(i);
    o[32u + i] = uint(uint64_t(d) - uint64_t(src));
}
