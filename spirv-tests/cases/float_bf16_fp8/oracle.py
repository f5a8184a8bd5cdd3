import ml_dtypes as md
import numpy as np

from common import Case, buf

# Conversions from float32 round to nearest even; float8 overflow gives NaN for E4M3 and
# infinity for E5M2 unless saturated. The bfloat16 dot product accumulates in float32.
N = 64
special = [0.0, -0.0, 1.0, -1.5, 1.00390625, 1.01171875, 3.140625, 0.1, -0.3, 1e-3, 2e-5,
           448.0, 464.0, 500.0, -1000.0, 57344.0, 61440.0, 65536.0, -70000.0, 1e5,
           float("inf"), float("-inf"), 240.0, 0.015625, 0.0009765625, 255.9, -17.25, 6.5e-4]
rng = np.random.default_rng(7)
rest = (rng.standard_normal(N - len(special)) * 30).astype(np.float32)
a = np.array(special + list(rest), np.float32)
b = a.astype(md.bfloat16)
c = a.astype(md.float8_e4m3fn)
d = a.astype(md.float8_e5m2)
o = np.zeros(3 * N, np.float32)
dout = d.copy()
dout[63] = md.float8_e5m2(1.5)  # a float8 constant
with np.errstate(invalid="ignore", over="ignore"):
    o[:N] = b.astype(np.float32) + d.astype(np.float32) * np.float32(1000.0)
    x = b.astype(np.float32)
    sq = (x * x).astype(np.float32) + np.float32(4.0)
    o[N:2 * N] = sq.astype(md.bfloat16).astype(np.float32)
    o[2 * N:] = np.clip(a, -448.0, 448.0).astype(md.float8_e4m3fn).astype(np.float32)

case = Case("VK_KHR_shader_bfloat16 / VK_EXT_shader_float8: conversions from float32, a "
            "bfloat16 dot product, a saturating E4M3 conversion, a float8 constant")
case.run(dispatch=[N // 16, 1, 1],
         bindings=[buf(0, a, dtype=np.float32, compare="u32"),
                   buf(1, np.zeros(N, np.uint16), b.view(np.uint16), dtype=np.uint16),
                   buf(2, np.zeros(N, np.uint8), c.view(np.uint8), dtype=np.uint8),
                   buf(3, np.zeros(N, np.uint8), dout.view(np.uint8), dtype=np.uint8),
                   buf(4, np.zeros(3 * N, np.uint32), o.view(np.uint32), dtype=np.uint32)])
