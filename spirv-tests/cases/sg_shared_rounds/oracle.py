import numpy as np

from common import Case, buf

WG = 64
out = []
for g in range(3):
    v = [lid + 100 * g for lid in range(WG)]
    for _ in range(4):
        s = list(v)
        sums = [sum(v[(lid // 32) * 32:(lid // 32) * 32 + 32]) for lid in range(WG)]
        v = [(s[(lid + 17) % WG] * 3 + sums[lid]) % 2**32 for lid in range(WG)]
    out += v

case = Case("Rounds of shared-memory writes and reads of other lanes' values around barriers, "
            "with a subgroupAdd between: compiled code, not subgroup lockstep")
case.run(dispatch=[3, 1, 1], bindings=[buf(0, np.zeros(len(out), np.uint32), out)])
