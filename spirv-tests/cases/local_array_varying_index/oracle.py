import numpy as np

from common import Case, buf

N = 96          # three workgroups of 32
rng = np.random.default_rng(20261204)
x = (rng.integers(-64, 64, 40) / 8.0).astype(np.float32)
table = (x * np.arange(1, 41, dtype=np.float32)).astype(np.float32)

y = np.zeros(N, np.float32)
z = np.zeros(N, np.uint32)
for i in range(N):
    flags = [i % 2 == 0, i % 3 == 0, i % 5 == 0]
    y[i] = table[(i * 7) % 40] + (np.float32(0.5) if flags[i % 3] else np.float32(0.0))
    ids = [k * 3 for k in range(24)]
    ids[(i * 5) % 24] = 1000 + i
    z[i] = ids[(i * 5) % 24] + ids[i % 24]

case = Case("local arrays read at a varying index: a float table kept in rows, a uint table "
            "written at a varying index first, a small bool array")
case.run(dispatch=[3, 1, 1],
         bindings=[buf(0, x, x, dtype=np.float32),
                   buf(1, np.zeros(N, np.float32), y, dtype=np.float32),
                   buf(2, np.zeros(N, np.uint32), z)])
