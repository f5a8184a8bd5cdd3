import numpy as np

from common import Case, buf

WG, GROUPS, SG = 64, 2, 32
n = WG * GROUPS
rng = np.random.default_rng(20261208)
v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
v[5] = 7
M64 = 2**64 - 1

def s8(x):
    x &= 0xFF
    return x - 256 if x >= 128 else x

def s16(x):
    x &= 0xFFFF
    return x - 65536 if x >= 32768 else x

o = np.zeros(n * 18, np.uint32)
o64 = np.zeros(n * 5, np.uint64)
for base in range(0, n, SG):
    lanes = range(base, base + SG)
    xs = [int(v[i]) for i in lanes]
    x8 = [s8(x) for x in xs]
    x16 = [s16(x * 37) for x in xs]
    x64 = [(x * 0x100000001) & M64 for x in xs]
    d = [float(int(x % 64) - 32) * 0.5 for x in xs]
    p = [(x & 3) != 0 for x in xs]
    ballot = sum(1 << j for j in range(SG) if p[j])
    # Halves: float32(x % 1000) * 0.01 - 4.0 rounded to f16; each step in f32, rounded back.
    h = [np.float16(np.float32(x % 1000) * np.float32(0.01) - np.float32(4.0)) for x in xs]

    def f16_step(a, b, f):
        return np.float16(f(np.float32(a), np.float32(b)))

    def bits(x):
        return int(np.array([x], np.float16).view(np.uint16)[0])

    scan, acc = [], None
    for x in h:
        acc = x if acc is None else f16_step(acc, x, lambda a, b: a + b)
        scan.append(acc)
    prod = h[0]
    for x in h[1:]:
        prod = f16_step(prod, x, lambda a, b: a * b)
    exmin, acc = [], np.float16(np.inf)
    for x in h:
        exmin.append(acc)
        acc = x if x < acc else acc
    for j, i in enumerate(lanes):
        k = i * 18
        o[k + 0] = s8(sum(x8)) & 0xFFFFFFFF
        o[k + 1] = max(x16[:j + 1]) & 0xFFFFFFFF
        c = j - j % 4
        o[k + 2] = min(x8[c:c + 4]) & 0xFFFFFFFF
        o[k + 3] = int(all(p))
        o[k + 4] = int(any(x == 7 for x in xs))
        acc = 0
        for q in p[:j + 1]:
            acc ^= int(q)
        o[k + 5] = acc
        o[k + 6] = int(j == 0)
        o[k + 7] = int(all(p)) + 2 * int(any(p))
        o[k + 8] = int(len({x & 1 for x in xs}) == 1) + 2 * int(len({x // 1000000 for x in xs}) == 1)
        o[k + 9] = ballot
        o[k + 10] = bin(ballot).count("1")
        o[k + 11] = bin(ballot & ((2 << j) - 1)).count("1")
        o[k + 12] = bin(ballot & ((1 << j) - 1)).count("1")
        o[k + 13] = (xs[j] >> j) & 1
        o[k + 14] = x16[j ^ 5] & 0xFFFFFFFF
        o[k + 15] = int(sum(d) * 2.0) & 0xFFFFFFFF
        o[k + 16] = bits(scan[j])
        o[k + 17] = bits(exmin[j]) | (bits(prod) << 16)
        o64[i * 4 + 0] = sum(x64[:j]) & M64
        c = j - j % 8
        o64[i * 4 + 1] = max(x ^ 0xF0F0F0F0F0F0F0F0 for x in x64[c:c + 8])
        o64[i * 4 + 2] = x64[j ^ 3]
        o64[i * 4 + 3] = np.array([max(d)], np.float64).view(np.uint64)[0]
        o64[n * 4 + i] = x64[(xs[j] >> 3) & 31]

case = Case("Subgroup operations on 8-, 16- and 64-bit integers, doubles and booleans, votes, "
            "ballots and ballot bit counts in uniform control flow (compiled rounds)")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, v), buf(1, np.zeros(n * 18, np.uint32), o),
                   buf(2, np.zeros(n * 5, np.uint64), o64, dtype=np.uint64)])
