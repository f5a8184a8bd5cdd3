import struct

import numpy as np

from common import Case, address, buf

N = 16
rng = np.random.default_rng(20261201)
src = rng.integers(0, 1 << 20, N).astype(np.uint32)
vecs = rng.integers(0, 1 << 30, (N, 4)).astype(np.uint32)
vout = vecs[:, ::-1] + np.arange(N, dtype=np.uint32)[:, None]

# The push block: src, dst (uvec2), bogus, tail, vecs; the backend writes the addresses.
push = bytearray(40)
struct.pack_into("<Q", push, 16, 0x10)      # no allocation is mapped at 16

o = np.zeros(48, np.uint32)
o[:16] = 7
o[16:32] = 5
# o[32 + i]: dst - src, differences of two host addresses: not compared.
mask = np.ones(48, np.uint8)
mask[32:] = 0

case = Case("PhysicalStorageBuffer pointers in push constants: a buffer_reference, a uvec2 "
            "bitcast to a pointer, an unmapped address and one straddling the end of an "
            "allocation (reads 0, writes dropped), uvec4 accesses with Aligned 16")
case.run(dispatch=[1, 1, 1], push=bytes(push),
         bindings=[buf(0, src, src), buf(1, np.zeros(N, np.uint32), src * 3 + 1),
                   buf(2, vecs.reshape(-1), vout.reshape(-1)),
                   buf(3, np.zeros(48, np.uint32), o, mask=mask)],
         addresses=[address(0, 0), address(1, 8), address(0, 24, add=N * 4 - 2),
                    address(2, 32)])
