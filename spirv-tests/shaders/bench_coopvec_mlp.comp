#version 460
// A per-invocation MLP with cooperative vectors: 4 layers 64→64, float16 throughout, the
// matrices inferencing-optimal (MATRIX_BYTES apart), relu between layers; one input vector and
// one output vector of 64 float16 per invocation.
#extension GL_NV_cooperative_vector : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint MATRIX_BYTES = 8192;
layout(set = 0, binding = 0) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1) readonly buffer W { float16_t w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { float16_t bias[]; };
layout(set = 0, binding = 3) writeonly buffer Y { float16_t y[]; };

const uint LAYERS = 4;
const uint WIDTH = 64;

void main() {
    uint i = gl_GlobalInvocationID.x;
    coopvecNV<float16_t, WIDTH> v;
    coopVecLoadNV(v, x, i * WIDTH * 2);
    for (uint layer = 0; layer < LAYERS; ++layer) {
        coopVecMatMulAddNV(v, v, gl_ComponentTypeFloat16NV, w, layer * MATRIX_BYTES,
                           gl_ComponentTypeFloat16NV, bias, layer * WIDTH * 2,
                           gl_ComponentTypeFloat16NV, WIDTH, WIDTH,
                           gl_CooperativeVectorMatrixLayoutInferencingOptimalNV, false, 0);
        if (layer + 1 < LAYERS) {
            v = max(v, coopvecNV<float16_t, WIDTH>(0.0));
        }
    }
    coopVecStoreNV(v, y, i * WIDTH * 2);
}
