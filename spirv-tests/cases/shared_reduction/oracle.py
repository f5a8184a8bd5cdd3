import numpy as np

from common import Case, buf

WG, GROUPS = 64, 4
rng = np.random.default_rng(20260130)

vals = rng.integers(0, 1000, WG * GROUPS).astype(np.uint32)
groups = [vals[g * WG:(g + 1) * WG] for g in range(GROUPS)]
red = []
for v in groups:
    red += [int(v.sum()), int(v.max())]
scan = np.concatenate([np.cumsum(v) for v in groups]).astype(np.uint32)

case = Case("Shared memory and barriers: a tree reduction (sum and max) and a Hillis-Steele "
            "inclusive scan ping-ponging between two shared rows")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, vals), buf(1, np.zeros(GROUPS * 2, np.uint32), red),
                   buf(2, np.zeros(WG * GROUPS, np.uint32), scan)])
