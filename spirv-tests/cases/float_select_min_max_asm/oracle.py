import numpy as np

from common import Case, buf

N = 16
rng = np.random.default_rng(20261206)
nan_a = np.array([0x7FC00001], np.uint32).view(np.float32)[0]  # two NaN payloads
nan_b = np.array([0xFFC00002], np.uint32).view(np.float32)[0]
pairs = [(1.0, 2.0), (2.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (nan_a, 1.0), (1.0, nan_b),
         (nan_a, nan_b), (float("inf"), float("-inf")), (3.0, 3.0), (-5.5, -0.0)]
pairs += [tuple(rng.uniform(-4, 4, 2).round(1)) for _ in range(N - len(pairs))]
xs = np.array([p[0] for p in pairs], np.float32)
ys = np.array([p[1] for p in pairs], np.float32)


def compares(x, y):
    """The shader's compares of (x, y), in its order (ordered false, unordered true on NaN)."""
    un = np.isnan(x) or np.isnan(y)
    return [
        not un and x < y, not un and x > y, un or x >= y, un or x <= y,
        not un and x <= y, not un and x >= y, un or x < y, un or x > y,
        not un and x == y, un or x != y,
        not un and y < x, un or y >= x,
    ]


fo = []
for x, y in zip(xs, ys):
    for c in compares(x, y):
        fo += [x if c else y, y if c else x]
fo = np.array(fo, np.float32).view(np.uint32)

dx = xs.astype(np.float64)
dy = ys.astype(np.float64)
dx[4], dy[5] = np.array([0x7FF8000000000003, 0xFFF8000000000004], np.uint64).view(np.float64)
do = []
for x, y in zip(dx, dy):
    for c in compares(x, y)[:4]:
        do += [x if c else y, y if c else x]
do = np.array(do, np.float64).view(np.uint64)

case = Case("Selects of a float compare's own operands (x < y ? x : y and mirror images, ordered "
            "and unordered, strict and not) on f32 and f64 with NaNs and signed zeros, compared "
            "bit for bit (SPIR-V assembly)")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, xs.view(np.uint32)), buf(1, ys.view(np.uint32)),
                   buf(2, np.zeros(len(fo), np.uint32), fo),
                   buf(3, dx.view(np.uint64), dtype=np.uint64),
                   buf(4, dy.view(np.uint64), dtype=np.uint64),
                   buf(5, np.zeros(len(do), np.uint64), do, dtype=np.uint64)])
