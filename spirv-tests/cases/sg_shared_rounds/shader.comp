#version 450
// Rounds of: every lane writes shared memory, a barrier, each lane reads another lane's value
// (from the other subgroup) and adds its subgroup's sum, a barrier. Subgroup operations with
// shared memory both written and read, every write separated from every read by a barrier:
// compiled code runs it (no subgroup lockstep), and chunk order cannot show.
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
shared uint s[64];
void main() {
    uint lid = gl_LocalInvocationID.x;
    uint v = lid + 100u * gl_WorkGroupID.x;
    [[dont_unroll]] for (uint round = 0u; round < 4u; round++) {
        s[lid] = v;
        barrier();
        v = s[(lid + 17u) % 64u] * 3u + subgroupAdd(v);
        barrier();
    }
    o[gl_GlobalInvocationID.x] = v;
}
