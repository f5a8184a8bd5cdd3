#version 460
// Cooperative-matrix GEMM, float16 A and B, float32 C (16×16×16 form), optimised by spirv-opt -O (regen, for the _opt name): the
// loops over tiles unrolled, the matrices SSA values; see bench_coopmat_gemm.glsl
#extension GL_GOOGLE_include_directive : require
#define AT float16_t
#define BT float16_t
#define CT float
#define KS 16
#include "bench_coopmat_gemm.glsl"
