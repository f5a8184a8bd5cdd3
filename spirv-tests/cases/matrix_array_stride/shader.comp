#version 450
// A std140 uniform array of mat2: MatrixStride on the struct member, the matrices inside the
// array.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(std140, set = 0, binding = 0) uniform U { mat2 m[3]; };
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };
void main() {
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 2; c++)
            for (int r = 0; r < 2; r++)
                o[i * 4 + c * 2 + r] = m[i][c][r];
}
