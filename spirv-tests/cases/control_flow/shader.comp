#version 450
// for with break and continue, switch with fallthrough and default, nested if/else, while, do-
// while.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint acc = 0u;
    for (uint j = 0u; j < 20u; j++) {
        if (j == i % 7u + 9u) break;
        if (j % 3u == 0u) continue;
        acc += j * (i % 5u + 1u);
    }
    uint sw = 0u;
    switch (i % 6u) {
        case 0u: sw = 10u; break;
        case 1u: sw = 1u;
        case 2u: sw += 20u + i % 6u; break;
        case 3u: sw = 30u; break;
        default: sw = 99u; break;
    }
    uint nest;
    if (i % 2u == 0u) {
        if (i % 4u == 0u) nest = 1u; else nest = 2u;
    } else if (i % 3u == 0u) {
        nest = 3u;
    } else {
        nest = i > 30u ? 4u : 5u;
    }
    uint w = i;
    uint steps = 0u;
    while (w != 1u && steps < 50u) {
        w = (w % 2u == 0u) ? w / 2u : 3u * w + 1u;
        steps++;
    }
    uint d = 0u;
    do { d += 3u; } while (d <= i);
    uint b = i * 5u;
    o[b] = acc; o[b + 1u] = sw; o[b + 2u] = nest; o[b + 3u] = steps; o[b + 4u] = d;
}
