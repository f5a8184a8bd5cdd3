import numpy as np

from common import Case, buf, f32bits, wrap

N = 16
rng = np.random.default_rng(20260130)

fl = [0.0, -0.0, 1.5, -1.5, 2.5, -2.75, 1e6 + 0.5, -123456.75, 0.999, -0.999, 16777217.0, 3e9]
it = [0, 1, -1, 127, 128, -129, 255, 256, 65535, -32768, 16777217, 16777219, 2**31 - 1, -2**31,
      0x12345678, -0x789ABCDE]
fl = (fl + [float(x) for x in rng.uniform(-1000, 1000, N - len(fl))])[:N]
f = np.array(fl, dtype=np.float32)
i = np.array(it, dtype=np.int32)
out = []
for k in range(N):
    fv, iv = float(f[k]), int(i[k])
    uv = iv & 0xFFFFFFFF
    # numpy rounds to nearest even, which is what Vulkan's correctly rounded conversions give.
    r = [
        wrap(int(np.trunc(fv)), 32, True) if abs(fv) < 2**31 else 0,   # int(f)
        (int(np.trunc(fv)) & 0xFFFFFFFF) if 0 <= fv < 2**32 else 0,    # uint(f), f >= 0
        f32bits(float(np.float32(iv))),                                 # float(int)
        f32bits(float(np.float32(uv))),                                 # float(uint)
        wrap(iv, 8, True) & 0xFFFFFFFF,                                 # int(int8_t(i))
        wrap(iv, 8, False),                                             # uint(uint8_t(i))
        wrap(iv, 16, True) & 0xFFFFFFFF,                                # int(int16_t(i))
        wrap(iv, 16, False),                                            # uint(uint16_t(i))
        (iv * 3) & 0xFFFFFFFF,                                          # int(int64_t(i) * 3)
        ((uv * 0x10001) >> 16) & 0xFFFFFFFF,                            # (u64(u) * 0x10001) >> 16
        f32bits(float(np.float32(np.float16(fv)))) if abs(fv) < 60000 else 0,
        f32bits(float(np.float32(np.float64(fv) * 3.0))),               # float(double(f) * 3)
        f32bits(fv),                                                    # floatBitsToUint
        uv ^ 0x80000000,                       # floatBitsToInt(intBitsToFloat(i ^ sign bit))
        f32bits(float(np.float32(float(np.float64(iv)) / 4.0))),        # float(double(i) / 4)
        wrap(int(np.trunc(np.float64(fv) * 2.0)), 64, True) & 0xFFFFFFFF,  # int64_t(double(f) * 2)
    ]
    out += [v & 0xFFFFFFFF for v in r]

case = Case("Conversions between float, int, uint, 8/16/64-bit integers, float16 and double, "
            "and bitcasts; every result stored as its 32-bit pattern")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, f, dtype=np.float32), buf(1, i, dtype=np.int32),
                   buf(2, np.zeros(N * 16, np.uint32), out, dtype=np.uint32)])
