import numpy as np

from common import SUBGROUP_SIZE, Case, ballot, buf, spec_size, subgroups

# 6 words per invocation: subgroupAdd(l + 1), subgroupBallot(true).x, subgroupBroadcastFirst
# of the workgroup id, subgroupMax(wg * 1000 + l), subgroupExclusiveAdd(1),
# gl_SubgroupInvocationID + 100 * gl_NumSubgroups.
NWG = 37
case = Case("Tiny workgroups (which the interpreter fuses) must each be their own subgroup")
for wgs in [1, 3, 8, 24, 32, 40]:
    n = wgs * NWG
    o = np.zeros((n, 6), np.uint32)
    for sg in subgroups(wgs, NWG):
        wg = sg[0] // wgs
        total = sum(g % wgs + 1 for g in sg)
        maxl = sg[-1] % wgs
        for k, g in enumerate(sg):
            o[g] = [total, ballot(sg, lambda _: True), wg, wg * 1000 + maxl, k,
                    k + 100 * -(-wgs // SUBGROUP_SIZE)]
    case.run(name=f"wgs{wgs}", dispatch=[NWG, 1, 1], spec=spec_size(wgs),
             bindings=[buf(0, np.zeros(o.size, np.uint32), o.reshape(-1))])
