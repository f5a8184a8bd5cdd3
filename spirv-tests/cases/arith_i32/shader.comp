#version 450
// int arithmetic, shifts, bitwise ops, min/max/abs/clamp, division and remainder by zero and
// INT_MIN / -1.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { int a[]; };
layout(set = 0, binding = 1) buffer B { int b[]; };
layout(set = 0, binding = 2) buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    uint base = i * 16u;
    o[base + 0u] = x + y;
    o[base + 1u] = x - y;
    o[base + 2u] = x * y;
    o[base + 3u] = x / y;
    o[base + 4u] = x % y;
    o[base + 5u] = x << (y & 31);
    o[base + 6u] = x >> (y & 31);
    o[base + 7u] = int(uint(x) >> uint(y & 31));
    o[base + 8u] = x & y;
    o[base + 9u] = x | y;
    o[base + 10u] = x ^ y;
    o[base + 11u] = ~x;
    o[base + 12u] = min(x, y);
    o[base + 13u] = max(x, y);
    o[base + 14u] = abs(x);
    o[base + 15u] = clamp(x, -5, 5) + int(uint(x) / uint(y)) * 0 + ((x < y) ? 1000 : -1000);
}
