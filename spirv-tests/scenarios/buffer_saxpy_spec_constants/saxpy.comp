#version 450
// Storage buffers only, with specialization constants: the scale A (float), the element
// count N (uint) and the workgroup size (local_size_x_id). out = A * x + y for i < N,
// and out[i] = -1 past N (the buffers hold 80 floats, N = 70).

layout(local_size_x_id = 2) in;
layout(constant_id = 0) const float A = 1.0;
layout(constant_id = 1) const uint N = 1;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer Y { float y[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= o.length()) {
        return;
    }
    o[i] = i < N ? A * x[i] + y[i] : -1.0;
}
