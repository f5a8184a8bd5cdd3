#version 450
// c = 2a + b on rank-3 float tensors addressed from a 1-D dispatch: the three coordinates split
// off the flat index by division and remainder by a's sizes (unsigned, or signed with SIGNED).
// Packed views whose sizes are the divisors take one run-time check per chunk; padded strides,
// other sizes and the tail chunk take the general path.
#extension GL_ARM_tensors : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 3> a;
layout(set = 0, binding = 1) uniform readonly tensorARM<float, 3> b;
layout(set = 0, binding = 2) uniform writeonly tensorARM<float, 3> c;
void main() {
#ifdef SIGNED
    int i = int(gl_GlobalInvocationID.x);
    int d1 = int(tensorSizeARM(a, 1));
    int d2 = int(tensorSizeARM(a, 2));
    if (i >= int(tensorSizeARM(a, 0)) * d1 * d2) {
        return;
    }
    int x = i % d2;
    int rest = i / d2;
    uint at[3] = uint[3](uint(rest / d1), uint(rest % d1), uint(x));
#else
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(a, 1);
    uint d2 = tensorSizeARM(a, 2);
    if (i >= tensorSizeARM(a, 0) * d1 * d2) {
        return;
    }
    uint x = i % d2;
    uint rest = i / d2;
    uint at[3] = uint[3](rest / d1, rest % d1, x);
#endif
    float va;
    float vb;
    tensorReadARM(a, at, va);
    tensorReadARM(b, at, vb);
    tensorWriteARM(c, at, 2.0 * va + vb);
}
