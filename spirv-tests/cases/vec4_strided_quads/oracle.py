import numpy as np

from common import Case, address, buf

GROUPS = 4
ROWS = 64      # binding 0: lanes with x * 5 + 30 + g >= 64 read 0
DEVICE_ROWS = 40
rng = np.random.default_rng(53)
src = rng.integers(0, 2**32, (ROWS, 4), dtype=np.uint64)
dev = rng.integers(0, 2**32, (DEVICE_ROWS, 4), dtype=np.uint64)


def row(table, index):
    return table[index] if index < len(table) else np.zeros(4, np.uint64)


out = []
for g in range(GROUPS):
    for y in range(2):
        for x in range(8):
            for v in [row(src, x * 3 + y * 7 + g), row(src, x * 2 + 16 * g) * 3,
                      row(src, x * 5 + 30 + g), row(dev, x * 3 + y + g)]:
                out += [int(c) % 2**32 for c in v]

case = Case("uvec4 rows evenly spaced across x in an [8, 2, 1] workgroup (a step found at run "
            "time), some past the end of the buffer, and through a device address")
case.run(dispatch=[GROUPS, 1, 1], push=bytes(8),
         bindings=[buf(0, src.astype(np.uint32).ravel()),
                   buf(1, dev.astype(np.uint32).ravel()),
                   buf(2, np.zeros(len(out), np.uint32), out)],
         addresses=[address(1, 0)])
