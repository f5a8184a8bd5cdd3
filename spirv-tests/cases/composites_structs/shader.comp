#version 450
// std430 structs with vec3, arrays and uvec2 members read and written whole; local arrays and
// vector components indexed dynamically.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
struct S { vec3 p; int id; float w[3]; uvec2 q; };
struct R { vec3 a; uint b; float c; float d; int id2; uint qq; };
layout(set = 0, binding = 0) readonly buffer In { S s[]; };
layout(set = 0, binding = 1) writeonly buffer Out { R r[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    S x = s[k];
    float arr[5];
    for (int j = 0; j < 5; j++) arr[j] = x.p[j % 3] * float(j);
    R y;
    y.c = arr[(k * 3u) % 5u];
    vec3 v = x.p;
    y.d = v[k % 3u];
    v[(k + 1u) % 3u] = x.w[0] + x.w[1];
    y.a = v;
    y.b = x.q.x + x.q.y;
    y.id2 = x.id * 2;
    y.qq = x.q[k % 2u];
    r[k] = y;
}
