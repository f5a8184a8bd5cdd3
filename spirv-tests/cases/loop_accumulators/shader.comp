#version 450
// Loop accumulators in buffer words (`promote`): a word the invocation stored before a loop and
// loads and stores in it, at an address the loop does not change, lives in a register across
// the loop and is stored on its exits. Nested loops (promoted out of the outer one), a loop with
// a break whose lanes run different trip counts, none included (the word keeps the store before
// the loop), words past their binding's end (loads read 0, stores drop). Not promoted: a word
// whose value a branch reads, a word beside other accesses of its binding in the loop, a word
// with no store before the loop.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(set = 0, binding = 2) buffer Cnt { uint c[]; };
layout(set = 0, binding = 3) buffer Esc { uint e[]; };
layout(set = 0, binding = 4) buffer Mix { uint m[]; };
layout(set = 0, binding = 5) buffer Late { uint t[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    // Trip counts from memory: loops of constant counts are written out before this pass.
    uint ny = a[76], nx = a[77], ne = a[78];
    // o has 48 words: lanes 48 to 63 are past its end.
    o[i] = 7u;
    for (uint y = 0u; y < ny; y++) {
        for (uint x = 0u; x < nx; x++) {
            o[i] += a[(i + y * 4u + x) % 64u] * a[64u + y * 4u + x];
        }
    }
    c[i] = i;
    for (uint k = 0u; k < i % 5u; k++) {
        c[i] = c[i] * 3u + k;
        if (((i + k) & 3u) == 3u) {
            break;
        }
    }
    e[i] = 1u;
    uint n = 0u;
    for (uint k = 0u; k < ne; k++) {
        e[i] += k + (i & 3u);
        if (e[i] > 8u) {
            n++;
        }
    }
    e[i + 64u] = n;
    m[i] = i;
    for (uint k = 0u; k < nx; k++) {
        m[i] += m[64u + k];
    }
    for (uint k = 0u; k < i % 3u; k++) {
        t[i] += k + 1u;
    }
}
