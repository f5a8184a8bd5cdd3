import numpy as np

from common import Case, Rng, buf, spec_size, subgroups

# 20 words per invocation (see the shader; 16..19 are never written). An output is compared
# only where it is defined: its source lane exists and, in the divergent branch
# (gl_LocalInvocationIndex % 3 != 0), is active; outputs of that branch are 0 in other lanes.
NWG = 3
case = Case("Subgroup shuffles (index, xor, up, down), quad broadcasts and swaps, uniform and "
            "divergent")
for wgs in [32, 64, 96, 40, 6]:
    n = wgs * NWG
    rng = Rng(0x5_4FF1E + wgs)
    v = [rng.next() % 1_000_000 for _ in range(n)]
    s = [rng.next() % 40 for _ in range(n)]

    def div(g):
        return (g % wgs) % 3 != 0

    o = np.zeros((n, 20), np.uint32)
    mask = np.zeros((n, 20), bool)
    for sg in subgroups(wgs, NWG):
        for k, g in enumerate(sg):
            def src(q, divergent=False):
                """v of subgroup position q, or None when undefined."""
                if q is None or q >= len(sg) or (divergent and not div(sg[q])):
                    return None
                return v[sg[q]]

            dv = div(g)
            lane = s[g]
            from_15 = src(k + 1)
            want = {0: src(lane), 1: src(k ^ 5), 2: src(k - 3 if k >= 3 else None),
                    3: src(k + 3), 4: src(lane), 5: src(lane), 6: src(k ^ 16),
                    11: src((k & ~3) + 2), 12: src(k ^ 1), 13: src(k ^ 2), 14: src(k ^ 3),
                    15: None if from_15 is None else from_15 & 1,
                    7: src(lane, True) if dv else 0, 8: src(k ^ 1, True) if dv else 0,
                    9: src(k - 1 if k >= 1 else None, True) if dv else 0,
                    10: src(k + 2, True) if dv else 0}
            for j, w in want.items():
                if w is not None:
                    o[g, j] = w
                    mask[g, j] = True
    case.run(name=f"wgs{wgs}", dispatch=[NWG, 1, 1], spec=spec_size(wgs),
             bindings=[buf(0, v), buf(1, s),
                       buf(2, np.zeros(o.size, np.uint32), o.reshape(-1), mask=mask.reshape(-1))])
