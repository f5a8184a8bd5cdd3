#version 450
// A CTS-sized dispatch: 96 577 one-invocation workgroups, each reading one tensor element.
#extension GL_ARM_tensors : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<uint, 1> t;
layout(set = 0, binding = 1) buffer Out { uint data[]; } o;
void main() {
    uint i = gl_WorkGroupID.x;
    uint c[1] = uint[1](i);
    uint v;
    tensorReadARM(t, c, v);
    o.data[i] = v * 3u + i;
}
