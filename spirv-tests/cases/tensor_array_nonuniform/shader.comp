#version 450
// An array of three tensors indexed non-uniformly, and a size query through a constant index.
#extension GL_ARM_tensors : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> ts[3];
layout(set = 0, binding = 1) buffer Out { int data[]; } o;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint c[1] = uint[1](i / 3u);
    int v;
    tensorReadARM(ts[nonuniformEXT(i % 3u)], c, v);
    o.data[i] = v + int(tensorSizeARM(ts[1], 0)) * 1000;
}
