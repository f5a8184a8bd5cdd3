#version 450
// mat4 * vec4, vec4 * mat4, mat3 * mat3, cross, dot, matrixCompMult, swizzles, length, matrix *
// scalar (std430 column-major matrices).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer M { mat4 m[]; };
layout(set = 0, binding = 1) readonly buffer V { vec4 v[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };
uint at = 0u;
void put(float x) { o[gl_GlobalInvocationID.x * 34u + at] = x; at++; }
void main() {
    uint k = gl_GlobalInvocationID.x;
    mat4 M = m[k];
    vec4 V = v[k];
    vec4 mv = M * V;
    vec4 vm = V * M;
    mat3 m3 = mat3(M);
    mat3 mm = m3 * m3;
    for (int i = 0; i < 4; i++) put(mv[i]);
    for (int i = 0; i < 4; i++) put(vm[i]);
    for (int c = 0; c < 3; c++) for (int r = 0; r < 3; r++) put(mm[c][r]);
    vec3 cr = cross(V.xyz, mv.xyz);
    put(cr.x); put(cr.y); put(cr.z);
    put(dot(V, mv));
    mat2 cm = matrixCompMult(mat2(M[0].xy, M[1].xy), mat2(M[2].zw, M[3].zw));
    put(cm[0][0]); put(cm[0][1]); put(cm[1][0]); put(cm[1][1]);
    vec4 sw = V.wyxz * 2.0 + V.xxyy;
    put(sw.x); put(sw.y); put(sw.z); put(sw.w);
    put(length(V));
    vec4 half_mv = (M * 0.5) * V;
    for (int i = 0; i < 4; i++) put(half_mv[i]);
}
