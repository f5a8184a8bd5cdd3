#version 450
// A std430 push-constant block: uint, int, float, vec4 and a uint array.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint a; int b; float c; vec4 v; uint arr[3]; } pc;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = i * 5u;
    o[k] = pc.a + i;
    o[k + 1u] = uint(pc.b * int(i));
    o[k + 2u] = floatBitsToUint(pc.c * float(i));
    o[k + 3u] = floatBitsToUint(pc.v[i % 4u] * pc.c);
    o[k + 4u] = pc.arr[i % 3u] * i;
}
