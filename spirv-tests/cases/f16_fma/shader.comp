#version 460
// GLSL.std.450 Fma on float16_t: varying operands, and a uniform multiplier with a constant addend (one f32 fused multiply-add of the widened operands, rounded once to binary16)
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer C { float16_t c[]; };
layout(set = 0, binding = 3) writeonly buffer D { float16_t d[]; };
layout(set = 0, binding = 4) writeonly buffer E { float16_t e[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    d[i] = fma(a[i], b[i], c[i]);
    e[i] = fma(a[i], b[0], float16_t(0.375));
}
