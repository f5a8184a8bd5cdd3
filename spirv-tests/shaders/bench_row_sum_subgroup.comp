#version 450
// Benchmark shader (benches/shaders.rs, `row_sum_subgroup`): the sum of every row, one
// 256-invocation workgroup per row: strided partial sums, a subgroup reduction, one value per
// subgroup through shared memory, and the first invocation adds those (how ggml's and most
// hand-written reductions finish).
#extension GL_ARM_tensors : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform readonly tensorARM<float, 2> src;
layout(set = 0, binding = 1) buffer Sums { float v[]; } sums;
shared float partial[8];
void main() {
    uint r = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    uint cols = tensorSizeARM(src, 1);
    float acc = 0.0;
    for (uint x = lane; x < cols; x += 256u) {
        float v;
        tensorReadARM(src, uint[](r, x), v);
        acc += v;
    }
    acc = subgroupAdd(acc);
    if (gl_SubgroupInvocationID == 0u) {
        partial[gl_SubgroupID] = acc;
    }
    barrier();
    if (lane == 0u) {
        float total = 0.0;
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            total += partial[s];
        }
        sums.v[r] = total;
    }
}
