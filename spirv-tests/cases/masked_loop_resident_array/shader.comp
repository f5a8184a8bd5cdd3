#version 450
// Stores into a local array of eight elements indexed at run time (kept in the register
// file's rows) inside a loop whose lanes leave at different iterations (a masked loop): a
// varying-index read-modify-write every iteration, a second one on a divergent branch inside
// the loop, a store on the exit's path, then reads at run-time indices after the loop (a
// per-lane histogram, as a top-k or a small sort keeps one).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer V { uint v[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint hist[8];
    for (uint n = 0u; n < 8u; ++n) {
        hist[n] = n;
    }
    uint x = v[i];
    uint steps = 0u;
    for (;;) {
        if (x == 0u) {
            hist[(steps + 3u) % 8u] += 1000u;
            break;
        }
        hist[x % 8u] += 1u;
        if ((x & 3u) == 1u) {
            hist[(x >> 3u) % 8u] += 20u;
        }
        x = x / 3u;
        steps += 1u;
    }
    for (uint n = 0u; n < 8u; ++n) {
        o[i * 8u + n] = hist[(n + steps) % 8u] + steps * 100000u;
    }
}
