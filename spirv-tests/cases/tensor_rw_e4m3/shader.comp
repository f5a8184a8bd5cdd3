#version 450
// floate4m3_t rank-3 tensors (packed source, padded destination): read, convert through float,
// write.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_ARM_tensors_bfloat16 : require
#extension GL_ARM_tensors_float_e4m3 : require
#extension GL_ARM_tensors_float_e5m2 : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<floate4m3_t, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<floate4m3_t, 3> dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(src, 1), d2 = tensorSizeARM(src, 2);
    if (i >= tensorSizeARM(src, 0) * d1 * d2) return;
    uint c[3] = uint[3](i / (d1 * d2), (i / d2) % d1, i % d2);
    floate4m3_t x;
    tensorReadARM(src, c, x);
    tensorWriteARM(dst, c, floate4m3_t(float(x) * 2.0 - 1.0));
}
