#version 450
// c[r][x] = a[r][x] + b[r][x] on rank-2 float16_t tensors. One invocation per element;
// dispatch (cols / 256, rows, 1).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float16_t, 2> a;
layout(set = 0, binding = 1) uniform readonly tensorARM<float16_t, 2> b;
layout(set = 0, binding = 2) uniform writeonly tensorARM<float16_t, 2> c;
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint r = gl_GlobalInvocationID.y;
    if (x >= tensorSizeARM(a, 1) || r >= tensorSizeARM(a, 0)) {
        return;
    }
    float16_t va;
    float16_t vb;
    tensorReadARM(a, uint[](r, x), va);
    tensorReadARM(b, uint[](r, x), vb);
    tensorWriteARM(c, uint[](r, x), va + vb);
}
