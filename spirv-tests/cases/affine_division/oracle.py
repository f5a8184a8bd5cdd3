import numpy as np

from common import Case, buf

N = 64                          # two workgroups of 32: four chunks of 16
BASE = 6
WRAP_BASE = (1 << 32) - 4 * 40  # lanes 40.. wrap: the third chunk's lanes 8..15
rng = np.random.default_rng(20261207)
a = rng.integers(0, 1 << 32, 140, dtype=np.uint64).astype(np.uint32)

i = np.arange(N, dtype=np.uint64)
mask = (1 << 32) - 1
q = ((BASE + 4 * i) & mask) // 2
s = ((BASE + 8 * i) & mask) >> 2
w = ((WRAP_BASE + 4 * i) & mask) // 2
v = (a[q.astype(np.int64)].astype(np.uint64) + a[(q + 1).astype(np.int64)].astype(np.uint64) * 3) & mask
o = np.stack([q, s, w, v], axis=1).astype(np.uint32)

case = Case("quotients of an affine index by a divisor of its stride, with a chunk whose lanes "
            "wrap past 2^32, and the loads they address")
case.run(dispatch=[2, 1, 1],
         bindings=[buf(0, np.array([BASE, WRAP_BASE], np.uint32), None),
                   buf(1, a, a),
                   buf(2, np.zeros(N * 4, np.uint32), o.reshape(-1))])
