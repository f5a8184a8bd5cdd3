import numpy as np

from common import Case, buf

# Lane order within a workgroup (how Tessera runs atomics: the interpreter's lockstep order,
# which compiled rounds keep); every workgroup has its own words, so the order of workgroups
# does not show.
WG, GROUPS = 64, 4
n = WG * GROUPS
rng = np.random.default_rng(20261207)
vals = rng.integers(0, 100000, n).astype(np.uint32)
M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF

s_init = np.zeros(GROUPS * 16, np.uint32)
t_init = np.zeros(GROUPS * 2, np.int32)
w_init = np.zeros(GROUPS * 2, np.uint64)
for g in range(GROUPS):
    s_init[g * 16:(g + 1) * 16] = [0, M32, 0, 0, M32, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    t_init[g * 2:(g + 1) * 2] = [2**31 - 1, -2**31]
    w_init[g * 2:(g + 1) * 2] = [1, 0]
s, t, w = s_init.astype(np.int64), t_init.astype(np.int64), w_init.astype(object)
old = np.zeros(n * 16, np.uint32)
old64 = np.zeros(n * 2, np.uint64)
for g in range(GROUPS):
    b = g * 16
    sh = [0, M32, 7, 0]
    for lane in range(WG):
        i = g * WG + lane
        x = int(vals[i])
        o = i * 16
        def rmw(k, new):
            old[o + k] = s[b + k]
            s[b + k] = new(int(s[b + k])) & M32
        rmw(0, lambda a: a + x)
        rmw(1, lambda a: a & (x | 0xF0000000))
        rmw(2, lambda a: a | x)
        rmw(3, lambda a: a ^ x)
        rmw(4, lambda a: min(a, x))
        rmw(5, lambda a: max(a, x))
        rmw(6, lambda a: x)
        rmw(7, lambda a: lane + 1 if a == lane else a)
        y = x - 50000
        old[o + 8] = int(t[g * 2]) & M32
        t[g * 2] = min(int(t[g * 2]), y)
        old[o + 9] = int(t[g * 2 + 1]) & M32
        t[g * 2 + 1] = max(int(t[g * 2 + 1]), y)
        old[o + 10] = 0  # past the end: reads 0, writes nothing
        old[o + 11] = sh[0]
        sh[0] = (sh[0] + x) & M32
        old[o + 12] = sh[1]
        sh[1] = min(sh[1], x)
        old[o + 13] = sh[2]
        sh[2] = lane
        old[o + 14] = sh[3]
        sh[3] = lane + 1 if sh[3] == lane else sh[3]
        old64[i * 2] = w[g * 2]
        w[g * 2] = (w[g * 2] + (x << 20)) & M64
        old64[i * 2 + 1] = w[g * 2 + 1]
        w[g * 2 + 1] = max(w[g * 2 + 1], x * 0x300000000)
    s[b + 12:b + 16] = sh

case = Case("Atomics in uniform control flow run in compiled rounds: every 32-bit buffer "
            "operation, 64-bit add and max, shared add, min, exchange and compare-and-swap, an "
            "add past the buffer's end; returned values in lane order")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, vals),
                   buf(1, s_init, s.astype(np.uint32)),
                   buf(2, t_init, t.astype(np.int32), dtype=np.int32),
                   buf(3, w_init, np.array(w, dtype=np.uint64), dtype=np.uint64),
                   buf(4, np.zeros(n * 16, np.uint32), old),
                   buf(5, np.zeros(n * 2, np.uint64), old64, dtype=np.uint64)])
