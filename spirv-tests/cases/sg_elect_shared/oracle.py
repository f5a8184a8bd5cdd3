import numpy as np

from common import Case, buf, spec_size

# Every invocation reads its subgroup's mask after its own subgroup's elected lane set its bit:
# one bit, so 1 everywhere (the shape of CTS subgroups.basic.compute.subgroupelect).
NWG = 3
case = Case("Elect in divergent control flow with per-subgroup shared masks and atomics "
            "(CTS subgroupelect's shape)")
for lx, ly in [(1, 1), (32, 1), (64, 1), (100, 1), (16, 4), (7, 3), (128, 8)]:
    n = lx * ly * NWG
    case.run(name=f"{lx}x{ly}", dispatch=[NWG, 1, 1], spec=spec_size(lx, ly),
             bindings=[buf(0, np.zeros(n, np.uint32), np.ones(n, np.uint32))])
