#version 450
// Bitwise and/or/xor/not, logical and arithmetic shifts, bitCount, findLSB, findMSB (unsigned and
// signed), bitfieldReverse on uint.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) readonly buffer S { uint s[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    uint x = a[k];
    uint y = x * 2654435761u;
    uint sh = s[k];
    int sx = int(x);
    uint b = k * 12u;
    o[b + 0u] = x & y;
    o[b + 1u] = x | y;
    o[b + 2u] = x ^ y;
    o[b + 3u] = ~x;
    o[b + 4u] = x << sh;
    o[b + 5u] = x >> sh;
    o[b + 6u] = uint(sx >> int(sh));
    o[b + 7u] = uint(bitCount(x));
    o[b + 8u] = uint(findLSB(x));
    o[b + 9u] = uint(findMSB(x));
    o[b + 10u] = uint(findMSB(sx));
    o[b + 11u] = bitfieldReverse(x);
}
