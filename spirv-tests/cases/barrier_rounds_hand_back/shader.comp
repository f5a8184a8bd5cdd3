#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// A tree reduction whose rounds compiled code runs within one call (barrier rounds: every chunk
// yields at the same barrier, then all of them go on), with a divergent if/else between two
// barriers of one round: those chunks go back to the interpreter in the middle of the round,
// and the chunks after them must continue where they wait, not start again.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
// How many times each invocation ran the start of main (1: nothing ran twice).
layout(set = 0, binding = 2) buffer Starts { uint starts[]; };
shared uint s[128];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_WorkGroupID.x;
    starts[gl_GlobalInvocationID.x] += 1u;
    s[l] = v[gl_GlobalInvocationID.x];
    barrier();
    uint extra = 0u;
    for (uint step = 64u; step > 0u; step >>= 1) {
        if (l < step) {
            s[l] += s[l + step] * (step == 16u ? 3u : 1u);
        }
        barrier();
        if (step == 8u) {
            // (The widening of `5 - l` wraps below zero in the first chunk's lanes: compiled
            // code hands that chunk back here. The shift makes it 0.)
            uint x = s[l] + uint(uint64_t(5u - l) >> 33);
            if (l % 3u == 0u) {
                o[gl_GlobalInvocationID.x] = x * 7u;
            } else {
                o[gl_GlobalInvocationID.x] = x + 5u;
            }
            extra = x;
        }
        barrier();
    }
    o[128u * gl_NumWorkGroups.x + gl_GlobalInvocationID.x] = extra;
    if (l == 0u) {
        o[256u * gl_NumWorkGroups.x + g] = s[0];
    }
}
