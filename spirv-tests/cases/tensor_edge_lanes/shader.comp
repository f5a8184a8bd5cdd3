#version 450
// Chunks that run past a tensor's edge, every lane's elements checked on its own: reads of one
// element and of runs of three and two (with an out-of-bounds value and without), a read and a
// write at coordinates no affine formula gives ((x * 7) % 53), writes of runs of two, and a
// whole row out of bounds.
#extension GL_ARM_tensors : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> src;
layout(set = 0, binding = 1) uniform tensorARM<int, 2> runs;
layout(set = 0, binding = 2) uniform tensorARM<int, 2> scattered;
layout(set = 0, binding = 3) writeonly buffer O { int o[]; };
void main() {
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](y, x);
    int one;
    tensorReadARM(src, c, one, gl_TensorOperandsOutOfBoundsValueARM, -100);
    int run[3];
    tensorReadARM(src, c, run);
    int pair[2];
    tensorReadARM(src, c, pair, gl_TensorOperandsOutOfBoundsValueARM, -5);
    uint g[2] = uint[2](y, (x * 7u) % 53u);
    int gathered;
    tensorReadARM(src, g, gathered, gl_TensorOperandsOutOfBoundsValueARM, -9);
    uint k = (y * 48u + x) * 7u;
    o[k] = one;
    o[k + 1u] = run[0]; o[k + 2u] = run[1]; o[k + 3u] = run[2];
    o[k + 4u] = pair[0]; o[k + 5u] = pair[1];
    o[k + 6u] = gathered;
    if (x % 2u == 0u) {
        uint w[2] = uint[2](y, x);
        tensorWriteARM(runs, w, int[2](int(x * 10u + y), int(x * 10u + y) + 1000));
    }
    tensorWriteARM(scattered, g, int(y * 100u + x));
}
