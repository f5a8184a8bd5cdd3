import numpy as np

from common import Case, buf

N = 64            # two workgroups of 32: every chunk has lanes on every path
K, TRIPS = 2, 3
o = np.zeros((N, 8), np.uint32)
for i in range(N):
    acc = [i * 8 + n for n in range(8)]
    if i % 3 == 1:
        acc[K] += 1000
        for j in range(TRIPS):
            acc[(j + i) % 8] += 100 * (j + 1)
    else:
        acc[i % 8] = 5000 + acc[(i + 1) % 8]
        if i % 4 == 0:
            acc[K + 1] *= 3
    o[i] = [acc[(n + K) % 8] for n in range(8)]

case = Case("stores into an eight-element local array indexed at run time (kept in rows) inside "
            "divergent branches whose paths meet again, at uniform, varying and loop indices")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, np.array([K, TRIPS], np.uint32), None),
                   buf(1, np.zeros(N * 8, np.uint32), o.reshape(-1))])
