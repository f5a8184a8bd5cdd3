import struct

import numpy as np

from common import Case, buf, tensor, tensor_el

SHAPES = [(2, 3), (3, 4), (4, 2)]
IDX = 1                     # push constant: read t[1], write t[2]
N = 16
ts = [(np.arange(int(np.prod(s))).reshape(s) + 100 * (k + 1)).astype(np.int32)
      for k, s in enumerate(SHAPES)]
nxt = (IDX + 1) % 3
out = []
for i in range(N):
    r, c = i // 4, i % 4
    out.append(int(ts[IDX][r, c]) if r < SHAPES[IDX][0] and c < SHAPES[IDX][1] else -1)
sizes = [SHAPES[IDX][0], SHAPES[IDX][1], SHAPES[nxt][0], SHAPES[nxt][1]]
after = [t.copy() for t in ts]
for i in range(N):
    r, c = i // 4, i % 4
    if r < SHAPES[nxt][0] and c < SHAPES[nxt][1]:
        after[nxt][r, c] = out[i] * 2 if out[i] != -1 else -2
# Non-uniform index: invocation i reads element (0, 1) of tensor i % 2 (tensor 2 is being
# written, so it is left out to keep the case race-free).
nonuni = [int(ts[i % 2][0, 1]) for i in range(N)]

case = Case("An array of three tensors of different shapes indexed by a push constant and "
            "non-uniformly; reads, writes and sizes")
case.run(dispatch=[1, 1, 1], push=struct.pack("<I", IDX),
         bindings=[tensor(0, *[tensor_el("i32", ts[k], after[k],
                                         strides="padded" if k == 1 else "packed")
                               for k in range(3)]),
                   buf(1, np.zeros(N, np.int32), out, dtype=np.int32),
                   buf(2, np.zeros(4, np.uint32), sizes),
                   buf(3, np.zeros(N, np.int32), nonuni, dtype=np.int32)])
