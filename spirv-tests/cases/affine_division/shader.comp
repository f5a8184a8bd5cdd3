#version 450
// Quotients of an affine index by a divisor of its stride, `(b + 4i) / 2` and `(b + 8i) >> 2`,
// and the loads they address (ggml's mat-vec shaders read f16 pairs as
// `data_a_packed32[(a_offset + ib) / 2]` with `ib = 4·tid`): affine in compiled code when no
// lane of a chunk wraps past 2^32, checked per chunk; `(wrap_base + 4i) / 2` wraps in the middle
// of the third chunk, which goes to the interpreter.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer P { uint base; uint wrap_base; };
layout(set = 0, binding = 1) readonly buffer A { uint a[]; };
layout(set = 0, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint q = (base + 4u * i) / 2u;
    uint s = (base + 8u * i) >> 2u;
    uint w = (wrap_base + 4u * i) / 2u;
    o[4u * i + 0u] = q;
    o[4u * i + 1u] = s;
    o[4u * i + 2u] = w;
    o[4u * i + 3u] = a[q] + a[q + 1u] * 3u;
}
