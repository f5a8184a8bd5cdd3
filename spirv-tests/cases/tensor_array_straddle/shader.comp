#version 450
// Reads and writes of N consecutive T elements (an array) that straddle the end of a row.
#extension GL_ARM_tensors : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<T, 2> src;
layout(set = 0, binding = 1) uniform tensorARM<T, 2> dst;
layout(set = 0, binding = 2) buffer Out { T data[]; } o;
void main() {
    uint row = gl_GlobalInvocationID.y;
    uint col = gl_GlobalInvocationID.x * N;
    uint c[2] = uint[2](row, col);
    T tmp[N];
    tensorReadARM(src, c, tmp);
    for (int k = 0; k < N; k++) o.data[(row * gl_NumWorkGroups.x + gl_GlobalInvocationID.x) * N + k] = tmp[k];
    tensorWriteARM(dst, c, tmp);
}
