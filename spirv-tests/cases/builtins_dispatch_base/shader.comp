#version 450
// Invocation, workgroup and size built-ins on a 2x3x2 workgroup, dispatched from a non-zero base.
layout(local_size_x = 2, local_size_y = 3, local_size_z = 2) in;
layout(set = 0, binding = 0) buffer O { uvec4 o[]; };
void main() {
    uvec3 g = gl_GlobalInvocationID;
    uint idx = ((g.z * 6u + g.y) * 6u + g.x);
    o[idx * 4u + 0u] = uvec4(gl_LocalInvocationID, gl_LocalInvocationIndex);
    o[idx * 4u + 1u] = uvec4(gl_WorkGroupID, 0u);
    o[idx * 4u + 2u] = uvec4(gl_NumWorkGroups, 0u);
    o[idx * 4u + 3u] = uvec4(gl_WorkGroupSize, 1u);
}
