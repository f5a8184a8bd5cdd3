#version 460
// PhysicalStorageBuffer loads and stores at varying addresses: contiguous lanes, a strided
// gather inside one allocation, chunks whose lanes are partly in an allocation and partly at an
// unmapped address (those read 0, their writes are dropped), a store under a divergent branch, a
// scatter where lanes share addresses (the last lane in lane order wins) and 64-bit elements.
// (Lanes just past an allocation's end are not tested: a device address there may belong to
// another allocation.)
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Longs { uint64_t l[]; };
layout(push_constant) uniform P {
    Words src;    // binding 0: 64 words
    Words dst;    // binding 1: 64 words
    Longs wide;   // binding 2: 32 longs
    Words bogus;  // no allocation
};
layout(set = 0, binding = 3) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = src.w[i];                       // contiguous
    o[64u + i] = src.w[(i * 7u) % 64u];    // gather inside the allocation
    Words mixed = Words(i < 8u ? uint64_t(src) : uint64_t(bogus));
    o[128u + i] = mixed.w[i];              // lanes 8.. unmapped: 0
    if (i % 3u == 0u) {
        dst.w[i] = i + 100u;               // masked contiguous store
    }
    dst.w[16u + i / 4u] = i;               // four lanes per word: the last one wins
    Words mixed_dst = Words(i < 4u ? uint64_t(dst) : uint64_t(bogus));
    mixed_dst.w[60u + i] = i + 200u;       // lanes 4.. unmapped: dropped
    wide.l[i] = wide.l[i + 16u] * 3ul + uint64_t(i);
}
