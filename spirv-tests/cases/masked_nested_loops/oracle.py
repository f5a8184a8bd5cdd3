import numpy as np

from common import Case, buf

N = 64            # two workgroups of 32: every chunk has lanes on both sides of the branch
COLS, ROWS = 2, 3
o = np.zeros(64 + 13 * 8, np.uint32)
for i in range(N):
    t = i * 3
    acc = 0
    if i % 5 == 0:
        for j in range(COLS):
            for n in range(ROWS):
                o[64 + (i // 5) * 8 + j * ROWS + n] = t + j * 10 + n
                acc += n + 2 * j + 1
    o[i] = acc + t

case = Case("a divergent branch whose side runs nested loops with uniform trip counts and "
            "meets the other side again")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, np.array([COLS, ROWS], np.uint32), None),
                   buf(1, np.zeros_like(o), o)])
