import numpy as np

from common import Case, buf

# local size 2x3x2; workgroups base + (0..2, 0..1, 0..3). Invocation g writes 16 words at
# ((g.z * 6 + g.y) * 6 + g.x) * 16: local id + index, workgroup id, workgroup count, size.
BASE, COUNT, LOCAL = [1, 2, 0], [2, 1, 3], [2, 3, 2]
o = np.zeros(240 * 16, np.uint32)
for wz in range(COUNT[2]):
    for wy in range(COUNT[1]):
        for wx in range(COUNT[0]):
            wg = [BASE[0] + wx, BASE[1] + wy, BASE[2] + wz]
            for lz in range(LOCAL[2]):
                for ly in range(LOCAL[1]):
                    for lx in range(LOCAL[0]):
                        g = [wg[0] * 2 + lx, wg[1] * 3 + ly, wg[2] * 2 + lz]
                        idx = ((g[2] * 6 + g[1]) * 6 + g[0]) * 16
                        o[idx:idx + 16] = [lx, ly, lz, (lz * 3 + ly) * 2 + lx, *wg, 0,
                                           *COUNT, 0, *LOCAL, 1]

case = Case("Invocation, workgroup and size built-ins on a 2x3x2 workgroup, dispatched from a "
            "non-zero base")
case.run(dispatch=COUNT, base=BASE, bindings=[buf(0, np.zeros(len(o), np.uint32), o)])
