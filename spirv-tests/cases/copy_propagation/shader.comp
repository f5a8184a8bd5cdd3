#version 450
// Patterns the IR optimiser must not break: a variable read before its store in a loop, stored
// only in a branch, copied before it changes, function results copied.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer I { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
uint twice(uint x) { return x * 2u; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint prev;
    uint first = 0u;
    uint sum = 0u;
    for (uint k = 0u; k < 6u; k++) {
        uint cur = a[(i + k) % 64u] + k;
        if (k > 0u) sum += prev * (k + 1u);
        prev = cur;
        if (k == 2u) first = cur;
    }
    uint x = i;
    uint y = x;
    x = x + 7u;
    uint z = y * 3u + x;
    uint t = twice(z);
    uint u = t;
    t = t + 1u;
    uint b = i * 4u;
    o[b] = sum; o[b + 1u] = first; o[b + 2u] = z; o[b + 3u] = u + t;
}
