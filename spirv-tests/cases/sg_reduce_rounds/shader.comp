#version 450
// Subgroup reductions in uniform control flow, each a sync block that compiled code computes
// in its own round for every lane (no trip through the driver): integer add, multiply,
// unsigned and signed min and max, and, or, xor, clustered forms of 4, 8 and 16 lanes, and
// float add, multiply, min and max (folded in lane order: the same bits as the interpreter).
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer U { uint u[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
layout(set = 0, binding = 3) writeonly buffer P { float p[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = u[i];
    int s = int(x) - 1000;
    float y = f[i];
    o[i * 8u + 0u] = subgroupAdd(x);
    o[i * 8u + 1u] = subgroupMul(x | 1u);
    o[i * 8u + 2u] = subgroupMin(x);
    o[i * 8u + 3u] = uint(subgroupMax(s));
    o[i * 8u + 4u] = subgroupAnd(x) ^ (subgroupOr(x) << 1u) ^ (subgroupXor(x) << 2u);
    o[i * 8u + 5u] = subgroupClusteredAdd(x, 4u);
    o[i * 8u + 6u] = uint(subgroupClusteredMin(s, 8u));
    o[i * 8u + 7u] = subgroupClusteredXor(x, 16u) + subgroupMax(x);
    p[i * 4u + 0u] = subgroupAdd(y);
    p[i * 4u + 1u] = subgroupMul(y);
    p[i * 4u + 2u] = subgroupMin(y);
    p[i * 4u + 3u] = subgroupClusteredMax(y, 8u) + subgroupClusteredAdd(y, 2u);
}
