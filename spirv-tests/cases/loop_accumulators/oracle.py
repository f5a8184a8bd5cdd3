import numpy as np

from common import Case, buf

N = 64
M32 = 0xFFFFFFFF
rng = np.random.default_rng(20261208)
a = np.concatenate([rng.integers(0, 1000, N + 12), [3, 4, 6]]).astype(np.uint32)
o = np.full(48, 0xDEADBEEF, np.uint32)
c = np.zeros(N, np.uint32)
e = np.zeros(2 * N, np.uint32)
m = np.concatenate([np.zeros(N, np.uint32), np.array([3, 5, 7, 11], np.uint32)])
t = np.arange(N, dtype=np.uint32) * 10
want = {k: [int(x) for x in v] for k, v in dict(o=o, c=c, e=e, m=m, t=t).items()}
for i in range(N):
    if i < 48:
        acc = 7
        for y in range(3):
            for x in range(4):
                acc = (acc + int(a[(i + y * 4 + x) % 64]) * int(a[64 + y * 4 + x])) & M32
        want["o"][i] = acc
    v = i
    for k in range(i % 5):
        v = (v * 3 + k) & M32
        if (i + k) & 3 == 3:
            break
    want["c"][i] = v
    v, n = 1, 0
    for k in range(6):
        v += k + (i & 3)
        n += v > 8
    want["e"][i], want["e"][i + 64] = v, n
    want["m"][i] = i + 3 + 5 + 7 + 11
    for k in range(i % 3):
        want["t"][i] += k + 1

case = Case("Loop accumulators in buffer words kept in registers across their loops: nested "
            "loops, a break with per-lane trip counts (none included), words past the binding's "
            "end; words a branch reads, beside other accesses of their binding or not stored "
            "before the loop stay in memory")
bindings = [buf(0, a), buf(1, o, np.array(want["o"], np.uint32)),
            buf(2, c, np.array(want["c"], np.uint32)), buf(3, e, np.array(want["e"], np.uint32)),
            buf(4, m, np.array(want["m"], np.uint32)), buf(5, t, np.array(want["t"], np.uint32))]
case.run(dispatch=[2, 1, 1], bindings=bindings)
