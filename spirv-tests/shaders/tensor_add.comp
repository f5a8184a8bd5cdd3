#version 450
// c = a + b on rank-1 int tensors: the base module of the malformed-module tests.
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> a;
layout(set = 0, binding = 1) uniform tensorARM<int, 1> b;
layout(set = 0, binding = 2) uniform tensorARM<int, 1> c;
void main() {
    uint co[1] = uint[1](gl_GlobalInvocationID.x);
    int x, y;
    tensorReadARM(a, co, x);
    tensorReadARM(b, co, y);
    tensorWriteARM(c, co, x + y);
}
