#version 450
// Step 1 of 3: t = a + 7 (int16, rank 3).
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 4, local_size_y = 4, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int16_t, 3> a;
layout(set = 0, binding = 1) uniform tensorARM<int16_t, 3> t;

void main() {
    uint c[3] = uint[](gl_GlobalInvocationID.z, gl_GlobalInvocationID.y, gl_GlobalInvocationID.x);
    int16_t v;
    tensorReadARM(a, c, v);
    tensorWriteARM(t, c, int16_t(v + int16_t(7)));
}
