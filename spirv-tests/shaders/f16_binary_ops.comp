#version 450
// float16_t + - * / min max of a[i] and b[i], into o[6 i .. 6 i + 5]: the JIT's binary16
// arithmetic is checked against the interpreter's on every bit pattern
// (crates/jit/tests/half.rs).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer O { float16_t o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t x = a[i];
    float16_t y = b[i];
    o[6u * i + 0u] = x + y;
    o[6u * i + 1u] = x - y;
    o[6u * i + 2u] = x * y;
    o[6u * i + 3u] = x / y;
    o[6u * i + 4u] = min(x, y);
    o[6u * i + 5u] = max(x, y);
}
