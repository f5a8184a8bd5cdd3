import numpy as np

from common import Case, buf, f32bits

N = 32
rng = np.random.default_rng(20260130)

x = rng.uniform(-3, 3, N).astype(np.float32)
x[:4] = [0.5, -0.5, 2.5, -1.5]
mant, ex = np.frexp(x)
ip = np.trunc(x)
out = []
for k in range(N):
    out += [f32bits(float(x[k]) * 8), f32bits(float(x[k]) / 4), f32bits(float(mant[k])),
            int(ex[k]) & 0xFFFFFFFF, f32bits(float(x[k] - ip[k])), f32bits(float(ip[k]))]

case = Case("GLSL.std.450 Ldexp, FrexpStruct and ModfStruct on float (exact results)")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, x, dtype=np.float32), buf(1, np.zeros(N * 6, np.uint32), out)])
