#version 450
// Workgroup size (spec constants 0-2) and shared-memory words (spec constant 3) chosen at pipeline
// creation: the device's compute limits tests.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SHARED_WORDS = 1;

shared uint scratch[SHARED_WORDS];

layout(set = 0, binding = 0) buffer Out {
    uint v[];
} o;

void main() {
    scratch[gl_LocalInvocationIndex % SHARED_WORDS] = gl_LocalInvocationIndex;
    barrier();
    o.v[gl_LocalInvocationIndex] = scratch[0];
}
