#version 450
// Out-of-range buffer reads give zero and writes are dropped, also past a descriptor range inside
// a larger buffer.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer I { uint inp[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = inp[i + 6u] + 1u;
    o[i + 100000u] = 5u;
    o[i + 0x3fffffffu] = 6u;
}
