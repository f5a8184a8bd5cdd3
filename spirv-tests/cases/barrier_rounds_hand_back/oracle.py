import numpy as np

from common import Case, buf

# Per workgroup of 128: s = inputs; for step = 64, 32, ..., 1: s[l] += s[l + step] (times 3 when
# step is 16) for l < step; in the step-8 round each lane also writes s[l] * 7 (lanes l % 3 == 0)
# or s[l] + 5 (the others) and keeps extra = s[l]. Out: those writes, extra per invocation, then
# s[0] per workgroup. Starts: 1 per invocation.
WG, GROUPS = 128, 3
rng = np.random.default_rng(20261201)
vals = rng.integers(0, 1 << 20, WG * GROUPS).astype(np.uint32)
M = 0xFFFFFFFF

writes, extras, sums = [], [], []
for g in range(GROUPS):
    s = [int(x) for x in vals[g * WG:(g + 1) * WG]]
    extra = [0] * WG
    step = 64
    while step > 0:
        for lane in range(step):
            s[lane] = (s[lane] + s[lane + step] * (3 if step == 16 else 1)) & M
        if step == 8:
            for lane in range(WG):
                x = s[lane]
                writes.append((x * 7) & M if lane % 3 == 0 else (x + 5) & M)
                extra[lane] = x
        step >>= 1
    extras += extra
    sums.append(s[0])
out = np.array(writes + extras + sums, np.uint32)

case = Case("Barrier rounds in compiled code with a divergent loop between two barriers of one "
            "round: the chunks handed back mid-round and the ones after them")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, vals), buf(1, np.zeros(len(out), np.uint32), out),
                   buf(2, np.zeros(WG * GROUPS, np.uint32), np.ones(WG * GROUPS, np.uint32))])
