import numpy as np

from common import SUBGROUP_SIZE, Case, buf, spec_size, subgroups

# 12 words per invocation: gl_SubgroupSize, gl_SubgroupInvocationID, gl_NumSubgroups,
# gl_SubgroupID, subgroupElect(), the Eq/Ge/Gt/Le/Lt masks' .x, their other words (0), and in the
# branch taken by gl_LocalInvocationIndex % 3 != 0 elect (1 for the first active lane, else 2),
# 3 outside it.
NWG = 5
case = Case("Subgroup built-ins, masks, elect and subgroup barriers on full, multiple and "
            "partial subgroups")
for lx, ly in [(32, 1), (64, 1), (96, 1), (40, 1), (8, 5), (7, 1), (1, 1)]:
    wgs = lx * ly

    def div(g):
        return (g % wgs) % 3 != 0

    o = np.zeros((wgs * NWG, 12), np.uint32)
    for sg in subgroups(wgs, NWG):
        first_div = next((k for k, g in enumerate(sg) if div(g)), None)
        for s, g in enumerate(sg):
            ge = (0xFFFFFFFF << s) & 0xFFFFFFFF
            gt = (0xFFFFFFFE << s) & 0xFFFFFFFF
            d = 3 if not div(g) else 1 if s == first_div else 2
            o[g] = [SUBGROUP_SIZE, s, -(-wgs // SUBGROUP_SIZE), (g % wgs) // SUBGROUP_SIZE,
                    int(s == 0), 1 << s, ge, gt, ~gt & 0xFFFFFFFF, ~ge & 0xFFFFFFFF, 0, d]
    case.run(name=f"{lx}x{ly}", dispatch=[NWG, 1, 1], spec=spec_size(lx, ly),
             bindings=[buf(0, np.zeros(o.size, np.uint32), o.reshape(-1))])
