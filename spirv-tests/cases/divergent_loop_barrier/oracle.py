import numpy as np

from common import Case, buf, shader


def ref(l):
    acc = 0
    for k in range(l):
        acc += k
        if acc > 500:
            break
    return acc + 7 if l % 5 == 1 else acc * 2


# s[l] = ref(l); barrier; o[g] = s[63 - l]
out = [ref(63 - g % 64) for g in range(128)]
case = Case("Lanes leave a loop at different iterations, then meet at a barrier: unoptimised and "
            "after spirv-opt -O",
            shaders=[shader("shader.spv", "shader.comp"), shader("opt.spv", optimize="shader.spv")])
for name, spv in [("glslc", "shader.spv"), ("opt", "opt.spv")]:
    case.run(name=name, shader=spv, dispatch=[2, 1, 1],
             bindings=[buf(0, np.zeros(len(out), np.uint32), out)])
