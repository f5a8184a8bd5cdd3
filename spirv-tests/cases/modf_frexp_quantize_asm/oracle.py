import math

import numpy as np

from common import Case, buf

a = np.array([2.5, -2.5, 0.75, -0.1, 1e-6, -3e-5, 70000.0, 1 / 3, -1 / 3, 123.456, 0.0, -3.0,
              -1e-8, 65519.0, 65520.0, 2049.5], np.float32)


def bits32(x):
    return int(np.array([x], np.float32).view(np.uint32)[0])


def bits16(x):
    return int(np.array([x], np.float16).view(np.uint16)[0])


words, halves = [], []
for x in a:
    xd = float(x)
    whole = float(np.trunc(np.float32(x)))  # keeps the sign: trunc(-0.1) = -0.0
    # The fraction has x's sign, also when it is zero (modf(-3.0) = -0.0).
    words.append(bits32(np.copysign(np.float32(x) - np.float32(whole), np.float32(x))))
    words.append(bits32(whole))
    m, e = math.frexp(xd)
    words.append(bits32(m))
    words.append(e & 0xFFFFFFFF)
    with np.errstate(over="ignore"):
        h = np.float16(x)
    q = np.float32(h)
    if abs(q) < 2.0 ** -14:   # OpQuantizeToF16 flushes f16 denormals to zero
        q = np.float32(math.copysign(0.0, xd))
    words.append(bits32(q))
    rtz = h if abs(float(h)) <= abs(xd) else np.nextafter(h, np.float16(0))
    halves += [bits16(rtz), bits16(h), bits16(h)]

case = Case("GLSL.std.450 Modf and Frexp with pointer results, OpQuantizeToF16, OpFConvert to "
            "f16 with FPRoundingMode RTZ / RTE / none (SPIR-V assembly)")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, a, dtype=np.float32),
                   buf(1, np.zeros(len(words), np.uint32), words, dtype=np.uint32),
                   buf(2, np.zeros(len(halves), np.uint16), halves, dtype=np.uint16)])
