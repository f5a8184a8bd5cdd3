import numpy as np

from common import Case, Rng, ballot, buf, shader, spec_size, subgroups

# 24 words per invocation (see the shader); words 15..23 only in the divergent branch
# (gl_LocalInvocationIndex % 3 != 0), 0 elsewhere. Not compared: subgroupBroadcast(x, 5) in a
# subgroup of 5 or fewer lanes, and FindLSB/FindMSB of an empty ballot (undefined).
NWG = 3


def popcount(x):
    return bin(x).count("1")


def lanes_below(b, k):       # ballot bits of positions < k
    return b & ((1 << k) - 1)


def lanes_upto(b, k):        # ballot bits of positions <= k
    return b & ((2 << k) - 1)


case = Case("Subgroup vote and ballot operations, uniform and in a divergent branch; also after "
            "spirv-opt -O",
            shaders=[shader("shader.spv", "shader.comp"), shader("opt.spv", optimize="shader.spv")])
for spv, prefix, sizes in [("shader.spv", "", [32, 64, 96, 40, 8]), ("opt.spv", "opt_", [64, 40])]:
    for wgs in sizes:
        n = wgs * NWG
        rng = Rng(0x5EED_0000 + wgs)
        v = [rng.next() % 1000 for _ in range(n)]
        sgs = subgroups(wgs, NWG)
        # Subgroup 1: all in 128..192 (all equal / 64); subgroup 2: one 7 and one value >= 1000.
        if len(sgs) > 1:
            for g in sgs[1]:
                v[g] = 128 + v[g] % 64
        if len(sgs) > 2:
            v[sgs[2][len(sgs[2]) // 2]] = 7
            v[sgs[2][-1]] = 5000

        def dv(g):
            return (g % wgs) % 3 != 0

        o = np.zeros((n, 24), np.uint32)
        mask = np.ones((n, 24), bool)
        for sg in sgs:
            def every(act, f):
                return all(f(v[g]) for g in sg if act(g))

            def some(act, f):
                return any(f(v[g]) for g in sg if act(g))

            def anyone(g):
                return True

            x0 = v[sg[0]]
            b = ballot(sg, lambda g: v[g] & 1)
            dfirst = next((g for g in sg if dv(g)), None)
            bd = ballot(sg, dv)
            bdo = ballot(sg, lambda g: dv(g) and v[g] & 1)
            for k, g in enumerate(sg):
                x = v[g]
                idx = x % 40
                w = [int(every(anyone, lambda y: y < 1000)), int(some(anyone, lambda y: y == 7)),
                     int(every(anyone, lambda y: y // 64 == x0 // 64)),
                     int(every(anyone, lambda y: y // 64 == x0 // 64
                               and y & 0x100 == x0 & 0x100)),
                     b, 0, (x >> k) & 1, (b >> idx) & 1 if idx < 32 else 0, popcount(b),
                     popcount(lanes_upto(b, k)), popcount(lanes_below(b, k)),
                     (b & -b).bit_length() - 1 if b else 0, b.bit_length() - 1 if b else 0,
                     v[sg[5]] if len(sg) > 5 else 0, x0]
                if b == 0:
                    mask[g, 11:13] = False
                if len(sg) <= 5:
                    mask[g, 13] = False
                if dv(g):
                    dx0 = v[dfirst]
                    w += [int(every(dv, lambda y: y < 1000)), bd, bdo,
                          popcount(lanes_below(bdo, k)) + 100 * popcount(lanes_upto(bdo, k)), dx0,
                          int(every(dv, lambda y: y // 64 == dx0 // 64)),
                          int(some(dv, lambda y: y == 7)), int(g == dfirst), bd.bit_length() - 1]
                else:
                    w += [0] * 9
                o[g] = w
        case.run(name=f"{prefix}wgs{wgs}", shader=spv, dispatch=[NWG, 1, 1], spec=spec_size(wgs),
                 bindings=[buf(0, v), buf(1, np.zeros(o.size, np.uint32), o.reshape(-1),
                                         mask=mask.reshape(-1))])
