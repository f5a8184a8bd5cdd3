import math

import numpy as np

from common import Case, Rng, buf, int_to_f32, shader, tdiv, wrap

INTS = [("i8", "int8_t", 8, True), ("u8", "uint8_t", 8, False), ("i16", "int16_t", 16, True),
        ("u16", "uint16_t", 16, False), ("i32", "int", 32, True), ("u32", "uint", 32, False),
        ("i64", "int64_t", 64, True), ("u64", "uint64_t", 64, False)]
FLOATS = [("f16", "float16_t", np.float16, np.uint16), ("f32", "float", np.float32, np.uint32),
          ("f64", "double", np.float64, np.uint64)]

case = Case("+ - * / min max select and T(float(x) * 0.5) on T (every integer and float width); "
            "division by zero gives 0",
            shaders=[shader(f"{t}.spv", "shader.comp", defines={"T": glsl})
                     for t, glsl, *_ in INTS + FLOATS])

for t, _, bits, signed in INTS:
    n = 16
    rng = Rng(0x1234_5678_9abc_def1)
    a = [wrap(rng.next(), bits, signed) for _ in range(n)]
    b = [wrap(rng.next() >> 3, bits, signed) for _ in range(n)]
    a[0] = -(1 << (bits - 1)) if signed else 0
    b[0] = wrap(-1, bits, signed)
    b[1] = 0
    a[2] = 5
    b[2] = 5
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    out = []
    for x, y in zip(a, b):
        half = math.trunc(float(int_to_f32(x)) * 0.5)   # float(x) * 0.5, converted back
        out += [wrap(x + y, bits, signed), wrap(x - y, bits, signed), wrap(x * y, bits, signed),
                0 if y == 0 else wrap(tdiv(x, y), bits, signed), min(x, y), max(x, y),
                x if x < y else y, min(max(half, lo), hi)]
    dt = np.dtype(f"{'i' if signed else 'u'}{bits // 8}")
    case.run(name=t, shader=f"{t}.spv", dispatch=[n // 2, 1, 1],
             bindings=[buf(0, a, dtype=dt), buf(1, b, dtype=dt),
                       buf(2, np.zeros(len(out), dt), out, dtype=dt)])

for t, _, dt, bits in FLOATS:
    n = 8
    # The inputs are float32 literals (widened for double).
    a = np.array([1.5, -2.25, 3.0, 1e3, -0.0, 7.0, 0.1, 100.5], np.float32).astype(dt)
    b = np.array([0.5, 4.0, -3.0, 0.0, 2.0, 7.0, 0.3, -0.25], np.float32).astype(dt)
    zero = dt(0)

    def op(x, y, f):
        """f(x, y) rounded to dt; float16 arithmetic goes through float32, as on the GPU."""
        if dt == np.float16:
            return np.float16(f(np.float32(x), np.float32(y)))
        return dt(f(x, y))

    def half(x):
        return dt(np.float32(x) * np.float32(0.5))   # T(float(x) * 0.5)

    out = []
    for x, y in zip(a, b):
        out += [op(x, y, lambda p, q: p + q), op(x, y, lambda p, q: p - q),
                op(x, y, lambda p, q: p * q),
                op(x, y, lambda p, q: p / q) if y != zero else zero,
                y if y < x else x, y if x < y else x, x if x < y else y, half(x)]
    # Compared bit for bit.
    case.run(name=t, shader=f"{t}.spv", dispatch=[n // 2, 1, 1],
             bindings=[buf(0, a.view(bits), dtype=bits), buf(1, b.view(bits), dtype=bits),
                       buf(2, np.zeros(len(out), bits), np.array(out, dt).view(bits),
                           dtype=bits)])
