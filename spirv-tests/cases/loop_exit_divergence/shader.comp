#version 450
// Lanes that leave loops at different iterations: a sum that every lane still in the loop
// adds alike, left by a break that only odd lanes take (a branch inside the loop decides which
// lanes reach the exit's uniform test), and a search whose early return each lane takes at the
// iteration that finds its key (or never).
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer K { uint keys[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
uint find(uint key) {
    for (uint i = 0u; i < 32u; i++) {
        if (keys[i] == key) {
            return i;
        }
    }
    return 99u;
}
void main() {
    uint l = gl_LocalInvocationID.x;
    uint s = 0u;
    for (uint i = 0u; i < 8u; i++) {
        for (uint j = 0u; j < 2u; j++) {
            s += i;
        }
        if ((l & 1u) != 0u) {
            if (i == 3u) {
                break;
            }
        }
    }
    uint g = gl_GlobalInvocationID.x;
    o[2u * g] = s;
    o[2u * g + 1u] = find(g * 3u);
}
