#version 450
// Never terminates unless v[0] == 12345; every iteration meets the workgroup at two barriers
// (in the JIT, barrier rounds within one call): the JIT watchdog test's shader.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    while (v[0] != 12345u) {
        s[l] += 1u;
        barrier();
        v[1u + gl_GlobalInvocationID.x] = s[l];
        barrier();
    }
}
