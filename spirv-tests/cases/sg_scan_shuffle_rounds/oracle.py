import numpy as np

from common import Case, buf

N = 128           # two workgroups of 64: four subgroups of 32
rng = np.random.default_rng(13)
u = rng.integers(0, 1 << 20, N, dtype=np.uint32)
f = (rng.standard_normal(N).astype(np.float32) * np.float32(0.125) + np.float32(1.0)).astype(np.float32)
M = 0xFFFFFFFF
o = np.zeros((N, 12), np.uint32)
p = np.zeros((N, 3), np.float32)
for g in range(0, N, 32):
    x = [int(v) for v in u[g:g + 32]]
    y = [np.float32(v) for v in f[g:g + 32]]
    inc, exc, emin = [], [], []
    acc, mn = 0, M
    for k in range(32):
        exc.append(acc)
        emin.append(mn)
        acc = (acc + x[k]) & M
        mn = min(mn, x[k])
        inc.append(acc)
    finc, fexc = [], []
    fa, fm = None, np.float32(1.0)
    for k in range(32):
        fexc.append(fm)
        fm = y[k] if k == 0 else np.float32(fm * y[k])
        fa = y[k] if k == 0 else np.float32(fa + y[k])
        finc.append(fa)
    for k in range(32):
        o[g + k] = [inc[k], exc[k], emin[k], x[0], x[5],
                    (x[k ^ 16] + x[k ^ 1] * 3) & M,
                    x[k - 3] if k >= 3 else 7,
                    x[k + 4] if k < 28 else 9,
                    x[(k & ~3) + 2],
                    x[k ^ 1] ^ ((x[k ^ 3] << 4) & M),
                    x[(k * 7) % 32],
                    (x[k ^ (k & 3)] + (x[k + (k & 1)] if k + (k & 1) < 32 else 0)) & M]
        p[g + k] = [finc[k], fexc[k], y[31]]

case = Case("subgroup scans, broadcasts, shuffles and quad operations computed in compiled rounds")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, u, None), buf(1, f, None, dtype=np.float32),
                   buf(2, np.zeros(N * 12, np.uint32), o.reshape(-1)),
                   buf(3, np.zeros(N * 3, np.float32), p.reshape(-1), dtype=np.float32)])
