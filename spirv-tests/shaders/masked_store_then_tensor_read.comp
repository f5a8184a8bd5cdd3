#version 450
// A divergent `if` that stores, then reads a tensor (`crates/jit/tests/lowerings/masked.rs`):
// the masked region must not hand a chunk back after its store when the tensor's view is
// short of memory (the interpreter would run the store a second time).
#extension GL_ARM_tensors : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 2> t;
layout(set = 0, binding = 1) buffer S { int s[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i % 3u == 1u) {
        s[i] = s[i] + 5;
        int v;
        uint c[2] = uint[2](i / 8u, i % 8u);
        tensorReadARM(t, c, v);
        s[i] = s[i] * 3 + v;
    }
}
