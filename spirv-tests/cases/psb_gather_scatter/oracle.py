import struct

import numpy as np

from common import Case, address, buf

N = 16
rng = np.random.default_rng(20261204)
src = rng.integers(0, 1 << 30, 64).astype(np.uint32)
dst0 = rng.integers(0, 1 << 30, 64).astype(np.uint32)
wide = rng.integers(0, 1 << 60, 32, dtype=np.uint64)

i = np.arange(N)
o = np.zeros(192, np.uint32)
o[:16] = src[:16]
o[64:80] = src[(i * 7) % 64]
o[128:136] = src[:8]             # lanes 8.. unmapped: 0

dst = dst0.copy()
dst[i[i % 3 == 0]] = i[i % 3 == 0] + 100
dst[16 + i // 4] = i             # in lane order: the last lane of each four wins
dst[60:64] = i[:4] + 200         # lanes 4.. are unmapped

wide_out = wide.copy()
wide_out[:16] = wide[16:] * np.uint64(3) + i.astype(np.uint64)

mask = np.ones(192, np.uint8)
mask[16:64] = 0
mask[80:128] = 0
mask[144:] = 0

case = Case("PhysicalStorageBuffer accesses at varying addresses: contiguous, a strided "
            "gather, chunks partly at an unmapped address (read 0, writes dropped), a store under a "
            "divergent branch, a scatter with shared addresses (last lane wins), 64-bit "
            "elements")
push = bytearray(32)
struct.pack_into("<Q", push, 24, 0x10)      # no allocation is mapped at 16

case.run(dispatch=[1, 1, 1], push=bytes(push),
         bindings=[buf(0, src, src), buf(1, dst0, dst), buf(2, wide, wide_out, dtype=np.uint64),
                   buf(3, np.zeros(192, np.uint32), o, mask=mask)],
         addresses=[address(0, 0), address(1, 8), address(2, 16)])
