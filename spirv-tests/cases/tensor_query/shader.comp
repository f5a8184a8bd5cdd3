#version 450
// tensorSizeARM of every dimension of a rank-RANK tensor.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<T, RANK> t;
layout(set = 0, binding = 1) buffer Out { uint data[]; } o;
void main() {
    o.data[0] = tensorSizeARM(t, 0);
#if RANK > 1
    o.data[1] = tensorSizeARM(t, 1);
#endif
#if RANK > 2
    o.data[2] = tensorSizeARM(t, 2);
#endif
#if RANK > 3
    o.data[3] = tensorSizeARM(t, 3);
#endif
#if RANK > 4
    o.data[4] = tensorSizeARM(t, 4);
#endif
#if RANK > 5
    o.data[5] = tensorSizeARM(t, 5);
#endif
#if RANK > 6
    o.data[6] = tensorSizeARM(t, 6);
#endif
#if RANK > 7
    o.data[7] = tensorSizeARM(t, 7);
#endif
}
