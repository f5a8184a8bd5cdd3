#version 450
// Out-of-bounds tensor reads (with an OOB value or zero) and writes (dropped) on a padded 3x5
// tensor, including huge coordinates.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t;
layout(set = 0, binding = 1) uniform tensorARM<float, 2> f;
layout(set = 0, binding = 2) writeonly buffer O { int o[]; };
layout(set = 0, binding = 3) writeonly buffer OF { float of[]; };
layout(set = 0, binding = 4) writeonly buffer H { int h[]; };
void main() {
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](y, x);
    int v, w;
    tensorReadARM(t, c, v, gl_TensorOperandsOutOfBoundsValueARM, -7);
    tensorReadARM(t, c, w);
    float fv, fw;
    tensorReadARM(f, c, fv, gl_TensorOperandsOutOfBoundsValueARM, 1.5);
    tensorReadARM(f, c, fw);
    uint k = (y * 8u + x) * 2u;
    o[k] = v; o[k + 1u] = w;
    of[k] = fv; of[k + 1u] = fw;
    tensorWriteARM(t, c, int(100u + y * 8u + x));
    if (x == 0u && y == 0u) {
        int a;
        uint big[2] = uint[2](0xFFFFFFFFu, 0u);
        tensorReadARM(t, big, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[0] = a;
        uint big2[2] = uint[2](0u, 0x80000000u);
        tensorReadARM(t, big2, a); h[1] = a;
        uint edge[2] = uint[2](3u, 0u);
        tensorReadARM(t, edge, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[2] = a;
        uint edge2[2] = uint[2](0u, 5u);
        tensorReadARM(t, edge2, a, gl_TensorOperandsOutOfBoundsValueARM, -7); h[3] = a;
        tensorWriteARM(t, big, 12345);
        tensorWriteARM(t, big2, 12345);
    }
}
