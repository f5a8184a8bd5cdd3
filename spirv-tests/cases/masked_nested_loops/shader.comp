#version 450
// A divergent branch whose side runs nested loops with uniform trip counts and whose paths meet
// again (ggml's mat-vec epilogue: `if (tid == 0) for (j < NUM_COLS) for (n < num_rows)
// d[…] = temp[j][n]`): compiled code runs the loops under the branch's mask and merges what the
// side wrote at the join; a value the loops sum is read after it.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer P { uint cols; uint rows; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint t = i * 3u;
    uint acc = 0u;
    if (i % 5u == 0u) {
        for (uint j = 0u; j < cols; ++j) {
            for (uint n = 0u; n < rows; ++n) {
                o[64u + (i / 5u) * 8u + j * rows + n] = t + j * 10u + n;
                acc += n + 2u * j + 1u;
            }
        }
    }
    o[i] = acc + t;
}
