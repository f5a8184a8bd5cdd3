import numpy as np

from common import Case, buf

N = 16
rng = np.random.default_rng(20261207)
a = rng.uniform(-4, 4, N * 8).round(2).astype(np.float32)
n = np.array([1 + (k * 5) % 8 for k in range(N)], np.uint32)
out = []
for k in range(N):
    s = np.float32(0)
    for i in range(n[k]):
        s = np.float32(s + a[8 * k + i])
    t = np.float32(1000)
    for i in range(n[k]):
        t = np.float32(t + a[8 * k + i])
    out += [s, t]

case = Case("Loop results in Function variables written every iteration and read only after the "
            "loop (IREE's form), lanes leaving at different iterations; the same loop inside an "
            "outer loop whose second round runs no iteration keeps the first round's value "
            "(SPIR-V assembly)")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, a, dtype=np.float32), buf(1, n),
                   buf(2, np.zeros(2 * N, np.float32), np.array(out, np.float32),
                       dtype=np.float32)])
