import numpy as np

from common import Case, buf

N = 64            # two workgroups of 32: every chunk has lanes on all three paths
COLS, ROWS = 2, 3
o = np.zeros((N, 3), np.uint32)
for i in range(N):
    acc = [i * 7, i * 7 + 1, i * 7 + 2]
    if i % 3 == 1:
        for j in range(COLS):
            for n in range(ROWS):
                acc[n] += 100 * (j + 1) + n
    elif i % 4 == 0:
        acc[i % 3] = 5000 + i
    o[i] = acc

case = Case("stores into a small local array inside divergent branches whose paths meet again, "
            "at a loop counter's index in nested loops and at a varying index")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, np.array([COLS, ROWS], np.uint32), None),
                   buf(1, np.zeros(N * 3, np.uint32), o.reshape(-1))])
