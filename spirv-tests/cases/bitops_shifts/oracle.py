import numpy as np

from common import Case, buf, wrap

N = 32
rng = np.random.default_rng(20260130)

a = [0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x12345678, 0xF0F0F0F0, 0x00010000] + \
    [int(x) for x in rng.integers(0, 2**32, N - 8)]
s = [0, 1, 31, 4, 16, 7, 3, 30] + [int(x) for x in rng.integers(0, 32, N - 8)]


def msb_s(v):
    """findMSB of a signed value: the highest bit that differs from the sign bit."""
    sv = wrap(v, 32, True)
    if sv < 0:
        sv = ~sv
    return (sv.bit_length() - 1) & 0xFFFFFFFF if sv else 0xFFFFFFFF


out = []
for x, sh in zip(a, s):
    y = (x * 2654435761) & 0xFFFFFFFF
    sx = wrap(x, 32, True)
    out += [x & y, x | y, x ^ y, (~x) & 0xFFFFFFFF, (x << sh) & 0xFFFFFFFF, x >> sh,
            (sx >> sh) & 0xFFFFFFFF, bin(x).count("1"),
            ((x & -x).bit_length() - 1) & 0xFFFFFFFF if x else 0xFFFFFFFF,
            (x.bit_length() - 1) & 0xFFFFFFFF if x else 0xFFFFFFFF, msb_s(x),
            int(f"{x:032b}"[::-1], 2)]

case = Case("Bitwise and/or/xor/not, logical and arithmetic shifts, bitCount, findLSB, "
            "findMSB (unsigned and signed), bitfieldReverse on uint")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, a), buf(1, s), buf(2, np.zeros(N * 12, np.uint32), out)])
