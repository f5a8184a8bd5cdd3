#version 450
// out[i] = in[i] * 2 + add, for the compute end-to-end tests.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { uint v[]; } dst;
layout(push_constant) uniform Push { uint add; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst.v[i] = src.v[i] * 2u + p.add;
}
