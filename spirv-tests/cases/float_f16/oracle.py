import numpy as np

from common import Case, buf

DT, TOL, RANGE = np.float16, 1e-2, 8
N = 64
rng = np.random.default_rng(20260130)

a = rng.uniform(-RANGE, RANGE, N).astype(DT)
b = rng.uniform(-RANGE, RANGE, N).astype(DT)
b[np.abs(b) < 0.5] = DT(1.5)
a[:6] = np.array([0.0, -0.0, 1.0, -2.5, 3.75, 1e-3], dtype=DT)
b[:6] = np.array([1.0, 2.0, -0.5, 2.5, -1.25, 4.0], dtype=DT)
x, y = a.astype(np.float64), b.astype(np.float64)
cols = [x + y, x - y, x * y, x / y, -x, x - y * np.floor(x / y), np.minimum(x, y),
        np.maximum(x, y), np.abs(x), np.floor(x), np.ceil(x), x - np.floor(x), np.trunc(x),
        np.sign(x), np.clip(x, -10, 10), x * y + x]
# Each double result is rounded once to the target type: exact for + - * / and within one ulp
# for the composite ones (mod, x * y + x); the tolerance covers that.
# f16 keeps to +-8 so that mod and x * y + x stay within 1e-2 of the reference.
out = np.stack(cols, axis=1).astype(DT).reshape(-1)

case = Case("float16_t arithmetic: + - * / negate mod min max abs floor ceil fract trunc sign "
            "clamp")
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, a, dtype=DT), buf(1, b, dtype=DT),
                   buf(2, np.zeros(N * len(cols), DT), out, dtype=DT, tol=TOL)])
