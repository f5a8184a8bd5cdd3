#version 450
// Second pass, after an explicit buffer barrier: out[i] = mid[i] ^ mid[n - 1 - i], which reads
// values written by another workgroup of the first dispatch.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer Mid { uint v[]; } mid;
layout(set = 0, binding = 1) writeonly buffer Out { uint v[]; } dst;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = mid.v.length();
    dst.v[i] = mid.v[i] ^ (mid.v[n - 1 - i] >> 1);
}
