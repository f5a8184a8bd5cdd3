import numpy as np

from common import Case, buf, tensor, tensor_el

# Two 64x32 tensors: w[t][r][k] = 1000 r + k + 100000 t. acc = acc * 3 + w[k & 1][row][k] over
# k = 0..31, wrapping at 32 bits.
ROWS, COLS = 64, 32
w = [(np.arange(ROWS * COLS, dtype=np.int64).reshape(ROWS, COLS) // COLS * 1000
      + np.arange(COLS) + 100000 * t).astype(np.int32) for t in range(2)]
out = []
for row in range(ROWS):
    acc = 0
    for k in range(COLS):
        acc = (acc * 3 + int(w[k & 1][row][k])) & 0xFFFFFFFF
    out.append(acc)
out = np.array(out, np.uint32).view(np.int32)

case = Case("A loop reading w[k & 1][row, k] through an array of two tensors of one shape: each "
            "iteration reads its own tensor (no tile shared between them)")
case.run(dispatch=[1, 1, 1],
         bindings=[tensor(0, *[tensor_el("i32", t) for t in w]),
                   buf(1, np.zeros(ROWS, np.int32), out, dtype=np.int32)])
