#version 450
// Arrays of tensors indexed by a varying value that is the same in each chunk of 16 lanes
// ((i / 16) % 3: one view lookup per chunk) and by one that is not ((i / 8) % 3: one pass for
// each tensor a chunk names): reads, writes and size queries of tensors of three shapes.
#extension GL_ARM_tensors : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> src[3];
layout(set = 0, binding = 1) uniform tensorARM<int, 1> dst[3];
layout(set = 0, binding = 2) buffer Out { int data[]; } o;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = (i / 16u) % 3u;
    uint j = (i / 8u) % 3u;
    int a;
    int b;
    tensorReadARM(src[nonuniformEXT(k)], uint[1](i % 40u), a);
    tensorReadARM(src[nonuniformEXT(j)], uint[1](i % 40u), b);
    o.data[2u * i] = a * 1000 + b;
    o.data[2u * i + 1u] = int(tensorSizeARM(src[nonuniformEXT(k)], 0));
    tensorWriteARM(dst[nonuniformEXT(k)], uint[1](i), a + 7);
}
