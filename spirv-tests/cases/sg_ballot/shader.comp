#version 450
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
// Vote and ballot operations, uniform and divergent; 24 words per invocation.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer I { uint v[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint g = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint i = g * 24u;
    uint x = v[g];
    o[i + 0u] = subgroupAll(x < 1000u) ? 1u : 0u;
    o[i + 1u] = subgroupAny(x == 7u) ? 1u : 0u;
    o[i + 2u] = subgroupAllEqual(x / 64u) ? 1u : 0u;
    o[i + 3u] = subgroupAllEqual(vec2(float(x / 64u), float(x & 0x100u))) ? 1u : 0u;
    uvec4 b = subgroupBallot((x & 1u) != 0u);
    o[i + 4u] = b.x;
    o[i + 5u] = b.y | b.z | b.w;
    o[i + 6u] = subgroupInverseBallot(uvec4(x, 0u, 0u, 0u)) ? 1u : 0u;
    o[i + 7u] = subgroupBallotBitExtract(b, x % 40u) ? 1u : 0u;
    o[i + 8u] = subgroupBallotBitCount(b);
    o[i + 9u] = subgroupBallotInclusiveBitCount(b);
    o[i + 10u] = subgroupBallotExclusiveBitCount(b);
    o[i + 11u] = subgroupBallotFindLSB(b);
    o[i + 12u] = subgroupBallotFindMSB(b);
    o[i + 13u] = subgroupBroadcast(x, 5u);
    o[i + 14u] = subgroupBroadcastFirst(x);
    if (gl_LocalInvocationIndex % 3u != 0u) {
        o[i + 15u] = subgroupAll(x < 1000u) ? 1u : 0u;
        o[i + 16u] = subgroupBallot(true).x;
        uvec4 d = subgroupBallot((x & 1u) != 0u);
        o[i + 17u] = d.x;
        o[i + 18u] = subgroupBallotExclusiveBitCount(d) + 100u * subgroupBallotInclusiveBitCount(d);
        o[i + 19u] = subgroupBroadcastFirst(x);
        o[i + 20u] = subgroupAllEqual(x / 64u) ? 1u : 0u;
        o[i + 21u] = subgroupAny(x == 7u) ? 1u : 0u;
        o[i + 22u] = subgroupElect() ? 1u : 0u;
        o[i + 23u] = subgroupBallotFindMSB(subgroupBallot(true));
    }
}
