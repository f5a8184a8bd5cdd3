#version 450
// Never terminates unless v[0] == 12345: the watchdog test's shader.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    while (v[0] != 12345u) {
        v[1u + i] += 1u;
    }
}
