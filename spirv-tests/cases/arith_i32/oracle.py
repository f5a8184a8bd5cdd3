import numpy as np

from common import Case, buf, smod, tdiv, wrap

a = [7, -7, -2**31, 5, 0, 100, -1, 123456789]
b = [3, 3, -1, 0, 5, -3, 31, -9876]


def w(v):
    return wrap(v, 32, True)


out = []
for x, y in zip(a, b):
    s = y & 31
    ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
    out += [
        w(x + y), w(x - y), w(x * y),
        0 if y == 0 else w(tdiv(x, y)),          # Tessera: division by zero gives 0
        0 if y == 0 else w(smod(x, y)),
        w(x << s), x >> s, w(ux >> s),
        x & y, x | y, x ^ y, ~x,
        min(x, y), max(x, y), w(abs(x)),
        min(max(x, -5), 5) + (1000 if x < y else -1000),
    ]

case = Case("int arithmetic, shifts, bitwise ops, min/max/abs/clamp, division and remainder by "
            "zero and INT_MIN / -1")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, a, dtype=np.int32), buf(1, b, dtype=np.int32),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)])
