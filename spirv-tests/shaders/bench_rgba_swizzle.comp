#version 450
// RGBA -> BGRA on rank-3 uint8_t tensors [H, W, 4]: per pixel one 4-element array read of the
// channels and one 4-element array write. One invocation per pixel; dispatch (W / 256, H, 1).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<uint8_t, 3> src;
layout(set = 0, binding = 1) uniform writeonly tensorARM<uint8_t, 3> dst;
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= tensorSizeARM(src, 1) || y >= tensorSizeARM(src, 0)) {
        return;
    }
    uint8_t px[4];
    tensorReadARM(src, uint[](y, x, 0u), px);
    uint8_t swapped[4] = uint8_t[4](px[2], px[1], px[0], px[3]);
    tensorWriteARM(dst, uint[](y, x, 0u), swapped);
}
