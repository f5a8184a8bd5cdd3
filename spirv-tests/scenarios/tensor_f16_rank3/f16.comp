#version 450
// Rank-3 float16 tensors: o_h = a * b + a computed in float16 (rounded after each op),
// o_f = float(a) - float(b) written to a float32 tensor.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 8, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<float16_t, 3> a;
layout(set = 0, binding = 1) uniform tensorARM<float16_t, 3> b;
layout(set = 0, binding = 2) uniform tensorARM<float16_t, 3> o_h;
layout(set = 0, binding = 3) uniform tensorARM<float, 3> o_f;

void main() {
    uint coords[3] = uint[](gl_WorkGroupID.z, gl_WorkGroupID.y, gl_GlobalInvocationID.x);
    float16_t va, vb;
    tensorReadARM(a, coords, va);
    tensorReadARM(b, coords, vb);
    float16_t p = va * vb;
    tensorWriteARM(o_h, coords, float16_t(p + va));
    tensorWriteARM(o_f, coords, float(va) - float(vb));
}
