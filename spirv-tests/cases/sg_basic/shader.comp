#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
// Subgroup built-ins, elect and subgroup barriers; 12 words per invocation.
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint wgs = gl_WorkGroupSize.x * gl_WorkGroupSize.y;
    uint i = (gl_WorkGroupID.x * wgs + gl_LocalInvocationIndex) * 12u;
    o[i + 0u] = gl_SubgroupSize;
    o[i + 1u] = gl_SubgroupInvocationID;
    o[i + 2u] = gl_NumSubgroups;
    o[i + 3u] = gl_SubgroupID;
    o[i + 4u] = subgroupElect() ? 1u : 0u;
    subgroupBarrier();
    subgroupMemoryBarrier();
    subgroupMemoryBarrierBuffer();
    o[i + 5u] = gl_SubgroupEqMask.x;
    o[i + 6u] = gl_SubgroupGeMask.x;
    o[i + 7u] = gl_SubgroupGtMask.x;
    o[i + 8u] = gl_SubgroupLeMask.x;
    o[i + 9u] = gl_SubgroupLtMask.x;
    o[i + 10u] = gl_SubgroupEqMask.y | gl_SubgroupGeMask.z | gl_SubgroupLtMask.w | gl_SubgroupGtMask.y;
    if (gl_LocalInvocationIndex % 3u != 0u) {
        o[i + 11u] = subgroupElect() ? 1u : 2u;
    } else {
        o[i + 11u] = 3u;
    }
}
