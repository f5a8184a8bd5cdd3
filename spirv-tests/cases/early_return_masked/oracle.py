import numpy as np

from common import Case, buf

N = 48

o = np.full(N, 0xEEEE, np.uint32)
s = np.full(N, 0xDDDD, np.uint32)
o_init, s_init = o.copy(), s.copy()
for i in range(N):
    if i % 5 == 3:
        o[i] = 7
        continue
    v = i * 3
    if i % 3 == 0:
        if i % 2 == 0:
            s[i] = v
            continue
        v += 100
    if i >= 40:
        continue
    o[i] = v + 1
    s[i] = v + 2

case = Case("early returns that lanes of a chunk take differently: after a store, nested after "
            "another store, the bounds check of the last chunk, then stores for the lanes left")
case.run(dispatch=[N // 16, 1, 1], bindings=[buf(0, o_init, o), buf(1, s_init, s)])
