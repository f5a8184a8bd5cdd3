#version 450
// int tensors of ranks 1 to 8 (packed and padded): reads, writes and every tensorSizeARM
// dimension.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_ARM_tensors : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform tensorARM<int, 1> src1;
layout(set = 0, binding = 1) uniform tensorARM<int, 1> dst1;
layout(set = 0, binding = 2) uniform tensorARM<int, 2> src2;
layout(set = 0, binding = 3) uniform tensorARM<int, 2> dst2;
layout(set = 0, binding = 4) uniform tensorARM<int, 3> src3;
layout(set = 0, binding = 5) uniform tensorARM<int, 3> dst3;
layout(set = 0, binding = 6) uniform tensorARM<int, 4> src4;
layout(set = 0, binding = 7) uniform tensorARM<int, 4> dst4;
layout(set = 0, binding = 8) uniform tensorARM<int, 5> src5;
layout(set = 0, binding = 9) uniform tensorARM<int, 5> dst5;
layout(set = 0, binding = 10) uniform tensorARM<int, 6> src6;
layout(set = 0, binding = 11) uniform tensorARM<int, 6> dst6;
layout(set = 0, binding = 12) uniform tensorARM<int, 7> src7;
layout(set = 0, binding = 13) uniform tensorARM<int, 7> dst7;
layout(set = 0, binding = 14) uniform tensorARM<int, 8> src8;
layout(set = 0, binding = 15) uniform tensorARM<int, 8> dst8;
layout(set = 0, binding = 16) writeonly buffer Sizes { uint sizes[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < tensorSizeARM(src1, 0)) {
        uint c1[1] = uint[1]((i / (1u)) % tensorSizeARM(src1, 0));
        int x;
        tensorReadARM(src1, c1, x);
        tensorWriteARM(dst1, c1, x * 10 + 1);
    }
    if (i < tensorSizeARM(src2, 0) * tensorSizeARM(src2, 1)) {
        uint c2[2] = uint[2]((i / (tensorSizeARM(src2, 1))) % tensorSizeARM(src2, 0), (i / (1u)) % tensorSizeARM(src2, 1));
        int x;
        tensorReadARM(src2, c2, x);
        tensorWriteARM(dst2, c2, x * 10 + 2);
    }
    if (i < tensorSizeARM(src3, 0) * tensorSizeARM(src3, 1) * tensorSizeARM(src3, 2)) {
        uint c3[3] = uint[3]((i / (tensorSizeARM(src3, 1) * tensorSizeARM(src3, 2))) % tensorSizeARM(src3, 0), (i / (tensorSizeARM(src3, 2))) % tensorSizeARM(src3, 1), (i / (1u)) % tensorSizeARM(src3, 2));
        int x;
        tensorReadARM(src3, c3, x);
        tensorWriteARM(dst3, c3, x * 10 + 3);
    }
    if (i < tensorSizeARM(src4, 0) * tensorSizeARM(src4, 1) * tensorSizeARM(src4, 2) * tensorSizeARM(src4, 3)) {
        uint c4[4] = uint[4]((i / (tensorSizeARM(src4, 1) * tensorSizeARM(src4, 2) * tensorSizeARM(src4, 3))) % tensorSizeARM(src4, 0), (i / (tensorSizeARM(src4, 2) * tensorSizeARM(src4, 3))) % tensorSizeARM(src4, 1), (i / (tensorSizeARM(src4, 3))) % tensorSizeARM(src4, 2), (i / (1u)) % tensorSizeARM(src4, 3));
        int x;
        tensorReadARM(src4, c4, x);
        tensorWriteARM(dst4, c4, x * 10 + 4);
    }
    if (i < tensorSizeARM(src5, 0) * tensorSizeARM(src5, 1) * tensorSizeARM(src5, 2) * tensorSizeARM(src5, 3) * tensorSizeARM(src5, 4)) {
        uint c5[5] = uint[5]((i / (tensorSizeARM(src5, 1) * tensorSizeARM(src5, 2) * tensorSizeARM(src5, 3) * tensorSizeARM(src5, 4))) % tensorSizeARM(src5, 0), (i / (tensorSizeARM(src5, 2) * tensorSizeARM(src5, 3) * tensorSizeARM(src5, 4))) % tensorSizeARM(src5, 1), (i / (tensorSizeARM(src5, 3) * tensorSizeARM(src5, 4))) % tensorSizeARM(src5, 2), (i / (tensorSizeARM(src5, 4))) % tensorSizeARM(src5, 3), (i / (1u)) % tensorSizeARM(src5, 4));
        int x;
        tensorReadARM(src5, c5, x);
        tensorWriteARM(dst5, c5, x * 10 + 5);
    }
    if (i < tensorSizeARM(src6, 0) * tensorSizeARM(src6, 1) * tensorSizeARM(src6, 2) * tensorSizeARM(src6, 3) * tensorSizeARM(src6, 4) * tensorSizeARM(src6, 5)) {
        uint c6[6] = uint[6]((i / (tensorSizeARM(src6, 1) * tensorSizeARM(src6, 2) * tensorSizeARM(src6, 3) * tensorSizeARM(src6, 4) * tensorSizeARM(src6, 5))) % tensorSizeARM(src6, 0), (i / (tensorSizeARM(src6, 2) * tensorSizeARM(src6, 3) * tensorSizeARM(src6, 4) * tensorSizeARM(src6, 5))) % tensorSizeARM(src6, 1), (i / (tensorSizeARM(src6, 3) * tensorSizeARM(src6, 4) * tensorSizeARM(src6, 5))) % tensorSizeARM(src6, 2), (i / (tensorSizeARM(src6, 4) * tensorSizeARM(src6, 5))) % tensorSizeARM(src6, 3), (i / (tensorSizeARM(src6, 5))) % tensorSizeARM(src6, 4), (i / (1u)) % tensorSizeARM(src6, 5));
        int x;
        tensorReadARM(src6, c6, x);
        tensorWriteARM(dst6, c6, x * 10 + 6);
    }
    if (i < tensorSizeARM(src7, 0) * tensorSizeARM(src7, 1) * tensorSizeARM(src7, 2) * tensorSizeARM(src7, 3) * tensorSizeARM(src7, 4) * tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6)) {
        uint c7[7] = uint[7]((i / (tensorSizeARM(src7, 1) * tensorSizeARM(src7, 2) * tensorSizeARM(src7, 3) * tensorSizeARM(src7, 4) * tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 0), (i / (tensorSizeARM(src7, 2) * tensorSizeARM(src7, 3) * tensorSizeARM(src7, 4) * tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 1), (i / (tensorSizeARM(src7, 3) * tensorSizeARM(src7, 4) * tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 2), (i / (tensorSizeARM(src7, 4) * tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 3), (i / (tensorSizeARM(src7, 5) * tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 4), (i / (tensorSizeARM(src7, 6))) % tensorSizeARM(src7, 5), (i / (1u)) % tensorSizeARM(src7, 6));
        int x;
        tensorReadARM(src7, c7, x);
        tensorWriteARM(dst7, c7, x * 10 + 7);
    }
    if (i < tensorSizeARM(src8, 0) * tensorSizeARM(src8, 1) * tensorSizeARM(src8, 2) * tensorSizeARM(src8, 3) * tensorSizeARM(src8, 4) * tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7)) {
        uint c8[8] = uint[8]((i / (tensorSizeARM(src8, 1) * tensorSizeARM(src8, 2) * tensorSizeARM(src8, 3) * tensorSizeARM(src8, 4) * tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 0), (i / (tensorSizeARM(src8, 2) * tensorSizeARM(src8, 3) * tensorSizeARM(src8, 4) * tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 1), (i / (tensorSizeARM(src8, 3) * tensorSizeARM(src8, 4) * tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 2), (i / (tensorSizeARM(src8, 4) * tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 3), (i / (tensorSizeARM(src8, 5) * tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 4), (i / (tensorSizeARM(src8, 6) * tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 5), (i / (tensorSizeARM(src8, 7))) % tensorSizeARM(src8, 6), (i / (1u)) % tensorSizeARM(src8, 7));
        int x;
        tensorReadARM(src8, c8, x);
        tensorWriteARM(dst8, c8, x * 10 + 8);
    }
    if (i == 0u) {
        sizes[0u] = tensorSizeARM(src1, 0);
        sizes[8u] = tensorSizeARM(src2, 0);
        sizes[9u] = tensorSizeARM(src2, 1);
        sizes[16u] = tensorSizeARM(src3, 0);
        sizes[17u] = tensorSizeARM(src3, 1);
        sizes[18u] = tensorSizeARM(src3, 2);
        sizes[24u] = tensorSizeARM(src4, 0);
        sizes[25u] = tensorSizeARM(src4, 1);
        sizes[26u] = tensorSizeARM(src4, 2);
        sizes[27u] = tensorSizeARM(src4, 3);
        sizes[32u] = tensorSizeARM(src5, 0);
        sizes[33u] = tensorSizeARM(src5, 1);
        sizes[34u] = tensorSizeARM(src5, 2);
        sizes[35u] = tensorSizeARM(src5, 3);
        sizes[36u] = tensorSizeARM(src5, 4);
        sizes[40u] = tensorSizeARM(src6, 0);
        sizes[41u] = tensorSizeARM(src6, 1);
        sizes[42u] = tensorSizeARM(src6, 2);
        sizes[43u] = tensorSizeARM(src6, 3);
        sizes[44u] = tensorSizeARM(src6, 4);
        sizes[45u] = tensorSizeARM(src6, 5);
        sizes[48u] = tensorSizeARM(src7, 0);
        sizes[49u] = tensorSizeARM(src7, 1);
        sizes[50u] = tensorSizeARM(src7, 2);
        sizes[51u] = tensorSizeARM(src7, 3);
        sizes[52u] = tensorSizeARM(src7, 4);
        sizes[53u] = tensorSizeARM(src7, 5);
        sizes[54u] = tensorSizeARM(src7, 6);
        sizes[56u] = tensorSizeARM(src8, 0);
        sizes[57u] = tensorSizeARM(src8, 1);
        sizes[58u] = tensorSizeARM(src8, 2);
        sizes[59u] = tensorSizeARM(src8, 3);
        sizes[60u] = tensorSizeARM(src8, 4);
        sizes[61u] = tensorSizeARM(src8, 5);
        sizes[62u] = tensorSizeARM(src8, 6);
        sizes[63u] = tensorSizeARM(src8, 7);
    }
}
