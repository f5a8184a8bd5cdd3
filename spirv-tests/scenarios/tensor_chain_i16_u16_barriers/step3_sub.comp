#version 450
// Step 3 of 3 (after a global memory barrier): o = int16(u) - a.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 4, local_size_y = 4, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<uint16_t, 3> u;
layout(set = 0, binding = 1) uniform tensorARM<int16_t, 3> a;
layout(set = 0, binding = 2) uniform tensorARM<int16_t, 3> o;

void main() {
    uint c[3] = uint[](gl_GlobalInvocationID.z, gl_GlobalInvocationID.y, gl_GlobalInvocationID.x);
    uint16_t vu;
    int16_t va;
    tensorReadARM(u, c, vu);
    tensorReadARM(a, c, va);
    tensorWriteARM(o, c, int16_t(int16_t(vu) - va));
}
