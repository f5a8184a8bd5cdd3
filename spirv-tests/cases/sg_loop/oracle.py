import numpy as np

from common import Case, ballot, buf, spec_size, subgroups

# Lane l loops l % 5 times adding subgroupAdd(1) * 100 + subgroupBallotBitCount(ballot(true))
# (iteration k runs with the lanes whose trip count exceeds k), then lanes with l % 7 == 3
# return before storing subgroupBallot(true).x.
NWG = 3
case = Case("Subgroup operations in a loop with per-lane trip counts and after an early return")
for wgs in [32, 64, 40, 12]:
    n = wgs * NWG
    o = np.zeros((n, 2), np.uint32)

    def trips(g):
        return (g % wgs) % 5

    def live(g):
        return (g % wgs) % 7 != 3

    for sg in subgroups(wgs, NWG):
        alive = ballot(sg, live)
        for g in sg:
            acc = sum(sum(1 for h in sg if trips(h) > k) * 101 for k in range(trips(g)))
            o[g] = [acc, alive if live(g) else 0]
    case.run(name=f"wgs{wgs}", dispatch=[NWG, 1, 1], spec=spec_size(wgs),
             bindings=[buf(0, np.zeros(o.size, np.uint32), o.reshape(-1))])
