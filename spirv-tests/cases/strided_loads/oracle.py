import numpy as np

from common import Case, buf

N = 32          # two workgroups of 16
ROWS = 20       # uvec4s in the buffer: lanes 20.. of a[i], lanes 10.. of a[2i + 1] are outside
rng = np.random.default_rng(20261204)
a = rng.integers(0, 1 << 32, (ROWS, 4), dtype=np.uint64).astype(np.uint32)

o = np.zeros((N, 8), np.uint32)
for i in range(N):
    if i < ROWS:
        o[i, :4] = a[i]
    if 2 * i + 1 < ROWS:
        o[i, 4:] = a[2 * i + 1]

case = Case("buffer loads at an affine address with a stride wider than the access (uvec4 "
            "components, every other uvec4), partly past the buffer's end (robust access: 0)")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, a.reshape(-1), a.reshape(-1)),
                   buf(1, np.zeros(N * 8, np.uint32), o.reshape(-1))])
