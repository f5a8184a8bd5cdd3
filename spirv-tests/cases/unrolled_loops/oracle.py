import numpy as np

from common import Case, buf

N = 64
M = 0xFFFFFFFF
a = [(x * 37 + 11) % 1000 for x in range(N)]
out = []
for i in range(N):
    r = [a[(i + k) % N] * (k + 1) for k in range(8)]
    s = 0
    for k in range(1, 11, 3):
        s = (s + (r[k % 8] ^ k)) & M
    never = 5
    after = sum(range(3))
    m = 3
    t = 0
    for n in range(3):
        for j in range(2):
            if (a[i % N] + n + j) % 3 == 0:
                t = (t + r[n * 2 + j]) & M
            else:
                t ^= n * 16 + j
    u = 0
    for n in range(4):
        for j in range(n):
            u = (u + (r[(n + j) % 8] >> j)) & M
    b = 0
    for n in range(8):
        if r[n] > 1500:
            break
        b += r[n]
    w = 0
    for k in [0xFFFFFFFE, 0xFFFFFFFF, 0, 1]:
        w = (w * 3 + k) & M
    d = sum(r[k] * k for k in range(4))
    big = sum(k * a[(i + k) % N] for k in range(20))
    for k in range(2):
        r[a[(i + k) % N] % 8] += k + 1
    out += [s, after + m * 100 + never * 1000, t, u, b, w, d, big,
            r[0] + r[3] * 2 + r[7] * 3, r[1] ^ r[6]]

case = Case("Counted loops that lowering writes out (counting down with a signed test, steps "
            "of 3, a loop that never runs, a counter read after its loop, a uint counter that "
            "wraps, nested loops with a varying branch inside, an array indexed by the counters "
            "and at run-time indices in between) and loops it keeps (a break, an inner bound "
            "from the outer counter, [[dont_unroll]], 20 trips)")
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, np.array(a, np.uint32)), buf(1, np.zeros(N * 10, np.uint32), out)])
