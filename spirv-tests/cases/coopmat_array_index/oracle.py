import numpy as np

from common import Case, buf

SUBGROUPS = 4  # two workgroups of two subgroups
rng = np.random.default_rng(33)
# (i, j): ma[i]·mb + acc[j]; 5 and 3 are past the ends of ma[3] and acc[2] (a zero matrix).
PICKS = [(0, 0), (2, 1), (5, 0), (1, 3)]

a = rng.integers(-8, 9, (3, 16, 16)) * 0.5
b = rng.integers(-8, 9, (SUBGROUPS, 16, 16)) * 0.25
acc = [np.full((16, 16), 1.0), np.full((16, 16), -2.5)]
zero = np.zeros((16, 16))
want = np.zeros((SUBGROUPS, len(PICKS), 16, 16), np.float32)
for s in range(SUBGROUPS):
    for p, (i, j) in enumerate(PICKS):
        ma = a[i] if i < 3 else zero
        c = acc[j] if j < 2 else zero
        want[s, p] = ma @ b[s] + c

case = Case("SPV_KHR_cooperative_matrix: arrays of matrices picked by indices from a buffer, some "
            "out of range (a zero matrix), straight into coopMatMulAdd (f16→f32)")
case.run(dispatch=[2, 1, 1], bindings=[
    buf(0, a.astype(np.float16).reshape(-1), dtype=np.float16),
    buf(1, b.astype(np.float16).reshape(-1), dtype=np.float16),
    buf(2, np.array(PICKS, np.uint32).reshape(-1)),
    buf(3, np.zeros(want.size, np.float32), want.reshape(-1), dtype=np.float32)])
