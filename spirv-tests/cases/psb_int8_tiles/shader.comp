#version 460
// int8 dot products over PhysicalStorageBuffer pointers in an [8, 2, 1] workgroup, where no
// address is affine in the flat lane index: i8vec4 rows dense in x and repeated across y (one
// lookup of the lanes' span, then a 16-byte load per four lanes), words shared by the lanes of
// one y, words at scrambled indices, a row cut by the end of its allocation (each byte past
// the end reads 0) and a pointer no allocation holds (reads 0).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 8, local_size_y = 2) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Bytes { i8vec4 b[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { int w[]; };
layout(set = 0, binding = 2) writeonly buffer O { int o[]; };
layout(push_constant) uniform P {
    Bytes bytes;   // binding 0: 506 bytes
    Words words;   // binding 1: 36 words
    Bytes bogus;   // no allocation
};
void main() {
    uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y, g = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationIndex + 16u * g;
    int ss = g == 1u ? 2147480000 : 0;
    int shared_dot = 0, scrambled = 0, unmapped = 0;
    for (uint k = 0u; k < 4u; ++k) {
        uint row = (4u * g + k) * 8u + x;
        int w = words.w[y + 2u * g + k];
        ss = dotAccSatEXT(unpack8(w), bytes.b[row], ss);
        shared_dot += dotPacked4x8EXT(words.w[(x * 7u + y * 3u + k * 5u + g) % 36u], w);
        scrambled += int(dotEXT(bytes.b[(x * 5u + y * 11u + k) % 127u], unpack8(w)));
        unmapped += int(dotEXT(bogus.b[row], unpack8(w)));
    }
    o[4u * lane + 0u] = ss;
    o[4u * lane + 1u] = shared_dot;
    o[4u * lane + 2u] = scrambled;
    o[4u * lane + 3u] = unmapped;
}
