import numpy as np

from common import Case, buf, shader


def f(n):
    s = 0
    for i in range(n):
        for j in range(i):
            if (i + j) & 1 == 0:
                continue
            s += i * j
            if s > 1000:
                break
    return s


def ref(i):
    if i % 7 == 3:
        return 12345
    r = {0: f(i % 13), 1: 77}.get(i % 4, i * 3)
    k = 0
    while True:
        k += 1
        if k * k > i:
            break
    return r + k * 1_000_000


N = 80
out = [ref(i) for i in range(N)]
case = Case("Nested loops with continue and break, a switch, an early return, while (true): "
            "unoptimised and after spirv-opt -O (phis)",
            shaders=[shader("shader.spv", "shader.comp"), shader("opt.spv", optimize="shader.spv")])
for name, spv in [("glslc", "shader.spv"), ("opt", "opt.spv")]:
    case.run(name=name, shader=spv, dispatch=[N // 8, 1, 1],
             bindings=[buf(0, np.zeros(N, np.uint32), out)])
