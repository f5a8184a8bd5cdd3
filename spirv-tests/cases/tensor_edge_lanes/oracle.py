import numpy as np

from common import Case, buf, tensor, tensor_el

# A 5x37 tensor probed on a 48x6 grid: the last chunk of each row runs past the end, row 5 is
# wholly out of bounds.
ROWS, COLS, W, H = 5, 37, 48, 6
src = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 3 + 1).astype(np.int32)


def at(y, x, oob):
    return int(src[y, x]) if y < ROWS and x < COLS else oob


out = []
runs = np.zeros((ROWS, COLS), np.int32)
scattered = np.full((ROWS, COLS), -1, np.int32)
for y in range(H):
    for x in range(W):
        gx = (x * 7) % 53
        out += [at(y, x, -100), at(y, x, 0), at(y, x + 1, 0), at(y, x + 2, 0),
                at(y, x, -5), at(y, x + 1, -5), at(y, gx, -9)]
        if x % 2 == 0 and y < ROWS:
            for j, v in enumerate([x * 10 + y, x * 10 + y + 1000]):
                if x + j < COLS:
                    runs[y, x + j] = v
        if y < ROWS and gx < COLS:
            scattered[y, gx] = y * 100 + x

case = Case("chunks that run past a tensor's edge: reads of one element and of runs (with an "
            "out-of-bounds value and without), gathered reads and writes, runs written, "
            "a row wholly out of bounds")
case.run(dispatch=[W // 16, H, 1],
         bindings=[tensor(0, tensor_el("i32", src, src, strides="padded")),
                   tensor(1, tensor_el("i32", np.zeros((ROWS, COLS), np.int32), runs)),
                   tensor(2, tensor_el("i32", np.full((ROWS, COLS), -1, np.int32), scattered)),
                   buf(3, np.zeros(len(out), np.int32), out, dtype=np.int32)])
