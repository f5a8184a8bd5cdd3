#version 450
// Nested loops with continue and break, a switch, an early return, while (true): unoptimised and
// after spirv-opt -O (phis).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
uint f(uint n) {
    uint s = 0u;
    for (uint i = 0u; i < n; i++) {
        for (uint j = 0u; j < i; j++) {
            if (((i + j) & 1u) == 0u) continue;
            s += i * j;
            if (s > 1000u) break;
        }
    }
    return s;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i % 7u == 3u) { o[i] = 12345u; return; }
    uint r = 0u;
    switch (i % 4u) {
        case 0u: r = f(i % 13u); break;
        case 1u: r = 77u; break;
        default: r = i * 3u; break;
    }
    uint k = 0u;
    while (true) { k++; if (k * k > i) break; }
    o[i] = r + k * 1000000u;
}
