#version 450
// sums[r] = sum of row r of a rank-2 R32_SFLOAT tensor. One 256-invocation workgroup per row:
// each invocation sums a strided slice of the row, then a shared-memory tree reduction.
// Dispatch (rows, 1, 1).
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 2> src;
layout(set = 0, binding = 1) buffer Sums { float v[]; } sums;
shared float partial[256];
void main() {
    uint r = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    uint cols = tensorSizeARM(src, 1);
    float acc = 0.0;
    for (uint x = lane; x < cols; x += 256u) {
        float v;
        tensorReadARM(src, uint[](r, x), v);
        acc += v;
    }
    partial[lane] = acc;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
        if (lane < s) {
            partial[lane] += partial[lane + s];
        }
        barrier();
    }
    if (lane == 0u) {
        sums.v[r] = partial[0];
    }
}
