#version 450
// One invocation per row of a rank-2 int tensor W: a loop over the row's columns folds W[row, k]
// into an order-sensitive hash; at k == 20 (and k == 37) it writes W[row, k + 3], which the same
// loop reads three iterations later. The JIT reads W[row, k] through a tile (a 16×16 block
// loaded once per 16 columns, `crates/jit/src/codegen/tile.rs`): the write must empty it, or
// the read at k + 3 sees the old value. Dispatch (rows / 32 rounded up, 1, 1).
#extension GL_ARM_tensors : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> W;
layout(set = 0, binding = 1) buffer Out { int v[]; } o;
void main() {
    uint row = gl_GlobalInvocationID.x;
    uint rows = tensorSizeARM(W, 0);
    uint cols = tensorSizeARM(W, 1);
    if (row >= rows) {
        return;
    }
    int acc = 7;
    for (uint k = 0u; k < cols; k++) {
        int w;
        tensorReadARM(W, uint[](row, k), w);
        acc = acc * 31 + w;
        if (k == 20u || k == 37u) {
            tensorWriteARM(W, uint[](row, k + 3u), w + 1000);
        }
    }
    o.v[row] = acc;
}
