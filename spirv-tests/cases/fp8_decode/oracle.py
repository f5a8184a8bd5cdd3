import ml_dtypes as md
import numpy as np

from common import Case, buf

codes = np.arange(256, dtype=np.uint8)


def f32_bits(x):
    """float8 values as float32 bits; a NaN is the positive quiet NaN (Tessera's result)."""
    v = x.astype(np.float32)
    return np.where(np.isnan(v), np.uint32(0x7FC00000), v.view(np.uint32)).astype(np.uint32)


ea = f32_bits(codes.view(md.float8_e4m3fn))
eb = f32_bits(codes.view(md.float8_e5m2))
o = np.stack([ea, eb, np.full(256, ea[255]), np.full(256, eb[126])], 1)

case = Case("Every float8 code (E4M3 and E5M2) to float32: normals, subnormals, zeros, "
            "infinities, NaNs; varying and uniform")
case.run(dispatch=[4, 1, 1], bindings=[
    buf(0, codes, dtype=np.uint8),
    buf(1, codes, dtype=np.uint8),
    buf(2, np.zeros(4 * 256, np.uint32), o.reshape(-1), dtype=np.uint32)])
