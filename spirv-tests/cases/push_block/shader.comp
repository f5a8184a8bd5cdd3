#version 450
// A push-constant block of uint, float and uvec2.
layout(local_size_x = 4) in;
layout(push_constant) uniform P { uint a; float b; uvec2 c; } pc;
layout(set = 0, binding = 0) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = float(pc.a + i) * pc.b + float(pc.c.y);
}
