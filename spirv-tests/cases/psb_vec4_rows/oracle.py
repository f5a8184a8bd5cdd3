import struct

import numpy as np

from common import Case, address, buf

N = 32          # two workgroups of 16
rng = np.random.default_rng(20261204)
src = rng.integers(0, 1 << 30, (64, 4)).astype(np.uint32)
dst0 = rng.integers(0, 1 << 30, (32, 4)).astype(np.uint32)
rmw0 = rng.integers(0, 1 << 30, (64, 4)).astype(np.uint32)

dst = dst0.copy()
rmw = rmw0.copy()
for i in range(N):
    dst[i] = src[i][[1, 2, 3, 0]] + src[2 * i + 1]
    rmw[2 * i] = rmw[2 * i] ^ np.array([i, 2 * i, 3 * i, 4 * i], np.uint32)

push = bytearray(32)
struct.pack_into("<Q", push, 24, 0x10)      # no allocation is mapped at 16

case = Case("a uvec4 per lane through PhysicalStorageBuffer pointers at strides of 16 and 32 "
            "bytes, and through an unmapped pointer (reads 0, writes dropped)")
case.run(dispatch=[2, 1, 1], push=bytes(push),
         bindings=[buf(0, src.reshape(-1), src.reshape(-1)),
                   buf(1, dst0.reshape(-1), dst.reshape(-1)),
                   buf(2, rmw0.reshape(-1), rmw.reshape(-1))],
         addresses=[address(0, 0), address(1, 8), address(2, 16)])
