#version 450
// A switch whose lanes pick different cases in every chunk: a case with several literals, a
// case that falls into the next (a store both run), a default, a nested if inside a case, a
// case that only some chunks take, and a switch on a signed selector with a negative literal.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
layout(set = 0, binding = 1) buffer S { uint s[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = 0u;
    switch (i % 7u) {
        case 0u:
            v = i * 3u;
            break;
        case 1u:
        case 4u:
            v = 100u + i;
            s[i] = s[i] + 7u;
            break;
        case 2u:
            if (i % 2u == 0u) {
                v = 200u;
            } else {
                v = 201u;
            }
            break;
        case 5u:
            v = 500u - i;
        case 6u:
            s[i] = s[i] + 1u;
            v += 1u;
            break;
        default:
            v = 9u;
            break;
    }
    int small = int(i % 5u) - 2;
    uint w = 0u;
    switch (small) {
        case -2: w = 1u; break;
        case 1: w = 2u; break;
        default: w = 3u; break;
    }
    uint late = 0u;
    switch (i / 100u) {
        case 1u: late = i; break;
        default: break;
    }
    o[i * 3u] = v;
    o[i * 3u + 1u] = w;
    o[i * 3u + 2u] = late;
}
