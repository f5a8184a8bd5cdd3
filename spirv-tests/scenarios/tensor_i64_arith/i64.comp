#version 450
// int64 tensors (VK_FORMAT_R64_SINT): o = a * b + c (wrapping), s = (a >> 3) ^ b (arithmetic
// shift), m = a % 1000003 (glslang emits OpSMod: the result takes the divisor's sign) and
// q = a / -1000003 (OpSDiv, truncating toward zero).
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<int64_t, 1> a;
layout(set = 0, binding = 1) uniform tensorARM<int64_t, 1> b;
layout(set = 0, binding = 2) uniform tensorARM<int64_t, 1> c;
layout(set = 0, binding = 3) uniform tensorARM<int64_t, 1> o;
layout(set = 0, binding = 4) uniform tensorARM<int64_t, 1> s;
layout(set = 0, binding = 5) uniform tensorARM<int64_t, 1> m;
layout(set = 0, binding = 6) uniform tensorARM<int64_t, 1> q;

void main() {
    uint i = gl_GlobalInvocationID.x;
    int64_t va, vb, vc;
    tensorReadARM(a, uint[](i), va);
    tensorReadARM(b, uint[](i), vb);
    tensorReadARM(c, uint[](i), vc);
    tensorWriteARM(o, uint[](i), va * vb + vc);
    tensorWriteARM(s, uint[](i), (va >> 3) ^ vb);
    tensorWriteARM(m, uint[](i), va % int64_t(1000003));
    tensorWriteARM(q, uint[](i), va / int64_t(-1000003));
}
