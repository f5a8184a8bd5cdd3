#version 450
// Optimal-tiling tensors (int, float16, uint8; ranks 2 to 4) read and written next to a padded
// linear one.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 3> src;
layout(set = 0, binding = 1) uniform tensorARM<float16_t, 2> half_out;
layout(set = 0, binding = 2) uniform tensorARM<uint8_t, 4> byte_out;
layout(set = 0, binding = 3) uniform tensorARM<int, 3> lin_out;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= 120u) return;
    uint c[3] = uint[3](i / 30u, (i / 6u) % 5u, i % 6u);
    int x;
    tensorReadARM(src, c, x);
    uint h[2] = uint[2](i / 20u, i % 20u);
    tensorWriteARM(half_out, h, float16_t(float(x) * 0.5));
    uint b[4] = uint[4](i / 60u, (i / 20u) % 3u, (i / 5u) % 4u, i % 5u);
    tensorWriteARM(byte_out, b, uint8_t(x & 255));
    tensorWriteARM(lin_out, c, x * 3 - 7);
}
