import numpy as np

from common import Case, buf, wrap

GROUPS = 4
B_BYTES = 512 - 6  # row 126 keeps two bytes, row 127 none
W_WORDS = 36       # index 36 of the scrambled words is past the end
rng = np.random.default_rng(27)

a = rng.integers(-2**31, 2**31, (2 * GROUPS * 4, 4), dtype=np.int64)
b = rng.integers(-128, 128, B_BYTES, dtype=np.int64)
w = rng.integers(-2**31, 2**31, W_WORDS, dtype=np.int64)


def sat32(v):
    return min(max(v, -2**31), 2**31 - 1)


def word_bytes(v, signed):
    return [wrap(int(v) >> (8 * k), 8, signed) for k in range(4)]


def row_bytes(index, signed):
    """i8vec4 / u8vec4 `index` of the byte buffer: each byte past the end reads 0."""
    out = []
    for k in range(4):
        at = 4 * index + k
        out.append(wrap(int(b[at]), 8, signed) if at < B_BYTES else 0)
    return out


def word(index):
    return int(w[index]) if index < W_WORDS else 0


def dot(x, y):
    return sum(p * q for p, q in zip(x, y))


out = []
for g in range(GROUPS):
    for y in range(2):
        for x in range(8):
            lane = y * 8 + x + 16 * g
            ss = 2147480000 if g == 1 else 0
            uu = su = words = rows = 0
            for k in range(4):
                av = a[(2 * g + y) * 4 + k]
                row = (4 * g + k) * 8 + x
                ss = sat32(ss + dot(word_bytes(av[0], True), row_bytes(row, True)))
                uu += dot(word_bytes(av[1], False), row_bytes(row, False))
                su += dot(word_bytes(av[2], True),
                          word_bytes(word((x * 7 + y * 3 + k * 5 + g) % 37), False))
                words += dot(word_bytes(word(8 * g + x + k), True),
                             word_bytes(word(y + 2 * g), True))
                rows += dot(row_bytes(lane + 16 * k, True), word_bytes(av[3], True))
            out += [ss, wrap(uu, 32, True), wrap(su, 32, True), wrap(words, 32, True),
                    wrap(rows, 32, True)]

case = Case("IREE-shaped int8 matmul loads in an [8, 2, 1] workgroup (shared vec4 rows, dense "
            "i8vec4 rows repeated across y, scrambled and out-of-range words, a byte buffer cut "
            "mid-row) feeding integer dot products of every signedness")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, a.astype(np.int32).flatten(), dtype=np.int32),
                   buf(1, b.astype(np.int8), dtype=np.int8),
                   buf(2, w.astype(np.int32), dtype=np.int32),
                   buf(3, np.zeros(len(out), np.int32), out, dtype=np.int32)])
