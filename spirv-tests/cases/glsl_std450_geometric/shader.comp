#version 450
// GLSL.std.450 FaceForward, Reflect and Refract on vec3.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer V { float v[]; };
layout(set = 0, binding = 1) readonly buffer E { float eta[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };
vec3 at(uint i) { return vec3(v[i], v[i + 1u], v[i + 2u]); }
void main() {
    uint k = gl_GlobalInvocationID.x;
    vec3 n = at(k * 9u), i = at(k * 9u + 3u), nref = at(k * 9u + 6u);
    vec3 f = faceforward(n, i, nref), r = reflect(i, n), t = refract(i, n, eta[k]);
    uint b = k * 9u;
    o[b] = f.x; o[b + 1u] = f.y; o[b + 2u] = f.z;
    o[b + 3u] = r.x; o[b + 4u] = r.y; o[b + 5u] = r.z;
    o[b + 6u] = t.x; o[b + 7u] = t.y; o[b + 8u] = t.z;
}
