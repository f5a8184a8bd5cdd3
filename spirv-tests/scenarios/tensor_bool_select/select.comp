#version 450
// Bool tensors (VK_FORMAT_R8_BOOL_ARM) in and out, with int32 rank-1 tensors:
// gt = a > b, sel = mask ? a : b, differ = gt != mask.
#extension GL_ARM_tensors : require

layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> a;
layout(set = 0, binding = 1) uniform tensorARM<int, 1> b;
layout(set = 0, binding = 2) uniform tensorARM<bool, 1> mask;
layout(set = 0, binding = 3) uniform tensorARM<bool, 1> gt;
layout(set = 0, binding = 4) uniform tensorARM<int, 1> sel;
layout(set = 0, binding = 5) uniform tensorARM<bool, 1> differ;

void main() {
    uint i = gl_GlobalInvocationID.x;
    int va, vb;
    bool m;
    tensorReadARM(a, uint[](i), va);
    tensorReadARM(b, uint[](i), vb);
    tensorReadARM(mask, uint[](i), m);
    bool g = va > vb;
    tensorWriteARM(gt, uint[](i), g);
    tensorWriteARM(sel, uint[](i), m ? va : vb);
    tensorWriteARM(differ, uint[](i), g != m);
}
