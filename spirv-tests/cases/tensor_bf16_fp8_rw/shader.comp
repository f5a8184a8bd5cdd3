#version 450
// bfloat16, float8 E4M3 and E5M2 tensors: every encoding read and converted to float, doubled and
// written back.
#extension GL_ARM_tensors : require
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_float_e4m3 : require
#extension GL_ARM_tensors_bfloat16 : require
#extension GL_ARM_tensors_float_e4m3 : require
#extension GL_ARM_tensors_float_e5m2 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<bfloat16_t, 1> a;
layout(set = 0, binding = 1) uniform tensorARM<floate4m3_t, 1> b;
layout(set = 0, binding = 2) uniform tensorARM<floate5m2_t, 1> c;
layout(set = 0, binding = 3) buffer Out { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint co[1] = uint[1](i);
    bfloat16_t x; floate4m3_t y; floate5m2_t z;
    tensorReadARM(a, co, x);
    tensorReadARM(b, co, y);
    tensorReadARM(c, co, z);
    o[i * 3u + 0u] = float(x);
    o[i * 3u + 1u] = float(y);
    o[i * 3u + 2u] = float(z);
    tensorWriteARM(a, co, bfloat16_t(float(x) * 2.0));
    tensorWriteARM(b, co, floate4m3_t(float(y) * 2.0));
    tensorWriteARM(c, co, floate5m2_t(float(z) * 2.0));
}
