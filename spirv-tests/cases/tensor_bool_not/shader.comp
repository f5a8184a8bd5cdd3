#version 450
// A bool tensor (any non-zero byte is true) negated into another.
#extension GL_ARM_tensors : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<bool, 1> a;
layout(set = 0, binding = 1) uniform tensorARM<bool, 1> b;
void main() {
    uint c[1] = uint[1](gl_GlobalInvocationID.x);
    bool v;
    tensorReadARM(a, c, v);
    bool r = (v && true) || (!v ^^ false);
    tensorWriteARM(b, c, !v && r == r);
}
