#version 450
// GLSL.std.450's float16_t functions of a[i] (and b[i]) into o[33 i ..]: the JIT's
// transcendental functions and short formulas are checked against the interpreter's, bit for
// bit, on every bit pattern (crates/jit/tests/float_bits.rs).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer O { float16_t o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t x = a[i];
    float16_t y = b[i];
    float16_t r[33] = float16_t[33](sin(x), cos(x), tan(x), asin(x), acos(x), atan(x),
        atan(x, y), sinh(x), cosh(x), tanh(x), asinh(x), acosh(x), atanh(x), exp(x), exp2(x), log(x),
        log2(x), pow(x, y), inversesqrt(x), fract(x), sign(x), round(x), radians(x),
        degrees(x), mod(x, y), step(y, x), mix(x, y, float16_t(0.375)),
        smoothstep(x, y, float16_t(0.25)), sqrt(x), floor(x), ceil(x), trunc(x),
        roundEven(x));
    for (uint k = 0u; k < 33u; k++) {
        o[33u * i + k] = r[k];
    }
}
