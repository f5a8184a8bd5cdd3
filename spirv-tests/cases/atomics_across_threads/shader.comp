#version 450
// atomicAdd ticket counter, atomicMax and atomicMin on a buffer from every invocation.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer C { uint count; uint maxv; int minv; uint slots[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint old = atomicAdd(count, 1u);
    atomicMax(maxv, i * 7u);
    atomicMin(minv, -int(i));
    slots[old] = i + 1u;
}
