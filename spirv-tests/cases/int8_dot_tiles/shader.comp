#version 450
// IREE-shaped int8 matmul loads in an [8, 2, 1] workgroup, where no address is affine in the
// flat lane index: vec4 rows shared by the lanes of one y, i8vec4 / u8vec4 rows dense in x and
// repeated across y, single words dense, shared and at scrambled indices (some past the end),
// i8vec4 rows at an affine index, and a byte buffer whose end cuts a row in the middle (each
// byte past the end reads 0). Integer dot products of every signedness over them.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 8, local_size_y = 2) in;
layout(set = 0, binding = 0) readonly buffer A { ivec4 a[]; };
layout(set = 0, binding = 1) readonly buffer B { i8vec4 b[]; };
layout(set = 0, binding = 1) readonly buffer BU { u8vec4 bu[]; };
layout(set = 0, binding = 2) readonly buffer W { int w[]; };
layout(set = 0, binding = 3) writeonly buffer O { int o[]; };
void main() {
    uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y, g = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationIndex + 16u * g;
    int ss = g == 1u ? 2147480000 : 0;
    uint uu = 0u;
    int su = 0, words = 0, rows = 0;
    for (uint k = 0u; k < 4u; ++k) {
        ivec4 av = a[(2u * g + y) * 4u + k];
        uint row = (4u * g + k) * 8u + x;
        ss = dotAccSatEXT(unpack8(av.x), b[row], ss);
        uu += dotEXT(unpack8(uint(av.y)), bu[row]);
        su += dotPacked4x8EXT(av.z, uint(w[(x * 7u + y * 3u + k * 5u + g) % 37u]));
        words += dotPacked4x8EXT(w[8u * g + x + k], w[y + 2u * g]);
        rows += dotEXT(b[lane + 16u * k], unpack8(av.w));
    }
    o[5u * lane + 0u] = ss;
    o[5u * lane + 1u] = int(uu);
    o[5u * lane + 2u] = su;
    o[5u * lane + 3u] = words;
    o[5u * lane + 4u] = rows;
}
