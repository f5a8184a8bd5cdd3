#version 450
// Specialization constants: the workgroup size, int, bool and float constants, a constant left at
// its default, a spec-constant expression, a shared array sized by gl_WorkGroupSize.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int K = 3;
layout(constant_id = 2) const bool FLAG = false;
layout(constant_id = 3) const float SCALE = 1.0;
layout(constant_id = 4) const uint OFF = 11u;
const int K2 = K * 2 + 1;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
shared uint lane[gl_WorkGroupSize.x];
void main() {
    uint i = gl_GlobalInvocationID.x;
    lane[gl_LocalInvocationID.x] = gl_LocalInvocationID.x;
    barrier();
    uint k = i * 6u;
    o[k] = uint(int(i) * K2);
    o[k + 1u] = FLAG ? 1000u : 0u;
    o[k + 2u] = gl_WorkGroupSize.x;
    o[k + 3u] = floatBitsToUint(SCALE * float(i));
    o[k + 4u] = OFF;
    o[k + 5u] = lane[gl_LocalInvocationID.x];
}
