import numpy as np

from common import Case, buf, tensor, tensor_el

N = 128
# Source tensor k has 40 + 10k elements, 100k + 0..; destination k has 70 + 10k elements of -1.
src = [np.arange(40 + 10 * k, dtype=np.int32) + 100 * k for k in range(3)]
dst = [np.full(70 + 10 * k, -1, np.int32) for k in range(3)]
want_dst = [d.copy() for d in dst]


def read(t, at, oob=0):
    return int(t[at]) if at < len(t) else oob


out = []
for i in range(N):
    k = i % 3
    a = read(src[k], i % 64, -5)
    n = len(src[k])
    b = 0
    if i % 4 != 1:
        m = (i // 5) % 3
        b = read(src[m], i // 2) + 1000 * len(dst[m])
    out += [a, n, b]
    at = i // 2 + 10 * k
    if at < len(want_dst[k]):
        want_dst[k][at] = a + n

case = Case("Arrays of tensors whose index differs between the lanes of a chunk, in a branch "
            "too: reads past smaller tensors' ends, size queries, writes past a destination's "
            "end")
case.run(dispatch=[2, 1, 1],
         bindings=[tensor(0, *[tensor_el("i32", t) for t in src]),
                   tensor(1, *[tensor_el("i32", d, w) for d, w in zip(dst, want_dst)]),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
