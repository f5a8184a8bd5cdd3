import numpy as np

from common import Case, buf

WG, GROUPS, BINS = 64, 4, 16
n = WG * GROUPS
rng = np.random.default_rng(20260130)

vals = rng.integers(0, 100000, n).astype(np.uint32)
hist = np.bincount(vals % BINS, minlength=BINS).astype(np.uint32)
# globals: [counter, min, max, or, xor, and, cas_count, pad]
g = [n, int(vals.min()), int(vals.max()), int(np.bitwise_or.reduce(vals)),
     int(np.bitwise_xor.reduce(vals)), int(np.bitwise_and.reduce(vals | 0x80000000)), n // 2, 0]
g_init = [0, 0xFFFFFFFF, 0, 0, 0, 0xFFFFFFFF, 0, 0]
seen = np.ones(n, np.uint32)   # every ticket of the counter is handed out once
local = [int(vals[k * WG:(k + 1) * WG].astype(np.uint64).sum() & 0xFFFFFFFF)
         for k in range(GROUPS)]

case = Case("Buffer and shared atomics from every invocation: add (a histogram and a ticket "
            "counter), min, max, or, xor, and, a compare-and-swap loop")
case.run(dispatch=[GROUPS, 1, 1],
         bindings=[buf(0, vals), buf(1, np.zeros(BINS, np.uint32), hist),
                   buf(2, g_init, g), buf(3, np.zeros(n, np.uint32), seen),
                   buf(4, np.zeros(GROUPS, np.uint32), local)])
