import numpy as np

from common import Case, buf, wrap

N = 32
rng = np.random.default_rng(20260130)

a = [0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x12345678, 0xF0F0F0F0, 0x00010000] + \
    [int(x) for x in rng.integers(0, 2**32, N - 8)]
s = [0, 1, 31, 4, 16, 7, 3, 30] + [int(x) for x in rng.integers(0, 32, N - 8)]
out = []
for x, sh in zip(a, s):
    y = (x * 2654435761) & 0xFFFFFFFF
    off, bits = sh % 16, 1 + (sh % 16)
    ext_u = (x >> off) & ((1 << bits) - 1)
    ext_s = wrap(ext_u, bits, True) & 0xFFFFFFFF
    mask = ((1 << bits) - 1) << off
    ins = (x & ~mask | ((y << off) & mask)) & 0xFFFFFFFF
    out += [ext_u, ext_s, ins]

case = Case("bitfieldExtract (unsigned and sign-extending) and bitfieldInsert with varying "
            "offsets and widths")
case.run(dispatch=[N // 8, 1, 1],
         bindings=[buf(0, a), buf(1, s), buf(2, np.zeros(N * 3, np.uint32), out)])
