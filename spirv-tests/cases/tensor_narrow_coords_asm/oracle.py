import numpy as np

from common import Case, buf, tensor, tensor_el

n = 320
src = (np.arange(600).reshape(2, 300) + np.array([[0], [1000]])).astype(np.int32)
dst = np.full((2, 300), -7, np.int32)
want = dst.copy()
out = []
for i in range(n):
    c8 = (i + 8) % 256
    s16 = i - 4
    out += [int(src[0, c8]), int(src[0, s16]) if 0 <= s16 < 300 else -1]
    if i < 256:
        want[1, c8] = i

case = Case("Tensor reads and writes along a row with 8- and 16-bit coordinates whose lanes wrap "
            "within a chunk (SPIR-V assembly)")
case.run(dispatch=[n // 64, 1, 1],
         bindings=[tensor(0, tensor_el("i32", src, src)),
                   tensor(1, tensor_el("i32", dst, want)),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
