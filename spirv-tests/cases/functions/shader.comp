#version 450
// Function calls: out and inout parameters, loops in functions, struct results, early returns, a
// function calling another in a loop.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
struct Pair { int a; int b; };
void divmod6(int v, out int q, inout int r) { r = v % 6; q = v / 6; }
uint fact(uint n) { uint f = 1u; for (uint k = 1u; k <= n; k++) f *= k; return f; }
Pair pairOf(int x) { Pair p; p.a = x * 2; p.b = x + 3; return p; }
int clampAdd(int a, int b) {
    int s = a + b;
    if (s > 100) return 100;
    if (s < -100) return -100;
    return s;
}
int thrice(int x) { for (int k = 0; k < 3; k++) x = clampAdd(x, 13); return x; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = int(i) * 7 - 100;
    int q, r = 0;
    divmod6(abs(x), q, r);
    Pair p = pairOf(x);
    uint b = i * 7u;
    o[b] = uint(q); o[b + 1u] = uint(r); o[b + 2u] = fact(i % 8u);
    o[b + 3u] = uint(p.a); o[b + 4u] = uint(p.b);
    o[b + 5u] = uint(clampAdd(x, x)); o[b + 6u] = uint(thrice(x));
}
