import numpy as np

from common import Case, tensor, tensor_el

DIMS = (3, 4, 5)
rng = np.random.default_rng(20260130)
a = rng.uniform(-50, 50, DIMS).astype(np.float32)
r = (a.astype(np.float64) * 2 - 1).astype(np.float32)

n = int(np.prod(DIMS))
case = Case("float rank-3 tensors (padded source, packed destination): tensorReadARM, "
            "tensorWriteARM of x * 2 - 1, tensorSizeARM")
case.run(dispatch=[(n + 7) // 8, 1, 1],
         bindings=[tensor(0, tensor_el("f32", a, a, strides="padded")),
                   tensor(1, tensor_el("f32", np.zeros(DIMS, a.dtype), r,
                                       strides="packed", tol=1e-6))])
