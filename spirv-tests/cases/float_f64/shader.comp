#version 450
// double arithmetic: + - * / negate mod min max abs floor ceil fract trunc sign clamp.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A { double a[]; };
layout(set = 0, binding = 1) readonly buffer B { double b[]; };
layout(set = 0, binding = 2) writeonly buffer O { double o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    double x = a[i];
    double y = b[i];
    uint k = i * 16u;
    o[k + 0u] = x + y;
    o[k + 1u] = x - y;
    o[k + 2u] = x * y;
    o[k + 3u] = x / y;
    o[k + 4u] = -x;
    o[k + 5u] = mod(x, y);
    o[k + 6u] = min(x, y);
    o[k + 7u] = max(x, y);
    o[k + 8u] = abs(x);
    o[k + 9u] = floor(x);
    o[k + 10u] = ceil(x);
    o[k + 11u] = fract(x);
    o[k + 12u] = trunc(x);
    o[k + 13u] = sign(x);
    o[k + 14u] = clamp(x, double(-10), double(10));
    o[k + 15u] = x * y + x;
}
