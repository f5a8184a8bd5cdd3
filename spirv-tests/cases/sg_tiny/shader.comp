#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// Tiny workgroups (fused by the interpreter) must each be their own subgroup; 6 words each.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint l = gl_LocalInvocationIndex;
    uint i = (gl_WorkGroupID.x * gl_WorkGroupSize.x + l) * 6u;
    o[i + 0u] = subgroupAdd(l + 1u);
    o[i + 1u] = subgroupBallot(true).x;
    o[i + 2u] = subgroupBroadcastFirst(gl_WorkGroupID.x);
    o[i + 3u] = subgroupMax(gl_WorkGroupID.x * 1000u + l);
    o[i + 4u] = subgroupExclusiveAdd(1u);
    o[i + 5u] = gl_SubgroupInvocationID + 100u * gl_NumSubgroups;
}
