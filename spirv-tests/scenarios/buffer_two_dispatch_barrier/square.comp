#version 450
// First pass: mid[i] = in[i] * in[i] + i (uint32, wrapping).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Mid { uint v[]; } mid;

void main() {
    uint i = gl_GlobalInvocationID.x;
    mid.v[i] = src.v[i] * src.v[i] + i;
}
