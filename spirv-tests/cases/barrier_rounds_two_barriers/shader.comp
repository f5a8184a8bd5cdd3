#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
// A loop with two barriers whose first chunk is handed back to the interpreter (a widening of
// `5 - l`, which wraps below zero in its lanes: compiled code cannot keep it affine) before the
// loop's first barrier, past a divergent if/else. Compiled code runs each iteration as barrier
// rounds within one call; a round that starts at the loop's second barrier is interrupted by the
// first chunk's hand-back, so the chunks after it have not yet run that round when the driver
// looks at where every chunk waits. None may pass the first barrier before every chunk wrote its
// shared value for the iteration.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
shared uint s[128];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint acc = v[gl_GlobalInvocationID.x];
    [[dont_unroll]] for (uint it = 0u; it < 6u; it++) {
        // Always 0: the widened lanes stay below 2^33.
        uint skew = uint(uint64_t(5u - l) >> 33);
        if (l % 3u == 0u) {
            s[l] = acc * 3u + it + skew;
        } else {
            s[l] = acc ^ (it * 0x9E3779B9u);
        }
        barrier();
        acc += s[(l + 16u * it + 17u) % 128u];
        barrier();
    }
    o[gl_GlobalInvocationID.x] = acc;
}
