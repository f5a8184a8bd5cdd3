#version 460
// PhysicalStorageBuffer loads and stores at varying addresses: contiguous lanes, a strided
// gather inside one allocation, lanes that run past the allocation's end (read 0, writes
// dropped), a store under a divergent branch, a scatter where lanes share addresses (the last
// lane in lane order wins) and 64-bit elements.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Longs { uint64_t l[]; };
layout(push_constant) uniform P {
    Words src;    // binding 0: 64 words
    Words dst;    // binding 1: 64 words
    Longs wide;   // binding 2: 32 longs
};
layout(set = 0, binding = 3) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = src.w[i];                       // contiguous
    o[64u + i] = src.w[(i * 7u) % 64u];    // gather inside the allocation
    o[128u + i] = src.w[i + 56u];          // lanes 8.. run past the end: 0
    if (i % 3u == 0u) {
        dst.w[i] = i + 100u;               // masked contiguous store
    }
    dst.w[16u + i / 4u] = i;               // four lanes per word: the last one wins
    dst.w[60u + i] = i + 200u;             // lanes 4.. past the end: dropped
    wide.l[i] = wide.l[i + 16u] * 3ul + uint64_t(i);
}
