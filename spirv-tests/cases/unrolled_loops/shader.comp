#version 450
// Counted loops that lowering writes out (counting down with a signed test, steps of 3, a loop
// that never runs, a counter read after its loop, a uint counter that wraps, nested loops with a
// varying branch inside, an array indexed by the counters and at run-time indices in between)
// and loops it keeps (a break, an inner bound from the outer counter, [[dont_unroll]], 20 trips).
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer I { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint r[8];
    for (int k = 7; k >= 0; --k) {
        r[k] = a[(i + uint(k)) % 64u] * uint(k + 1);
    }
    uint s = 0u;
    for (uint k = 1u; k <= 10u; k += 3u) {
        s += r[k % 8u] ^ k;
    }
    uint never = 5u;
    for (; never < 5u; ++never) {
        s += 1000u;
    }
    uint after = 0u;
    uint m;
    for (m = 0u; m < 3u; ++m) {
        after += m;
    }
    uint t = 0u;
    for (uint n = 0u; n < 3u; ++n) {
        for (uint j = 0u; j < 2u; ++j) {
            if ((a[i % 64u] + n + j) % 3u == 0u) {
                t += r[n * 2u + j];
            } else {
                t ^= n * 16u + j;
            }
        }
    }
    uint u = 0u;
    for (uint n = 0u; n < 4u; ++n) {
        for (uint j = 0u; j < n; ++j) {
            u += r[(n + j) % 8u] >> j;
        }
    }
    uint b = 0u;
    for (uint n = 0u; n < 8u; ++n) {
        if (r[n] > 1500u) {
            break;
        }
        b += r[n];
    }
    uint w = 0u;
    for (uint k = 0xFFFFFFFEu; k != 2u; ++k) {
        w = w * 3u + k;
    }
    uint d = 0u;
    [[dont_unroll]] for (uint k = 0u; k < 4u; ++k) {
        d += r[k] * k;
    }
    uint big = 0u;
    for (uint k = 0u; k < 20u; ++k) {
        big += k * a[(i + k) % 64u];
    }
    for (uint k = 0u; k < 2u; ++k) {
        r[a[(i + k) % 64u] % 8u] += k + 1u;
    }
    uint base = i * 10u;
    o[base] = s;
    o[base + 1u] = after + m * 100u + never * 1000u;
    o[base + 2u] = t;
    o[base + 3u] = u;
    o[base + 4u] = b;
    o[base + 5u] = w;
    o[base + 6u] = d;
    o[base + 7u] = big;
    o[base + 8u] = r[0] + r[3] * 2u + r[7] * 3u;
    o[base + 9u] = r[1] ^ r[6];
}
