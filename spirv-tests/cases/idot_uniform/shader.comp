#version 450
// Integer dot products whose operands are the same in every invocation (uniform): OpSDot, OpUDot and OpSUDot on 32- and 8-bit vectors and on packed 4x8 words, beside a varying one
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer I { ivec4 x[]; };
layout(set = 0, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 a = x[0], b = x[1], p = x[2];
    uint k = i * 6u;
    o[k] = dotEXT(a, b);
    o[k + 1u] = int(dotEXT(uvec4(a), uvec4(b)));
    o[k + 2u] = dotPacked4x8EXT(p.x, p.y);
    o[k + 3u] = dotPacked4x8EXT(p.x, uint(p.y));
    o[k + 4u] = int(dotEXT(i8vec4(a), i8vec4(b)));
    o[k + 5u] = dotEXT(x[i + 3u], b);
}
