import numpy as np

from common import Case, buf, tensor, tensor_el

# Rows of 10; each invocation reads/writes 4 consecutive elements along the innermost
# dimension starting at column 4*g: the last group (columns 8..11) straddles the end.
ROWS, COLS, N = 3, 10, 4
groups = (COLS + N - 1) // N
a = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 7 - 50).astype(np.int32)
b = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 3 + 1).astype(np.uint8)
out_i, out_u = [], []
for r in range(ROWS):
    for g in range(groups):
        cols = [g * N + k for k in range(N)]
        out_i += [int(a[r, c]) if c < COLS else -1 for c in cols]   # with an OOB value of -1
        out_u += [int(b[r, c]) if c < COLS else 0 for c in cols]    # without: zero
wi = (a + 1000).astype(np.int32)
wu = (b.astype(np.int32) ^ 0x5A).astype(np.uint8)

case = Case("Array reads and writes of 4 elements along the innermost dimension, straddling "
            "its end, with and without an out-of-bounds value")
case.run(dispatch=[groups, ROWS, 1],
         bindings=[tensor(0, tensor_el("i32", a, a, strides="padded")),
                   tensor(1, tensor_el("u8", b, b)),
                   tensor(2, tensor_el("i32", np.zeros_like(a), wi, strides="padded")),
                   tensor(3, tensor_el("u8", np.zeros_like(b), wu, strides="padded")),
                   buf(4, np.zeros(len(out_i), np.int32), out_i, dtype=np.int32),
                   buf(5, np.zeros(len(out_u), np.uint8), out_u, dtype=np.uint8)])
