#version 450
// Rank-2 float32 tensors with push constants: o = alpha * x + beta * y[row] (y is a rank-1
// tensor broadcast along the columns); `row_offset` shifts the row index read from y.
#extension GL_ARM_tensors : require

layout(local_size_x = 8, local_size_y = 4, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<float, 2> x;
layout(set = 0, binding = 1) uniform tensorARM<float, 1> y;
layout(set = 0, binding = 2) uniform tensorARM<float, 2> o;

layout(push_constant) uniform Params {
    float alpha;
    float beta;
    uint row_offset;
} pc;

void main() {
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (row >= tensorSizeARM(x, 0) || col >= tensorSizeARM(x, 1)) {
        return;
    }
    float vx, vy;
    tensorReadARM(x, uint[](row, col), vx);
    tensorReadARM(y, uint[]((row + pc.row_offset) % tensorSizeARM(y, 0)), vy);
    tensorWriteARM(o, uint[](row, col), pc.alpha * vx + pc.beta * vy);
}
