#version 450
// VK_KHR_shader_bfloat16 / VK_EXT_shader_float8: conversions from float32, a bfloat16 dot product,
// a saturating E4M3 conversion, a float8 constant.
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) writeonly buffer B { bfloat16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer C { floate4m3_t c[]; };
layout(set = 0, binding = 3) writeonly buffer D { floate5m2_t d[]; };
layout(set = 0, binding = 4) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    bfloat16_t bv = bfloat16_t(a[i]);
    floate5m2_t dv = floate5m2_t(a[i]);
    b[i] = bv;
    c[i] = floate4m3_t(a[i]);
    d[i] = (i == 63u) ? floate5m2_t(1.5) : dv;
    o[i] = float(bv) + float(dv) * 1000.0;
    bf16vec2 v = bf16vec2(bv, bfloat16_t(2.0));
    o[i + 64u] = float(dot(v, v));
    floate4m3_t s8;
    saturatedConvertEXT(s8, a[i]);
    o[i + 128u] = float(s8);
}
