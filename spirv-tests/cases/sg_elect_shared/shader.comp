#version 450
#extension GL_KHR_shader_subgroup_basic : require
// The shape of CTS subgroups.basic.compute.subgroupelect: the elected lane of each subgroup
// marks itself, zeroes its subgroup's bitmask in shared memory, and every marked lane sets its
// bit there with an atomic; each invocation then writes how many bits its subgroup's mask has
// (1). Elect, shared memory and atomics meet in divergent control flow.
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
shared uint masks[32][4];
void main() {
    uint wgs = gl_WorkGroupSize.x * gl_WorkGroupSize.y;
    uint i = gl_WorkGroupID.x * wgs + gl_LocalInvocationIndex;
    uint value = 13u;
    if (subgroupElect()) {
        value = 42u;
    }
    bool elected = value == 42u;
    uint sg = gl_SubgroupID;
    if (subgroupElect()) {
        masks[sg][0] = 0u;
        masks[sg][1] = 0u;
        masks[sg][2] = 0u;
        masks[sg][3] = 0u;
    }
    if (elected) {
        uint bit = 1u << (gl_SubgroupInvocationID % 32u);
        atomicOr(masks[sg][gl_SubgroupInvocationID / 32u], bit);
    }
    uvec4 m = uvec4(masks[sg][0], masks[sg][1], masks[sg][2], masks[sg][3]);
    o[i] = bitCount(m.x) + bitCount(m.y) + bitCount(m.z) + bitCount(m.w);
}
