#version 450
// Conversions between float, int, uint, 8/16/64-bit integers, float16 and double, and bitcasts;
// every result stored as its 32-bit pattern.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer F { float f[]; };
layout(set = 0, binding = 1) readonly buffer I { int iv[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    float x = f[k];
    int i = iv[k];
    uint u = uint(i);
    uint b = k * 16u;
    o[b + 0u] = (abs(x) < 2147483648.0) ? uint(int(x)) : 0u;
    o[b + 1u] = (x >= 0.0 && x < 4294967296.0) ? uint(x) : 0u;
    o[b + 2u] = floatBitsToUint(float(i));
    o[b + 3u] = floatBitsToUint(float(u));
    o[b + 4u] = uint(int(int8_t(i)));
    o[b + 5u] = uint(uint8_t(i));
    o[b + 6u] = uint(int(int16_t(i)));
    o[b + 7u] = uint(uint16_t(i));
    o[b + 8u] = uint(int(int64_t(i) * 3l));
    o[b + 9u] = uint((uint64_t(u) * 65537ul) >> 16);
    o[b + 10u] = (abs(x) < 60000.0) ? floatBitsToUint(float(float16_t(x))) : 0u;
    o[b + 11u] = floatBitsToUint(float(double(x) * 3.0lf));
    o[b + 12u] = floatBitsToUint(x);
    o[b + 13u] = uint(floatBitsToInt(intBitsToFloat(i ^ int(0x80000000u))));
    o[b + 14u] = floatBitsToUint(float(double(i) / 4.0lf));
    o[b + 15u] = uint(int64_t(double(x) * 2.0lf));
}
