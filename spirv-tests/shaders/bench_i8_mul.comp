#version 450
// c = a * b (wrapping) on rank-4 int8_t tensors [d0, d1, d2, d3]. One invocation per element;
// dispatch (d3 / 256, d2, d0 * d1).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<int8_t, 4> a;
layout(set = 0, binding = 1) uniform readonly tensorARM<int8_t, 4> b;
layout(set = 0, binding = 2) uniform writeonly tensorARM<int8_t, 4> c;
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint z = gl_GlobalInvocationID.z;
    uint d1 = tensorSizeARM(a, 1);
    if (x >= tensorSizeARM(a, 3) || y >= tensorSizeARM(a, 2) || z >= tensorSizeARM(a, 0) * d1) {
        return;
    }
    uint at[4] = uint[4](z / d1, z % d1, y, x);
    int8_t va;
    int8_t vb;
    tensorReadARM(a, at, va);
    tensorReadARM(b, at, vb);
    tensorWriteARM(c, at, int8_t(va * vb));
}
