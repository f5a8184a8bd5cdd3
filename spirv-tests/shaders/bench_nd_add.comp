#version 450
// c = a + b on rank-4 float tensors [n, c, h, w] addressed the way generated elementwise
// kernels do it: a 1-D dispatch, one invocation per element, the four coordinates split off the
// flat index by division and remainder by the tensor's sizes (not affine in the invocation).
#extension GL_ARM_tensors : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 4> a;
layout(set = 0, binding = 1) uniform readonly tensorARM<float, 4> b;
layout(set = 0, binding = 2) uniform writeonly tensorARM<float, 4> c;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint d1 = tensorSizeARM(a, 1);
    uint d2 = tensorSizeARM(a, 2);
    uint d3 = tensorSizeARM(a, 3);
    if (i >= tensorSizeARM(a, 0) * d1 * d2 * d3) {
        return;
    }
    uint x = i % d3;
    uint rest = i / d3;
    uint y = rest % d2;
    rest /= d2;
    uint at[4] = uint[4](rest / d1, rest % d1, y, x);
    float va;
    float vb;
    tensorReadARM(a, at, va);
    tensorReadARM(b, at, vb);
    tensorWriteARM(c, at, va + vb);
}
