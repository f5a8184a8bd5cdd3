import numpy as np

from common import Case, buf

N = 64            # two workgroups of 32: every chunk's lanes leave the loop at different steps
rng = np.random.default_rng(7)
v = rng.integers(0, 1 << 20, N, dtype=np.uint32)
v[::5] = 0        # some lanes never enter the loop
v[3] = 1
o = np.zeros((N, 8), np.uint32)
for i in range(N):
    hist = list(range(8))
    x = int(v[i])
    steps = 0
    while True:
        if x == 0:
            hist[(steps + 3) % 8] += 1000
            break
        hist[x % 8] += 1
        if (x & 3) == 1:
            hist[(x >> 3) % 8] += 20
        x //= 3
        steps += 1
    o[i] = [hist[(n + steps) % 8] + steps * 100000 for n in range(8)]

case = Case("stores into an eight-element local array indexed at run time (kept in rows) inside "
            "a loop whose lanes leave at different iterations, on a divergent branch inside it "
            "and on the exit's path")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, v, None),
                   buf(1, np.zeros(N * 8, np.uint32), o.reshape(-1))])
