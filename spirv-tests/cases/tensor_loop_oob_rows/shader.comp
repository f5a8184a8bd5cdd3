#version 450
// A dense-layer-shaped loop whose reads leave their tensors: lanes are rows of a 5x8 tensor (rows
// 5.. are out of bounds), the loop counter is the column and runs past 8, and a rank-1 read at
// the counter (uniform) runs past its 8 elements too. Out-of-bounds reads give 0.
#extension GL_ARM_tensors : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<int, 2> W;
layout(set = 0, binding = 1) uniform readonly tensorARM<int, 1> x;
layout(set = 0, binding = 2) writeonly buffer O { int o[]; };
void main() {
    uint row = gl_GlobalInvocationID.x;
    int acc = 0;
    [[dont_unroll]] for (uint k = 0u; k < 10u; k++) {
        int w;
        int v;
        tensorReadARM(W, uint[](row, k), w);
        tensorReadARM(x, uint[](k), v);
        acc += w * int(k + 1u) + v * 1000;
    }
    o[row] = acc;
}
