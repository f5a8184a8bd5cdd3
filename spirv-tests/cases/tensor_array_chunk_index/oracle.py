import numpy as np

from common import Case, buf, tensor, tensor_el

N = 128
# Source tensor k has 40 + 10k elements, 100k + 0.. ; the destinations 128 elements of -1.
src = [np.arange(40 + 10 * k, dtype=np.int32) + 100 * k for k in range(3)]
dst = [np.full(N, -1, np.int32) for _ in range(3)]
want_dst = [d.copy() for d in dst]
out = []
for i in range(N):
    k, j = (i // 16) % 3, (i // 8) % 3
    a, b = int(src[k][i % 40]), int(src[j][i % 40])
    out += [a * 1000 + b, len(src[k])]
    want_dst[k][i] = a + 7

case = Case("Arrays of tensors indexed by a varying value that is the same in each chunk of 16 "
            "lanes and by one that is not: reads, writes and size queries")
case.run(dispatch=[2, 1, 1],
         bindings=[tensor(0, *[tensor_el("i32", t) for t in src]),
                   tensor(1, *[tensor_el("i32", d, w) for d, w in zip(dst, want_dst)]),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
