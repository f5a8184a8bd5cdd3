#version 450
// Shared memory and barriers: a tree reduction (sum and max) and a Hillis-Steele inclusive scan
// ping-ponging between two shared rows.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Red { uint red[]; };
layout(set = 0, binding = 2) writeonly buffer Scan { uint scan[]; };
shared uint s[64];
shared uint m[64];
shared uint sc[2][64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint x = v[gl_GlobalInvocationID.x];
    s[l] = x; m[l] = x; sc[0][l] = x;
    barrier();
    for (uint step = 32u; step > 0u; step >>= 1) {
        if (l < step) {
            s[l] += s[l + step];
            m[l] = max(m[l], m[l + step]);
        }
        barrier();
    }
    // Hillis-Steele inclusive scan, ping-ponging between the two rows.
    uint src = 0u;
    for (uint d = 1u; d < 64u; d <<= 1) {
        uint y = sc[src][l];
        if (l >= d) y += sc[src][l - d];
        sc[1u - src][l] = y;
        barrier();
        src = 1u - src;
    }
    scan[gl_GlobalInvocationID.x] = sc[src][l];
    if (l == 0u) {
        red[gl_WorkGroupID.x * 2u] = s[0];
        red[gl_WorkGroupID.x * 2u + 1u] = m[0];
    }
}
