import numpy as np

from common import Case, buf

N = 64
rng = np.random.default_rng(37)
x = rng.integers(-2**31, 2**31, (N + 3, 4), dtype=np.int64)
x[0] = [-128, 127, 2**31 - 1, -2**31]
x[1] = [-128, -1, 3, 7]
x[2, :2] = [int(np.int32(np.uint32(0x80FF7F01))), 0x7F80FF02]


def wrap32(v):
    return ((int(v) + 2**31) % 2**32) - 2**31


def sbytes(w):
    return [((w >> (8 * k)) & 0xFF) - (256 if (w >> (8 * k)) & 0x80 else 0) for k in range(4)]


def ubytes(w):
    return [(w >> (8 * k)) & 0xFF for k in range(4)]


a, b, p = [list(map(int, r)) for r in x[:3]]
u = lambda v: v % 2**32
pa, pb = u(p[0]), u(p[1])
row = [
    wrap32(sum(s * t for s, t in zip(a, b))),
    wrap32(sum(u(s) * u(t) for s, t in zip(a, b))),
    wrap32(sum(s * t for s, t in zip(sbytes(pa), sbytes(pb)))),
    wrap32(sum(s * t for s, t in zip(sbytes(pa), ubytes(pb)))),
    wrap32(sum(s * t for s, t in zip([wrap32(v) % 256 - 256 * ((wrap32(v) % 256) >= 128) for v in a],
                                     [wrap32(v) % 256 - 256 * ((wrap32(v) % 256) >= 128) for v in b]))),
]
o = np.array([row + [wrap32(sum(int(s) * t for s, t in zip(x[i + 3], b)))] for i in range(N)],
             np.int64).astype(np.int32)

case = Case("Integer dot products with uniform operands (OpSDot, OpUDot, OpSUDot; 32-bit and "
            "8-bit vectors, packed 4x8 words) beside a varying one")
case.run(dispatch=[1, 1, 1], bindings=[
    buf(0, x.astype(np.int32).reshape(-1), dtype=np.int32),
    buf(1, np.zeros(6 * N, np.int32), o.reshape(-1), dtype=np.int32)])
