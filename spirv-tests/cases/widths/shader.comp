#version 450
// + - * / min max select and a float round trip on T, one shader per width (T: the element type).
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer A { T a[]; };
layout(set = 0, binding = 1) buffer B { T b[]; };
layout(set = 0, binding = 2) buffer O { T o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    T x = a[i], y = b[i];
    uint base = i * 8u;
    o[base + 0u] = x + y;
    o[base + 1u] = x - y;
    o[base + 2u] = x * y;
    o[base + 3u] = (y != T(0)) ? x / y : T(0);
    o[base + 4u] = min(x, y);
    o[base + 5u] = max(x, y);
    o[base + 6u] = (x < y) ? x : y;
    o[base + 7u] = T(float(x) * 0.5);
}
