#version 450
// Atomics in uniform control flow, each in a block of its own, run by compiled code in rounds
// (every lane, in lane order, as the interpreter does): add, and, or, xor, unsigned and signed
// min and max, exchange and compare-and-swap on 32-bit buffer words, add and max on 64-bit ones,
// add, min, exchange and compare-and-swap on shared memory, and an add past the buffer's end
// (reads 0, writes nothing). Every returned value is written out.
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Slots { uint s[]; };
layout(set = 0, binding = 2) buffer Signed { int t[]; };
layout(set = 0, binding = 3) buffer Wide { uint64_t w[]; };
layout(set = 0, binding = 4) writeonly buffer Old { uint old[]; };
layout(set = 0, binding = 5) writeonly buffer Old64 { uint64_t old64[]; };
shared uint sh[4];
void main() {
    uint l = gl_LocalInvocationID.x, g = gl_WorkGroupID.x, i = gl_GlobalInvocationID.x;
    uint x = v[i];
    if (l == 0u) {
        sh[0] = 0u;
        sh[1] = 0xffffffffu;
        sh[2] = 7u;
        sh[3] = 0u;
    }
    barrier();
    uint b = g * 16u;
    uint o = i * 16u;
    old[o + 0u] = atomicAdd(s[b + 0u], x);
    old[o + 1u] = atomicAnd(s[b + 1u], x | 0xF0000000u);
    old[o + 2u] = atomicOr(s[b + 2u], x);
    old[o + 3u] = atomicXor(s[b + 3u], x);
    old[o + 4u] = atomicMin(s[b + 4u], x);
    old[o + 5u] = atomicMax(s[b + 5u], x);
    old[o + 6u] = atomicExchange(s[b + 6u], x);
    old[o + 7u] = atomicCompSwap(s[b + 7u], l, l + 1u);
    old[o + 8u] = uint(atomicMin(t[g * 2u], int(x) - 50000));
    old[o + 9u] = uint(atomicMax(t[g * 2u + 1u], int(x) - 50000));
    old[o + 10u] = atomicAdd(s[100000u + (x & 3u)], 1u);
    old[o + 11u] = atomicAdd(sh[0], x);
    old[o + 12u] = atomicMin(sh[1], x);
    old[o + 13u] = atomicExchange(sh[2], l);
    old[o + 14u] = atomicCompSwap(sh[3], l, l + 1u);
    old64[i * 2u] = atomicAdd(w[g * 2u], uint64_t(x) << 20);
    old64[i * 2u + 1u] = atomicMax(w[g * 2u + 1u], uint64_t(x) * 0x300000000ul);
    barrier();
    if (l == 0u) {
        s[b + 12u] = sh[0];
        s[b + 13u] = sh[1];
        s[b + 14u] = sh[2];
        s[b + 15u] = sh[3];
    }
}
