#version 450
// Coordinates that the class analysis cannot prove affine but that form runs at run time: a
// row read from a buffer, clamped columns (min), a column run of 4-element arrays (read and
// written) and one that wraps past 2^32, and a read under a branch only odd lanes take. A chunk whose lanes form one run in bounds takes the vector path; a chunk
// with a clamped or odd lane, a run past the edge or a wrapped coordinate takes
// the general path. Views packed and with padded rows.
#extension GL_ARM_tensors : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<int, 2> src;
layout(set = 0, binding = 1) uniform writeonly tensorARM<int, 2> dst;
layout(set = 0, binding = 2) readonly buffer Rows { uint rows[]; };
layout(set = 0, binding = 3) writeonly buffer O { int o[]; };
layout(set = 0, binding = 4) uniform writeonly tensorARM<int, 2> runs;
void main() {
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint lane = y * 128u + x;
    uint r = rows[lane];
    uint cx = min(x, 69u);
    int v;
    tensorReadARM(src, uint[](r, cx), v, gl_TensorOperandsOutOfBoundsValueARM, -7);
    int run[4];
    tensorReadARM(src, uint[](r, min(x, 20u) * 4u), run, gl_TensorOperandsOutOfBoundsValueARM, -8);
    int w;
    tensorReadARM(src, uint[](r, min(x, 1000u) + 0xFFFFFFF8u), w, gl_TensorOperandsOutOfBoundsValueARM, -9);
    int odd = -6;
    if ((x & 1u) != 0u) {
        tensorReadARM(src, uint[](r, cx), odd, gl_TensorOperandsOutOfBoundsValueARM, -6);
    }
    uint k = lane * 7u;
    o[k] = v;
    o[k + 1u] = run[0]; o[k + 2u] = run[1]; o[k + 3u] = run[2]; o[k + 4u] = run[3];
    o[k + 5u] = w;
    o[k + 6u] = odd;
    tensorWriteARM(dst, uint[](r, cx), v + 1000);
    tensorWriteARM(runs, uint[](r, min(x, 20u) * 4u), int[4](run[0] + 1, run[1] + 2, run[2] + 3, run[3] + 4));
}
