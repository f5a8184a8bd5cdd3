import numpy as np

from common import Case, buf

N = 128
rng = np.random.default_rng(34)
s8 = rng.integers(-128, 128, N).astype(np.int8)
u8 = rng.integers(0, 256, N).astype(np.uint8)
s16 = rng.integers(-32768, 32768, N).astype(np.int16)
u16 = rng.integers(0, 65536, N).astype(np.uint16)
s8[:4], u8[:4] = [-128, 127, -1, 0], [0, 255, 128, 1]
s16[:4], u16[:4] = [-32768, 32767, -1, 0], [0, 65535, 32768, 1]
f = np.stack([s8, u8, s16, u16, np.full(N, float(s8[0]) + float(u16[0]))], 1).astype(np.float32)
d = np.stack([s8, u16], 1).astype(np.float64)

case = Case("8- and 16-bit integers, signed and unsigned, varying and uniform, to float and "
            "double (exact)")
case.run(dispatch=[N // 64, 1, 1], bindings=[
    buf(0, s8.view(np.uint8), dtype=np.uint8),
    buf(1, u8, dtype=np.uint8),
    buf(2, s16.view(np.uint16), dtype=np.uint16),
    buf(3, u16, dtype=np.uint16),
    buf(4, np.zeros(5 * N, np.float32), f.reshape(-1), dtype=np.float32),
    buf(5, np.zeros(2 * N, np.float64), d.reshape(-1), dtype=np.float64)])
