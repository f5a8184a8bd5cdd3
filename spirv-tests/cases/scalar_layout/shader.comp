#version 460
// Scalar block layout (VK_EXT_scalar_block_layout) in storage and uniform buffers: a struct array of stride 28 with a vec3 at 0, a float at 12, a uint16_t at 16 and a vec2 at 20, a tightly packed vec3 array, a scalar uniform block with a float after a vec3, and an std430 uniform block (uniformBufferStandardLayout: array stride 4)
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
struct Point {
    vec3 pos;
    float w;
    uint16_t id;
    vec2 uv;
};
layout(scalar, set = 0, binding = 0) readonly buffer In { Point points[]; };
layout(scalar, set = 0, binding = 1) writeonly buffer Out { vec3 moved[]; };
layout(scalar, set = 0, binding = 2) uniform Params { vec3 scale; float bias; };
layout(std430, set = 0, binding = 3) uniform Table { float table[8]; };
layout(scalar, set = 0, binding = 4) writeonly buffer Sums { vec2 sums[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    Point p = points[i];
    moved[i] = p.pos * scale + vec3(p.w + bias);
    sums[i] = p.uv + vec2(float(p.id), table[i % 8]);
}
