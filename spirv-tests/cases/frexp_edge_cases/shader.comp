#version 450
// frexp edge cases: zero, negative zero, denormals, infinity, NaN, ordinary values.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { uint v[]; } dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    int e;
    float m = frexp(src.x[i], e);
    dst.v[2u * i] = floatBitsToUint(m);
    dst.v[2u * i + 1u] = uint(e);
}
