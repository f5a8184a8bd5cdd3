#version 450
// A std140 uniform block: scalars, vec2/vec3 alignment, a float array and a struct array at
// 16-byte strides, a mat3, an ivec4; the padding is poisoned.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
struct S { int i; vec2 p; };
layout(std140, set = 0, binding = 0) uniform U {
    float f; vec2 v2; vec3 v3; float g; float arr[3]; mat3 m; S s[2]; ivec4 iv;
} u;
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };
void main() {
    uint k = 0u;
    o[k++] = u.f; o[k++] = u.v2.x; o[k++] = u.v2.y;
    o[k++] = u.v3.x; o[k++] = u.v3.y; o[k++] = u.v3.z; o[k++] = u.g;
    for (int j = 0; j < 3; j++) o[k++] = u.arr[j];
    for (int c = 0; c < 3; c++) for (int r = 0; r < 3; r++) o[k++] = u.m[c][r];
    for (int j = 0; j < 2; j++) { o[k++] = float(u.s[j].i); o[k++] = u.s[j].p.x; o[k++] = u.s[j].p.y; }
    for (int j = 0; j < 4; j++) o[k++] = float(u.iv[j]);
}
