import numpy as np

from common import Case, buf, tensor, tensor_el

ROWS, COLS, N = 5, 8, 64
w = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 3 - 50).astype(np.int32)
x = (np.arange(COLS) + 1).astype(np.int32)
out = []
for row in range(N):
    acc = 0
    for k in range(10):
        wv = int(w[row, k]) if row < ROWS and k < COLS else 0
        xv = int(x[k]) if k < COLS else 0
        acc += wv * (k + 1) + xv * 1000
    out.append(acc)

case = Case("A dense-layer-shaped loop whose lanes are rows of a 5x8 tensor (rows past 5 out of "
            "bounds) and whose counter runs past the columns and past a rank-1 tensor read at it")
case.run(dispatch=[N // 32, 1, 1],
         bindings=[tensor(0, tensor_el("i32", w, w)),
                   tensor(1, tensor_el("i32", x, x)),
                   buf(2, np.zeros(N, np.int32), out, dtype=np.int32)])
