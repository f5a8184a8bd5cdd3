import numpy as np

from common import Case, buf

LANES = 48
a = (np.arange(16, dtype=np.uint32) * 2654435761 % 1000).astype(np.uint32)


def expect(n, length):
    o = np.full(128, 0xEEEE, np.uint32)
    init = o.copy()
    for i in range(min(n, LANES)):
        acc = i
        for k in range(length):
            v = int(a[k])
            if (v + i) & 1 == 0:
                acc = (acc + v * 3) & 0xFFFFFFFF
            else:
                acc ^= v
            if k == 2:
                o[64 + i] = acc
            if k == 4:
                acc = (acc + int(o[64 + i])) & 0xFFFFFFFF
        o[i] = acc
    return init, o


case = Case("a bounds check lanes take differently, then a loop with a uniform trip count: a "
            "varying branch, a store under a uniform branch and a read of it inside, a store "
            "after it; partial and wholly returned chunks, and no iteration")
for name, n, length in [("partial_37", 37, 9), ("whole_chunk_back_20", 20, 6),
                        ("no_iteration_40", 40, 0)]:
    init, want = expect(n, length)
    case.run(name=name, dispatch=[LANES // 16, 1, 1],
             push=np.array([n, length], np.uint32).tobytes(),
             bindings=[buf(0, a), buf(1, init, want)])
