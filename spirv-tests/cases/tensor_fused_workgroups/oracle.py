import numpy as np

from common import Case, buf, tensor, tensor_el

# Workgroup i (one invocation each) stores t[i] * 3 + i.
N = 96_577
vals = (np.arange(N, dtype=np.uint64) * 2_654_435_761 % 2**32).astype(np.uint32)
out = ((vals.astype(np.uint64) * 3 + np.arange(N, dtype=np.uint64)) % 2**32).astype(np.uint32)

case = Case("A CTS-sized dispatch: 96 577 one-invocation workgroups, each reading one tensor "
            "element")
case.run(dispatch=[N, 1, 1],
         bindings=[tensor(0, tensor_el("u32", vals)), buf(1, np.zeros(N, np.uint32), out)])
