#version 450
// Stores into a local array of eight elements indexed at run time (kept in the register
// file's rows) inside divergent branches whose paths meet again: each side's stores blend its
// lanes into the rows, at a uniform index, at a varying one, at a loop counter's in a loop
// with a uniform trip count and on a nested branch, with reads before the stores on both
// sides; after the join every lane reads its own side's values at run-time indices (as
// llama.cpp's flash attention keeps its running sums).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer P { uint k; uint trips; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint acc[8];
    for (uint n = 0u; n < 8u; ++n) {
        acc[n] = i * 8u + n;
    }
    if (i % 3u == 1u) {
        acc[k] += 1000u;
        for (uint j = 0u; j < trips; ++j) {
            acc[(j + i) % 8u] += 100u * (j + 1u);
        }
    } else {
        acc[i % 8u] = 5000u + acc[(i + 1u) % 8u];
        if (i % 4u == 0u) {
            acc[k + 1u] *= 3u;
        }
    }
    for (uint n = 0u; n < 8u; ++n) {
        o[i * 8u + n] = acc[(n + k) % 8u];
    }
}
