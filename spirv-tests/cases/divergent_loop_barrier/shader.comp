#version 450
// Lanes leave a loop at different iterations, then meet at a barrier: unoptimised and after spirv-
// opt -O.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint acc = 0u;
    for (uint k = 0u; k < l; k++) {
        acc += k;
        if (acc > 500u) break;
    }
    if (l % 5u == 1u) {
        acc += 7u;
    } else {
        acc *= 2u;
    }
    s[l] = acc;
    barrier();
    o[gl_GlobalInvocationID.x] = s[63u - l];
}
