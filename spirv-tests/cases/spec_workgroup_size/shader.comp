#version 450
// Specialization constants: the workgroup size, an int and a bool, and a spec-constant expression,
// at their defaults and set.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int K = 3;
layout(constant_id = 2) const bool FLAG = false;
const int K2 = K * 2 + 1;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = i * uint(K2) + (FLAG ? 1000u : 0u) + gl_WorkGroupSize.x * 100000u;
}
