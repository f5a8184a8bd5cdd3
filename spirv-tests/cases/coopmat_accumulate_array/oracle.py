import numpy as np

from common import Case, buf

SUBGROUPS = 4  # two workgroups of two subgroups
rng = np.random.default_rng(34)
# (i, j, k): acc[k] = ma[i]·mb + acc[j]. 4 is past the end of ma[3] (a zero matrix), 2 and 7
# past the end of acc[2] (a zero matrix as C, a dropped store as the result).
STEPS = [(0, 2, 0), (2, 0, 1), (1, 1, 1), (4, 1, 0), (1, 0, 7)]

a = rng.integers(-8, 9, (3, 16, 16)) * 0.5
b = rng.integers(-8, 9, (SUBGROUPS, 16, 16)) * 0.25
c0 = rng.integers(-8, 9, (SUBGROUPS, 2, 16, 16)) * 0.125
zero = np.zeros((16, 16))
want = np.zeros((SUBGROUPS, 2, 16, 16), np.float32)
for s in range(SUBGROUPS):
    acc = [c0[s, 0], c0[s, 1]]
    for i, j, k in STEPS:
        ma = a[i] if i < 3 else zero
        c = acc[j] if j < 2 else zero
        r = ma @ b[s] + c
        if k < 2:
            acc[k] = r
    want[s] = acc

case = Case("SPV_KHR_cooperative_matrix: results stored into an array of accumulators at indices "
            "from a buffer, in place and not, some out of range (a zero matrix read, a dropped "
            "store), straight from coopMatMulAdd (f16→f32)")
case.run(dispatch=[2, 1, 1], bindings=[
    buf(0, a.astype(np.float16).reshape(-1), dtype=np.float16),
    buf(1, b.astype(np.float16).reshape(-1), dtype=np.float16),
    buf(2, np.array(STEPS, np.uint32).reshape(-1)),
    buf(3, np.zeros(want.size, np.float32), want.reshape(-1), dtype=np.float32),
    buf(4, c0.astype(np.float32).reshape(-1), dtype=np.float32)])
