import struct

import numpy as np

from common import Case, address, buf, wrap

GROUPS = 4
B_BYTES = 512 - 6  # row 126 keeps two bytes, row 127 none
W_WORDS = 36
rng = np.random.default_rng(28)
b = rng.integers(-128, 128, B_BYTES, dtype=np.int64)
w = rng.integers(-2**31, 2**31, W_WORDS, dtype=np.int64)


def sat32(v):
    return min(max(v, -2**31), 2**31 - 1)


def word_bytes(v, signed=True):
    return [wrap(int(v) >> (8 * k), 8, signed) for k in range(4)]


def row_bytes(index):
    """i8vec4 `index` of the byte allocation: each byte past its end reads 0."""
    return [int(b[4 * index + k]) if 4 * index + k < B_BYTES else 0 for k in range(4)]


def dot(x, y):
    return sum(p * q for p, q in zip(x, y))


out = []
for g in range(GROUPS):
    for y in range(2):
        for x in range(8):
            ss = 2147480000 if g == 1 else 0
            shared = scrambled = unmapped = 0
            for k in range(4):
                row = (4 * g + k) * 8 + x
                wk = int(w[y + 2 * g + k])
                ss = sat32(ss + dot(word_bytes(wk), row_bytes(row)))
                shared += dot(word_bytes(w[(x * 7 + y * 3 + k * 5 + g) % 36]),
                              word_bytes(wk))
                scrambled += dot(row_bytes((x * 5 + y * 11 + k) % 127), word_bytes(wk))
            out += [ss, wrap(shared, 32, True), wrap(scrambled, 32, True), 0]

push = bytearray(24)
struct.pack_into("<Q", push, 16, 0x10)      # no allocation is mapped at 16

case = Case("int8 dot products over PhysicalStorageBuffer pointers in an [8, 2, 1] workgroup: "
            "dense, shared and scrambled addresses, a row cut by the end of its allocation and "
            "an unmapped pointer")
case.run(dispatch=[GROUPS, 1, 1], push=bytes(push),
         bindings=[buf(0, b.astype(np.int8), dtype=np.int8),
                   buf(1, w.astype(np.int32), dtype=np.int32),
                   buf(2, np.zeros(len(out), np.int32), out, dtype=np.int32)],
         addresses=[address(0, 0), address(1, 8)])
