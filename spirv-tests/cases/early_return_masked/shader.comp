#version 450
// Early returns that lanes of a chunk take differently: one after a store, one nested after
// another store, the bounds check of the last chunk, then stores for the lanes left.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
layout(set = 0, binding = 1) buffer S { uint s[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i % 5u == 3u) {
        o[i] = 7u;
        return;
    }
    uint v = i * 3u;
    if (i % 3u == 0u) {
        if (i % 2u == 0u) {
            s[i] = v;
            return;
        }
        v += 100u;
    }
    if (i >= 40u) {
        return;
    }
    o[i] = v + 1u;
    s[i] = v + 2u;
}
