import numpy as np

from common import Case, buf

N = 128
rng = np.random.default_rng(36)
h = rng.integers(0, 1 << 16, N).astype(np.uint32)
h[:8] = [0x7F81, 0xFFC1, 0x7F80, 0xFF80, 0x0001, 0x8000, 0x3F80, 0x7FBF]
f = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
f[:10] = [0x7F800001, 0xFFC00001, 0x7F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0x00008000,
          0x7F7FFFFF, 0x80018000, 0x3F80FFFF]


def widen(x):
    """bfloat16 bits to float32 bits: shifted up; a NaN gets the quiet bit."""
    bits = (x << 16) & 0xFFFFFFFF
    return np.where((bits & 0x7FFFFFFF) > 0x7F800000, bits | 0x00400000, bits)


def narrow(x):
    """float32 bits to bfloat16 bits, to nearest even; a NaN keeps its top bits, made quiet."""
    high = x >> 16
    up = ((x & 0x8000) != 0) & ((x & 0x17FFF) != 0)
    return np.where((x & 0x7FFFFFFF) > 0x7F800000, high | 0x40, high + up) & 0xFFFF


w = np.stack([widen(h), np.full(N, widen(h[:1])[0])], 1).astype(np.uint32)
n = np.stack([narrow(f), np.full(N, narrow(f[1:2])[0])], 1).astype(np.uint16)

case = Case("bfloat16 <-> float32 on bit patterns: NaNs (signalling ones quieted), infinities, "
            "subnormals, ties to even; varying and uniform values")
case.run(dispatch=[N // 64, 1, 1], bindings=[
    buf(0, h.astype(np.uint16), dtype=np.uint16),
    buf(1, f, dtype=np.uint32),
    buf(2, np.zeros(2 * N, np.uint32), w.reshape(-1), dtype=np.uint32),
    buf(3, np.zeros(2 * N, np.uint16), n.reshape(-1), dtype=np.uint16)])
