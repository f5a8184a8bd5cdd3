#version 450
// Arrays of tensors whose index differs between the lanes of a chunk (i % 3, and (i / 5) % 3
// inside a branch some lanes take): compiled code runs each access once for each tensor the
// chunk's lanes name. Reads (some past a smaller tensor's end: the oob value or 0), size
// queries, and writes (some past a destination's end: dropped).
#extension GL_ARM_tensors : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> src[3];
layout(set = 0, binding = 1) uniform tensorARM<int, 1> dst[3];
layout(set = 0, binding = 2) buffer Out { int data[]; } o;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = i % 3u;
    int a;
    tensorReadARM(src[nonuniformEXT(k)], uint[1](i % 64u), a,
                  gl_TensorOperandsOutOfBoundsValueARM, -5);
    int n = int(tensorSizeARM(src[nonuniformEXT(k)], 0));
    int b = 0;
    if (i % 4u != 1u) {
        uint m = (i / 5u) % 3u;
        tensorReadARM(src[nonuniformEXT(m)], uint[1](i / 2u), b);
        b += 1000 * int(tensorSizeARM(dst[nonuniformEXT(m)], 0));
    }
    o.data[3u * i] = a;
    o.data[3u * i + 1u] = n;
    o.data[3u * i + 2u] = b;
    tensorWriteARM(dst[nonuniformEXT(k)], uint[1](i / 2u + 10u * k), a + n);
}
