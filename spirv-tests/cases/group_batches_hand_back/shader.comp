#version 450
// Workgroups of 64 without sync ops (the JIT runs them in batches of groups per call), each
// invocation writing a value of its workgroup and local ids; in workgroups 5 and 6 the lanes of
// some chunks take different arms of an if/else, so those chunks go back to the interpreter in
// the middle of a batch: the rest of the batch must go on with the right workgroup ids, and no
// invocation may run twice.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
layout(set = 0, binding = 1) buffer Starts { uint starts[]; };
void main() {
    uint g = gl_WorkGroupID.x;
    uint l = gl_LocalInvocationID.x;
    uint i = gl_GlobalInvocationID.x;
    starts[i] += 1u;
    uint v = g * 1000u + l;
    if ((g == 5u || g == 6u) && l >= 16u && l < 48u) {
        if (l % 3u == 0u) {
            v = v * 7u;
        } else {
            v = v + 5u;
        }
    }
    o[i] = v * 3u + g / 3u;
}
