#version 450
// One-invocation workgroups on a 3-D grid from a non-zero base (many workgroups share a lane
// group; the grid's rows wrap inside chunks and the last group is partial): every id built-in.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O { uvec4 o[]; };
layout(push_constant) uniform P { uvec3 base; uvec3 count; } p;
void main() {
    uvec3 w = gl_WorkGroupID - p.base;
    uint idx = (w.z * p.count.y + w.y) * p.count.x + w.x;
    o[idx * 3u + 0u] = uvec4(gl_WorkGroupID, gl_LocalInvocationIndex);
    o[idx * 3u + 1u] = uvec4(gl_GlobalInvocationID, gl_LocalInvocationID.x);
    o[idx * 3u + 2u] = uvec4(gl_NumWorkGroups, 7u);
}
