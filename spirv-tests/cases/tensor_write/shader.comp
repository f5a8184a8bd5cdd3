#version 450
// tensorWriteARM of every element of a T tensor of rank RANK (packed and padded) from a buffer.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform writeonly tensorARM<T, RANK> t;
layout(set = 0, binding = 1) buffer In { T data[]; } i_;
layout(push_constant) uniform P { uint dims[8]; } pc;
void main() {
    uint idx = gl_GlobalInvocationID.x;
    uint coords[RANK];
    uint rem = idx;
    for (int i = RANK - 1; i >= 0; --i) { uint d = pc.dims[i]; coords[i] = rem % d; rem /= d; }
    tensorWriteARM(t, coords, i_.data[idx]);
}
