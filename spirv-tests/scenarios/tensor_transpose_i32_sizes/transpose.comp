#version 450
// Rank-2 int32 transpose whose bounds come from tensorSizeARM; the 8x8 workgroups overhang the
// 5x7 input, so the guard matters. Invocation (0,0) also records the four extents in a uint32
// tensor.
#extension GL_ARM_tensors : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> src;
layout(set = 0, binding = 1) uniform tensorARM<int, 2> dst;
layout(set = 0, binding = 2) uniform tensorARM<uint, 1> sizes;

void main() {
    uint r = gl_GlobalInvocationID.y;
    uint c = gl_GlobalInvocationID.x;
    if (r == 0 && c == 0) {
        tensorWriteARM(sizes, uint[](0), tensorSizeARM(src, 0));
        tensorWriteARM(sizes, uint[](1), tensorSizeARM(src, 1));
        tensorWriteARM(sizes, uint[](2), tensorSizeARM(dst, 0));
        tensorWriteARM(sizes, uint[](3), tensorSizeARM(dst, 1));
    }
    if (r >= tensorSizeARM(src, 0) || c >= tensorSizeARM(src, 1)) {
        return;
    }
    int v;
    tensorReadARM(src, uint[](r, c), v);
    tensorWriteARM(dst, uint[](c, r), v * 3 - int(r));
}
