#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// Global invocation ids past 2^31 that wrap past 2^32 inside a chunk of 16 lanes: a workgroup
// of 17 dispatched from base 252645135 has ids 2^32 - 1, 0, 1, ..., 15. Compiled code widens
// invocation ids without checking that a chunk's lanes do not wrap, which holds only below
// 2^31: such a dispatch must run otherwise, and give each lane its own id. (The barrier keeps
// the workgroup alone in its lane group, so that the ids are affine in its chunk.)
layout(local_size_x = 17) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uint g = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationID.x;
    barrier();
    uint64_t wide = uint64_t(g);
    o[2u * l] = uint(wide >> 16);
    o[2u * l + 1u] = uint(wide + 1ul);
}
