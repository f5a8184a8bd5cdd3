#version 450
// transpose(mat4), outerProduct(vec2, vec2), determinant of mat3 and mat4.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer M { mat4 m[]; };
layout(set = 0, binding = 1) readonly buffer V { vec4 v[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };
uint at = 0u;
void put(float x) { o[gl_GlobalInvocationID.x * 22u + at] = x; at++; }
void main() {
    uint k = gl_GlobalInvocationID.x;
    mat4 M = m[k];
    vec4 V = v[k];
    mat4 t = transpose(M);
    for (int c = 0; c < 4; c++) for (int r = 0; r < 4; r++) put(t[c][r]);
    mat2 op = outerProduct(V.xy, V.zw);
    put(op[0][0]); put(op[0][1]); put(op[1][0]); put(op[1][1]);
    put(determinant(mat3(M)));
    put(determinant(M));
}
