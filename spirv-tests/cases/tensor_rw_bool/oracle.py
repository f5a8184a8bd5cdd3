import numpy as np

from common import Case, tensor, tensor_el

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
a = rng.integers(0, 2, DIMS).astype(np.uint8)
r = (1 - a).astype(np.uint8)

n = int(np.prod(DIMS))
case = Case("bool rank-3 tensors (padded source, packed destination): tensorReadARM, "
            "tensorWriteARM of !x, tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("bool", a, a, strides="padded")),
                   tensor(1, tensor_el("bool", np.zeros(DIMS, a.dtype), r,
                                       strides="packed"))])
