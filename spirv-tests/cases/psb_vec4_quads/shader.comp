#version 460
// uvec4 rows through PhysicalStorageBuffer pointers in an [8, 2, 1] workgroup, where no address
// is affine in the flat lane index: rows dense in x (one lookup and four 16-byte loads per four
// lanes), rows shared by the lanes of one y (one lookup and load per four lanes), rows at
// scrambled indices, a row cut by the end of its allocation (each word past the end reads 0)
// and a pointer no allocation holds (reads 0).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 8, local_size_y = 2) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Rows { uvec4 r[]; };
layout(set = 0, binding = 1) writeonly buffer O { uvec4 o[]; };
layout(push_constant) uniform P {
    Rows rows;    // binding 0: 63 rows and a half
    Rows bogus;   // no allocation
};
void main() {
    uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y, g = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationIndex + 16u * g;
    uvec4 dense = uvec4(0u), same_row = uvec4(0u), scrambled = uvec4(0u), unmapped = uvec4(0u);
    for (uint k = 0u; k < 2u; ++k) {
        dense += rows.r[(2u * g + k) * 8u + x] * (k + 1u);
        same_row += rows.r[y + 2u * g + k] * (k + 3u);
        scrambled += rows.r[(x * 5u + y * 11u + k * 3u + g) % 64u];
        unmapped += bogus.r[(2u * g + k) * 8u + x];
    }
    o[4u * lane + 0u] = dense;
    o[4u * lane + 1u] = same_row;
    o[4u * lane + 2u] = scrambled;
    o[4u * lane + 3u] = unmapped;
}
