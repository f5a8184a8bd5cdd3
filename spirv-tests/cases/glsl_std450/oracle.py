import numpy as np

from common import Case, buf

N = 32
rng = np.random.default_rng(20260130)

x = rng.uniform(-3, 3, N).astype(np.float32)
y = rng.uniform(0.1, 4, N).astype(np.float32)
x[:4] = [0.5, -0.5, 2.5, -1.5]   # ties: roundEven() is defined for them, round() is not
X, Y = x.astype(np.float64), y.astype(np.float64)
C = np.clip(X / 3, -1, 1)
t = np.clip((X + 1) / 2, 0, 1)
x11 = (x * np.float32(1.1)).astype(np.float64)   # never a tie
cols = [np.sin(X), np.cos(X), np.tan(X / 4), np.arcsin(C), np.arccos(C), np.arctan(X),
        np.arctan2(X, Y), np.sinh(X / 2), np.tanh(X), np.exp(X), np.exp2(X), np.log(Y),
        np.log2(Y), np.power(Y, X), np.sqrt(Y), 1 / np.sqrt(Y), np.rint(X), np.round(x11),
        X * (1 - 0.25) + Y * 0.25, (X >= 0.5).astype(float), t * t * (3 - 2 * t), X * Y + 1,
        np.hypot(X, Y), X / np.hypot(X, Y), np.radians(X * 30), np.degrees(X),
        np.arcsinh(X), np.sqrt(X * X + 1)]
out = np.stack(cols, axis=1).astype(np.float32).reshape(-1)

case = Case("GLSL.std.450 maths on float: trigonometry, exponentials, logarithms, pow, sqrt, "
            "roundEven, round, mix, step, smoothstep, fma, length, normalize, distance")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, x, dtype=np.float32), buf(1, y, dtype=np.float32),
                   buf(2, np.zeros(N * len(cols), np.float32), out, dtype=np.float32, tol=2e-5)])
