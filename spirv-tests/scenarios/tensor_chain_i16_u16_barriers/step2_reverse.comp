#version 450
// Step 2 of 3 (after a tensor barrier on t): u = uint16(t reversed along every axis) * 3,
// so each invocation reads an element another workgroup wrote.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 4, local_size_y = 4, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int16_t, 3> t;
layout(set = 0, binding = 1) uniform tensorARM<uint16_t, 3> u;

void main() {
    uint c[3] = uint[](gl_GlobalInvocationID.z, gl_GlobalInvocationID.y, gl_GlobalInvocationID.x);
    // (tensorSizeARM needs a constant dimension, so no loop here.)
    uint r[3] = uint[](tensorSizeARM(t, 0) - 1u - c[0], tensorSizeARM(t, 1) - 1u - c[1],
                       tensorSizeARM(t, 2) - 1u - c[2]);
    int16_t v;
    tensorReadARM(t, r, v);
    tensorWriteARM(u, c, uint16_t(uint16_t(v) * uint16_t(3)));
}
