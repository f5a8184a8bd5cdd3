#version 450
// A dense layer on R32_SFLOAT tensors: y = relu(W·x + b), W rank 2 [rows, cols], x [cols],
// b and y [rows]. One invocation per output row; used by `tessera-demo`.
#extension GL_ARM_tensors : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 2> W;
layout(set = 0, binding = 1) uniform readonly tensorARM<float, 1> x;
layout(set = 0, binding = 2) uniform readonly tensorARM<float, 1> b;
layout(set = 0, binding = 3) uniform writeonly tensorARM<float, 1> y;
void main() {
    uint row = gl_GlobalInvocationID.x;
    uint rows = tensorSizeARM(W, 0);
    uint cols = tensorSizeARM(W, 1);
    if (row >= rows) {
        return;
    }
    float acc;
    tensorReadARM(b, uint[](row), acc);
    for (uint k = 0u; k < cols; k++) {
        float w;
        float v;
        tensorReadARM(W, uint[](row, k), w);
        tensorReadARM(x, uint[](k), v);
        acc += w * v;
    }
    tensorWriteARM(y, uint[](row), max(acc, 0.0));
}
