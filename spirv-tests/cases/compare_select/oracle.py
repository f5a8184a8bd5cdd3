import numpy as np

from common import Case, buf

N = 24
rng = np.random.default_rng(20260130)

nan = float("nan")
fa = [1.0, 1.0, -0.0, nan, nan, 2.0, -1.0, float("inf")] + list(rng.uniform(-4, 4, N - 8).round(1))
fb = [1.0, 2.0, 0.0, 1.0, nan, nan, -2.0, float("inf")] + list(rng.uniform(-4, 4, N - 8).round(1))
ia = [5, -5, 0, 7, -2**31, 2**31 - 1, 3, -1] + [int(x) for x in rng.integers(-5, 5, N - 8)]
ib = [5, 5, -1, -7, 0, -2**31, 3, 1] + [int(x) for x in rng.integers(-5, 5, N - 8)]
out = []
for x, y, p, q in zip(fa, fb, ia, ib):
    up, uq = p & 0xFFFFFFFF, q & 0xFFFFFFFF
    unord = x != x or y != y
    flags = [
        x < y, x <= y, x > y, x >= y, x == y, (x != y) or unord,  # GLSL != is unordered
        p < q, p <= q, p > q, p >= q, p == q, p != q,
        up < uq, up <= uq, up > uq, up >= uq, x != x,
    ]
    bits = sum(int(bool(v)) << k for k, v in enumerate(flags))
    sel = p if (x < y) else q
    vmix = [p if flags[6] else q, up if flags[12] else uq]
    anyall = int(any([p < q, up < uq])) | (int(all([p < q, up < uq])) << 1)
    out += [bits, sel & 0xFFFFFFFF, vmix[0] & 0xFFFFFFFF, vmix[1],
            anyall, (max(p, q) if p < q or p > q else 77) & 0xFFFFFFFF]

case = Case("Ordered and unordered float compares (NaN, signed zero, infinity), signed and "
            "unsigned integer compares, select, mix with a bool vector, any/all")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, fa, dtype=np.float32), buf(1, fb, dtype=np.float32),
                   buf(2, ia, dtype=np.int32), buf(3, ib, dtype=np.int32),
                   buf(4, np.zeros(N * 6, np.uint32), out)])
