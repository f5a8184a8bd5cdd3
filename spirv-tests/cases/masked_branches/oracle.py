import numpy as np

from common import Case, buf

# r = 7 + workgroup; r = x + y if x < y else y - x * r; f = x * 0.5 (float32) if x is even
# else 1.0; p[i] = r where x > y (else p keeps its initial value); o[i] = r ^ bits(f).
N, WG = 256, 64
rng = np.random.default_rng(20261208)
a = rng.integers(0, 1 << 20, N).astype(np.uint32)
b = rng.integers(0, 1 << 20, N).astype(np.uint32)
M = 0xFFFFFFFF
p_init = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
o, p = [], p_init.copy()
for i in range(N):
    x, y = int(a[i]), int(b[i])
    r = 7 + i // WG
    r = (x + y) & M if x < y else (y - x * r) & M
    f = np.float32(x) * np.float32(0.5) if x % 2 == 0 else np.float32(1.0)
    if x > y:
        p[i] = r
    o.append(r ^ int(np.array([f], np.float32).view(np.uint32)[0]))

case = Case("Divergent if/else whose arms define values merged at the join (a diamond, a float "
            "triangle) and a triangle that stores")
case.run(dispatch=[N // WG, 1, 1],
         bindings=[buf(0, a), buf(1, b), buf(2, np.zeros(N, np.uint32), np.array(o, np.uint32)),
                   buf(3, p_init, p)])
