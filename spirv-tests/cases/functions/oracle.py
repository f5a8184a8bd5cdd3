import numpy as np

from common import Case, buf

N = 32


def clampadd(a, b):
    s = a + b
    if s > 100:
        return 100
    if s < -100:
        return -100
    return s


def ref(i):
    x = i * 7 - 100
    q, r = divmod(abs(x), 6)
    f = 1
    for k in range(1, i % 8 + 1):
        f *= k
    p = (x * 2, x + 3)
    s = clampadd(x, x)
    acc = x
    for _ in range(3):
        acc = clampadd(acc, 13)
    return [q, r, f, p[0] & 0xFFFFFFFF, p[1] & 0xFFFFFFFF, s & 0xFFFFFFFF, acc & 0xFFFFFFFF]


out = []
for i in range(N):
    out += ref(i)

case = Case("Function calls: out and inout parameters, loops in functions, struct results, "
            "early returns, a function calling another in a loop")
case.run(dispatch=[N // 8, 1, 1], bindings=[buf(0, np.zeros(N * 7, np.uint32), out)])
