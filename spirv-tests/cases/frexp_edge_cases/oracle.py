import numpy as np

from common import Case, buf

f = np.float32
xs = np.array([0.0, -0.0, 1.0, -3.5, 0.75, 1e-40, -1.4e-45, np.finfo(f).tiny, np.finfo(f).max,
               np.inf, 1234.5678, -0.1, 2.0, 0.5, 3e38, 7.0e-39], f)


def frexp(x):
    """(mantissa bits, exponent): x = m * 2^e with 0.5 <= |m| < 1; zero and infinity keep
    their bits and give e = 0."""
    if x == 0 or not np.isfinite(x):
        return int(x.view(np.uint32)), 0
    m, e = abs(x), 0
    while m >= 1:
        m, e = m / f(2), e + 1
    while m < 0.5:
        m, e = m * f(2), e - 1
    return int(np.copysign(m, x).view(np.uint32)), e


out = []
for x in xs:
    m, e = frexp(x)
    out += [m, e & 0xFFFFFFFF]

case = Case("frexp on zeros, denormals, infinity, FLT_MAX and ordinary values")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, xs, dtype=np.float32), buf(1, np.zeros(len(out), np.uint32), out)])
