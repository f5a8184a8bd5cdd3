#version 450
// GLSL.std.450 maths on float: trigonometry, exponentials, logarithms, pow, sqrt, roundEven,
// round, mix, step, smoothstep, fma, length, normalize, distance.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i], y = b[i];
    float c = clamp(x / 3.0, -1.0, 1.0);
    float r[28] = float[28](sin(x), cos(x), tan(x / 4.0), asin(c), acos(c), atan(x),
        atan(x, y), sinh(x / 2.0), tanh(x), exp(x), exp2(x), log(y),
        log2(y), pow(y, x), sqrt(y), inversesqrt(y), roundEven(x), round(x * 1.1),
        mix(x, y, 0.25), step(0.5, x), smoothstep(-1.0, 1.0, x), fma(x, y, 1.0),
        length(vec2(x, y)), normalize(vec2(x, y)).x, radians(x * 30.0), degrees(x),
        asinh(x), distance(vec2(x, 1.0), vec2(0.0)));
    for (int k = 0; k < 28; k++) o[i * 28u + uint(k)] = r[k];
}
