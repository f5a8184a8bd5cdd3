#version 450
// dst[x][y] = src[y][x] on rank-2 R32_SFLOAT tensors (dst has the swapped shape).
// 16x16 invocations per workgroup; dispatch (cols / 16, rows / 16, 1).
#extension GL_ARM_tensors : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 2> src;
layout(set = 0, binding = 1) uniform writeonly tensorARM<float, 2> dst;
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= tensorSizeARM(src, 1) || y >= tensorSizeARM(src, 0)) {
        return;
    }
    float v;
    tensorReadARM(src, uint[](y, x), v);
    tensorWriteARM(dst, uint[](x, y), v);
}
