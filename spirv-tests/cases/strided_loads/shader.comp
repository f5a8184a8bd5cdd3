#version 450
// Buffer loads at an affine address with a stride wider than the access: one component of a
// uvec4 per lane (stride 16) and every other uvec4 (stride 32); the second workgroup's lanes run
// past the buffer's end, where robust access reads 0.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 v = a[i];
    uvec4 w = a[2u * i + 1u];
    o[8u * i + 0u] = v.x;
    o[8u * i + 1u] = v.y;
    o[8u * i + 2u] = v.z;
    o[8u * i + 3u] = v.w;
    o[8u * i + 4u] = w.x;
    o[8u * i + 5u] = w.y;
    o[8u * i + 6u] = w.z;
    o[8u * i + 7u] = w.w;
}
