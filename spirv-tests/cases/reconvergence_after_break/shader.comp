#version 450
// Lanes leave a loop through a break at different iterations and must reconverge before a barrier
// and a subgroupAdd.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
shared uint s[64];
void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = 0u;
    for (;;) {
        if (n >= lid) break;
        n++;
    }
    s[lid] = n;
    barrier();
    uint total = subgroupAdd(n);
    o[gl_GlobalInvocationID.x * 2u] = s[(lid + 1u) % 64u];
    o[gl_GlobalInvocationID.x * 2u + 1u] = total;
}
