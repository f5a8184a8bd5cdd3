import numpy as np

from common import Case, Rng, buf, tensor, tensor_el

# Invocation i reads element i of a bfloat16, an E4M3 and an E5M2 tensor, stores the three as
# float, and writes each back doubled (non-saturating: E4M3 overflows to NaN, E5M2 to infinity).
# The float8 tensors hold every encoding 0..255. Floats match when their bits are equal or both
# are NaN.
N = 256
f = np.float32


def fp8(b, e5m2):
    """The value of float8 encoding b (E5M2: IEEE-like; E4M3: only S.1111.111 is NaN)."""
    mbits, bias = (2, 15) if e5m2 else (3, 7)
    sign = f(-1) if b & 0x80 else f(1)
    exp = (b & 0x7F) >> mbits
    mant = f(b & ((1 << mbits) - 1))
    if e5m2 and exp == 31:
        return sign * f(np.inf) if mant == 0 else f(np.nan)
    if not e5m2 and exp == 15 and mant == 7:
        return f(np.nan)
    scale = f(1 << mbits)
    if exp == 0:
        return sign * mant / scale * f(2.0) ** (1 - bias)
    return sign * (f(1) + mant / scale) * f(2.0) ** (exp - bias)


ENCODING = {e5m2: {int(fp8(b, e5m2).view(np.uint32)): b for b in reversed(range(256))}
            for e5m2 in (False, True)}


def fp8_encode(x, e5m2):
    """The encoding of x, which is exactly representable (or NaN)."""
    return 0x7F if np.isnan(x) else ENCODING[e5m2][int(f(x).view(np.uint32))]


def bf16_value(bits):
    return np.array([bits << 16], np.uint32).view(f)[0]


def bf16_encode(x):
    """Round-to-nearest-even float32 -> bfloat16; NaN stays NaN."""
    u = int(f(x).view(np.uint32))
    if np.isnan(x):
        return 0x7FC0
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


rng = Rng(42)
bf = [[0, 0x3F80, 0xC040, 0x7F80, 0x0001, 0x8000, 0x4049, 0x7FC0][i] if i < 8
      else rng.next() & 0xFFFF for i in range(N)]
out, bf_after, e4_after, e5_after = [], [], [], []
with np.errstate(over="ignore", invalid="ignore"):
    for i in range(N):
        x, y, z = bf16_value(bf[i]), fp8(i, False), fp8(i, True)
        out += [x, y, z]
        bf_after.append(bf16_encode(x * f(2)))
        e4_after.append(fp8_encode(f(np.nan) if abs(y * f(2)) > 448 else y * f(2), False))
        e5_after.append(fp8_encode(np.sign(z) * f(np.inf) if abs(z * f(2)) > 57344 else z * f(2),
                                   True))

codes = np.arange(N, dtype=np.uint8)
case = Case("bfloat16, float8 E4M3 and E5M2 tensors: every encoding read and converted to "
            "float, doubled and written back")
case.run(dispatch=[N, 1, 1],
         bindings=[tensor(0, tensor_el("bf16", np.array(bf, np.uint16),
                                       np.array(bf_after, np.uint16))),
                   tensor(1, tensor_el("e4m3", codes, np.array(e4_after, np.uint8))),
                   tensor(2, tensor_el("e5m2", codes, np.array(e5_after, np.uint8))),
                   buf(3, np.zeros(3 * N, np.float32), np.array(out, f), dtype=np.float32)])
