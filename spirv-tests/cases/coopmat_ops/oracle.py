import numpy as np

from common import Case, address, buf

TILES = 4
rng = np.random.default_rng(31)
f16 = np.float16
x = (rng.integers(-16, 17, (TILES, 512)) * 0.25).astype(f16)
a = x[:, :256].reshape(TILES, 16, 16)
b = x[:, 256:].reshape(TILES, 16, 16).transpose(0, 2, 1)  # loaded column-major
r = ((a + (b * f16(2.0)).astype(f16)).astype(f16) + a).astype(f16)
r = (r * f16(0.5)).astype(f16)
w = r.astype(np.float32) / np.float32(4.0)
y = (w + np.float32(1.0)).reshape(-1)
n = (8 * 3 + w.astype(np.int32)).reshape(-1).astype(np.int32)
src = (rng.integers(-100, 101, (TILES, 16, 16)) * 0.125).astype(f16)
dst = src.transpose(0, 2, 1).reshape(-1)
q = x[:, 128:256].reshape(TILES, 16, 8)
z = (-q).reshape(-1)

case = Case("SPV_KHR_cooperative_matrix: element-wise add/sub/mul/div/negate, OpMatrixTimesScalar "
            "(float and integer), component access, length, fills and conversions; a store to "
            "shared memory that other lanes read back with no barrier, loads and stores through "
            "buffer references, column-major stores, a B matrix stored once")
case.run(dispatch=[2, 1, 1], bindings=[
    buf(0, x.reshape(-1), dtype=f16),
    buf(1, np.zeros(TILES * 256, np.float32), y, dtype=np.float32),
    buf(2, np.zeros(TILES * 256, np.int32), n, dtype=np.int32),
    buf(3, np.zeros(4, np.uint32), dtype=np.uint32),
    buf(4, np.zeros(TILES * 128, f16), z, dtype=f16),
    buf(5, src.reshape(-1), dtype=f16),
    buf(6, np.zeros(TILES * 256, f16), dst, dtype=f16),
], addresses=[address(5, 0, into=3), address(6, 8, into=3)])
