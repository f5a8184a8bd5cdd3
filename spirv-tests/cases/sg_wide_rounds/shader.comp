#version 450
// Subgroup operations on 8-, 16- and 64-bit integers, halves, doubles and booleans, votes,
// ballots and ballot bit counts, a shuffle of 64-bit values by a lane each invocation names, in
// uniform control flow: each one a round of compiled code (every lane of the workgroup at the
// operation, computed from the rows in lane order).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
layout(set = 0, binding = 2) writeonly buffer Out64 { uint64_t o64[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    uint k = i * 18u;
    uint n64 = gl_NumWorkGroups.x * 64u * 4u;
    float16_t h = float16_t(float(x % 1000u) * 0.01 - 4.0);
    int8_t x8 = int8_t(x);
    int16_t x16 = int16_t(x * 37u);
    uint64_t x64 = uint64_t(x) * 0x100000001ul;
    double d = double(int(x % 64u) - 32) * 0.5;
    bool p = (x & 3u) != 0u;
    o[k + 0u] = uint(int(subgroupAdd(x8)));
    o[k + 1u] = uint(int(subgroupInclusiveMax(x16)));
    o[k + 2u] = uint(int(subgroupClusteredMin(x8, 4u)));
    o[k + 3u] = uint(subgroupAnd(p));
    o[k + 4u] = uint(subgroupOr(x == 7u));
    o[k + 5u] = uint(subgroupInclusiveXor(p));
    o[k + 6u] = uint(subgroupElect());
    o[k + 7u] = uint(subgroupAll(p)) + 2u * uint(subgroupAny(p));
    o[k + 8u] = uint(subgroupAllEqual(x & 1u)) + 2u * uint(subgroupAllEqual(x / 1000000u));
    uvec4 b = subgroupBallot(p);
    o[k + 9u] = b.x;
    o[k + 10u] = subgroupBallotBitCount(b);
    o[k + 11u] = subgroupBallotInclusiveBitCount(b);
    o[k + 12u] = subgroupBallotExclusiveBitCount(b);
    o[k + 13u] = uint(subgroupInverseBallot(uvec4(x, 0u, 0u, 0u)));
    o[k + 14u] = uint(subgroupShuffleXor(x16, 5u));
    o[k + 15u] = uint(int(subgroupAdd(d) * 2.0));
    o[k + 16u] = uint(float16BitsToUint16(subgroupInclusiveAdd(h)));
    o[k + 17u] = uint(float16BitsToUint16(subgroupExclusiveMin(h))) | (uint(float16BitsToUint16(subgroupMul(h))) << 16);
    o64[i * 4u + 0u] = subgroupExclusiveAdd(x64);
    o64[i * 4u + 1u] = subgroupClusteredMax(x64 ^ 0xF0F0F0F0F0F0F0F0ul, 8u);
    o64[i * 4u + 2u] = subgroupShuffleXor(x64, 3u);
    o64[i * 4u + 3u] = doubleBitsToUint64(subgroupMax(d));
    o64[n64 + i] = subgroupShuffle(x64, (x >> 3) & 31u);
}
