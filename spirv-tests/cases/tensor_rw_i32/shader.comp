#version 450
// int rank-3 tensors (packed source, padded destination): tensorReadARM, tensorWriteARM of x * 3 +
// 1 (wrapping), tensorSizeARM.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<int, 3> dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(src, 1), d2 = tensorSizeARM(src, 2);
    if (i >= tensorSizeARM(src, 0) * d1 * d2) return;
    uint c[3] = uint[3](i / (d1 * d2), (i / d2) % d1, i % d2);
    int x;
    tensorReadARM(src, c, x);
    tensorWriteARM(dst, c, int(x * int(3) + int(1)));
}
