import numpy as np

from common import Case, buf, shader, tensor, tensor_el

# W[r, k] = value(r, k); every row's loop folds acc = acc * 31 + W[r, k] (wrapping int32) over
# k = 0..cols, and at k = 20 and k = 37 (when they are columns) writes W[r, k + 3] = W[r, k] +
# 1000 first read three iterations later. Rows: 64 (two whole workgroups, every chunk's lanes in
# the loop together) and 37 (a partial chunk). Strides: packed (the last rows' tiles would
# reach past the tensor's memory: those reads gather), padded rows, and rows 4 KiB apart.

case = Case("A loop reading W[row, k] (row per invocation, k the loop counter) that writes "
            "W[row, k + 3] ahead of its reads: tiled strided reads see the write",
            shaders=[shader("shader.spv", "shader.comp")])


def value(r, k):
    return ((r * 7919 + k * 104729) % 20011) - 10000


def run(name, rows, cols, strides):
    w = np.array([[value(r, k) for k in range(cols)] for r in range(rows)], np.int32)
    after = w.copy()
    sums = np.zeros(rows, np.uint32)
    for r in range(rows):
        acc = 7
        for k in range(cols):
            acc = (acc * 31 + int(after[r, k])) & 0xFFFFFFFF
            if k in (20, 37) and k + 3 < cols:
                after[r, k + 3] = after[r, k] + 1000
        sums[r] = acc
    if strides == "pow2":
        strides = [4096, 4]
    case.run(name=name, shader="shader.spv", dispatch=[(rows + 31) // 32, 1, 1],
             bindings=[tensor(0, tensor_el("i32", w, after, strides=strides, pad=5)),
                       buf(1, np.zeros(rows, np.uint32), sums)])


run("packed_64x45", 64, 45, "packed")
run("padded_64x48", 64, 48, "padded")
run("packed_37x40", 37, 40, "packed")
run("pow2_64x45", 64, 45, "pow2")
