import numpy as np

from common import Case, buf, shader, tensor, tensor_el

# Invocation (gx, row) reads N consecutive elements from column gx * N of a 4x10 source tensor
# (element i = i + 1; 13 elements of padding per row, padding zero), stores them to the output
# and writes them to the same place of a destination filled with 0xA5. Columns past 10 read
# zero, and their writes are dropped.
ROWS, COLS = 4, 10
TYPES = {"i32": ("int", np.int32), "u8": ("uint8_t", np.uint8)}
case = Case("Reads and writes of N consecutive T elements (an array) that straddle the end of a "
            "row",
            shaders=[shader(f"{t}_n{n}.spv", "shader.comp", defines={"T": g, "N": n})
                     for n in (2, 3, 4) for t, (g, _) in TYPES.items()])
for n in (2, 3, 4):
    for t, (_, dt) in TYPES.items():
        src = (np.arange(ROWS * COLS) + 1).reshape(ROWS, COLS).astype(dt)
        groups = -(-COLS // n)
        out = [row * COLS + g * n + k + 1 if g * n + k < COLS else 0
               for row in range(ROWS) for g in range(groups) for k in range(n)]
        full = int.from_bytes(b"\xa5" * np.dtype(dt).itemsize, "little")
        case.run(name=f"{t}_n{n}", shader=f"{t}_n{n}.spv", dispatch=[groups, ROWS, 1],
                 bindings=[tensor(0, tensor_el(t, src, strides="padded", pad=13, fill=0)),
                           tensor(1, tensor_el(t, np.full(src.shape, full, np.uint64).astype(dt),
                                               src, strides="padded", pad=13)),
                           buf(2, np.zeros(len(out), dt), out, dtype=dt)])
