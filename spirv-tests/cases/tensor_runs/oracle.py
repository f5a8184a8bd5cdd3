import numpy as np

from common import Case, buf, shader, tensor, tensor_el

ROWS, COLS = 5, 70
GX, GY = 128, 6
rng = np.random.default_rng(29)
src = rng.integers(-1000, 1000, (ROWS, COLS)).astype(np.int32)
# Each lane's row: its y (row 5 lies past the end), except one lane of the chunk at x 32..47 of
# row 2, which reads row 3.
rows = np.repeat(np.arange(GY, dtype=np.uint32), GX)
rows[2 * GX + 40] = 3


def read(r, c, oob):
    c = int(c) & 0xFFFFFFFF
    return int(src[r, c]) if r < ROWS and c < COLS else oob


out = np.zeros(GX * GY * 7, np.int32)
dst = np.full((ROWS, COLS), -1, np.int32)
runs = np.full((ROWS, COLS), -1, np.int32)
for y in range(GY):
    for x in range(GX):
        lane = y * GX + x
        r = int(rows[lane])
        cx = min(x, 69)
        v = read(r, cx, -7)
        c4 = min(x, 20) * 4
        # Element by element: those past the row's end read the oob value.
        run = [read(r, c4 + j, -8) for j in range(4)]
        w = read(r, min(x, 1000) + 0xFFFFFFF8, -9)
        odd = read(r, cx, -6) if x % 2 else -6
        out[lane * 7:lane * 7 + 7] = [v, *run, w, odd]
        if r < ROWS:
            dst[r, cx] = v + 1000
            # Element by element: those past the row's end are dropped.
            for j in range(4):
                if c4 + j < COLS:
                    runs[r, c4 + j] = run[j] + 1 + j

case = Case("Tensor accesses at coordinates that form runs only at run time: rows from a "
            "buffer, clamped columns, 4-element arrays read and written, a wrapped column, a read "
            "under a branch; packed and padded "
            "views",
            shaders=[shader("shader.spv", "shader.comp")])
for name, strides in [("packed", "packed"), ("padded", "padded")]:
    case.run(name=name, shader="shader.spv", dispatch=[GX // 64, GY, 1],
             bindings=[tensor(0, tensor_el("i32", src, strides=strides)),
                       tensor(1, tensor_el("i32", np.full((ROWS, COLS), -1, np.int32), dst,
                                           strides=strides)),
                       buf(2, rows), buf(3, np.zeros_like(out), out, dtype=np.int32),
                       tensor(4, tensor_el("i32", np.full((ROWS, COLS), -1, np.int32), runs,
                                           strides=strides))])
