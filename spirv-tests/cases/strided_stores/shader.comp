#version 450
// Stores of a uvec4 per lane at a stride (every uvec4, and every other one), the second
// workgroup's lanes partly past the buffer's end, where robust access drops the store; then a
// float vec4 per lane from values computed in the shader.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer A { uvec4 a[]; };
layout(set = 0, binding = 1) buffer B { uvec4 b[]; };
layout(set = 0, binding = 2) buffer C { vec4 c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    a[i] = uvec4(i, 3u * i + 1u, 5u * i + 2u, 7u * i + 3u);
    b[2u * i + 1u] = uvec4(100u + i, 200u + i, 300u + i, 400u + i);
    float f = float(i);
    c[i] = vec4(f * 0.5, f + 0.25, -f, f * f);
}
