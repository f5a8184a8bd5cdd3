#version 460
// Floats (f32 varying and uniform, f64) to 8- and 16-bit integers: truncation toward zero, saturation to the target's range, NaN to 0
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer F { float f[]; };
layout(set = 0, binding = 1) readonly buffer D { double d[]; };
layout(set = 0, binding = 2) writeonly buffer I8 { int8_t s8[]; };
layout(set = 0, binding = 3) writeonly buffer U8 { uint8_t u8[]; };
layout(set = 0, binding = 4) writeonly buffer I16 { int16_t s16[]; };
layout(set = 0, binding = 5) writeonly buffer U16 { uint16_t u16[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    // Varying f32 (the vector path), uniform f32 and f64 (lane by lane).
    s8[3 * i] = int8_t(f[i]);
    s8[3 * i + 1] = int8_t(f[0]);
    s8[3 * i + 2] = int8_t(d[i]);
    u8[3 * i] = uint8_t(f[i]);
    u8[3 * i + 1] = uint8_t(f[1]);
    u8[3 * i + 2] = uint8_t(d[i]);
    s16[2 * i] = int16_t(f[i]);
    s16[2 * i + 1] = int16_t(d[i]);
    u16[2 * i] = uint16_t(f[i]);
    u16[2 * i + 1] = uint16_t(d[i]);
}
