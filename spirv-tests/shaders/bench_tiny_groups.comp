#version 450
// One invocation per workgroup, each writing one element of a rank-1 R32_UINT tensor:
// out[i] = i * 3 + 1 with i the linear workgroup index. Dispatch (W, H, 1) with W * H elements.
#extension GL_ARM_tensors : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform writeonly tensorARM<uint, 1> dst;
void main() {
    uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    tensorWriteARM(dst, uint[](i), i * 3u + 1u);
}
