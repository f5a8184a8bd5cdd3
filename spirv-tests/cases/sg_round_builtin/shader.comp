#version 450
// A subgroup reduction of built-ins at the start of a two-dimensional workgroup, reached
// before any other sync block: its operands' rows are the built-ins' values.
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex + 256u * gl_WorkGroupID.x;
    o[i * 2u] = subgroupAdd(gl_LocalInvocationIndex);
    o[i * 2u + 1u] = subgroupMax(gl_GlobalInvocationID.y * 7u + gl_LocalInvocationID.x);
}
