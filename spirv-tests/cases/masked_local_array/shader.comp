#version 450
// Stores into a small local array (held in registers, `store_var`) inside divergent branches
// whose paths meet again (ggml's mat-vec epilogue adds biases to `temp[j][n]` under
// `if (tid == 0)`): at a loop counter's index in nested loops with uniform trip counts on one
// side, at a varying index on a nested branch of the other, and the array read after the join,
// where each lane sees its own side's stores and the lanes of neither side their values from
// before. (An array of four or more elements indexed at run time lives in the register file's
// rows instead: `masked_resident_array`.)
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer P { uint cols; uint rows; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint acc[3];
    acc[0] = i * 7u;
    acc[1] = i * 7u + 1u;
    acc[2] = i * 7u + 2u;
    if (i % 3u == 1u) {
        for (uint j = 0u; j < cols; ++j) {
            for (uint n = 0u; n < rows; ++n) {
                acc[n] += 100u * (j + 1u) + n;
            }
        }
    } else if (i % 4u == 0u) {
        acc[i % 3u] = 5000u + i;
    }
    o[i * 3u + 0u] = acc[0];
    o[i * 3u + 1u] = acc[1];
    o[i * 3u + 2u] = acc[2];
}
