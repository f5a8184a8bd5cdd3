#version 450
// Subgroup scans, broadcasts, shuffles and quad operations with constant lane operands in
// uniform control flow, each a sync block compiled code computes in its own round for every
// lane: inclusive and exclusive integer and float scans (the exclusive ones start from the
// operation's identity), broadcasts of the first and of a constant lane, shuffles by xor, up
// and down (their undefined lanes not stored), quad broadcast and swaps, and shuffles whose
// lane operand varies.
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer U { uint u[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
layout(set = 0, binding = 3) writeonly buffer P { float p[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint lane = gl_SubgroupInvocationID;
    uint x = u[i];
    float y = f[i];
    o[i * 12u + 0u] = subgroupInclusiveAdd(x);
    o[i * 12u + 1u] = subgroupExclusiveAdd(x);
    o[i * 12u + 2u] = subgroupExclusiveMin(x);
    o[i * 12u + 3u] = subgroupBroadcastFirst(x);
    o[i * 12u + 4u] = subgroupBroadcast(x, 5u);
    o[i * 12u + 5u] = subgroupShuffleXor(x, 16u) + subgroupShuffleXor(x, 1u) * 3u;
    uint up = subgroupShuffleUp(x, 3u);
    o[i * 12u + 6u] = lane >= 3u ? up : 7u;
    uint down = subgroupShuffleDown(x, 4u);
    o[i * 12u + 7u] = lane < 28u ? down : 9u;
    o[i * 12u + 8u] = subgroupQuadBroadcast(x, 2u);
    o[i * 12u + 9u] = subgroupQuadSwapHorizontal(x) ^ (subgroupQuadSwapDiagonal(x) << 4u);
    o[i * 12u + 10u] = subgroupShuffle(x, (lane * 7u) % 32u);
    uint dn = subgroupShuffleDown(x, lane & 1u);
    o[i * 12u + 11u] = subgroupShuffleXor(x, lane & 3u) + (lane < 31u ? dn : 0u);
    p[i * 3u + 0u] = subgroupInclusiveAdd(y);
    p[i * 3u + 1u] = subgroupExclusiveMul(y);
    p[i * 3u + 2u] = subgroupBroadcast(y, 31u);
}
