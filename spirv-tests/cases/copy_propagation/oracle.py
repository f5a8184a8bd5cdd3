import numpy as np

from common import Case, buf

N = 64
a = [(i * 37 + 11) % 1000 for i in range(N)]
out = []
for i in range(N):
    prev = None
    first = 0
    s = 0
    for k in range(6):
        cur = a[(i + k) % N] + k
        if k > 0:
            s += prev * (k + 1)
        prev = cur
        if k == 2:
            first = cur
    x = i
    y = x
    x = x + 7
    z = y * 3 + x
    t = z * 2
    u = t
    t = t + 1
    out += [s & 0xFFFFFFFF, first, z, (u + t) & 0xFFFFFFFF]

case = Case("Patterns the IR optimiser must not break: a variable read before its store in a "
            "loop, stored only in a branch, copied before it changes, function results copied")
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, np.array(a, np.uint32)), buf(1, np.zeros(N * 4, np.uint32), out)])
