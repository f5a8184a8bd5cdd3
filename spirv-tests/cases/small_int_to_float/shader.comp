#version 460
// 8- and 16-bit integers (signed and unsigned, varying and uniform) converted to float and double: exact, what quantised kernels do to their weights
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer I8 { int8_t s8[]; };
layout(set = 0, binding = 1) readonly buffer U8 { uint8_t u8[]; };
layout(set = 0, binding = 2) readonly buffer I16 { int16_t s16[]; };
layout(set = 0, binding = 3) readonly buffer U16 { uint16_t u16[]; };
layout(set = 0, binding = 4) writeonly buffer F { float f[]; };
layout(set = 0, binding = 5) writeonly buffer D { double d[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    f[5 * i] = float(s8[i]);
    f[5 * i + 1] = float(u8[i]);
    f[5 * i + 2] = float(s16[i]);
    f[5 * i + 3] = float(u16[i]);
    f[5 * i + 4] = float(s8[0]) + float(u16[0]);
    d[2 * i] = double(s8[i]);
    d[2 * i + 1] = double(u16[i]);
}
