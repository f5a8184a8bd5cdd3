#version 450
// binary16 conversions of values every lane shares (push constants, a buffer element at a
// constant index): f32 -> f16 rounds to nearest even, f16 -> f32 is exact; then the same
// conversions of per-lane values, and a mix of both.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(push_constant) uniform P { float scale; float16_t bias; } p;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer H { float16_t h[]; };
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 3) writeonly buffer Z { float16_t z[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t s = float16_t(p.scale);          // uniform f32 -> f16
    float b = float(p.bias);                   // uniform f16 -> f32
    float first = float(h[0]);                 // uniform f16 -> f32 (a buffer load)
    float16_t lane = float16_t(x[i]);          // varying f32 -> f16
    y[4u * i + 0u] = float(s);
    y[4u * i + 1u] = b + first;
    y[4u * i + 2u] = float(lane) + float(h[i]);
    y[4u * i + 3u] = float(float16_t(x[0]) * s);
    z[i] = lane * s + p.bias;
}
