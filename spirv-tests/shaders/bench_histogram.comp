#version 450
// A 256-bin histogram of bytes: each invocation counts the 16 bytes of four words into its
// workgroup's shared bins (one atomicAdd a byte), then every invocation adds one of the
// workgroup's bins into the global histogram (one atomicAdd a bin).
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Data { uint data[]; };
layout(set = 0, binding = 1) buffer Hist { uint hist[256]; };
shared uint bins[256];
void main() {
    uint l = gl_LocalInvocationID.x;
    bins[l] = 0u;
    barrier();
    uint base = gl_GlobalInvocationID.x * 4u;
    for (uint k = 0u; k < 4u; k++) {
        uint w = data[base + k];
        atomicAdd(bins[w & 0xFFu], 1u);
        atomicAdd(bins[(w >> 8) & 0xFFu], 1u);
        atomicAdd(bins[(w >> 16) & 0xFFu], 1u);
        atomicAdd(bins[w >> 24], 1u);
    }
    barrier();
    atomicAdd(hist[l], bins[l]);
}
