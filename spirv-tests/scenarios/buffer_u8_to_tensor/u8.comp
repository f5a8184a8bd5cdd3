#version 450
// A storage buffer of bytes (8-bit storage) in, tensors out: o[r][c] = buf[r * 8 + c] ^ 0x5A
// as a uint8 rank-2 tensor, and ids[r][c] = 100 * workgroup index + local invocation index as an
// int32 tensor, with a 4x2 workgroup over a 2x3 dispatch.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require

layout(local_size_x = 4, local_size_y = 2, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer Bytes { uint8_t bytes[]; };
layout(set = 0, binding = 1) uniform tensorARM<uint8_t, 2> o;
layout(set = 0, binding = 2) uniform tensorARM<int, 2> ids;

void main() {
    uint c = gl_GlobalInvocationID.x;
    uint r = gl_GlobalInvocationID.y;
    uint8_t v = bytes[r * tensorSizeARM(o, 1) + c];
    tensorWriteARM(o, uint[](r, c), uint8_t(v ^ uint8_t(0x5A)));
    uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    tensorWriteARM(ids, uint[](r, c), int(100 * wg + gl_LocalInvocationIndex));
}
