#version 450
// Atomics whose returned value nothing reads, of one commuting operation per memory, are not
// sync ops: chunks take them where they are, under divergent masks too. Each binding has its own
// operation: words every lane updates and words only some lanes do (a uniform address: lanes
// fold their values first; and, min and max fold from their identities), varying addresses
// with and without a mask, 32-bit signed and 64-bit words, shared memory, adds past the
// buffer's end (dropped). An add and a xor on one buffer stay sync ops (their order shows).
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Adds { uint adds[]; };
layout(set = 0, binding = 2) buffer Ands { uint ands[]; };
layout(set = 0, binding = 3) buffer Ors { uint ors[]; };
layout(set = 0, binding = 4) buffer Xors { uint xors[]; };
layout(set = 0, binding = 5) buffer UMins { uint umins[]; };
layout(set = 0, binding = 6) buffer SMaxs { int smaxs[]; };
layout(set = 0, binding = 7) buffer SMins { int smins[]; };
layout(set = 0, binding = 8) buffer Wide { uint64_t wide[]; };
layout(set = 0, binding = 9) buffer Mixed { uint mixed[]; };
layout(set = 0, binding = 10) writeonly buffer Shared { uint out_sh[]; };
shared uint sh[40];
void main() {
    uint l = gl_LocalInvocationID.x, g = gl_WorkGroupID.x, i = gl_GlobalInvocationID.x;
    uint x = v[i];
    if (l < 40u) {
        sh[l] = l < 32u ? l : 1000u;
    }
    barrier();
    uint b = g * 8u;
    atomicAdd(adds[b], x);
    atomicAdd(adds[b + 1u + x % 4u], 1u);
    if ((x & 3u) != 0u) {
        atomicAnd(ands[b], x | 0xFFFF0000u);
        atomicOr(ors[b], x);
        atomicMin(umins[b], x);
        atomicMax(smaxs[b], int(x) - 50000);
        atomicMin(smins[b], int(x) - 50000);
        atomicMin(wide[b], uint64_t(x) * 0x100000001ul);
    } else {
        atomicAdd(adds[b + 5u], 0xFFFFFFFDu);
        atomicMin(wide[b + 1u + x % 4u], uint64_t(x) << 33);
    }
    atomicXor(xors[b + x % 8u], x);
    if (l % 3u == 1u) {
        atomicOr(ors[b + 1u + (x >> 5) % 7u], 1u << (x % 32u));
        atomicMax(smaxs[b + 1u + x % 7u], int(x) - 50000);
    }
    atomicAdd(sh[x % 32u], x);
    if (x % 5u < 2u) {
        atomicAdd(sh[32u + x % 8u], x);
    }
    atomicAdd(adds[100000u + (x & 3u)], 1u);
    if (l == 7u) {
        atomicAdd(adds[200000u], 5u);
    }
    atomicAdd(mixed[g * 4u + x % 4u], 1u);
    atomicXor(mixed[g * 4u + x % 4u], x);
    barrier();
    if (l < 40u) {
        out_sh[g * 40u + l] = sh[l];
    }
}
