import numpy as np

from common import Case, buf, tensor, tensor_el

# A 3x5 int tensor (13 elements of padding per row, padding bytes 0xA5) probed by an 8x4 grid
# of invocations (x = column, y = row): reads with the OOB value -7 and without (zero), then a
# write of 100 + y * 8 + x that only lands in bounds.
ROWS, COLS = 3, 5
t = (np.arange(ROWS * COLS).reshape(ROWS, COLS) * 11).astype(np.int32)
written = t.copy()
out = []
for y in range(4):
    for x in range(8):
        inb = x < COLS and y < ROWS
        out += [int(t[y, x]) if inb else -7, int(t[y, x]) if inb else 0]
        if inb:
            written[y, x] = 100 + y * 8 + x

case = Case("Out-of-bounds reads (OOB value or zero) and writes (dropped) on a padded 3x5 "
            "tensor probed on an 8x4 grid")
case.run(dispatch=[8, 4, 1],
         bindings=[tensor(0, tensor_el("i32", t, written, strides="padded", pad=13)),
                   buf(1, np.zeros(len(out), np.int32), out, dtype=np.int32)])
