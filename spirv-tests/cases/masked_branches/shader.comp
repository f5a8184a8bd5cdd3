#version 450
// Divergent if/else with values merged at the join, the way compiled code runs them under masks:
// a diamond assigning a local from both arms, a triangle assigning a float, a triangle that
// stores, all on inputs whose lanes disagree within every 16 lanes.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) readonly buffer B { uint b[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
layout(set = 0, binding = 3) buffer P { uint p[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i];
    uint y = b[i];
    uint r = 7u + gl_WorkGroupID.x;
    if (x < y) {
        r = x + y;
    } else {
        r = y - x * r;
    }
    float f = 1.0;
    if ((x & 1u) == 0u) {
        f = float(x) * 0.5;
    }
    if (x > y) {
        p[i] = r;
    }
    o[i] = r ^ floatBitsToUint(f);
}
