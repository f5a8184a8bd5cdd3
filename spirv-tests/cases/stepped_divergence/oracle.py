import numpy as np

from common import Case, buf

# Workgroups of 32 (one subgroup). Lane l runs the loop l % 4 times when l % 3 != 0; iteration k
# runs with the lanes whose trip count exceeds k, so subgroupAdd(k + 1) is (k + 1) times their
# number. arr starts as 0..N-1; each iteration adds s at (acc + l) % N.
NWG, N = 3, 8


def trips(lane):
    return lane % 4 if lane % 3 != 0 else 0


o = np.zeros((32 * NWG, 3), np.uint32)
for g in range(32 * NWG):
    lane = g % 32
    arr = list(range(N))
    acc = 0
    for k in range(trips(lane)):
        s = (k + 1) * sum(1 for h in range(32) if trips(h) > k)
        acc += s
        arr[(acc + lane) % N] += s
    o[g] = [acc, arr[g % N], arr[(g + 5) % N]]

case = Case("Divergent loops around a subgroup reduction and a local array store, run block "
            "by block")
case.run(dispatch=[NWG, 1, 1], bindings=[buf(0, np.zeros(o.size, np.uint32), o.reshape(-1))])
