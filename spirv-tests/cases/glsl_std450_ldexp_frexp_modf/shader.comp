#version 450
// GLSL.std.450 Ldexp, FrexpStruct and ModfStruct on float (exact results).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    int e;
    float m = frexp(x, e);
    float ip;
    float fr = modf(x, ip);
    o[i * 6u] = floatBitsToUint(ldexp(x, 3));
    o[i * 6u + 1u] = floatBitsToUint(ldexp(x, -2));
    o[i * 6u + 2u] = floatBitsToUint(m);
    o[i * 6u + 3u] = uint(e);
    o[i * 6u + 4u] = floatBitsToUint(fr);
    o[i * 6u + 5u] = floatBitsToUint(ip);
}
