#version 450
// Workgroup shared memory and barrier(): each 64-invocation workgroup handles one row of a
// uint32 rank-2 tensor, writes the row reversed through shared memory, and tree-reduces the
// row's sum (wrapping) into a rank-1 uint32 tensor.
#extension GL_ARM_tensors : require

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform tensorARM<uint, 2> src;
layout(set = 0, binding = 1) uniform tensorARM<uint, 2> rev;
layout(set = 0, binding = 2) uniform tensorARM<uint, 1> sums;

shared uint row_vals[64];
shared uint partial[64];

void main() {
    uint row = gl_WorkGroupID.x;
    uint i = gl_LocalInvocationID.x;
    uint v;
    tensorReadARM(src, uint[](row, i), v);
    row_vals[i] = v;
    partial[i] = v;
    barrier();
    tensorWriteARM(rev, uint[](row, i), row_vals[63u - i]);
    for (uint stride = 32u; stride > 0u; stride >>= 1) {
        if (i < stride) {
            partial[i] += partial[i + stride];
        }
        barrier();
    }
    if (i == 0u) {
        tensorWriteARM(sums, uint[](row), partial[0]);
    }
}
