#version 450
// A lookup table copied into a local array (as ggml's quantisation grids are) and read at a
// varying and at a uniform index: more entries than a select chain is worth, every entry the
// same in all lanes.
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint k; } p;
layout(set = 0, binding = 0) writeonly buffer Y { uint y[]; };
const uint TABLE[80] = uint[80](
    11u, 48u, 159u, 344u, 603u, 936u, 343u, 824u, 379u, 8u,
    711u, 488u, 339u, 264u, 263u, 336u, 483u, 704u, 999u, 368u,
    811u, 328u, 919u, 584u, 323u, 136u, 23u, 984u, 19u, 128u,
    311u, 568u, 899u, 304u, 783u, 336u, 963u, 664u, 439u, 288u,
    211u, 208u, 279u, 424u, 643u, 936u, 303u, 744u, 259u, 848u,
    511u, 248u, 59u, 944u, 903u, 936u, 43u, 224u, 479u, 808u,
    211u, 688u, 239u, 864u, 563u, 336u, 183u, 104u, 99u, 168u,
    311u, 528u, 819u, 184u, 623u, 136u, 723u, 384u, 119u, 928u);
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint t[80] = TABLE;
    y[2u * i] = t[(i * 7u) % 80u];
    y[2u * i + 1u] = t[p.k % 80u] + t[(p.k + 3u) % 80u];
}
