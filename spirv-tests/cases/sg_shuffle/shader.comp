#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
// Shuffles (absolute, xor, up, down) and quad operations; 20 words per invocation.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer I { uint v[]; };
layout(set = 0, binding = 1) buffer S { uint s[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
void main() {
    uint g = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint i = g * 20u;
    uint x = v[g], id = s[g];
    o[i + 0u] = subgroupShuffle(x, id);
    o[i + 1u] = subgroupShuffleXor(x, 5u);
    o[i + 2u] = subgroupShuffleUp(x, 3u);
    o[i + 3u] = subgroupShuffleDown(x, 3u);
    vec2 f = subgroupShuffle(vec2(float(x), -float(x)), id);
    o[i + 4u] = uint(f.x);
    o[i + 5u] = uint(-f.y);
    o[i + 6u] = subgroupShuffleXor(x, 16u);
    if (gl_LocalInvocationIndex % 3u != 0u) {
        o[i + 7u] = subgroupShuffle(x, id);
        o[i + 8u] = subgroupShuffleXor(x, 1u);
        o[i + 9u] = subgroupShuffleUp(x, 1u);
        o[i + 10u] = subgroupShuffleDown(x, 2u);
    }
    o[i + 11u] = subgroupQuadBroadcast(x, 2u);
    o[i + 12u] = subgroupQuadSwapHorizontal(x);
    o[i + 13u] = subgroupQuadSwapVertical(x);
    o[i + 14u] = subgroupQuadSwapDiagonal(x);
    bool bx = subgroupShuffleDown((x & 1u) != 0u, 1u);
    o[i + 15u] = bx ? 1u : 0u;
}
