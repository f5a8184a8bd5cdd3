#version 450
// Local arrays read at an index that differs from lane to lane: a 40-element float table (a
// variable the JIT keeps in its rows: one row per element, gathered lane by lane), a 24-element
// uint table written at a varying index first, and a 3-element bool array (too small to keep in
// rows: a select per element).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2) writeonly buffer Z { uint z[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float table[40];
    for (int k = 0; k < 40; ++k) {
        table[k] = x[k] * float(k + 1);
    }
    uint ids[24];
    for (int k = 0; k < 24; ++k) {
        ids[k] = uint(k) * 3u;
    }
    ids[(i * 5u) % 24u] = 1000u + i;
    bool flags[3] = bool[3](i % 2u == 0u, i % 3u == 0u, i % 5u == 0u);
    y[i] = table[(i * 7u) % 40u] + (flags[i % 3u] ? 0.5 : 0.0);
    z[i] = ids[(i * 5u) % 24u] + ids[i % 24u];
}
