#version 450
// Array reads and writes of 4 elements along the innermost dimension, straddling its end, with and
// without an out-of-bounds value.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> a;
layout(set = 0, binding = 1) uniform tensorARM<uint8_t, 2> b;
layout(set = 0, binding = 2) uniform tensorARM<int, 2> wa;
layout(set = 0, binding = 3) uniform tensorARM<uint8_t, 2> wb;
layout(set = 0, binding = 4) writeonly buffer OI { int oi[]; };
layout(set = 0, binding = 5) writeonly buffer OU { uint8_t ou[]; };
void main() {
    uint g = gl_GlobalInvocationID.x, r = gl_GlobalInvocationID.y;
    uint c[2] = uint[2](r, g * 4u);
    int vi[4];
    tensorReadARM(a, c, vi, gl_TensorOperandsOutOfBoundsValueARM, -1);
    uint8_t vu[4];
    tensorReadARM(b, c, vu);
    uint base = (r * gl_NumWorkGroups.x + g) * 4u;
    for (uint k = 0u; k < 4u; k++) {
        oi[base + k] = vi[k];
        ou[base + k] = vu[k];
        vi[k] += 1000;
        vu[k] ^= uint8_t(0x5A);
    }
    tensorWriteARM(wa, c, vi);
    tensorWriteARM(wb, c, vu);
}
