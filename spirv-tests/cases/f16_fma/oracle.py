import numpy as np

from common import Case, buf

N = 256
rng = np.random.default_rng(33)
# a, b: k/16 and c: m/256, so a·b + c is exact in f32 (and f64) and only the final rounding to
# binary16 (to nearest even, ties included) decides the result.
ka = rng.integers(-64, 65, N)
kb = rng.integers(-64, 65, N)
m = rng.integers(-2047, 2048, N)
a, b, c = (ka / 16).astype(np.float16), (kb / 16).astype(np.float16), (m / 256).astype(np.float16)
d = ((ka * kb + m) / 256).astype(np.float16)
e = ((ka * kb[0] + 96) / 256).astype(np.float16)
assert (a.astype(np.float64) * 16 == ka).all() and (c.astype(np.float64) * 256 == m).all()

case = Case("GLSL.std.450 Fma on float16_t, varying and uniform operands: one fused multiply-add "
            "in f32, rounded once to binary16")
case.run(dispatch=[N // 64, 1, 1], bindings=[
    buf(0, a.view(np.uint16), dtype=np.uint16),
    buf(1, b.view(np.uint16), dtype=np.uint16),
    buf(2, c.view(np.uint16), dtype=np.uint16),
    buf(3, np.zeros(N, np.uint16), d.view(np.uint16), dtype=np.uint16),
    buf(4, np.zeros(N, np.uint16), e.view(np.uint16), dtype=np.uint16)])
