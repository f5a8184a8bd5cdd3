import numpy as np

from common import Case, buf

WG, GROUPS = 64, 3
inp = [i * 3 + 1 for i in range(WG * GROUPS)]
rev = [inp[(g // WG) * WG + WG - 1 - g % WG] for g in range(WG * GROUPS)]
sums = [sum(inp[w * WG:(w + 1) * WG]) for w in range(GROUPS)]

case = Case("Shared memory and barriers: the workgroup's values reversed and a tree sum")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, inp), buf(1, np.zeros(len(rev), np.uint32), rev),
                   buf(2, np.zeros(GROUPS, np.uint32), sums)])
