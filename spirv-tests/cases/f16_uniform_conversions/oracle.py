import numpy as np

from common import Case, buf

N = 32          # two workgroups of 16
rng = np.random.default_rng(20261204)
x = rng.standard_normal(N).astype(np.float32) * np.float32(300.0)
x[1] = np.float32(65519.0)      # rounds to the largest half
x[2] = np.float32(1e-6)         # a subnormal half
h = (rng.standard_normal(N) * 10.0).astype(np.float16)
scale = np.float32(3.14159)
bias = np.float16(-0.375)

s = np.float16(scale)
y = np.zeros((N, 4), np.float32)
z = np.zeros(N, np.float16)
for i in range(N):
    lane = np.float16(x[i])
    y[i, 0] = np.float32(s)
    y[i, 1] = np.float32(bias) + np.float32(h[0])
    y[i, 2] = np.float32(lane) + np.float32(h[i])
    y[i, 3] = np.float32(np.float16(np.float32(np.float16(x[0])) * np.float32(s)))
    z[i] = np.float16(np.float32(np.float16(np.float32(lane) * np.float32(s))) + np.float32(bias))

push = np.zeros(2, np.uint32)
push[0] = scale.view(np.uint32)
push[1] = np.uint32(bias.view(np.uint16))

case = Case("binary16 conversions of uniform values (push constants, a buffer element at a "
            "constant index) and of per-lane values")
case.run(dispatch=[2, 1, 1], push=push.tobytes(),
         bindings=[buf(0, x, x, dtype=np.float32),
                   buf(1, h, h, dtype=np.float16),
                   buf(2, np.zeros(N * 4, np.float32), y.reshape(-1), dtype=np.float32),
                   buf(3, np.zeros(N, np.float16), z, dtype=np.float16)])
