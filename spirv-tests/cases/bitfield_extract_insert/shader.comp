#version 450
// bitfieldExtract (unsigned and sign-extending) and bitfieldInsert with varying offsets and
// widths.
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
    int off = int(s[k] % 16u);
    int bits = 1 + int(s[k] % 16u);
    o[k * 3u] = bitfieldExtract(x, off, bits);
    o[k * 3u + 1u] = uint(bitfieldExtract(int(x), off, bits));
    o[k * 3u + 2u] = bitfieldInsert(x, y, off, bits);
}
