#version 460
// Every float8 code (E4M3 and E5M2) converted to float32: normals, subnormals, zeros, infinities, NaNs; varying and uniform
#extension GL_EXT_float_e4m3 : require
#extension GL_EXT_float_e5m2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { floate4m3_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { floate5m2_t b[]; };
layout(set = 0, binding = 2) writeonly buffer O { float o[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    o[4 * i] = float(a[i]);
    o[4 * i + 1] = float(b[i]);
    o[4 * i + 2] = float(a[255]);
    o[4 * i + 3] = float(b[126]);
}
