#version 450
// Pack/Unpack{Snorm,Unorm}{4x8,2x16}, Pack/UnpackDouble2x32 and MatrixInverse of mat2, mat3, mat4.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARB_gpu_shader_fp64 : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer V { vec4 v[]; };
layout(set = 0, binding = 1) readonly buffer W { uint w[]; };
layout(set = 0, binding = 2) writeonly buffer P { uint p[]; };
layout(set = 0, binding = 3) writeonly buffer U { float u[]; };
layout(set = 0, binding = 4) writeonly buffer D { uint d[]; };
layout(set = 0, binding = 5) readonly buffer M { float m[]; };
layout(set = 0, binding = 6) writeonly buffer I { float inv[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = v[i];
    p[i * 4u] = packSnorm4x8(x);
    p[i * 4u + 1u] = packUnorm4x8(x);
    p[i * 4u + 2u] = packSnorm2x16(x.xy);
    p[i * 4u + 3u] = packUnorm2x16(x.zw);
    uint k = w[i];
    vec4 a = unpackSnorm4x8(k);
    vec4 b = unpackUnorm4x8(k);
    vec2 c = unpackSnorm2x16(k);
    vec2 e = unpackUnorm2x16(k);
    uint o = i * 12u;
    u[o] = a.x; u[o + 1u] = a.y; u[o + 2u] = a.z; u[o + 3u] = a.w;
    u[o + 4u] = b.x; u[o + 5u] = b.y; u[o + 6u] = b.z; u[o + 7u] = b.w;
    u[o + 8u] = c.x; u[o + 9u] = c.y; u[o + 10u] = e.x; u[o + 11u] = e.y;
    double dv = packDouble2x32(uvec2(k, k * 2654435761u));
    uvec2 back = unpackDouble2x32(dv);
    d[i * 2u] = back.x; d[i * 2u + 1u] = back.y;
    if (i == 0u) {
        mat2 m2 = mat2(m[0], m[1], m[2], m[3]);
        mat3 m3 = mat3(m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], m[12]);
        mat4 m4;
        for (int cc = 0; cc < 4; cc++)
            for (int r = 0; r < 4; r++)
                m4[cc][r] = m[13 + cc * 4 + r];
        mat2 i2 = inverse(m2);
        mat3 i3 = inverse(m3);
        mat4 i4 = inverse(m4);
        for (int cc = 0; cc < 2; cc++) for (int r = 0; r < 2; r++) inv[cc * 2 + r] = i2[cc][r];
        for (int cc = 0; cc < 3; cc++) for (int r = 0; r < 3; r++) inv[4 + cc * 3 + r] = i3[cc][r];
        for (int cc = 0; cc < 4; cc++) for (int r = 0; r < 4; r++) inv[13 + cc * 4 + r] = i4[cc][r];
    }
}
