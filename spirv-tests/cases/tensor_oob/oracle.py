import numpy as np

from common import Case, buf, tensor, tensor_el

# A 3x5 tensor probed on an 8x4 grid (x = column, y = row) plus huge coordinates.
ROWS, COLS = 3, 5
t = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 11).astype(np.int32)
f = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 0.25).astype(np.float32)
out, outf = [], []
written = t.copy()
for y in range(4):
    for x in range(8):
        inb = x < COLS and y < ROWS
        out += [int(t[y, x]) if inb else -7, int(t[y, x]) if inb else 0]
        outf += [float(f[y, x]) if inb else 1.5, float(f[y, x]) if inb else 0.0]
        if inb:
            written[y, x] = 100 + y * 8 + x
# Invocation (0, 0) also reads at (0xFFFFFFFF, 0), (0, 0x80000000), (3, 0) and (0, 5), and
# writes at the first two: all out of bounds.
huge = [-7, 0, -7, -7]

case = Case("Out-of-bounds tensor reads (with an OOB value or zero) and writes (dropped) on a "
            "padded 3x5 tensor, including huge coordinates")
case.run(dispatch=[8, 4, 1],
         bindings=[tensor(0, tensor_el("i32", t, written, strides="padded")),
                   tensor(1, tensor_el("f32", f, f, strides="padded")),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32),
                   buf(3, np.zeros(len(outf), np.float32), outf, dtype=np.float32),
                   buf(4, np.zeros(4, np.int32), huge, dtype=np.int32)])
