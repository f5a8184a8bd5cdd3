import numpy as np

from common import Case, buf, wrap

N = 16
rng = np.random.default_rng(5)


def sat(v, bits, signed):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return min(max(v, lo), hi)


def bytes_of(w, signed):
    return [wrap(w >> (8 * k), 8, signed) for k in range(4)]


rows = []
expect = []
for i in range(N):
    if i % 2 == 0:
        a = [int(v) for v in rng.integers(-2**31, 2**31, 4)]
        b = [int(v) for v in rng.integers(-2**31, 2**31, 4)]
    else:
        a = [int(v) for v in rng.integers(-200, 200, 4)]
        b = [int(v) for v in rng.integers(-200, 200, 4)]
    px, py = (int(v) for v in rng.integers(0, 2**32, 2, dtype=np.uint64))
    acc = int(rng.integers(-2**31, 2**31)) if i % 3 else 2**31 - 7
    rows += [a, b, [wrap(px, 32, True), wrap(py, 32, True), acc, 0]]
    ua, ub = [v & 0xFFFFFFFF for v in a], [v & 0xFFFFFFFF for v in b]
    sd = sum(x * y for x, y in zip(a, b))
    ud = sum(x * y for x, y in zip(ua, ub))
    sa, sb = bytes_of(px, True), bytes_of(py, True)
    uxa, uxb = bytes_of(px, False), bytes_of(py, False)
    a8, b8 = [wrap(v, 8, True) for v in a], [wrap(v, 8, True) for v in b]
    a16, b16 = [wrap(v, 16, True) for v in a], [wrap(v, 16, True) for v in b]
    expect += [
        wrap(sd, 32, True),
        wrap(ud, 32, True),
        sat(acc + sd, 32, True),
        wrap(sat((acc & 0xFFFFFFFF) + ud, 32, False), 32, True),
        wrap(sum(x * y for x, y in zip(sa, sb)), 32, True),
        wrap(sum(x * y for x, y in zip(uxa, uxb)), 32, True),
        wrap(sum(x * y for x, y in zip(sa, uxb)), 32, True),
        sat(acc + sum(x * y for x, y in zip(sa, sb)), 32, True),
        wrap(sum(x * y for x, y in zip(a8, b8)), 32, True),
        # glslang widens the 16-bit accumulator
        sat(wrap(acc, 16, True) + sum(x * y for x, y in zip(a16, b16)), 32, True),
    ]

case = Case("SPV_KHR_integer_dot_product: OpSDot, OpUDot, OpSUDot and their AccSat forms on "
            "vectors and packed 4x8 words")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, np.array(rows, np.int64).astype(np.int32).flatten(), dtype=np.int32),
                   buf(1, np.zeros(len(expect), np.int32), expect, dtype=np.int32)])
