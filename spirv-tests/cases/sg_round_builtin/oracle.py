import numpy as np

from common import Case, buf

G = 2
o = np.zeros((G * 256, 2), np.uint32)
for g in range(G):
    for s in range(0, 256, 32):
        lanes = range(s, s + 32)
        add = sum(lanes)
        mx = max((l // 16) * 7 + (l % 16) for l in lanes)
        for l in lanes:
            o[g * 256 + l] = [add, mx]

case = Case("subgroup reductions of built-ins in a two-dimensional workgroup, before any other "
            "sync block")
case.run(dispatch=[G, 1, 1], bindings=[buf(0, np.zeros(G * 512, np.uint32), o.reshape(-1))])
