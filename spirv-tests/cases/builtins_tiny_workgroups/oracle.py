import numpy as np

from common import Case, buf

# 13x5x3 = 195 one-invocation workgroups (64 share a lane group, so the last group holds 3;
# rows of 13 wrap inside chunks of 16) from base (3, 2, 1). Workgroup w writes 12 words at
# its linear index: workgroup id + local index, global id + local id x, workgroup count + 7.
BASE, COUNT = [3, 2, 1], [13, 5, 3]
n = COUNT[0] * COUNT[1] * COUNT[2]
o = np.zeros(n * 12, np.uint32)
for wz in range(COUNT[2]):
    for wy in range(COUNT[1]):
        for wx in range(COUNT[0]):
            wg = [BASE[0] + wx, BASE[1] + wy, BASE[2] + wz]
            idx = ((wz * COUNT[1] + wy) * COUNT[0] + wx) * 12
            o[idx:idx + 12] = [*wg, 0, *wg, 0, *COUNT, 7]

push = np.array(BASE + [0] + COUNT, np.uint32)  # uvec3 base (padded to 16), uvec3 count
case = Case("Id built-ins of one-invocation workgroups on a 3-D grid from a non-zero base, many "
            "sharing a lane group, rows wrapping inside chunks, a partial last group")
case.run(dispatch=COUNT, base=BASE, push=push.tobytes(),
         bindings=[buf(0, np.zeros(len(o), np.uint32), o)])
