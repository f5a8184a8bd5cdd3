#version 450
// int arithmetic in a storage buffer: + - * / % negate min max abs clamp.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { int a[]; };
layout(set = 0, binding = 1) readonly buffer B { int b[]; };
layout(set = 0, binding = 2) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i];
    int y = b[i];
    uint k = i * 10u;
    o[k + 0u] = x + y;
    o[k + 1u] = x - y;
    o[k + 2u] = x * y;
    o[k + 3u] = x / y;
    o[k + 4u] = x % y;
    o[k + 5u] = -x;
    o[k + 6u] = min(x, y);
    o[k + 7u] = max(x, y);
    o[k + 8u] = abs(x);
    o[k + 9u] = clamp(x, int(-1073741824), int(1073741823));
}
