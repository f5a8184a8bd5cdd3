import numpy as np

from common import Case, buf

# o[i] = v * 3 + g / 3 with v = g * 1000 + l, except in workgroups 5 and 6 for lanes 16..47:
# v * 7 where l % 3 == 0, else v + 5. Starts: 1 per invocation. 200 workgroups: more than one
# batch per worker.
WG, GROUPS = 64, 200
out = []
for g in range(GROUPS):
    for lane in range(WG):
        v = g * 1000 + lane
        if g in (5, 6) and 16 <= lane < 48:
            v = v * 7 if lane % 3 == 0 else v + 5
        out.append((v * 3 + g // 3) & 0xFFFFFFFF)
out = np.array(out, np.uint32)
n = WG * GROUPS

case = Case("Group batches: chunks handed back in the middle of a batch, and the groups after "
            "them")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, np.zeros(n, np.uint32), out),
                   buf(1, np.zeros(n, np.uint32), np.ones(n, np.uint32))])
