import numpy as np

from common import Case, buf

# Per workgroup of 128, acc = input; six times: s[l] = acc * 3 + it (lanes l % 3 == 0) or
# acc ^ (it * 0x9E3779B9) (the others); then acc += s[(l + 16 it + 17) % 128]. Out: acc.
WG, GROUPS = 128, 3
rng = np.random.default_rng(20261206)
vals = rng.integers(0, 1 << 32, WG * GROUPS, dtype=np.uint64).astype(np.uint32)
M = 0xFFFFFFFF

out = []
for g in range(GROUPS):
    acc = [int(x) for x in vals[g * WG:(g + 1) * WG]]
    for it in range(6):
        s = [(a * 3 + it) & M if lane % 3 == 0 else a ^ ((it * 0x9E3779B9) & M)
             for lane, a in enumerate(acc)]
        acc = [(a + s[(lane + 16 * it + 17) % WG]) & M for lane, a in enumerate(acc)]
    out += acc

case = Case("A loop around two barriers whose chunks are handed back before the first one: "
            "barrier rounds interrupted mid-round keep every chunk behind the first barrier")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, vals), buf(1, np.zeros(len(out), np.uint32), np.array(out, np.uint32))])
