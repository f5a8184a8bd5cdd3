import struct

import numpy as np

from common import Case, address, buf

GROUPS = 4
WORDS = 64 * 4 - 2  # row 63 keeps two words
rng = np.random.default_rng(41)
words = rng.integers(0, 2**32, WORDS, dtype=np.uint64)


def row(index):
    """uvec4 `index` of the allocation: each word past its end reads 0."""
    return np.array([int(words[4 * index + c]) if 4 * index + c < WORDS else 0
                     for c in range(4)], dtype=np.uint64)


out = []
for g in range(GROUPS):
    for y in range(2):
        for x in range(8):
            dense = np.zeros(4, np.uint64)
            same_row = np.zeros(4, np.uint64)
            scrambled = np.zeros(4, np.uint64)
            for k in range(2):
                dense += row((2 * g + k) * 8 + x) * (k + 1)
                same_row += row(y + 2 * g + k) * (k + 3)
                scrambled += row((x * 5 + y * 11 + k * 3 + g) % 64)
            for v in [dense, same_row, scrambled, np.zeros(4, np.uint64)]:
                out += [int(c) % 2**32 for c in v]

push = bytearray(16)
struct.pack_into("<Q", push, 8, 0x20)      # no allocation is mapped at 32

case = Case("uvec4 rows over PhysicalStorageBuffer pointers in an [8, 2, 1] workgroup: dense, "
            "shared and scrambled addresses, a row cut by the end of its allocation and an "
            "unmapped pointer")
case.run(dispatch=[GROUPS, 1, 1], push=bytes(push),
         bindings=[buf(0, words.astype(np.uint32)),
                   buf(1, np.zeros(len(out), np.uint32), out)],
         addresses=[address(0, 0)])
