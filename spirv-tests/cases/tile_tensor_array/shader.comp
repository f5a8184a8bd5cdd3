#version 450
// A loop reading w[k & 1][row, k] (one lane per row, the loop counter innermost: a read the JIT
// serves from a tile) through an array of two tensors of one shape indexed by the counter:
// each iteration reads its own tensor, never the other's elements from a tile.
#extension GL_ARM_tensors : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> w[2];
layout(set = 0, binding = 1) buffer O { int o[]; };
void main() {
    uint row = gl_GlobalInvocationID.x;
    int acc = 0;
    for (uint k = 0u; k < 32u; k++) {
        int v;
        tensorReadARM(w[k & 1u], uint[2](row, k), v);
        acc = acc * 3 + v;
    }
    o[row] = acc;
}
