#version 450
// Buffer and shared atomics from every invocation: add (a histogram and a ticket counter), min,
// max, or, xor, and, a compare-and-swap loop.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Hist { uint hist[]; };
layout(set = 0, binding = 2) buffer G { uint counter; uint mn; uint mx; uint ors; uint xors; uint ands; uint cas; uint pad; } g;
layout(set = 0, binding = 3) buffer Seen { uint seen[]; };
layout(set = 0, binding = 4) buffer Local { uint local_sum[]; };
shared uint wsum;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    if (gl_LocalInvocationID.x == 0u) wsum = 0u;
    barrier();
    atomicAdd(hist[x % 16u], 1u);
    uint ticket = atomicAdd(g.counter, 1u);
    seen[ticket] = 1u;
    atomicMin(g.mn, x);
    atomicMax(g.mx, x);
    atomicOr(g.ors, x);
    atomicXor(g.xors, x);
    atomicAnd(g.ands, x | 0x80000000u);
    if (i % 2u == 0u) {
        uint old = 0u;
        for (;;) {
            uint seen_v = atomicCompSwap(g.cas, old, old + 1u);
            if (seen_v == old) break;
            old = seen_v;
        }
    }
    atomicAdd(wsum, x);
    barrier();
    if (gl_LocalInvocationID.x == 0u) local_sum[gl_WorkGroupID.x] = wsum;
}
