#version 450
// A small function-local array written between two barriers and read after the second one:
// compiled code keeps its elements in registers (the values are the same in every lane) and must
// store them with the chunk's other live registers when the chunk waits at the second barrier.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform Push { uint count; uint scale; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_WorkGroupID.x;
    s[l] = v[gl_GlobalInvocationID.x];
    uint table[3];
    barrier();
    for (uint k = 0u; k < count; k++) {
        table[k] = scale * (k + 1u) + g * 100u;
    }
    uint mine = s[(l + 7u) & 63u];
    barrier();
    o[gl_GlobalInvocationID.x] = mine + table[l % 3u] * 1000u + table[(l + 1u) % 3u];
}
