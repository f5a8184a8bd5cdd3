#version 450
// Ordered and unordered float compares (NaN, signed zero, infinity), signed and unsigned integer
// compares, select, mix with a bool vector, any/all.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer FA { float fa[]; };
layout(set = 0, binding = 1) readonly buffer FB { float fb[]; };
layout(set = 0, binding = 2) readonly buffer IA { int ia[]; };
layout(set = 0, binding = 3) readonly buffer IB { int ib[]; };
layout(set = 0, binding = 4) writeonly buffer O { uint o[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    float x = fa[k], y = fb[k];
    int p = ia[k], q = ib[k];
    uint up = uint(p), uq = uint(q);
    bool f[17] = bool[17](x < y, x <= y, x > y, x >= y, x == y, x != y,
                          p < q, p <= q, p > q, p >= q, p == q, p != q,
                          up < uq, up <= uq, up > uq, up >= uq, isnan(x));
    uint bits = 0u;
    for (int j = 0; j < 17; j++) {
        bits |= f[j] ? (1u << uint(j)) : 0u;
    }
    uint b = k * 6u;
    o[b + 0u] = bits;
    o[b + 1u] = uint(x < y ? p : q);
    ivec2 m = mix(ivec2(q, int(uq)), ivec2(p, int(up)), bvec2(p < q, up < uq));
    o[b + 2u] = uint(m.x);
    o[b + 3u] = uint(m.y);
    // Signed compare of the sign-flipped bits == unsigned compare.
    bvec2 lt = lessThan(ivec2(p, int(up ^ 0x80000000u)), ivec2(q, int(uq ^ 0x80000000u)));
    o[b + 4u] = (any(lt) ? 1u : 0u) | (all(lt) ? 2u : 0u);
    o[b + 5u] = uint((p < q || p > q) ? max(p, q) : 77);
}
