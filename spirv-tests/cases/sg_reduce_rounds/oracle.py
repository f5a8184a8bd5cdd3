import numpy as np

from common import Case, buf

N = 128           # two workgroups of 64: four subgroups of 32
rng = np.random.default_rng(11)
u = rng.integers(0, 2000, N, dtype=np.uint32)
f = (rng.standard_normal(N).astype(np.float32) * np.float32(0.25) + np.float32(1.0)).astype(np.float32)
f[5] = np.float32(-0.0)
f[70] = np.float32(1e-38)   # a value that rounds away in a sum


def fold(values, step):
    acc = values[0]
    for v in values[1:]:
        acc = step(acc, v)
    return acc


def clusters(values, size, step):
    out = []
    for c in range(0, len(values), size):
        r = fold(values[c:c + size], step)
        out += [r] * size
    return out


M = 0xFFFFFFFF
o = np.zeros((N, 8), np.uint32)
p = np.zeros((N, 4), np.float32)
fadd = lambda a, b: np.float32(a) + np.float32(b)
fmul = lambda a, b: np.float32(a) * np.float32(b)
fmin = lambda a, b: b if b < a else a
fmax = lambda a, b: b if b > a else a
for g in range(0, N, 32):
    x = [int(v) for v in u[g:g + 32]]
    s = [v - 1000 for v in x]
    y = [np.float32(v) for v in f[g:g + 32]]
    add = fold(x, lambda a, b: (a + b) & M)
    mul = fold([v | 1 for v in x], lambda a, b: (a * b) & M)
    mn = min(x)
    mx = max(s) & M
    a_ = fold(x, lambda a, b: a & b)
    o_ = fold(x, lambda a, b: a | b)
    x_ = fold(x, lambda a, b: a ^ b)
    bits = (a_ ^ ((o_ << 1) & M) ^ ((x_ << 2) & M)) & M
    c4 = clusters(x, 4, lambda a, b: (a + b) & M)
    c8 = clusters(s, 8, min)
    c16 = clusters(x, 16, lambda a, b: a ^ b)
    umax = max(x)
    fa = fold(y, fadd)
    fm = fold(y, fmul)
    fn = fold(y, fmin)
    cmax = clusters(y, 8, fmax)
    cadd = clusters(y, 2, fadd)
    for k in range(32):
        o[g + k] = [add, mul, mn, mx, bits, c4[k], c8[k] & M, (c16[k] + umax) & M]
        p[g + k] = [fa, fm, fn, np.float32(cmax[k]) + np.float32(cadd[k])]

case = Case("subgroup reductions (integer, float, clustered) computed in compiled rounds")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, u, None), buf(1, f, None, dtype=np.float32),
                   buf(2, np.zeros(N * 8, np.uint32), o.reshape(-1)),
                   buf(3, np.zeros(N * 4, np.float32), p.reshape(-1), dtype=np.float32)])
