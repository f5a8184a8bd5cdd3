#version 460
// Cooperative-matrix GEMM, int8 A and B, int32 C (16×16×32 form), optimised by spirv-opt -O (regen, for the _opt name): the
// loops over tiles unrolled, the matrices SSA values; see bench_coopmat_gemm.glsl
#extension GL_GOOGLE_include_directive : require
#define AT int8_t
#define BT int8_t
#define CT int32_t
#define KS 32
#include "bench_coopmat_gemm.glsl"
