#version 450
// Out-of-bounds reads (OOB value or zero) and writes (dropped) on a padded 3x5 tensor probed on an
// 8x4 grid.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t;
layout(set = 0, binding = 1) buffer Out { int data[]; } o;
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](y, x);
    int v;
    tensorReadARM(t, c, v, gl_TensorOperandsOutOfBoundsValueARM, -7);
    int w;
    tensorReadARM(t, c, w);
    o.data[(y * 8u + x) * 2u] = v;
    o.data[(y * 8u + x) * 2u + 1u] = w;
    tensorWriteARM(t, c, int(100 + y * 8u + x));
}
