#version 450
// VK_EXT_shader_float8 encodings of a[i] (f32) and h[i] (f16): E4M3 and E5M2, rounded to nearest
// even and saturated, into o[8 i ..]. The JIT's encoders are checked against the interpreter's on
// every f32 pattern class and every f16 pattern (crates/jit/tests/float_bits.rs).
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer H { float16_t h[]; };
layout(set = 0, binding = 2) writeonly buffer O4 { floate4m3_t o4[]; };
layout(set = 0, binding = 3) writeonly buffer O5 { floate5m2_t o5[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float16_t y = h[i];
    o4[4u * i + 0u] = floate4m3_t(x);
    o4[4u * i + 1u] = floate4m3_t(y);
    saturatedConvertEXT(o4[4u * i + 2u], x);
    saturatedConvertEXT(o4[4u * i + 3u], y);
    o5[4u * i + 0u] = floate5m2_t(x);
    o5[4u * i + 1u] = floate5m2_t(y);
    saturatedConvertEXT(o5[4u * i + 2u], x);
    saturatedConvertEXT(o5[4u * i + 3u], y);
}
