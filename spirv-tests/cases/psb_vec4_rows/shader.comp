#version 460
// A uvec4 per lane through PhysicalStorageBuffer pointers at a stride of 16 and 32 bytes (one
// 16-byte access per lane, transposed), and through a pointer no allocation holds (each lane
// on its own: reads 0, writes dropped).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vecs { uvec4 v[]; };
layout(push_constant) uniform P {
    Vecs src;        // binding 0: 64 uvec4
    Vecs dst;        // binding 1: 32 uvec4
    Vecs rmw;        // binding 2: 64 uvec4, read and written at a stride of 32 bytes
    Vecs bogus;      // no allocation
};
void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 a = src.v[i];
    uvec4 b = src.v[2u * i + 1u];
    uvec4 c = bogus.v[i];
    dst.v[i] = a.yzwx + b + c;
    rmw.v[2u * i] = rmw.v[2u * i] ^ uvec4(i, 2u * i, 3u * i, 4u * i);
    bogus.v[2u * i] = a;
}
