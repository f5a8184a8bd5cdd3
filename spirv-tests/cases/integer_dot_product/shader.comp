#version 450
// SPV_KHR_integer_dot_product: OpSDot, OpUDot, OpSUDot and their AccSat forms on vectors and
// packed 4x8 words.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer I { ivec4 x[]; };
layout(set = 0, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 a = x[i * 3u], b = x[i * 3u + 1u];
    ivec4 p = x[i * 3u + 2u];  // p.x, p.y: packed 4x8 words; p.z: accumulator
    uint k = i * 10u;
    o[k] = dotEXT(a, b);
    o[k + 1u] = int(dotEXT(uvec4(a), uvec4(b)));
    o[k + 2u] = dotAccSatEXT(a, b, p.z);
    o[k + 3u] = int(dotAccSatEXT(uvec4(a), uvec4(b), uint(p.z)));
    o[k + 4u] = dotPacked4x8EXT(p.x, p.y);
    o[k + 5u] = int(dotPacked4x8EXT(uint(p.x), uint(p.y)));
    o[k + 6u] = dotPacked4x8EXT(p.x, uint(p.y));
    o[k + 7u] = dotPacked4x8AccSatEXT(p.x, p.y, p.z);
    o[k + 8u] = int(dotEXT(i8vec4(a), i8vec4(b)));
    o[k + 9u] = int(dotAccSatEXT(i16vec4(a), i16vec4(b), int16_t(p.z)));
}
