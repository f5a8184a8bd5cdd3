#version 450
// Shared memory and barriers: the workgroup's values reversed and a tree sum.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer I { uint inp[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
layout(set = 0, binding = 2) buffer S { uint sums[]; };
shared uint s[64];
shared uint red[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    s[l] = inp[g];
    red[l] = inp[g];
    barrier();
    o[g] = s[63u - l];
    for (uint w = 32u; w > 0u; w >>= 1u) {
        if (l < w) red[l] += red[l + w];
        barrier();
    }
    if (l == 0u) sums[gl_WorkGroupID.x] = red[0];
}
