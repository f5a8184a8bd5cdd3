#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
// Divergent code that no masked region takes, run block by block: a loop with per-lane trip
// counts inside a branch, around a subgroup reduction and a store into a local array at a
// computed index.
layout(local_size_x = 32) in;
const uint N = 8u;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint l = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    uint arr[N];
    for (uint k = 0u; k < N; k++) {
        arr[k] = k;
    }
    uint acc = 0u;
    if (l % 3u != 0u) {
        for (uint k = 0u; k < l % 4u; k++) {
            uint s = subgroupAdd(k + 1u);
            acc += s;
            arr[(acc + l) % N] += s;
        }
    }
    o[g * 3u] = acc;
    o[g * 3u + 1u] = arr[g % N];
    o[g * 3u + 2u] = arr[(g + 5u) % N];
}
