#version 450
// dst[r][c] = src[r][c] * 3 on rank-2 R32_UINT tensors; also reads past the end of `src`
// (out-of-bounds value 77) into a buffer, for the compute end-to-end tests.
#extension GL_ARM_tensors : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<uint, 2> src;
layout(set = 0, binding = 1) uniform writeonly tensorARM<uint, 2> dst;
layout(set = 0, binding = 2) buffer Oob { uint v[]; } oob;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint rows = tensorSizeARM(src, 0);
    uint cols = tensorSizeARM(src, 1);
    if (i == 0u) {
        uint past;
        tensorReadARM(src, uint[](rows, 0u), past, gl_TensorOperandsOutOfBoundsValueARM, 77u);
        oob.v[0] = past;
        oob.v[1] = rows;
        oob.v[2] = cols;
    }
    if (i >= rows * cols) {
        return;
    }
    uint r = i / cols;
    uint c = i % cols;
    uint v;
    tensorReadARM(src, uint[](r, c), v);
    tensorWriteARM(dst, uint[](r, c), v * 3u);
}
