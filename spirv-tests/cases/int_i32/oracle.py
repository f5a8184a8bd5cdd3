import numpy as np

from common import Case, buf, smod, tdiv, wrap

BITS, SIGNED, DT = 32, True, np.int32
N, K = 64, 10  # invocations, results per invocation
rng = np.random.default_rng(20260130)

lo, hi = (-(1 << (BITS - 1)), (1 << (BITS - 1)) - 1) if SIGNED else (0, (1 << BITS) - 1)
a = [lo + int.from_bytes(rng.bytes(8), "little") % (hi - lo + 1) for _ in range(N)]
b = [lo + int.from_bytes(rng.bytes(8), "little") % (hi - lo + 1) for _ in range(N)]
# Small values and sign combinations first, then random full-range ones.
smalls = [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (lo, 1), (hi, 2), (lo + 1, -1),
          (100, 7), (-100, 7), (5, 9), (-5, 9), (1, hi), (lo, hi), (13, -13), (-1, 1)]
for k, (x, y) in enumerate(smalls):
    if not SIGNED:
        x, y = x & ((1 << BITS) - 1), y & ((1 << BITS) - 1)
    a[k], b[k] = x, y
for k in range(N):
    if b[k] == 0 or (SIGNED and a[k] == lo and b[k] == -1):
        b[k] = 3

out = []
for x, y in zip(a, b):
    r = [x + y, x - y, x * y, tdiv(x, y) if SIGNED else x // y, smod(x, y) if SIGNED else x % y,
         -x, min(x, y), max(x, y), abs(x) if SIGNED else x,
         min(max(x, lo // 2 if SIGNED else 10), hi // 2)]
    out += [wrap(v, BITS, SIGNED) for v in r]

case = Case("int arithmetic in a storage buffer: + - * / % negate min max abs clamp")
case.run(dispatch=[N // 32, 1, 1],
         bindings=[buf(0, a, dtype=DT), buf(1, b, dtype=DT),
                   buf(2, np.zeros(N * K, DT), out, dtype=DT)])
