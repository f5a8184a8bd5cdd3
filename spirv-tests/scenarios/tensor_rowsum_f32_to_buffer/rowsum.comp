#version 450
// A rank-4 float32 tensor in, storage buffers out: one invocation per innermost row sums and
// maxes the row (a loop bounded by tensorSizeARM) and writes both into buffers of floats.
#extension GL_ARM_tensors : require

layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform tensorARM<float, 4> src;
layout(set = 0, binding = 1) writeonly buffer Sums { float sums[]; };
layout(set = 1, binding = 0) writeonly buffer Maxes { float maxes[]; };

void main() {
    uint row = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(src, 1);
    uint d2 = tensorSizeARM(src, 2);
    uint rows = tensorSizeARM(src, 0) * d1 * d2;
    if (row >= rows) {
        return;
    }
    uint i0 = row / (d1 * d2);
    uint i1 = (row / d2) % d1;
    uint i2 = row % d2;
    float s = 0.0;
    float m = -1.0e30;
    for (uint k = 0; k < tensorSizeARM(src, 3); ++k) {
        float v;
        tensorReadARM(src, uint[](i0, i1, i2, k), v);
        s += v;
        m = max(m, v);
    }
    sums[row] = s;
    maxes[row] = m;
}
