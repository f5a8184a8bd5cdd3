#version 450
// A bounds check that lanes of a chunk take differently, then a loop every lane left runs the
// same number of times: inside it a branch the lanes disagree on, a store under a uniform
// branch and a read of what an earlier iteration stored; after it a store. Runs with a partial
// last chunk, a wholly returned chunk, and no iteration.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n; uint len; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.n) {
        return;
    }
    uint acc = i;
    for (uint k = 0u; k < p.len; k++) {
        uint v = a[k];
        if (((v + i) & 1u) == 0u) {
            acc += v * 3u;
        } else {
            acc ^= v;
        }
        if (k == 2u) {
            o[64u + i] = acc;
        }
        if (k == 4u) {
            acc += o[64u + i];
        }
    }
    o[i] = acc;
}
