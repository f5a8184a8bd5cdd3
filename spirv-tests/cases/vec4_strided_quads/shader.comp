#version 450
// uvec4 rows read in an [8, 2, 1] workgroup at rows evenly spaced across x (3 and 2 rows apart,
// and 5 rows apart past the end of the buffer for the last lanes, which read 0), as IREE's
// [8, 8, 1] matmul tiles read their B operand: the quads' step is found at run time, then four
// 16-byte loads and a transpose per quad. The same through a device address.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 8, local_size_y = 2) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Rows { uvec4 r[]; };
layout(set = 0, binding = 0) readonly buffer Src { uvec4 v[]; };
layout(set = 0, binding = 2) writeonly buffer O { uvec4 o[]; };
layout(push_constant) uniform P { Rows rows; };  // binding 1
void main() {
    uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y, g = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationIndex + 16u * g;
    uvec4 spaced = v[x * 3u + y * 7u + g];
    uvec4 pairs = v[x * 2u + 16u * g] * 3u;
    uvec4 tail = v[x * 5u + 30u + g];
    uvec4 device = rows.r[x * 3u + y + g];
    o[4u * lane + 0u] = spaced;
    o[4u * lane + 1u] = pairs;
    o[4u * lane + 2u] = tail;
    o[4u * lane + 3u] = device;
}
