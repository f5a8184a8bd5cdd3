#version 450
// An array of three tensors of different shapes indexed by a push constant and non-uniformly;
// reads, writes and sizes.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint idx; } pc;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t[3];
layout(set = 0, binding = 1) writeonly buffer O { int o[]; };
layout(set = 0, binding = 2) writeonly buffer S { uint s[]; };
layout(set = 0, binding = 3) writeonly buffer N { int nu[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint c[2] = uint[2](i / 4u, i % 4u);
    int v;
    tensorReadARM(t[pc.idx], c, v, gl_TensorOperandsOutOfBoundsValueARM, -1);
    o[i] = v;
    uint nx = (pc.idx + 1u) % 3u;
    tensorWriteARM(t[nx], c, v == -1 ? -2 : v * 2);
    if (i == 0u) {
        s[0] = tensorSizeARM(t[pc.idx], 0); s[1] = tensorSizeARM(t[pc.idx], 1);
        s[2] = tensorSizeARM(t[nx], 0); s[3] = tensorSizeARM(t[nx], 1);
    }
    uint e[2] = uint[2](0u, 1u);
    int w;
    tensorReadARM(t[nonuniformEXT(i % 2u)], e, w);
    nu[i] = w;
}
