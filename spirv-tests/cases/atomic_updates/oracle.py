import numpy as np

from common import Case, buf

# Each binding's updates commute, so its words end the same in any order: the oracle applies
# them lane by lane. `mixed` (an add and a xor on one word) stays atomic in lockstep: every
# lane's add, in lane order, then every lane's xor.
WG, GROUPS = 64, 4
n = WG * GROUPS
rng = np.random.default_rng(20261207)
vals = rng.integers(0, 100000, n).astype(np.uint32)
M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF


def per_group(words, dtype):
    return np.array(words * GROUPS, dtype=dtype)


init = {
    "adds": per_group([5, 1, 2, 3, 4, 9, 0, 0], np.uint32),
    "ands": per_group([M32] * 8, np.uint32),
    "ors": per_group([0x100] + [0] * 7, np.uint32),
    "xors": per_group(list(range(8)), np.uint32),
    "umins": per_group([M32] * 8, np.uint32),
    "smaxs": per_group([-2**31] * 8, np.int32),
    "smins": per_group([2**31 - 1] * 8, np.int32),
    "wide": per_group([M64] * 8, np.uint64),
    "mixed": np.arange(GROUPS * 4, dtype=np.uint32),
}
w = {k: [int(x) for x in v] for k, v in init.items()}
out_sh = np.zeros(GROUPS * 40, np.uint32)
for g in range(GROUPS):
    b = g * 8
    sh = list(range(32)) + [1000] * 8
    xs = [int(vals[g * WG + lane]) for lane in range(WG)]
    for lane, x in enumerate(xs):
        w["adds"][b] = (w["adds"][b] + x) & M32
        w["adds"][b + 1 + x % 4] += 1
        if x & 3:
            w["ands"][b] &= x | 0xFFFF0000
            w["ors"][b] |= x
            w["umins"][b] = min(w["umins"][b], x)
            w["smaxs"][b] = max(w["smaxs"][b], x - 50000)
            w["smins"][b] = min(w["smins"][b], x - 50000)
            w["wide"][b] = min(w["wide"][b], x * 0x100000001)
        else:
            w["adds"][b + 5] = (w["adds"][b + 5] + 0xFFFFFFFD) & M32
            w["wide"][b + 1 + x % 4] = min(w["wide"][b + 1 + x % 4], x << 33)
        w["xors"][b + x % 8] ^= x
        if lane % 3 == 1:
            w["ors"][b + 1 + (x >> 5) % 7] |= 1 << (x % 32)
            w["smaxs"][b + 1 + x % 7] = max(w["smaxs"][b + 1 + x % 7], x - 50000)
        sh[x % 32] = (sh[x % 32] + x) & M32
        if x % 5 < 2:
            sh[32 + x % 8] = (sh[32 + x % 8] + x) & M32
        # adds[100000 + …] and adds[200000]: past the end, dropped.
    for x in xs:
        w["mixed"][g * 4 + x % 4] = (w["mixed"][g * 4 + x % 4] + 1) & M32
    for x in xs:
        w["mixed"][g * 4 + x % 4] ^= x
    out_sh[g * 40:(g + 1) * 40] = sh

order = ["adds", "ands", "ors", "xors", "umins", "smaxs", "smins", "wide", "mixed"]
case = Case("Atomic updates (no returned value read, one commuting operation per memory) "
            "outside sync rounds: uniform and varying addresses, under divergent masks, buffer "
            "and shared words, 32-bit signed and 64-bit words, adds past the end dropped; an add "
            "and a xor on one buffer stay in lockstep")
bindings = [buf(0, vals)]
for k, name in enumerate(order, start=1):
    dtype = init[name].dtype.type
    bindings.append(buf(k, init[name], np.array(w[name], dtype=dtype), dtype=dtype))
bindings.append(buf(10, np.zeros(GROUPS * 40, np.uint32), out_sh))
case.run(dispatch=[GROUPS, 1, 1], bindings=bindings)
