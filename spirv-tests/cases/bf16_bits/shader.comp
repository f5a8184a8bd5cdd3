#version 460
// bfloat16 <-> float32 conversions on bit patterns: NaNs (signalling ones come back quiet), infinities, subnormals, round-to-nearest-even ties; varying and uniform values
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer H { bfloat16_t h[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(set = 0, binding = 2) writeonly buffer W { float widened[]; };
layout(set = 0, binding = 3) writeonly buffer N { bfloat16_t narrowed[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    widened[2 * i] = float(h[i]);
    widened[2 * i + 1] = float(h[0]);
    narrowed[2 * i] = bfloat16_t(f[i]);
    narrowed[2 * i + 1] = bfloat16_t(f[1]);
}
