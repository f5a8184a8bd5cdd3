#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#ifdef I64
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#endif
#ifdef I8
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#endif
#ifdef I16
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#endif
#ifdef F16
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
// Arithmetic reductions and scans of T (INT set for integer types); NOUT values per invocation.
// Values: a[g] (add/min/max/bitwise) and m[g] (multiply).
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer A { T a[]; };
layout(set = 0, binding = 1) buffer M { T m[]; };
layout(set = 0, binding = 2) buffer O { T o[]; };
layout(set = 0, binding = 3) buffer B { uint ob[]; };
#define NOUT 40u
void main() {
    uint g = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint i = g * NOUT;
    T x = a[g], y = m[g];
    o[i + 0u] = subgroupAdd(x);
    o[i + 1u] = subgroupMul(y);
    o[i + 2u] = subgroupMin(x);
    o[i + 3u] = subgroupMax(x);
    o[i + 4u] = subgroupInclusiveAdd(x);
    o[i + 5u] = subgroupInclusiveMul(y);
    o[i + 6u] = subgroupInclusiveMin(x);
    o[i + 7u] = subgroupInclusiveMax(x);
    o[i + 8u] = subgroupExclusiveAdd(x);
    o[i + 9u] = subgroupExclusiveMul(y);
    o[i + 10u] = subgroupExclusiveMin(x);
    o[i + 11u] = subgroupExclusiveMax(x);
    o[i + 12u] = subgroupClusteredAdd(x, 4u);
    o[i + 13u] = subgroupClusteredMax(x, 8u);
    o[i + 14u] = subgroupClusteredMul(y, 2u);
    o[i + 15u] = subgroupClusteredMin(x, 1u);
    o[i + 16u] = subgroupClusteredAdd(x, 32u);
    tvec2 v = subgroupInclusiveAdd(tvec2(x, y));
    o[i + 17u] = v.x;
    o[i + 18u] = v.y;
    if (gl_LocalInvocationIndex % 3u != 0u) {
        o[i + 19u] = subgroupAdd(x);
        o[i + 20u] = subgroupInclusiveAdd(x);
        o[i + 21u] = subgroupExclusiveAdd(x);
        o[i + 22u] = subgroupExclusiveMin(x);
        o[i + 23u] = subgroupInclusiveMax(x);
        o[i + 24u] = subgroupMul(y);
        o[i + 25u] = subgroupClusteredAdd(x, 4u);
        o[i + 26u] = subgroupExclusiveMul(y);
#ifdef INT
        o[i + 27u] = subgroupAnd(x);
        o[i + 28u] = subgroupExclusiveOr(x);
        o[i + 29u] = subgroupInclusiveXor(x);
#endif
    }
#ifdef INT
    o[i + 30u] = subgroupAnd(x);
    o[i + 31u] = subgroupOr(x);
    o[i + 32u] = subgroupXor(x);
    o[i + 33u] = subgroupInclusiveAnd(x);
    o[i + 34u] = subgroupInclusiveOr(x);
    o[i + 35u] = subgroupExclusiveXor(x);
    o[i + 36u] = subgroupClusteredXor(x, 16u);
    bool p = (x & T(3)) != T(0);
    ob[g * 4u + 0u] = subgroupAnd(p) ? 1u : 0u;
    ob[g * 4u + 1u] = subgroupInclusiveOr(x == T(3)) ? 1u : 0u;
    ob[g * 4u + 2u] = subgroupExclusiveXor(p) ? 1u : 0u;
    ob[g * 4u + 3u] = subgroupClusteredAnd(p, 4u) ? 1u : 0u;
#endif
}
