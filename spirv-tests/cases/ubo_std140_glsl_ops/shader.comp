#version 450
// A std140 uniform block (mat4, vec4, float array, vec3 + float) and a few GLSL.std.450
// operations.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform U { mat4 m; vec4 v; float arr[3]; vec3 p; float q; } u;
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
void main() {
    o[0] = u.m * u.v + vec4(u.arr[1]);
    o[1] = vec4(u.p, u.q) + vec4(dot(u.v, u.v), length(u.p), sqrt(16.0), floor(-1.5));
    o[2] = vec4(clamp(u.q, 0.0, 1.0), mix(1.0, 3.0, 0.5), fma(2.0, 3.0, 1.0), pow(2.0, u.arr[2]));
}
