import struct

import numpy as np

from common import Case, buf

# Per workgroup g of 64: table[k] = scale * (k + 1) + 100 g for k < count (3); each lane l writes
# in[(l + 7) % 64] + table[l % 3] * 1000 + table[(l + 1) % 3].
WG, GROUPS, COUNT, SCALE = 64, 4, 3, 7
rng = np.random.default_rng(20261207)
vals = rng.integers(0, 1 << 20, WG * GROUPS).astype(np.uint32)

out = []
for g in range(GROUPS):
    table = [SCALE * (k + 1) + 100 * g for k in range(COUNT)]
    for lane in range(WG):
        x = int(vals[g * WG + (lane + 7) % WG]) + table[lane % 3] * 1000 + table[(lane + 1) % 3]
        out.append(x & 0xFFFFFFFF)

case = Case("A function-local array of uniform values written between two barriers and read "
            "after the second: its registers are stored when the chunk waits there")
case.run(dispatch=[GROUPS, 1, 1], push=struct.pack("<II", COUNT, SCALE),
         bindings=[buf(0, vals), buf(1, np.zeros(len(out), np.uint32), np.array(out, np.uint32))])
