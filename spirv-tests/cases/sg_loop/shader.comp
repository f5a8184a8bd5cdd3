#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// Subgroup operations inside a loop with per-lane trip counts and after an early return.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint l = gl_LocalInvocationIndex;
    uint g = gl_WorkGroupID.x * gl_WorkGroupSize.x + l;
    uint acc = 0u;
    for (uint k = 0u; k < l % 5u; k++) {
        acc += subgroupAdd(1u) * 100u + subgroupBallotBitCount(subgroupBallot(true));
    }
    o[g * 2u] = acc;
    if (l % 7u == 3u) {
        return;
    }
    o[g * 2u + 1u] = subgroupBallot(true).x;
}
