import numpy as np

from common import Case, buf

# One workgroup of 17 at base 252645135: global ids (252645135 * 17 + l) mod 2^32, the first
# 2^32 - 1 then 0..15. o[2l] = id >> 16, o[2l + 1] = (id + 1) mod 2^32 (64-bit, truncated).
BASE, LOCAL = 252645135, 17
o = []
for lane in range(LOCAL):
    g = (BASE * LOCAL + lane) % (1 << 32)
    o += [g >> 16, (g + 1) % (1 << 32)]

case = Case("Global invocation ids that wrap past 2^32 inside a chunk, widened to 64 bits")
case.run(dispatch=[1, 1, 1], base=[BASE, 0, 0],
         bindings=[buf(0, np.zeros(len(o), np.uint32), np.array(o, np.uint32))])
