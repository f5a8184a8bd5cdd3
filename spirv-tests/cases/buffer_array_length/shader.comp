#version 450
// OpArrayLength of runtime arrays: a plain uint[] over a descriptor range shorter than its
// memory, and a uvec2[] behind a 12-byte header (it starts at byte 16), whose length counts
// whole elements only.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint head[3]; uvec2 tail[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[2u * i] = uint(a.length()) + i;
    o[2u * i + 1u] = uint(tail.length()) * 100u + i;
}
