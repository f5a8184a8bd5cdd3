#version 450
// Rank-4 int8 tensors: o_sum = a + b, o_prod = a * b (both wrap modulo 2^8).
// The 3-D dispatch covers dims [W, H, N*C]; invocations outside the tensor return early.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 4, local_size_y = 2, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int8_t, 4> a;
layout(set = 0, binding = 1) uniform tensorARM<int8_t, 4> b;
layout(set = 0, binding = 2) uniform tensorARM<int8_t, 4> o_sum;
layout(set = 0, binding = 3) uniform tensorARM<int8_t, 4> o_prod;

void main() {
    uint d1 = tensorSizeARM(a, 1);
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint nc = gl_GlobalInvocationID.z;
    if (x >= tensorSizeARM(a, 3) || y >= tensorSizeARM(a, 2) || nc >= tensorSizeARM(a, 0) * d1) {
        return;
    }
    uint coords[4] = uint[](nc / d1, nc % d1, y, x);
    int8_t va, vb;
    tensorReadARM(a, coords, va);
    tensorReadARM(b, coords, vb);
    tensorWriteARM(o_sum, coords, int8_t(va + vb));
    tensorWriteARM(o_prod, coords, int8_t(va * vb));
}
